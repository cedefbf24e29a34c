// Python's tracing semantics as interpreter hooks (see pythontracingsemantics_p.h).

#include "execute/operatorguard_p.h"
#include "ir/irsnapshot_p.h"
#include "trace/pythonsyntax_p.h"
#include "trace/pythontracingsemantics_p.h"
#include "trace/tracewarningsink_p.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>

namespace jitscope {

namespace tj = torch::jit;
using c10::IValue;

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

/// Python's view of a runtime value, where it differs from TorchScript's.
struct PythonView : ValueNote
{
    at::Tensor shadow; ///< defined when the value is a number Python would have as a traced 0-dim tensor
    std::vector<at::Tensor> elems; ///< for int lists: per-element shadows (undefined where none)
    bool fromSize = false; ///< value derives from a tensor's shape (for explaining baked constants)
    bool fromData = false; ///< value derives from tensor data (bool(), item(), ...)
    bool pythonTuple = false; ///< a TensorList Python's binding would have returned as a tuple
    /// tuples holding shadowed values, lists holding lists of them (torchvision's List[List[int]] of sizes):
    /// their elements' notes
    std::shared_ptr<std::vector<NotePtr>> items;
    QString origin; ///< Python-like text of where the value came from ("x.size(0)")

    bool hasShadow() const { return shadow.defined(); }
    bool hasElemShadows() const
    {
        for (const auto& e : elems)
            if (e.defined())
                return true;
        return false;
    }
    bool carriesPythonView() const { return hasShadow() || hasElemShadows() || items || pythonTuple; }
};

/// The view a note holds (these semantics are the only hooks that attach notes); an empty one for none.
const PythonView& viewOf(const NotePtr& note)
{
    static const PythonView none;
    return note ? static_cast<const PythonView&>(*note) : none;
}

/// Edits the view of a bound value: a copy, set back when the scope ends (notes are shared, never changed).
class EditView
{
public:
    EditView(Frame& frame, const tj::Value* v)
        : m_frame(frame)
        , m_value(v)
        , m_view(std::make_shared<PythonView>(viewOf(frame.note(v))))
    { }
    ~EditView() { m_frame.setNote(m_value, std::move(m_view)); }
    PythonView* operator->() { return m_view.get(); }

private:
    Frame& m_frame;
    const tj::Value* m_value;
    std::shared_ptr<PythonView> m_view;
};

bool isIntLike(const IValue& v)
{
    return v.isInt() || v.isDouble() || v.isBool();
}

/// Python's view of a number: its shadow tensor, or a wrapped 0-dim tensor as the argument parser makes.
at::Tensor asPythonTensor(const IValue& value, const PythonView& view)
{
    return view.hasShadow() ? view.shadow : wrappedNumber(value);
}

QString printed(const IValue& v)
{
    std::ostringstream os;
    os << v;
    return qs(os.str());
}

class Semantics final : public PythonTracingSemantics
{
public:
    Semantics(Interpreter& interpreter, TraceWarningSink& warnings)
        : m_interpreter(interpreter)
        , m_warnings(warnings)
    { }

    void setModuleScopes(std::unordered_map<const c10::ivalue::Object*, std::string> scopes) override
    {
        m_moduleScopes = std::move(scopes);
    }

    std::string nameFor(const at::Tensor& t) const override
    {
        auto it = m_names.find(t.unsafeGetTensorImpl());
        return it == m_names.end() ? std::string() : it->second;
    }

    IValue pythonValue(const IValue& value, const NotePtr& note) const override
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

    void bound(const tj::Value* v, const IValue& value) override
    {
        if (value.isTensor() && v->hasDebugName()) {
            const at::Tensor& t = value.toTensor();
            if (t.defined())
                m_names[t.unsafeGetTensorImpl()] = v->debugNameBase();
        }
    }

    const std::vector<tj::Node*>* blockOrder(tj::Block* block) override { return &m_order.of(block); }

