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

/// A loop divergence (an inserted node and a changed one) and an unexplained one (a deleted node), as
/// groupDivergences() leaves a diff.
TraceDiff sampleDiff()
{
    TraceDiff d;
    d.base = 0;
    d.other = 1;
    d.equal = false;
    const QString loop
        = QStringLiteral("loop at line 6 unrolled 3 times in trace 1 but 4 times in trace 2: trip count x.size(0)");
    NodeChange insert;
    insert.op = NodeChange::Op::Insert;
    insert.otherNode = 2;
    insert.scriptNode = 5;
    insert.location = SourceLocation { QStringLiteral("m.py"), 7, 26 };
    insert.kind = DivergenceKind::LoopUnrolled;
    insert.cause = loop;
    insert.causeAt = SourceLocation { QStringLiteral("m.py"), 6, 4 };
    insert.divergence = 0;
    NodeChange remove;
    remove.op = NodeChange::Op::Delete;
    remove.baseNode = 1;
    remove.divergence = 1;
    remove.scope = QStringLiteral("head");
    NodeChange changed;
    changed.op = NodeChange::Op::Change;
    changed.baseNode = 0;
    changed.otherNode = 0;
    changed.location = SourceLocation { QStringLiteral("m.py"), 9, 0 };
    changed.kind = DivergenceKind::LoopUnrolled;
    changed.cause = loop;
    changed.causeAt = insert.causeAt;
    changed.divergence = 0;
    d.changes = { insert, remove, changed };
    Divergence first;
    first.kind = DivergenceKind::LoopUnrolled;
    first.message = loop;
    first.location = insert.causeAt;
    first.changes = { 0, 2 };
    first.baseNodes = { 0 };
    first.otherNodes = { 2, 0 };
    first.evidence = { QStringLiteral("shape-dependent-loop (trace 1 and 2)") };
    Divergence second;
    second.kind = DivergenceKind::Unexplained;
    second.scope = QStringLiteral("head");
    second.scopeType = QStringLiteral("Linear");
    second.changes = { 1 };
    second.baseNodes = { 1 };
    d.divergences = { first, second };
    return d;
}

} // namespace

class TestDivergenceModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void divergencesWithTheirChanges()
    {
        DivergenceModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), int(DivergenceModel::NumColumns));

        const IrGraph base = graph({ QStringLiteral("aten::add"), QStringLiteral("aten::select") });
        const IrGraph other
            = graph({ QStringLiteral("aten::sub"), QStringLiteral("aten::select"), QStringLiteral("aten::mul") });
        model.setDiff(sampleDiff(), base, other);
        // One row per divergence, its changes under it.
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.divergenceCount(), 2);
        QCOMPARE(model.changeCount(), 3);
        const QModelIndex loop = model.index(0, DivergenceModel::OpColumn);
        QCOMPARE(model.rowCount(loop), 2);
        QCOMPARE(model.rowCount(model.index(1, 0)), 1);
        QVERIFY(loop.data().toString().startsWith(QLatin1String("loop-unrolled")));
        QCOMPARE(loop.data(DivergenceModel::KindRole).toString(), QStringLiteral("loop-unrolled"));
        QCOMPARE(loop.data(DivergenceModel::ChangeRole).toInt(), -1);
        QCOMPARE(loop.data(DivergenceModel::DivergenceRole).toInt(), 0);
        QCOMPARE(loop.data(DivergenceModel::LineRole).toInt(), 6);
        QVERIFY(model.index(0, DivergenceModel::CauseColumn).data().toString().contains(QLatin1String("x.size(0)")));
        QCOMPARE(model.index(0, DivergenceModel::LineColumn).data().toString(), QStringLiteral("m.py:6"));
        QCOMPARE(model.index(0, DivergenceModel::NodeColumn).data().toString(), QStringLiteral("top module"));
        QCOMPARE(model.index(1, DivergenceModel::NodeColumn).data().toString(), QStringLiteral("head \u00b7 Linear"));
        QVERIFY(loop.data(Qt::ToolTipRole).toString().contains(QLatin1String("shape-dependent-loop")));

        // Its changes: the nodes, each with its own line.
        const QModelIndex insert = model.index(0, DivergenceModel::OpColumn, loop);
        QCOMPARE(model.parent(insert), loop);
        QCOMPARE(model.changeOf(insert), 0);
        QCOMPARE(model.divergenceOf(insert), 0);
        QCOMPARE(insert.data(DivergenceModel::OpRole).toInt(), int(NodeChange::Op::Insert));
        QVERIFY(insert.data().toString().contains(QLatin1String("inserted")));
        QVERIFY(insert.data(Qt::DecorationRole).value<QColor>().isValid());
        QCOMPARE(insert.data(DivergenceModel::OtherNodeRole).toInt(), 2);
        QCOMPARE(insert.data(DivergenceModel::BaseNodeRole).toInt(), -1);
        QCOMPARE(insert.data(DivergenceModel::ScriptNodeRole).toInt(), 5);
        QCOMPARE(insert.data(DivergenceModel::LineRole).toInt(), 7);
        QCOMPARE(model.index(0, DivergenceModel::NodeColumn, loop).data().toString(), QStringLiteral("aten::mul  %22"));
        QVERIFY(model.index(0, DivergenceModel::NodeColumn, loop)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QLatin1String("aten::mul")));
        // A change of kind shows both kinds.
        QCOMPARE(model.index(1, DivergenceModel::NodeColumn, loop).data().toString(),
            QStringLiteral("aten::add \u2192 aten::sub"));
        QCOMPARE(model.changeOf(model.index(1, 0, loop)), 2);
        const QModelIndex removed = model.index(0, DivergenceModel::OpColumn, model.index(1, 0));
        QVERIFY(removed.data().toString().contains(QLatin1String("deleted")));
        QCOMPARE(model.index(0, DivergenceModel::NodeColumn, model.index(1, 0)).data().toString(),
            QStringLiteral("aten::select  %21"));

        // From a change or a node to its row.
        QCOMPARE(model.changeIndex(2), model.index(1, 0, loop));
        QCOMPARE(model.divergenceIndex(1), model.index(1, 0));
        QCOMPARE(model.changeOfNode(2, true), 0);
        QCOMPARE(model.changeOfNode(1, false), 1);
        QCOMPARE(model.changeOfNode(1, true), -1);
        QVERIFY(!model.headerData(DivergenceModel::CauseColumn, Qt::Horizontal).toString().isEmpty());
        QVERIFY(!(model.flags(insert) & Qt::ItemIsEditable));

        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

};

QTEST_MAIN(TestDivergenceModel)
#include "tst_divergencemodel.moc"
