#pragma once

// Private to check/: running trace 1 on a check input against the script function, and comparing outputs.

#include "check/check.h"
#include "trace/tracedprogram_p.h"

namespace jitscope {

/// Trace 1 (its recorded program) run on @p inputs against the script function; see OutputCheck.
OutputCheck checkTraceOutputs(const ModelInfo& model, const QString& function, TracedProgram& trace,
    const InputSet& inputs, const ExecOptions& options, double rtol, double atol);

/// Where trace 1 (@p trace, recorded as @p traceGraph) and the script function part ways on @p inputs, a set on
/// which their outputs differ: both run again as checkTraceOutputs runs them, every node's values seen, trace nodes
/// matched to the script node executions that recorded them (provenance), and the first node of trace 1 whose value
/// the script never computes while its tensor operands agree, or that comes from code the script does not run on this
/// set (@p scriptGraph: its branches, and the place the script made its value), with the cause by kind (ValueDivergence::cause). Not
/// present when no node of trace 1 differs where the script computes the same node (a loop unrolled fewer times).
ValueDivergence findValueDivergence(const ModelInfo& model, const QString& function, TracedProgram& trace,
    const IrGraph& traceGraph, const IrGraph& scriptGraph, const InputSet& inputs, const ExecOptions& options,
    double rtol, double atol, const QHash<QString, QString>& moduleTypes);

/// A traced archive's own graph (its calls inlined, as FunctionInfo::graph) run on @p inputs: its outputs, or
/// where it failed (TraceFailure::node an id of FunctionInfo::graph, its operands as they were).
OutputCheck runTracedArchive(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options);

} // namespace jitscope