    void afterNode(tj::Node* n, Frame& frame) override
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
            return;
        }
    }

    void enterBranch(tj::Node* n, Frame& frame, bool taken) override;
    void enterLoop(tj::Node* n, Frame& frame) override;
    void loopIteration(tj::Node* n, Frame& frame, int64_t) override
    {
        const PythonView& cond = viewOf(frame.note(n->blocks().at(0)->outputs()[0]));
        m_loops.back().dataDependent |= cond.fromData;
        if (cond.hasShadow() && isWhileLoop(n))
            m_warnings.addConversion(QStringLiteral("boolean"), n); // `while i < x.size(0)`: bool() of a tensor
    }
    void leaveLoop(tj::Node* n, Frame& frame, int64_t iterations) override;
    void enterCall(tj::Node* n, const IValue* self) override;
    void leaveCall(tj::Node*) override
    {
        if (std::shared_ptr<tj::Graph> g = m_scopes.back())
            g->pop_scope();
        m_scopes.pop_back();
    }
    bool runOperator(tj::Node* n, Frame& frame) override;

private:
    using Handler = bool (Semantics::*)(tj::Node*, Frame&);
    static const std::unordered_map<c10::Symbol, Handler>& handlers();

    const PythonView& view(Frame& frame, const tj::Value* v) const { return viewOf(frame.note(v)); }
    QString describe(const tj::Value* v, Frame& frame) const;

    void tupleConstruct(tj::Node* n, Frame& frame);
    void tupleElements(tj::Node* n, Frame& frame);
    void listConstruct(tj::Node* n, Frame& frame);
    bool holdsNestedViews(c10::ArrayRef<tj::Value*> values, Frame& frame) const;
    void listUnpack(tj::Node* n, Frame& frame);

    // Operators with a rule of their own (the handlers() table). They return false to leave the node to the
    // generic path.
    bool sizeOf(tj::Node* n, Frame& frame);
    bool numelOf(tj::Node* n, Frame& frame);
    bool lenOf(tj::Node* n, Frame& frame);
    bool dimOf(tj::Node* n, Frame& frame);
    bool listItem(tj::Node* n, Frame& frame);
    bool sizeList(tj::Node* n, Frame& frame);
    bool toPython(tj::Node* n, Frame& frame);
    bool numToTensor(tj::Node* n, Frame& frame);
    bool listMutation(tj::Node* n, Frame& frame);
    /// The items of a builtin's one list argument whose elements are traced sizes, the builtin run as libtorch
    /// runs it; nullopt (nothing run) for any other argument.
    std::optional<std::vector<IValue>> tracedListItems(tj::Node* n, Frame& frame, NotePtr* note);
    bool listMaxMin(tj::Node* n, Frame& frame);
    bool splitBySize(tj::Node* n, Frame& frame);
    bool listSum(tj::Node* n, Frame& frame);

    bool emulateNumberOp(tj::Node* n, Frame& frame);
    void runTracedOperator(tj::Node* n, Frame& frame);
    void restoreAugmentedSubscript(tj::Node* n, Frame& frame);
    at::Tensor pythonSubscriptView(const tj::Value* v, const tj::Node* n, Frame& frame, const at::Tensor& fallback);
    void patchShadowedArguments(
        tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, tj::Node* insertPoint, tj::Node* before);

    struct LoopState
    {
        bool dataDependent = false;
    };

    Interpreter& m_interpreter;
    TraceWarningSink& m_warnings;
    PythonOrder m_order;
    std::unordered_map<const c10::TensorImpl*, std::string> m_names;
    std::unordered_map<const tj::Value*, IValue> m_rsubOperand;
    std::unordered_map<const c10::ivalue::Object*, std::string> m_moduleScopes;
    /// The select node of a `for row in x` loop -> x's rows, unbound when the loop started
    std::unordered_map<const tj::Node*, std::vector<at::Tensor>> m_iterRows;
    std::vector<LoopState> m_loops; ///< the loops running, innermost last
    std::vector<std::shared_ptr<tj::Graph>> m_scopes; ///< per call: the trace graph a module scope was pushed on
};

