// The node interpreter: walks a TorchScript graph node by node over libtorch's operators. What tracing adds
// (Python's view of values, provenance, warnings) and what a debugger adds are hooks (interpreter_p.h).

#include "execute/interpreter_p.h"
#include "execute/operatorguard_p.h"
#include "execute/runtime_p.h"
#include "ir/irsnapshot_p.h"
#include "ir/torcherror_p.h"
#include "load/inlinedindex_p.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/jit_exception.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <QElapsedTimer>
#include <QHash>
#include <QStringList>

#include <limits>
#include <sstream>
#include <unordered_map>

namespace jitscope {

namespace tj = torch::jit;
using c10::IValue;

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

/// A runtime value, the hooks' note about it, and when it was bound (the latest binding of a variable is its
/// live value).
struct Slot
{
    IValue value;
    NotePtr note;
    quint64 sequence = 0;
};

/// Calls a node's operation on its inputs in @p stack.
void callOperation(tj::Operation& op, tj::Node* n, tj::Stack& stack)
{
    // Variadic operators (aten::format, prim::Print, ...) take their argument count last, as the interpreter
    // passes it.
    if (n->getOperator().schema().is_vararg())
        stack.push_back(IValue(int64_t(n->inputs().size())));
    const OperatorGuard guard(n, stack);
    op(stack);
}

/// Pushes an execution frame for the lifetime of the scope.
struct FrameScope
{
    FrameScope(QVector<ExecFrame>& frames, ExecFrame frame)
        : m_frames(frames)
    {
        m_frames.push_back(std::move(frame));
    }
    ~FrameScope() { m_frames.pop_back(); }
    QVector<ExecFrame>& m_frames;
};

} // namespace

struct Interpreter::Impl : Frame
{
    explicit Impl(const ExecOptions& options)
        : m_options(options)
    {
        m_clock.start();
    }

    // Frame: the environment of the graph invocation that is running.
    const IValue& value(const tj::Value* v) override { return get(*m_env, v).value; }
    const IValue* find(const tj::Value* v) const override
    {
        auto it = m_env->find(v);
        return it == m_env->end() ? nullptr : &it->second.value;
    }
    const NotePtr& note(const tj::Value* v) const override
    {
        static const NotePtr none;
        auto it = m_env->find(v);
        return it == m_env->end() ? none : it->second.note;
    }
    void bind(const tj::Value* v, IValue value, NotePtr note) override
    {
        bindSlot(*m_env, v, Slot { std::move(value), std::move(note) });
    }
    void setNote(const tj::Value* v, NotePtr note) override
    {
        auto it = m_env->find(v);
        if (it != m_env->end())
            it->second.note = std::move(note);
    }
    QVector<NamedValue> liveValues() const override;

    using Env = std::unordered_map<const tj::Value*, Slot>;

    void checkInterrupt();
    std::vector<Slot> runGraph(tj::Graph& graph, std::vector<Slot> inputs);
    void bindSlot(Env& env, const tj::Value* v, Slot slot);
    const Slot& get(Env& env, const tj::Value* v);
    void runBlock(tj::Block* block);
    void runNode(tj::Node* n);
    void dispatchNode(tj::Node* n);
    void runIf(tj::Node* n);
    void runLoop(tj::Node* n);
    void callGraph(tj::Node* n, tj::Function& fn, std::vector<Slot> args, const QString& name, const IValue* self);
    tj::Operation& operationFor(tj::Node* n);
    /// The id of @p n (of the graph running) in the script graph, -1 when unknown.
    int idOf(const tj::Node* n) const;

    /// A chain of calls from the function, and the ids of its callee's nodes in the inlined script graph.
    struct Scope
    {
        InlinedIndex::Chain chain;
        std::unordered_map<const tj::Node*, int> ids;
        std::unordered_map<const tj::Node*, std::unique_ptr<Scope>> calls; ///< one call deeper, made on first use
    };

