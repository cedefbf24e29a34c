#pragma once

#include "check/check.h"
#include "debug/debugsession.h"
#include "layout/graphlayout.h"
#include "load/model.h"

#include <QDateTime>
#include <QHash>
#include <QMainWindow>
#include <QMap>
#include <QPalette>
#include <QSet>

#include <atomic>
#include <functional>
#include <memory>

class QAction;
class QDockWidget;
class QFileSystemWatcher;
class QTimer;
class QFutureWatcherBase;
class QLabel;
class QMenu;
class QProgressBar;
class QTabWidget;
class QToolBar;
class QToolButton;
class QTreeView;

namespace jitscope {

class CompareWidget;
class DebugController;
class FindBar;
class FramesModel;
class NodeInspector;
class GraphScene;
class GraphView;
class InputSetsEditor;
class LegendBar;
class ModelTreeModel;
class SourceView;
class ValuesModel;
class WarningsModel;
struct CheckJobResult;
struct GuiJobResult;

/// JitScope's main window: the graph of the selected function in the centre, with one tab per trace of the
/// check and a Compare tab; the model tree, source, warnings and input sets in docks. Loading, layout and the
/// check run on the thread pool; results of jobs that were overtaken are dropped. The Debug menu steps through
/// the function on the first input set (a DebugSession on its own thread): the paused node is marked in the graph
/// and the source, the Frames and Values docks show where it stands, and with tracing on a Live trace tab shows
/// the trace recorded so far.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    /// The graph tabs, for --view and the screenshot mode.
    enum class View { Script, Trace, Compare, LiveTrace };
    /// The Debug menu's actions.
    enum class DebugAction {
        StartContinue,
        StepOver,
        StepInto,
        StepOut,
        NextIteration,
        RunToCursor,
        Restart,
        Stop,
        TraceWhileDebugging,
        ToggleBreakpoint,
    };
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Loads @p path off the GUI thread and shows @p functionName (or the default function) once laid out.
    void openFile(const QString& path, const QString& functionName = {});
    /// Input sets (SET syntax) to use for the next file opened instead of its own or remembered ones.
    void setInitialInputSets(const QStringList& sets) { m_initialInputSets = sets; }
    /// Shows a function of the loaded model, laying it out off the GUI thread unless its layout is cached.
    void showFunction(const QString& name);

    /// Restores window geometry and dock state and from then on saves them (and recent files) in QSettings.
    void restoreSettings();

    /// True when no load, layout or check job is pending; idle() is emitted each time the last one finishes.
    bool isIdle() const { return m_watchers.isEmpty() && m_checkWatchers.isEmpty(); }
    QString currentFile() const { return m_currentFile; }
    QString currentFunction() const { return m_currentFunction; }
    /// Why the last openFile() failed (or named a function the file lacks); empty after a successful load.
    QString lastError() const { return m_lastError; }
    bool hasModel() const { return m_hasModel; }
    const ModelInfo& model() const { return m_model; }

    GraphScene* scriptScene() const { return m_scriptScene; }
    GraphView* scriptView() const { return m_scriptView; }
    ModelTreeModel* treeModel() const { return m_treeModel; }
    QTreeView* treeView() const { return m_treeView; }
    SourceView* sourceView() const { return m_sourceView; }
    /// The text of the status bar's message area.
    QString statusText() const;

    // The check: one trace per input set, diffed and explained (see checkFunction()).
    /// Runs the check of the current function on the input sets panel's sets, reusing a cached result unless
    /// @p force. Traces and their layouts are made off the GUI thread.
    void runCheck(bool force = true);
    /// Stops a running check early.
    void cancelCheck();
    bool isChecking() const { return !m_checkWatchers.isEmpty(); }
    bool hasReport() const { return m_hasReport; }
    const CheckReport& report() const { return m_report; }
    /// Trace k's tab contents; nullptr when there is no such trace.
    GraphScene* traceScene(int trace) const;
    GraphView* traceView(int trace) const;
    int traceTabCount() const { return int(m_tracePages.size()); }
    CompareWidget* compareWidget() const { return m_compare; }
    WarningsModel* warningsModel() const { return m_warningsModel; }
    QTreeView* warningsView() const { return m_warningsView; }
    InputSetsEditor* inputSetsEditor() const { return m_inputSets; }
    QTabWidget* graphTabs() const { return m_tabs; }
    /// The text of the check's verdict in the status bar.
    QString verdictText() const;

