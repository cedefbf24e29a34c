#pragma once

#include "bridge/pythonrun.h"
#include "check/check.h"
#include "diff/tracediff.h"

#include <QVector>

namespace jitscope {

/// A recorded torch.jit.trace call's traces compared as `check` compares JitScope's own: every trace diffed node
/// by node against the first (the example inputs), and every change explained from what Python-only code leaves
/// in a trace: the user's source lines and PyTorch's TracerWarnings (there is no script graph to read loops and
/// branches from).
struct PythonCheck
{
    int call = -1; ///< PythonRun::calls index
    QVector<TraceDiff> diffs; ///< trace k (k >= 1) against trace 0; changes carry their cause and source line
    bool consistent = true; ///< every trace records the same graph (PyTorch's outputs check aside)
};

/// Diffs and explains the traces of @p call (PythonCall::traces). @p source is the user's file text, used to name
/// the loop or branch a line is in ("for i in range(x.size(0)):"); empty to leave that out.
PythonCheck checkPythonCall(const PythonCall& call, const QString& source = {});

/// The one check of a recorded call, for every reader (the CLI's routes, the worker, tests): checkPythonCall()
/// made a report with pythonCheckReport().
CheckReport checkRecordedCall(const PythonRun& run, const PythonCall& call, const QString& source = {});

/// The kind of JitScope warning a Python warning is (TracerWarning texts as torch/jit/_trace.py and the tracer
/// write them: tensor-to-bool, len-of-tensor, nondeterministic-op, output-mismatch, ...).
WarningKind pythonWarningKind(const PythonWarning& warning);

/// A recorded trace call as the report `check` makes of JitScope's own traces, so that every view of a check (the
/// window's trace tabs, Compare and Warnings, the CLI's JUnit, Markdown and HTML reports) shows it: one TraceResult
/// per PythonCall::traces entry, @p check's diffs, the per-set output comparisons, the warnings at their nodes (the
/// first node recorded at the warning's line), PyTorch's own check failure as a warning, and the statuses.
/// CheckReport::script is the target's script graph when the file's function scripts, else empty.
CheckReport pythonCheckReport(const PythonRun& run, const PythonCall& call, const PythonCheck& check);

/// What the window asks of its engine for a Python run: the run read back from its record (result.json in
/// @p folder, PythonRun::folder), and each recorded call with traces made a CheckReport (checkPythonCall() with the
/// file's text @p source, then pythonCheckReport(), and every pair of traces, completePairDiffs()); a script call, or one without traces, an empty report. A record
/// that cannot be read gives one report with the error.
QVector<CheckReport> checkRecordedCalls(const QString& folder, const QString& source);

} // namespace jitscope