const std::unordered_map<c10::Symbol, Semantics::Handler>& Semantics::handlers()
{
    static const std::unordered_map<c10::Symbol, Handler> table = {
        { c10::aten::size, &Semantics::sizeOf },
        { c10::Symbol::aten("numel"), &Semantics::numelOf },
        { c10::aten::len, &Semantics::lenOf },
        { c10::aten::dim, &Semantics::dimOf },
        { c10::aten::__getitem__, &Semantics::listItem },
        { c10::aten::slice, &Semantics::sizeList },
        { c10::aten::list, &Semantics::sizeList },
        { c10::aten::add, &Semantics::sizeList },
        { c10::aten::copy, &Semantics::sizeList },
        { c10::aten::Bool, &Semantics::toPython },
        { c10::aten::Int, &Semantics::toPython },
        { c10::aten::Float, &Semantics::toPython },
        { c10::aten::item, &Semantics::toPython },
        { c10::aten::ScalarImplicit, &Semantics::toPython },
        { c10::aten::IntImplicit, &Semantics::toPython },
        { c10::aten::FloatImplicit, &Semantics::toPython },
        { c10::prim::NumToTensor, &Semantics::numToTensor },
        { c10::aten::append, &Semantics::listMutation },
        { c10::aten::_set_item, &Semantics::listMutation },
        { c10::Symbol::aten("insert"), &Semantics::listMutation },
        { c10::Symbol::aten("extend"), &Semantics::listMutation },
        { c10::aten::add_, &Semantics::listMutation },
        { c10::Symbol::aten("pop"), &Semantics::listMutation },
        { c10::Symbol::aten("clear"), &Semantics::listMutation },
        { c10::Symbol::aten("reverse"), &Semantics::listMutation },
        { c10::Symbol::aten("remove"), &Semantics::listMutation },
        { c10::Symbol::aten("sort"), &Semantics::listMutation },
        { c10::prim::max, &Semantics::listMaxMin },
        { c10::prim::min, &Semantics::listMaxMin },
        { c10::aten::split, &Semantics::splitBySize },
        { c10::aten::sum, &Semantics::listSum },
    };
    return table;
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

bool Semantics::runOperator(tj::Node* n, Frame& frame)
{
    const auto& table = handlers();
    auto it = table.find(n->kind());
    if (it != table.end() && (this->*(it->second))(n, frame))
        return true;
    if (emulateNumberOp(n, frame))
        return true;
    if (isBuiltinRsubNeg(n)) {
        // Computed without recording; the add that follows records aten::rsub instead.
        auto resume = tj::tracer::pauseTracing();
        m_interpreter.runPlain(n, frame);
        resume();
        m_rsubOperand[n->output()] = frame.value(n->input());
        return true;
    }
    if (n->kind() == c10::aten::add && m_rsubOperand.count(n->input(0))) {
        const IValue self = m_rsubOperand[n->input(0)];
        const IValue& other = frame.value(n->input(1));
        at::Tensor result = other.isTensor()
            ? at::rsub(self.toTensor(), other.toTensor(), frame.value(n->input(2)).toScalar())
            : at::rsub(self.toTensor(), other.toScalar(), frame.value(n->input(2)).toScalar());
        frame.bind(n->output(), result);
        return true;
    }
    runTracedOperator(n, frame);
    const char* kind = n->kind().toQualString();
    const size_t length = std::strlen(kind);
    if (length > 1 && kind[length - 1] == '_' && n->kind() != c10::aten::copy_ && n->kind() != c10::aten::index_put_
        && isAugmentedSubscript(n))
        restoreAugmentedSubscript(n, frame);
    return true;
}

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

/// An index list (Tensor?[]) whose entries before the last are all None: `x[..., i]` written as `x[:, i]`.
bool onlyNonesBefore(c10::ArrayRef<IValue> indices)
{
    for (size_t k = 0; k + 1 < indices.size(); ++k)
        if (!indices[k].isNone())
            return false;
    return true;
}

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

/// Runs int/float arithmetic on shadowed numbers as Python would run it on 0-dim tensors.
/// Returns true when handled.
/// torch.nn.functional.multi_head_attention_forward: `if isinstance(embed_dim, torch.Tensor): head_dim =
/// embed_dim.div(num_heads, rounding_mode='trunc') else: head_dim = embed_dim // num_heads`. Traced, embed_dim is a
/// tensor and Python takes the first branch; scripted, embed_dim is an int, the compiler drops that branch, and the
/// archive keeps the `//` alone.
bool isTensorCheckedDivision(const tj::Node* n)
{
    if (n->kind() != c10::aten::floordiv)
        return false;
    const tj::SourceRange range = originalSourceRange(n);
    if (range.text().str() != "embed_dim // num_heads")
        return false;
    const auto place = range.file_line_col();
    return place && QString::fromStdString(std::get<0>(*place)).endsWith(QLatin1String("torch/nn/functional.py"));
}

bool Semantics::emulateNumberOp(tj::Node* n, Frame& frame)
{
    const size_t nin = n->inputs().size();
    if (nin == 0 || nin > 2)
        return false;
    // Most ops take no shadowed number: ruled out before anything is copied.
    bool anyShadow = false;
    for (auto* v : n->inputs())
        anyShadow |= view(frame, v).hasShadow();
    if (!anyShadow)
        return false;
    std::vector<IValue> values;
    std::vector<NotePtr> notes;
    bool allNumbers = true;
    for (auto* v : n->inputs()) {
        values.push_back(frame.value(v));
        notes.push_back(frame.note(v));
        allNumbers &= isIntLike(values.back());
    }
    if (!allNumbers)
        return false;
    // Compute the TorchScript result first: it is what the program goes on with.
    m_interpreter.runPlain(n, frame);
    EditView out(frame, n->output());
    const PythonView& a = viewOf(notes[0]);
    at::Tensor shadow;
    const char* symbol = nullptr;
    const bool numberOp = isNumberOp(n->kind(), &symbol);
    if (nin == 1) {
        if (n->kind() == c10::aten::neg) {
            shadow = at::neg(a.shadow);
        } else if (n->kind() == c10::aten::Int && values[0].isBool() && !n->output()->uses().empty()
            && std::all_of(n->output()->uses().begin(), n->output()->uses().end(),
                [n](const tj::Use& u) { return sameStart(u.user, n); })) {
            // TorchScript's own bool -> int for a number operand (`x * (x.size(0) > 1)`): Python (torch 2.x) hands
            // the comparison's traced bool tensor on.
            out->shadow = a.shadow;
            out->fromSize = true;
            out->origin = a.origin;
            return true;
        } else {
            // int(), float(), math functions: Python converts the tensor to a number, baked from here on.
            m_warnings.addConversion(n->kind() == c10::aten::Int ? QStringLiteral("integer") : QStringLiteral("float"));
            out->fromSize = true;
            out->origin = a.origin;
            return true;
        }
    } else {
        if (n->kind() == c10::prim::max || n->kind() == c10::prim::min) {
            // Python's max(a, b) / min(a, b) compare with the tensors' > / < (a bool of a tensor) and return the
            // chosen operand itself: a traced size stays traced.
            const bool second = n->kind() == c10::prim::max
                ? values[1].toScalar().to<double>() > values[0].toScalar().to<double>()
                : values[1].toScalar().to<double>() < values[0].toScalar().to<double>();
            m_warnings.addConversion(QStringLiteral("boolean"));
            const PythonView& chosen = viewOf(notes[second ? 1 : 0]);
            out->shadow = chosen.shadow;
            out->fromSize = true;
            out->origin = chosen.origin;
            return true;
        }
        if (n->kind() == c10::aten::__and__ || n->kind() == c10::aten::__or__) {
            // Only TorchScript's own desugaring (a `for` with `continue`) combines conditions on sizes like this.
            out->fromSize = true;
            return true;
        }
        if (!numberOp) {
            m_warnings.addConversion(QStringLiteral("float"));
            out->fromSize = true;
            return true;
        }
        if (isTensorCheckedDivision(n) && a.hasShadow() && !viewOf(notes[1]).hasShadow() && values[1].isInt())
            shadow = a.shadow.div(wrappedNumber(values[1]), "trunc"); // the number as Python passes it: a tensor
        else
            shadow = pythonNumberOp(n->kind(), values[0], a.shadow, values[1], viewOf(notes[1]).shadow,
                a.hasShadow() && isAugmentedAssignment(n));
    }
    out->shadow = shadow;
    out->fromSize = true;
    QStringList operands;
    for (size_t i = 0; i < nin; ++i) {
        const QString& origin = viewOf(notes[i]).origin;
        operands << (origin.isEmpty() ? printed(values[i]) : origin);
    }
    if (operands.size() == 2 && symbol)
        out->origin = QStringLiteral("%1 %2 %3").arg(operands[0], QLatin1String(symbol), operands[1]);
    else if (n->kind() == c10::aten::neg)
        out->origin = QLatin1Char('-') + operands.value(0);
    return true;
}

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

/// An operator with tensor semantics: runs it the way Python's binding would call it.
void Semantics::runTracedOperator(tj::Node* n, Frame& frame)
{
    const tj::Operator* op = n->maybeOperator();
    if (!op)
        return m_interpreter.runPlain(n, frame);
    const c10::FunctionSchema& schema = op->schema();
    const std::string& name = schema.name();
    const c10::Symbol kind = n->kind();
    std::vector<IValue> args;
    args.reserve(n->inputs().size());
    for (auto* in : n->inputs())
        args.push_back(frame.value(in));
    const OperatorGuard guard(n, args); // every call below, as the interpreter's own operator calls

    const bool scalarOverload = schema.overload_name().find("Scalar") == 0;
    // Python numbers bound to the Tensor overload (argument parser's numbers-as-tensors list).
    if (scalarOverload && allowsNumbersAsTensors(kind) && args.size() >= 2) {
        auto handle = c10::Dispatcher::singleton().findSchema({ name, "Tensor" });
        if (!handle)
            handle = c10::Dispatcher::singleton().findSchema({ name, "" }); // floor_divide's Tensor overload
        if (handle) {
            tj::Stack stack;
            stack.push_back(args[0]);
            stack.push_back(asPythonTensor(args[1], view(frame, n->input(1))));
            // `x.size(0) + t`: TorchScript's builtin for `number + tensor` swaps it into add(t, number); Python's
            // traced size is the left operand of Tensor.__add__.
            if ((kind == c10::aten::add || kind == c10::aten::mul) && view(frame, n->input(1)).hasShadow()) {
                const auto place = n->sourceRange().file_line_col();
                if (place && std::get<0>(*place) == "<string>")
                    std::swap(stack[0], stack[1]);
            }
            for (size_t i = 2; i < args.size(); ++i)
                stack.push_back(args[i]);
            if (stack.size() < handle->schema().arguments().size())
                stack.push_back(IValue(int64_t(1))); // alpha
            handle->callBoxed(stack);
            Interpreter::storeOutputs(n, frame, stack);
            return;
        }
    }
    // A shadowed number given to a Scalar parameter of an op with a Tensor overload: Python passes the tensor.
    if (scalarOverload && args.size() >= 2 && view(frame, n->input(1)).hasShadow()) {
        std::string overload = schema.overload_name();
        overload.replace(0, 6, "Tensor");
        auto handle = c10::Dispatcher::singleton().findSchema({ name, overload });
        if (handle) {
            tj::Stack stack(args.begin(), args.end());
            stack[1] = view(frame, n->input(1)).shadow;
            handle->callBoxed(stack);
            Interpreter::storeOutputs(n, frame, stack);
            return;
        }
    }

    if (kind == c10::aten::to && schema.overload_name() == "prim_Device" && args.size() == 5 && args[0].isTensor()
        && !args[1].isNone()) {
        // Python's Tensor.to(device): dispatch_to(self, device, dtype or self.dtype) with self's options.
        const at::Tensor self = args[0].toTensor();
        auto handle = c10::Dispatcher::singleton().findSchema({ "aten::to", "dtype_layout" });
        if (handle) {
            tj::Stack stack { args[0], args[2].isNone() ? IValue(int64_t(self.scalar_type())) : args[2],
                IValue(int64_t(self.layout())), args[1], IValue(), args[3], args[4], IValue() };
            handle->callBoxed(stack);
            Interpreter::storeOutputs(n, frame, stack);
            return;
        }
    }
    if (kind == c10::aten::pow && args.size() == 2 && isIntLike(args[0]) && args[1].isTensor()) {
        // `number ** x`: torch 2.x's Tensor.__rpow__ is torch.pow(number, x), pow.Scalar with the number as it is
        // (1.13 made a tensor constant of it).
        frame.bind(n->output(), at::pow(args[0].toScalar(), args[1].toTensor()));
        return;
    }
    if (kind == c10::aten::norm && (schema.overload_name() == "Scalar" || schema.overload_name() == "ScalarOpt_dim")
        && args.size() >= 2 && args[0].isTensor()) {
        // Tensor.norm / torch.norm are Python functions (torch/functional.py): torch 2.x's call
        // linalg.vector_norm(x, p, dim or None, keepdim, dtype=None) for a number p, 2 for p left at "fro" (a
        // defaulted p has no place in the source; F.normalize's p=2.0 is written).
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
            return;
        }
    }
    if (kind == c10::aten::to && schema.overload_name() == "other" && args.size() == 5 && args[0].isTensor()
        && args[1].isTensor()) {
        // Python's Tensor.to(other): dispatch_to(self, other.device(), other.dtype(), ...), the other tensor's
        // device and dtype recorded as constants.
        const at::Tensor other = args[1].toTensor();
        auto handle = c10::Dispatcher::singleton().findSchema({ "aten::to", "device" });
        if (handle) {
            tj::Stack stack { args[0], IValue(other.device()), IValue(int64_t(other.scalar_type())), args[2], args[3],
                args[4] };
            handle->callBoxed(stack);
            Interpreter::storeOutputs(n, frame, stack);
            return;
        }
    }
    if (kind == c10::aten::tensor || kind == c10::aten::as_tensor) {
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
                return;
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
            return;
        const bool ctor = kind == c10::aten::tensor && !indexList;
        if (!indexList)
            m_warnings.add(WarningKind::BakedConstant, warningMessage(WarningKind::BakedConstant, {}, 0),
                warningFix(WarningKind::BakedConstant, {}, 0));
        const at::Tensor data = frame.value(n->output()).toTensor();
        auto to = c10::Dispatcher::singleton().findSchema({ "aten::to", "device" });
        auto detach = c10::Dispatcher::singleton().findSchema({ "aten::detach", "" });
        if (!to || !detach)
            return;
        tj::Stack stack { data, IValue(data.device()), IValue(int64_t(data.scalar_type())), IValue(false),
            IValue(false), IValue() };
        to->callBoxed(stack);
        if (ctor)
            detach->callBoxed(stack);
        Interpreter::storeOutputs(n, frame, stack);
        return;
    }
    if (kind == c10::aten::copy_ && isIndexing(n) && args.size() >= 2 && args[0].isTensor() && args[1].isTensor()) {
        at::Tensor dst = args[0].toTensor();
        pythonCopyTo(dst, args[1].toTensor());
        frame.bind(n->output(), dst);
        return;
    }
    if ((kind == c10::aten::index || kind == c10::aten::index_put_) && isIndexing(n) && args.size() >= 2
        && args[0].isTensor() && args[1].isList() && !args[1].toListRef().empty()
        && args[1].toListRef().back().isTensor() && onlyNonesBefore(args[1].toListRef())) {
        // Python's applySlicing takes a 0-dim integer tensor index as an integer while tracing: a select whose
        // index is aten::Int of the tensor (recordSelectTrace), so the trace stays dynamic. `x[:, i]` indexes
        // dim 1.
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
            return;
        }
    }
    if (kind == c10::aten::index_put_ && isIndexing(n) && args.size() >= 3 && args[0].isTensor()
        && isAugmentedSubscript(n)) {
        // `x[1:2, t] += u`: TorchScript puts the result back into the view it read from; Python's setitem slices x
        // again (applySlicing), then puts.
        args[0] = pythonSubscriptView(n->input(0), n, frame, args[0].toTensor());
    }
    if (kind == c10::aten::index_put_ && isIndexing(n) && args.size() >= 3 && args[2].isTensor()) {
        // Python's setitem views the value without its leading size-1 dims before index_put_.
        const at::Tensor value = args[2].toTensor();
        std::vector<int64_t> sizes = value.sizes().vec();
        size_t first = 0;
        while (first < sizes.size() && sizes[first] == 1)
            ++first;
        if (first > 0)
            args[2] = value.view(std::vector<int64_t>(sizes.begin() + long(first), sizes.end()));
    }
    if (auto rowsOf = m_iterRows.find(n); rowsOf != m_iterRows.end()) {
        // `for row in x`: Python took the rows from one aten::unbind when the loop started.
        const auto& rows = rowsOf->second;
        const int64_t i = args.at(2).toInt();
        frame.bind(n->output(), rows.at(size_t(i)));
        return;
    }
    // An op on numbers alone (`input.dim() != 4`) is Python arithmetic: nothing is recorded, nothing baked yet.
    const bool recorded = std::any_of(args.begin(), args.end(), [](const IValue& v) { return v.isTensor(); })
        || std::any_of(schema.returns().begin(), schema.returns().end(),
            [](const c10::Argument& r) { return r.type()->kind() == c10::TypeKind::TensorType; });
    for (size_t i = 0; recorded && i < n->inputs().size(); ++i) {
        const PythonView& in = view(frame, n->input(i));
        if ((in.fromSize || in.fromData) && !in.hasShadow() && !in.hasElemShadows() && !args[i].isTensor()) {
            m_warnings.add(WarningKind::BakedConstant,
                warningMessage(WarningKind::BakedConstant,
                    { in.origin.isEmpty()
                            ? QStringLiteral("a value computed from %1")
                                  .arg(in.fromData ? QStringLiteral("tensor data") : QStringLiteral("a shape"))
                            : in.origin,
                        printed(args[i]), i < schema.arguments().size() ? qs(schema.arguments()[i].name()) : QString(),
                        qs(name) },
                    1),
                warningFix(WarningKind::BakedConstant, {}, in.fromData ? 1 : 2), nullptr, in.origin, -1);
        }
    }
    const std::string base = name.substr(name.find("::") + 2);
    fillPythonDefaults(schema, base, args);
    if ((kind == c10::aten::std || kind == c10::aten::var || kind == c10::aten::std_mean
            || kind == c10::aten::var_mean)
        && schema.overload_name().empty() && args.size() == 2 && args[0].isTensor()
        && writtenArgumentCount(n, base.c_str()) == 1) {
        // torch 2.x's bindings list the correction overload first: `x.std()` and `torch.std(x)` record
        // std.correction(self, None, correction=None, keepdim=False); TorchScript compiles std(self, unbiased=True).
        auto handle = c10::Dispatcher::singleton().findSchema({ name, "correction" });
        if (handle) {
            tj::Stack stack { args[0], IValue(), IValue(), IValue(false) };
            handle->callBoxed(stack);
            Interpreter::storeOutputs(n, frame, stack);
            return;
        }
    }
    if (kind == c10::aten::unsqueeze && isIndexing(n) && args.size() == 2 && args[0].isTensor() && args[1].isInt()
        && args[1].toInt() < 0) {
        // x[..., None]: Python's applySlicing unsqueezes at a positive dim.
        args[1] = IValue(args[1].toInt() + args[0].toTensor().dim() + 1);
    }
    if ((kind == c10::aten::slice || kind == c10::aten::select) && isIndexing(n) && args.size() >= 2
        && args[0].isTensor() && args[1].isInt()) {
        // Python's indexing (applySlicing) records positive dims and explicit slice bounds.
        const int64_t rank = args[0].toTensor().dim();
        if (args[1].toInt() < 0)
            args[1] = IValue(args[1].toInt() + rank);
        if (kind == c10::aten::slice && args.size() == 5) {
            if (args[2].isNone())
                args[2] = IValue(int64_t(0));
            if (args[3].isNone())
                args[3] = IValue(std::numeric_limits<int64_t>::max());
        }
    }
    const bool splitWithSizes = kind == c10::aten::split && schema.arguments().size() > 1
        && schema.arguments()[1].type()->kind() == c10::TypeKind::ListType;

    tj::Graph& traceGraph = *tj::tracer::getTracingState()->graph;
    tj::Node* insertPoint = traceGraph.insertPoint();
    tj::Node* before = insertPoint->prev();
    tj::Stack stack(args.begin(), args.end());
    if (splitWithSizes) {
        auto handle = c10::Dispatcher::singleton().findSchema({ "aten::split_with_sizes", "" });
        if (!handle)
            throw std::runtime_error("no operator aten::split_with_sizes");
        handle->callBoxed(stack);
        Interpreter::storeOutputs(n, frame, stack);
        EditView(frame, n->output())->pythonTuple = true;
        patchShadowedArguments(n, frame, handle->schema(), insertPoint, before);
        return;
    }
    if (op->isC10Op() && args.size() == schema.arguments().size()) {
        auto handle = c10::Dispatcher::singleton().findSchema(schema.operator_name());
        if (handle)
            handle->callBoxed(stack);
        else
            m_interpreter.callOperator(n, stack);
    } else {
        m_interpreter.callOperator(n, stack);
    }
    if (op->isC10Op())
        patchShadowedArguments(n, frame, schema, insertPoint, before);
    Interpreter::storeOutputs(n, frame, stack);
    // Python's bindings return a TensorList as a tuple.
    if (n->outputs().size() == 1 && n->output()->type()->kind() == c10::TypeKind::ListType
        && n->output()->type()->containedType(0)->kind() == c10::TypeKind::TensorType && op->isC10Op())
        EditView(frame, n->output())->pythonTuple = true;
}

