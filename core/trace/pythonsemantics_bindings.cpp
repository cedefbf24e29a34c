// Python functions in front of operators: what Tensor.to, Tensor.norm, Tensor.split, `number ** x` and the std/var
// bindings of torch 2.x call, where TorchScript compiles a call of another overload.

// pythonsemantics_p.h needs these before it (it includes no libtorch header).
#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/ir.h>

#include "trace/pythonsemantics_p.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/frontend/tracer.h>

namespace jitscope {
namespace pythonsemantics {

/// Python's Tensor.to(device): dispatch_to(self, device, dtype or self.dtype) with self's options.
bool Semantics::toDevice(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args)
{
    if (schema.overload_name() != "prim_Device" || args.size() != 5 || !args[0].isTensor() || args[1].isNone())
        return false;
    const at::Tensor self = args[0].toTensor();
    auto handle = c10::Dispatcher::singleton().findSchema({ "aten::to", "dtype_layout" });
    if (handle) {
        tj::Stack stack { args[0], args[2].isNone() ? IValue(int64_t(self.scalar_type())) : args[2],
            IValue(int64_t(self.layout())), args[1], IValue(), args[3], args[4], IValue() };
        handle->callBoxed(stack);
        Interpreter::storeOutputs(n, frame, stack);
        return true;
    }
    return false;
}

/// Python's Tensor.to(other): dispatch_to(self, other.device(), other.dtype(), ...), the other tensor's device and
/// dtype recorded as constants.
bool Semantics::toOther(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args)
{
    if (schema.overload_name() != "other" || args.size() != 5 || !args[0].isTensor() || !args[1].isTensor())
        return false;
    const at::Tensor other = args[1].toTensor();
    auto handle = c10::Dispatcher::singleton().findSchema({ "aten::to", "device" });
    if (handle) {
        tj::Stack stack { args[0], IValue(other.device()), IValue(int64_t(other.scalar_type())), args[2], args[3],
            args[4] };
        handle->callBoxed(stack);
        Interpreter::storeOutputs(n, frame, stack);
        return true;
    }
    return false;
}

/// `number ** x`: torch 2.x's Tensor.__rpow__ is torch.pow(number, x), pow.Scalar with the number as it is (1.13
/// made a tensor constant of it).
bool Semantics::numberPower(tj::Node* n, Frame& frame, const c10::FunctionSchema&, std::vector<IValue>& args)
{
    if (args.size() != 2 || !isIntLike(args[0]) || !args[1].isTensor())
        return false;
    frame.bind(n->output(), at::pow(args[0].toScalar(), args[1].toTensor()));
    return true;
}

/// Tensor.norm / torch.norm are Python functions (torch/functional.py): torch 2.x's call linalg.vector_norm(x, p,
/// dim or None, keepdim, dtype=None) for a number p, 2 for p left at "fro" (a defaulted p has no place in the
/// source; F.normalize's p=2.0 is written).
bool Semantics::vectorNorm(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args)
{
    if ((schema.overload_name() != "Scalar" && schema.overload_name() != "ScalarOpt_dim") || args.size() < 2
        || !args[0].isTensor())
        return false;
    const tj::Node* p = n->input(1)->node();
    const bool given = p->kind() != c10::prim::Constant || p->sourceRange().source() != nullptr
        || schema.overload_name() == "ScalarOpt_dim";
    const IValue order = !given ? IValue(int64_t(2)) : args[1].isNone() ? IValue(2.0) : args[1];
    auto handle = c10::Dispatcher::singleton().findSchema({ "aten::linalg_vector_norm", "" });
    if (handle) {
        tj::Stack stack { args[0], order, args.size() >= 4 ? args[2] : IValue(),
            args.size() >= 4 ? args[3] : IValue(false), IValue() };
        handle->callBoxed(stack);
        Interpreter::storeOutputs(n, frame, stack);
        return true;
    }
    return false;
}

/// torch 2.x's bindings list the correction overload first: `x.std()` and `torch.std(x)` record
/// std.correction(self, None, correction=None, keepdim=False); TorchScript compiles std(self, unbiased=True).
bool Semantics::correctionOverload(
    tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args)
{
    const std::string& name = schema.name();
    const std::string base = name.substr(name.find("::") + 2);
    if (!schema.overload_name().empty() || args.size() != 2 || !args[0].isTensor()
        || writtenArgumentCount(n, base.c_str()) != 1)
        return false;
    auto handle = c10::Dispatcher::singleton().findSchema({ name, "correction" });
    if (handle) {
        tj::Stack stack { args[0], IValue(), IValue(), IValue(false) };
        handle->callBoxed(stack);
        Interpreter::storeOutputs(n, frame, stack);
        return true;
    }
    return false;
}

/// Tensor.split (torch/_tensor.py) turns a split size that is a tensor (a traced size) into a Python int with
/// int(): the size is baked, with the conversion's warning. A list of sizes goes to split_with_sizes as it is.
bool Semantics::splitBySize(tj::Node* n, Frame& frame)
{
    if (n->inputs().size() < 2 || n->input(1)->type()->kind() != c10::TypeKind::IntType)
        return false;
    const NotePtr note = frame.note(n->input(1));
    const PythonView& size = viewOf(note);
    if (!size.hasShadow())
        return false;
    m_warnings.addConversion(QStringLiteral("integer"));
    auto baked = std::make_shared<PythonView>();
    baked->fromSize = size.fromSize;
    baked->fromData = size.fromData;
    baked->origin
        = size.origin.isEmpty() ? QStringLiteral("int(split_size)") : QStringLiteral("int(%1)").arg(size.origin);
    frame.setNote(n->input(1), std::move(baked));
    runTracedOperator(n, frame);
    frame.setNote(n->input(1), note);
    return true;
}

/// Tensor.split with a list of sizes: Python's binding calls split_with_sizes, and returns a tuple.
bool Semantics::splitWithSizes(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args)
{
    if (schema.arguments().size() <= 1 || schema.arguments()[1].type()->kind() != c10::TypeKind::ListType)
        return false;
    tj::Graph& traceGraph = *tj::tracer::getTracingState()->graph;
    tj::Node* insertPoint = traceGraph.insertPoint();
    tj::Node* before = insertPoint->prev();
    tj::Stack stack(args.begin(), args.end());
    auto handle = c10::Dispatcher::singleton().findSchema({ "aten::split_with_sizes", "" });
    if (!handle)
        throw std::runtime_error("no operator aten::split_with_sizes");
    handle->callBoxed(stack);
    Interpreter::storeOutputs(n, frame, stack);
    EditView(frame, n->output())->pythonTuple = true;
    patchShadowedArguments(n, frame, handle->schema(), insertPoint, before);
    return true;
}

} // namespace pythonsemantics
} // namespace jitscope