    const ExecOptions& m_options;
    RunWatch m_watch { m_options.timeoutMs };
    QElapsedTimer m_clock;
    quint64 m_steps = 0;
    quint64 m_bindings = 0;
    Env* m_env = nullptr;
    Position m_position;
    std::vector<InterpreterHooks*> m_hooks;
    std::unordered_map<const tj::Node*, int> m_scriptIds;
    std::shared_ptr<const InlinedIndex> m_index;
    Scope m_top;
    Scope* m_scope = &m_top; ///< the callee running: m_top in the function itself
    std::unordered_map<const tj::Node*, tj::Operation> m_ops;
};

void Interpreter::Impl::checkInterrupt()
{
    const tj::Node* n = m_position.node;
    if (m_options.cancel && m_options.cancel->load())
        throw Interrupted("cancelled", n ? locationOf(n) : SourceLocation {});
    if (m_options.timeoutMs > 0 && (++m_steps & 63) == 0 && m_clock.elapsed() > m_options.timeoutMs) {
        QString loops;
        for (const LoopFrame& f : m_position.loops)
            loops += QStringLiteral(", in iteration %1 of the loop at line %2").arg(f.iteration + 1).arg(f.line);
        throw Interrupted(QStringLiteral("did not finish within %1 s; stopped here%2 (a loop that never ends?)")
                              .arg(m_options.timeoutMs / 1000.0)
                              .arg(loops)
                              .toStdString(),
            n ? locationOf(n) : SourceLocation {});
    }
}

std::vector<Slot> Interpreter::Impl::runGraph(tj::Graph& graph, std::vector<Slot> inputs)
{
    if (m_position.depth > 200)
        throw std::runtime_error("call depth exceeds 200: recursion?");
    Env env;
    auto gInputs = graph.inputs();
    if (gInputs.size() != inputs.size())
        throw std::runtime_error(
            "expected " + std::to_string(gInputs.size()) + " arguments, got " + std::to_string(inputs.size()));
    for (size_t i = 0; i < inputs.size(); ++i)
        bindSlot(env, gInputs[i], std::move(inputs[i]));
    Env* saved = m_env;
    m_env = &env;
    ++m_position.depth;
    try {
        runBlock(graph.block());
    } catch (...) {
        --m_position.depth;
        m_env = saved;
        throw;
    }
    --m_position.depth;
    std::vector<Slot> outs;
    for (auto* o : graph.outputs())
        outs.push_back(get(env, o));
    m_env = saved;
    return outs;
}

void Interpreter::Impl::bindSlot(Env& env, const tj::Value* v, Slot slot)
{
    for (InterpreterHooks* h : m_hooks)
        h->bound(v, slot.value);
    slot.sequence = ++m_bindings;
    env[v] = std::move(slot);
}

const Slot& Interpreter::Impl::get(Env& env, const tj::Value* v)
{
    auto it = env.find(v);
    if (it != env.end())
        return it->second;
    if (v->node()->kind() == c10::prim::Constant) {
        // Function constants (callees of prim::CallFunction) have no IValue: they stay None here.
        Slot s;
        if (auto iv = tj::toIValue(v))
            s.value = *iv;
        return env.emplace(v, std::move(s)).first->second;
    }
    throw std::runtime_error("value %" + v->debugName() + " used before it was defined");
}

void Interpreter::Impl::runBlock(tj::Block* block)
{
    for (InterpreterHooks* h : m_hooks) {
        if (const std::vector<tj::Node*>* order = h->blockOrder(block)) {
            for (tj::Node* n : *order)
                runNode(n);
            return;
        }
    }
    for (tj::Node* n : block->nodes())
        runNode(n);
}

QVector<NamedValue> Interpreter::Impl::liveValues() const
{
    QHash<QString, const Slot*> latest;
    for (const auto& [v, slot] : *m_env) {
        if (!v->hasDebugName() || v->node()->kind() == c10::prim::Constant)
            continue;
        const QString name = qs(v->debugNameBase());
        const Slot*& best = latest[name];
        if (!best || slot.sequence > best->sequence)
            best = &slot;
    }
    QStringList order = latest.keys();
    order.sort();
    QVector<NamedValue> values;
    for (const QString& name : order)
        values.push_back({ name, summarize(latest.value(name)->value) });
    return values;
}

