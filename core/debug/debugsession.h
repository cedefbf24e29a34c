#pragma once

#include "report/debugpause.h"
#include "trace/trace.h"

#include <QVector>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace jitscope {

/// Runs a function on a worker thread and pauses it between nodes, like a debugger: step over, into and out,
/// next loop iteration, run to a line, breakpoints on source lines, stop. With tracing on, the trace grows as
/// it runs and each pause shows the trace so far. Driven from any thread; never blocks the caller except in
/// waitForPause().
class DebugSession
{
public:
    using Command = DebugCommand;
    using Pause = DebugPause;
    using Breakpoint = DebugBreakpoint;
    using Target = DebugTarget;

    DebugSession(ModelInfo model, Target target, ExecOptions options = {});
    DebugSession(ModelInfo model, QString function, InputSet inputs, bool tracing, ExecOptions options = {});
    ~DebugSession();

    /// Starts the run, paused before the first node.
    void start();
    void setBreakpoints(QVector<Breakpoint> breakpoints);
    /// Resumes a paused run with a command; `line` is for RunToLine.
    void resume(Command command, int line = 0);
    /// Ends the run at the next node, even inside a `while True:` loop.
    void stop();

    /// Called on the worker thread at each pause and at the end (for GUIs: forward it to the GUI thread).
    void setPauseCallback(std::function<void(const Pause&)> callback);
    /// Blocks until the run pauses or finishes after pause number `afterSerial`; nullopt on timeout.
    std::optional<Pause> waitForPause(int afterSerial, int timeoutMs);
    bool isFinished() const;

private:
    void run();
    void onEvent(const NodeEvent& e);
    bool shouldPause(const NodeEvent& e);

    ModelInfo m_model;
    Target m_target;
    ExecOptions m_options;
    // Replays: the recorded trace (for the places of its nodes) and where it fails, known before its first node runs.
    IrGraph m_replayed;
    ReplayFailure m_failure;
    std::atomic<bool> m_cancel { false };

    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::thread m_thread;
    Pause m_pause; ///< last published pause
    bool m_running = false; ///< the worker is executing (not paused)
    Command m_command = Command::StepInto;
    int m_targetLine = 0;
    NodeEvent m_from; ///< the event the last command was given at
    QVector<Breakpoint> m_breakpoints;
    QString m_lastBreakKey;
    std::function<void(const Pause&)> m_callback;
};

} // namespace jitscope
