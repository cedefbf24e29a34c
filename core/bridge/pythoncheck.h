#pragma once

#include "bridge/runpython.h"
#include "check/check.h"
#include "diff/tracediff.h"

#include <QVector>

namespace jitscope {

/// The kind of JitScope warning a Python warning is (TracerWarning texts as torch/jit/_trace.py and the tracer
/// write them: tensor-to-bool, len-of-tensor, nondeterministic-op, output-mismatch, ...).
WarningKind pythonWarningKind(const PythonWarning& warning);

/// A recorded torch.jit.trace call checked as `check` checks JitScope's own traces, for every reader (the CLI's
/// routes, the worker, tests): an adapter that turns the call into CheckObservations for the one builder,
/// buildCheckReport(): one TraceResult per PythonCall::traces entry with its warnings at their nodes (the first node
/// recorded at the warning's line), the outputs PyTorch's check compared on each set or the node of trace 1 its
/// error names, where the values part ways, PyTorch's own verdict and words; the user's lines in @p source (the
/// file's text, empty to leave them out) and the call's changed attributes for the explainer. @p everyPair: fill
/// CheckReport::pairDiffs too. CheckReport::script is the target's script graph when the file's function scripts,
/// else empty.
CheckReport checkRecordedCall(
    const PythonRun& run, const PythonCall& call, const QString& source = {}, bool everyPair = false);

/// What the window asks of its engine for a Python run: the run read back from its record (result.json in
/// @p folder, PythonRun::folder), and each recorded call with traces made a CheckReport (checkRecordedCall() with
/// the file's text @p source, and every pair of traces); a script call, or one without traces,
/// an empty report. A record that cannot be read gives one report with the error.
QVector<CheckReport> checkRecordedCalls(const QString& folder, const QString& source);

} // namespace jitscope
