// Subscripts: Python's `x[...]` and `x[...] = v` (applySlicing, setitem) record positive dims, explicit bounds, a
// 0-dim index tensor as an int, and write results back into a view they take again, where TorchScript's compiled
// subscript differs.

// pythonsemantics_p.h needs these before it (it includes no libtorch header).
#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/ir.h>

#include "trace/pythonsemantics_p.h"

#include <torch/csrc/jit/frontend/tracer.h>

#include <limits>

namespace jitscope {
namespace pythonsemantics {

namespace {

/// An index list (Tensor?[]) whose entries before the last are all None: `x[..., i]` written as `x[:, i]`.
bool onlyNonesBefore(c10::ArrayRef<IValue> indices)
{
    for (size_t k = 0; k + 1 < indices.size(); ++k)
        if (!indices[k].isNone())
            return false;
    return true;
}

} // namespace

bool Semantics::subscriptCopy(tj::Node* n, Frame& frame, const c10::FunctionSchema&, std::vector<IValue>& args)
{
    if (!isIndexing(n) || args.size() < 2 || !args[0].isTensor() || !args[1].isTensor())
        return false;
    at::Tensor dst = args[0].toTensor();
    pythonCopyTo(dst, args[1].toTensor());
    frame.bind(n->output(), dst);
    return true;
}

/// Python's applySlicing takes a 0-dim integer tensor index as an integer while tracing: a select whose index is
/// aten::Int of the tensor (recordSelectTrace), so the trace stays dynamic. `x[:, i]` indexes dim 1.
bool Semantics::indexByNumberTensor(tj::Node* n, Frame& frame, const c10::FunctionSchema&, std::vector<IValue>& args)
{
    if (!isIndexing(n) || args.size() < 2 || !args[0].isTensor() || !args[1].isList()
        || args[1].toListRef().empty() || !args[1].toListRef().back().isTensor()
        || !onlyNonesBefore(args[1].toListRef()))
        return false;
    const c10::Symbol kind = n->kind();
    const int64_t dim = int64_t(args[1].toListRef().size()) - 1;
    const at::Tensor index = args[1].toListRef().back().toTensor();
    if (index.dim() == 0 && at::isIntegralType(index.scalar_type(), /*includeBool=*/false)
        && index.scalar_type() != at::kByte) {
        at::Tensor self = args[0].toTensor();
        at::Tensor selected = at::select(self, dim, index.item<int64_t>());
        tj::Node* recorded = tj::tracer::getValueTrace(selected)->node();
        tj::Value* traced = tj::tracer::getValueTrace(index);
        {
            tj::WithInsertPoint guard(traced->node()->next());
            recorded->replaceInput(2, traced->owningGraph()->insert(c10::aten::Int, { traced }));
        }
        if (kind == c10::aten::index) {
            frame.bind(n->output(), selected);
        } else {
            pythonCopyTo(selected, args[2].toTensor());
            frame.bind(n->output(), self);
        }
        return true;
    }
    return false;
}

/// `x[1:2, t] += u`: TorchScript puts the result back into the view it read from; Python's setitem slices x again
/// (applySlicing), then puts.
bool Semantics::augmentedIndexPut(tj::Node* n, Frame& frame, const c10::FunctionSchema&, std::vector<IValue>& args)
{
    if (isIndexing(n) && args.size() >= 3 && args[0].isTensor() && isAugmentedSubscript(n))
        args[0] = pythonSubscriptView(n->input(0), n, frame, args[0].toTensor());
    return false;
}

/// Python's setitem views the value without its leading size-1 dims before index_put_.
bool Semantics::indexPutValue(tj::Node* n, Frame&, const c10::FunctionSchema&, std::vector<IValue>& args)
{
    if (!isIndexing(n) || args.size() < 3 || !args[2].isTensor())
        return false;
    const at::Tensor value = args[2].toTensor();
    std::vector<int64_t> sizes = value.sizes().vec();
    size_t first = 0;
    while (first < sizes.size() && sizes[first] == 1)
        ++first;
    if (first > 0)
        args[2] = value.view(std::vector<int64_t>(sizes.begin() + long(first), sizes.end()));
    return false;
}

/// x[..., None]: Python's applySlicing unsqueezes at a positive dim.
bool Semantics::unsqueezeIndex(tj::Node* n, Frame&, const c10::FunctionSchema&, std::vector<IValue>& args)
{
    if (isIndexing(n) && args.size() == 2 && args[0].isTensor() && args[1].isInt() && args[1].toInt() < 0)
        args[1] = IValue(args[1].toInt() + args[0].toTensor().dim() + 1);
    return false;
}

/// Python's indexing (applySlicing) records positive dims and explicit slice bounds.
bool Semantics::sliceOrSelectIndex(tj::Node* n, Frame&, const c10::FunctionSchema&, std::vector<IValue>& args)
{
    if (!isIndexing(n) || args.size() < 2 || !args[0].isTensor() || !args[1].isInt())
        return false;
    const int64_t rank = args[0].toTensor().dim();
    if (args[1].toInt() < 0)
        args[1] = IValue(args[1].toInt() + rank);
    if (n->kind() == c10::aten::slice && args.size() == 5) {
        if (args[2].isNone())
            args[2] = IValue(int64_t(0));
        if (args[3].isNone())
            args[3] = IValue(std::numeric_limits<int64_t>::max());
    }
    return false;
}

/// After an in-place op on a subscript (`x[i] += v`), Python's `x[i] = result`: into the view taken again.
void Semantics::restoreAugmentedSubscript(tj::Node* n, Frame& frame)
{
    const at::Tensor& result = frame.value(n->output()).toTensor();
    const tj::Value* v = n->input(0);
    if (!sameStart(v->node(), n) || (v->node()->kind() != c10::aten::slice && v->node()->kind() != c10::aten::select))
        return;
    at::Tensor view = pythonSubscriptView(v, n, frame, at::Tensor());
    pythonCopyTo(view, result);
}

/// The view @p v of a subscript's slices and selects on the same line as @p n, taken again from the tensor they
/// start from as Python's setitem takes it (recorded); @p fallback when @p v is no such chain.
at::Tensor Semantics::pythonSubscriptView(
    const tj::Value* v, const tj::Node* n, Frame& frame, const at::Tensor& fallback)
{
    std::vector<const tj::Node*> chain;
    while (
        sameStart(v->node(), n) && (v->node()->kind() == c10::aten::slice || v->node()->kind() == c10::aten::select)) {
        chain.insert(chain.begin(), v->node());
        v = v->node()->input(0);
    }
    if (chain.empty())
        return fallback;
    at::Tensor view = frame.value(v).toTensor();
    for (const tj::Node* c : chain) {
        const int64_t rank = view.dim();
        int64_t dim = frame.value(c->input(1)).toInt();
        if (dim < 0)
            dim += rank;
        if (c->kind() == c10::aten::select) {
            view = at::select(view, dim, frame.value(c->input(2)).toInt());
        } else {
            const IValue start = frame.value(c->input(2)), end = frame.value(c->input(3));
            view = at::slice(view, dim, start.isNone() ? 0 : start.toInt(),
                end.isNone() ? std::numeric_limits<int64_t>::max() : end.toInt(), frame.value(c->input(4)).toInt());
        }
    }
    return view;
}

} // namespace pythonsemantics
} // namespace jitscope
