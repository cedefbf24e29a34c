// Shape queries: Python's tracer records them and hands out 0-dim tensors (`x.size(0)`, `x.shape`, `x.numel()`), or
// reads them as Python numbers it remembers the origin of (`len(x)`, `x.dim()`).

// pythonsemantics_p.h needs these before it (it includes no libtorch header).
#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/ir.h>

#include "trace/pythonsemantics_p.h"

#include <torch/csrc/jit/frontend/tracer.h>

namespace jitscope {
namespace pythonsemantics {

/// Sizes: Python's tracer records them and hands out 0-dim tensors.
bool Semantics::sizeOf(tj::Node* n, Frame& frame)
{
    if (n->inputs().size() == 2 && n->input(0)->type()->cast<c10::TensorType>()) {
        const at::Tensor self = frame.value(n->input(0)).toTensor();
        const int64_t dim = frame.value(n->input(1)).toInt();
        auto s = std::make_shared<PythonView>();
        s->shadow = tj::tracer::getSizeOf(self, dim);
        s->fromSize = true;
        s->origin = QStringLiteral("%1.size(%2)").arg(describe(n->input(0), frame)).arg(dim);
        frame.bind(n->output(), IValue(self.size(dim)), std::move(s));
        return true;
    }
    if (n->inputs().size() == 1) {
        const at::Tensor self = frame.value(n->input(0)).toTensor();
        auto s = std::make_shared<PythonView>();
        for (int64_t d = 0; d < self.dim(); ++d)
            s->elems.push_back(tj::tracer::getSizeOf(self, d));
        s->fromSize = true;
        s->origin = QStringLiteral("%1.shape").arg(describe(n->input(0), frame));
        frame.bind(n->output(), IValue(c10::List<int64_t>(self.sizes().vec())), std::move(s));
        return true;
    }
    return false;
}

/// A number back to a tensor (a traced archive's `ops.prim.NumToTensor(torch.size(x, 0))`): in Python the number
/// already was the traced 0-dim tensor the tracer handed out, so that tensor is the result. A fresh tensor would be
/// unknown to the trace, and baked as a constant wherever it is used.
bool Semantics::numToTensor(tj::Node* n, Frame& frame)
{
    const PythonView& s = view(frame, n->input(0));
    if (!s.hasShadow())
        return false;
    const at::Tensor shadow = s.shadow;
    frame.bind(n->output(), IValue(shadow));
    return true;
}

bool Semantics::numelOf(tj::Node* n, Frame& frame)
{
    if (n->inputs().size() != 1)
        return false;
    const at::Tensor self = frame.value(n->input(0)).toTensor();
    auto s = std::make_shared<PythonView>();
    s->shadow = tj::tracer::getNumelOf(self);
    s->fromSize = true;
    s->origin = QStringLiteral("%1.numel()").arg(describe(n->input(0), frame));
    frame.bind(n->output(), IValue(self.numel()), std::move(s));
    return true;
}

bool Semantics::lenOf(tj::Node* n, Frame& frame)
{
    m_interpreter.runPlain(n, frame);
    if (!n->input(0)->type()->cast<c10::TensorType>())
        return true;
    if (isIterationCount(n))
        return true;
    const QString name = describe(n->input(0), frame);
    {
        EditView s(frame, n->output());
        s->fromSize = true;
        s->origin = QStringLiteral("len(%1)").arg(name);
    }
    m_warnings.add(WarningKind::LenOfTensor, warningMessage(WarningKind::LenOfTensor),
        warningFix(WarningKind::LenOfTensor, { name, QString::number(frame.value(n->output()).toInt()) }));
    return true;
}

bool Semantics::dimOf(tj::Node* n, Frame& frame)
{
    m_interpreter.runPlain(n, frame);
    EditView s(frame, n->output());
    s->fromSize = true;
    s->origin = QStringLiteral("%1.dim()").arg(describe(n->input(0), frame));
    return true;
}

} // namespace pythonsemantics
} // namespace jitscope
