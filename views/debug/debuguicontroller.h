#pragma once

#include "report/debugpause.h"
#include "debugicons.h"

#include <QHash>
#include <QMap>
#include <QObject>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;
class QModelIndex;
class QPoint;
class QTabWidget;
class QToolBar;
class QTreeView;

namespace jitscope {

class CheckController;
class DebugController;
class DocumentController;
class FramesModel;
class GraphPage;
class InputSetsModel;
class LiveTraceTab;
class SourceView;
class ValuesModel;
class ValuesPanel;
struct TraceFailure;

/// The debugger's GUI: the Debug menu and toolbar, breakpoints (by line of the source panel), a DebugController
/// session on the current function and the first input set, the paused node marked in the script graph and the
/// source, the Frames and Values docks, and the Live trace tab. The check and a session exclude each other: a
/// session cancels a running check and runs it again when it ends (checkWanted()).
class DebugUiController : public QObject
{
    Q_OBJECT
public:
    struct Parts
    {
        QMainWindow* window = nullptr;
        QTabWidget* tabs = nullptr;
        GraphPage* script = nullptr;
        SourceView* source = nullptr;
        InputSetsModel* inputSets = nullptr;
    };
    DebugUiController(
        const Parts& parts, const DocumentController* document, CheckController* check, QObject* parent = nullptr);
    ~DebugUiController() override;

    /// Makes the Frames and Values docks (hidden until the first session).
    void createDocks();
    /// Fills the Debug menu and makes the Debug toolbar.
    void createActions(QMenu* menu);

    QAction* action(DebugAction action) const { return m_actions.value(int(action)); }
    DebugController* debugger() const { return m_debugger; }
    FramesModel* framesModel() const { return m_framesModel; }
    QTreeView* framesView() const { return m_framesView; }
    ValuesModel* valuesModel() const;
    QTreeView* valuesView() const;
    LiveTraceTab* liveTrace() const { return m_live; }

    /// See MainWindow::debugCommand().
    void command(DebugCommand command, int line = 0);
    /// Runs trace 1 of the check shown on input set @p set (0-based; -1: the first set it fails on) node by node, as
    /// torch.jit.trace's check runs it, and pauses before the node where it fails: the trace in its own tab with the
    /// node marked, its line in the source, the frame's values in Values, and above the trace the error and where
    /// each operand came from. False (and a status message) when the check shown has no such failure.
    bool debugTraceFailure(int set = -1);
    /// The input set (0-based) debugTraceFailure() debugs by default: the first one trace 1 fails on; -1 when none.
    int failingSet() const;
    /// Whether the check shown found trace 1 failing on input set @p set (0-based), where debugTraceFailure() goes.
    bool traceFailsOn(int set) const;
    /// For a check made elsewhere (a call the file's Python run recorded): trace 1 as PyTorch recorded it and the
    /// arguments of set @p set, saved where trace 1 failed on them, as a replay target; nullopt when none was saved.
    using SavedReplay = std::function<std::optional<DebugTarget>(int set)>;
    void setSavedReplay(SavedReplay provider) { m_savedReplay = std::move(provider); }
    void stop();
    void restart();
    bool isActive() const;
    /// Ends the session and forgets the breakpoints, the frames, the values and the live trace (another file).
    void reset();
    /// A check that comes with a relayout waits for the session: run it when the session ends.
    void deferCheck() { m_checkAfterDebug = true; }
    void dropDeferredCheck() { m_checkAfterDebug = false; }
    bool isCheckDeferred() const { return m_checkAfterDebug; }

    QMap<int, int> breakpoints() const { return m_breakpoints; }
    void setBreakpoint(int line, int iteration = -1);
    void removeBreakpoint(int line);
    void toggleBreakpoint(int line);
    /// The line Run to Line stops at: the source view's cursor line when it has focus, else the selected script node's
    /// line, else the cursor line (0: none).
    int runToCursorLine() const;
    /// Enables the actions for the current function and the session's state.
    void updateActions();
    /// Marks the paused node (and the breakpoints) again, after the script graph changed.
    void applyMarkers();

Q_SIGNALS:
    void paused();
    void finished();
    /// A check was canceled or deferred for the session: run it now that the session ended.
    void checkWanted();
    void statusMessage(const QString& text);

private:
    bool startSession();
    /// Starts @p target (the status bar says @p what), after the docks, values and markers are made ready.
    void startTarget(const DebugTarget& target, const QString& what);
    /// Replays: the check's description of the failure at @p pause's node (its error and operands' origins), if the
    /// check shown found it there.
    const TraceFailure* checkedFailure(const DebugPause& pause) const;
    QString replayHeader(const DebugPause& pause) const;
    void onPaused();
    void onFinished();
    void showPause(const DebugPause& pause);
    QString describePause(const DebugPause& pause) const;
    void clearMarkers();
    void applyBreakpoints();
    void editBreakpointCondition(int line);
    void runToLine(int line);
    int fileLineOf(int sourceLine) const;
    void onScriptNodeContextMenu(int nodeId, const QPoint& globalPos);
    void onFrameActivated(const QModelIndex& index);
    void showScriptTab();

    Parts m_parts;
    const DocumentController* m_document = nullptr;
    CheckController* m_check = nullptr;
    DebugController* m_debugger = nullptr;
    LiveTraceTab* m_live = nullptr;
    FramesModel* m_framesModel = nullptr;
    QTreeView* m_framesView = nullptr;
    ValuesPanel* m_values = nullptr;
    QDockWidget* m_framesDock = nullptr;
    QDockWidget* m_valuesDock = nullptr;
    QToolBar* m_toolBar = nullptr;
    QHash<int, QAction*> m_actions; ///< by DebugAction
    QMap<int, int> m_breakpoints; ///< source panel line -> iteration (-1: all)
    bool m_hasPendingCommand = false; ///< a command to apply at the new session's first pause
    DebugCommand m_pendingCommand = DebugCommand::StepInto;
    int m_pendingLine = 0;
    SavedReplay m_savedReplay;
    bool m_checkAfterDebug = false; ///< a check was canceled or deferred for the session: run it when it ends
};

} // namespace jitscope