void Interpreter::Impl::runNode(tj::Node* n)
{
    checkInterrupt();
    tj::Node* savedNode = m_position.node;
    const int savedTop = m_position.scriptNode;
    m_position.node = n;
    // Inside a callee: its node's place in the inlined script graph, else still the call's.
    if (const int id = idOf(n); id >= 0 || m_position.depth == 1)
        m_position.scriptNode = id;
    for (InterpreterHooks* h : m_hooks)
        h->beforeNode(n, *this);
    try {
        dispatchNode(n);
    } catch (const NodeError&) {
        throw;
    } catch (const Interrupted&) {
        throw;
    } catch (const std::exception& e) {
        // Name the node that failed, once, at the innermost level.
        throw NodeError(
            std::string(n->kind().toQualString()) + ": " + torchErrorMessage(e.what()).toStdString(), locationOf(n));
    }
    for (InterpreterHooks* h : m_hooks)
        h->afterNode(n, *this);
    // Nested blocks and callees changed the position; restore it for what follows.
    m_position.node = savedNode;
    m_position.scriptNode = savedTop;
}

void Interpreter::Impl::dispatchNode(tj::Node* n)
{
    using namespace c10;
    Env& env = *m_env;
    switch (n->kind()) {
    case prim::Constant:
        get(env, n->output());
        return;
    case prim::If:
        return runIf(n);
    case prim::Loop:
        return runLoop(n);
    case prim::ListConstruct: {
        auto lt = n->output()->type()->expect<c10::ListType>();
        c10::impl::GenericList list(lt->getElementType());
        list.reserve(n->inputs().size());
        for (auto* in : n->inputs())
            list.push_back(get(env, in).value);
        bindSlot(env, n->output(), Slot { list });
        return;
    }
    case prim::ListUnpack: {
        const auto items = get(env, n->input()).value.toListRef().vec();
        if (items.size() != n->outputs().size())
            throw std::runtime_error("cannot unpack a list of " + std::to_string(items.size()) + " elements into "
                + std::to_string(n->outputs().size()) + " values");
        for (size_t i = 0; i < items.size(); ++i)
            bindSlot(env, n->outputs()[i], Slot { items[i] });
        return;
    }
    case prim::TupleConstruct: {
        std::vector<IValue> items;
        for (auto* in : n->inputs())
            items.push_back(get(env, in).value);
        auto tt = n->output()->type()->expect<c10::TupleType>();
        bindSlot(env, n->output(),
            Slot { tt->schema() ? IValue(c10::ivalue::Tuple::createNamed(std::move(items), tt))
                                : IValue(c10::ivalue::Tuple::create(std::move(items))) });
        return;
    }
    case prim::TupleUnpack: {
        const auto elems = get(env, n->input()).value.toTupleRef().elements().vec();
        for (size_t i = 0; i < n->outputs().size(); ++i)
            bindSlot(env, n->outputs()[i], Slot { elems.at(i) });
        return;
    }
    case prim::TupleIndex: {
        const IValue tuple = get(env, n->input(0)).value;
        int64_t idx = get(env, n->input(1)).value.toInt();
        const auto& elems = tuple.toTupleRef().elements();
        if (idx < 0)
            idx += int64_t(elems.size());
        bindSlot(env, n->output(), Slot { elems.at(size_t(idx)) });
        return;
    }
    case prim::DictConstruct: {
        auto dt = n->output()->type()->expect<c10::DictType>();
        c10::impl::GenericDict dict(dt->getKeyType(), dt->getValueType());
        for (size_t i = 0; i + 1 < n->inputs().size(); i += 2)
            dict.insert_or_assign(get(env, n->input(i)).value, get(env, n->input(i + 1)).value);
        bindSlot(env, n->output(), Slot { dict });
        return;
    }
    case prim::GetAttr: {
        auto obj = get(env, n->input()).value.toObject();
        bindSlot(env, n->output(), Slot { obj->getAttr(n->s(attr::name)) });
        return;
    }
    case prim::SetAttr: {
        auto obj = get(env, n->input(0)).value.toObject();
        obj->setAttr(n->s(attr::name), get(env, n->input(1)).value);
        return;
    }
    case prim::CreateObject: {
        auto cls = n->output()->type()->expect<c10::ClassType>();
        auto obj = c10::ivalue::Object::create(c10::StrongTypePtr(cls->compilation_unit(), cls), cls->numAttributes());
        bindSlot(env, n->output(), Slot { obj });
        return;
    }
    case prim::isinstance: {
        const IValue v = get(env, n->input()).value;
        bool result = false;
        for (const auto& t : n->tys(attr::types))
            result |= v.type()->isSubtypeOf(*t);
        bindSlot(env, n->output(), Slot { result });
        return;
    }
    case prim::Uninitialized:
        bindSlot(env, n->output(), Slot {});
        return;
    case prim::unchecked_cast:
        bindSlot(env, n->output(), get(env, n->input()));
        return;
    case prim::RaiseException: {
        const IValue msg = get(env, n->input(0)).value;
        std::ostringstream os;
        if (n->inputs().size() > 1 && !get(env, n->input(1)).value.isNone())
            os << get(env, n->input(1)).value.toStringRef() << ": ";
        if (msg.isString())
            os << msg.toStringRef();
        else
            os << msg;
        throw tj::JITException(os.str());
    }
    case aten::warn: {
        // warnings.warn: the interpreter implements it itself; the message goes to the hooks.
        const IValue msg = get(env, n->input(0)).value;
        std::ostringstream os;
        if (msg.isString())
            os << msg.toStringRef();
        else
            os << msg;
        for (InterpreterHooks* h : m_hooks)
            h->userWarning(qs(os.str()));
        return;
    }
    case prim::CallFunction: {
        auto fnType = n->input(0)->type()->expect<c10::FunctionType>();
        tj::Function* fn = fnType->function();
        std::vector<Slot> args;
        for (size_t i = 1; i < n->inputs().size(); ++i)
            args.push_back(get(env, n->input(i)));
        return callGraph(n, *fn, std::move(args), qs(fn->name()), nullptr);
    }
    case prim::CallMethod: {
        const IValue self = get(env, n->input(0)).value;
        auto cls = self.type()->cast<c10::ClassType>();
        if (!cls)
            throw std::runtime_error("prim::CallMethod on a value that is not an object");
        tj::Function* fn = cls->findMethod(n->s(c10::attr::name));
        if (!fn)
            throw std::runtime_error("no method " + n->s(c10::attr::name));
        std::vector<Slot> args;
        for (auto* in : n->inputs())
            args.push_back(get(env, in));
        return callGraph(n, *fn, std::move(args),
            qs(cls->name() ? cls->name()->name() : std::string()) + QLatin1Char('.') + qs(n->s(c10::attr::name)),
            &self);
    }
    default:
        for (InterpreterHooks* h : m_hooks)
            if (h->runOperator(n, *this))
                return;
        tj::Stack stack;
        stack.reserve(n->inputs().size() + 1);
        for (auto* in : n->inputs())
            stack.push_back(get(env, in).value);
        callOperation(operationFor(n), n, stack);
        storeOutputs(n, *this, stack);
        return;
    }
}