    /// Makes a graph tab current (Trace: trace 1's).
    void showView(View view);
    View currentView() const;
    /// The tab to show once the first check of the next opened file is done; without one, Compare is shown when
    /// the traces diverge (unless the user picked a tab meanwhile).
    void setStartView(View view);
    /// Does what clicking warning @p row of warningsModel() does: shows its trace node, or the nodes its script
    /// node recorded, and its source line.
    void activateWarning(int row);

    /// The find bar under the graph tabs (Ctrl+F), searching the current tab's graph.
    FindBar* findBar() const { return m_findBar; }
    /// The Inspector dock's contents: the node selected last in the script or a trace tab.
    NodeInspector* nodeInspector() const { return m_inspector; }
    /// Dark application palette and graph colours (View > Dark Theme, saved with the settings).
    void setDarkTheme(bool dark);
    bool isDarkTheme() const;
    /// Reloads the open file (as when it changes on disk), keeping the function and the tab.
    void reloadFile();
    /// View > Group by Module: load with calls inlined and draw submodule code in clusters titled by module path.
    void setGroupByModule(bool group);
    bool groupsByModule() const;
    /// Submodules drawn as one box in the script graph (double-click; a big model opens with some folded).
    QStringList foldedModules() const;
    /// View > Unfold All Modules.
    void unfoldAllModules();
    /// A model grouped by module with more than @p bigBoxes boxes opens folded to at most @p overviewBoxes
    /// (overviewFolds(); default 800 and 250).
    void setOverviewLimits(int bigBoxes, int overviewBoxes);

    /// Writes the current graph to @p path as SVG, PNG or DOT (by suffix). Returns false and sets *error on failure.
    bool exportView(const QString& path, QString* error = nullptr);

    static QStringList supportedSuffixes();

    // The debugger
    QAction* debugAction(DebugAction action) const;
    DebugController* debugger() const { return m_debugger; }
    FramesModel* framesModel() const { return m_framesModel; }
    QTreeView* framesView() const { return m_framesView; }
    ValuesModel* valuesModel() const { return m_valuesModel; }
    QTreeView* valuesView() const { return m_valuesView; }
    /// The Live trace tab's scene (debugging with tracing on), nullptr when there is no such tab.
    GraphScene* liveTraceScene() const;
    /// The trace the Live trace tab shows (once laid out).
    const IrGraph& liveTrace() const { return m_liveShown; }
    /// Does what the Debug actions do: without a session, starts one on the current function and the first input
    /// set and then applies @p command (Continue runs to the first breakpoint; the step commands stop at the first
    /// node); while paused, resumes with it. @p line (a line of the source panel) is for RunToLine.
    void debugCommand(DebugSession::Command command, int line = 0);
    void stopDebugging();
    void restartDebugging();
    bool isDebugging() const;
    /// Breakpoints by line of the source panel: -1 for every iteration, k > 0 for iteration k of the innermost
    /// loop only.
    QMap<int, int> breakpoints() const { return m_breakpoints; }
    void setBreakpoint(int line, int iteration = -1);
    void removeBreakpoint(int line);
    void toggleBreakpoint(int line);
    /// The line Run to Cursor runs to: the source panel's cursor line when it has focus, else the selected script
    /// node's line, else the cursor line.
    int runToCursorLine() const;

Q_SIGNALS:
    /// All load and layout jobs have finished and their results are shown.
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
    void createActions();
    void createDocks();
    /// Runs @p work on the thread pool as the newest job; @p work gets a function telling it to stop early.
    void startJob(std::function<GuiJobResult(const std::function<bool()>& canceled)> work);
    void onJobFinished(QFutureWatcherBase* watcher);
    void applyLoadResult(GuiJobResult& result);
    void applyLayoutResult(GuiJobResult& result);
    void displayFunction(const QString& name, const GraphLayout& layout, qint64 elapsedMs);
    /// Says in the status bar that a big model opened with its submodules folded, and how to see them.
    void noteOverview(const QStringList& folds, const IrGraph& graph);
    void showCompileError(const FunctionInfo& fn);
    void onTreeCurrentChanged(const QModelIndex& current);
    void onNodeSelected(int nodeId);
    void selectFunctionInTree(const QString& name);
    void setStatus(const QString& text);
    void addRecentFile(const QString& path);
    void updateRecentMenu();
    void openDialog();
    void exportDialog();
    void about();
    void watchFile(const QString& path);
    void onWatchedPathChanged(bool fileSignal);
    void updateFindTarget();
    void createInspectorDock();
    void onInspectorScriptNode(int nodeId);
    void onInspectorTraceNode(int trace, int nodeId);
    /// The line of the source panel that @p location refers to, or 0 when the panel does not show that file.
    int sourceLineFor(const SourceLocation& location) const;
    void indexArchiveSource();
    QString cacheKey(const QString& function) const;
    QString layoutOptionsKey() const;
    LayoutOptions layoutOptions() const;

