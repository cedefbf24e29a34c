#pragma once

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
    enum class Command { Continue, StepOver, StepInto, StepOut, NextIteration, RunToLine };

    /// Where the run stands when paused (or finished).
    struct Pause
    {
        int serial = 0; ///< increases with every pause
        bool finished = false; ///< the run ended (see result / trace)
        NodeEvent event; ///< the node about to run
        QVector<NamedValue> values; ///< live named values of the paused frame
        /// With tracing: what has been recorded up to here, each node with its script node and loop iterations
        /// (IrNode::originNode, loopPath), as in a finished trace.
        IrGraph traceSoFar;
        bool atBreakpoint = false;
        /// Replays: paused before the node where the recorded trace fails on this set (the error in `failure`).
        bool atFailure = false;
        /// Replays: the error the recorded trace raises on this set, and its node (-1: it does not fail). Known
        /// from the first pause on.
        QString failure;
        int failureNode = -1;
        RunResult result; ///< when finished without tracing (and for replays)
        TraceResult trace; ///< when finished with tracing
    };

    struct Breakpoint
    {
        int line = 0;
        int iteration = -1; ///< break only in this (1-based) iteration of the innermost loop; -1 for all
    };

    /// What a session runs.
    struct Target
    {
        QString function;
        InputSet inputs; ///< the input set it runs on
        bool tracing = false; ///< record the trace as it runs (Pause::traceSoFar grows)
        /// Replays of torch.jit.trace's check: the set trace 1 is recorded on. The session then runs that recorded
        /// trace on `inputs` node by node (NodeEvent::scriptNode: the trace's node, Pause::traceSoFar: the whole
        /// trace) and breaks before the node where it fails (Pause::atFailure). Unset: runs the function itself.
        std::optional<InputSet> recordedOn;
        /// Replays of a trace PyTorch recorded (the Python bridge saved it where trace 1 failed): `method` of this
        /// archive, calls inlined, run on the arguments torch.save wrote to `inputsFile` (`inputs` then only names
        /// the set). The model the session is given is not used.
        QString archive;
        QString method = QStringLiteral("forward");
        QString inputsFile;
        bool isReplay() const { return recordedOn.has_value() || !archive.isEmpty(); }
    };

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