void Interpreter::Impl::runIf(tj::Node* n)
{
    Env& env = *m_env;
    const bool taken = get(env, n->input()).value.toBool();
    for (InterpreterHooks* h : m_hooks)
        h->enterBranch(n, *this, taken);
    tj::Block* block = n->blocks().at(taken ? 0 : 1);
    ++m_position.blockDepth;
    {
        FrameScope frame(m_position.frames,
            { ExecFrame::Kind::Branch, QStringLiteral("if"), locationOf(n).line, idOf(n), -1, -1, taken ? 0 : 1 });
        runBlock(block);
    }
    --m_position.blockDepth;
    for (size_t i = 0; i < n->outputs().size(); ++i)
        bindSlot(env, n->outputs()[i], get(env, block->outputs()[i]));
}

void Interpreter::Impl::runLoop(tj::Node* n)
{
    Env& env = *m_env;
    for (InterpreterHooks* h : m_hooks)
        h->enterLoop(n, *this);
    const int64_t maxTrips = get(env, n->input(0)).value.toInt();
    bool cond = get(env, n->input(1)).value.toBool();
    const size_t carried = n->inputs().size() - 2;
    std::vector<Slot> values;
    for (size_t i = 0; i < carried; ++i)
        values.push_back(get(env, n->input(i + 2)));
    tj::Block* body = n->blocks().at(0);
    const int line = locationOf(n).line;
    const int loopId = idOf(n);
    int64_t i = 0;
    for (; i < maxTrips && cond; ++i) {
        m_position.loops.push_back({ loopId, int(i), line });
        bindSlot(env, body->inputs()[0], Slot { IValue(i) });
        for (size_t k = 0; k < carried; ++k)
            bindSlot(env, body->inputs()[k + 1], values[k]);
        ++m_position.blockDepth;
        {
            FrameScope frame(m_position.frames,
                { ExecFrame::Kind::Loop, QStringLiteral("loop"), line, loopId, int(i),
                    maxTrips == std::numeric_limits<int64_t>::max() ? -1 : maxTrips, -1 });
            runBlock(body);
        }
        --m_position.blockDepth;
        m_position.loops.pop_back();
        cond = get(env, body->outputs()[0]).value.toBool();
        for (InterpreterHooks* h : m_hooks)
            h->loopIteration(n, *this, i);
        for (size_t k = 0; k < carried; ++k)
            values[k] = get(env, body->outputs()[k + 1]);
    }
    for (InterpreterHooks* h : m_hooks)
        h->leaveLoop(n, *this, i);
    for (size_t k = 0; k < carried; ++k)
        bindSlot(env, n->outputs()[k], values[k]);
}

