// Lists of traced sizes: Python's torch.Size and lists hold 0-dim tensors where TorchScript's hold ints. Indexing,
// slicing, concatenating and changing them, and the builtins over them (max, min, sum), keep the elements' views.

// pythonsemantics_p.h needs these before it (it includes no libtorch header).
#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/ir.h>

#include "trace/pythonsemantics_p.h"

#include <algorithm>

namespace jitscope {
namespace pythonsemantics {

bool Semantics::listItem(tj::Node* n, Frame& frame)
{
    if (n->inputs().size() != 2)
        return false;
    const NotePtr listNote = frame.note(n->input(0));
    const PythonView& list = viewOf(listNote);
    if (!list.hasElemShadows() && !list.fromSize && !list.items)
        return false;
    m_interpreter.runPlain(n, frame);
    const int64_t index = frame.value(n->input(1)).toInt();
    int64_t idx = index;
    const int64_t size = int64_t(frame.value(n->input(0)).toListRef().size());
    if (idx < 0)
        idx += size;
    if (list.items) {
        if (idx >= 0 && size_t(idx) < list.items->size())
            frame.setNote(n->output(), list.items->at(size_t(idx)));
        return true;
    }
    EditView s(frame, n->output());
    if (idx >= 0 && size_t(idx) < list.elems.size())
        s->shadow = list.elems[size_t(idx)];
    s->fromSize = list.fromSize;
    s->origin = QStringLiteral("%1[%2]").arg(list.origin).arg(index);
    return true;
}

/// Python slices and concatenates torch.Size tuples: the traced elements travel along.
bool Semantics::sizeList(tj::Node* n, Frame& frame)
{
    if (n->outputs().size() != 1 || n->output(0)->type()->kind() != c10::TypeKind::ListType
        || n->input(0)->type()->kind() != c10::TypeKind::ListType)
        return false;
    const NotePtr aNote = frame.note(n->input(0));
    const PythonView& a = viewOf(aNote);
    const size_t aSize = frame.value(n->input(0)).toListRef().size();
    m_interpreter.runPlain(n, frame);
    const NotePtr bNote = n->kind() == c10::aten::add ? frame.note(n->input(1)) : NotePtr();
    const PythonView& b = viewOf(bNote);
    if (a.items || b.items) {
        // A list of lists: the inner lists' views travel along.
        std::vector<NotePtr> items = a.items ? *a.items : std::vector<NotePtr>();
        items.resize(aSize);
        if (n->kind() == c10::aten::slice) {
            const int64_t size = int64_t(items.size());
            auto bound = [&](const IValue& v, int64_t def) {
                if (v.isNone())
                    return def;
                const int64_t at = v.toInt();
                return std::clamp<int64_t>(at < 0 ? at + size : at, 0, size);
            };
            const int64_t step = n->inputs().size() > 3 ? frame.value(n->input(3)).toInt() : 1;
            std::vector<NotePtr> sliced;
            for (int64_t k = bound(frame.value(n->input(1)), 0); step > 0 && k < bound(frame.value(n->input(2)), size);
                 k += step)
                sliced.push_back(items[size_t(k)]);
            items = std::move(sliced);
        } else if (n->kind() == c10::aten::add) {
            std::vector<NotePtr> tail = b.items ? *b.items : std::vector<NotePtr>();
            tail.resize(frame.value(n->input(1)).toListRef().size());
            items.insert(items.end(), tail.begin(), tail.end());
        }
        auto out = std::make_shared<PythonView>();
        out->items = std::make_shared<std::vector<NotePtr>>(std::move(items));
        frame.setNote(n->output(), std::move(out));
        return true;
    }
    if (!a.hasElemShadows() && !(n->kind() == c10::aten::add && b.hasElemShadows()))
        return true;
    EditView out(frame, n->output());
    std::vector<at::Tensor> elems = a.elems;
    elems.resize(aSize);
    if (n->kind() == c10::aten::slice) {
        const int64_t size = int64_t(elems.size());
        auto bound = [&](const IValue& v, int64_t def) {
            if (v.isNone())
                return def;
            int64_t at = v.toInt();
            if (at < 0)
                at += size;
            return std::clamp<int64_t>(at, 0, size);
        };
        const int64_t step = n->inputs().size() > 3 ? frame.value(n->input(3)).toInt() : 1;
        const int64_t start = bound(frame.value(n->input(1)), 0);
        const int64_t end = bound(frame.value(n->input(2)), size);
        std::vector<at::Tensor> sliced;
        for (int64_t k = start; step > 0 && k < end; k += step)
            sliced.push_back(elems[size_t(k)]);
        out->elems = sliced;
    } else if (n->kind() == c10::aten::add) {
        std::vector<at::Tensor> tail = b.elems;
        tail.resize(frame.value(n->input(1)).toListRef().size());
        elems.insert(elems.end(), tail.begin(), tail.end());
        out->elems = elems;
    } else {
        out->elems = elems;
    }
    out->fromSize = true;
    return true;
}

/// Python's lists hold what was put in them: a traced size appended, assigned or inserted stays a traced 0-dim
/// tensor. TorchScript's list operators change the list in place (the same value before and after), so the list
/// value's view is changed with it; operators that reorder or remove elements keep the view in step.
bool Semantics::listMutation(tj::Node* n, Frame& frame)
{
    if (n->inputs().empty() || n->input(0)->type()->kind() != c10::TypeKind::ListType)
        return false;
    const tj::Value* list = n->input(0);
    const PythonView before = view(frame, list);
    std::vector<NotePtr> notes;
    std::vector<IValue> args;
    for (const tj::Value* in : n->inputs()) {
        notes.push_back(frame.note(in));
        args.push_back(frame.value(in));
    }
    const size_t oldSize = args[0].toListRef().size();
    bool carried = before.hasElemShadows() || before.items || before.fromSize || before.fromData;
    for (size_t i = 1; i < notes.size(); ++i) {
        const PythonView& in = viewOf(notes[i]);
        carried |= in.hasShadow() || in.hasElemShadows() || in.items || in.fromSize || in.fromData;
    }
    m_interpreter.runPlain(n, frame);
    if (!carried)
        return true;
    const c10::Symbol kind = n->kind();
    std::vector<at::Tensor> elems = before.elems;
    elems.resize(oldSize);
    // Lists of lists keep their inner lists' views (items) as lists of sizes keep their sizes' (elems).
    const bool nested = before.items || holdsNestedViews(n->inputs().slice(1), frame);
    std::vector<NotePtr> items = before.items ? *before.items : std::vector<NotePtr>();
    items.resize(oldSize);
    auto position = [&](size_t arg, size_t size) {
        int64_t at = args.size() > arg && args[arg].isInt() ? args[arg].toInt() : -1;
        if (at < 0)
            at += int64_t(size);
        return size_t(std::clamp<int64_t>(at, 0, int64_t(size)));
    };
    auto out = std::make_shared<PythonView>(before);
    if (kind == c10::aten::append && args.size() == 2) {
        elems.push_back(viewOf(notes[1]).shadow);
        items.push_back(notes[1]);
    } else if (kind == c10::aten::_set_item && args.size() == 3) {
        const size_t at = position(1, oldSize);
        if (at < elems.size()) {
            elems[at] = viewOf(notes[2]).shadow;
            items[at] = notes[2];
        }
    } else if (kind == c10::Symbol::aten("insert") && args.size() == 3) {
        const size_t at = position(1, oldSize);
        elems.insert(elems.begin() + long(at), viewOf(notes[2]).shadow);
        items.insert(items.begin() + long(at), notes[2]);
    } else if ((kind == c10::Symbol::aten("extend") || kind == c10::aten::add_) && args.size() == 2
        && args[1].isList()) {
        const PythonView& other = viewOf(notes[1]);
        std::vector<at::Tensor> tail = other.elems;
        tail.resize(args[1].toListRef().size());
        elems.insert(elems.end(), tail.begin(), tail.end());
        std::vector<NotePtr> tailItems = other.items ? *other.items : std::vector<NotePtr>();
        tailItems.resize(args[1].toListRef().size());
        items.insert(items.end(), tailItems.begin(), tailItems.end());
    } else if (kind == c10::Symbol::aten("pop") && oldSize > 0) {
        const size_t at = std::min(position(1, oldSize), oldSize - 1);
        NotePtr popped;
        if (nested) {
            popped = items[at];
        } else {
            auto element = std::make_shared<PythonView>();
            element->shadow = elems[at];
            element->fromSize = before.fromSize;
            element->fromData = before.fromData;
            element->origin = before.origin.isEmpty() ? QString() : QStringLiteral("%1[%2]").arg(before.origin).arg(at);
            popped = std::move(element);
        }
        elems.erase(elems.begin() + long(at));
        items.erase(items.begin() + long(at));
        if (n->outputs().size() == 1)
            frame.setNote(n->output(), std::move(popped));
    } else if (kind == c10::Symbol::aten("reverse")) {
        std::reverse(elems.begin(), elems.end());
        std::reverse(items.begin(), items.end());
    } else {
        elems.clear(); // reordered or removed: the elements' views are not followed
        items.clear();
    }
    bool anyItem = false;
    for (const auto& item : items)
        anyItem |= item != nullptr;
    out->items = nested && anyItem ? std::make_shared<std::vector<NotePtr>>(std::move(items)) : nullptr;
    for (size_t i = 1; i < notes.size(); ++i) {
        out->fromSize |= viewOf(notes[i]).fromSize;
        out->fromData |= viewOf(notes[i]).fromData;
    }
    bool anyShadow = false;
    for (const auto& e : elems)
        anyShadow |= e.defined();
    out->elems = anyShadow ? std::move(elems) : std::vector<at::Tensor>();
    frame.setNote(list, out);
    if (kind != c10::Symbol::aten("pop") && n->outputs().size() == 1
        && n->output()->type()->kind() == c10::TypeKind::ListType)
        frame.setNote(n->output(), out);
    return true;
}

/// Python's max(iterable) / min(iterable) keep the first item and take each later one that compares greater (less):
/// a comparison of traced sizes is a bool() of a tensor, and the item chosen is itself, still traced.
std::optional<std::vector<IValue>> Semantics::tracedListItems(tj::Node* n, Frame& frame, NotePtr* note)
{
    if (n->inputs().size() != 1 || n->input(0)->type()->kind() != c10::TypeKind::ListType)
        return std::nullopt;
    *note = frame.note(n->input(0));
    if (!viewOf(*note).hasElemShadows())
        return std::nullopt;
    std::vector<IValue> items = frame.value(n->input(0)).toListRef().vec();
    m_interpreter.runPlain(n, frame);
    return items;
}

bool Semantics::listMaxMin(tj::Node* n, Frame& frame)
{
    NotePtr note;
    const std::optional<std::vector<IValue>> listed = tracedListItems(n, frame, &note);
    if (!listed)
        return false;
    const std::vector<IValue>& items = *listed;
    const PythonView& list = viewOf(note);
    const bool max = n->kind() == c10::prim::max;
    auto traced = [&](size_t k) { return k < list.elems.size() && list.elems[k].defined(); };
    size_t chosen = 0;
    bool tensorCompare = false;
    for (size_t k = 1; k < items.size(); ++k) {
        tensorCompare |= traced(k) || traced(chosen);
        const double a = items[k].toScalar().to<double>();
        const double b = items[chosen].toScalar().to<double>();
        if (max ? a > b : a < b)
            chosen = k;
    }
    if (tensorCompare)
        m_warnings.addConversion(QStringLiteral("boolean"));
    EditView out(frame, n->output());
    if (traced(chosen))
        out->shadow = list.elems[chosen];
    out->fromSize = true;
    out->origin = QStringLiteral("%1(%2)").arg(max ? QStringLiteral("max") : QStringLiteral("min"),
        list.origin.isEmpty() ? QStringLiteral("...") : list.origin);
    return true;
}

/// Python's sum(iterable) adds the items to 0 one at a time: `0 + s0` is Tensor.__radd__, then tensor additions; a
/// sum of traced sizes stays traced.
bool Semantics::listSum(tj::Node* n, Frame& frame)
{
    NotePtr note;
    const std::optional<std::vector<IValue>> listed = tracedListItems(n, frame, &note);
    if (!listed)
        return false;
    const std::vector<IValue>& items = *listed;
    const PythonView& list = viewOf(note);
    IValue sum(int64_t(0));
    at::Tensor shadow;
    for (size_t k = 0; k < items.size(); ++k) {
        const at::Tensor item = k < list.elems.size() ? list.elems[k] : at::Tensor();
        if (shadow.defined() || item.defined())
            shadow = pythonNumberOp(c10::aten::add, sum, shadow, items[k], item, false);
        sum = sum.isInt() && items[k].isInt() ? IValue(sum.toInt() + items[k].toInt())
                                              : IValue(sum.toScalar().to<double>() + items[k].toScalar().to<double>());
    }
    EditView out(frame, n->output());
    out->shadow = shadow;
    out->fromSize = true;
    out->origin = QStringLiteral("sum(%1)").arg(list.origin.isEmpty() ? QStringLiteral("...") : list.origin);
    return true;
}

} // namespace pythonsemantics
} // namespace jitscope
