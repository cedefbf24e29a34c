// Tensor construction: Python's torch.tensor / torch.as_tensor build their data with the tracer off and record
// only the conversion of that constant (internal_new_from_data).

// pythonsemantics_p.h needs these before it (it includes no libtorch header).
#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/ir.h>

#include "trace/pythonsemantics_p.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/frontend/tracer.h>

namespace jitscope {
namespace pythonsemantics {

bool Semantics::tensorFromData(tj::Node* n, Frame& frame, const c10::FunctionSchema&, std::vector<IValue>& args)
{
    const c10::Symbol kind = n->kind();
    // Python's torch.tensor/as_tensor (internal_new_from_data) builds the data with the tracer off, a
    // constant in the trace, then records its `to(device, dtype)`; torch.tensor also detaches it. Both warn.
    // For `x[i] = 0` TorchScript makes the value with aten::tensor too; Python's setitem makes it silently.
    // An explicit torch.tensor(...) is Python's own call whatever it feeds: evaluated first (the right-hand
    // side of an assignment, an index before the subscript), recorded, detached and warned.
    const PythonView& source = view(frame, n->input(0));
    if (kind == c10::aten::tensor && source.hasShadow() && args.size() >= 3) {
        // torch.tensor(width) of a traced size: internal_new_from_data copies the 0-dim tensor Python holds
        // (detach, then to(device, dtype, copy=True)) and torch.tensor detaches the copy; it warns twice.
        m_warnings.add(WarningKind::BakedConstant, warningMessage(WarningKind::BakedConstant, {}, 0),
            warningFix(WarningKind::BakedConstant, {}, 0));
        m_warnings.add(WarningKind::UserWarning,
            QStringLiteral(
                "To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() "
                "or sourceTensor.clone().detach().requires_grad_(True), rather than "
                "torch.tensor(sourceTensor)."),
            QString());
        auto to = c10::Dispatcher::singleton().findSchema({ "aten::to", "device" });
        auto detach = c10::Dispatcher::singleton().findSchema({ "aten::detach", "" });
        if (to && detach) {
            tj::Stack stack { source.shadow };
            detach->callBoxed(stack);
            const at::Tensor var = stack.back().toTensor();
            stack = { var, args[2].isNone() ? IValue(var.device()) : args[2],
                args[1].isNone() ? IValue(int64_t(var.scalar_type())) : args[1], IValue(false), IValue(true),
                IValue() };
            to->callBoxed(stack);
            detach->callBoxed(stack);
            Interpreter::storeOutputs(n, frame, stack);
            return true;
        }
    }
    const bool explicitCall = isTensorConstructorCall(n);
    bool setitem = false;
    bool indexList = false; // x[[0, 1]]: Python's indexing makes the index tensor, not torch.tensor
    for (const auto& use : n->output()->uses()) {
        setitem |= (use.user->kind() == c10::aten::copy_
                       || (use.user->kind() == c10::aten::index_put_ && use.offset == 2))
            && isIndexing(use.user);
        if (use.user->kind() == c10::prim::ListConstruct)
            for (const auto& listUse : use.user->output()->uses())
                indexList
                    |= (listUse.user->kind() == c10::aten::index || listUse.user->kind() == c10::aten::index_put_)
                    && isIndexing(listUse.user);
    }
    {
        auto resume = tj::tracer::pauseTracing();
        m_interpreter.runPlain(n, frame);
        resume();
    }
    if (explicitCall) {
        setitem = false;
        indexList = false;
    }
    if (setitem)
        return true;
    const bool ctor = kind == c10::aten::tensor && !indexList;
    if (!indexList)
        m_warnings.add(WarningKind::BakedConstant, warningMessage(WarningKind::BakedConstant, {}, 0),
            warningFix(WarningKind::BakedConstant, {}, 0));
    const at::Tensor data = frame.value(n->output()).toTensor();
    auto to = c10::Dispatcher::singleton().findSchema({ "aten::to", "device" });
    auto detach = c10::Dispatcher::singleton().findSchema({ "aten::detach", "" });
    if (!to || !detach)
        return true;
    tj::Stack stack { data, IValue(data.device()), IValue(int64_t(data.scalar_type())), IValue(false),
        IValue(false), IValue() };
    to->callBoxed(stack);
    if (ctor)
        detach->callBoxed(stack);
    Interpreter::storeOutputs(n, frame, stack);
    return true;
}

} // namespace pythonsemantics
} // namespace jitscope
