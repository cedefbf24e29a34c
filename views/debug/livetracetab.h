#pragma once

#include "report/irgraph.h"
#include "jobtracker.h"
#include "report/graphlayout.h"
#include "modelengine.h"

#include <QHash>
#include <QObject>

class QLabel;
class QTabWidget;

namespace jitscope {

class GraphPage;
struct LiveTraceJob;

/// The Live trace tab of a debug session with tracing on: the trace recorded so far (Pause::traceSoFar) laid out
/// off the GUI thread at each pause, the nodes recorded since the last pause marked, the final trace when the run
/// returns. Only the newest snapshot is shown.
class LiveTraceTab : public QObject
{
    Q_OBJECT
public:
    explicit LiveTraceTab(QTabWidget* tabs, QObject* parent = nullptr);

    /// The tab's page, nullptr while there is no tab.
    GraphPage* page() const { return m_page; }
    /// The trace the tab shows (once laid out).
    const IrGraph& graph() const { return m_shown; }
    /// Adds the tab (second, after Script) unless it is there, and empties it for a new session.
    void begin();
    /// The same for a replay of a recorded trace (DebugTarget::recordedOn): the tab, titled @p title,
    /// shows that one trace (update() once), the node the session is paused at marked (setExecution()).
    void beginReplay(const QString& title, const QString& toolTip);
    bool isReplay() const { return m_replay; }
    /// Replays: marks @p node (its id in the trace; -1: none), centres on it, and shows @p header (rich text) above
    /// the graph.
    void setExecution(int node, const QString& header);
    /// The node marked by setExecution() (its id in the trace), -1 when none.
    int executionNode() const { return m_execution; }
    QString headerText() const;
    void remove();
    /// Lays out @p snapshot (it carries each node's script node) off the GUI thread and shows it; @p final: the
    /// finished trace.
    /// Lays @p snapshot out in @p engine (the window's: the model worker, where Graphviz runs).
    void update(const IrGraph& snapshot, const LayoutOptions& options, bool final, const ModelEngineRef& engine);
    /// The session ended without a trace: an error, or stopped (the last snapshot stays).
    void showFailed(const QString& error);
    void showStopped();

Q_SIGNALS:
    void nodeSelected(int nodeId);
    /// The tab's page was made; the window follows its zoom.
    void pageAdded(GraphPage* page);
    /// A new snapshot replaced the graph (before the label says what is new).
    void graphReplaced();
    /// A newly laid-out trace is shown.
    void shown();

private:
    void onLaidOut(const LiveTraceJob& job);

    QTabWidget* m_tabs = nullptr;
    GraphPage* m_page = nullptr;
    QLabel* m_label = nullptr;
    JobTracker<LiveTraceJob>* m_jobs = nullptr;
    IrGraph m_shown; ///< the graph the tab shows
    QHash<QString, int> m_keys; ///< node keys of the last trace shown, to mark the new ones
    bool m_framed = false;
    bool m_replay = false;
    int m_execution = -1;
    QString m_header; ///< replays: what the label says
};

} // namespace jitscope
