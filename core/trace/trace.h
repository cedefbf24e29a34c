#pragma once

#include "execute/run.h"
#include "trace/tracewarning.h"

#include <QString>
#include <QVector>

namespace jitscope {

/// What torch.jit.trace records for one input set. A value: nothing in it refers to live torch state.
struct TraceResult
{
    bool ok = false;
    Diagnostic error;
    InputSet inputs;
    IrGraph graph; ///< what torch.jit.trace records; each node with the script node and loop iterations behind it
    QVector<TraceWarning> warnings;
    QVector<ValueSummary> outputs;
    QString note; ///< e.g. "cleanup passes failed: raw recorded graph"
};

/// Traces `function` of `model` on `inputs` as torch.jit.trace would. Thread-safe (runs of one model overlap);
/// never throws. With ExecOptions::observer, every NodeEvent's traceSoFar gives the trace recorded so far.
TraceResult traceFunction(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options = {});

} // namespace jitscope
