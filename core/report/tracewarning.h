#pragma once

#include "report/irgraph.h"

#include <QString>
#include <QStringList>

namespace jitscope {

/// Every kind of diagnostic a trace or a check reports: PyTorch's TracerWarning kinds and JitScope's causal
/// ones. Its name, text, fix and severity are in one table (tracewarning.cpp).
enum class WarningKind {
    TensorToBool, ///< a traced tensor became a Python bool (a branch frozen)
    TensorToNumber, ///< a traced tensor became a Python number (baked in)
    TensorToIndex, ///< a traced tensor became a Python index
    LenOfTensor, ///< len(x) of a tensor, baked in
    IteratingTensor, ///< `for row in x`: the number of rows is baked in
    BakedConstant, ///< a value computed from a shape or from data recorded as a constant
    ShapeDependentLoop,
    DataDependentLoop,
    ShapeDependentBranch,
    DataDependentBranch,
    InPlaceOnInput,
    InPlaceOnView,
    NondeterministicOp,
    UserWarning, ///< warnings.warn in the program
    Tracer, ///< any other TracerWarning of libtorch
    RawTrace, ///< the tracer's cleanup passes failed: the raw recording is shown
    TraceFailed, ///< a check input could not be traced
    OutputMismatch, ///< trace 1 computes something else than the script function on a check input
    CheckFailed, ///< the check could not run at all (the first set could not be traced)
};

enum class WarningSeverity { Error, Warning };

/// The kind's name as the CLI prints it ("tensor-to-bool", "shape-dependent-loop", ...).
QString warningKindName(WarningKind kind);
/// The kind named @p name; false when there is none.
bool warningKindFromName(const QString& name, WarningKind* kind);
WarningSeverity warningSeverity(WarningKind kind);
/// The kind's message with %1, %2, ... filled from @p args in order. Some kinds have several texts
/// (@p variant): BakedConstant 0 is torch.tensor's, 1 a value baked into an argument.
QString warningMessage(WarningKind kind, const QStringList& args = {}, int variant = 0);
/// How to fix it, with %1, %2, ... filled from @p args. BakedConstant: 0 torch.tensor, 1 a value from data,
/// 2 a value from a shape.
QString warningFix(WarningKind kind, const QStringList& args = {}, int variant = 0);

/// A diagnostic about a trace: PyTorch's TracerWarning kinds and JitScope's causal ones.
struct TraceWarning
{
    WarningKind kind = WarningKind::Tracer;
    QString message;
    int traceIndex = 0; ///< which input set's trace
    int traceNode = -1; ///< node id in that trace graph, -1 if none
    int scriptNode = -1; ///< node id in the script graph
    SourceLocation location;
    QString suggestion; ///< how to fix it
    QString detail; ///< loops: the trip count ("x.size(0)"); branches: the condition; conversions: the value
    int count = -1; ///< loops: iterations run; branches: block taken (0 then, 1 else)
    /// Recorded Python calls: the stack Python raised it in, innermost first (location is the first), down to the
    /// user's line that led there; empty for JitScope's own traces.
    QVector<SourceLocation> stack;
    int occurrences = 1; ///< raised this many times at the same place with the same stack

    QString kindName() const { return warningKindName(kind); }
    WarningSeverity severity() const { return warningSeverity(kind); }
};

} // namespace jitscope
