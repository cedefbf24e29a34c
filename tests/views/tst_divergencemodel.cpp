#include "divergencemodel.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QtTest>

using namespace jitscope;

namespace {

IrGraph graph(const QStringList& kinds)
{
    IrGraph g;
    for (int i = 0; i < kinds.size(); ++i) {
        IrValue v;
        v.id = i;
        v.name = QString::number(20 + i);
        v.type = QStringLiteral("Tensor");
        v.producer = i;
        g.values.append(v);
        IrNode n;
        n.id = i;
        n.kind = kinds.at(i);
        n.outputs = { i };
        g.nodes.append(n);
        g.top.nodes.append(i);
    }
    return g;
}

TraceDiff sampleDiff()
{
    TraceDiff d;
    d.base = 0;
    d.other = 1;
    d.equal = false;
    NodeChange insert;
    insert.op = NodeChange::Op::Insert;
    insert.otherNode = 2;
    insert.scriptNode = 5;
    insert.location = SourceLocation { QStringLiteral("m.py"), 7, 26 };
    insert.cause
        = QStringLiteral("loop at line 6 unrolled 3 times in trace 1 but 4 times in trace 2: trip count x.size(0)");
    NodeChange remove;
    remove.op = NodeChange::Op::Delete;
    remove.baseNode = 1;
    NodeChange changed;
    changed.op = NodeChange::Op::Change;
    changed.baseNode = 0;
    changed.otherNode = 0;
    changed.location = SourceLocation { QStringLiteral("m.py"), 9, 0 };
    d.changes = { insert, remove, changed };
    return d;
}

} // namespace

class TestDivergenceModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rowsAndRoles()
    {
        DivergenceModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), int(DivergenceModel::NumColumns));

        const IrGraph base = graph({ QStringLiteral("aten::add"), QStringLiteral("aten::select") });
        const IrGraph other
            = graph({ QStringLiteral("aten::sub"), QStringLiteral("aten::select"), QStringLiteral("aten::mul") });
        model.setDiff(sampleDiff(), base, other);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.rowCount(model.index(0, 0)), 0);

        const QModelIndex insert = model.index(0, DivergenceModel::OpColumn);
        QCOMPARE(insert.data(DivergenceModel::OpRole).toInt(), int(NodeChange::Op::Insert));
        QVERIFY(insert.data().toString().contains(QLatin1String("inserted")));
        QVERIFY(insert.data(Qt::DecorationRole).value<QColor>().isValid());
        QCOMPARE(insert.data(DivergenceModel::OtherNodeRole).toInt(), 2);
        QCOMPARE(insert.data(DivergenceModel::BaseNodeRole).toInt(), -1);
        QCOMPARE(insert.data(DivergenceModel::ScriptNodeRole).toInt(), 5);
        QCOMPARE(insert.data(DivergenceModel::LineRole).toInt(), 7);
        QVERIFY(model.index(0, DivergenceModel::CauseColumn).data().toString().contains(QLatin1String("x.size(0)")));
        QCOMPARE(model.index(0, DivergenceModel::LineColumn).data().toInt(), 7);
        QCOMPARE(model.index(0, DivergenceModel::NodeColumn).data().toString(), QStringLiteral("aten::mul  %22"));
        QVERIFY(model.index(0, DivergenceModel::NodeColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QLatin1String("aten::mul")));

        QVERIFY(model.index(1, DivergenceModel::OpColumn).data().toString().contains(QLatin1String("deleted")));
        QCOMPARE(model.index(1, DivergenceModel::NodeColumn).data().toString(), QStringLiteral("aten::select  %21"));
        // A change of kind shows both kinds; no cause shows a dash, no line shows nothing.
        QCOMPARE(model.index(2, DivergenceModel::NodeColumn).data().toString(),
            QStringLiteral("aten::add \u2192 aten::sub"));
        QCOMPARE(model.index(1, DivergenceModel::CauseColumn).data().toString(), QStringLiteral("\u2014"));
        QCOMPARE(model.index(1, DivergenceModel::LineColumn).data().toString(), QString());

        QCOMPARE(model.rowOfNode(2, true), 0);
        QCOMPARE(model.rowOfNode(1, false), 1);
        QCOMPARE(model.rowOfNode(1, true), -1);
        QVERIFY(!model.headerData(DivergenceModel::CauseColumn, Qt::Horizontal).toString().isEmpty());
        QVERIFY(!(model.flags(insert) & Qt::ItemIsEditable));

        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestDivergenceModel)
#include "tst_divergencemodel.moc"
