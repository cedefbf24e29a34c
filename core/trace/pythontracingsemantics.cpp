// Python's tracing semantics as interpreter hooks (see pythontracingsemantics_p.h): the hooks, the containers and
// control flow, and the one table of operator rules. The rules live in pythonsemantics_<family>.cpp.

// pythonsemantics_p.h needs these before it (it includes no libtorch header).
#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/ir.h>

#include "trace/pythonsemantics_p.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/ir/constants.h>

#include <cstring>
#include <limits>

namespace jitscope {
namespace pythonsemantics {

std::string Semantics::nameFor(const at::Tensor& t) const
{
    auto it = m_names.find(t.unsafeGetTensorImpl());
    return it == m_names.end() ? std::string() : it->second;
}

IValue Semantics::pythonValue(const IValue& value, const NotePtr& note) const
{
    const PythonView& s = viewOf(note);
    if (s.hasShadow())
        return s.shadow;
    if (s.items && value.isTuple()) {
        const auto elems = value.toTupleRef().elements().vec();
        std::vector<IValue> values;
        for (size_t i = 0; i < s.items->size(); ++i)
            values.push_back(pythonValue(elems.at(i), s.items->at(i)));
        return c10::ivalue::Tuple::create(std::move(values));
    }
    if (s.pythonTuple && value.isList())
        return c10::ivalue::Tuple::create(value.toListRef().vec());
    if (s.hasElemShadows() && value.isList()) {
        std::vector<IValue> values;
        const auto list = value.toListRef();
        for (size_t i = 0; i < list.size(); ++i)
            values.push_back(i < s.elems.size() && s.elems[i].defined() ? IValue(s.elems[i]) : list[i]);
        return c10::ivalue::Tuple::create(std::move(values));
    }
    return value;
}

// ----- hooks

void Semantics::bound(const tj::Value* v, const IValue& value)
{
    if (value.isTensor() && v->hasDebugName()) {
        const at::Tensor& t = value.toTensor();
        if (t.defined())
            m_names[t.unsafeGetTensorImpl()] = v->debugNameBase();
    }
}

void Semantics::afterNode(tj::Node* n, Frame& frame)
{
    switch (n->kind()) {
    case c10::prim::TupleConstruct:
        return tupleConstruct(n, frame);
    case c10::prim::TupleUnpack:
    case c10::prim::TupleIndex:
        return tupleElements(n, frame);
    case c10::prim::ListConstruct:
        return listConstruct(n, frame);
    case c10::prim::ListUnpack:
        return listUnpack(n, frame);
    default:
        bakeIntCall(n, frame);
        return;
    }
}

void Semantics::loopIteration(tj::Node* n, Frame& frame, int64_t)
{
    const PythonView& cond = viewOf(frame.note(n->blocks().at(0)->outputs()[0]));
    m_loops.back().dataDependent |= cond.fromData;
    if (cond.hasShadow() && isWhileLoop(n))
        m_warnings.addConversion(QStringLiteral("boolean"), n); // `while i < x.size(0)`: bool() of a tensor
}

void Semantics::leaveCall(tj::Node*)
{
    if (std::shared_ptr<tj::Graph> g = m_scopes.back())
        g->pop_scope();
    m_scopes.pop_back();
}

QString Semantics::describe(const tj::Value* v, Frame& frame) const
{
    const PythonView& s = viewOf(frame.note(v));
    if (!s.origin.isEmpty())
        return s.origin;
    if (v->node()->kind() == c10::prim::Constant) {
        std::ostringstream os;
        if (auto iv = tj::toIValue(v))
            os << *iv;
        return qs(os.str());
    }
    return qs(v->debugNameBase());
}

// ----- containers: Python's view travels with the elements

void Semantics::tupleConstruct(tj::Node* n, Frame& frame)
{
    bool pythonView = false;
    for (auto* in : n->inputs())
        pythonView |= view(frame, in).carriesPythonView();
    if (!pythonView)
        return;
    auto s = std::make_shared<PythonView>();
    s->items = std::make_shared<std::vector<NotePtr>>();
    for (auto* in : n->inputs())
        s->items->push_back(frame.note(in));
    frame.setNote(n->output(), std::move(s));
}

void Semantics::tupleElements(tj::Node* n, Frame& frame)
{
    const PythonView& tuple = view(frame, n->input(0));
    if (!tuple.items)
        return;
    const auto items = tuple.items;
    if (n->kind() == c10::prim::TupleUnpack) {
        for (size_t i = 0; i < n->outputs().size(); ++i)
            frame.setNote(n->outputs()[i], items->at(i));
        return;
    }
    int64_t idx = frame.value(n->input(1)).toInt();
    if (idx < 0)
        idx += int64_t(items->size());
    frame.setNote(n->output(), items->at(size_t(idx)));
}

void Semantics::listConstruct(tj::Node* n, Frame& frame)
{
    auto s = std::make_shared<PythonView>();
    bool anyShadow = false;
    for (auto* in : n->inputs()) {
        const PythonView& e = view(frame, in);
        s->elems.push_back(e.shadow);
        anyShadow |= e.hasShadow();
        s->fromSize |= e.fromSize;
        s->fromData |= e.fromData;
    }
    if (!anyShadow)
        s->elems.clear();
    if (holdsNestedViews(n->inputs(), frame)) {
        s->items = std::make_shared<std::vector<NotePtr>>();
        for (auto* in : n->inputs())
            s->items->push_back(frame.note(in));
    }
    if (anyShadow || s->fromSize || s->fromData || s->items)
        frame.setNote(n->output(), std::move(s));
}

/// Some of @p values are containers carrying Python's view of their elements (a list of traced sizes).
bool Semantics::holdsNestedViews(c10::ArrayRef<tj::Value*> values, Frame& frame) const
{
    for (auto* v : values) {
        const PythonView& e = view(frame, v);
        if (e.hasElemShadows() || e.items)
            return true;
    }
    return false;
}

void Semantics::listUnpack(tj::Node* n, Frame& frame)
{
    const PythonView& l = view(frame, n->input());
    if (!l.hasElemShadows() && !l.fromSize && !l.fromData && l.origin.isEmpty())
        return;
    for (size_t i = 0; i < n->outputs().size(); ++i) {
        auto s = std::make_shared<PythonView>();
        if (i < l.elems.size())
            s->shadow = l.elems[i];
        s->fromSize = l.fromSize;
        s->fromData = l.fromData;
        if (!l.origin.isEmpty())
            s->origin = QStringLiteral("%1[%2]").arg(l.origin).arg(i);
        frame.setNote(n->outputs()[i], std::move(s));
    }
}

// ----- control flow

void Semantics::enterBranch(tj::Node* n, Frame& frame, bool taken)
{
    const PythonView& cond = view(frame, n->input());
    if (cond.hasShadow())
        m_warnings.addConversion(QStringLiteral("boolean"), n);
    const QStringList args
        = { QString::number(Interpreter::locationOf(n).line), taken ? QStringLiteral("then") : QStringLiteral("else") };
    if (cond.hasShadow() || cond.fromSize) {
        m_warnings.add(WarningKind::ShapeDependentBranch,
            warningMessage(WarningKind::ShapeDependentBranch,
                args + QStringList { cond.origin.isEmpty() ? QStringLiteral("(a shape)") : cond.origin }),
            warningFix(WarningKind::ShapeDependentBranch), n, cond.origin, taken ? 0 : 1);
    } else if (cond.fromData) {
        m_warnings.add(WarningKind::DataDependentBranch,
            warningMessage(WarningKind::DataDependentBranch,
                args + QStringList { cond.origin.isEmpty() ? QStringLiteral("(tensor data)") : cond.origin }),
            warningFix(WarningKind::DataDependentBranch), n, cond.origin, taken ? 0 : 1);
    }
}

void Semantics::enterLoop(tj::Node* n, Frame& frame)
{
    for (tj::Node* select : tensorIterationSelects(n)) {
        const at::Tensor x = frame.value(select->input(0)).toTensor();
        const QString name = describe(select->input(0), frame);
        m_warnings.add(WarningKind::IteratingTensor, warningMessage(WarningKind::IteratingTensor),
            warningFix(WarningKind::IteratingTensor, { name }), n,
            QStringLiteral("%1.size(0) (iterating over %1)").arg(name), int(x.size(0)));
        m_iterRows[select] = at::unbind(x, 0);
    }
    if (view(frame, n->input(1)).hasShadow() && isWhileLoop(n))
        m_warnings.addConversion(QStringLiteral("boolean"), n);
    m_loops.push_back({ view(frame, n->input(1)).fromData });
}

void Semantics::leaveLoop(tj::Node* n, Frame& frame, int64_t iterations)
{
    const bool dataDependent = m_loops.back().dataDependent;
    m_loops.pop_back();
    const PythonView& trip = view(frame, n->input(0));
    const int64_t maxTrips = frame.value(n->input(0)).toInt();
    const QString line = QString::number(Interpreter::locationOf(n).line);
    const QString count = QString::number(iterations);
    if (maxTrips != std::numeric_limits<int64_t>::max() && (trip.hasShadow() || trip.fromSize)) {
        m_warnings.add(WarningKind::ShapeDependentLoop,
            warningMessage(WarningKind::ShapeDependentLoop,
                { line, count, trip.origin.isEmpty() ? QStringLiteral("depends on an input's shape") : trip.origin }),
            warningFix(WarningKind::ShapeDependentLoop, { count }), n, trip.origin, int(iterations));
    } else if (dataDependent) {
        m_warnings.add(WarningKind::DataDependentLoop, warningMessage(WarningKind::DataDependentLoop, { line, count }),
            warningFix(WarningKind::DataDependentLoop, { count }), n, QStringLiteral("a condition on tensor values"),
            int(iterations));
    }
}

void Semantics::enterCall(tj::Node* n, const IValue* self)
{
    // Python calls submodules through Module.__call__, which opens a trace scope per module call. An overloaded
    // forward (@torch.jit._overload_method, densenet's _DenseLayer) is compiled as forward__0, forward__1, ...
    std::shared_ptr<tj::Graph> traceGraph;
    const auto isForward = [](const std::string& name) {
        return name == "forward" || (name.rfind("forward__", 0) == 0 && name.size() > 9);
    };
    if (self && n->kind() == c10::prim::CallMethod && isForward(n->s(c10::attr::name))) {
        auto it = m_moduleScopes.find(self->toObject().get());
        if (it != m_moduleScopes.end() && tj::tracer::getTracingState()) {
            traceGraph = tj::tracer::getTracingState()->graph;
            traceGraph->push_scope(it->second);
        }
    }
    m_scopes.push_back(std::move(traceGraph));
}

// ----- operators

const OperatorRules* Semantics::rulesOf(c10::Symbol op)
{
    static const std::unordered_map<c10::Symbol, OperatorRules> table = [] {
        std::unordered_map<c10::Symbol, OperatorRules> t;
        const auto node = [&t](c10::Symbol op, Rule rule) { t[op].node.push_back(rule); };
        const auto number = [&t](c10::Symbol op, NumberRule rule) { t[op].number.push_back(rule); };
        const auto tensor = [&t](c10::Symbol op, Rule rule) { t[op].tensor.push_back(rule); };
        const auto call = [&t](c10::Symbol op, CallRule rule) { t[op].call.push_back(rule); };
        const auto completed = [&t](c10::Symbol op, CallRule rule) { t[op].completed.push_back(rule); };
        const auto aten = [](const char* name) { return c10::Symbol::aten(name); };

        // Shape queries (pythonsemantics_sizes.cpp).
        node(c10::aten::size, &Semantics::sizeOf);
        node(aten("numel"), &Semantics::numelOf);
        node(c10::aten::len, &Semantics::lenOf);
        node(c10::aten::dim, &Semantics::dimOf);
        node(c10::prim::NumToTensor, &Semantics::numToTensor);

        // Lists of traced sizes (pythonsemantics_lists.cpp).
        node(c10::aten::__getitem__, &Semantics::listItem);
        for (c10::Symbol op : { c10::aten::slice, c10::aten::list, c10::aten::add, c10::aten::copy })
            node(op, &Semantics::sizeList);
        for (c10::Symbol op : { c10::aten::append, c10::aten::_set_item, aten("insert"), aten("extend"),
                 c10::aten::add_, aten("pop"), aten("clear"), aten("reverse"), aten("remove"), aten("sort") })
            node(op, &Semantics::listMutation);
        node(c10::prim::max, &Semantics::listMaxMin);
        node(c10::prim::min, &Semantics::listMaxMin);
        node(c10::aten::sum, &Semantics::listSum);

        // Tensors to Python values (pythonsemantics_conversions.cpp).
        for (c10::Symbol op : { c10::aten::Bool, c10::aten::Int, c10::aten::Float, c10::aten::item,
                 c10::aten::ScalarImplicit, c10::aten::IntImplicit, c10::aten::FloatImplicit })
            node(op, &Semantics::toPython);

        // Number arithmetic on traced sizes (pythonsemantics_numbers.cpp).
        number(c10::aten::neg, &Semantics::negateNumber);
        number(c10::aten::Int, &Semantics::intOfNumber);
        number(c10::prim::max, &Semantics::chooseNumber);
        number(c10::prim::min, &Semantics::chooseNumber);
        number(c10::aten::__and__, &Semantics::combineConditions);
        number(c10::aten::__or__, &Semantics::combineConditions);
        number(c10::aten::floordiv, &Semantics::tensorCheckedDivision);
        tensor(c10::aten::neg, &Semantics::builtinRsubNeg);
        tensor(c10::aten::add, &Semantics::builtinRsubAdd);

        // Tensor construction (pythonsemantics_construction.cpp).
        call(c10::aten::tensor, &Semantics::tensorFromData);
        call(c10::aten::as_tensor, &Semantics::tensorFromData);

        // Subscripts (pythonsemantics_indexing.cpp).
        call(c10::aten::copy_, &Semantics::subscriptCopy);
        call(c10::aten::index, &Semantics::indexByNumberTensor);
        call(c10::aten::index_put_, &Semantics::indexByNumberTensor);
        call(c10::aten::index_put_, &Semantics::augmentedIndexPut);
        call(c10::aten::index_put_, &Semantics::indexPutValue);
        completed(c10::aten::unsqueeze, &Semantics::unsqueezeIndex);
        completed(c10::aten::slice, &Semantics::sliceOrSelectIndex);
        completed(c10::aten::select, &Semantics::sliceOrSelectIndex);

        // Python functions in front of operators (pythonsemantics_bindings.cpp).
        call(c10::aten::to, &Semantics::toDevice);
        call(c10::aten::to, &Semantics::toOther);
        call(c10::aten::pow, &Semantics::numberPower);
        call(c10::aten::norm, &Semantics::vectorNorm);
        for (c10::Symbol op : { c10::aten::std, c10::aten::var, c10::aten::std_mean, c10::aten::var_mean })
            completed(op, &Semantics::correctionOverload);
        node(c10::aten::split, &Semantics::splitBySize);
        completed(c10::aten::split, &Semantics::splitWithSizes);
        return t;
    }();
    auto it = table.find(op);
    return it == table.end() ? nullptr : &it->second;
}

/// An operator's steps, each of which its own rules (rulesOf) may take over: its node as TorchScript has it, number
/// arithmetic on traced sizes, an operator on tensors, then its traced call (runTracedOperator) and, for in-place
/// ops on a subscript, Python's setitem of the result.
bool Semantics::runOperator(tj::Node* n, Frame& frame)
{
    const OperatorRules* own = rulesOf(n->kind());
    if (own)
        for (Rule rule : own->node)
            if ((this->*rule)(n, frame))
                return true;
    if (emulateNumberOp(n, frame))
        return true;
    if (own)
        for (Rule rule : own->tensor)
            if ((this->*rule)(n, frame))
                return true;
    runTracedOperator(n, frame);
    // Every in-place op but the ones the subscript rules already write back with Python's setitem.
    const char* kind = n->kind().toQualString();
    const size_t length = std::strlen(kind);
    if (length > 1 && kind[length - 1] == '_' && n->kind() != c10::aten::copy_ && n->kind() != c10::aten::index_put_
        && isAugmentedSubscript(n))
        restoreAugmentedSubscript(n, frame);
    return true;
}

} // namespace pythonsemantics

std::unique_ptr<PythonTracingSemantics> PythonTracingSemantics::create(
    Interpreter& interpreter, TraceWarningSink& warnings)
{
    return std::make_unique<pythonsemantics::Semantics>(interpreter, warnings);
}

} // namespace jitscope
