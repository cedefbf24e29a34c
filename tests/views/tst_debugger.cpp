// The debugger in the main window, driven as a user drives it: keys, gutter clicks, the Debug actions. Every wait is
// on the window's own signals (debugPaused, debugFinished, liveTraceShown).

#include "check/check.h"
#include "debugcontroller.h"
#include "framesmodel.h"
#include "graphitems.h"
#include "graphscene.h"
#include "graphview.h"
#include "inputsetseditor.h"
#include "inputsetsmodel.h"
#include "mainwindow.h"
#include "sourceview.h"
#include "trace/trace.h"
#include "valuesmodel.h"
#include "windowtest.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTreeView>
#include <QtTest>

using namespace jitscope;
using namespace jitscope::test;

namespace {

constexpr int kPauseTimeoutMs = 30 * 1000;

QString example()
{
    return QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
}

/// "aten::mul@6#2": the paused node's kind and its loop iterations (1-based), as the core test writes them.
QString where(const DebugPause& p)
{
    QString s = p.event.kind;
    for (const LoopFrame& f : p.event.loopPath)
        s += QStringLiteral("@%1#%2").arg(f.line).arg(f.iteration + 1);
    return s;
}

} // namespace

/// Presses keys and waits until the window shows the next pause or the end.
class Driver : public QObject
{
    Q_OBJECT
public:
    explicit Driver(MainWindow& window)
        : m_window(window)
    {
        connect(&window, &MainWindow::debugPaused, this, [this] { Q_EMIT stopped(); });
        connect(&window, &MainWindow::debugFinished, this, [this] { Q_EMIT stopped(); });
    }