    struct TracePage
    {
        QWidget* page = nullptr;
        GraphScene* scene = nullptr;
        GraphView* view = nullptr;
    };
    struct CheckCacheEntry
    {
        QString setsKey;
        CheckReport report;
        QString layoutKey;
        QVector<GraphLayout> layouts;
    };
    void createCheckDocks();
    void startCheckJob(
        const QString& function, const QVector<InputSet>& sets, const QString& setsKey, const CheckReport* reuse);
    void onCheckJobFinished(QFutureWatcherBase* watcher);
    void applyCheckResult(const CheckJobResult& result);
    void showReport();
    /// Forgets the check shown (another file or function): no trace tabs, compare and warnings show @p title.
    void resetCheck(const QString& title, const QString& text = QString(), bool isError = false);
    void rebuildTraceTabs();
    void removeTraceTabs();
    void updateCheckProgress(int value, const QString& text);
    void setVerdict(const QString& html, const QString& toolTip);
    void maybeEmitIdle();
    void onTraceNodeSelected(int trace, int nodeId);
    void onCompareNodeSelected(int graph, int nodeId);
    void onChangeSelected(int row);
    /// Marks the trace nodes script node @p nodeId recorded in every trace tab; returns the listing for the status.
    QString linkScriptNode(int nodeId);
    QString describeTraceNode(int trace, int nodeId) const;
    void onInputSetsEdited();
    void resetInputSets();
    GraphView* currentGraphView() const;
    GraphScene* currentGraphScene() const;
    void onCurrentTabChanged(int index);
    void applyStartView();

    void createDebugDocks();
    void createDebugActions();
    bool startDebugSession();
    void onDebugPaused();
    void onDebugFinished();
    void showPause(const DebugSession::Pause& pause);
    void clearDebugMarkers();
    void updateDebugActions();
    void applyDebugMarkers();
    void applyBreakpoints();
    void editBreakpointCondition(int line);
    void runToLine(int line);
    void onScriptNodeContextMenu(int nodeId, const QPoint& globalPos);
    void onFrameActivated(const QModelIndex& index);
    void onValueCurrentChanged(const QModelIndex& index);
    /// Lines of the debugged function's own file for a line of the source panel (0 when it is elsewhere).
    int fileLineOf(int sourceLine) const;
    void updateLiveTrace(const IrGraph& graph, bool final);
    void onLiveTraceLaidOut(QFutureWatcherBase* watcher);
    void removeLiveTraceTab();
    void onLiveTraceNodeSelected(int nodeId);
    QString describePause(const DebugSession::Pause& pause) const;

    QTabWidget* m_tabs = nullptr;
    GraphScene* m_scriptScene = nullptr;
    GraphView* m_scriptView = nullptr;
    LegendBar* m_legend = nullptr;
    ModelTreeModel* m_treeModel = nullptr;
    QTreeView* m_treeView = nullptr;
    SourceView* m_sourceView = nullptr;
    QLabel* m_statusLabel = nullptr;
    QLabel* m_zoomLabel = nullptr;
    QProgressBar* m_busy = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_foldConstantsAction = nullptr;
    QAction* m_showBlocksAction = nullptr;
    QAction* m_darkAction = nullptr;
    QAction* m_groupByModuleAction = nullptr;
    QAction* m_unfoldAllAction = nullptr;
    QPoint m_overviewLimits { 800, 250 }; ///< setOverviewLimits()
    QPalette m_lightPalette; ///< the application palette before the dark theme replaced it
    bool m_hasLightPalette = false;
    FindBar* m_findBar = nullptr;
    NodeInspector* m_inspector = nullptr;
    QFileSystemWatcher* m_fileWatcher = nullptr;
    QTimer* m_reloadTimer = nullptr;
    QDateTime m_lastModified; ///< of the open file when it was loaded
    bool m_reloading = false; ///< the load running is a reload: restore the tab and tell fileReloaded()
    bool m_restoreTabPending = false;
    View m_restoreView = View::Script;
    int m_restoreTrace = 0;

