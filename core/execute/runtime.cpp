// What a run needs around the interpreter: the inputs made by the seed contract, value summaries, the function
// resolved (prepareRun), the debugger probe, and runFunction.

#include "execute/memorybudget_p.h"
#include "execute/runtime_p.h"
#include "ir/irsnapshot_p.h"
#include "ir/torcherror_p.h"
#include "load/inlinedindex_p.h"
#include "load/modelhandle_p.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/grad_mode.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <QFile>

#include <QHash>
#include <QStringList>

#include <limits>
#include <mutex>
#include <sstream>
#include <unordered_set>

namespace jitscope {

namespace tj = torch::jit;
using c10::IValue;

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

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
    case InputValue::Kind::Dict: // refused before any input is made (prepare)
        break;
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

} // namespace

std::vector<IValue> makeInputs(const InputSet& set, quint64 seed)
{
    at::NoGradGuard noGrad;
    at::manual_seed(seed);
    std::vector<IValue> values;
    for (const auto& a : set.args)
        values.push_back(makeValue(a));
    return values;
}

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

namespace {

/// Compiled code initialises some state on first use (a node's operator, a function's schema). Done for every
/// graph a run can reach while the model's lock is held, so that overlapping runs only read it.
void resolveLazyState(tj::Graph& graph, std::unordered_set<const tj::Graph*>& seen)
{
    if (!seen.insert(&graph).second)
        return;
    forEachNode(graph.block(), [&](tj::Node* n) {
        if (n->kind() == c10::prim::CallFunction) {
            if (auto fnType = n->input(0)->type()->cast<c10::FunctionType>()) {
                tj::Function* fn = fnType->function();
                fn->getSchema();
                resolveLazyState(*tj::toGraphFunction(*fn).graph(), seen);
            }
        } else if (n->kind() == c10::prim::CallMethod) {
            if (auto cls = n->input(0)->type()->cast<c10::ClassType>())
                if (tj::Function* fn = cls->findMethod(n->s(c10::attr::name))) {
                    fn->getSchema();
                    resolveLazyState(*tj::toGraphFunction(*fn).graph(), seen);
                }
        } else if (n->kind() != c10::prim::Constant && n->blocks().empty()) {
            n->maybeOperator();
        }
    });
}

void resolveLazyState(tj::Graph& graph)
{
    std::unordered_set<const tj::Graph*> seen;
    resolveLazyState(graph, seen);
}

} // namespace

std::vector<IValue> PreparedRun::clonedInputs() const
{
    std::vector<IValue> copies;
    for (const auto& v : inputs)
        copies.push_back(v.deepcopy());
    return copies;
}

std::vector<IValue> PreparedRun::arguments(std::vector<IValue> values) const
{
    std::vector<IValue> args;
    if (self)
        args.push_back(self->deepcopy()._ivalue());
    for (auto& v : values)
        args.push_back(std::move(v));
    for (const auto& v : defaults)
        args.push_back(v);
    return args;
}

namespace {

/// The TorchScript type of an input value as a type expression ("Tuple[Tensor, int]"), empty when it has none.
std::string typeExpression(const InputValue& v)
{
    switch (v.kind) {
    case InputValue::Kind::Tensor:
        return "Tensor";
    case InputValue::Kind::Int:
        return "int";
    case InputValue::Kind::Float:
        return "float";
    case InputValue::Kind::Bool:
        return "bool";
    case InputValue::Kind::None:
        return {};
    case InputValue::Kind::Tuple: {
        std::string t = "Tuple[";
        for (int i = 0; i < v.items.size(); ++i) {
            const std::string item = typeExpression(v.items[i]);
            if (item.empty())
                return {};
            t += (i ? ", " : "") + item;
        }
        return v.items.isEmpty() ? "Tuple[()]" : t + "]";
    }
    case InputValue::Kind::List: {
        const std::string item = v.items.isEmpty() ? std::string("Tensor") : typeExpression(v.items.first());
        for (const InputValue& i : v.items)
            if (typeExpression(i) != item)
                return {};
        return item.empty() ? std::string() : "List[" + item + "]";
    }
    }
    return {};
}

/// torch.jit.trace takes whatever Python values it is given: a parameter without annotation that receives a
/// tuple or list is compiled with the input set's types (a .py file's def, compiled again).
tj::Function* retypedFor(
    const ModelInfo& model, const QString& function, const InputSet& inputs, tj::Function* fn, QString* error)
{
    if (!model.handle->compileWithTypes)
        return nullptr;
    if (!inputs.hasSequenceArgument())
        return nullptr;
    std::vector<std::string> types;
    bool mismatch = !fn;
    for (int i = 0; i < inputs.args.size(); ++i) {
        const InputValue& v = inputs.args[i];
        const bool container = v.kind == InputValue::Kind::Tuple || v.kind == InputValue::Kind::List;
        types.push_back(container ? typeExpression(v) : std::string());
        if (fn && container && size_t(i) < fn->getSchema().arguments().size()
            && fn->getSchema().arguments()[size_t(i)].type()->kind() == c10::TypeKind::TensorType)
            mismatch = true;
    }
    return mismatch ? model.handle->compileWithTypes(function, types, error) : nullptr;
}

} // namespace

