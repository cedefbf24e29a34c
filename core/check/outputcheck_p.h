#pragma once

// Private to check/: running trace 1 on a check input against the script function, and comparing outputs.

#include "check/check.h"
#include "trace/tracedprogram_p.h"

namespace jitscope {

/// Trace 1 (its recorded program) run on @p inputs against the script function; see OutputCheck.
OutputCheck checkTraceOutputs(const ModelInfo& model, const QString& function, TracedProgram& trace,
    const InputSet& inputs, const ExecOptions& options, double rtol, double atol);

/// A traced archive's own graph (its calls inlined, as FunctionInfo::graph) run on @p inputs: its outputs, or
/// where it failed (TraceFailure::node an id of FunctionInfo::graph, its operands as they were).
OutputCheck runTracedArchive(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options);

} // namespace jitscope
