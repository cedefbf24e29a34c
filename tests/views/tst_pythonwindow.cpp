// The window with a .py file run under Python: consent asked once per file or folder and remembered, the recorded
// calls, classes and functions in the Model tree, a recorded trace call's divergence shown with its cause at its
// line, PyTorch's scripting error at its line, the file's output, and bad files (one that raises, one that never
// ends) leaving the window up.

#include "bridge/runpython.h"
#include "checkview.h"
#include "comparewidget.h"
#include "debugcontroller.h"
#include "divergencemodel.h"
#include "graphitems.h"
#include "graphpage.h"
#include "graphscene.h"
#include "interpreterdialog.h"
#include "modeltreemodel.h"
#include "pythonbar.h"
#include "pythoncontroller.h"
#include "pythonview.h"
#include "selectionlinker.h"
#include "sourceview.h"
#include "stackpeek.h"
#include "windowtest.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeView>
#include <QTreeWidget>

using namespace jitscope;
using namespace jitscope::test;

namespace {

QString pyFile(const char* name)
{
    return QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/python/") + QLatin1String(name);
}

/// Waits for the Python run and everything it starts (the recorded call's traces laid out).
bool waitPython(MainWindow& window)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < kJobTimeoutMs) {
        if (!window.python()->isRunning() && window.isIdle())
            return true;
        QTest::qWait(20);
    }
    return false;
}

/// The rows under @p parent, as "name | details".
QStringList rowsUnder(const ModelTreeModel* tree, const QModelIndex& parent)
{
    QStringList rows;
    for (int r = 0; r < tree->rowCount(parent); ++r)
        rows << tree->index(r, 0, parent).data().toString() + QStringLiteral(" | ")
                + tree->index(r, 1, parent).data().toString();
    return rows;
}

QModelIndex childNamed(const ModelTreeModel* tree, const QModelIndex& parent, const QString& name)
{
    for (int r = 0; r < tree->rowCount(parent); ++r)
        if (tree->index(r, 0, parent).data().toString() == name)
            return tree->index(r, 0, parent);
    return {};
}

} // namespace

/// Debian's torch 1.13 (and torchvision 0.14 when @p torchvision) for /usr/bin/python3: the older PyTorch the
/// bridge runs files under too.
bool haveDebianTorch(bool torchvision)
{
    QProcess probe;
    probe.start(QStringLiteral("/usr/bin/python3"),
        { QStringLiteral("-c"),
            QStringLiteral("import torch; assert torch.__version__.startswith('1.13')")
                + (torchvision ? QStringLiteral("; import torchvision") : QString()) });
    return probe.waitForFinished(60000) && probe.exitStatus() == QProcess::NormalExit && probe.exitCode() == 0;
}

class TestPythonWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the recorded archives are copied to the cache folder
        if (!QFileInfo::exists(pythonInterpreter({})))
            QSKIP("no Python interpreter");
    }

    /// Model > Python Interpreter: the interpreters found with their torch (the engine's among them); the choice is
    /// remembered for the file's folder, runs its files, and a file of another folder keeps the default.
    void interpreterChosenPerFolder()
    {
        QTemporaryDir dir;
        QTemporaryDir other;
        const QString first = dir.filePath(QStringLiteral("first.py"));
        const QString elsewhere = other.filePath(QStringLiteral("other.py"));
        QVERIFY(QFile::copy(pyFile("branch.py"), first));
        QVERIFY(QFile::copy(pyFile("branch.py"), elsewhere));
        const QString engine = QStringLiteral(JITSCOPE_TEST_PYTHON);

        InterpreterDialog dialog(QString(), dir.path());
        QSignalSpy searched(&dialog, &InterpreterDialog::searched);
        QVERIFY(searched.wait(120000));
        QStringList rows;
        bool engineListed = false;
        for (int i = 0; i < dialog.list()->topLevelItemCount(); ++i) {
            const QTreeWidgetItem* item = dialog.list()->topLevelItem(i);
            rows << item->text(0) + QStringLiteral(" | ") + item->text(1);
            engineListed |= QFileInfo(item->text(0)).canonicalFilePath() == QFileInfo(engine).canonicalFilePath()
                && item->text(1).startsWith(QLatin1String(JITSCOPE_TEST_TORCH_VERSION));
        }
        QVERIFY2(engineListed, qPrintable(rows.join(QLatin1Char('\n'))));
        QCOMPARE(dialog.interpreter(), QString()); // the default row is current
        dialog.addInterpreter(engine);
        QCOMPARE(dialog.interpreter(), engine);

        MainWindow window;
        QVERIFY(openAndWait(window, first));
        window.setFolderPythonInterpreter(engine);
        QCOMPARE(window.python()->options().python, engine);
        QVERIFY(openAndWait(window, elsewhere));
        QCOMPARE(window.python()->options().python, QString());
        QVERIFY(openAndWait(window, first));
        QCOMPARE(window.python()->options().python, engine);
    }

    void asksBeforeRunningAndRemembers()
    {
        // Two copies in a folder of their own, so that "Always for This Folder" is tested on a folder of its own.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString first = dir.filePath(QStringLiteral("first.py"));
        const QString second = dir.filePath(QStringLiteral("second.py"));
        QVERIFY(QFile::copy(pyFile("branch.py"), first));
        QVERIFY(QFile::copy(pyFile("branch.py"), second));

        MainWindow window;
        PythonBar* pythonBar = part<PythonBar>(window, "pythonBar");
        ModelTreeModel* treeModel = part<ModelTreeModel>(window, "modelTreeModel");
        QVERIFY(openAndWait(window, first));
        // Nothing ran: the bar asks, and the window shows what the built-in compiler makes of the file.
        QCOMPARE(pythonBar->state(), PythonBar::State::Asking);
        QVERIFY(pythonBar->isVisibleTo(&window));
        QVERIFY(!window.python()->isRunning());
        QVERIFY(!window.python()->hasResult());
        QVERIFY(!treeModel->hasPythonRun());
        QVERIFY2(
            pythonBar->text().contains(QLatin1String("first.py")), qPrintable(pythonBar->text()));

        // Run with Python: this file only.
        pythonBar->runButton()->click();
        QVERIFY(window.python()->isRunning());
        QCOMPARE(pythonBar->state(), PythonBar::State::Running);
        QVERIFY(waitPython(window));
        QCOMPARE(pythonBar->state(), PythonBar::State::Done);
        QVERIFY(treeModel->hasPythonRun());

        // The other file of the folder still asks; "Always for This Folder" runs it and every later one.
        window.openFile(second);
        QVERIFY(waitIdle(window));
        QCOMPARE(pythonBar->state(), PythonBar::State::Asking);
        pythonBar->folderButton()->click();
        QVERIFY(waitPython(window));
        QCOMPARE(pythonBar->state(), PythonBar::State::Done);

        // Both remembered: opening either runs at once.
        for (const QString& path : { first, second }) {
            window.openFile(path);
            QVERIFY(window.python()->isRunning());
            QVERIFY(waitPython(window));
            QCOMPARE(pythonBar->state(), PythonBar::State::Done);
        }
        // A file elsewhere still asks.
        window.openFile(pyFile("raises.py"));
        QVERIFY(waitIdle(window));
        QCOMPARE(pythonBar->state(), PythonBar::State::Asking);
        QVERIFY(!window.python()->isRunning());
        // An archive has no bar.
        window.openFile(QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/archives/conv_block.pt"));
        QVERIFY(waitIdle(window));
        QCOMPARE(pythonBar->state(), PythonBar::State::Hidden);
    }

    void recordedCallsInTheTree()
    {
        MainWindow window;
        QPlainTextEdit* pythonOutput = part<QPlainTextEdit>(window, "pythonOutput");
        window.setPythonAllowed(true);
        window.openFile(pyFile("export_module.py"));
        QVERIFY(waitPython(window));
        const ModelTreeModel* tree = part<ModelTreeModel>(window, "modelTreeModel");
        QAbstractItemModelTester tester(
            const_cast<ModelTreeModel*>(tree), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QModelIndex python = tree->groupIndex(ModelTreeModel::ItemKind::PythonCall);
        QVERIFY(python.isValid());
        QCOMPARE(python.row(), 0);
        QCOMPARE(python.data().toString(), QStringLiteral("Python"));

        const QModelIndex calls = childNamed(tree, python, QStringLiteral("Recorded calls"));
        QCOMPARE(rowsUnder(tree, calls),
            QStringList({ QStringLiteral("torch.jit.script(MyModule.forward) | line 41 \u00b7 scripted"),
                QStringLiteral("torch.jit.trace(MyModule.forward) | line 43 \u00b7 2 input sets \u00b7 diverged") }));
        QCOMPARE(tree->index(1, 0, calls).data(ModelTreeModel::PythonCallRole).toInt(), 1);
        // The traced module's submodules under its call (after PyTorch's error), with their classes.
        const QStringList underCall = rowsUnder(tree, tree->index(1, 0, calls));
        QCOMPARE(underCall.size(), 2);
        QCOMPARE(underCall.last(), QStringLiteral("lin | Linear"));
        QCOMPARE(tree->index(1, 0, calls).data(ModelTreeModel::SourceLineRole).toInt(), 43);

        const QModelIndex module
            = childNamed(tree, childNamed(tree, python, QStringLiteral("Classes")), QStringLiteral("MyModule"));
        QVERIFY(module.isValid());
        QCOMPARE(module.siblingAtColumn(1).data().toString(), QStringLiteral("instance model \u00b7 scripts"));
        const QStringList members = rowsUnder(tree, module);
        for (const char* expected :
            { "forward | compiled (forward)", "another_forward | compiled (export) \u00b7 @torch.jit.export",
                "helper | compiled (called from compiled code)", "show | not compiled \u00b7 @torch.jit.ignore",
                "steps | int = 3", "scale | Final = 2" })
            QVERIFY2(members.contains(QString::fromUtf8(expected)), qPrintable(members.join(QLatin1Char('\n'))));
        QVERIFY2(std::any_of(members.cbegin(), members.cend(),
                     [](const QString& m) {
                         return m.startsWith(QLatin1String("unused_path |"))
                             && m.contains(QLatin1String("@torch.jit.unused"));
                     }),
            qPrintable(members.join(QLatin1Char('\n'))));

        // What the file printed.
        QVERIFY2(pythonOutput->toPlainText().contains(QLatin1String("tracing MyModule")),
            qPrintable(pythonOutput->toPlainText()));
    }

    /// Model > Export with torch.export (on by default): the recorded call's Export tab beside its traces, showing
    /// the program's graph (the seed example's, x.size(0) specialized), why torch.export failed in its tooltip, and
    /// Compare of trace 1 against it with the loop said to be unrolled for the example only. Turned off, the next
    /// run exports nothing and the status says so.
    void exportTabAndCompare()
    {
        MainWindow window;
        CheckView* checkView = part<CheckView>(window, "checkView");
        CompareWidget* compare = part<CompareWidget>(window, "compareWidget");
        auto* tabs = part<QTabWidget>(window, "graphTabs");
        QAction* exportAction = part<QAction>(window, "exportCallsAction");
        QVERIFY(exportAction->isChecked());
        window.setPythonAllowed(true);
        window.openFile(QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py"));
        QVERIFY(waitPython(window));
        QVERIFY(checkController(window)->hasReport());
        const ExportReport& exported = checkController(window)->report().exported;
        QCOMPARE(exported.status, QStringLiteral("failed"));
        GraphPage* page = checkView->exportPage();
        QVERIFY(page);
        const int index = tabs->indexOf(page);
        QCOMPARE(index, 1 + checkView->traceCount()); // after the Script tab and the traces
        QCOMPARE(tabs->tabText(index), QStringLiteral("Export"));
        QVERIFY2(tabs->tabToolTip(index).contains(QLatin1String("x.size(0) cannot be dynamic")),
            qPrintable(tabs->tabToolTip(index)));
        QVERIFY(page->scene()->nodeItems().size() >= 6); // 4 selects, 3 muls, less what the layout folds
        // Selecting an export node says what it is; its line is stack_trace's, which for a traced function names
        // only the bridge's wrapper (torch.export keeps no frame of the function itself), so no line is marked.
        int mul = -1;
        for (const IrNode& n : exported.graph.nodes)
            if (n.kind == QLatin1String("aten::mul"))
                mul = n.id;
        QVERIFY(mul >= 0);
        QSignalSpy status(part<SelectionLinker>(window, "selectionLinker"), &SelectionLinker::statusMessage);
        page->scene()->selectNode(page->scene()->displayedNode(mul));
        QVERIFY(!status.isEmpty());
        QVERIFY2(status.last().first().toString().startsWith(QLatin1String("Export node aten::mul")),
            qPrintable(status.last().first().toString()));

        QVERIFY(compare->exportGraph() >= 0);
        compare->setPair(0, compare->exportGraph());
        DivergenceModel* model = compare->divergenceModel();
        QStringList causes;
        for (int row = 0; row < model->rowCount(); ++row)
            causes << model->index(row, DivergenceModel::CauseColumn).data().toString();
        QVERIFY2(causes.join(QLatin1Char('\n'))
                     .contains(QLatin1String("runs 3 times in trace 1 and in the export, "
                                             "unrolled for the example only")),
            qPrintable(causes.join(QLatin1Char('\n'))));

        exportAction->setChecked(false);
        QCOMPARE(window.python()->options().exportCalls, false);
        window.python()->run(QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py"));
        QVERIFY(waitPython(window));
        QVERIFY(checkController(window)->report().ok);
        QVERIFY(!checkController(window)->report().exported.requested);
        QVERIFY(!checkView->exportPage());
        QCOMPARE(compare->exportGraph(), -1);
        exportAction->setChecked(true);
    }

    void divergenceLinkedToItsLine()
    {
        MainWindow window;
        PythonView* pythonView = part<PythonView>(window, "pythonView");
        CheckView* checkView = part<CheckView>(window, "checkView");
        CompareWidget* compare = part<CompareWidget>(window, "compareWidget");
        window.setPythonAllowed(true);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openFile(pyFile("export_module.py"));
        QVERIFY(waitPython(window));
        // The trace call that diverged is shown: its traces, the Compare tab, the cause of each change.
        QCOMPARE(pythonView->shownCall(), 1);
        QVERIFY(checkController(window)->hasReport());
        const CheckReport& report = checkController(window)->report();
        QVERIFY2(report.ok, qPrintable(report.error.toString()));
        QCOMPARE(report.function, QStringLiteral("MyModule.forward"));
        QCOMPARE(checkView->traceCount(), 2);
        QVERIFY(!report.consistent);
        QVERIFY(checkView->verdictText().contains(QLatin1String("diverged")));
        QCOMPARE(window.currentView(), MainWindow::View::Compare);
        DivergenceModel* model = compare->divergenceModel();
        QVERIFY(model->rowCount() > 0);
        bool loopCause = false;
        for (int row = 0; row < model->rowCount(); ++row)
            loopCause |= model->index(row, DivergenceModel::CauseColumn)
                             .data()
                             .toString()
                             .startsWith(QLatin1String("loop at line 18 (`for i in range(x.size(0)):`) unrolled 3 "
                                                       "times in trace 1 but 4 times in trace 2"));
        QVERIFY(loopCause);
        // The first divergence is current, and its line (the loop's) marked in the source.
        QCOMPARE(compare->divergenceView()->currentIndex(), model->index(0, 0));
        QCOMPARE(part<SourceView>(window, "sourceView")->highlightedLine(), 18);
        compare->showDivergenceSource(0);
        QVERIFY(compare->stackPeek()->shownFile().endsWith(QLatin1String(".py")));
        QCOMPARE(compare->stackPeek()->sourceView()->highlightedLine(), 18);
        // The tensor-to-bool TracerWarning at its line, in the panel and in the gutter.
        QVERIFY(part<SourceView>(window, "sourceView")->warningLines().contains(20));
        // The built-in compiler made nothing of the class: the Script tab shows PyTorch's script graph of forward.
        QVERIFY(window.model().functions.isEmpty());
        QCOMPARE(report.script.nodes.isEmpty(), false);
        QVERIFY(window.scriptScene()->nodeItems().size() > 3);
        bool loop = false;
        for (NodeItem* item : window.scriptScene()->nodeItems())
            loop |= report.script.node(item->nodeId()).kind == QLatin1String("prim::Loop");
        QVERIFY2(loop || !window.scriptScene()->clusterItems().isEmpty(), "forward's loop is in the script graph");

        // A relayout (another layout option) keeps the recorded call, not the built-in check of the file.
        part<QAction>(window, "groupByModuleAction")->setChecked(false);
        QVERIFY(waitIdle(window));
        QCOMPARE(pythonView->shownCall(), 1);
        // Run Check: the built-in compiler has no function of this file to check, so the file runs again.
        window.runCheck(true);
        QVERIFY(window.python()->isRunning());
        QVERIFY(waitPython(window));
        QCOMPARE(pythonView->shownCall(), 1);
        QCOMPARE(checkView->traceCount(), 2);
    }

    void functionCheckAndRecordedCall()
    {
        // branch.py's function compiles in the built-in front end too: Run Check checks it, and choosing the
        // recorded call in the tree shows that again.
        MainWindow window;
        PythonView* pythonView = part<PythonView>(window, "pythonView");
        CheckController* check = checkController(window);
        window.setPythonAllowed(true);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.setInitialInputSets({ QStringLiteral("f32[3]=ones"), QStringLiteral("f32[3]=zeros") });
        window.openFile(pyFile("branch.py"));
        QVERIFY(waitPython(window));
        QCOMPARE(pythonView->shownCall(), 0);
        QCOMPARE(check->report().function, QStringLiteral("sign_scale"));
        QCOMPARE(check->report().traces.at(1).inputs.toString(), QStringLiteral("f32[3]"));
        window.runCheck(true);
        QVERIFY(waitIdle(window));
        QCOMPARE(pythonView->shownCall(), -1);
        QVERIFY(check->hasReport());
        QCOMPARE(check->report().traces.at(1).inputs.toString(), QStringLiteral("f32[3]=zeros"));
        // The call's row is still the current one: a click on it shows it again.
        QTreeView* view = part<QTreeView>(window, "modelTreeView");
        const QModelIndex row = part<ModelTreeModel>(window, "modelTreeModel")->indexOfCall(0);
        QCOMPARE(view->currentIndex(), row);
        view->scrollTo(row);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(row).center());
        QVERIFY(waitIdle(window));
        QCOMPARE(pythonView->shownCall(), 0);
        QCOMPARE(check->report().traces.at(1).inputs.toString(), QStringLiteral("f32[3]"));
    }

    /// A real model's recorded call (torchvision's detection model, traced at 320x320 and checked at 256x384): its
    /// 2,000-node traces are shown as an archive is, grouped by module with the submodules folded into an
    /// overview, and Compare opens on the modules that differ, unfolded.
    void detectionModelGroupedAndCompared()
    {
        // Under Debian's torch 1.13 and torchvision 0.14, whose MultiScaleRoIAlign keeps state from the first call
        // (torchvision 0.29's does not: under the engine's torch the model's check passes).
        if (!haveDebianTorch(true))
            QSKIP("no torch 1.13 and torchvision for /usr/bin/python3 (Debian's python3-torch, python3-torchvision)");
        MainWindow window;
        CheckController* check = checkController(window);
        window.setPythonInterpreter(QStringLiteral("/usr/bin/python3"));
        window.setPythonAllowed(true);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openFile(pyFile("models/detection.py"));
        QVERIFY(waitPython(window));
        QVERIFY(check->hasReport());
        const CheckReport& report = check->report();
        QVERIFY2(report.ok, qPrintable(report.error.toString()));
        QVERIFY(report.traces[0].graph.nodes.size() > 1500);
        QCOMPARE(window.currentView(), MainWindow::View::Compare);
        // Trace 2 (256x384) and the example inputs traced again (the model's state) both differ from trace 1.
        QCOMPARE(report.diffs.size(), 2);
        QVERIFY(!report.diffs[0].equal && !report.diffs[1].equal);
        const QVector<GraphLayout>& layouts = check->traceLayouts();
        QCOMPARE(layouts.size(), 3);
        const GraphLayout& first = layouts[0];
        QVERIFY2(first.error.isEmpty(), qPrintable(first.error));
        // Grouped: module clusters named by path and class, and folded submodules.
        QVERIFY(std::any_of(first.clusters.cbegin(), first.clusters.cend(),
            [](const LayoutCluster& c) { return c.module == QLatin1String("model"); }));
        QVERIFY(std::any_of(first.nodes.cbegin(), first.nodes.cend(),
            [](const LayoutNode& n) { return n.role == LayoutNode::Role::Module; }));
        // Every changed node of trace 1 is drawn as itself, not inside a folded module's box.
        for (const TraceDiff& d : report.diffs)
            for (const NodeChange& c : d.changes) {
                if (c.baseNode < 0)
                    continue;
                const int box = first.boxShowing(c.baseNode);
                QVERIFY2(box >= 0, qPrintable(report.traces[0].graph.nodeLine(c.baseNode)));
                QCOMPARE(first.nodes[box].role, LayoutNode::Role::Node);
            }
        // One divergence: the module whose state the first call changed, its place in torchvision opened
        // read-only with its stack down to the user's line.
        CompareWidget* compare = part<CompareWidget>(window, "compareWidget");
        QCOMPARE(compare->divergenceModel()->divergenceCount(), 1);
        QCOMPARE(compare->divergenceModel()->divergence(0).kind, DivergenceKind::ModuleState);
        QVERIFY2(window.statusText().contains(QLatin1String("model.roi_heads.box_roi_pool")),
            qPrintable(window.statusText()));
        QVERIFY2(compare->moduleCountsText().contains(QLatin1String("model.roi_heads.box_roi_pool: ")),
            qPrintable(compare->moduleCountsText()));
        compare->showDivergenceSource(0);
        StackPeek* peek = compare->stackPeek();
        QVERIFY(peek && peek->isVisible());
        QVERIFY2(
            peek->shownFile().endsWith(QLatin1String("torchvision/ops/roi_align.py")), qPrintable(peek->shownFile()));
        QVERIFY(peek->sourceView()->isReadOnly());
        QVERIFY(peek->sourceView()->highlightedLine() > 0);
        peek->showFrame(peek->frameCount() - 1);
        QVERIFY(peek->shownFile().endsWith(QLatin1String("models/detection.py")));
        QCOMPARE(peek->sourceView()->highlightedLine(), 15);
    }

    /// Debug Trace 1 Where It Fails on a call PyTorch recorded: the packed LSTM's trace 1 (batch 3 baked in), saved
    /// by the bridge, runs on set 2 (a batch of 2) and stops before aten::lstm in torch.nn's LSTM, with PyTorch's
    /// error and where each operand came from (the batch size trace 1 baked in).
    void debugWhereARecordedTraceFails()
    {
        // Under Debian's torch 1.13, whose LSTM bakes the batch size into hx (torch 2.14's traces it): trace 1 saved
        // by torch 1.13, loaded and run by the engine's libtorch 2.x.
        if (!haveDebianTorch(false))
            QSKIP("no torch 1.13 for /usr/bin/python3 (Debian's python3-torch)");
        MainWindow window;
        CheckController* check = checkController(window);
        window.setPythonInterpreter(QStringLiteral("/usr/bin/python3"));
        window.setPythonAllowed(true);
        window.openFile(pyFile("models/lstm_packed.py"));
        QVERIFY(waitPython(window));
        QVERIFY(check->hasReport());
        const CheckReport& report = check->report();
        QCOMPARE(report.outputs.size(), 1);
        const TraceFailure failure = report.outputs[0].failure;
        QVERIFY(failure.isValid());
        QAction* action = window.debugAction(MainWindow::DebugAction::DebugTraceFailure);
        QVERIFY(action->isEnabled());
        QCOMPARE(action->text(), QStringLiteral("Debug Trace 1 Where It &Fails on Set 2"));
        QSignalSpy paused(&window, &MainWindow::debugPaused);
        QSignalSpy shown(&window, &MainWindow::liveTraceShown);
        action->trigger();
        QVERIFY(paused.wait(kJobTimeoutMs));
        const DebugPause& p = window.debugger()->lastPause();
        QVERIFY(window.debugger()->isReplay());
        QVERIFY(p.atFailure);
        QCOMPARE(p.event.kind, QStringLiteral("aten::lstm"));
        QVERIFY2(p.failure.contains(QLatin1String("The size of tensor a (3) must match the size of tensor b (2)")),
            qPrintable(p.failure));
        // In library code: the status bar names its file and line.
        QVERIFY2(window.statusText().contains(QLatin1String("rnn.py:")), qPrintable(window.statusText()));
        QCOMPARE(window.currentView(), MainWindow::View::LiveTrace);
        QVERIFY(shown.count() > 0 || shown.wait(kJobTimeoutMs));
        QVERIFY(window.liveTraceScene());
        QCOMPARE(window.liveTraceScene()->executionNode(), window.liveTraceScene()->displayedNode(p.failureNode));
        const QString header = debugUi(window)->liveTrace()->headerText();
        QVERIFY2(header.contains(QLatin1String("aten::lstm")) && header.contains(QLatin1String("fails here")),
            qPrintable(header));
        QVERIFY2(header.contains(QLatin1String("the constant 3 trace 1 baked in")), qPrintable(header));
        window.stopDebugging();
    }

    void recordedArchiveOpensForDebugging()
    {
        MainWindow window;
        window.setPythonAllowed(true);
        window.openFile(pyFile("export_module.py"));
        QVERIFY(waitPython(window));
        // What torch.jit.script(model) returned: an archive whose methods the built-in executor runs.
        window.setInitialInputSets({ QStringLiteral("f32[3,4]") });
        QVERIFY(part<PythonView>(window, "pythonView")->openArchive(0));
        QVERIFY(waitIdle(window));
        QVERIFY2(window.hasModel(), qPrintable(window.lastError()));
        QCOMPARE(window.model().kind, ModelInfo::Kind::Archive);
        QVERIFY(documentController(window)->currentFile().startsWith(
            QStandardPaths::writableLocation(QStandardPaths::CacheLocation)));
        const FunctionInfo* forward = window.model().function(QStringLiteral("forward"));
        QVERIFY(forward && forward->ok);
        QVERIFY(window.model().function(QStringLiteral("another_forward")));
        // An archive has no Python bar, and the debugger steps through it.
        QCOMPARE(part<PythonBar>(window, "pythonBar")->state(), PythonBar::State::Hidden);
        QSignalSpy paused(&window, &MainWindow::debugPaused);
        window.debugCommand(DebugCommand::StepInto);
        QVERIFY(paused.wait(kJobTimeoutMs));
        QVERIFY(window.isDebugging());
        window.stopDebugging();
    }

    void selfCheckBadge_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("badge");
        QTest::addColumn<QString>("detail"); ///< in the badge's tooltip
        // sign_scale compiles in JitScope's front end too: its own trace equals PyTorch's.
        QTest::addRow("agrees") << "branch.py" << QString::fromUtf8("\u2714 self-check")
                                << "line 13, sign_scale: JitScope's own trace equals PyTorch's node for node";
        // Classes are not compiled by the front end: nothing to compare, no badge.
        QTest::addRow("nothing to compare") << "export_module.py" << QString() << QString();
    }

    void selfCheckBadge()
    {
        QFETCH(QString, file);
        QFETCH(QString, badge);
        QFETCH(QString, detail);
        MainWindow window;
        window.setPythonAllowed(true);
        window.openFile(pyFile(qPrintable(file)));
        QVERIFY(waitPython(window));
        QVERIFY(!window.python()->isSelfChecking());
        QCOMPARE(part<PythonBar>(window, "pythonBar")->badgeText(), badge);
        if (!detail.isEmpty())
            QVERIFY2(window.python()->hasSelfCheck()
                    && selfCheckText(window.python()->selfCheck().checks.value(0))
                           .startsWith(detail.section(QStringLiteral(": "), 1)),
                qPrintable(window.python()->hasSelfCheck() ? selfCheckText(window.python()->selfCheck().checks.value(0))
                                                           : QStringLiteral("no self-check")));
    }

    void selfCheckFindsADefect()
    {
        // self_check.py's as_flag is traced by JitScope other than by PyTorch (a known difference, which
        // tst_pythoncli checks too): the badge says so and names the function.
        MainWindow window;
        window.setPythonAllowed(true);
        window.openFile(pyFile("self_check.py"));
        QVERIFY(waitPython(window));
        QVERIFY(window.python()->hasSelfCheck());
        const SelfCheckJobResult& r = window.python()->selfCheck();
        QCOMPARE(r.calls.size(), 2);
        QCOMPARE(r.checks.at(0).status, QStringLiteral("agrees"));
        QCOMPARE(r.checks.at(1).status, QStringLiteral("defect"));
        QCOMPARE(part<PythonBar>(window, "pythonBar")->badgeText(),
            QString::fromUtf8("\u26a0 JitScope defect: its own trace of as_flag differs from PyTorch's"));
    }

    void scriptingErrorAtItsLine()
    {
        MainWindow window;
        PythonBar* pythonBar = part<PythonBar>(window, "pythonBar");
        window.setPythonAllowed(true);
        window.openFile(pyFile("traces_not_scripts.py"));
        QVERIFY(waitPython(window));
        const ModelTreeModel* tree = part<ModelTreeModel>(window, "modelTreeModel");
        const QModelIndex python = tree->groupIndex(ModelTreeModel::ItemKind::PythonCall);
        const QModelIndex module
            = childNamed(tree, childNamed(tree, python, QStringLiteral("Classes")), QStringLiteral("MyModule"));
        QVERIFY(module.isValid());
        QVERIFY(module.data(ModelTreeModel::IsErrorRole).toBool());
        QCOMPARE(module.siblingAtColumn(1).data().toString(), QStringLiteral("instance model \u00b7 does not script"));
        const QModelIndex error = tree->index(0, 0, module);
        QCOMPARE(error.data(ModelTreeModel::ItemKindRole).toInt(), int(ModelTreeModel::ItemKind::CompileError));
        QVERIFY2(error.data().toString().startsWith(QLatin1String("Previous return statement returned a value of type "
                                                                  "Tuple[Tensor, Tensor]")),
            qPrintable(error.data().toString()));
        QCOMPARE(error.data(ModelTreeModel::SourceLineRole).toInt(), 17);
        // The script call's failure is what stopped the file: the bar says so, not that the file is broken.
        QCOMPARE(pythonBar->state(), PythonBar::State::Done);
        QVERIFY2(pythonBar->text().contains(QLatin1String("torch.jit.script call at line 22 raised")),
            qPrintable(pythonBar->text()));
        // The trace call before it traced: its report is shown.
        QCOMPARE(part<PythonView>(window, "pythonView")->shownCall(), 0);
        QVERIFY(checkController(window)->report().ok);
    }

    void fileThatRaises()
    {
        MainWindow window;
        PythonBar* pythonBar = part<PythonBar>(window, "pythonBar");
        window.setPythonAllowed(true);
        window.openFile(pyFile("raises.py"));
        QVERIFY(waitPython(window));
        QCOMPARE(pythonBar->state(), PythonBar::State::Failed);
        const QString text = pythonBar->text();
        QVERIFY2(text.contains(QLatin1String("the file raised at line 5")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("ValueError: shape (2, 3) is not supported")), qPrintable(text));
        // The traceback is in the output panel, trimmed to the user's frames.
        const QString output = part<QPlainTextEdit>(window, "pythonOutput")->toPlainText();
        QVERIFY2(output.contains(QLatin1String("ValueError")), qPrintable(output));
        QVERIFY2(!output.contains(QLatin1String("jitscope_bridge.py")), qPrintable(output));
        // The error line is marked in the source.
        QVERIFY(part<SourceView>(window, "sourceView")->extraSelections().size() >= 1);
    }

    void badFilesLeaveTheWindowUp_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("state");
        QTest::addColumn<QString>("bar"); ///< in the bar's text
        QTest::addColumn<QString>("output"); ///< in the Python Output panel
        QTest::addRow("raises") << "raises.py" << int(PythonBar::State::Failed)
                                << "the file raised at line 5: ValueError: shape (2, 3) is not supported"
                                << "ValueError: shape (2, 3) is not supported";
        QTest::addRow("missing package") << "missing_import.py" << int(PythonBar::State::Failed)
                                         << "it imports jitscope_no_such_package, which "
                                         << "No module named 'jitscope_no_such_package'";
        QTest::addRow("sys.exit") << "exits.py" << int(PythonBar::State::Failed) << "it called sys.exit(3)"
                                  << "leaving early";
        QTest::addRow("kills itself") << "kills_itself.py" << int(PythonBar::State::Failed)
                                      << "kills_itself.py crashed: Python stopped abnormally (killed by a signal)"
                                      << "[crashed:";
        QTest::addRow("megabytes of output")
            << "chatty.py" << int(PythonBar::State::Done) << "no torch.jit call recorded"
            << "[output cut: only its first and last part are kept]";
    }

    void badFilesLeaveTheWindowUp()
    {
        QFETCH(QString, file);
        QFETCH(int, state);
        QFETCH(QString, bar);
        QFETCH(QString, output);
        MainWindow window;
        PythonBar* pythonBar = part<PythonBar>(window, "pythonBar");
        window.setPythonAllowed(true);
        window.openFile(pyFile(qPrintable(file)));
        QVERIFY(waitPython(window));
        QCOMPARE(int(pythonBar->state()), state);
        QVERIFY2(pythonBar->text().contains(bar), qPrintable(pythonBar->text()));
        const QString out = part<QPlainTextEdit>(window, "pythonOutput")->toPlainText();
        QVERIFY2(out.contains(output), qPrintable(out.right(2000)));
        // The output panel holds at most what the bridge keeps (head and tail), not megabytes.
        QVERIFY(out.size() < 3 * (1 << 20));
        // The window carries on: the next file runs.
        window.openFile(pyFile("branch.py"));
        QVERIFY(waitPython(window));
        QCOMPARE(pythonBar->state(), PythonBar::State::Done);
    }

    /// Same graph, other values: Compare opens on the set whose outputs differ (not on trace 2 when it passes),
    /// lists the divergence of kind value, and selecting it marks trace 1's node on both sides.
    void valueDivergenceInCompare()
    {
        MainWindow window;
        window.setPythonAllowed(true);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openFile(pyFile("values/resize_rounding.py"));
        QVERIFY(waitPython(window));
        CheckController* check = checkController(window);
        QVERIFY(check->hasReport());
        const CheckReport& report = check->report();
        // Trace 2 (width 60) computes what Python computes; trace 3 (width 90) does not.
        QCOMPARE(report.diffs.size(), 2);
        QVERIFY(report.diffs[0].equal && report.diffs[0].divergences.isEmpty());
        QVERIFY(report.diffs[1].equal);
        auto* compare = part<CompareWidget>(window, "compareWidget");
        QCOMPARE(compare->graphOn(CompareWidget::Side::Left), 0);
        QCOMPARE(compare->graphOn(CompareWidget::Side::Right), 2);
        DivergenceModel* model = compare->divergenceModel();
        QCOMPARE(model->divergenceCount(), 1);
        const Divergence& value = model->divergence(0);
        QCOMPARE(value.kind, DivergenceKind::Value);
        QVERIFY2(value.message.contains(QLatin1String("float32[1x3x63] in the trace, float32[1x3x62] in Python")),
            qPrintable(value.message));
        // Opened on it: the node marked, and both runs' values beside the list, the node's first and in bold.
        QTreeView* sides = compare->valueSidesView();
        QVERIFY(!sides->isHidden());
        QAbstractItemModel* values = sides->model();
        QVERIFY(values->rowCount() >= 2);
        QCOMPARE(values->headerData(1, Qt::Horizontal).toString(), QStringLiteral("Trace 1 on set 3"));
        QCOMPARE(values->headerData(2, Qt::Horizontal).toString(), QStringLiteral("Python on set 3"));
        QCOMPARE(values->index(0, 0).data().toString(), QStringLiteral("aten::upsample_linear1d"));
        QVERIFY2(values->index(0, 1).data().toString().startsWith(QLatin1String("float32[1x3x63]")),
            qPrintable(values->index(0, 1).data().toString()));
        QVERIFY(values->index(0, 2).data().toString().startsWith(QLatin1String("float32[1x3x62]")));
        QVERIFY(values->index(0, 1).data(Qt::UserRole).toBool());
        QStringList operands;
        for (int row = 1; row < values->rowCount(); ++row)
            operands << values->index(row, 0).data().toString() + QLatin1Char('=')
                    + values->index(row, 1).data().toString();
        QVERIFY2(operands.contains(QStringLiteral("operand 1=[63]")), qPrintable(operands.join(QLatin1Char(','))));
        // F8 stays on it (the only divergence); a pair with no value divergence hides the values.
        compare->nextChange();
        QCOMPARE(compare->divergenceView()->currentIndex(), model->divergenceIndex(0));
        QVERIFY(!sides->isHidden());
        compare->setPair(0, 1);
        QVERIFY(sides->isHidden());
        compare->setPair(0, 2);
        QVERIFY(!sides->isHidden());
        compare->selectDivergence(0);
        const int node = value.baseNodes.value(0, -1);
        QCOMPARE(report.traces[0].graph.node(node).kind, QStringLiteral("aten::upsample_linear1d"));
        QCOMPARE(value.otherNodes, value.baseNodes); // the same graph: the same node on trace 3's side
        for (const auto side : { CompareWidget::Side::Left, CompareWidget::Side::Right }) {
            GraphScene* scene = compare->scene(side);
            QVERIFY(scene->displayedNode(node) >= 0);
            QCOMPARE(scene->selectedNodeId(), scene->displayedNode(node));
        }
    }

    /// Debug Trace 1 Where It Fails on a set where trace 1 raises nothing but computes other values: the replay
    /// stops before the node whose value Python never computes, with the divergence's words as its reason.
    void debugWhereTheValuesPartWays()
    {
        MainWindow window;
        window.setPythonAllowed(true);
        window.openFile(pyFile("values/resize_rounding.py"));
        QVERIFY(waitPython(window));
        QAction* action = window.debugAction(MainWindow::DebugAction::DebugTraceFailure);
        QVERIFY(action->isEnabled());
        QCOMPARE(action->text(), QStringLiteral("Debug Trace 1 Where It &Fails on Set 3"));
        QSignalSpy paused(&window, &MainWindow::debugPaused);
        action->trigger();
        QVERIFY(paused.wait(kJobTimeoutMs));
        const DebugPause& p = window.debugger()->lastPause();
        QVERIFY(window.debugger()->isReplay());
        QVERIFY(p.atFailure);
        QCOMPARE(p.event.kind, QStringLiteral("aten::upsample_linear1d"));
        QVERIFY2(p.failure.contains(QLatin1String("float32[1x3x63] in the trace, float32[1x3x62] in Python")),
            qPrintable(p.failure));
        window.stopDebugging();
    }

    void closingTheWindowStopsPython()
    {
        // A temporary copy, so that its folder finds our child and nobody else's: the run works in the file's folder,
        // whether it is a Python of its own or a fork of the warm server (whose command line names no file).
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("endless_close_test.py"));
        QVERIFY(QFile::copy(pyFile("endless.py"), path));
        const QString folder = QFileInfo(dir.path()).canonicalFilePath();
        auto children = [folder] {
            QStringList found;
            for (const QString& pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
                QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
                if (pid.toLongLong() > 0 && QFileInfo(QStringLiteral("/proc/%1/cwd").arg(pid)).symLinkTarget() == folder
                    && stat.open(QIODevice::ReadOnly) && !stat.readAll().contains(") Z "))
                    found << pid;
            }
            return found.join(QLatin1Char(' '));
        };
        {
            MainWindow window;
            window.setPythonAllowed(true);
            window.openFile(path);
            QTRY_VERIFY(window.python()->isRunning());
            QTRY_VERIFY(!children().isEmpty());
        }
        // The window is gone: its run is canceled and the child killed within the bridge's poll.
        QTRY_VERIFY_WITH_TIMEOUT(children().isEmpty(), 3000);
    }

    void endlessFileIsCanceled()
    {
        MainWindow window;
        PythonBar* pythonBar = part<PythonBar>(window, "pythonBar");
        window.setPythonAllowed(true);
        window.openFile(pyFile("endless.py"));
        QTRY_VERIFY(window.python()->isRunning());
        QTest::qWait(300);
        QCOMPARE(pythonBar->state(), PythonBar::State::Running);
        QElapsedTimer timer;
        timer.start();
        pythonBar->cancelButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!window.python()->isRunning(), 5000);
        // The child is killed within the bridge's 50 ms poll; the rest is the thread handing the result back.
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(pythonBar->state(), PythonBar::State::Failed);
        QVERIFY2(pythonBar->text().startsWith(QLatin1String("Canceled")), qPrintable(pythonBar->text()));
        // The window carries on: the next file opens and runs.
        window.openFile(pyFile("branch.py"));
        QVERIFY(waitPython(window));
        QCOMPARE(pythonBar->state(), PythonBar::State::Done);
        QCOMPARE(part<PythonView>(window, "pythonView")->shownCall(), 0);
    }
};

QTEST_MAIN(TestPythonWindow)
#include "tst_pythonwindow.moc"
