#include "framesmodel.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QtTest>

using namespace jitscope;

Q_DECLARE_METATYPE(jitscope::ExecFrame)

namespace {

ExecFrame function(const QString& name, int line = 0)
{
    return { ExecFrame::Kind::Function, name, line, -1, -1, -1, -1 };
}

ExecFrame loop(int line, int node, int iteration, qint64 iterations)
{
    return { ExecFrame::Kind::Loop, QStringLiteral("loop"), line, node, iteration, iterations, -1 };
}

ExecFrame branch(int line, int node, int taken)
{
    return { ExecFrame::Kind::Branch, QStringLiteral("if"), line, node, -1, -1, taken };
}

} // namespace

class TestFramesModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void describe_data()
    {
        QTest::addColumn<ExecFrame>("frame");
        QTest::addColumn<QString>("text");
        QTest::addRow("function") << function(QStringLiteral("loop_in_traced_fn")) << "loop_in_traced_fn";
        QTest::addRow("callee") << function(QStringLiteral("helper"), 12) << "helper (called at line 12)";
        QTest::addRow("loop") << loop(6, 4, 1, 3) << "loop at line 6 \u2014 iteration 2 of 3";
        QTest::addRow("while True") << loop(6, 4, 41, -1) << "loop at line 6 \u2014 iteration 42";
        QTest::addRow("then") << branch(9, 7, 0) << "if at line 9 \u2014 then";
        QTest::addRow("else") << branch(9, 7, 1) << "if at line 9 \u2014 else";
    }

    void describe()
    {
        QFETCH(ExecFrame, frame);
        QFETCH(QString, text);
        QCOMPARE(FramesModel::describe(frame), text);
    }

    void rowsAndRoles()
    {
        FramesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.columnCount(), int(FramesModel::NumColumns));
        QCOMPARE(model.rowCount(), 0);

        model.setFrames({ function(QStringLiteral("f")), loop(6, 4, 1, 3), branch(9, 7, 1) });
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.rowCount(model.index(0, 0)), 0);
        QCOMPARE(model.index(0, FramesModel::FrameColumn).data().toString(), QStringLiteral("f"));
        QCOMPARE(model.index(0, FramesModel::LineColumn).data().toString(), QString());

        const QModelIndex loopRow = model.index(1, FramesModel::FrameColumn);
        QCOMPARE(loopRow.data().toString(), QStringLiteral("loop at line 6 \u2014 iteration 2 of 3"));
        QCOMPARE(loopRow.data(FramesModel::KindRole).toInt(), int(ExecFrame::Kind::Loop));
        QCOMPARE(loopRow.data(FramesModel::LineRole).toInt(), 6);
        QCOMPARE(loopRow.data(FramesModel::ScriptNodeRole).toInt(), 4);
        QCOMPARE(loopRow.data(FramesModel::IterationRole).toInt(), 2);
        QCOMPARE(loopRow.data(FramesModel::IterationsRole).toLongLong(), 3);
        QCOMPARE(loopRow.data(FramesModel::BranchRole).toInt(), -1);
        QVERIFY(!loopRow.data(FramesModel::InnermostRole).toBool());
        QCOMPARE(model.index(1, FramesModel::LineColumn).data().toInt(), 6);

        // The innermost frame is where execution is: bold.
        const QModelIndex ifRow = model.index(2, FramesModel::FrameColumn);
        QCOMPARE(ifRow.data(FramesModel::BranchRole).toInt(), 1);
        QCOMPARE(ifRow.data(FramesModel::IterationRole).toInt(), -1);
        QVERIFY(ifRow.data(FramesModel::InnermostRole).toBool());
        QVERIFY(ifRow.data(Qt::FontRole).value<QFont>().bold());

        model.setFrames({ function(QStringLiteral("g")) });
        QCOMPARE(model.rowCount(), 1);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }
};

// QTEST_MAIN: the innermost frame's bold font needs a QGuiApplication.
QTEST_MAIN(TestFramesModel)
#include "tst_framesmodel.moc"
