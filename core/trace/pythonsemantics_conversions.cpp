// Tensors to Python values (bool(), int(), float(), item() and the conversions TorchScript's schema matching
// inserts): baked as constants by Python's tracer, with its warning, unless Python would have passed the tensor on.

// pythonsemantics_p.h needs these before it (it includes no libtorch header).
#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/ir.h>

#include "trace/pythonsemantics_p.h"

#include <torch/csrc/jit/frontend/tracer.h>

namespace jitscope {
namespace pythonsemantics {

namespace {

/// A conversion TorchScript's schema matching inserted whose result only goes to operators' arguments: Python
/// passes the tensor there.
bool passesTensorToOperator(const tj::Node* n)
{
    if (n->output()->uses().empty())
        return false;
    for (const auto& use : n->output()->uses()) {
        const tj::Node* user = use.user;
        if (user->kind() == c10::prim::ListConstruct) {
            for (const auto& listUse : user->output()->uses())
                if (!listUse.user->maybeOperator() || isNumberOp(listUse.user->kind()))
                    return false;
            continue;
        }
        bool tensorOperand = false;
        for (const tj::Value* in : user->inputs())
            tensorOperand |= in != n->output() && in->type()->cast<c10::TensorType>() != nullptr;
        if (!user->maybeOperator() || (isNumberOp(user->kind()) && !tensorOperand) || user->kind().is_prim())
            return false;
    }
    return true;
}

/// Every use of @p n's output is an element of an int list that goes to an operator: `torch.zeros(t)`.
bool feedsIntLists(const tj::Node* n)
{
    if (n->output()->uses().empty())
        return false;
    for (const auto& use : n->output()->uses()) {
        const tj::Node* list = use.user;
        if (list->kind() != c10::prim::ListConstruct || !list->output()->type()->isSubtypeOf(*c10::ListType::ofInts()))
            return false;
        for (const auto& listUse : list->output()->uses())
            if (!listUse.user->maybeOperator() || listUse.user->kind().is_prim())
                return false;
    }
    return true;
}

} // namespace

/// Tensor to Python value conversions: baked as constants by Python's tracer.
bool Semantics::toPython(tj::Node* n, Frame& frame)
{
    if (!n->input(0)->type()->cast<c10::TensorType>())
        return false;
    const c10::Symbol kind = n->kind();
    if (kind == c10::aten::IntImplicit && feedsIntLists(n)) {
        const at::Tensor t = frame.value(n->input(0)).toTensor();
        if (t.dim() > 0 && t.numel() == 1) {
            // An int list's elements: Python's argument parser takes any one-element tensor there while tracing,
            // reads it with item() and records aten::Int of it (ArgumentStash::stashIntArrayRefElem).
            int64_t number = 0;
            {
                auto resume = tj::tracer::pauseTracing();
                number = t.item<int64_t>();
                resume();
            }
            auto s = std::make_shared<PythonView>();
            s->shadow = t;
            s->origin = describe(n->input(0), frame);
            frame.bind(n->output(), IValue(number), std::move(s));
            return true;
        }
    }
    if ((kind == c10::aten::IntImplicit || kind == c10::aten::FloatImplicit || kind == c10::aten::ScalarImplicit)
        && passesTensorToOperator(n)) {
        // Python hands the tensor itself to the op; its argument parser records the conversion (ArgumentStash),
        // so the trace stays dynamic and nothing is baked.
        m_interpreter.runPlain(n, frame);
        EditView s(frame, n->output());
        s->shadow = frame.value(n->input(0)).toTensor();
        s->origin = describe(n->input(0), frame);
        return true;
    }
    m_interpreter.runPlain(n, frame);
    {
        EditView s(frame, n->output());
        s->fromData = true;
        s->origin = describe(n->input(0), frame);
    }
    m_warnings.addConversion(kind == c10::aten::Bool ? QStringLiteral("boolean")
            : kind == c10::aten::Int                 ? QStringLiteral("integer")
            : kind == c10::aten::Float               ? QStringLiteral("float")
                                                     : QStringLiteral("number"));
    return true;
}

} // namespace pythonsemantics
} // namespace jitscope