void Interpreter::Impl::callGraph(
    tj::Node* n, tj::Function& fn, std::vector<Slot> args, const QString& name, const IValue* self)
{
    for (InterpreterHooks* h : m_hooks)
        h->enterCall(n, self);
    tj::Graph& graph = *tj::toGraphFunction(fn).graph();
    Scope* caller = m_scope;
    if (m_index) {
        std::unique_ptr<Scope>& callee = caller->calls[n];
        if (!callee) {
            callee = std::make_unique<Scope>();
            callee->chain = InlinedIndex::deeper(caller->chain, fn, n);
            callee->ids = m_index->idsOf(callee->chain, graph);
        }
        m_scope = callee.get();
    }
    std::vector<Slot> outs;
    try {
        FrameScope frame(m_position.frames, { ExecFrame::Kind::Function, name, locationOf(n).line, -1, -1, -1, -1 });
        outs = runGraph(graph, std::move(args));
    } catch (...) {
        m_scope = caller;
        for (InterpreterHooks* h : m_hooks)
            h->leaveCall(n);
        throw;
    }
    m_scope = caller;
    for (InterpreterHooks* h : m_hooks)
        h->leaveCall(n);
    Env& env = *m_env;
    for (size_t i = 0; i < n->outputs().size(); ++i)
        bindSlot(env, n->outputs()[i], std::move(outs.at(i)));
}

int Interpreter::Impl::idOf(const tj::Node* n) const
{
    const auto& ids = m_position.depth == 1 ? m_scriptIds : m_scope->ids;
    auto it = ids.find(n);
    return it == ids.end() ? -1 : it->second;
}

