// The built-in executor: walks a TorchScript graph node by node (not libtorch's GraphExecutor, which runs an
// optimised copy), and, when tracing, records what Python's torch.jit.trace would record for the same code.
//
// Python's tracer sees a different program than TorchScript does: `x.size(0)` is a 0-dim tensor there (the
// tracer records aten::size + prim::NumToTensor), arithmetic on it is tensor arithmetic, and ints handed to
// ops are looked up through tracer::ArgumentStash. The executor therefore keeps, next to every int that
// came from a size, a "shadow": the tensor Python would hold. Python numbers in add/sub/mul/div become
// wrapped 0-dim tensors, as Python's argument parser makes them, and factories get their options filled
// in as Python's bindings do.

#include "execute/executor.h"
#include "ir/torcherror_p.h"
#include "ir/irsnapshot_p.h"
#include "load/modelhandle_p.h"
#include "diff/tracediff.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/autograd/grad_mode.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/jit_exception.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <QElapsedTimer>
#include <QRegularExpression>

#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace jitscope {

namespace tj = torch::jit;
using c10::IValue;

struct RuntimeValues
{
    std::vector<IValue> values;
};

struct TraceProgram
{
    std::shared_ptr<tj::Graph> graph;
    std::optional<tj::Module> self;
    std::mutex mutex;
};

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

/// An error while running a node, with the node's place (the innermost node that failed).
struct NodeError : std::runtime_error
{
    NodeError(const std::string& what, SourceLocation where)
        : std::runtime_error(what)
        , location(std::move(where))
    { }
    SourceLocation location;
};

/// Raised to stop a run (cancel, timeout); carries the message and the node that was running.
struct Interrupted : std::runtime_error
{
    Interrupted(const std::string& what, SourceLocation where = {})
        : std::runtime_error(what)
        , location(std::move(where))
    { }
    SourceLocation location;
};

// ---------------------------------------------------------------------------------------------
// Inputs, created by the contract shared with tests/oracle/inputsets.py.

at::ScalarType scalarTypeOf(const QString& dtype)
{
    static const QHash<QString, at::ScalarType> types = {
        { QStringLiteral("f32"), at::kFloat },
        { QStringLiteral("f64"), at::kDouble },
        { QStringLiteral("f16"), at::kHalf },
        { QStringLiteral("bf16"), at::kBFloat16 },
        { QStringLiteral("i64"), at::kLong },
        { QStringLiteral("i32"), at::kInt },
        { QStringLiteral("i16"), at::kShort },
        { QStringLiteral("i8"), at::kChar },
        { QStringLiteral("u8"), at::kByte },
        { QStringLiteral("bool"), at::kBool },
    };
    return types.value(dtype, at::kFloat);
}

at::Tensor makeTensor(const InputValue& v)
{
    std::vector<int64_t> shape(v.shape.begin(), v.shape.end());
    const at::ScalarType dt = scalarTypeOf(v.dtype);
    const bool isFloat = dt == at::kFloat || dt == at::kDouble;
    const bool isReduced = dt == at::kHalf || dt == at::kBFloat16;
    const bool isBool = dt == at::kBool;
    const auto opts = at::TensorOptions().dtype(dt);
    switch (v.fill) {
    case InputValue::Fill::Rand:
        if (isFloat)
            return at::rand(shape, opts);
        if (isReduced)
            return at::rand(shape, at::kFloat).to(dt);
        if (isBool)
            return at::rand(shape) < 0.5;
        return at::randint(0, 10, shape, opts);
    case InputValue::Fill::Randn:
        if (isFloat)
            return at::randn(shape, opts);
        if (isReduced)
            return at::randn(shape, at::kFloat).to(dt);
        if (isBool)
            return at::randn(shape) > 0;
        if (dt == at::kByte)
            return at::randint(0, 10, shape, opts);
        return at::randint(-10, 10, shape, opts);
    case InputValue::Fill::Zeros:
        return at::zeros(shape, opts);
    case InputValue::Fill::Ones:
        return at::ones(shape, opts);
    case InputValue::Fill::Full:
        return at::full(shape, v.fillValue, opts);
    case InputValue::Fill::Arange: {
        int64_t n = 1;
        for (auto d : shape)
            n *= d;
        auto t = at::arange(n, at::kLong).reshape(shape);
        if (isBool)
            return (t % 2) == 1;
        return t.to(dt);
    }
    case InputValue::Fill::Values: {
        std::vector<double> values(v.values.begin(), v.values.end());
        return at::tensor(values, at::kDouble).reshape(shape).to(dt);
    }
    }
    return at::Tensor();
}

IValue makeValue(const InputValue& v)
{
    switch (v.kind) {
    case InputValue::Kind::Tensor:
        return makeTensor(v);
    case InputValue::Kind::Int:
        return IValue(int64_t(v.intValue));
    case InputValue::Kind::Float:
        return IValue(v.floatValue);
    case InputValue::Kind::Bool:
        return IValue(v.boolValue);
    case InputValue::Kind::None:
        return IValue();
    case InputValue::Kind::Tuple: {
        std::vector<IValue> items;
        for (const auto& i : v.items)
            items.push_back(makeValue(i));
        return c10::ivalue::Tuple::create(std::move(items));
    }
    case InputValue::Kind::List: {
        std::vector<IValue> items;
        for (const auto& i : v.items)
            items.push_back(makeValue(i));
        // Lists of tensors are typed Tensor[] (as Python's toTraceableStack types them), not by the first shape.
        c10::TypePtr elem = items.empty() || items.front().isTensor() ? c10::TensorType::get() : items.front().type();
        c10::impl::GenericList list(elem);
        for (auto& i : items)
            list.push_back(std::move(i));
        return list;
    }
    }
    return IValue();
}

std::vector<IValue> makeInputs(const InputSet& set, quint64 seed)
{
    at::NoGradGuard noGrad;
    at::manual_seed(seed);
    std::vector<IValue> values;
    for (const auto& a : set.args)
        values.push_back(makeValue(a));
    return values;
}

/// Turns tracing off for a scope (statistics for the debugger must not be recorded into the trace).
struct TracingPause
{
    TracingPause()
        : m_state(tj::tracer::getTracingState())
    {
        if (m_state)
            tj::tracer::setTracingState(nullptr);
    }
    ~TracingPause()
    {
        if (m_state)
            tj::tracer::setTracingState(m_state);
    }
    std::shared_ptr<tj::tracer::TracingState> m_state;
};

ValueSummary summarize(const IValue& v)
{
    TracingPause noTrace;
    ValueSummary s;
    if (v.isTensor()) {
        const at::Tensor& t = v.toTensor();
        s.kind = QStringLiteral("tensor");
        if (!t.defined()) {
            s.text = QStringLiteral("undefined tensor");
            return s;
        }
        s.dtype = qs(std::string(c10::toString(t.scalar_type())));
        static const QHash<QString, QString> pythonNames = {
            { QStringLiteral("Float"), QStringLiteral("float32") },
            { QStringLiteral("Double"), QStringLiteral("float64") },
            { QStringLiteral("Half"), QStringLiteral("float16") },
            { QStringLiteral("BFloat16"), QStringLiteral("bfloat16") },
            { QStringLiteral("Long"), QStringLiteral("int64") },
            { QStringLiteral("Int"), QStringLiteral("int32") },
            { QStringLiteral("Short"), QStringLiteral("int16") },
            { QStringLiteral("Char"), QStringLiteral("int8") },
            { QStringLiteral("Byte"), QStringLiteral("uint8") },
            { QStringLiteral("Bool"), QStringLiteral("bool") },
        };
        s.dtype = pythonNames.value(s.dtype, s.dtype);
        for (auto d : t.sizes())
            s.shape.push_back(d);
        s.device = qs(t.device().str());
        if (t.numel() > 0 && !t.is_complex() && t.layout() == at::kStrided) {
            at::NoGradGuard noGrad;
            const at::Tensor d = t.detach().to(at::kDouble);
            s.sum = d.sum().item<double>();
            const at::Tensor nan = d.isnan();
            const at::Tensor inf = d.isinf();
            s.nanCount = nan.sum().item<int64_t>();
            s.infCount = inf.sum().item<int64_t>();
            const at::Tensor finite = d.masked_select(d.isfinite());
            if (finite.numel() > 0) {
                s.min = finite.min().item<double>();
                s.max = finite.max().item<double>();
                s.mean = finite.mean().item<double>();
                s.std = finite.numel() > 1 ? finite.std().item<double>() : 0.0;
            } else {
                s.min = s.max = s.mean = s.std = std::numeric_limits<double>::quiet_NaN();
            }
            const at::Tensor flat = d.reshape({ -1 });
            const int64_t n = std::min<int64_t>(64, flat.numel());
            const at::Tensor head = flat.slice(0, 0, n).contiguous();
            for (int64_t i = 0; i < n; ++i)
                s.preview.push_back(head.data_ptr<double>()[i]);
            if (d.dim() >= 2) {
                at::Tensor plane = d;
                while (plane.dim() > 2)
                    plane = plane.select(0, 0);
                plane = plane.slice(0, 0, 64).slice(1, 0, 64).to(at::kFloat).contiguous();
                s.sliceRows = int(plane.size(0));
                s.sliceColumns = int(plane.size(1));
                const float* p = plane.data_ptr<float>();
                s.slice = QVector<float>(p, p + plane.numel());
            }
        }
        QStringList dims;
        for (auto d : s.shape)
            dims << QString::number(d);
        s.text = QStringLiteral("%1[%2]").arg(s.dtype, dims.join(QLatin1Char(',')));
        return s;
    }
    if (v.isTuple() || v.isList()) {
        s.kind = v.isTuple() ? QStringLiteral("tuple") : QStringLiteral("list");
        const auto items = v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec();
        QStringList parts;
        for (const auto& i : items) {
            s.items.push_back(summarize(i));
            parts << s.items.last().text;
        }
        s.text = (v.isTuple() ? QStringLiteral("(%1)") : QStringLiteral("[%1]")).arg(parts.join(QStringLiteral(", ")));
        return s;
    }
    s.kind = v.isInt() ? QStringLiteral("int")
        : v.isDouble() ? QStringLiteral("float")
        : v.isBool()   ? QStringLiteral("bool")
        : v.isNone()   ? QStringLiteral("none")
        : v.isString() ? QStringLiteral("str")
                       : QStringLiteral("other");
    std::ostringstream os;
    os << v;
    s.text = qs(os.str());
    if (s.text.size() > 80)
        s.text = s.text.left(77) + QStringLiteral("...");
    return s;
}

// ---------------------------------------------------------------------------------------------

/// A runtime value and, while tracing, the tensor Python would hold in its place.
struct Slot
{
    IValue value;
    at::Tensor shadow; ///< defined when the value is a number Python would have as a traced 0-dim tensor
    std::vector<at::Tensor> elems; ///< for int lists: per-element shadows (undefined where none)
    bool fromSize = false; ///< value derives from a tensor's shape (for explaining baked constants)
    bool fromData = false; ///< value derives from tensor data (bool(), item(), ...)
    bool pythonTuple = false; ///< a TensorList Python's binding would have returned as a tuple
    quint64 sequence = 0; ///< when it was bound: the latest binding of a variable is its live value
    std::shared_ptr<std::vector<Slot>> items; ///< tuples holding shadowed values: their elements' slots

    bool carriesPythonView() const { return hasShadow() || hasElemShadows() || items || pythonTuple; }
    QString origin; ///< Python-like text of where the value came from ("x.size(0)")

    bool hasShadow() const { return shadow.defined(); }
    bool hasElemShadows() const
    {
        for (const auto& e : elems)
            if (e.defined())
                return true;
        return false;
    }
};

using Env = std::unordered_map<const tj::Value*, Slot>;

struct Provenance
{
    int scriptNode = -1;
    QVector<LoopFrame> loops;
};

class Executor;
thread_local Executor* t_executor = nullptr;

void recordSourceLocationHook(tj::Node* n);
void tracerWarningHook(const std::string& msg);

