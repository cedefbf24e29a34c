#pragma once

#include "report/debugpause.h"
#include "modelengine.h"

#include <QObject>

#include <memory>
#include <vector>

namespace jitscope {

/// The GUI thread's side of a DebugSession: starts one session at a time, turns its pauses (reported on the worker
/// thread) into signals on the GUI thread, and never waits for the worker. A stopped or replaced session keeps
/// running on its thread until it notices; it is deleted once it reports its end, and its pauses are dropped.
class DebugController : public QObject
{
    Q_OBJECT
public:
    enum class State {
        Idle, ///< no session yet
        Running, ///< executing (or waiting for the model, which a check may hold)
        Paused,
        Stopping, ///< stop() asked; waiting for the worker to end the run
        Finished, ///< the last session ended (see lastPause().result / trace)
    };
    Q_ENUM(State)

    explicit DebugController(QObject* parent = nullptr);
    /// Stops every session and waits for their threads (each ends at its next node).
    ~DebugController() override;

    /// Starts @p function of @p model on @p inputs in @p engine, paused before the first node; a session still
    /// running is stopped first and forgotten. In the model worker a crash ends the session with an error, not the
    /// window.
    void start(const ModelEngineRef& engine, const EngineModelRef& model, const QString& function,
        const InputSet& inputs, bool tracing)
    {
        start(engine, model, DebugTarget { function, inputs, tracing, std::nullopt });
    }
    /// The same for any target: a replay runs trace 1 (recorded on its `recordedOn`) on `inputs`.
    void start(const ModelEngineRef& engine, const EngineModelRef& model, const DebugTarget& target);
    /// Resumes the paused session; ignored unless paused.
    void resume(DebugCommand command, int line = 0);
    /// Ends the session at its next node, even inside an endless loop; finished() follows.
    void stop();
    /// Replaces the breakpoints, also of a running session.
    void setBreakpoints(const QVector<DebugBreakpoint>& breakpoints);
    QVector<DebugBreakpoint> breakpoints() const { return m_breakpoints; }

    State state() const { return m_state; }
    bool isActive() const
    {
        return m_state == State::Running || m_state == State::Paused || m_state == State::Stopping;
    }
    bool isPaused() const { return m_state == State::Paused; }
    /// The last pause (or the end) of the current session.
    const DebugPause& lastPause() const { return m_pause; }
    /// Pauses reported by the current session so far (not counting its end).
    int pauseCount() const { return m_pauseCount; }
    QString function() const { return m_target.function; }
    bool isTracing() const { return m_target.tracing; }
    const InputSet& inputs() const { return m_target.inputs; }
    /// The session runs trace 1 on another set (DebugTarget::recordedOn), not the function itself.
    bool isReplay() const { return m_target.isReplay(); }
    const DebugTarget& target() const { return m_target; }
    /// True when the current session ended because stop() was called.
    bool wasStopped() const { return m_stopRequested; }

Q_SIGNALS:
    void started();
    /// The session paused; see lastPause().
    void paused();
    /// The session ended (returned, failed or stopped); see lastPause().
    void finished();
    void stateChanged(jitscope::DebugController::State state);

private:
    void onPause(int id, const DebugPause& pause);
    void setState(State state);

    struct Entry
    {
        int id = 0;
        std::unique_ptr<DebugBackend> session;
    };
    Entry m_current;
    std::vector<Entry> m_retired; ///< stopped sessions whose threads have not ended yet
    int m_nextId = 1;
    State m_state = State::Idle;
    DebugPause m_pause;
    int m_pauseCount = 0;
    DebugTarget m_target;
    bool m_stopRequested = false;
    QVector<DebugBreakpoint> m_breakpoints;
};

} // namespace jitscope
