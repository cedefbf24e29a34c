// The window survives its model worker: a check whose worker aborts, segfaults, hangs or is killed for memory at a
// node (JITSCOPE_WORKER_FAULT, armed in a worker started for the test) shows how and where in the place of the
// report and in the status bar, keeps the user's input sets and breakpoints, and the next check runs on a new
// worker.

#include "../core/testutil.h"
#include "comparewidget.h"
#include "debugcontroller.h"
#include "graphscene.h"
#include "inputsetseditor.h"
#include "inputsetsmodel.h"
#include "windowtest.h"
#include "workerclient.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>

using namespace jitscope;
using namespace jitscope::test;

namespace {

QString twoSets()
{
    return QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/worker/two_sets.py");
}

QString denseResidual()
{
    return QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/archives/dense_residual.pt");
}

/// The boxes of the Script tab that are ops (not folded modules or terminals).
int opBoxes(const MainWindow& window)
{
    int ops = 0;
    for (const NodeItem* n : window.scriptScene()->nodeItems())
        ops += n->role() == LayoutNode::Role::Node;
    return ops;
}

} // namespace

class TestWorkerWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    /// The window opens an archive calling torchvision::nms and roi_align with no library given: its worker finds
    /// the library, and the status bar names it. A remembered library that does not load (Model > Operator
    /// Libraries) is named there too and the archive opens anyway; with nowhere to look, the page where the graph
    /// would be names the namespace no library defines.
    void customOperators_data()
    {
        QTest::addColumn<bool>("searchable");
        QTest::addColumn<bool>("brokenLibrary");
        QTest::addRow("found") << true << false;
        QTest::addRow("found, a remembered library missing") << true << true;
        QTest::addRow("nowhere to look") << false << false;
    }

    void customOperators()
    {
        QFETCH(bool, searchable);
        QFETCH(bool, brokenLibrary);
        JITSCOPE_CUSTOM_OPS_DIR(dir);
        QTemporaryDir empty;
        MainWindow window;
        WorkerClient* worker = workerClient(window);
        QVERIFY(worker);
        if (!searchable) {
            qputenv("JITSCOPE_OPS_PATH", QFile::encodeName(empty.path()));
            worker->restart();
            qunsetenv("JITSCOPE_OPS_PATH");
        }
        const QString missing = empty.filePath(QStringLiteral("gone/libops.so"));
        if (brokenLibrary)
            window.setOperatorLibraries({ missing });
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openFile(dir.filePath(QStringLiteral("ops_scripted.pt")));
        QVERIFY(waitIdle(window));
        if (!searchable) {
            QVERIFY(!window.hasModel());
            QVERIFY2(window.lastError().contains(QLatin1String("unknown operator torchvision::")),
                qPrintable(window.lastError()));
            QVERIFY2(window.lastError().contains(QLatin1String("no library of torchvision:: operators is loaded")),
                qPrintable(window.lastError()));
            QVERIFY2(window.statusText().contains(QLatin1String("unknown operator torchvision::")),
                qPrintable(window.statusText()));
            return;
        }
        QVERIFY2(window.hasModel(), qPrintable(window.lastError()));
        QCOMPARE(window.model().opLibraries.size(), 1);
        QVERIFY(window.model().opLibraries.first().path.contains(QLatin1String("/torchvision/_C")));
        QVERIFY(opBoxes(window) > 0);
        // The status bar says where the operators come from (and which remembered library did not load).
        QVERIFY2(window.statusText().contains(QLatin1String("torchvision:: operators from")),
            qPrintable(window.statusText()));
        if (brokenLibrary)
            QVERIFY2(window.statusText().contains(QStringLiteral("operator library %1 did not load").arg(missing)),
                qPrintable(window.statusText()));
    }

    /// Issue 22's real-model archives (tests/oracle/make_detection_archives.py: torchvision's detector traced at
    /// 320x320 through a wrapper and scripted, LR-ASPP scripted; weights=None) open with no option: the worker finds
    /// torchvision's operators, the graph is drawn. The traced detector checked at 320x320 and 256x384 runs its own
    /// graph on both sets (a traced archive: nothing to compare with) with the three outputs PyTorch gives.
    void realModelArchivesOpen_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("torchvisionOps");
        QTest::addRow("det_traced") << "det_traced" << true;
        QTest::addRow("det_scripted") << "det_scripted" << true;
        QTest::addRow("lraspp_scripted") << "lraspp_scripted" << false;
    }

    void realModelArchivesOpen()
    {
        QFETCH(QString, name);
        QFETCH(bool, torchvisionOps);
        const QString python = QStringLiteral(JITSCOPE_TEST_PYTHON);
        if (QProcess::execute(python, { QStringLiteral("-c"), QStringLiteral("import torchvision") }) != 0)
            QSKIP("no torchvision for the engine's Python");
        static QTemporaryDir dir;
        const QString archive = dir.filePath(name + QStringLiteral(".pt"));
        if (!QFileInfo::exists(archive)) {
            QProcess make;
            make.start(python,
                { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/make_detection_archives.py"), dir.path(),
                    QStringLiteral("det_traced"), QStringLiteral("det_scripted"), QStringLiteral("lraspp_scripted") });
            QVERIFY(make.waitForFinished(600000));
            QVERIFY2(make.exitCode() == 0, make.readAllStandardError().constData());
        }
        MainWindow window;
        InputSetsEditor* inputSets = part<InputSetsEditor>(window, "inputSetsEditor");
        CheckController* check = checkController(window);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openFile(archive);
        QVERIFY(waitIdle(window));
        QVERIFY2(window.hasModel(), qPrintable(window.lastError()));
        QVERIFY2(window.lastError().isEmpty(), qPrintable(window.lastError()));
        QVERIFY(!window.scriptScene()->nodeItems().isEmpty());
        if (torchvisionOps)
            QVERIFY2(window.statusText().contains(QLatin1String("torchvision:: operators from")),
                qPrintable(window.statusText()));
        if (name == QLatin1String("det_scripted")) {
            // The debugger steps into the detector's transform (GeneralizedRCNNTransform.forward) on an image.
            inputSets->model()->setTexts({ QStringLiteral("[f32[3,320,320]]") });
            QSignalSpy paused(&window, &MainWindow::debugPaused);
            bool inTransform = false;
            for (int step = 0; step < 80 && !inTransform; ++step) {
                paused.clear();
                window.debugCommand(DebugCommand::StepInto);
                QVERIFY2(paused.wait(kJobTimeoutMs), qPrintable(window.statusText()));
                for (const ExecFrame& f : window.debugger()->lastPause().event.frames)
                    inTransform |= f.kind == ExecFrame::Kind::Function
                        && f.name.startsWith(QLatin1String("GeneralizedRCNNTransform."));
            }
            QVERIFY2(inTransform, qPrintable(window.statusText()));
            QVERIFY(window.statusText().contains(QLatin1String("in GeneralizedRCNNTransform.")));
            window.stopDebugging();
        }
        if (name != QLatin1String("det_traced"))
            return;
        inputSets->model()->setTexts(
            { QStringLiteral("f32[3,320,320]"), QStringLiteral("f32[3,256,384]") });
        QSignalSpy checked(&window, &MainWindow::checkFinished);
        window.runCheck();
        QVERIFY(checked.wait(kJobTimeoutMs * 3));
        QVERIFY(check->hasReport());
        const CheckReport& report = check->report();
        QVERIFY2(report.ok, qPrintable(report.error.toString()));
        QVERIFY(report.tracedArchive);
        QCOMPARE(report.outputs.size(), 1);
        QVERIFY2(report.outputs[0].ran, qPrintable(report.outputs[0].error));
        QCOMPARE(report.outputs[0].outputs.size(), 3); // boxes, scores, labels
        // PyTorch's own archive resizes 256x384 as the eager model does: no size of set 1 baked in.
        QVERIFY2(report.outputs[0].bakedSizes.isEmpty(), qPrintable(report.outputs[0].bakedSizes.join('\n')));
    }

    /// File > New Window: the new window's model worker is the first window's spare (libtorch loaded already), so it
    /// checks a file at once; the first window starts another spare and both windows work.
    void newWindowTakesTheSpare()
    {
        MainWindow window;
        QVERIFY(workerClient(window));
        workerClient(window)->setSpareDelay(0);
        QVERIFY(openAndWait(window, twoSets()));
        QTRY_VERIFY_WITH_TIMEOUT(workerClient(window)->isSpareReady(), 30000);
        const qint64 first = workerClient(window)->workerPid();
        const qint64 spare = workerClient(window)->sparePid();
        QVERIFY(spare != 0 && spare != first);

        QElapsedTimer timer;
        timer.start();
        std::unique_ptr<MainWindow> second(window.newWindow());
        WorkerClient* secondWorker = workerClient(*second);
        CheckController* secondCheck = checkController(*second);
        QVERIFY(secondWorker);
        QTRY_COMPARE(secondWorker->workerPid(), spare);
        QVERIFY(openAndWait(*second, twoSets()));
        qInfo("the new window's file open and checked %lld ms after New Window", qint64(timer.elapsed()));
        QVERIFY(secondCheck->hasReport());
        QVERIFY2(secondCheck->report().ok, qPrintable(secondCheck->report().error.toString()));
        QCOMPARE(secondWorker->workerPid(), spare);
        QCOMPARE(secondWorker->restarts(), 0);

        // The first window keeps its worker and starts a new spare; both windows check.
        QCOMPARE(workerClient(window)->workerPid(), first);
        QTRY_VERIFY_WITH_TIMEOUT(workerClient(window)->sparePid() != 0, 30000);
        QVERIFY(workerClient(window)->sparePid() != spare);
        QSignalSpy checked(&window, &MainWindow::checkFinished);
        window.runCheck();
        QVERIFY(checked.wait(kJobTimeoutMs));
        QVERIFY2(checkController(window)->report().ok, qPrintable(checkController(window)->report().error.toString()));
    }

    void survivesTheWorker_data()
    {
        QTest::addColumn<QByteArray>("fault");
        QTest::addColumn<QString>("how");
        QTest::addRow("abort") << QByteArray("abort@aten::mul#2") << QStringLiteral("crashed (SIGABRT)");
        QTest::addRow("segv") << QByteArray("segv@aten::mul#2") << QStringLiteral("crashed (SIGSEGV)");
        QTest::addRow("hang") << QByteArray("hang@aten::mul#2") << QStringLiteral("stopped answering");
        QTest::addRow("oom kill") << QByteArray("oom@aten::mul#2") << QStringLiteral("was killed (SIGKILL");
    }

    void survivesTheWorker()
    {
        QFETCH(QByteArray, fault);
        QFETCH(QString, how);
        MainWindow window;
        CompareWidget* compare = part<CompareWidget>(window, "compareWidget");
        QVERIFY(workerClient(window));
        // A short stall timeout for the hang only: the others must end by themselves, and the OOM one fills 256 MB
        // and waits half a second before its kill, which on a loaded 2-core CI machine took more than 1 s.
        workerClient(window)->setStallTimeout(how.contains(QLatin1String("stopped answering")) ? 1000 : 20000);
        QVERIFY(openAndWait(window, twoSets()));
        QVERIFY(window.model().functions.size() == 1 && !window.model().handle);

        // The user's own set, added in the Inputs panel, and a breakpoint.
        InputSetsModel* sets = part<InputSetsEditor>(window, "inputSetsEditor")->model();
        QCOMPARE(sets->rowCount(), 3);
        sets->addSet(QStringLiteral("f32[6]"));
        const QStringList before = sets->texts();
        QCOMPARE(before.size(), 4);
        QCOMPARE(before.last(), QStringLiteral("f32[6]"));
        window.debugger()->setBreakpoints({ { 7, -1 } });

        qputenv("JITSCOPE_WORKER_FAULT", fault);
        workerClient(window)->restart();
        qunsetenv("JITSCOPE_WORKER_FAULT");
        QSignalSpy checked(&window, &MainWindow::checkFinished);
        window.runCheck();
        QVERIFY(checked.wait(kJobTimeoutMs));
        QVERIFY(window.isVisible());
        QVERIFY(checkController(window)->hasReport());
        // The place is the report's location (the line the source panel marks), named once by toString().
        const QString message = checkController(window)->report().error.toString();
        QVERIFY2(!checkController(window)->report().ok, qPrintable(message));
        QCOMPARE(checkController(window)->report().error.location.line, 7);
        QCOMPARE(message.count(QLatin1String("two_sets.py")), 1);
        for (const QString& part : { how, QStringLiteral("aten::mul"), QStringLiteral("two_sets.py:7:"),
                 QStringLiteral("checking `f`: tracing input set 2") })
            QVERIFY2(message.contains(part), qPrintable(part + QStringLiteral(" not in: ") + message));
        // Where the report would be, and in the status bar.
        QVERIFY2(compare->messageTitle().contains(QLatin1String("Could not trace f")),
            qPrintable(compare->messageTitle()));
        QTRY_VERIFY2(window.statusText().contains(QLatin1String("two_sets.py:7:")), qPrintable(window.statusText()));
        QVERIFY2(window.statusText().contains(QLatin1String("aten::mul (checking `f`: tracing input set 2)")),
            qPrintable(window.statusText()));
        QVERIFY(window.statusText().contains(QLatin1String("a new model worker was started")));

        QCOMPARE(sets->texts(), before);
        QCOMPARE(window.debugger()->breakpoints().size(), 1);
        QCOMPARE(window.debugger()->breakpoints().first().line, 7);
        QVERIFY(window.hasModel());

        // The next check runs on the new worker, which loads the model again.
        window.runCheck();
        QVERIFY(checked.wait(kJobTimeoutMs));
        QVERIFY2(checkController(window)->report().ok, qPrintable(checkController(window)->report().error.toString()));
        QCOMPARE(checkController(window)->report().traces.size(), 4);
        QCOMPARE(part<CheckView>(window, "checkView")->traceCount(), 4);
        QCOMPARE(sets->texts(), before);
    }

    /// A debug run is in the worker too: a crash there ends the session with how and where, and the next one runs.
    void debuggerSurvivesTheWorker()
    {
        MainWindow window;
        InputSetsEditor* inputSets = part<InputSetsEditor>(window, "inputSetsEditor");
        QVERIFY(openAndWait(window, twoSets()));
        const QStringList before = inputSets->model()->texts();
        qputenv("JITSCOPE_WORKER_FAULT", "segv@aten::mul");
        workerClient(window)->restart();
        qunsetenv("JITSCOPE_WORKER_FAULT");
        // F5 with no breakpoint: runs to the end, here to the crash.
        QSignalSpy finished(&window, &MainWindow::debugFinished);
        window.debugAction(MainWindow::DebugAction::StartContinue)->trigger();
        QVERIFY(finished.wait(kJobTimeoutMs));
        const DebugPause& end = window.debugger()->lastPause();
        QVERIFY(!end.result.ok);
        const QString message = end.result.error.message;
        for (const QString& part : { QStringLiteral("crashed (SIGSEGV)"), QStringLiteral("aten::mul"),
                 QStringLiteral("two_sets.py:7:"), QStringLiteral("debugging `f`") })
            QVERIFY2(message.contains(part), qPrintable(part + QStringLiteral(" not in: ") + message));
        QTRY_VERIFY2(window.statusText().contains(message), qPrintable(window.statusText()));
        QCOMPARE(inputSets->model()->texts(), before);

        window.debugAction(MainWindow::DebugAction::StartContinue)->trigger();
        QVERIFY(finished.wait(kJobTimeoutMs));
        QVERIFY2(window.debugger()->lastPause().result.ok,
            qPrintable(window.debugger()->lastPause().result.error.toString()));
    }

    /// Run Check's cancel still stops a check, here one stuck in an operator: the worker goes, the window stays.
    void cancelStopsAStuckCheck()
    {
        MainWindow window;
        WorkerClient* worker = workerClient(window);
        CheckController* check = checkController(window);
        worker->setStallTimeout(600 * 1000);
        QVERIFY(openAndWait(window, twoSets()));
        qputenv("JITSCOPE_WORKER_FAULT", "hang@aten::mul");
        worker->restart();
        qunsetenv("JITSCOPE_WORKER_FAULT");
        QSignalSpy checked(&window, &MainWindow::checkFinished);
        window.runCheck();
        // Once it is stuck at the multiplication (before, the cancel would stop it between nodes).
        QTRY_VERIFY_WITH_TIMEOUT(worker->activity().contains(QLatin1String("running aten::mul")), 20000);
        QVERIFY(check->isChecking());
        check->cancel();
        QVERIFY(checked.wait(kJobTimeoutMs));
        QVERIFY(waitIdle(window));
        QVERIFY(worker->activity().isEmpty());
        window.runCheck();
        QVERIFY(checked.wait(kJobTimeoutMs));
        QVERIFY2(check->report().ok, qPrintable(check->report().error.toString()));
    }

    /// Graphviz runs in the worker: a dot run that crashes costs that layout. The Script tab says what happened where
    /// the graph would be and offers the folded overview, which laid out; the model stays, and the next layout runs
    /// on a new worker.
    void survivesALayoutCrash_data()
    {
        QTest::addColumn<QByteArray>("fault");
        QTest::addColumn<QString>("how");
        QTest::addRow("segv") << QByteArray("segv@graphviz::dot") << QStringLiteral("crashed (SIGSEGV)");
        QTest::addRow("abort") << QByteArray("abort@graphviz::dot") << QStringLiteral("crashed (SIGABRT)");
    }

    void survivesALayoutCrash()
    {
        QFETCH(QByteArray, fault);
        QFETCH(QString, how);
        MainWindow window;
        DocumentController* document = documentController(window);
        document->setOverviewLimits(5, 20);
        QVERIFY(openAndWait(window, denseResidual()));
        const QStringList overview = document->foldedModules();
        QVERIFY(!overview.isEmpty());
        const int overviewOps = opBoxes(window);
        QVERIFY(overviewOps > 0);
        const qint64 firstWorker = workerClient(window)->workerPid();

        qputenv("JITSCOPE_WORKER_FAULT", fault);
        workerClient(window)->restart();
        qunsetenv("JITSCOPE_WORKER_FAULT");
        document->unfoldAllModules();
        QVERIFY(waitIdle(window));
        QVERIFY(window.isVisible());
        QVERIFY(window.hasModel());
        GraphPage* page = part<GraphPage>(window, "scriptPage");
        QVERIFY2(page->scene()->messageTitle().contains(QLatin1String("Could not lay out forward")),
            qPrintable(page->scene()->messageTitle()));
        const QString text = page->scene()->messageText();
        for (const QString& part :
            { how, QStringLiteral("graphviz::dot"), QStringLiteral("laying out `forward`"), QStringLiteral("kept") })
            QVERIFY2(text.contains(part), qPrintable(part + QStringLiteral(" not in: ") + text));
        // The status bar too (the worker's stop or the layout's failure, whichever came last).
        QTRY_VERIFY2(window.statusText().contains(how + QStringLiteral(" while running graphviz::dot")),
            qPrintable(window.statusText()));
        QTRY_VERIFY(workerClient(window)->workerPid() != 0);
        QVERIFY(workerClient(window)->workerPid() != firstWorker);

        // The overview that laid out, one click away (from the window's cache: no worker involved).
        QCOMPARE(page->messageAction(), QStringLiteral("Show the Folded Overview"));
        page->triggerAction();
        QVERIFY(waitIdle(window));
        QVERIFY(page->scene()->messageTitle().isEmpty());
        QCOMPARE(document->foldedModules(), overview);
        QCOMPARE(opBoxes(window), overviewOps);
        QVERIFY(page->messageAction().isEmpty());

        // The next layout runs on the new worker.
        document->unfoldAllModules();
        QVERIFY(waitIdle(window));
        QVERIFY2(page->scene()->messageTitle().isEmpty(), qPrintable(page->scene()->messageText()));
        QVERIFY(document->foldedModules().isEmpty());
        QVERIFY(opBoxes(window) > overviewOps);
    }

    /// A trace's layout that crashes costs that trace's picture: its tab says why, the report and the other traces
    /// stay, and the next run lays it out again without tracing again.
    void survivesATraceLayoutCrash()
    {
        MainWindow window;
        CheckController* check = checkController(window);
        workerClient(window)->setStallTimeout(1000);
        QVERIFY(openAndWait(window, twoSets()));
        QVERIFY(check->hasReport() && check->report().ok);
        const int traces = check->report().traces.size();
        QVERIFY(traces >= 2);
        // The restarted worker's first dot run is trace 1's layout.
        qputenv("JITSCOPE_WORKER_FAULT", "segv@graphviz::dot");
        workerClient(window)->restart();
        qunsetenv("JITSCOPE_WORKER_FAULT");
        QSignalSpy checked(&window, &MainWindow::checkFinished);
        window.runCheck();
        QVERIFY(checked.wait(kJobTimeoutMs));
        QVERIFY(waitIdle(window));
        QVERIFY2(check->report().ok, qPrintable(check->report().error.toString()));
        QCOMPARE(part<CheckView>(window, "checkView")->traceCount(), traces);
        QVERIFY2(tracePage(window, 0)->scene()->messageTitle().contains(QLatin1String("could not lay out trace 1")),
            qPrintable(tracePage(window, 0)->scene()->messageTitle()));
        QVERIFY2(tracePage(window, 0)->scene()->messageText().contains(QLatin1String("crashed (SIGSEGV) while running "
                                                                            "graphviz::dot (laying out trace 1")),
            qPrintable(tracePage(window, 0)->scene()->messageText()));
        for (int k = 1; k < traces; ++k)
            QVERIFY2(tracePage(window, k)->scene()->messageTitle().isEmpty(),
                qPrintable(tracePage(window, k)->scene()->messageText()));

        window.runCheck(false);
        QVERIFY(checked.wait(kJobTimeoutMs));
        QVERIFY(waitIdle(window));
        QVERIFY(tracePage(window, 0)->scene()->messageTitle().isEmpty());
        QVERIFY(!tracePage(window, 0)->scene()->nodeItems().isEmpty());
    }

    /// A dot run that never ends: the Script tab's Cancel ends its worker within the grace, the window says so and
    /// offers the overview, and the next layout works.
    void cancelStopsALayoutThatNeverEnds()
    {
        MainWindow window;
        WorkerClient* worker = workerClient(window);
        DocumentController* document = documentController(window);
        worker->setStallTimeout(600 * 1000);
        document->setOverviewLimits(5, 20);
        QVERIFY(openAndWait(window, denseResidual()));
        const QStringList overview = document->foldedModules();
        qputenv("JITSCOPE_WORKER_FAULT", "hang@graphviz::dot");
        worker->restart();
        qunsetenv("JITSCOPE_WORKER_FAULT");
        document->unfoldAllModules();
        QTRY_VERIFY_WITH_TIMEOUT(worker->activity().contains(QLatin1String("graphviz::dot")), 20000);
        QVERIFY(!window.isIdle());
        GraphPage* page = part<GraphPage>(window, "scriptPage");
        QVERIFY2(page->scene()->messageTitle().contains(QLatin1String("Laying out forward")),
            qPrintable(page->scene()->messageTitle()));
        QCOMPARE(page->messageAction(), QStringLiteral("Cancel"));
        page->triggerAction();
        QVERIFY(waitIdle(window));
        QVERIFY2(page->scene()->messageTitle().contains(QLatin1String("was canceled")),
            qPrintable(page->scene()->messageTitle()));
        QVERIFY(window.hasModel());
        QCOMPARE(page->messageAction(), QStringLiteral("Show the Folded Overview"));
        page->triggerAction();
        QVERIFY(waitIdle(window));
        QCOMPARE(document->foldedModules(), overview);
        QVERIFY(page->scene()->messageTitle().isEmpty());

        document->unfoldAllModules();
        QVERIFY(waitIdle(window));
        QVERIFY2(page->scene()->messageTitle().isEmpty(), qPrintable(page->scene()->messageText()));
        QVERIFY(document->foldedModules().isEmpty());
    }
};

QTEST_MAIN(TestWorkerWindow)
#include "tst_workerwindow.moc"
