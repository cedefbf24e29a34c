#pragma once

#include "execute/run.h"
#include "report/traceresult.h"

#include <QString>
#include <QVector>

#include <functional>

namespace jitscope {

/// Traces `function` of `model` on `inputs` as torch.jit.trace would. Thread-safe (runs of one model overlap);
/// never throws. With ExecOptions::observer, every NodeEvent's traceSoFar gives the trace recorded so far.
TraceResult traceFunction(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options = {});

/// What torch.jit.trace's check does with its first trace, node by node: traces `function` on @p recordedOn, runs
/// the recorded trace once quietly on @p runOn to find where it fails, calls @p ready with the trace and that
/// failure, then runs it again on @p runOn with ExecOptions::observer seeing the recorded trace's nodes
/// (NodeEvent::scriptNode is the node's id in TraceResult::graph, NodeEvent::traceSoFar the whole trace). Inputs
/// are made from ExecOptions::seed for each run, as the check makes them. @p recorded receives the trace; when
/// tracing fails the run is not made and the result says so. Never throws.
RunResult replayTrace(const ModelInfo& model, const QString& function, const InputSet& recordedOn,
    const InputSet& runOn, const ExecOptions& options, TraceResult* recorded,
    const std::function<void(const TraceResult&, const ReplayFailure&)>& ready = {});

/// replayTrace() of a trace PyTorch recorded: @p method of the archive torch.jit.save wrote to @p archive (its calls
/// inlined: TraceResult::graph numbers that flat graph) run on the arguments torch.save wrote to @p inputsFile.
RunResult replaySavedTrace(const QString& archive, const QString& method, const QString& inputsFile,
    const ExecOptions& options, TraceResult* recorded,
    const std::function<void(const TraceResult&, const ReplayFailure&)>& ready = {});

} // namespace jitscope
