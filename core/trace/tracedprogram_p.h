#pragma once

// Private to core: a recorded trace kept runnable, for the check's output comparison. It never leaves core (no
// result carries one). Torch types only forward-declared.

#include "execute/interpreter_p.h"
#include "trace/trace.h"

#include <functional>

#include <memory>
#include <vector>

namespace c10 {
struct IValue;
} // namespace c10

namespace jitscope {

/// The recorded graph and, for a module, the TracedModule it runs on.
struct TracedProgram;

/// traceFunction, keeping the recorded program in @p program (null when the trace failed or is a raw recording).
TraceResult traceFunction(const ModelInfo& model, const QString& function, const InputSet& inputs,
    const ExecOptions& options, std::shared_ptr<TracedProgram>* program);

/// The node a run of a recorded trace failed at.
struct FailedNode
{
    int node = -1; ///< its id in the trace's IrGraph (the snapshot's depth-first numbering)
    QStringList operands; ///< each input's value as it was (ValueSummary text), by position
};

/// Runs a recorded trace on @p inputs (flattened as the tracer recorded them); throws on failure, and then fills
/// @p failed (when given) with the node that failed. @p addHooks, when given, is called with the run's interpreter
/// before it runs, to add the caller's hooks; the interpreter's scriptId() of a node is then its id in the trace's
/// IrGraph.
std::vector<c10::IValue> runTracedProgram(TracedProgram& program, std::vector<c10::IValue> inputs,
    const ExecOptions& options, FailedNode* failed = nullptr,
    const std::function<void(Interpreter&)>& addHooks = {});

} // namespace jitscope
