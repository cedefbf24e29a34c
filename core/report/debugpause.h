#pragma once

// A debug session's commands, breakpoints and pauses (with the frames, live values and trace so far), as values.

#include "report/inputset.h"
#include "report/irgraph.h"
#include "report/traceresult.h"

#include <QString>
#include <QVector>

#include <optional>

namespace jitscope {

/// How a paused run goes on: step over, into and out, next loop iteration, run to a line.
enum class DebugCommand { Continue, StepOver, StepInto, StepOut, NextIteration, RunToLine };


/// Where the run stands when paused (or finished).
struct DebugPause
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


struct DebugBreakpoint
{
    int line = 0;
    int iteration = -1; ///< break only in this (1-based) iteration of the innermost loop; -1 for all
};


/// What a session runs.
struct DebugTarget
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
    /// A replay whose run raises nothing but computes other values than the Python code (a divergence of kind
    /// value): it breaks before the stopAtOccurrence-th node (0-based) of kind stopAtKind among the replayed
    /// trace's top-level nodes, as before a failing node, with stopReason as the failure's text.
    QString stopAtKind;
    int stopAtOccurrence = -1;
    QString stopReason;
    /// Breaks before node @p node of trace 1 (@p trace1), found in the replayed trace by its kind and how many of that
    /// kind ran before it, with @p reason as the failure's text; nothing when @p node is none of its nodes.
    void stopBefore(const IrGraph& trace1, int node, const QString& reason)
    {
        if (node < 0 || node >= trace1.nodes.size())
            return;
        stopAtKind = trace1.node(node).kind;
        stopAtOccurrence = kindOccurrence(trace1, node);
        stopReason = reason;
    }
    bool isReplay() const { return recordedOn.has_value() || !archive.isEmpty(); }
};


} // namespace jitscope
