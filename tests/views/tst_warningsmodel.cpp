#include "warningsmodel.h"

#include <QAbstractItemModelTester>
#include <QIcon>
#include <QtTest>

using namespace jitscope;

namespace {

TraceWarning warning(const QString& kind, int trace, int traceNode, int scriptNode, int line)
{
    TraceWarning w;
    if (!warningKindFromName(kind, &w.kind))
        qFatal("unknown warning kind %s", qPrintable(kind));
    w.message = QStringLiteral("%1 in trace %2").arg(kind).arg(trace + 1);
    w.traceIndex = trace;
    w.traceNode = traceNode;
    w.scriptNode = scriptNode;
    w.location = SourceLocation { QStringLiteral("m.py"), line, 4 };
    w.suggestion = QStringLiteral("script the loop");
    return w;
}

} // namespace

class TestWarningsModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rowsAndRoles()
    {
        WarningsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.columnCount(), int(WarningsModel::NumColumns));

        model.setWarnings({ warning(QStringLiteral("shape-dependent-loop"), 0, -1, 4, 6),
                              warning(QStringLiteral("in-place-on-view"), 1, 12, 3, 9),
                              warning(QStringLiteral("output-mismatch"), 2, -1, -1, 0) },
            { QStringLiteral("f32[3,4,5]"), QStringLiteral("f32[4,5,6]"), QStringLiteral("f32[2,3,4]") });
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.rowCount(model.index(0, 0)), 0);

        const QModelIndex loop = model.index(0, WarningsModel::KindColumn);
        QCOMPARE(loop.data().toString(), QStringLiteral("shape-dependent-loop"));
        QVERIFY(!loop.data(Qt::DecorationRole).value<QIcon>().isNull());
        QCOMPARE(loop.data(WarningsModel::SeverityRole).toInt(), int(WarningsModel::Severity::Warning));
        QCOMPARE(loop.data(WarningsModel::ScriptNodeRole).toInt(), 4);
        QCOMPARE(loop.data(WarningsModel::TraceNodeRole).toInt(), -1);
        QCOMPARE(loop.data(WarningsModel::LineRole).toInt(), 6);
        QCOMPARE(loop.data(WarningsModel::SuggestionRole).toString(), QStringLiteral("script the loop"));
        // The fix is in the tooltip of every column.
        QVERIFY(model.index(0, WarningsModel::MessageColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QLatin1String("script the loop")));
        QCOMPARE(
            model.index(0, WarningsModel::InputSetColumn).data().toString(), QStringLiteral("1 \u00b7 f32[3,4,5]"));
        QCOMPARE(model.index(0, WarningsModel::LineColumn).data().toInt(), 6);

        const QModelIndex view = model.index(1, WarningsModel::KindColumn);
        QCOMPARE(view.data(WarningsModel::TraceIndexRole).toInt(), 1);
        QCOMPARE(view.data(WarningsModel::TraceNodeRole).toInt(), 12);

        const QModelIndex mismatch = model.index(2, WarningsModel::KindColumn);
        QCOMPARE(mismatch.data(WarningsModel::SeverityRole).toInt(), int(WarningsModel::Severity::Error));
        QCOMPARE(model.index(2, WarningsModel::LineColumn).data().toString(), QString());
        QCOMPARE(model.count(WarningsModel::Severity::Error), 1);
        QCOMPARE(model.count(WarningsModel::Severity::Warning), 2);

        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestWarningsModel)
#include "tst_warningsmodel.moc"