std::vector<IValue> loadSavedInputs(const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read the inputs %1: %2").arg(path, file.errorString());
        return {};
    }
    const QByteArray bytes = file.readAll();
    try {
        const IValue value = tj::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
        return value.isTuple() ? value.toTupleRef().elements().vec() : std::vector<IValue> { value };
    } catch (const std::exception& e) {
        *error
            = QStringLiteral("cannot read the inputs %1: %2").arg(path, qs(e.what()).section(QLatin1Char('\n'), 0, 0));
        return {};
    }
}

PreparedRun prepareRun(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options)
{
    PreparedRun p;
    if (!model.handle) {
        p.error = model.kind == ModelInfo::Kind::ExportedProgram
            ? QStringLiteral("an exported program (torch.export) is read for its graph, not run: it holds no code "
                             "JitScope can run")
            : QStringLiteral("model has no compiled code");
        return p;
    }
    const FunctionInfo* info = model.function(function);
    if (!info) {
        p.error = QStringLiteral("no function or method named '%1'").arg(function);
        return p;
    }
    p.inlinedIds = info->inlinedIds;
    p.scriptGraph = &info->graph;
    std::unique_lock<std::mutex> lock(model.handle->mutex);
    std::optional<tj::Module> self;
    p.fn = info->ok ? model.handle->find(function, &self) : nullptr;
    QString retypeError;
    tj::Function* retyped = self ? nullptr : retypedFor(model, function, inputs, p.fn, &retypeError);
    if (retyped) {
        // Its nodes are not the FunctionInfo's: trace nodes record no script node.
        p.fn = retyped;
        p.inlinedIds = { -1 };
    }
    if (!p.fn && !info->ok) {
        p.error = info->error.message;
        p.errorLine = info->error.location.line;
        return p;
    }
    if (self)
        p.self = std::make_shared<tj::Module>(*self);
    if (!p.fn) {
        p.error = model.handle->dataError.isEmpty() ? QStringLiteral("no compiled code for '%1'").arg(function)
                                                    : model.handle->dataError;
        return p;
    }
    if (inputs.containsDict()) {
        p.error = QStringLiteral(
            "JitScope's executor takes no dict inputs ({key: value}); trace the file under PyTorch with --python, "
            "which flattens them as detectron2's TracingAdapter does");
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
    std::vector<IValue> saved;
    if (!options.inputsFile.isEmpty()) {
        saved = loadSavedInputs(options.inputsFile, &p.error);
        if (!p.error.isEmpty())
            return p;
    }
    const size_t given = options.inputsFile.isEmpty() ? size_t(inputs.args.size()) : saved.size();
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
    resolveLazyState(*tj::toGraphFunction(*p.fn).graph());
    if (info->inlined && !retyped)
        p.inlinedIndex = model.handle->inlinedIndex(function, *tj::toGraphFunction(*p.fn).graph());
    lock.unlock();
    p.budget = std::make_shared<MemoryBudget>(options.maxMemory);
    try {
        p.inputs = options.inputsFile.isEmpty() ? makeInputs(inputs, options.seed) : saved;
    } catch (const std::exception& e) {
        p.error = QStringLiteral("cannot create the inputs: %1").arg(qs(e.what()).section(QLatin1Char('\n'), 0, 0));
        return p;
    }
    // A tensor where the signature says a number, or a number where it says a tensor: refused by name, as Python's
    // call of a scripted function refuses it ("Expected a value of type 'int' for argument 'x'"), not left to the
    // first operator's internal assert.
    for (size_t i = 0; i < p.inputs.size() && first + i < schema.arguments().size(); ++i) {
        const auto& argument = schema.arguments()[first + i];
        c10::TypePtr type = argument.type();
        if (auto optional = type->cast<c10::OptionalType>()) {
            if (p.inputs[i].isNone())
                continue;
            type = optional->getElementType();
        }
        const bool wantsTensor = type->kind() == c10::TypeKind::TensorType;
        const bool wantsNumber = type->kind() == c10::TypeKind::IntType || type->kind() == c10::TypeKind::FloatType
            || type->kind() == c10::TypeKind::BoolType || type->kind() == c10::TypeKind::NumberType;
        const bool isTensor = p.inputs[i].isTensor();
        const bool isNumber = p.inputs[i].isInt() || p.inputs[i].isDouble() || p.inputs[i].isBool();
        if ((wantsTensor && !isTensor) || (wantsNumber && !isNumber)) {
            p.error = QStringLiteral("argument '%1' of '%2' is %3, the input set gives %4")
                          .arg(qs(argument.name()), function, qs(argument.type()->annotation_str()),
                              isTensor ? QStringLiteral("a tensor") : qs(p.inputs[i].type()->annotation_str()));
            p.inputs.clear();
            return p;
        }
    }
    return p;
}

Diagnostic errorAt(const ModelInfo& model, const QString& message, const SourceLocation& where)
{
    Diagnostic d;
    d.message = message;
    d.location = where.isValid() ? where : SourceLocation { model.path, 0, 0 };
    if (d.location.file.isEmpty())
        d.location.file = model.path;
    return d;
}

void FailureWatch::beforeNode(tj::Node* n, Frame& frame)
{
    node = n;
    operands.clear();
    for (const tj::Value* v : n->inputs()) {
        const IValue* value = frame.find(v);
        operands << (value ? summarize(*value).text : QString());
    }
}

Diagnostic runError(const ModelInfo& model)
{
    try {
        throw;
    } catch (const Interrupted& e) {
        return errorAt(model, QString::fromStdString(e.what()), e.location);
    } catch (const NodeError& e) {
        return errorAt(model, QString::fromStdString(e.what()), e.location);
    } catch (const std::exception& e) {
        return errorAt(model, torchErrorMessage(e.what()));
    }
}

DebuggerProbe::DebuggerProbe(const Interpreter& interpreter, const ExecOptions& options)
    : m_interpreter(interpreter)
    , m_options(options)
{ }

void DebuggerProbe::notify(tj::Node* n, bool after, Frame& frame)
{
    if (!m_options.observer)
        return;
    const Position& at = m_interpreter.position();
    NodeEvent e;
    e.scriptNode = at.scriptNode;
    e.depth = at.depth - 1;
    e.loopPath = at.loops;
    e.location = Interpreter::locationOf(n);
    e.kind = qs(n->kind().toQualString());
    e.after = after;
    e.blockDepth = at.blockDepth;
    e.frames = at.frames;
    e.liveValues = [&frame]() { return frame.liveValues(); };
    e.traceSoFar = m_traceSnapshot;
    if (!after && at.depth == 1 && m_options.breakLines.contains(e.location.line)) {
        // Once per line and loop iteration: the first node of the line in each pass.
        QString key = QString::number(e.location.line);
        for (const LoopFrame& f : at.loops)
            key += QStringLiteral("/%1:%2").arg(f.loopNode).arg(f.iteration);
        if (key != m_lastBreak) {
            e.breakpoint = true;
            m_lastBreak = key;
        }
    } else if (!after && at.depth == 1) {
        m_lastBreak.clear();
    }
    if (m_options.summarizeValues) {
        if (after) {
            for (const tj::Value* o : n->outputs()) {
                if (const IValue* v = frame.find(o))
                    e.values.push_back(
                        { o->hasDebugName() ? qs(o->debugNameBase()) : QStringLiteral("%") + qs(o->debugName()),
                            summarize(*v) });
            }
        } else if (e.breakpoint) {
            e.values = frame.liveValues();
        }
    }
    m_options.observer(e);
}

RunResult runFunction(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options)
{
    RunResult r;
    r.inputs = inputs;
    PreparedRun p = prepareRun(model, function, inputs, options);
    if (!p.error.isEmpty()) {
        r.error = errorAt(model, p.error, { model.path, p.errorLine, 0 });
        return r;
    }
    Interpreter interpreter(options);
    DebuggerProbe probe(interpreter, options);
    if (options.observer)
        interpreter.addHooks(&probe);
    try {
        at::NoGradGuard noGrad;
        auto graph = tj::toGraphFunction(*p.fn).graph();
        interpreter.indexScriptGraph(*graph, p.inlinedIds, p.inlinedIndex);
        for (const auto& v : interpreter.run(*graph, p.arguments(p.inputs), function))
            r.outputs.push_back(summarize(v));
        r.ok = true;
    } catch (const std::exception&) {
        r.error = runError(model);
    }
    return r;
}

} // namespace jitscope