/// What tracer::ArgumentStash does for Python's argument parser, done on the recorded node afterwards
/// (the stash itself is not exported by libtorch): numbers that Python held as traced 0-dim tensors become
/// aten::Int/Float/ScalarImplicit of that tensor, inserted right after the tensor's producer.
void Semantics::patchShadowedArguments(
    tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, tj::Node* insertPoint, tj::Node* before)
{
    const auto& params = schema.arguments();
    bool any = false;
    for (size_t i = 0; i < params.size() && i < n->inputs().size(); ++i) {
        const PythonView& s = view(frame, n->input(i));
        any |= s.hasShadow() || s.hasElemShadows();
    }
    if (!any)
        return;
    const c10::Symbol kind = c10::Symbol::fromQualString(schema.name());
    tj::Node* recorded = nullptr;
    for (tj::Node* p = insertPoint->prev(); p != before && p->kind() != c10::prim::Param; p = p->prev()) {
        if (p->kind() == kind) {
            recorded = p;
            break;
        }
    }
    if (!recorded || recorded->inputs().size() < params.size())
        return;
    auto convert = [recorded](const at::Tensor& shadow, c10::Symbol as) -> tj::Value* {
        tj::Value* ten = nullptr;
        {
            // A shadow the trace does not know is baked as a constant at the insert point: that must be before
            // the recorded node that uses it, not after it.
            tj::WithInsertPoint before(recorded);
            ten = tj::tracer::getValueTrace(shadow);
        }
        tj::Graph& g = *ten->owningGraph();
        tj::WithInsertPoint guard(ten->node()->next());
        return g.insert(as, { ten });
    };
    for (size_t i = 0; i < params.size() && i < n->inputs().size(); ++i) {
        const PythonView& s = view(frame, n->input(i));
        c10::TypePtr paramType = params[i].type();
        if (auto opt = paramType->cast<c10::OptionalType>())
            paramType = opt->getElementType();
        const auto kindOfType = paramType->kind();
        if (s.hasShadow()
            && (kindOfType == c10::TypeKind::IntType || kindOfType == c10::TypeKind::FloatType
                || kindOfType == c10::TypeKind::NumberType || kindOfType == c10::TypeKind::SymIntType)) {
            const c10::Symbol as = kindOfType == c10::TypeKind::FloatType ? c10::aten::Float
                : kindOfType == c10::TypeKind::NumberType                 ? c10::aten::ScalarImplicit
                                                                          : c10::aten::Int;
            recorded->replaceInput(i, convert(s.shadow, as));
        } else if (s.hasElemShadows()) {
            tj::Node* list = recorded->input(i)->node();
            if (list->kind() != c10::prim::ListConstruct || list->inputs().size() != s.elems.size())
                continue;
            for (size_t k = 0; k < s.elems.size(); ++k)
                if (s.elems[k].defined())
                    list->replaceInput(k, convert(s.elems[k], c10::aten::Int));
        }
    }
}

} // namespace

std::unique_ptr<PythonTracingSemantics> PythonTracingSemantics::create(
    Interpreter& interpreter, TraceWarningSink& warnings)
{
    return std::make_unique<Semantics>(interpreter, warnings);
}

} // namespace jitscope