class Executor
{
public:
    Executor(const ExecOptions& options, bool tracing)
        : m_options(options)
        , m_tracing(tracing)
    {
        m_clock.start();
    }

    std::vector<Slot> runFunction(tj::Graph& graph, std::vector<Slot> inputs, const QString& name = QString())
    {
        FrameScope frame(m_frames, { ExecFrame::Kind::Function, name, 0, -1, -1, -1, -1 });
        return runGraph(graph, std::move(inputs), 0);
    }

    /// Pushes a frame for the lifetime of the scope.
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

    /// Numbers the top-level graph's nodes the same way the IR snapshot does (depth-first), or, for a model loaded
    /// with calls inlined, by their ids in the inlined snapshot (@p inlinedIds, FunctionInfo::inlinedIds).
    void indexScriptGraph(tj::Graph& graph, const QVector<int>& inlinedIds)
    {
        int next = 0;
        forEachNode(graph.block(), [&](const tj::Node* n) {
            const int id = next++;
            m_scriptIds[n] = inlinedIds.isEmpty() ? id : inlinedIds.value(id, -1);
        });
    }

    const QVector<TraceWarning>& warnings() const { return m_warnings; }

    /// Submodule objects to their trace scope names ("__module.layer1.0"), as torch.jit.trace_module names them.
    void setModuleScopes(std::unordered_map<const c10::ivalue::Object*, std::string> scopes)
    {
        m_moduleScopes = std::move(scopes);
    }
    const std::unordered_map<const tj::Source*, Provenance>& provenance() const { return m_provenance; }

    // Called from libtorch's tracer through the hooks above.
    void onRecordedNode(tj::Node* n) { n->setSourceRange(currentRange()); }
    void onTracerWarning(const std::string& msg) { addWarning(classifyTracerWarning(msg), qs(msg), QString()); }
    std::string nameFor(const at::Tensor& t) const
    {
        auto it = m_names.find(t.unsafeGetTensorImpl());
        return it == m_names.end() ? std::string() : it->second;
    }

private:
    // ----- bookkeeping

    void checkInterrupt()
    {
        if (m_options.cancel && m_options.cancel->load())
            throw Interrupted("cancelled", m_currentNode ? locationOf(m_currentNode) : SourceLocation {});
        if (m_options.timeoutMs > 0 && (++m_steps & 63) == 0 && m_clock.elapsed() > m_options.timeoutMs) {
            QString loops;
            for (const LoopFrame& f : m_loops)
                loops += QStringLiteral(", in iteration %1 of the loop at line %2").arg(f.iteration + 1).arg(f.line);
            throw Interrupted(QStringLiteral("did not finish within %1 s; stopped here%2 (a loop that never ends?)")
                                  .arg(m_options.timeoutMs / 1000.0)
                                  .arg(loops)
                                  .toStdString(),
                m_currentNode ? locationOf(m_currentNode) : SourceLocation {});
        }
    }

    SourceLocation locationOf(const tj::Node* n) const
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

    /// A distinct (cheap, empty) Source per provenance, so that trace nodes can be mapped back.
    tj::SourceRange currentRange()
    {
        if (!m_rangeValid) {
            const SourceLocation loc = m_currentNode ? locationOf(m_currentNode) : SourceLocation {};
            auto source = std::make_shared<tj::Source>(c10::string_view(""),
                c10::optional<std::string>(loc.file.toStdString()), size_t(std::max(loc.line, 0)));
            m_provenance[source.get()] = { m_currentTopNode, m_loops };
            m_sources.push_back(source);
            m_range = tj::SourceRange(source, 0, 0);
            m_rangeValid = true;
        }
        return m_range;
    }

    void addWarning(const QString& kind, const QString& message, const QString& suggestion,
        const tj::Node* at = nullptr, const QString& detail = QString(), int count = -1)
    {
        TraceWarning w;
        w.kind = kind;
        w.detail = detail;
        w.count = count;
        w.message = message;
        w.suggestion = suggestion;
        w.scriptNode = m_currentTopNode;
        const tj::Node* n = at ? at : m_currentNode;
        if (n)
            w.location = locationOf(n);
        for (const auto& existing : m_warnings)
            if (existing.kind == w.kind && existing.message == w.message && existing.location == w.location)
                return;
        m_warnings.push_back(w);
    }

    /// The TracerWarning Python raises when a traced tensor becomes a Python value.
    void addPythonConversionWarning(const QString& what, const tj::Node* at = nullptr)
    {
        addWarning(
            what == QLatin1String("boolean") ? QStringLiteral("tensor-to-bool") : QStringLiteral("tensor-to-number"),
            QStringLiteral("Converting a tensor to a Python %1 might cause the trace to be incorrect. We "
                           "can't record the data flow of Python values, so this value will be treated as a "
                           "constant in the future. This means that the trace might not generalize to other "
                           "inputs!")
                .arg(what),
            what == QLatin1String("boolean")
                ? QStringLiteral("use torch.where (or script the function) instead of branching on a tensor "
                                 "value")
                : QStringLiteral("keep the value a tensor instead of converting it to a Python number"),
            at);
    }

    static QString classifyTracerWarning(const std::string& msg)
    {
        const QString m = qs(msg);
        if (m.startsWith(QLatin1String("torch.tensor")))
            return QStringLiteral("baked-constant");
        if (m.contains(QLatin1String("resize")))
            return QStringLiteral("in-place-on-view");
        if (m.contains(QLatin1String("Python boolean")))
            return QStringLiteral("tensor-to-bool");
        if (m.contains(QLatin1String("Python index")))
            return QStringLiteral("tensor-to-index");
        if (m.contains(QLatin1String("Python")))
            return QStringLiteral("tensor-to-number");
        return QStringLiteral("tracer");
    }

    // ----- graph walking

    std::vector<Slot> runGraph(tj::Graph& graph, std::vector<Slot> inputs, int depth)
    {
        if (depth > 200)
            throw std::runtime_error("call depth exceeds 200: recursion?");
        Env env;
        auto gInputs = graph.inputs();
        if (gInputs.size() != inputs.size())
            throw std::runtime_error(
                "expected " + std::to_string(gInputs.size()) + " arguments, got " + std::to_string(inputs.size()));
        for (size_t i = 0; i < inputs.size(); ++i)
            bind(env, gInputs[i], std::move(inputs[i]));
        ++m_depth;
        runBlock(graph.block(), env);
        --m_depth;
        std::vector<Slot> outs;
        for (auto* o : graph.outputs())
            outs.push_back(get(env, o));
        return outs;
    }

    void bind(Env& env, const tj::Value* v, Slot slot)
    {
        if (m_tracing && slot.value.isTensor() && v->hasDebugName()) {
            const at::Tensor& t = slot.value.toTensor();
            if (t.defined())
                m_names[t.unsafeGetTensorImpl()] = v->debugNameBase();
        }
        slot.sequence = ++m_bindings;
        env[v] = std::move(slot);
    }

    const Slot& get(Env& env, const tj::Value* v)
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

    void runBlock(tj::Block* block, Env& env)
    {
        if (!m_tracing) {
            for (tj::Node* n : block->nodes())
                runNode(n, env);
            return;
        }
        for (tj::Node* n : pythonOrder(block))
            runNode(n, env);
    }

    /// The order Python evaluates a block in. It differs from TorchScript's in one place: for `x[a, b:f(n)]`
    /// Python computes every index (f(n)) before it applies any of them, while TorchScript interleaves.
    const std::vector<tj::Node*>& pythonOrder(tj::Block* block)
    {
        auto it = m_orders.find(block);
        if (it != m_orders.end())
            return it->second;
        std::vector<tj::Node*> order(block->nodes().begin(), block->nodes().end());
        for (size_t i = 0; i < order.size(); ++i) {
            tj::Node* first = order[i];
            if (!isIndexing(first) || first->kind() == c10::prim::Constant)
                continue;
            const tj::SourceRange range = first->sourceRange();
            // The subscript's own nodes share its range; find where they end.
            size_t last = i;
            for (size_t j = i + 1; j < order.size(); ++j)
                if (order[j]->sourceRange() == range)
                    last = j;
            if (last == i)
                continue;
            std::unordered_set<const tj::Value*> produced;
            std::vector<tj::Node*> group, hoisted;
            for (size_t j = i; j <= last; ++j) {
                tj::Node* n = order[j];
                bool dependsOnGroup = false;
                for (auto* in : n->inputs())
                    dependsOnGroup |= produced.count(in) > 0;
                if (n->sourceRange() == range || dependsOnGroup || !n->blocks().empty()) {
                    group.push_back(n);
                    for (auto* o : n->outputs())
                        produced.insert(o);
                } else {
                    hoisted.push_back(n);
                }
            }
            if (hoisted.empty())
                continue;
            size_t k = i;
            for (tj::Node* n : hoisted)
                order[k++] = n;
            for (tj::Node* n : group)
                order[k++] = n;
            i = last;
        }
        return m_orders.emplace(block, std::move(order)).first->second;
    }

    void enterNode(tj::Node* n)
    {
        m_currentNode = n;
        if (m_depth == 1) {
            auto it = m_scriptIds.find(n);
            m_currentTopNode = it == m_scriptIds.end() ? -1 : it->second;
        }
        m_rangeValid = false;
    }

    static QString valueName(const tj::Value* v)
    {
        return v->hasDebugName() ? qs(v->debugNameBase()) : QStringLiteral("%") + qs(v->debugName());
    }

    void notify(tj::Node* n, bool after, Env& env)
    {
        if (!m_options.observer)
            return;
        NodeEvent e;
        e.scriptNode = m_currentTopNode;
        e.depth = m_depth - 1;
        e.loopPath = m_loops;
        e.location = locationOf(n);
        e.kind = qs(n->kind().toQualString());
        e.after = after;
        e.blockDepth = m_blockDepth;
        e.frames = m_frames;
        e.liveValues = [this, &env]() { return liveValues(env); };
        if (m_tracing)
            e.traceSoFar = []() {
                const auto& state = tj::tracer::getTracingState();
                return state ? snapshotGraph(*state->graph) : IrGraph {};
            };
        if (!after && m_depth == 1 && m_options.breakLines.contains(e.location.line)) {
            // Once per line and loop iteration: the first node of the line in each pass.
            QString key = QString::number(e.location.line);
            for (const LoopFrame& f : m_loops)
                key += QStringLiteral("/%1:%2").arg(f.loopNode).arg(f.iteration);
            if (key != m_lastBreak) {
                e.breakpoint = true;
                m_lastBreak = key;
            }
        } else if (!after && m_depth == 1) {
            m_lastBreak.clear();
        }
        if (m_options.summarizeValues) {
            if (after) {
                for (const tj::Value* o : n->outputs()) {
                    auto it = env.find(o);
                    if (it != env.end())
                        e.values.push_back({ valueName(o), summarize(it->second.value) });
                }
            } else if (e.breakpoint) {
                e.values = liveValues(env);
            }
        }
        m_options.observer(e);
    }

