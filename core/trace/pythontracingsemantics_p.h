#pragma once

// Private to trace/: Python's tracing semantics as interpreter hooks.

#include "execute/interpreter_p.h"

#include <memory>
#include <string>
#include <unordered_map>

namespace at {
class Tensor;
} // namespace at

namespace c10 {
namespace ivalue {
struct Object;
} // namespace ivalue
} // namespace c10

namespace jitscope {

class TraceWarningSink;

/// What Python's torch.jit.trace records for the same code, where it differs from running the script graph:
/// Python's tracer sees a different program than TorchScript does. `x.size(0)` is a 0-dim tensor there (the
/// tracer records aten::size + prim::NumToTensor), arithmetic on it is tensor arithmetic, and ints handed to ops
/// are looked up through tracer::ArgumentStash. So next to every int that came from a size the semantics keep a
/// "shadow" (a note on the value): the tensor Python would hold. Python numbers in add/sub/mul/div become wrapped
/// 0-dim tensors, as Python's argument parser makes them, factories get their options filled in as Python's
/// bindings do, indexing is recorded as Python's `x[...]` records it, `for row in x` unbinds, `len(x)` and
/// tensor-to-Python conversions are baked (with their warnings).
///
/// Operators are dispatched by symbol through one table of rules (pythontracingsemantics.cpp: rulesOf(), the rules
/// in pythonsemantics_<family>.cpp); ops without an entry go through the generic path (numbers as tensors, the
/// argument parser's overloads, recorded arguments).
class PythonTracingSemantics : public InterpreterHooks
{
public:
    static std::unique_ptr<PythonTracingSemantics> create(Interpreter& interpreter, TraceWarningSink& warnings);

    /// Submodule objects to their trace scope names ("__module.layer1.0"), as torch.jit.trace_module names them.
    virtual void setModuleScopes(std::unordered_map<const c10::ivalue::Object*, std::string> scopes) = 0;
    /// The script variable a tensor was last bound to, for the names of the trace's values.
    virtual std::string nameFor(const at::Tensor& tensor) const = 0;
    /// What the Python function would have returned: traced sizes are tensors, TensorLists are tuples.
    virtual c10::IValue pythonValue(const c10::IValue& value, const NotePtr& note) const = 0;
};

} // namespace jitscope