    /// Presses @p key and waits; true when the session paused, false when it finished (or timed out).
    bool press(Qt::Key key, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
    {
        QSignalSpy spy(this, &Driver::stopped);
        QTest::keyClick(&m_window, key, modifiers);
        return waitFor(spy);
    }
    /// Triggers @p action and waits, like press().
    bool trigger(MainWindow::DebugAction action)
    {
        QSignalSpy spy(this, &Driver::stopped);
        m_window.debugAction(action)->trigger();
        return waitFor(spy);
    }
    QString where() const { return ::where(m_window.debugger()->lastPause()); }

Q_SIGNALS:
    void stopped();

private:
    bool waitFor(QSignalSpy& spy)
    {
        if (spy.isEmpty() && !spy.wait(kPauseTimeoutMs))
            return false;
        return m_window.debugger()->isPaused();
    }

    MainWindow& m_window;
};

class TestDebugger : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void stepIntoTheLoop()
    {
        MainWindow window;
        DebugUiController* debug = debugUi(window);
        SourceView* sourceView = part<SourceView>(window, "sourceView");
        QVERIFY(openAndWait(window, example()));
        QAbstractItemModelTester framesTester(
            debug->framesModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester valuesTester(
            debug->valuesModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        Driver driver(window);
        const FunctionInfo* fn = window.model().function(window.currentFunction());
        QVERIFY(fn);
        QVERIFY(window.debugAction(MainWindow::DebugAction::StartContinue)->isEnabled());
        QVERIFY(!window.debugAction(MainWindow::DebugAction::Stop)->isEnabled());

        QStringList seen;
        QHash<QString, double> resultSum; // by pause
        QHash<QString, bool> resultChanged;
        QHash<QString, QStringList> frames;
        while (driver.press(Qt::Key_F11)) {
            const DebugPause& p = window.debugger()->lastPause();
            const QString at = driver.where();
            seen << at;
            // The paused node carries the debugger's marker, and only it; its line has the arrow.
            const int shown = window.scriptScene()->displayedNode(p.event.scriptNode);
            QCOMPARE(window.scriptScene()->executionNode(), shown);
            QVERIFY(window.scriptScene()->nodeItem(shown)->hasExecutionMarker());
            int marked = 0;
            for (NodeItem* item : window.scriptScene()->nodeItems())
                marked += item->hasExecutionMarker();
            QCOMPARE(marked, 1);
            QCOMPARE(sourceView->executionLine(), p.event.location.line);
            QVERIFY(window.statusText().startsWith(QLatin1String("Paused before ") + p.event.kind));
            QStringList rows;
            for (int row = 0; row < debug->framesModel()->rowCount(); ++row)
                rows << debug->framesModel()->index(row, FramesModel::FrameColumn).data().toString();
            frames.insert(at, rows);
            const int result = debug->valuesModel()->rowOfName(QStringLiteral("result"));
            if (result >= 0) {
                const QModelIndex index = debug->valuesModel()->index(result, 0);
                resultSum.insert(at, index.data(ValuesModel::SumRole).toDouble());
                resultChanged.insert(at, index.data(ValuesModel::ChangedRole).toBool());
            }
            QVERIFY(window.debugAction(MainWindow::DebugAction::Stop)->isEnabled());
            QCOMPARE(window.debugAction(MainWindow::DebugAction::StartContinue)->text(), QStringLiteral("&Continue"));
        }
        QCOMPARE(seen,
            (QStringList { "aten::select", "aten::size", "prim::Loop", "aten::select@6#1", "aten::mul@6#1",
                "aten::select@6#2", "aten::mul@6#2", "aten::select@6#3", "aten::mul@6#3" }));

        QCOMPARE(frames.value("aten::size"), QStringList { "loop_in_traced_fn" });
        QCOMPARE(frames.value("aten::mul@6#2"),
            (QStringList { "loop_in_traced_fn", "loop at line 6 \u2014 iteration 2 of 3" }));
        // result = x[0] before iteration 1, x[0] * x[0] before iteration 2: its sum changes, and it is marked so.
        QVERIFY(resultSum.contains("aten::select@6#1") && resultSum.contains("aten::select@6#2"));
        QVERIFY(resultSum.value("aten::select@6#1") != resultSum.value("aten::select@6#2"));
        QVERIFY(resultSum.value("aten::select@6#2") != resultSum.value("aten::select@6#3"));
        QVERIFY(resultChanged.value("aten::select@6#2"));
        QVERIFY(!resultChanged.value("aten::mul@6#2")); // x[i] ran, result did not change

        // The end: the return value in Values, no marker left, the check's result untouched.
        QCOMPARE(window.debugger()->state(), DebugController::State::Finished);
        QCOMPARE(debug->valuesModel()->rowCount(), 1);
        QCOMPARE(debug->valuesModel()->index(0, 0).data().toString(), QStringLiteral("return"));
        QCOMPARE(debug->framesModel()->rowCount(), 0);
        QCOMPARE(window.scriptScene()->executionNode(), -1);
        QCOMPARE(sourceView->executionLine(), 0);
        QVERIFY(window.statusText().contains(QLatin1String("returned float32[4,5]")));
        QVERIFY(checkController(window)->hasReport());
        QCOMPARE(
            window.debugAction(MainWindow::DebugAction::StartContinue)->text(), QStringLiteral("&Start Debugging"));
    }

    void breakpointInTheGutter()
    {
        MainWindow window;
        DebugUiController* debug = debugUi(window);
        QVERIFY(openAndWait(window, example()));
        Driver driver(window);
        SourceView* source = part<SourceView>(window, "sourceView");
        const QRect line7 = source->lineRect(7);
        QVERIFY(!line7.isEmpty());
        QTest::mouseClick(source->lineNumberArea(), Qt::LeftButton, Qt::NoModifier, QPoint(8, line7.center().y()));
        QCOMPARE(debug->breakpoints(), (QMap<int, int> { { 7, -1 } }));
        QCOMPARE(source->breakpoints(), debug->breakpoints());
        // The script nodes of line 7 get a dot.
        QCOMPARE(window.scriptScene()->breakpointNodes().size(), 2);

        // F5 runs to the breakpoint, once per iteration.
        QStringList hits;
        while (driver.press(Qt::Key_F5)) {
            QVERIFY(window.debugger()->lastPause().atBreakpoint);
            hits << driver.where();
            QVERIFY(window.statusText().contains(QLatin1String("breakpoint")));
        }
        QCOMPARE(hits, (QStringList { "aten::select@6#1", "aten::select@6#2", "aten::select@6#3" }));
        QVERIFY(window.debugger()->lastPause().result.ok);

        // Another click removes it.
        QTest::mouseClick(source->lineNumberArea(), Qt::LeftButton, Qt::NoModifier, QPoint(8, line7.center().y()));
        QVERIFY(debug->breakpoints().isEmpty());
        QVERIFY(window.scriptScene()->breakpointNodes().isEmpty());
    }

    void breakpointInOneIteration()
    {
        MainWindow window;
        QVERIFY(openAndWait(window, example()));
        Driver driver(window);
        window.setBreakpoint(7, 2);
        QVERIFY(driver.press(Qt::Key_F5));
        QCOMPARE(driver.where(), QStringLiteral("aten::select@6#2"));
        QVERIFY(!driver.press(Qt::Key_F5));
        QCOMPARE(window.debugger()->state(), DebugController::State::Finished);
    }

    void breakpointSetWhilePaused()
    {
        MainWindow window;
        DebugUiController* debug = debugUi(window);
        QVERIFY(openAndWait(window, example()));
        Driver driver(window);
        QVERIFY(driver.press(Qt::Key_F10)); // starts, paused before the first node
        QCOMPARE(driver.where(), QStringLiteral("aten::select"));
        debug->toggleBreakpoint(7);
        QVERIFY(driver.press(Qt::Key_F5));
        QCOMPARE(driver.where(), QStringLiteral("aten::select@6#1"));
        debug->toggleBreakpoint(7);
        QVERIFY(!driver.press(Qt::Key_F5));
    }

    void stepOverOutNextIterationRunToCursor()
    {
        MainWindow window;
        DebugUiController* debug = debugUi(window);
        QVERIFY(openAndWait(window, example()));
        Driver driver(window);
        // Run to Cursor with the multiplication selected: its line, in the first iteration.
        const FunctionInfo* fn = window.model().function(window.currentFunction());
        int mul = -1;
        for (const IrNode& n : fn->graph.nodes)
            mul = n.kind == QLatin1String("aten::mul") ? n.id : mul;
        window.scriptScene()->selectNode(mul);
        QCOMPARE(debug->runToCursorLine(), 7);
        QVERIFY(driver.press(Qt::Key_F10, Qt::ControlModifier));
        QCOMPARE(driver.where(), QStringLiteral("aten::select@6#1"));
        QVERIFY(driver.press(Qt::Key_F10)); // step over the select
        QCOMPARE(driver.where(), QStringLiteral("aten::mul@6#1"));
        QVERIFY(driver.press(Qt::Key_F11, Qt::ControlModifier)); // next iteration
        QCOMPARE(driver.where(), QStringLiteral("aten::select@6#2"));
        QCOMPARE(debug->framesModel()->index(1, 0).data(FramesModel::IterationRole).toInt(), 2);
        // Out of the loop: nothing follows it in this function, so the run ends.
        QVERIFY(!driver.press(Qt::Key_F11, Qt::ShiftModifier));
        QVERIFY(window.debugger()->lastPause().result.ok);
    }

    void restartAndStop()
    {
        MainWindow window;
        QVERIFY(openAndWait(window, example()));
        Driver driver(window);
        QVERIFY(driver.press(Qt::Key_F11));
        QVERIFY(driver.press(Qt::Key_F11));
        QCOMPARE(driver.where(), QStringLiteral("aten::size"));
        QVERIFY(driver.press(Qt::Key_F5, Qt::ControlModifier | Qt::ShiftModifier));
        QCOMPARE(driver.where(), QStringLiteral("aten::select"));
        QCOMPARE(window.debugger()->pauseCount(), 1);
        QVERIFY(!driver.press(Qt::Key_F2, Qt::ControlModifier));
        QVERIFY(window.debugger()->wasStopped());
        QCOMPARE(window.scriptScene()->executionNode(), -1);
        QVERIFY(window.statusText().contains(QLatin1String("stopped")));
    }

    void stopEndsAnEndlessLoop()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // The file's check spins too (until its timeout): debugging cancels it and runs it again afterwards.
        QSignalSpy loaded(&window, &MainWindow::fileLoaded);
        window.openFile(QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/bad/infinite_loop.py"), QStringLiteral("spin"));
        QVERIFY(loaded.wait(kJobTimeoutMs));
        QSignalSpy paused(&window, &MainWindow::debugPaused);
        QSignalSpy finished(&window, &MainWindow::debugFinished);
        QTest::keyClick(&window, Qt::Key_F5);
        QCOMPARE(window.debugger()->state(), DebugController::State::Running);
        QVERIFY(!finished.wait(300)); // still spinning
        QCOMPARE(paused.count(), 0);
        QVERIFY(window.debugAction(MainWindow::DebugAction::Stop)->isEnabled());
        QVERIFY(!window.debugAction(MainWindow::DebugAction::StepInto)->isEnabled());
        QElapsedTimer clock;
        clock.start();
        QTest::keyClick(&window, Qt::Key_F2, Qt::ControlModifier);
        QVERIFY(finished.count() == 1 || finished.wait(kPauseTimeoutMs));
        // How fast (the 200 ms target) is bench_gui's figure; here: it stops, long before the check's timeout.
        qInfo("stopped after %lld ms", clock.elapsed());
        QVERIFY(window.debugger()->wasStopped());
        QVERIFY(window.debugger()->lastPause().result.error.message.contains(QLatin1String("cancelled")));
    }

    void checkEndsTheSession()
    {
        MainWindow window;
        QVERIFY(openAndWait(window, example()));
        Driver driver(window);
        QVERIFY(driver.press(Qt::Key_F11));
        // A paused session holds the model: the check must not wait for it forever.
        QSignalSpy checked(&window, &MainWindow::checkFinished);
        QSignalSpy finished(&window, &MainWindow::debugFinished);
        QTest::keyClick(&window, Qt::Key_R, Qt::ControlModifier);
        QVERIFY(checked.wait(kJobTimeoutMs));
        QVERIFY(finished.count() == 1);
        QVERIFY(checkController(window)->hasReport());
        QCOMPARE(part<CheckView>(window, "checkView")->traceCount(), 3);
    }

    void archiveMethodWithCalls()
    {
        MainWindow window;
        QVERIFY(openAndWait(window, QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/archives/module_list_loop.pt")));
        // Calls kept as calls (archives open grouped by module, with calls inlined), to step into them.
        QSignalSpy reloaded(&window, &MainWindow::fileReloaded);
        part<QAction>(window, "groupByModuleAction")->setChecked(false);
        QVERIFY(reloaded.wait(kJobTimeoutMs));
        QVERIFY(waitIdle(window));
        Driver driver(window);
        // No inputs in an archive: debugging needs a set first.
        QTest::keyClick(&window, Qt::Key_F11);
        QVERIFY(!window.isDebugging());
        QVERIFY(window.statusText().contains(QLatin1String("Add an input set")));
        part<InputSetsEditor>(window, "inputSetsEditor")->model()->setTexts({ QStringLiteral("f32[2,4]") });
        // Into the first layer's forward: the frames show the call, the marker stays on the call node.
        QStringList kinds;
        bool enteredCall = false;
        while (driver.press(Qt::Key_F11) && kinds.size() < 40) {
            const DebugPause& p = window.debugger()->lastPause();
            kinds << p.event.kind;
            QVERIFY(window.scriptScene()->executionNode() >= 0);
            if (p.event.depth > 0) {
                QVERIFY(debugUi(window)->framesModel()->rowCount() >= 2);
                enteredCall = true;
            }
        }
        QVERIFY(enteredCall);
        QVERIFY(kinds.contains(QStringLiteral("aten::linear")));
        QVERIFY(kinds.contains(QStringLiteral("aten::tanh")));
        QVERIFY(window.debugger()->lastPause().result.ok);
    }

    /// Debug Trace 1 Where It Fails: the seed example's trace 1 (3 iterations unrolled) run on set 3 (2 rows) stops
    /// before `x[2]`, the node the check saw fail, with the check's error and operands above the trace, the line and
    /// the script node that recorded it marked; F5 then ends with that error.
    void debugWhereTrace1Fails()
    {
        MainWindow window;
        DebugUiController* debug = debugUi(window);
        QVERIFY(openAndWait(window, example()));
        QVERIFY(checkController(window)->hasReport());
        const CheckReport& report = checkController(window)->report();
        QCOMPARE(report.outputs.size(), 2);
        QVERIFY(!report.outputs[0].failure.isValid()); // set 2 runs (with a wrong result)
        const TraceFailure failure = report.outputs[1].failure;
        QVERIFY(failure.isValid());
        QAction* action = window.debugAction(MainWindow::DebugAction::DebugTraceFailure);
        QVERIFY(action->isEnabled());
        QCOMPARE(action->text(), QStringLiteral("Debug Trace 1 Where It &Fails on Set 3"));
        Driver driver(window);
        QSignalSpy shown(&window, &MainWindow::liveTraceShown);
        QVERIFY(driver.trigger(MainWindow::DebugAction::DebugTraceFailure));

        const DebugPause& p = window.debugger()->lastPause();
        QVERIFY(window.debugger()->isReplay());
        QVERIFY(p.atFailure);
        QCOMPARE(p.event.scriptNode, failure.node);
        QCOMPARE(p.event.kind, failure.kind);
        QCOMPARE(p.failure, failure.error);
        QCOMPARE(window.debugger()->inputs().toString(), report.traces[2].inputs.toString());
        QVERIFY2(
            window.statusText().contains(QLatin1String("trace 1 fails here on set")), qPrintable(window.statusText()));
        // The trace in its tab, the failing node marked and in view.
        QCOMPARE(window.currentView(), MainWindow::View::LiveTrace);
        QVERIFY(shown.count() > 0 || shown.wait(kJobTimeoutMs));
        GraphScene* scene = window.liveTraceScene();
        QVERIFY(scene);
        QCOMPARE(canonicalizeDump(debug->liveTrace()->graph().toText(false)),
            canonicalizeDump(report.traces[0].graph.toText(false)));
        const int marked = scene->displayedNode(failure.node);
        QVERIFY(marked >= 0);
        QCOMPARE(scene->executionNode(), marked);
        QVERIFY(scene->nodeItem(marked)->hasExecutionMarker());
        // Above it: what fails, why, and where each operand came from (as the check found it).
        const QString header = debug->liveTrace()->headerText();
        QVERIFY2(header.contains(QLatin1String("fails here")), qPrintable(header));
        QVERIFY2(header.contains(failure.error.toHtmlEscaped()), qPrintable(header));
        QVERIFY2(header.contains(QLatin1String("Operands")), qPrintable(header));
        QVERIFY2(header.contains(failure.operands.first().left(20).toHtmlEscaped()), qPrintable(header));
        // Its line in the source, and the script node that recorded it in the Script tab.
        QCOMPARE(part<SourceView>(window, "sourceView")->executionLine(), failure.location.line);
        const int origin = report.traces[0].graph.node(failure.node).originNode;
        QVERIFY(origin >= 0);
        QCOMPARE(window.scriptScene()->executionNode(), window.scriptScene()->displayedNode(origin));
        // The frame's values are set 3's: the input has 2 rows.
        bool input = false;
        for (int row = 0; row < debug->valuesModel()->rowCount(); ++row)
            input |= debug->valuesModel()->index(row, 0).data(ValuesModel::ShapeRole).toList()
                == QVariantList { qint64(2), qint64(3), qint64(4) };
        QVERIFY(input);

        // F5: the node raises, the session ends with the check's error, the marker stays on the failing node.
        QVERIFY(!driver.press(Qt::Key_F5));
        QCOMPARE(window.debugger()->state(), DebugController::State::Finished);
        QVERIFY2(window.statusText().startsWith(QLatin1String("Trace 1 of loop_in_traced_fn failed on")),
            qPrintable(window.statusText()));
        QVERIFY2(window.statusText().contains(failure.error.left(30)), qPrintable(window.statusText()));
        QCOMPARE(scene->executionNode(), marked);
        QVERIFY(debug->liveTrace()->headerText().contains(QLatin1String("failed")));

        // Restart runs the same replay again, to the same node.
        QVERIFY(driver.trigger(MainWindow::DebugAction::DebugTraceFailure));
        QVERIFY(window.debugger()->lastPause().atFailure);
        QCOMPARE(window.debugger()->lastPause().event.scriptNode, failure.node);
        window.stopDebugging();
    }

    /// JitScope's own check of a function whose trace raises nothing on set 2 but computes other values than the
    /// script function (a fast path taken only while tracing): Compare shows both runs' values at the node, and the
    /// replay stops before that node, with the divergence's words as its reason.
    void debugWhereTheValuesPartWays()
    {
        MainWindow window;
        QVERIFY(openAndWait(window, QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/values/tracing_branch.py")));
        QVERIFY(checkController(window)->hasReport());
        const CheckReport& report = checkController(window)->report();
        QCOMPARE(report.outputs.size(), 1);
        QVERIFY(!report.outputs[0].failure.isValid());
        const ValueDivergence& values = report.outputs[0].values;
        QVERIFY(values.present && values.node >= 0);
        QCOMPARE(values.cause, QStringLiteral("branch"));
        QTreeView* sides = part<QTreeView>(window, "valueSides");
        QVERIFY(!sides->isHidden());
        QCOMPARE(sides->model()->headerData(2, Qt::Horizontal).toString(), QStringLiteral("the script function on set 2"));
        QCOMPARE(sides->model()->index(0, 0).data().toString(), QStringLiteral("aten::floor"));

        QAction* action = window.debugAction(MainWindow::DebugAction::DebugTraceFailure);
        QVERIFY(action->isEnabled());
        QCOMPARE(action->text(), QStringLiteral("Debug Trace 1 Where It &Fails on Set 2"));
        Driver driver(window);
        QVERIFY(driver.trigger(MainWindow::DebugAction::DebugTraceFailure));
        const DebugPause& p = window.debugger()->lastPause();
        QVERIFY(window.debugger()->isReplay());
        QVERIFY(p.atFailure);
        QCOMPARE(p.event.kind, QStringLiteral("aten::floor"));
        QCOMPARE(p.failure, values.message);
        QCOMPARE(window.debugger()->inputs().toString(), report.traces[1].inputs.toString());
        window.stopDebugging();
    }

    void liveTrace()
    {
        MainWindow window;
        DebugUiController* debug = debugUi(window);
        QVERIFY(openAndWait(window, example()));
        Driver driver(window);
        window.debugAction(MainWindow::DebugAction::TraceWhileDebugging)->setChecked(true);
        QSignalSpy shown(&window, &MainWindow::liveTraceShown);
        int previous = 0;
        int grew = 0;
        while (driver.press(Qt::Key_F11)) {
            QVERIFY(shown.wait(kJobTimeoutMs));
            shown.clear();
            GraphScene* scene = window.liveTraceScene();
            QVERIFY(scene);
            const IrGraph& trace = debug->liveTrace()->graph();
            // Only what the function records: not the statistics the debugger computes while the tracer runs.
            for (const IrNode& n : trace.nodes)
                QVERIFY2(n.kind != QLatin1String("aten::isfinite"), qPrintable(trace.toText(false)));
            int statuses = 0;
            for (auto it = scene->nodeStatuses().cbegin(); it != scene->nodeStatuses().cend(); ++it)
                statuses += it.value() == DiffStatus::Inserted;
            const int nodes = int(trace.nodes.size());
            if (nodes > previous && previous > 0) {
                ++grew;
                QVERIFY2(statuses > 0, qPrintable(driver.where()));
            }
            previous = qMax(previous, nodes);
        }
        QVERIFY(grew >= 4);
        QVERIFY(shown.count() == 1 || shown.wait(kJobTimeoutMs));
        const DebugPause& end = window.debugger()->lastPause();
        QVERIFY2(end.trace.ok, qPrintable(end.trace.error.toString()));
        // The window's model lives in its model worker: the oracle's copy is loaded here.
        const LoadResult local = loadModel(window.model().path);
        QVERIFY2(local.ok, qPrintable(local.error.toString()));
        const TraceResult plain = traceFunction(local.model, window.currentFunction(), window.debugger()->inputs());
        QVERIFY(plain.ok);
        QCOMPARE(
            canonicalizeDump(debug->liveTrace()->graph().toText(false)), canonicalizeDump(plain.graph.toText(false)));

        // Each live node leads to the script node that recorded it, and back.
        window.showView(MainWindow::View::LiveTrace);
        QCOMPARE(window.currentView(), MainWindow::View::LiveTrace);
        int mul = -1;
        for (const IrNode& n : debug->liveTrace()->graph().nodes)
            mul = mul < 0 && n.kind == QLatin1String("aten::mul") ? n.id : mul;
        QVERIFY(mul >= 0);
        window.liveTraceScene()->selectNode(mul);
        const int origin = window.scriptScene()->selectedNodeId();
        QVERIFY(origin >= 0);
        QCOMPARE(
            window.model().function(window.currentFunction())->graph.node(origin).kind, QStringLiteral("aten::mul"));
        QCOMPARE(part<SourceView>(window, "sourceView")->highlightedLine(), 7);
        window.scriptScene()->selectNode(-1);
        window.scriptScene()->selectNode(origin);
        QCOMPARE(window.liveTraceScene()->linkedNodes().size(), 3); // one per iteration
    }
};

QTEST_MAIN(TestDebugger)
#include "tst_debugger.moc"