    /// Every named variable of the frame with its latest value.
    QVector<NamedValue> liveValues(const Env& env) const
    {
        QHash<QString, const Slot*> latest;
        for (const auto& [v, slot] : env) {
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

    void runNode(tj::Node* n, Env& env)
    {
        checkInterrupt();
        tj::Node* savedNode = m_currentNode;
        const int savedTop = m_currentTopNode;
        enterNode(n);
        notify(n, false, env);
        try {
            dispatchNode(n, env);
        } catch (const NodeError&) {
            throw;
        } catch (const Interrupted&) {
            throw;
        } catch (const std::exception& e) {
            // Name the node that failed, once, at the innermost level.
            throw NodeError(std::string(n->kind().toQualString()) + ": " + torchErrorMessage(e.what()).toStdString(),
                locationOf(n));
        }
        notify(n, true, env);
        // Nested blocks and callees changed the current node; restore for what follows.
        m_currentNode = savedNode;
        m_currentTopNode = savedTop;
        m_rangeValid = false;
    }

    void dispatchNode(tj::Node* n, Env& env)
    {
        using namespace c10;
        switch (n->kind()) {
        case prim::Constant:
            get(env, n->output());
            return;
        case prim::If:
            return runIf(n, env);
        case prim::Loop:
            return runLoop(n, env);
        case prim::ListConstruct:
            return listConstruct(n, env);
        case prim::ListUnpack:
            return listUnpack(n, env);
        case prim::TupleConstruct: {
            std::vector<IValue> items;
            bool pythonView = false;
            for (auto* in : n->inputs()) {
                items.push_back(get(env, in).value);
                pythonView |= get(env, in).carriesPythonView();
            }
            auto tt = n->output()->type()->expect<c10::TupleType>();
            Slot s;
            s.value = tt->schema() ? IValue(c10::ivalue::Tuple::createNamed(std::move(items), tt))
                                   : IValue(c10::ivalue::Tuple::create(std::move(items)));
            if (pythonView) {
                s.items = std::make_shared<std::vector<Slot>>();
                for (auto* in : n->inputs())
                    s.items->push_back(get(env, in));
            }
            bind(env, n->output(), std::move(s));
            return;
        }
        case prim::TupleUnpack: {
            const Slot tuple = get(env, n->input());
            const auto elems = tuple.value.toTupleRef().elements().vec();
            for (size_t i = 0; i < n->outputs().size(); ++i)
                bind(env, n->outputs()[i], tuple.items ? tuple.items->at(i) : Slot { elems.at(i) });
            return;
        }
        case prim::TupleIndex: {
            const Slot tuple = get(env, n->input(0));
            int64_t idx = get(env, n->input(1)).value.toInt();
            const auto& elems = tuple.value.toTupleRef().elements();
            if (idx < 0)
                idx += int64_t(elems.size());
            bind(env, n->output(), tuple.items ? tuple.items->at(size_t(idx)) : Slot { elems.at(size_t(idx)) });
            return;
        }
        case prim::DictConstruct: {
            auto dt = n->output()->type()->expect<c10::DictType>();
            c10::impl::GenericDict dict(dt->getKeyType(), dt->getValueType());
            for (size_t i = 0; i + 1 < n->inputs().size(); i += 2)
                dict.insert_or_assign(get(env, n->input(i)).value, get(env, n->input(i + 1)).value);
            bind(env, n->output(), Slot { dict });
            return;
        }
        case prim::GetAttr: {
            auto obj = get(env, n->input()).value.toObject();
            bind(env, n->output(), Slot { obj->getAttr(n->s(attr::name)) });
            return;
        }
        case prim::SetAttr: {
            auto obj = get(env, n->input(0)).value.toObject();
            obj->setAttr(n->s(attr::name), get(env, n->input(1)).value);
            return;
        }
        case prim::CreateObject: {
            auto cls = n->output()->type()->expect<c10::ClassType>();
            auto obj
                = c10::ivalue::Object::create(c10::StrongTypePtr(cls->compilation_unit(), cls), cls->numAttributes());
            bind(env, n->output(), Slot { obj });
            return;
        }
        case prim::isinstance: {
            const IValue v = get(env, n->input()).value;
            bool result = false;
            for (const auto& t : n->tys(attr::types))
                result |= v.type()->isSubtypeOf(*t);
            bind(env, n->output(), Slot { result });
            return;
        }
        case prim::Uninitialized:
            bind(env, n->output(), Slot {});
            return;
        case prim::unchecked_cast:
            bind(env, n->output(), get(env, n->input()));
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
            // warnings.warn: the interpreter implements it itself; the message goes to the run's warnings.
            const IValue msg = get(env, n->input(0)).value;
            std::ostringstream os;
            if (msg.isString())
                os << msg.toStringRef();
            else
                os << msg;
            addWarning(QStringLiteral("user-warning"), qs(os.str()), QString());
            return;
        }
        case prim::CallFunction:
            return callFunction(n, env);
        case prim::CallMethod:
            return callMethod(n, env);
        default:
            return runOperator(n, env);
        }
    }

    void runIf(tj::Node* n, Env& env)
    {
        const Slot& cond = get(env, n->input());
        const bool taken = cond.value.toBool();
        if (m_tracing && cond.hasShadow())
            addPythonConversionWarning(QStringLiteral("boolean"), n);
        if (m_tracing && (cond.hasShadow() || cond.fromSize)) {
            addWarning(QStringLiteral("shape-dependent-branch"),
                QStringLiteral("branch at line %1 frozen to its %2 branch: its condition %3 depends on an "
                               "input's shape")
                    .arg(locationOf(n).line)
                    .arg(taken ? QStringLiteral("then") : QStringLiteral("else"))
                    .arg(cond.origin.isEmpty() ? QStringLiteral("(a shape)") : cond.origin),
                QStringLiteral("script this function (torch.jit.script) or trace it for each shape it "
                               "will see"),
                n, cond.origin, taken ? 0 : 1);
        } else if (m_tracing && cond.fromData) {
            addWarning(QStringLiteral("data-dependent-branch"),
                QStringLiteral("branch at line %1 frozen to its %2 branch: its condition %3 depends on "
                               "tensor values")
                    .arg(locationOf(n).line)
                    .arg(taken ? QStringLiteral("then") : QStringLiteral("else"))
                    .arg(cond.origin.isEmpty() ? QStringLiteral("(tensor data)") : cond.origin),
                QStringLiteral("use torch.where or script this function so that both branches stay in "
                               "the graph"),
                n, cond.origin, taken ? 0 : 1);
        }
        tj::Block* block = n->blocks().at(taken ? 0 : 1);
        ++m_blockDepth;
        {
            FrameScope frame(m_frames,
                { ExecFrame::Kind::Branch, QStringLiteral("if"), locationOf(n).line,
                    m_depth == 1 && m_scriptIds.count(n) ? m_scriptIds[n] : -1, -1, -1, taken ? 0 : 1 });
            runBlock(block, env);
        }
        --m_blockDepth;
        for (size_t i = 0; i < n->outputs().size(); ++i)
            bind(env, n->outputs()[i], get(env, block->outputs()[i]));
    }

    /// `for row in x` compiles to a loop over len(x) selecting x[i]; Python iterates over x.unbind(0).
    tj::Node* tensorIterationSelect(tj::Node* loop) const
    {
        const tj::Node* trip = loop->input(0)->node();
        if (trip->kind() != c10::aten::len || !trip->input(0)->type()->cast<c10::TensorType>())
            return nullptr;
        const tj::Value* x = trip->input(0);
        tj::Block* body = loop->blocks().at(0);
        for (tj::Node* b : body->nodes()) {
            if (b->kind() == c10::aten::select && b->input(0) == x && b->input(2) == body->inputs()[0]) {
                auto dim = tj::toIValue(b->input(1));
                if (dim && dim->isInt() && dim->toInt() == 0)
                    return b;
            }
        }
        return nullptr;
    }

    void runLoop(tj::Node* n, Env& env)
    {
        if (m_tracing) {
            if (tj::Node* select = tensorIterationSelect(n)) {
                const at::Tensor x = get(env, select->input(0)).value.toTensor();
                addWarning(QStringLiteral("iterating-tensor"),
                    QStringLiteral("Iterating over a tensor might cause the trace to be incorrect. Passing a "
                                   "tensor of different shape won't change the number of iterations executed "
                                   "(and might lead to errors or silently give incorrect results)."),
                    QStringLiteral("iterate over range(%1.size(0)) in a scripted function, or use a batched op")
                        .arg(describe(select->input(0), env)),
                    n, QStringLiteral("%1.size(0) (iterating over %1)").arg(describe(select->input(0), env)),
                    int(x.size(0)));
                m_iterRows[n] = at::unbind(x, 0);
                m_iterSelects[select] = n;
            }
        }
        const Slot& tripSlot = get(env, n->input(0));
        const int64_t maxTrips = tripSlot.value.toInt();
        Slot condSlot = get(env, n->input(1));
        bool cond = condSlot.value.toBool();
        const size_t carried = n->inputs().size() - 2;
        std::vector<Slot> values;
        for (size_t i = 0; i < carried; ++i)
            values.push_back(get(env, n->input(i + 2)));
        tj::Block* body = n->blocks().at(0);
        const int line = locationOf(n).line;
        const int loopId = m_depth == 1 && m_scriptIds.count(n) ? m_scriptIds[n] : -1;
        bool dataDependent = false;
        int64_t i = 0;
        for (; i < maxTrips && cond; ++i) {
            m_loops.push_back({ loopId, int(i), line });
            bind(env, body->inputs()[0], Slot { IValue(i) });
            for (size_t k = 0; k < carried; ++k)
                bind(env, body->inputs()[k + 1], values[k]);
            ++m_blockDepth;
            {
                FrameScope frame(m_frames,
                    { ExecFrame::Kind::Loop, QStringLiteral("loop"), line, loopId, int(i),
                        maxTrips == std::numeric_limits<int64_t>::max() ? -1 : maxTrips, -1 });
                runBlock(body, env);
            }
            --m_blockDepth;
            m_loops.pop_back();
            condSlot = get(env, body->outputs()[0]);
            cond = condSlot.value.toBool();
            dataDependent |= condSlot.fromData;
            for (size_t k = 0; k < carried; ++k)
                values[k] = get(env, body->outputs()[k + 1]);
        }
        if (m_tracing && maxTrips != std::numeric_limits<int64_t>::max()
            && (tripSlot.hasShadow() || tripSlot.fromSize)) {
            addWarning(QStringLiteral("shape-dependent-loop"),
                QStringLiteral("loop at line %1 unrolled %2 times: trip count %3")
                    .arg(line)
                    .arg(i)
                    .arg(tripSlot.origin.isEmpty() ? QStringLiteral("depends on an input's shape") : tripSlot.origin),
                QStringLiteral("script the loop (torch.jit.script) or use a vectorised op; a trace "
                               "repeats exactly %1 iterations for every input")
                    .arg(i),
                n, tripSlot.origin, int(i));
        } else if (m_tracing && (dataDependent || condSlot.fromData || get(env, n->input(1)).fromData)) {
            addWarning(QStringLiteral("data-dependent-loop"),
                QStringLiteral("loop at line %1 unrolled %2 times: its condition depends on tensor values")
                    .arg(line)
                    .arg(i),
                QStringLiteral("script the loop (torch.jit.script); a trace repeats exactly %1 iterations").arg(i), n,
                QStringLiteral("a condition on tensor values"), int(i));
        }
        for (size_t k = 0; k < carried; ++k)
            bind(env, n->outputs()[k], values[k]);
    }

    void listConstruct(tj::Node* n, Env& env)
    {
        auto lt = n->output()->type()->expect<c10::ListType>();
        c10::impl::GenericList list(lt->getElementType());
        list.reserve(n->inputs().size());
        Slot s;
        bool anyShadow = false;
        for (auto* in : n->inputs()) {
            const Slot& e = get(env, in);
            list.push_back(e.value);
            s.elems.push_back(e.shadow);
            anyShadow |= e.hasShadow();
            s.fromSize |= e.fromSize;
            s.fromData |= e.fromData;
        }
        if (!anyShadow)
            s.elems.clear();
        s.value = list;
        bind(env, n->output(), std::move(s));
    }

    void listUnpack(tj::Node* n, Env& env)
    {
        const Slot& l = get(env, n->input());
        const auto items = l.value.toListRef().vec();
        if (items.size() != n->outputs().size())
            throw std::runtime_error("cannot unpack a list of " + std::to_string(items.size()) + " elements into "
                + std::to_string(n->outputs().size()) + " values");
        for (size_t i = 0; i < items.size(); ++i) {
            Slot s { items[i] };
            if (i < l.elems.size())
                s.shadow = l.elems[i];
            s.fromSize = l.fromSize;
            s.fromData = l.fromData;
            if (!l.origin.isEmpty())
                s.origin = QStringLiteral("%1[%2]").arg(l.origin).arg(i);
            bind(env, n->outputs()[i], std::move(s));
        }
    }

    void callFunction(tj::Node* n, Env& env)
    {
        auto fnType = n->input(0)->type()->expect<c10::FunctionType>();
        tj::Function* fn = fnType->function();
        std::vector<Slot> args;
        for (size_t i = 1; i < n->inputs().size(); ++i)
            args.push_back(get(env, n->input(i)));
        FrameScope frame(m_frames, { ExecFrame::Kind::Function, qs(fn->name()), locationOf(n).line, -1, -1, -1, -1 });
        auto outs = runGraph(*tj::toGraphFunction(*fn).graph(), std::move(args), m_depth);
        for (size_t i = 0; i < n->outputs().size(); ++i)
            bind(env, n->outputs()[i], std::move(outs.at(i)));
    }

    void callMethod(tj::Node* n, Env& env)
    {
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
        // Python calls submodules through Module.__call__, which opens a trace scope per module call.
        std::shared_ptr<tj::Graph> traceGraph;
        if (m_tracing && n->s(c10::attr::name) == "forward") {
            auto it = m_moduleScopes.find(self.toObject().get());
            if (it != m_moduleScopes.end() && tj::tracer::getTracingState()) {
                traceGraph = tj::tracer::getTracingState()->graph;
                traceGraph->push_scope(it->second);
            }
        }
        std::vector<Slot> outs;
        FrameScope frame(m_frames,
            { ExecFrame::Kind::Function,
                qs(cls->name() ? cls->name()->name() : std::string()) + QLatin1Char('.') + qs(n->s(c10::attr::name)),
                locationOf(n).line, -1, -1, -1, -1 });
        try {
            outs = runGraph(*tj::toGraphFunction(*fn).graph(), std::move(args), m_depth);
        } catch (...) {
            if (traceGraph)
                traceGraph->pop_scope();
            throw;
        }
        if (traceGraph)
            traceGraph->pop_scope();
        for (size_t i = 0; i < n->outputs().size(); ++i)
            bind(env, n->outputs()[i], std::move(outs.at(i)));
    }

    // ----- operators

    tj::Operation& operationFor(tj::Node* n)
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

    static bool isIntLike(const IValue& v) { return v.isInt() || v.isDouble() || v.isBool(); }

    /// Python's view of a number: its shadow tensor, or a wrapped 0-dim tensor as the argument parser makes.
    static at::Tensor asPythonTensor(const Slot& s)
    {
        if (s.hasShadow())
            return s.shadow;
        at::Tensor t;
        {
            at::AutoDispatchBelowADInplaceOrView guard;
            t = at::scalar_to_tensor(s.value.toScalar());
        }
        t.unsafeGetTensorImpl()->set_wrapped_number(true);
        return t;
    }

    /// Python-like text for a value in messages: where it came from when known ("x.size(0)"), its constant
    /// value, or its variable name.
    QString describe(const tj::Value* v, Env& env) const
    {
        auto it = env.find(v);
        if (it != env.end() && !it->second.origin.isEmpty())
            return it->second.origin;
        if (v->node()->kind() == c10::prim::Constant) {
            std::ostringstream os;
            if (auto iv = tj::toIValue(v))
                os << *iv;
            return qs(os.str());
        }
        return qs(v->debugNameBase());
    }

    /// Runs int/float arithmetic on shadowed numbers as Python would run it on 0-dim tensors.
    /// Returns true when handled.
    bool emulateNumberOp(tj::Node* n, Env& env)
    {
        const std::string kind = n->kind().toQualString();
        const size_t nin = n->inputs().size();
        if (nin == 0 || nin > 2)
            return false;
        std::vector<const Slot*> in;
        bool anyShadow = false, allNumbers = true;
        for (auto* v : n->inputs()) {
            in.push_back(&get(env, v));
            anyShadow |= in.back()->hasShadow();
            allNumbers &= isIntLike(in.back()->value);
        }
        if (!anyShadow || !allNumbers)
            return false;
        static const std::unordered_map<std::string, std::string> binary = {
            { "aten::add", "add" },
            { "aten::sub", "sub" },
            { "aten::mul", "mul" },
            { "aten::div", "div" },
            { "aten::floordiv", "floor_divide" },
            { "aten::remainder", "remainder" },
            { "aten::pow", "pow" },
            { "aten::eq", "eq" },
            { "aten::ne", "ne" },
            { "aten::lt", "lt" },
            { "aten::le", "le" },
            { "aten::gt", "gt" },
            { "aten::ge", "ge" },
        };
        // Compute the TorchScript result first: it is what the program goes on with.
        runPlain(n, env);
        Slot& out = env[n->output()];
        at::Tensor shadow;
        if (nin == 1) {
            if (kind == "aten::neg") {
                shadow = at::neg(in[0]->shadow);
            } else {
                // int(), float(), math functions: Python converts the tensor to a number, baked from here on.
                addPythonConversionWarning(kind == "aten::Int" ? QStringLiteral("integer") : QStringLiteral("float"));
                out.fromSize = true;
                out.origin = in[0]->origin;
                return true;
            }
        } else {
            auto it = binary.find(kind);
            if (it == binary.end()) {
                addPythonConversionWarning(QStringLiteral("float"));
                out.fromSize = true;
                return true;
            }
            const std::string& op = it->second;
            const bool lhsTensor = in[0]->hasShadow();
            const Slot& a = *in[0];
            const Slot& b = *in[1];
            const bool arithmetic = op == "add" || op == "sub" || op == "mul" || op == "div" || op == "floor_divide";
            if (lhsTensor) {
                const at::Tensor& ta = a.shadow;
                if (arithmetic || b.hasShadow())
                    shadow = callBinary(op, ta, asPythonTensor(b));
                else
                    shadow = callBinary(op, ta, b.value.toScalar());
            } else {
                // number OP tensor: Python calls the tensor's reflected method.
                const at::Tensor& tb = b.shadow;
                if (op == "add" || op == "mul")
                    shadow = callBinary(op, tb, asPythonTensor(a));
                else if (op == "sub")
                    shadow = at::rsub(tb, a.value.toScalar());
                else if (op == "div")
                    shadow = at::mul(at::reciprocal(tb), asPythonTensor(a));
                else if (op == "floor_divide")
                    shadow = at::floor_divide(asPythonTensor(a), tb);
                else if (op == "eq" || op == "ne")
                    shadow = callBinary(op, tb, a.value.toScalar());
                else if (op == "lt")
                    shadow = at::gt(tb, a.value.toScalar());
                else if (op == "le")
                    shadow = at::ge(tb, a.value.toScalar());
                else if (op == "gt")
                    shadow = at::lt(tb, a.value.toScalar());
                else if (op == "ge")
                    shadow = at::le(tb, a.value.toScalar());
                else if (op == "pow")
                    shadow = at::pow(a.value.toScalar(), tb);
                else if (op == "remainder")
                    shadow = at::remainder(a.value.toScalar(), tb);
            }
        }
        out.shadow = shadow;
        out.fromSize = true;
        QStringList operands;
        for (const Slot* i : in)
            operands << (i->origin.isEmpty() ? qs([&] {
                std::ostringstream os;
                os << i->value;
                return os.str();
            }())
                                             : i->origin);
        static const QHash<QString, QString> symbols = {
            { QStringLiteral("aten::add"), QStringLiteral("+") },
            { QStringLiteral("aten::sub"), QStringLiteral("-") },
            { QStringLiteral("aten::mul"), QStringLiteral("*") },
            { QStringLiteral("aten::div"), QStringLiteral("/") },
            { QStringLiteral("aten::floordiv"), QStringLiteral("//") },
            { QStringLiteral("aten::eq"), QStringLiteral("==") },
            { QStringLiteral("aten::ne"), QStringLiteral("!=") },
            { QStringLiteral("aten::lt"), QStringLiteral("<") },
            { QStringLiteral("aten::le"), QStringLiteral("<=") },
            { QStringLiteral("aten::gt"), QStringLiteral(">") },
            { QStringLiteral("aten::ge"), QStringLiteral(">=") },
            { QStringLiteral("aten::remainder"), QStringLiteral("%") },
        };
        const QString sym = symbols.value(qs(kind));
        if (operands.size() == 2 && !sym.isEmpty())
            out.origin = QStringLiteral("%1 %2 %3").arg(operands[0], sym, operands[1]);
        else if (kind == "aten::neg")
            out.origin = QLatin1Char('-') + operands.value(0);
        return true;
    }

    /// The tensor op Python runs for `a <op> b`; `b` is a tensor (Tensor overload) or a number (Scalar overload).
    template <typename Other> static at::Tensor callBinary(const std::string& op, const at::Tensor& a, const Other& b)
    {
        if (op == "add")
            return at::add(a, b);
        if (op == "sub")
            return at::sub(a, b);
        if (op == "mul")
            return at::mul(a, b);
        if (op == "div")
            return at::div(a, b);
        if (op == "floor_divide")
            return at::floor_divide(a, b);
        if (op == "remainder")
            return at::remainder(a, b);
        if (op == "pow")
            return at::pow(a, b);
        if (op == "eq")
            return at::eq(a, b);
        if (op == "ne")
            return at::ne(a, b);
        if (op == "lt")
            return at::lt(a, b);
        if (op == "le")
            return at::le(a, b);
        if (op == "gt")
            return at::gt(a, b);
        if (op == "ge")
            return at::ge(a, b);
        return at::Tensor();
    }

    /// Runs a node's operator on the current values, untouched.
    void runPlain(tj::Node* n, Env& env)
    {
        tj::Operation& op = operationFor(n);
        tj::Stack stack;
        stack.reserve(n->inputs().size() + 1);
        for (auto* in : n->inputs())
            stack.push_back(get(env, in).value);
        // Variadic operators (aten::format, prim::Print, ...) take their argument count last, as the
        // interpreter passes it.
        if (n->getOperator().schema().is_vararg())
            stack.push_back(IValue(int64_t(n->inputs().size())));
        op(stack);
        storeOutputs(n, env, stack);
    }

    void storeOutputs(tj::Node* n, Env& env, tj::Stack& stack)
    {
        const size_t nout = n->outputs().size();
        if (stack.size() < nout)
            throw std::runtime_error(std::string(n->kind().toQualString()) + " returned too few values");
        for (size_t i = 0; i < nout; ++i)
            bind(env, n->outputs()[i], Slot { std::move(stack[stack.size() - nout + i]) });
    }

    /// True when the node comes from subscript syntax (x[...]) rather than a method call (x.select(...)).
    /// Where a node came from in the user's code: archives map their printed code back to the original.
    static tj::SourceRange originalRange(const tj::Node* n)
    {
        tj::SourceRange r = n->sourceRange();
        if (r.source())
            if (auto orig = r.source()->findSourceRangeThatGenerated(r))
                r = *orig;
        return r;
    }

    static bool isIndexing(const tj::Node* n)
    {
        const tj::SourceRange r = originalRange(n);
        if (!r.source())
            return false;
        const std::string text = r.text().str();
        return text.find('[') != std::string::npos && text.find(".select(") == std::string::npos
            && text.find(".slice(") == std::string::npos;
    }

    /// Python's at::indexing::copy_to, which `x[...] = value` records.
    static void pythonCopyTo(at::Tensor& dst, const at::Tensor& src)
    {
        if (dst.sizes().equals(src.sizes())) {
            dst.copy_(src);
        } else if (src.dim() == 0 && src.device().is_cpu()) {
            dst.fill_(src);
        } else {
            std::vector<int64_t> sizes = src.sizes().vec();
            size_t first = 0;
            while (first < sizes.size() && sizes[first] == 1)
                ++first;
            at::Tensor view = src.view(std::vector<int64_t>(sizes.begin() + long(first), sizes.end()));
            if (!dst.sizes().equals(view.sizes()))
                view = view.expand(dst.sizes());
            dst.copy_(view);
        }
    }

    /// `x[i] += v`: an in-place op on a subscript, which Python follows with `x[i] = result`.
    /// The full source line where a node starts.
    static std::string lineText(const tj::Node* n)
    {
        const tj::SourceRange r = originalRange(n);
        if (!r.source())
            return {};
        const std::string text = r.source()->text_str().str();
        const size_t start = std::min(r.start(), text.size());
        const size_t begin = text.rfind('\n', start == 0 ? 0 : start - 1);
        const size_t end = text.find('\n', start);
        return text.substr(begin == std::string::npos ? 0 : begin + 1,
            end == std::string::npos ? std::string::npos : end - (begin == std::string::npos ? 0 : begin + 1));
    }

    static bool isAugmentedSubscript(const tj::Node* n)
    {
        if (!isIndexing(n) || n->inputs().empty())
            return false;
        const std::string text = lineText(n);
        static const char* ops[] = { "+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>=" };
        for (const char* op : ops)
            if (text.find(op) != std::string::npos)
                return sameStart(n->input(0)->node(), n);
        return false;
    }

    static bool sameStart(const tj::Node* a, const tj::Node* b)
    {
        const auto& ra = a->sourceRange();
        const auto& rb = b->sourceRange();
        return ra.source() && ra.source() == rb.source() && ra.start() == rb.start();
    }

    void restoreAugmentedSubscript(tj::Node* n, Env& env)
    {
        std::vector<const tj::Node*> chain;
        const tj::Value* v = n->input(0);
        while (sameStart(v->node(), n)
            && (v->node()->kind() == c10::aten::slice || v->node()->kind() == c10::aten::select)) {
            chain.insert(chain.begin(), v->node());
            v = v->node()->input(0);
        }
        if (chain.empty())
            return;
        at::Tensor view = get(env, v).value.toTensor();
        for (const tj::Node* c : chain) {
            const int64_t rank = view.dim();
            int64_t dim = get(env, c->input(1)).value.toInt();
            if (dim < 0)
                dim += rank;
            if (c->kind() == c10::aten::select) {
                view = at::select(view, dim, get(env, c->input(2)).value.toInt());
            } else {
                const IValue start = get(env, c->input(2)).value, end = get(env, c->input(3)).value;
                view = at::slice(view, dim, start.isNone() ? 0 : start.toInt(),
                    end.isNone() ? std::numeric_limits<int64_t>::max() : end.toInt(),
                    get(env, c->input(4)).value.toInt());
            }
        }
        pythonCopyTo(view, get(env, n->output()).value.toTensor());
    }

    /// TorchScript's builtin `number - tensor` is `-tensor + number`; Python records aten::rsub.
    static bool isBuiltinRsubNeg(const tj::Node* n)
    {
        if (n->kind() != c10::aten::neg || n->output()->uses().size() != 1)
            return false;
        const tj::Node* user = n->output()->uses()[0].user;
        const auto flc = n->sourceRange().file_line_col();
        return user->kind() == c10::aten::add && user->input(0) == n->output() && flc
            && std::get<0>(*flc) == "<string>";
    }

    static bool allowsNumbersAsTensors(const std::string& name)
    {
        static const std::set<std::string> allowed = {
            "add",
            "add_",
            "div",
            "div_",
            "divide",
            "divide_",
            "mul",
            "mul_",
            "multiply",
            "multiply_",
            "sub",
            "sub_",
            "subtract",
            "subtract_",
            "true_divide",
            "true_divide_",
            "floor_divide",
            "floor_divide_",
        };
        return allowed.count(name) > 0;
    }

    void runOperator(tj::Node* n, Env& env)
    {
        if (!m_tracing)
            return runPlain(n, env);
        const std::string kind = n->kind().toQualString();

        // Sizes: Python's tracer records them and hands out 0-dim tensors.
        if (kind == "aten::size" && n->inputs().size() == 2 && n->input(0)->type()->cast<c10::TensorType>()) {
            const at::Tensor self = get(env, n->input(0)).value.toTensor();
            const Slot& dimSlot = get(env, n->input(1));
            const int64_t dim = dimSlot.value.toInt();
            Slot s { IValue(self.size(dim)) };
            s.shadow = tj::tracer::getSizeOf(self, dim);
            s.fromSize = true;
            s.origin = QStringLiteral("%1.size(%2)").arg(describe(n->input(0), env)).arg(dim);
            bind(env, n->output(), std::move(s));
            return;
        }
        if (kind == "aten::size" && n->inputs().size() == 1) {
            const at::Tensor self = get(env, n->input(0)).value.toTensor();
            Slot s { IValue(c10::List<int64_t>(self.sizes().vec())) };
            for (int64_t d = 0; d < self.dim(); ++d)
                s.elems.push_back(tj::tracer::getSizeOf(self, d));
            s.fromSize = true;
            s.origin = QStringLiteral("%1.shape").arg(describe(n->input(0), env));
            bind(env, n->output(), std::move(s));
            return;
        }
        if (kind == "aten::numel" && n->inputs().size() == 1) {
            const at::Tensor self = get(env, n->input(0)).value.toTensor();
            Slot s { IValue(self.numel()) };
            s.shadow = tj::tracer::getNumelOf(self);
            s.fromSize = true;
            s.origin = QStringLiteral("%1.numel()").arg(describe(n->input(0), env));
            bind(env, n->output(), std::move(s));
            return;
        }
        if (kind == "aten::len" && n->input(0)->type()->cast<c10::TensorType>()) {
            runPlain(n, env);
            bool iterationCount = true;
            for (const auto& use : n->output()->uses())
                iterationCount &= use.user->kind() == c10::prim::Loop && use.offset == 0
                    && tensorIterationSelect(use.user) != nullptr;
            if (iterationCount && !n->output()->uses().empty())
                return;
            Slot& s = env[n->output()];
            s.fromSize = true;
            s.origin = QStringLiteral("len(%1)").arg(describe(n->input(0), env));
            addWarning(QStringLiteral("len-of-tensor"),
                QStringLiteral("Using len to get tensor shape might cause the trace to be incorrect. "
                               "Recommended usage would be tensor.shape[0]. Passing a tensor of different "
                               "shape might lead to errors or silently give incorrect results."),
                QStringLiteral("use %1.shape[0] (recorded dynamically) instead of len(%1), which is baked "
                               "in as the constant %2")
                    .arg(describe(n->input(0), env))
                    .arg(s.value.toInt()));
            return;
        }
        if (kind == "aten::__getitem__" && n->inputs().size() == 2) {
            const Slot& list = get(env, n->input(0));
            if (list.hasElemShadows() || list.fromSize) {
                runPlain(n, env);
                Slot& s = env[n->output()];
                int64_t idx = get(env, n->input(1)).value.toInt();
                const int64_t size = int64_t(list.value.toListRef().size());
                if (idx < 0)
                    idx += size;
                if (idx >= 0 && size_t(idx) < list.elems.size())
                    s.shadow = list.elems[size_t(idx)];
                s.fromSize = list.fromSize;
                s.origin = QStringLiteral("%1[%2]").arg(list.origin).arg(get(env, n->input(1)).value.toInt());
                return;
            }
        }
        if (kind == "aten::len" || kind == "aten::dim") {
            runPlain(n, env);
            if (kind == "aten::dim") {
                Slot& s = env[n->output()];
                s.fromSize = true;
                s.origin = QStringLiteral("%1.dim()").arg(describe(n->input(0), env));
            }
            return;
        }
        if (n->outputs().size() == 1 && n->output(0)->type()->kind() == c10::TypeKind::ListType
            && (kind == "aten::slice" || kind == "aten::list" || kind == "aten::add" || kind == "aten::copy")
            && n->input(0)->type()->kind() == c10::TypeKind::ListType) {
            // Python slices and concatenates torch.Size tuples: the traced elements travel along.
            const Slot a = get(env, n->input(0));
            runPlain(n, env);
            if (!a.hasElemShadows() && !(kind == "aten::add" && get(env, n->input(1)).hasElemShadows()))
                return;
            Slot& out = env[n->output()];
            std::vector<at::Tensor> elems = a.elems;
            elems.resize(a.value.toListRef().size());
            if (kind == "aten::slice") {
                const int64_t size = int64_t(elems.size());
                auto bound = [&](const IValue& v, int64_t def) {
                    if (v.isNone())
                        return def;
                    int64_t b = v.toInt();
                    if (b < 0)
                        b += size;
                    return std::clamp<int64_t>(b, 0, size);
                };
                const int64_t step = n->inputs().size() > 3 ? get(env, n->input(3)).value.toInt() : 1;
                const int64_t start = bound(get(env, n->input(1)).value, 0);
                const int64_t end = bound(get(env, n->input(2)).value, size);
                std::vector<at::Tensor> sliced;
                for (int64_t k = start; step > 0 && k < end; k += step)
                    sliced.push_back(elems[size_t(k)]);
                out.elems = sliced;
            } else if (kind == "aten::add") {
                const Slot& b = get(env, n->input(1));
                std::vector<at::Tensor> tail = b.elems;
                tail.resize(b.value.toListRef().size());
                elems.insert(elems.end(), tail.begin(), tail.end());
                out.elems = elems;
            } else {
                out.elems = elems;
            }
            out.fromSize = true;
            return;
        }
        // Tensor to Python value conversions: baked as constants by Python's tracer.
        if ((kind == "aten::Bool" || kind == "aten::Int" || kind == "aten::Float" || kind == "aten::item"
                || kind == "aten::ScalarImplicit")
            && n->input(0)->type()->cast<c10::TensorType>()) {
            runPlain(n, env);
            Slot& s = env[n->output()];
            s.fromData = true;
            s.origin = describe(n->input(0), env);
            const QString what = kind == "aten::Bool" ? QStringLiteral("boolean")
                : kind == "aten::Int"                 ? QStringLiteral("integer")
                : kind == "aten::Float"               ? QStringLiteral("float")
                                                      : QStringLiteral("number");
            addWarning(kind == "aten::Bool" ? QStringLiteral("tensor-to-bool") : QStringLiteral("tensor-to-number"),
                QStringLiteral("Converting a tensor to a Python %1 might cause the trace to be incorrect. We "
                               "can't record the data flow of Python values, so this value will be treated "
                               "as a constant in the future. This means that the trace might not generalize "
                               "to other inputs!")
                    .arg(what),
                kind == "aten::Bool"
                    ? QStringLiteral("use torch.where (or script the function) instead of branching on a "
                                     "tensor value")
                    : QStringLiteral("keep the value a tensor instead of converting it to a Python number"));
            return;
        }
        if (emulateNumberOp(n, env))
            return;
        if (isBuiltinRsubNeg(n)) {
            // Computed without recording; the add that follows records aten::rsub instead.
            auto resume = tj::tracer::pauseTracing();
            runPlain(n, env);
            resume();
            m_rsubOperand[n->output()] = get(env, n->input()).value;
            return;
        }
        if (kind == "aten::add" && m_rsubOperand.count(n->input(0))) {
            const IValue self = m_rsubOperand[n->input(0)];
            const Slot& other = get(env, n->input(1));
            at::Tensor result = other.value.isTensor()
                ? at::rsub(self.toTensor(), other.value.toTensor(), get(env, n->input(2)).value.toScalar())
                : at::rsub(self.toTensor(), other.value.toScalar(), get(env, n->input(2)).value.toScalar());
            bind(env, n->output(), Slot { result });
            return;
        }
        runTracedOperator(n, env);
        if (kind.size() > 1 && kind.back() == '_' && kind != "aten::copy_" && isAugmentedSubscript(n))
            restoreAugmentedSubscript(n, env);
    }

    /// An operator with tensor semantics: runs it the way Python's binding would call it.
    void runTracedOperator(tj::Node* n, Env& env)
    {
        const tj::Operator* op = n->maybeOperator();
        if (!op)
            return runPlain(n, env);
        const c10::FunctionSchema& schema = op->schema();
        const std::string& name = schema.name();
        const std::string base = name.substr(name.find("::") + 2);
        std::vector<IValue> args;
        args.reserve(n->inputs().size());
        for (auto* in : n->inputs())
            args.push_back(get(env, in).value);

        // Python numbers bound to the Tensor overload (argument parser's numbers-as-tensors list).
        if (schema.overload_name().find("Scalar") == 0 && allowsNumbersAsTensors(base) && args.size() >= 2) {
            auto handle = c10::Dispatcher::singleton().findSchema({ name, "Tensor" });
            if (handle) {
                tj::Stack stack;
                stack.push_back(args[0]);
                stack.push_back(asPythonTensor(get(env, n->input(1))));
                for (size_t i = 2; i < args.size(); ++i)
                    stack.push_back(args[i]);
                if (stack.size() < handle->schema().arguments().size())
                    stack.push_back(IValue(int64_t(1))); // alpha
                handle->callBoxed(stack);
                storeOutputs(n, env, stack);
                return;
            }
        }
        // A shadowed number given to a Scalar parameter of an op with a Tensor overload: Python passes the tensor.
        if (schema.overload_name().find("Scalar") == 0 && args.size() >= 2 && get(env, n->input(1)).hasShadow()) {
            std::string overload = schema.overload_name();
            overload.replace(0, 6, "Tensor");
            auto handle = c10::Dispatcher::singleton().findSchema({ name, overload });
            if (handle) {
                tj::Stack stack(args.begin(), args.end());
                stack[1] = get(env, n->input(1)).shadow;
                handle->callBoxed(stack);
                storeOutputs(n, env, stack);
                return;
            }
        }

        if (name == "aten::to" && schema.overload_name() == "prim_Device" && args.size() == 5 && args[0].isTensor()
            && !args[1].isNone()) {
            // Python's Tensor.to(device): dispatch_to(self, device, dtype or self.dtype) with self's options.
            const at::Tensor self = args[0].toTensor();
            auto handle = c10::Dispatcher::singleton().findSchema({ "aten::to", "dtype_layout" });
            if (handle) {
                tj::Stack stack { args[0], args[2].isNone() ? IValue(int64_t(self.scalar_type())) : args[2],
                    IValue(int64_t(self.layout())), args[1], IValue(), args[3], args[4], IValue() };
                handle->callBoxed(stack);
                storeOutputs(n, env, stack);
                return;
            }
        }
        if (name == "aten::tensor" || name == "aten::as_tensor") {
            // Python's torch.tensor builds its result with the tracer off: a constant in the trace. For
            // `x[i] = 0` TorchScript makes the value with aten::tensor too; Python's setitem makes it silently.
            bool setitem = false;
            for (const auto& use : n->output()->uses())
                setitem |= use.user->kind() == c10::aten::copy_ && isIndexing(use.user);
            if (!setitem)
                addWarning(QStringLiteral("baked-constant"),
                    QStringLiteral("torch.tensor results are registered as constants in the trace. You can "
                                   "safely ignore this warning if you use this function to create tensors out "
                                   "of constant variables that would be the same every time you call this "
                                   "function. In any other case, this might cause the trace to be incorrect."),
                    QStringLiteral("build the tensor from traced values (e.g. torch.stack) if it depends on "
                                   "the inputs"));
            auto resume = tj::tracer::pauseTracing();
            runPlain(n, env);
            resume();
            return;
        }
        if (base == "copy_" && isIndexing(n) && args.size() >= 2 && args[0].isTensor() && args[1].isTensor()) {
            at::Tensor dst = args[0].toTensor();
            pythonCopyTo(dst, args[1].toTensor());
            bind(env, n->output(), Slot { dst });
            return;
        }
        if (m_iterSelects.count(n)) {
            // `for row in x`: Python took the rows from one aten::unbind when the loop started.
            const auto& rows = m_iterRows[m_iterSelects[n]];
            const int64_t i = args.at(2).toInt();
            bind(env, n->output(), Slot { rows.at(size_t(i)) });
            return;
        }
        for (size_t i = 0; i < n->inputs().size(); ++i) {
            const Slot& in = get(env, n->input(i));
            if ((in.fromSize || in.fromData) && !in.hasShadow() && !in.hasElemShadows() && !in.value.isTensor()) {
                std::ostringstream os;
                os << in.value;
                addWarning(QStringLiteral("baked-constant"),
                    QStringLiteral("%1 is baked into the trace as the constant %2 (argument '%3' of %4)")
                        .arg(in.origin.isEmpty()
                                ? QStringLiteral("a value computed from %1")
                                      .arg(in.fromData ? QStringLiteral("tensor data") : QStringLiteral("a shape"))
                                : in.origin)
                        .arg(qs(os.str()))
                        .arg(i < schema.arguments().size() ? qs(schema.arguments()[i].name()) : QString())
                        .arg(qs(name)),
                    in.fromData ? QStringLiteral("keep the value a tensor so the trace records how it is computed")
                                : QStringLiteral("use x.size(d) / x.shape[d] (recorded dynamically) instead of "
                                                 "len(x), x.dim() or Python arithmetic on shapes"),
                    nullptr, in.origin, -1);
            }
        }
        fillPythonDefaults(schema, base, args);
        if (isIndexing(n) && (base == "slice" || base == "select") && args.size() >= 2 && args[0].isTensor()
            && args[1].isInt()) {
            // Python's indexing (applySlicing) records positive dims and explicit slice bounds.
            const int64_t rank = args[0].toTensor().dim();
            if (args[1].toInt() < 0)
                args[1] = IValue(args[1].toInt() + rank);
            if (base == "slice" && args.size() == 5) {
                if (args[2].isNone())
                    args[2] = IValue(int64_t(0));
                if (args[3].isNone())
                    args[3] = IValue(std::numeric_limits<int64_t>::max());
            }
        }
        const std::string callName = (base == "split" && schema.arguments().size() > 1
                                         && schema.arguments()[1].type()->kind() == c10::TypeKind::ListType)
            ? std::string("aten::split_with_sizes")
            : std::string();

        tj::Graph& traceGraph = *tj::tracer::getTracingState()->graph;
        tj::Node* insertPoint = traceGraph.insertPoint();
        tj::Node* before = insertPoint->prev();
        tj::Stack stack(args.begin(), args.end());
        if (!callName.empty()) {
            auto handle = c10::Dispatcher::singleton().findSchema({ callName, "" });
            if (!handle)
                throw std::runtime_error("no operator " + callName);
            handle->callBoxed(stack);
            storeOutputs(n, env, stack);
            env[n->output()].pythonTuple = true;
            patchShadowedArguments(n, env, handle->schema(), insertPoint, before);
            return;
        }
        if (op->isC10Op() && args.size() == schema.arguments().size()) {
            auto handle = c10::Dispatcher::singleton().findSchema(schema.operator_name());
            if (handle)
                handle->callBoxed(stack);
            else
                operationFor(n)(stack);
        } else {
            if (schema.is_vararg())
                stack.push_back(IValue(int64_t(n->inputs().size())));
            operationFor(n)(stack);
        }
        if (op->isC10Op())
            patchShadowedArguments(n, env, schema, insertPoint, before);
        storeOutputs(n, env, stack);
        // Python's bindings return a TensorList as a tuple.
        if (n->outputs().size() == 1 && n->output()->type()->kind() == c10::TypeKind::ListType
            && n->output()->type()->containedType(0)->kind() == c10::TypeKind::TensorType && op->isC10Op())
            env[n->output()].pythonTuple = true;
    }

    /// What tracer::ArgumentStash does for Python's argument parser, done on the recorded node afterwards
    /// (the stash itself is not exported by libtorch): numbers that Python held as traced 0-dim tensors become
    /// aten::Int/Float/ScalarImplicit of that tensor, inserted right after the tensor's producer.
    void patchShadowedArguments(
        tj::Node* n, Env& env, const c10::FunctionSchema& schema, tj::Node* insertPoint, tj::Node* before)
    {
        const auto& params = schema.arguments();
        bool any = false;
        for (size_t i = 0; i < params.size() && i < n->inputs().size(); ++i) {
            const Slot& s = get(env, n->input(i));
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
        auto convert = [](const at::Tensor& shadow, c10::Symbol as) -> tj::Value* {
            tj::Value* ten = tj::tracer::getValueTrace(shadow);
            tj::Graph& g = *ten->owningGraph();
            tj::WithInsertPoint guard(ten->node()->next());
            return g.insert(as, { ten });
        };
        for (size_t i = 0; i < params.size() && i < n->inputs().size(); ++i) {
            const Slot& s = get(env, n->input(i));
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

    /// Python's bindings fill TensorOptions that TorchScript leaves as None.
    static void fillPythonDefaults(
        const c10::FunctionSchema& schema, const std::string& base, std::vector<IValue>& args)
    {
        const auto& params = schema.arguments();
        auto index = [&](const char* argName) -> int {
            for (size_t i = 0; i < params.size(); ++i)
                if (params[i].name() == argName)
                    return int(i);
            return -1;
        };
        const int dtype = index("dtype"), layout = index("layout"), device = index("device"), pin = index("pin_memory");
        if (device < 0 || size_t(std::max({ dtype, layout, device, pin })) >= args.size())
            return;
        const bool selfTensor = !args.empty() && args[0].isTensor();
        if (base == "to") {
            // Tensor.to(device) in Python: dispatch_to(self, device, self.dtype) with self's options.
            if (selfTensor && schema.overload_name() == "dtype_layout") {
                const at::Tensor& self = args[0].toTensor();
                if (dtype >= 0 && args[dtype].isNone())
                    args[dtype] = IValue(int64_t(self.scalar_type()));
                if (layout >= 0 && args[layout].isNone())
                    args[layout] = IValue(int64_t(self.layout()));
            }
            return;
        }
        if (pin < 0)
            return;
        const bool like = base.size() > 5 && base.compare(base.size() - 5, 5, "_like") == 0;
        const bool method = base.rfind("new_", 0) == 0;
        if ((like || method) && selfTensor) {
            const at::Tensor& self = args[0].toTensor();
            if (dtype >= 0 && args[dtype].isNone())
                args[dtype] = IValue(int64_t(self.scalar_type()));
            if (layout >= 0 && args[layout].isNone())
                args[layout] = IValue(int64_t(self.layout()));
            if (args[device].isNone())
                args[device] = IValue(self.device());
        } else if (selfTensor) {
            return;
        } else if (args[device].isNone()) {
            args[device] = IValue(c10::Device(c10::kCPU));
        }
        if (args[pin].isNone())
            args[pin] = IValue(false);
    }

    const ExecOptions& m_options;
    bool m_tracing;
    QElapsedTimer m_clock;
    quint64 m_steps = 0;
    int m_depth = 0;
    std::unordered_map<const tj::Node*, int> m_scriptIds;
    std::unordered_map<const tj::Node*, tj::Operation> m_ops;
    tj::Node* m_currentNode = nullptr;
    int m_currentTopNode = -1;
    QVector<LoopFrame> m_loops;
    bool m_rangeValid = false;
    tj::SourceRange m_range;
    std::vector<std::shared_ptr<tj::Source>> m_sources;
    std::unordered_map<const tj::Source*, Provenance> m_provenance;
    std::unordered_map<const c10::TensorImpl*, std::string> m_names;
    std::unordered_map<const tj::Value*, IValue> m_rsubOperand;
    std::unordered_map<const tj::Block*, std::vector<tj::Node*>> m_orders;
    std::unordered_map<const c10::ivalue::Object*, std::string> m_moduleScopes;
    QString m_lastBreak;
    quint64 m_bindings = 0;
    QVector<ExecFrame> m_frames;
    int m_blockDepth = 0;
    std::unordered_map<const tj::Node*, std::vector<at::Tensor>> m_iterRows; ///< loop node -> unbound rows
    std::unordered_map<const tj::Node*, const tj::Node*> m_iterSelects; ///< select node -> its loop
    QVector<TraceWarning> m_warnings;
};

void recordSourceLocationHook(tj::Node* n)
{
    if (t_executor)
        t_executor->onRecordedNode(n);
}

void tracerWarningHook(const std::string& msg)
{
    if (t_executor)
        t_executor->onTracerWarning(msg);
}

/// Installs the tracer hooks (process-wide function pointers that dispatch to this thread's executor).
void installHooks()
{
    static std::once_flag once;
    std::call_once(once, [] {
        tj::tracer::setRecordSourceLocation(&recordSourceLocationHook);
        tj::tracer::setWarn(&tracerWarningHook);
    });
}

struct ExecutorScope
{
    explicit ExecutorScope(Executor* e)
        : previous(t_executor)
    {
        t_executor = e;
    }
    ~ExecutorScope() { t_executor = previous; }
    Executor* previous;
};

std::vector<Slot> toSlots(const std::vector<IValue>& values)
{
    std::vector<Slot> slots;
    for (const auto& v : values)
        slots.push_back(Slot { v });
    return slots;
}

/// torch.jit.trace of an nn.Module records into a fresh TracedModule: the same attributes (submodules,
/// parameters, buffers, constants) and type names, but no methods; the tracer adds `forward` to it. The
/// archive's own types already have methods, so the trace goes into such a copy, sharing the tensors.
tj::Module tracedModuleLike(const tj::Module& original, const std::shared_ptr<tj::CompilationUnit>& cu,
    const std::string& scope, std::unordered_map<const c10::ivalue::Object*, std::string>& scopes)
{
    const c10::ClassTypePtr from = original.type();
    // Each instance gets its own type (trace_module does not share types), mangled like Python's.
    c10::QualifiedName name = *from->name();
    if (cu->get_type(name))
        name = cu->mangle(name);
    auto type = c10::ClassType::create(name, cu, /*is_module=*/true);
    std::vector<IValue> slots;
    const auto object = original._ivalue();
    scopes[object.get()] = scope;
    for (size_t i = 0; i < from->numAttributes(); ++i) {
        const std::string& name = from->getAttributeName(i);
        const c10::TypePtr& attrType = from->getAttribute(i);
        IValue value = object->getSlot(i);
        if (attrType->is_module() && value.isObject()) {
            tj::Module child = tracedModuleLike(tj::Module(value.toObject()), cu, scope + "." + name, scopes);
            type->addAttribute(name, child.type());
            slots.push_back(child._ivalue());
        } else {
            type->addAttribute(name, attrType, from->is_parameter(i), from->is_buffer(i));
            slots.push_back(value);
        }
    }
    for (size_t i = 0; i < from->numConstants(); ++i)
        type->addConstant(from->getConstantName(i), from->getConstant(i));
    cu->register_type(type);
    auto obj = c10::ivalue::Object::create(c10::StrongTypePtr(cu, type), slots.size());
    for (size_t i = 0; i < slots.size(); ++i)
        obj->setSlot(i, slots[i]);
    return tj::Module(obj);
}

/// Resolves the function and its `self`, validates and creates the inputs.
struct Prepared
{
    tj::Function* fn = nullptr;
    std::optional<tj::Module> self;
    std::vector<IValue> inputs;
    std::vector<IValue> defaults; ///< values of trailing arguments the input set leaves to their defaults
    QVector<int> inlinedIds; ///< FunctionInfo::inlinedIds
    const IrGraph* scriptGraph = nullptr; ///< FunctionInfo::graph
    QString error;
    int errorLine = 0;

    /// The script function's arguments for one run: a fresh copy of the module (a run may change its state),
    /// @p values, then the defaults the input set leaves out.
    std::vector<Slot> arguments(std::vector<Slot> values) const
    {
        std::vector<Slot> args;
        if (self)
            args.push_back(Slot { self->deepcopy()._ivalue() });
        for (auto& v : values)
            args.push_back(std::move(v));
        for (const auto& v : defaults)
            args.push_back(Slot { v });
        return args;
    }
};

Prepared prepare(const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options)
{
    Prepared p;
    if (!model.handle) {
        p.error = QStringLiteral("model has no compiled code");
        return p;
    }
    const FunctionInfo* info = model.function(function);
    if (!info) {
        p.error = QStringLiteral("no function or method named '%1'").arg(function);
        return p;
    }
    if (!info->ok) {
        p.error = info->error.message;
        p.errorLine = info->error.location.line;
        return p;
    }
    p.inlinedIds = info->inlinedIds;
    p.scriptGraph = &info->graph;
    p.fn = model.handle->find(function, &p.self);
    if (!p.fn) {
        p.error = QStringLiteral("no compiled code for '%1'").arg(function);
        return p;
    }
    const qint64 bytes = inputs.byteSize();
    if (bytes > options.maxMemory) {
        p.error = QStringLiteral("input set needs %1 MiB, more than the memory budget of %2 MiB (--max-memory)")
                      .arg(bytes >> 20)
                      .arg(options.maxMemory >> 20);
        return p;
    }
    const auto& schema = p.fn->getSchema();
    const size_t first = p.self ? 1 : 0;
    const size_t expected = schema.arguments().size() - first;
    size_t required = expected;
    while (required > 0 && schema.arguments()[first + required - 1].default_value())
        --required;
    const size_t given = size_t(inputs.args.size());
    if (given < required || given > expected) {
        p.error = required == expected
            ? QStringLiteral("'%1' takes %2 argument(s), the input set has %3").arg(function).arg(expected).arg(given)
            : QStringLiteral("'%1' takes %2 to %3 arguments, the input set has %4")
                  .arg(function)
                  .arg(required)
                  .arg(expected)
                  .arg(given);
        return p;
    }
    for (size_t i = first + given; i < schema.arguments().size(); ++i)
        p.defaults.push_back(*schema.arguments()[i].default_value());
    try {
        p.inputs = makeInputs(inputs, options.seed);
    } catch (const std::exception& e) {
        p.error = QStringLiteral("cannot create the inputs: %1").arg(qs(e.what()).section(QLatin1Char('\n'), 0, 0));
    }
    return p;
}

Diagnostic errorAt(const ModelInfo& model, const QString& message, const SourceLocation& where = {})
{
    Diagnostic d;
    d.message = message;
    d.location = where.isValid() ? where : SourceLocation { model.path, 0, 0 };
    if (d.location.file.isEmpty())
        d.location.file = model.path;
    return d;
}

/// What the Python function would have returned: traced sizes are tensors, TensorLists are tuples.
IValue pythonValue(const Slot& s)
{
    if (s.hasShadow())
        return s.shadow;
    if (s.items) {
        std::vector<IValue> values;
        for (const auto& i : *s.items)
            values.push_back(pythonValue(i));
        return c10::ivalue::Tuple::create(std::move(values));
    }
    if (s.pythonTuple && s.value.isList())
        return c10::ivalue::Tuple::create(s.value.toListRef().vec());
    if (s.hasElemShadows() && s.value.isList()) {
        std::vector<IValue> values;
        const auto list = s.value.toListRef();
        for (size_t i = 0; i < list.size(); ++i)
            values.push_back(i < s.elems.size() && s.elems[i].defined() ? IValue(s.elems[i]) : list[i]);
        return c10::ivalue::Tuple::create(std::move(values));
    }
    return s.value;
}

std::vector<IValue> flattenOutputs(const std::vector<Slot>& outs)
{
    std::vector<IValue> values;
    for (const auto& s : outs)
        values.push_back(s.value);
    return values;
}

} // namespace

QString ValueSummary::toString() const
{
    return text;
}

RunResult runFunction(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options)
{
    RunResult r;
    r.inputs = inputs;
    Prepared p = prepare(model, function, inputs, options);
    if (!p.error.isEmpty()) {
        r.error = errorAt(model, p.error, { model.path, p.errorLine, 0 });
        return r;
    }
    std::lock_guard<std::mutex> lock(model.handle->mutex);
    Executor exec(options, /*tracing=*/false);
    ExecutorScope scope(&exec);
    try {
        at::NoGradGuard noGrad;
        std::vector<Slot> inputs;
        for (const auto& v : p.inputs)
            inputs.push_back(Slot { v });
        auto graph = tj::toGraphFunction(*p.fn).graph();
        exec.indexScriptGraph(*graph, p.inlinedIds);
        auto outs = exec.runFunction(*graph, p.arguments(std::move(inputs)), function);
        auto values = std::make_shared<RuntimeValues>();
        values->values = flattenOutputs(outs);
        for (const auto& v : values->values)
            r.outputs.push_back(summarize(v));
        r.values = values;
        r.ok = true;
    } catch (const Interrupted& e) {
        r.error = errorAt(model, QString::fromStdString(e.what()), e.location);
    } catch (const NodeError& e) {
        r.error = errorAt(model, QString::fromStdString(e.what()), e.location);
    } catch (const std::exception& e) {
        r.error = errorAt(model, torchErrorMessage(e.what()));
    }
    return r;
}

TraceResult traceFunctionImpl(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options);

TraceResult traceFunction(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options)
{
    try {
        return traceFunctionImpl(model, function, inputs, options);
    } catch (const std::exception& e) {
        TraceResult r;
        r.inputs = inputs;
        r.error = errorAt(model, torchErrorMessage(e.what()));
        return r;
    }
}

TraceResult traceFunctionImpl(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options)
{
    TraceResult r;
    r.inputs = inputs;
    Prepared p = prepare(model, function, inputs, options);
    if (!p.error.isEmpty()) {
        r.error = errorAt(model, p.error, { model.path, p.errorLine, 0 });
        return r;
    }
    for (const auto& v : p.inputs) {
        if (!v.isTensor() && !v.isTuple() && !v.isList()) {
            r.error = errorAt(model,
                QStringLiteral("torch.jit.trace only takes tensors (and tuples or lists of "
                               "them) as inputs; this input set has a %1")
                    .arg(qs(v.type()->str())));
            return r;
        }
    }
    installHooks();
    std::lock_guard<std::mutex> lock(model.handle->mutex);
    Executor exec(options, /*tracing=*/true);
    ExecutorScope scope(&exec);
    auto graph = tj::toGraphFunction(*p.fn).graph();
    exec.indexScriptGraph(*graph, p.inlinedIds);
    std::vector<std::string> argumentNames;
    const auto& schemaArgs = p.fn->getSchema().arguments();
    for (size_t i = p.self ? 1 : 0; i < schemaArgs.size(); ++i)
        argumentNames.push_back(schemaArgs[i].name());
    std::optional<tj::Module> self; // runs the archive's methods
    std::optional<tj::Module> tracedModule; // receives the trace, as torch.jit.trace_module's TracedModule
    if (p.self) {
        self = p.self->deepcopy();
        std::unordered_map<const c10::ivalue::Object*, std::string> scopes;
        tracedModule = tracedModuleLike(*self, std::make_shared<tj::CompilationUnit>(), "__module", scopes);
        // The executor runs the original objects: map those (not the copies) to scope names.
        std::unordered_map<const c10::ivalue::Object*, std::string> originalScopes;
        std::function<void(const tj::Module&, const std::string&)> walk
            = [&](const tj::Module& m, const std::string& scope) {
                  originalScopes[m._ivalue().get()] = scope;
                  for (const auto& child : m.named_children())
                      walk(child.value, scope + "." + child.name);
              };
        walk(*self, "__module");
        exec.setModuleScopes(std::move(originalScopes));
    }
    // What was recorded, kept in case the tracer's cleanup passes fail afterwards (maskrcnn-like models hit an
    // alias-analysis assert there): the raw recording is still worth showing.
    std::shared_ptr<tj::tracer::TracingState> recorded;
    tj::Stack recordedOutputs;
    const auto& provenance = exec.provenance();
    auto decorate = [&provenance](const tj::Node* n, IrNode& node) {
        const auto src = n->sourceRange().source();
        if (!src)
            return;
        auto it = provenance.find(src.get());
        if (it == provenance.end())
            return;
        node.originNode = it->second.scriptNode;
        node.loopPath = it->second.loops;
    };
    try {
        // No no_grad here: Python traces with autograd on, and parameters that require grad show in the types.
        tj::Stack stack(p.inputs.begin(), p.inputs.end());
        auto lookup = [&exec](const at::Tensor& t) { return exec.nameFor(t); };
        auto traced = tj::tracer::trace(
            std::move(stack),
            [&](tj::Stack in) -> tj::Stack {
                std::vector<Slot> args;
                if (self)
                    args.push_back(Slot { self->_ivalue() });
                for (auto& v : in)
                    args.push_back(Slot { v });
                for (auto& v : p.defaults)
                    args.push_back(Slot { v });
                auto outs = exec.runFunction(*graph, std::move(args), function);
                tj::Stack result;
                if (outs.size() == 1) {
                    result = { pythonValue(outs[0]) };
                } else {
                    std::vector<IValue> values;
                    for (const auto& o : outs)
                        values.push_back(pythonValue(o));
                    result = { c10::ivalue::Tuple::create(std::move(values)) };
                }
                recorded = tj::tracer::getTracingState();
                recordedOutputs = result;
                if (options.simulateCleanupFailure)
                    throw std::runtime_error("simulated failure of the tracer's cleanup passes");
                return result;
            },
            lookup, options.strict, /*force_outplace=*/false, tracedModule ? &*tracedModule : nullptr, argumentNames);
        std::shared_ptr<tj::Graph> traceGraph = traced.first->graph;
        r.graph = snapshotGraph(*traceGraph, decorate);
        if (tracedModule)
            linkModuleCalls(r.graph, *p.scriptGraph);
        computeSignatureHashes(r.graph);
        auto values = std::make_shared<RuntimeValues>();
        values->values = std::vector<IValue>(traced.second.begin(), traced.second.end());
        for (const auto& v : values->values)
            r.outputs.push_back(summarize(v));
        r.values = values;
        auto program = std::make_shared<TraceProgram>();
        program->graph = traceGraph;
        program->self = tracedModule;
        r.program = program;
        r.warnings = exec.warnings();
        r.ok = true;
    } catch (const Interrupted& e) {
        r.warnings = exec.warnings();
        r.error = errorAt(model, QString::fromStdString(e.what()), e.location);
    } catch (const NodeError& e) {
        r.warnings = exec.warnings();
        r.error = errorAt(model, QString::fromStdString(e.what()), e.location);
    } catch (const std::exception& e) {
        r.warnings = exec.warnings();
        r.error = errorAt(model, torchErrorMessage(e.what()));
        if (recorded && recorded->graph) {
            // The function ran to its end; what failed came after: keep the raw recording and say so.
            try {
                tj::Graph& raw = *recorded->graph;
                if (raw.outputs().empty()) {
                    // getOutput consults the thread's tracing state: lend it the recording for the call.
                    tj::tracer::setTracingState(recorded);
                    try {
                        for (size_t i = 0; i < recordedOutputs.size(); ++i)
                            raw.registerOutput(recorded->getOutput(recordedOutputs[i], i));
                    } catch (...) {
                        tj::tracer::setTracingState(nullptr);
                        throw;
                    }
                    tj::tracer::setTracingState(nullptr);
                }
                r.graph = snapshotGraph(raw, decorate);
                computeSignatureHashes(r.graph);
                for (const auto& v : recordedOutputs)
                    r.outputs.push_back(summarize(v));
                r.note = QStringLiteral("the tracer's cleanup passes failed (%1); this is the raw recorded graph, "
                                        "without the cleanup torch.jit.trace would have done")
                             .arg(r.error.message);
                TraceWarning w;
                w.kind = QStringLiteral("raw-trace");
                w.message = r.note;
                w.suggestion = QStringLiteral("the graph may keep dead nodes and module scopes that a successful "
                                              "trace would have removed");
                r.warnings.push_back(w);
                r.error = {};
                r.ok = true;
            } catch (const std::exception&) {
                // Keep the original error.
            }
        }
    }
    return r;
}

TraceResult traceWithInterpreter(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options)
{
    TraceResult r;
    r.inputs = inputs;
    Prepared p = prepare(model, function, inputs, options);
    if (!p.error.isEmpty()) {
        r.error = errorAt(model, p.error);
        return r;
    }
    std::lock_guard<std::mutex> lock(model.handle->mutex);
    try {
        std::optional<tj::Module> self;
        if (p.self)
            self = p.self->deepcopy();
        tj::Stack stack(p.inputs.begin(), p.inputs.end());
        auto traced = tj::tracer::trace(
            std::move(stack),
            [&](tj::Stack in) -> tj::Stack {
                if (self)
                    in.insert(in.begin(), self->_ivalue());
                in.insert(in.end(), p.defaults.begin(), p.defaults.end());
                p.fn->run(in);
                return in;
            },
            [](const at::Tensor&) { return std::string(); }, /*strict=*/true, /*force_outplace=*/false,
            self ? &*self : nullptr);
        r.graph = snapshotGraph(*traced.first->graph);
        r.ok = true;
    } catch (const std::exception& e) {
        r.error = errorAt(model, torchErrorMessage(e.what()));
    }
    return r;
}

RunResult runTrace(const TraceResult& trace, const InputSet& inputs, const ExecOptions& options)
{
    RunResult r;
    r.inputs = inputs;
    if (!trace.ok || !trace.program) {
        r.error.message = QStringLiteral("no trace to run");
        return r;
    }
    if (inputs.byteSize() > options.maxMemory) {
        r.error.message = QStringLiteral("input set exceeds the memory budget");
        return r;
    }
    std::lock_guard<std::mutex> lock(trace.program->mutex);
    Executor exec(options, /*tracing=*/false);
    ExecutorScope scope(&exec);
    try {
        at::NoGradGuard noGrad;
        std::vector<Slot> args;
        if (trace.program->self)
            args.push_back(Slot { trace.program->self->deepcopy()._ivalue() });
        // The trace graph takes its inputs flattened, as the tracer recorded them.
        for (auto& v : makeInputs(inputs, options.seed))
            args.push_back(Slot { v });
        auto outs = exec.runFunction(*trace.program->graph, std::move(args));
        auto values = std::make_shared<RuntimeValues>();
        values->values = flattenOutputs(outs);
        for (const auto& v : values->values)
            r.outputs.push_back(summarize(v));
        r.values = values;
        r.ok = true;
    } catch (const std::exception& e) {
        r.error.message = torchErrorMessage(e.what());
    }
    return r;
}

OutputCheck checkTraceOutputs(const ModelInfo& model, const QString& function, const TraceResult& trace,
    const InputSet& inputs, const ExecOptions& options, double rtol, double atol)
{
    OutputCheck check;
    if (!trace.ok || !trace.program) {
        check.error = QStringLiteral("no trace to run");
        return check;
    }
    Prepared p = prepare(model, function, inputs, options);
    if (!p.error.isEmpty()) {
        check.error = p.error;
        return check;
    }
    std::lock_guard<std::mutex> lock(model.handle->mutex);
    std::lock_guard<std::mutex> programLock(trace.program->mutex);
    auto cloned = [&p]() {
        std::vector<Slot> args;
        for (const auto& v : p.inputs)
            args.push_back(Slot { v.deepcopy() });
        return args;
    };
    RunResult traced, scripted;
    try {
        at::NoGradGuard noGrad;
        Executor exec(options, /*tracing=*/false);
        ExecutorScope scope(&exec);
        std::vector<Slot> args;
        if (trace.program->self)
            args.push_back(Slot { trace.program->self->deepcopy()._ivalue() });
        for (auto& a : cloned())
            args.push_back(std::move(a));
        auto values = std::make_shared<RuntimeValues>();
        values->values = flattenOutputs(exec.runFunction(*trace.program->graph, std::move(args)));
        traced.values = values;
        traced.ok = true;
    } catch (const std::exception& e) {
        check.error = QStringLiteral("the trace failed on this input set: %1").arg(torchErrorMessage(e.what()));
        return check;
    }
    try {
        at::NoGradGuard noGrad;
        Executor exec(options, /*tracing=*/false);
        ExecutorScope scope(&exec);
        auto graph = tj::toGraphFunction(*p.fn).graph();
        exec.indexScriptGraph(*graph, p.inlinedIds);
        auto values = std::make_shared<RuntimeValues>();
        values->values = flattenOutputs(exec.runFunction(*graph, p.arguments(cloned())));
        scripted.values = values;
        scripted.ok = true;
    } catch (const std::exception& e) {
        check.error
            = QStringLiteral("the script function failed on this input set: %1").arg(torchErrorMessage(e.what()));
        return check;
    }
    // As torch.jit.trace's check: the top-level outputs that are tensors, compared pairwise (zip).
    auto topLevelTensors = [](const RunResult& r) {
        std::vector<IValue> values = r.values->values;
        if (values.size() == 1 && values[0].isTuple())
            values = values[0].toTupleRef().elements().vec();
        std::vector<IValue> tensors;
        for (const auto& v : values)
            if (v.isTensor())
                tensors.push_back(v);
        return tensors;
    };
    auto t = topLevelTensors(traced), f = topLevelTensors(scripted);
    const size_t n = std::min(t.size(), f.size());
    t.resize(n);
    f.resize(n);
    auto tv = std::make_shared<RuntimeValues>(), fv = std::make_shared<RuntimeValues>();
    tv->values = t;
    fv->values = f;
    traced.values = tv;
    scripted.values = fv;
    check.ran = true;
    check.comparison = compareOutputs(scripted, traced, rtol, atol);
    return check;
}

namespace {

void flattenTensors(const IValue& v, std::vector<at::Tensor>& out)
{
    if (v.isTensor())
        out.push_back(v.toTensor());
    else if (v.isTuple())
        for (const auto& e : v.toTupleRef().elements())
            flattenTensors(e, out);
    else if (v.isList())
        for (const auto& e : v.toListRef())
            flattenTensors(e, out);
}

} // namespace

OutputComparison compareOutputs(const RunResult& expected, const RunResult& actual, double rtol, double atol)
{
    OutputComparison c;
    if (!expected.values || !actual.values) {
        c.equal = false;
        c.message = QStringLiteral("no outputs to compare");
        return c;
    }
    std::vector<at::Tensor> a, b;
    for (const auto& v : expected.values->values)
        flattenTensors(v, a);
    for (const auto& v : actual.values->values)
        flattenTensors(v, b);
    if (a.size() != b.size()) {
        c.equal = false;
        c.message = QStringLiteral("%1 tensor outputs expected, %2 produced").arg(a.size()).arg(b.size());
        return c;
    }
    at::NoGradGuard noGrad;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].sizes() != b[i].sizes()) {
            c.equal = false;
            std::ostringstream os;
            os << "output " << i << ": shape " << b[i].sizes() << " instead of " << a[i].sizes();
            c.message = qs(os.str());
            c.where = QStringLiteral("output %1").arg(i);
            return c;
        }
        const at::Tensor x = a[i].to(at::kDouble), y = b[i].to(at::kDouble);
        const at::Tensor diff = (x - y).abs();
        const at::Tensor tol = atol + rtol * x.abs();
        const at::Tensor bad = (diff > tol) | (x.isnan() != y.isnan());
        const qint64 mismatched = bad.sum().item<int64_t>();
        c.total += x.numel();
        c.mismatched += mismatched;
        if (x.numel() > 0) {
            const at::Tensor finiteDiff = at::where(diff.isnan(), at::zeros_like(diff), diff);
            const double maxAbs = finiteDiff.max().item<double>();
            const double maxRel = (finiteDiff / x.abs().clamp_min(1e-300)).max().item<double>();
            if (maxAbs > c.greatestAbsDiff) {
                c.greatestAbsDiff = maxAbs;
                const int64_t flat = finiteDiff.reshape({ -1 }).argmax().item<int64_t>();
                std::vector<int64_t> idx(size_t(x.dim()));
                int64_t rest = flat;
                for (int64_t d = x.dim() - 1; d >= 0; --d) {
                    idx[size_t(d)] = rest % x.size(d);
                    rest /= x.size(d);
                }
                QStringList parts;
                for (auto k : idx)
                    parts << QString::number(k);
                c.where = QStringLiteral("output %1 [%2]").arg(i).arg(parts.join(QStringLiteral(", ")));
            }
            c.greatestRelDiff = std::max(c.greatestRelDiff, maxRel);
        }
    }
    c.equal = c.mismatched == 0;
    if (!c.equal)
        c.message = QStringLiteral("Mismatched elements: %1 / %2 (%3%); greatest absolute difference: %4 at %5 "
                                   "(up to %6 allowed); greatest relative difference: %7 (up to %8 allowed)")
                        .arg(c.mismatched)
                        .arg(c.total)
                        .arg(100.0 * double(c.mismatched) / double(std::max<qint64>(1, c.total)), 0, 'f', 1)
                        .arg(c.greatestAbsDiff)
                        .arg(c.where)
                        .arg(atol)
                        .arg(c.greatestRelDiff)
                        .arg(rtol);
    return c;
}

} // namespace jitscope
