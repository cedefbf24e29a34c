#pragma once

#include "execute/executor.h"
#include "diff/tracediff.h"

#include <QVector>

namespace jitscope {

struct CheckOptions
{
    double rtol = 1e-5; ///< as torch.jit.trace's check_tolerance
    double atol = 1e-5;
    ExecOptions exec;
};

/// torch.jit.trace with check_inputs, made explicit: one trace per input set, every trace diffed against the
/// first, the first trace run on every other set against the script function, and every divergence explained.
struct CheckReport
{
    bool ok = false; ///< false: a fatal error (the first set could not be traced)
    Diagnostic error;
    QString file;
    QString function;
    IrGraph script; ///< the script graph the traces came from
    QVector<TraceResult> traces; ///< one per input set, in order
    QVector<TraceDiff> diffs; ///< trace k (k >= 1) against trace 0
    QVector<OutputCheck> outputs; ///< trace 0 run on set k (k >= 1) against the script function
    QVector<TraceWarning> warnings; ///< from every trace (traceIndex set) and from the checks
    bool consistent = true;

    QString verdict() const { return consistent ? QStringLiteral("consistent") : QStringLiteral("diverged"); }
};

/// Never throws; long runs honour options.exec.cancel and timeoutMs.
CheckReport checkFunction(
    const ModelInfo& model, const QString& function, const QVector<InputSet>& sets, const CheckOptions& options = {});

/// Fills NodeChange::cause and location for every change of `diff`, from the traces' provenance, their
/// warnings and the script graph.
void explainChanges(TraceDiff& diff, const TraceResult& base, const TraceResult& other, const IrGraph& script);

} // namespace jitscope
