#pragma once

#include "checkcontroller.h"
#include "checkview.h"
#include "debugcontroller.h"
#include "debuguicontroller.h"
#include "documentcontroller.h"
#include "documentview.h"
#include "graphitems.h"
#include "graphpage.h"
#include "livetracetab.h"
#include "selectionlinker.h"

#include <QMainWindow>
#include <QMap>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QTabWidget;
class QTreeView;

namespace jitscope {

class WorkerClient;
class CompareWidget;
class FindBar;
class PythonBar;
class PythonController;
class PythonView;
class FramesModel;
class GraphScene;
class GraphView;
class InputSetsEditor;
class ModelTreeModel;
class NodeInspector;
class SessionStore;
class SourceView;
class ValuesModel;
class WarningsModel;
struct CheckJobResult;
struct DocumentJob;
struct GraphLayout;

/// JitScope's main window, a shell: the graph tabs in the centre (Script, one per trace of the check, Compare, the
/// Live trace), the docks, the menus and the status bar, wired to the controllers that do the work: the document
/// (DocumentController), the check (CheckController, shown by CheckView), the debugger (DebugUiController), the
/// linked selection (SelectionLinker) and what is remembered between runs (SessionStore).
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    /// The graph tabs, for --view and the screenshot mode.
    enum class View { Script, Trace, Compare, LiveTrace };
    using DebugAction = jitscope::DebugAction;
    explicit MainWindow(QWidget* parent = nullptr);
    /// With @p worker, started before the window (its libtorch loads while Qt builds the widgets): the window takes
    /// it over.
    explicit MainWindow(WorkerClient* worker, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// File > New Window: another window (deleted when closed) whose model worker is this window's spare, taken at
    /// once (libtorch loaded already) when one has started; it opens @p path when given.
    MainWindow* newWindow(const QString& path = {});

    /// Loads @p path off the GUI thread and shows @p functionName (or the default function) once laid out.
    void openFile(const QString& path, const QString& functionName = {}) { m_document->open(path, functionName); }
    /// Input sets (SET syntax) to use for the next file opened instead of its own or remembered ones.
    void setInitialInputSets(const QStringList& sets) { m_documentView->setInitialInputSets(sets); }
    /// torch.jit.trace's strict for the checks (Check > Trace with strict=False).
    void setCheckStrict(bool strict);
    /// Shows a function of the loaded model, laying it out off the GUI thread unless its layout is cached.
    void showFunction(const QString& name) { m_document->showFunction(name); }
    /// Restores window geometry and dock state and from then on saves them (and recent files) in QSettings.
    void restoreSettings();

    /// True when no load, layout or check job is pending; idle() is emitted each time the last one finishes.
    bool isIdle() const;
    QString currentFile() const { return m_document->currentFile(); }
    QString currentFunction() const { return m_document->currentFunction(); }
    /// Why the last openFile() failed (or named a function the file lacks); empty after a successful load.
    QString lastError() const { return m_document->lastError(); }
    bool hasModel() const { return m_document->hasModel(); }
    const ModelInfo& model() const { return m_document->model(); }
    /// The model worker loading and checking run in (null when they run in this process).
    WorkerClient* workerClient() const { return m_worker; }

    GraphScene* scriptScene() const { return m_script->scene(); }
    /// The Script tab: its graph, or why there is none (with the button its message offers).
    GraphPage* scriptPage() const { return m_script; }
    GraphView* scriptView() const { return m_script->view(); }
    ModelTreeModel* treeModel() const { return m_treeModel; }
    QTreeView* treeView() const { return m_treeView; }
    SourceView* sourceView() const { return m_sourceView; }
    /// The text of the status bar's message area.
    QString statusText() const;

    /// Runs the check of the current function on the input sets panel's sets, reusing a cached result unless
    /// @p force. Traces and their layouts are made off the GUI thread.
    void runCheck(bool force = true);
    /// Stops a running check early.
    void cancelCheck() { m_check->cancel(); }
    bool isChecking() const { return m_check->isChecking(); }
    bool hasReport() const { return m_check->hasReport(); }
    const CheckReport& report() const { return m_check->report(); }
    /// The shown check's layouts, trace k's at k.
    const QVector<GraphLayout>& traceLayouts() const { return m_check->traceLayouts(); }
    /// Trace k's tab contents; nullptr when there is no such trace.
    GraphScene* traceScene(int trace) const;
    GraphView* traceView(int trace) const;
    int traceTabCount() const { return m_checkView->traceCount(); }
    CompareWidget* compareWidget() const { return m_compare; }
    WarningsModel* warningsModel() const { return m_warningsModel; }
    QTreeView* warningsView() const { return m_warningsView; }
    InputSetsEditor* inputSetsEditor() const { return m_inputSets; }
    QTabWidget* graphTabs() const { return m_tabs; }
    /// The text of the check's verdict in the status bar.
    QString verdictText() const { return m_checkView->verdictText(); }

    /// Makes a graph tab current (Trace: trace 1's).
    void showView(View view);
    View currentView() const;
    /// The tab to show once the first check of the next opened file is done; without one, Compare is shown when
    /// the traces diverge (unless the user picked a tab meanwhile).
    void setStartView(View view);
    /// Does what clicking warning @p row of warningsModel() does.
    void activateWarning(int row) { m_linker->activateWarning(row); }

    /// The find bar under the graph tabs (Ctrl+F), searching the current tab's graph.
    FindBar* findBar() const { return m_findBar; }
    /// The Inspector dock's contents: the node selected last in the script or a trace tab.
    NodeInspector* nodeInspector() const { return m_inspector; }
    /// Dark application palette and graph colours (View > Dark Theme, saved with the settings).
    void setDarkTheme(bool dark);
    bool isDarkTheme() const { return isDarkGraphTheme(); }
    /// Reloads the open file (as when it changes on disk), keeping the function and the tab.
    void reloadFile() { m_document->reload(); }
    /// View > Group by Module: load with calls inlined and draw submodule code in clusters titled by module path.
    void setGroupByModule(bool group);
    bool groupsByModule() const;
    /// Submodules drawn as one box in the script graph (double-click; a big model opens with some folded).
    QStringList foldedModules() const { return m_document->foldedModules(); }
    /// View > Unfold All Modules.
    void unfoldAllModules() { m_document->unfoldAllModules(); }
    /// A model grouped by module with more than @p bigBoxes boxes opens folded to at most @p overviewBoxes.
    void setOverviewLimits(int bigBoxes, int overviewBoxes) { m_document->setOverviewLimits(bigBoxes, overviewBoxes); }
    /// Every model opens with all its modules unfolded, however big (`jitscope --unfold-all`).
    void setUnfoldAllOnOpen(bool unfold) { m_document->setUnfoldAllOnOpen(unfold); }
    /// Libraries of custom operators for this run only (`jitscope --load-ops LIB`), besides the remembered ones.
    void setRunOperatorLibraries(const QStringList& libraries);
    /// Model > Operator Libraries: the remembered libraries (QSettings once restoreSettings() ran); a file open is
    /// loaded again with them.
    void setOperatorLibraries(const QStringList& libraries);
    QStringList operatorLibraries() const;
    /// Model > Operator Libraries...: the dialog (modal).
    void operatorLibrariesDialog();
    /// Writes the current graph to @p path as SVG, PNG or DOT (by suffix). Returns false and sets *error on failure.
    bool exportView(const QString& path, QString* error = nullptr);
    static QStringList supportedSuffixes();

    // Python (PythonController, shown by PythonView)
    /// The bar above the source asking to run a .py file under Python, then showing the run.
    PythonBar* pythonBar() const { return m_pythonBar; }
    PythonController* python() const { return m_python; }
    PythonView* pythonView() const { return m_pythonView; }
    QPlainTextEdit* pythonOutput() const { return m_pythonOutput; }
    /// Consent given on the command line (`jitscope --python`): .py files run under Python without asking.
    void setPythonAllowed(bool allowed);
    /// The interpreter to run .py files with (empty: $JITSCOPE_PYTHON, else the engine's torch's Python).
    void setPythonInterpreter(const QString& python);

    // The debugger (DebugUiController)
    QAction* debugAction(DebugAction action) const { return m_debug->action(action); }
    DebugController* debugger() const { return m_debug->debugger(); }
    FramesModel* framesModel() const { return m_debug->framesModel(); }
    QTreeView* framesView() const { return m_debug->framesView(); }
    ValuesModel* valuesModel() const { return m_debug->valuesModel(); }
    QTreeView* valuesView() const { return m_debug->valuesView(); }
    /// The Live trace tab's scene (debugging with tracing on), nullptr when there is no such tab.
    GraphScene* liveTraceScene() const;
    /// The trace the Live trace tab shows (once laid out).
    const IrGraph& liveTrace() const { return m_debug->liveTrace()->graph(); }
    /// Without a session, starts one on the current function and the first input set and then applies
    /// @p command (Continue runs to the first breakpoint; the step commands stop at the first node); while paused,
    /// resumes with it. @p line (a line of the source panel) is for RunToLine.
    void debugCommand(DebugCommand command, int line = 0) { m_debug->command(command, line); }
    /// Debug › Debug Trace 1 Where It Fails: trace 1 of the check shown run on input set @p set (0-based; -1: the
    /// first it fails on), paused before the node that fails; the Live trace tab shows that trace.
    bool debugTraceFailure(int set = -1) { return m_debug->debugTraceFailure(set); }
    /// What the Live trace tab says above its graph (rich text).
    QString liveTraceHeader() const { return m_debug->liveTrace()->headerText(); }
    void stopDebugging() { m_debug->stop(); }
    void restartDebugging() { m_debug->restart(); }
    bool isDebugging() const { return m_debug->isActive(); }
    /// Breakpoints by line of the source panel: -1 for every iteration, k > 0 for iteration k of the innermost
    /// loop only.
    QMap<int, int> breakpoints() const { return m_debug->breakpoints(); }
    void setBreakpoint(int line, int iteration = -1) { m_debug->setBreakpoint(line, iteration); }
    void removeBreakpoint(int line) { m_debug->removeBreakpoint(line); }
    void toggleBreakpoint(int line) { m_debug->toggleBreakpoint(line); }
    /// The source panel's cursor line when it has focus, else the selected script node's line, else the cursor line.
    int runToCursorLine() const { return m_debug->runToCursorLine(); }

Q_SIGNALS:
    /// All load, layout and check jobs have finished and their results are shown.
    void idle();
    /// A file finished loading (successfully or not); see lastError().
    void fileLoaded(bool ok);
    /// The open file changed on disk and its reload finished loading (see fileLoaded()).
    void fileReloaded();
    /// A check finished and its result is shown (report().ok says whether it could run).
    void checkFinished();
    /// The debug session paused and the views show where.
    void debugPaused();
    /// The debug session ended (returned, failed or stopped) and the views show the result.
    void debugFinished();
    /// The Live trace tab shows a newly laid-out trace.
    void liveTraceShown();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createDocks();
    QDockWidget* addDock(const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area);
    void createActions();
    void connectControllers();
    void followZoom(GraphView* view);
    void onAboutToOpen(const QString& path);
    void onLoaded(const DocumentJob& result);
    void onFunctionShown(const QString& function, bool newFunction);
    void onCheckShown(const CheckJobResult& result);
    void resetCheck(const QString& title, const QString& text = QString(), bool isError = false)
    {
        m_check->reset(title, text, isError);
    }
    void applyStartView();
    void setStatus(const QString& text);
    void updateRecentMenu();
    void openDialog();
    void exportDialog();
    void about();
    GraphView* currentGraphView() const;
    GraphScene* currentGraphScene() const;
    void maybeEmitIdle();
    void updateFindTarget();

    SessionStore* m_session = nullptr;
    DocumentController* m_document = nullptr;
    WorkerClient* m_worker = nullptr;
    DocumentView* m_documentView = nullptr;
    CheckController* m_check = nullptr;
    CheckView* m_checkView = nullptr;
    DebugUiController* m_debug = nullptr;
    SelectionLinker* m_linker = nullptr;
    PythonController* m_python = nullptr;
    PythonView* m_pythonView = nullptr;

    QTabWidget* m_tabs = nullptr;
    GraphPage* m_script = nullptr;
    CompareWidget* m_compare = nullptr;
    FindBar* m_findBar = nullptr;
    ModelTreeModel* m_treeModel = nullptr;
    QTreeView* m_treeView = nullptr;
    SourceView* m_sourceView = nullptr;
    PythonBar* m_pythonBar = nullptr;
    QPlainTextEdit* m_pythonOutput = nullptr;
    WarningsModel* m_warningsModel = nullptr;
    QTreeView* m_warningsView = nullptr;
    InputSetsEditor* m_inputSets = nullptr;
    NodeInspector* m_inspector = nullptr;
    QLabel* m_statusLabel = nullptr;
    QLabel* m_zoomLabel = nullptr;
    QProgressBar* m_busy = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_foldConstantsAction = nullptr;
    QAction* m_showBlocksAction = nullptr;
    QAction* m_darkAction = nullptr;
    QStringList m_runOperatorLibraries;
    QAction* m_groupByModuleAction = nullptr;
    QAction* m_unfoldAllAction = nullptr;

    bool m_restoreTabPending = false; ///< a reload: back to the tab the user was on once checked
    View m_restoreView = View::Script;
    int m_restoreTrace = 0;
    bool m_userChoseTab = false;
    bool m_startViewPending = false;
    bool m_hasStartView = false;
    View m_startView = View::Compare;
};

} // namespace jitscope
