#pragma once

#include "checkcontroller.h"
#include "checkview.h"
#include "debugcontroller.h"
#include "debuguicontroller.h"
#include "documentcontroller.h"
#include "documentview.h"
#include "graphitems.h"
#include "graphpage.h"
#include "graphtabs.h"
#include "livetracetab.h"
#include "selectionlinker.h"

#include <QMainWindow>
#include <QMap>

class QAction;
class QDockWidget;
class QLabel;
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
class GraphScene;
class GraphView;
class InputSetsEditor;
class ModelTreeModel;
class NodeInspector;
class SessionStore;
class SourceView;
class WarningsModel;
class WindowMenus;
struct CheckJobResult;
struct DocumentJob;
struct GraphLayout;

/// JitScope's main window, a shell: the graph tabs in the centre (Script, one per trace of the check, Compare, the
/// Live trace), the docks, the menus and the status bar, wired to the controllers that do the work: the document
/// (DocumentController), the check (CheckController, shown by CheckView), the debugger (DebugUiController), the
/// linked selection (SelectionLinker) and what is remembered between runs (SessionStore). Which graph tab shows is
/// GraphTabs', the menu bar WindowMenus'. Its parts have stable object names (the controllers "documentController",
/// "checkController", "checkView", "debugUiController", "selectionLinker", "pythonController", "pythonView",
/// "sessionStore", "workerClient"; the widgets "graphTabs", "scriptPage", "compareWidget", "findBar",
/// "modelTreeModel", "modelTreeView", "sourceView", "pythonBar", "pythonOutput", "warningsModel", "warningsView",
/// "inputSetsEditor", "nodeInspector", "statusLabel"), found with findChild() by tests and tools.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    /// The graph tabs, for --view and the screenshot mode.
    using View = GraphTabs::View;
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
    /// Restores window geometry and dock state and from then on saves them (and recent files) in QSettings.
    void restoreSettings();

    /// True when no load, layout or check job is pending; idle() is emitted each time the last one finishes.
    bool isIdle() const;
    QString currentFunction() const { return m_document->currentFunction(); }
    /// Why the last openFile() failed (or named a function the file lacks); empty after a successful load.
    QString lastError() const { return m_document->lastError(); }
    bool hasModel() const { return m_document->hasModel(); }
    const ModelInfo& model() const { return m_document->model(); }

    GraphScene* scriptScene() const { return m_script->scene(); }
    GraphView* scriptView() const { return m_script->view(); }
    /// The text of the status bar's message area.
    QString statusText() const;

    /// Runs the check of the current function on the input sets panel's sets, reusing a cached result unless
    /// @p force. Traces and their layouts are made off the GUI thread.
    void runCheck(bool force = true);

    /// Makes a graph tab current (Trace: trace 1's).
    void showView(View view) { m_graphTabs->showView(view); }
    View currentView() const { return m_graphTabs->currentView(); }
    /// The tab to show once the first check of the next opened file is done; without one, Compare is shown when
    /// the traces diverge (unless the user picked a tab meanwhile).
    void setStartView(View view) { m_graphTabs->setStartView(view); }

    /// Dark application palette and graph colours (View > Dark Theme, saved with the settings).
    void setDarkTheme(bool dark);
    /// Every model opens with all its modules unfolded, however big (`jitscope --unfold-all`).
    void setUnfoldAllOnOpen(bool unfold) { m_document->setUnfoldAllOnOpen(unfold); }
    /// Libraries of custom operators for this run only (`jitscope --load-ops LIB`), besides the remembered ones.
    void setRunOperatorLibraries(const QStringList& libraries);
    /// Model > Operator Libraries: the remembered libraries (QSettings once restoreSettings() ran); a file open is
    /// loaded again with them.
    void setOperatorLibraries(const QStringList& libraries);
    /// Model > Operator Libraries...: the dialog (modal).
    void operatorLibrariesDialog();
    /// Writes the current graph to @p path as SVG, PNG or DOT (by suffix). Returns false and sets *error on failure.
    bool exportView(const QString& path, QString* error = nullptr);

    // Python (PythonController, shown by PythonView)
    PythonController* python() const { return m_python; }
    /// Consent given on the command line (`jitscope --python`): .py files run under Python without asking.
    void setPythonAllowed(bool allowed);
    /// The interpreter to run .py files with (`jitscope --python=PATH`: for every folder, above the one
    /// remembered; empty: the folder's, else resolvePython()'s, core/report/interpreters.h).
    void setPythonInterpreter(const QString& python);
    /// Model > Python Interpreter: remembers @p python (empty: the default) for the folder of the file open, and
    /// runs its .py files with it from then on.
    void setFolderPythonInterpreter(const QString& python);
    /// Model > Python Interpreter...: the dialog (modal).
    void pythonInterpreterDialog();

    // The debugger (DebugUiController)
    QAction* debugAction(DebugAction action) const { return m_debug->action(action); }
    DebugController* debugger() const { return m_debug->debugger(); }
    /// The Live trace tab's scene (debugging with tracing on), nullptr when there is no such tab.
    GraphScene* liveTraceScene() const;
    /// Without a session, starts one on the current function and the first input set and then applies
    /// @p command (Continue runs to the first breakpoint; the step commands stop at the first node); while paused,
    /// resumes with it. @p line (a line of the source panel) is for RunToLine.
    void debugCommand(DebugCommand command, int line = 0) { m_debug->command(command, line); }
    void stopDebugging() { m_debug->stop(); }
    bool isDebugging() const { return m_debug->isActive(); }
    /// A breakpoint on line @p line of the source panel: @p iteration -1 for every iteration, k > 0 for iteration k
    /// of the innermost loop only.
    void setBreakpoint(int line, int iteration = -1) { m_debug->setBreakpoint(line, iteration); }

Q_SIGNALS:
    /// All load, layout and check jobs have finished and their results are shown.
    void idle();
    /// A file finished loading (successfully or not); see lastError().
    void fileLoaded(bool ok);
    /// The open file changed on disk and its reload finished loading (see fileLoaded()).
    void fileReloaded();
    /// A check finished and its result is shown (the check controller's report().ok says whether it could run).
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
    void createCentralWidget();
    void createDocks();
    QDockWidget* addDock(const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area);
    void createStatusBar();
    void connectControllers();
    void onAboutToOpen(const QString& path);
    void onLoaded(const DocumentJob& result);
    void onFunctionShown(const QString& function, bool newFunction);
    void onCheckShown(const CheckJobResult& result);
    void resetCheck(const QString& title, const QString& text = QString(), bool isError = false)
    {
        m_check->reset(title, text, isError);
    }
    void setStatus(const QString& text);
    void maybeEmitIdle();

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
    GraphTabs* m_graphTabs = nullptr;
    WindowMenus* m_menus = nullptr;

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
    QStringList m_runOperatorLibraries;
    QString m_commandLinePython; ///< jitscope --python=PATH
    void applyPythonInterpreter(const QString& file);
};

} // namespace jitscope