tj::Operation& Interpreter::Impl::operationFor(tj::Node* n)
{
    auto it = m_ops.find(n);
    if (it != m_ops.end())
        return it->second;
    const tj::Operator* op = n->maybeOperator();
    if (!op)
        throw std::runtime_error(
            "no operator for " + std::string(n->kind().toQualString()) + " (JitScope cannot run this node)");
    return m_ops.emplace(n, n->getOperation()).first->second;
}

Interpreter::Interpreter(const ExecOptions& options)
    : d(std::make_unique<Impl>(options))
{ }

Interpreter::~Interpreter() = default;

void Interpreter::addHooks(InterpreterHooks* hooks)
{
    d->m_hooks.push_back(hooks);
}

void Interpreter::indexScriptGraph(
    tj::Graph& graph, const QVector<int>& inlinedIds, std::shared_ptr<const InlinedIndex> inlinedIndex)
{
    d->m_index = inlinedIds.isEmpty() || !inlinedIndex || inlinedIndex->isEmpty() ? nullptr : std::move(inlinedIndex);
    d->m_top = {};
    d->m_scope = &d->m_top;
    int next = 0;
    forEachNode(graph.block(), [&](const tj::Node* n) {
        const int id = next++;
        d->m_scriptIds[n] = inlinedIds.isEmpty() ? id : inlinedIds.value(id, -1);
    });
}

int Interpreter::runningId(const tj::Node* n) const
{
    return d->idOf(n);
}

int Interpreter::scriptId(const tj::Node* n) const
{
    auto it = d->m_scriptIds.find(n);
    return it == d->m_scriptIds.end() ? -1 : it->second;
}

std::vector<IValue> Interpreter::run(
    tj::Graph& graph, std::vector<IValue> inputs, const QString& name, std::vector<NotePtr>* notes)
{
    std::vector<Slot> slots;
    slots.reserve(inputs.size());
    for (auto& v : inputs)
        slots.push_back(Slot { std::move(v) });
    FrameScope frame(d->m_position.frames, { ExecFrame::Kind::Function, name, 0, -1, -1, -1, -1 });
    std::vector<Slot> outs = d->runGraph(graph, std::move(slots));
    std::vector<IValue> values;
    values.reserve(outs.size());
    if (notes)
        notes->clear();
    for (auto& o : outs) {
        values.push_back(std::move(o.value));
        if (notes)
            notes->push_back(std::move(o.note));
    }
    return values;
}

const Position& Interpreter::position() const
{
    return d->m_position;
}

void Interpreter::runPlain(tj::Node* n, Frame& frame)
{
    tj::Stack stack;
    stack.reserve(n->inputs().size() + 1);
    for (auto* in : n->inputs())
        stack.push_back(frame.value(in));
    callOperation(d->operationFor(n), n, stack);
    storeOutputs(n, frame, stack);
}

void Interpreter::callOperator(tj::Node* n, std::vector<IValue>& stack)
{
    callOperation(d->operationFor(n), n, stack);
}

void Interpreter::storeOutputs(tj::Node* n, Frame& frame, std::vector<IValue>& stack)
{
    const size_t nout = n->outputs().size();
    if (stack.size() < nout)
        throw std::runtime_error(std::string(n->kind().toQualString()) + " returned too few values");
    for (size_t i = 0; i < nout; ++i)
        frame.bind(n->outputs()[i], std::move(stack[stack.size() - nout + i]));
}

SourceLocation Interpreter::locationOf(const tj::Node* n)
{
    SourceLocation loc;
    auto r = n->sourceRange();
    // Archives map their printed code back to the user's original source.
    if (r.source())
        if (auto orig = r.source()->findSourceRangeThatGenerated(r))
            r = *orig;
    if (auto flc = r.file_line_col()) {
        loc.file = qs(std::get<0>(*flc));
        loc.line = int(std::get<1>(*flc));
        loc.column = int(std::get<2>(*flc));
    }
    return loc;
}

} // namespace jitscope