    ModelInfo m_model;
    bool m_hasModel = false;
    QString m_currentFile;
    QString m_currentFunction;
    QString m_shownFunction; ///< the function whose graph the Script tab shows
    QString m_lastError;
    QHash<QString, int> m_archiveFileOffsets; ///< "code/__torch__/x.py" -> line of its header in the source panel
    QHash<QString, GraphLayout> m_layoutCache; ///< per function and layout options, for the loaded model
    int m_generation = 0; ///< bumped by every job; a finished job whose generation is older is dropped
    QSet<QFutureWatcherBase*> m_watchers; ///< pending jobs
    bool m_persistSettings = false;
    bool m_groupArchives = true; ///< Group by Module for archives (View menu; sticky per kind of file)
    bool m_groupSources = false; ///< Group by Module for .py files
    bool m_updatingTree = false;

    // The check
    CompareWidget* m_compare = nullptr;
    QVector<TracePage> m_tracePages;
    WarningsModel* m_warningsModel = nullptr;
    QTreeView* m_warningsView = nullptr;
    InputSetsEditor* m_inputSets = nullptr;
    QStringList m_initialInputSets;
    QSet<int> m_foldedNodes; ///< loops and ifs of the shown function drawn folded
    QSet<QString> m_foldedModules; ///< submodules drawn as one box (with Group by Module)
    QLabel* m_checkLabel = nullptr;
    QProgressBar* m_checkProgress = nullptr;
    QToolButton* m_checkCancelButton = nullptr;
    QLabel* m_verdictLabel = nullptr;
    QAction* m_runCheckAction = nullptr;
    QAction* m_cancelCheckAction = nullptr;
    QAction* m_dimAction = nullptr;
    CheckReport m_report;
    QVector<GraphLayout> m_traceLayouts;
    bool m_hasReport = false;
    QHash<QString, CheckCacheEntry> m_checkCache; ///< by function, for the loaded model
    int m_checkGeneration = 0; ///< bumped by every check; a finished check whose generation is older is dropped
    QSet<QFutureWatcherBase*> m_checkWatchers; ///< pending checks (stale ones included, until they stop)
    std::shared_ptr<std::atomic<bool>> m_checkCancel; ///< the newest check's cancel flag
    int m_activeTrace = 0; ///< the trace tab last looked at, for listing linked nodes
    bool m_linking = false; ///< set while one selection updates the others
    bool m_userChoseTab = false;
    bool m_startViewPending = false;
    bool m_hasStartView = false;
    View m_startView = View::Compare;

    // The debugger
    DebugController* m_debugger = nullptr;
    FramesModel* m_framesModel = nullptr;
    QTreeView* m_framesView = nullptr;
    ValuesModel* m_valuesModel = nullptr;
    QTreeView* m_valuesView = nullptr;
    QLabel* m_heatMapLabel = nullptr;
    QLabel* m_valueDetailLabel = nullptr;
    QDockWidget* m_framesDock = nullptr;
    QDockWidget* m_valuesDock = nullptr;
    QToolBar* m_debugToolBar = nullptr;
    QHash<int, QAction*> m_debugActions; ///< by DebugAction
    QMap<int, int> m_breakpoints; ///< source panel line -> iteration (-1: all)
    QStringList m_expandedValues; ///< names of the Values rows expanded before the last pause
    QString m_currentValue; ///< the Values row the user made current last
    bool m_pickingValue = false; ///< the window, not the user, is making a Values row current
    bool m_hasPendingCommand = false; ///< a command to apply at the new session's first pause
    DebugSession::Command m_pendingCommand = DebugSession::Command::StepInto;
    int m_pendingLine = 0;
    bool m_checkAfterDebug = false; ///< a check was canceled or deferred for the session: run it when it ends
    // The Live trace tab
    TracePage m_livePage;
    QLabel* m_liveLabel = nullptr;
    IrGraph m_liveShown; ///< the graph the tab shows
    QHash<QString, int> m_liveKeys; ///< node keys of the last trace shown, to mark the new ones
    int m_liveGeneration = 0;
    bool m_liveFramed = false;
    QSet<QFutureWatcherBase*> m_liveWatchers;
};

} // namespace jitscope
