// torch.jit.trace made by JitScope: the interpreter with Python's tracing semantics, provenance and warnings as
// hooks, under libtorch's tracer. Also the recorded program's runner (for the check) and the benchmark baseline.

#include "diff/tracediff.h"
#include "execute/runtime_p.h"
#include "ir/irsnapshot_p.h"
#include "ir/torcherror_p.h"
#include "load/model.h"
#include "trace/benchbaseline.h"
#include "trace/provenancerecorder_p.h"
#include "trace/pythontracingsemantics_p.h"
#include "trace/tracedprogram_p.h"
#include "trace/tracewarningsink_p.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/grad_mode.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/serialization/import.h>

#include <mutex>
#include <optional>

namespace jitscope {

namespace tj = torch::jit;
using c10::IValue;

struct TracedProgram
{
    std::shared_ptr<tj::Graph> graph;
    std::optional<tj::Module> self;
};

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

/// The hooks libtorch's tracer calls (process-wide function pointers) dispatch to this thread's trace.
struct TracerHooks
{
    ProvenanceRecorder* provenance = nullptr;
    TraceWarningSink* warnings = nullptr;
};
thread_local TracerHooks t_tracerHooks;

void recordSourceLocationHook(tj::Node* n)
{
    if (t_tracerHooks.provenance)
        t_tracerHooks.provenance->onRecordedNode(n);
}

void tracerWarningHook(const std::string& msg)
{
    if (t_tracerHooks.warnings)
        t_tracerHooks.warnings->addTracerWarning(msg);
}

void installTracerHooks()
{
    static std::once_flag once;
    std::call_once(once, [] {
        tj::tracer::setRecordSourceLocation(&recordSourceLocationHook);
        tj::tracer::setWarn(&tracerWarningHook);
    });
}

/// Sets this thread's tracer hooks for the lifetime of the scope.
struct TracerScope
{
    explicit TracerScope(TracerHooks hooks)
        : previous(t_tracerHooks)
    {
        t_tracerHooks = hooks;
    }
    ~TracerScope() { t_tracerHooks = previous; }
    TracerHooks previous;
};

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
    // Registered before the children, which may share its class name (a Sequential inside a Sequential).
    cu->register_type(type);
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
            // Python's TracedModule holds the parameters and buffers that are set, typed by their values: a
            // scripted Conv2d's `bias: Optional[Tensor]` is a Tensor there (the inlined graph's GetAttr shows it).
            const bool tensorSlot = (from->is_parameter(i) || from->is_buffer(i)) && value.isTensor();
            type->addAttribute(
                name, tensorSlot ? c10::TensorType::get() : attrType, from->is_parameter(i), from->is_buffer(i));
            slots.push_back(value);
        }
    }
    for (size_t i = 0; i < from->numConstants(); ++i)
        type->addConstant(from->getConstantName(i), from->getConstant(i));
    auto obj = c10::ivalue::Object::create(c10::StrongTypePtr(cu, type), slots.size());
    for (size_t i = 0; i < slots.size(); ++i)
        obj->setSlot(i, slots[i]);
    return tj::Module(obj);
}

TraceResult traceFunctionImpl(const ModelInfo& model, const QString& function, const InputSet& inputs,
    const ExecOptions& options, std::shared_ptr<TracedProgram>* program)
{
    TraceResult r;
    r.inputs = inputs;
    PreparedRun p = prepareRun(model, function, inputs, options);
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
    installTracerHooks();
    Interpreter interpreter(options);
    ProvenanceRecorder provenance(interpreter);
    TraceWarningSink warnings(interpreter);
    auto semantics = PythonTracingSemantics::create(interpreter, warnings);
    DebuggerProbe probe(interpreter, options);
    probe.setTraceSnapshot([&provenance] { return provenance.snapshot(); });
    // The probe first: a debugger sees each node before the semantics record anything for it.
    if (options.observer)
        interpreter.addHooks(&probe);
    interpreter.addHooks(&provenance);
    interpreter.addHooks(&warnings);
    interpreter.addHooks(semantics.get());
    TracerScope scope({ &provenance, &warnings });
    auto graph = tj::toGraphFunction(*p.fn).graph();
    interpreter.indexScriptGraph(*graph, p.inlinedIds, p.inlinedIndex);
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
        semantics->setModuleScopes(std::move(originalScopes));
    }
    // What was recorded, kept in case the tracer's cleanup passes fail afterwards (maskrcnn-like models hit an
    // alias-analysis assert there): the raw recording is still worth showing.
    std::shared_ptr<tj::tracer::TracingState> recorded;
    tj::Stack recordedOutputs;
    auto decorate = [&provenance](const tj::Node* n, IrNode& node) { provenance.decorate(n, node); };
    try {
        // No no_grad here: Python traces with autograd on, and parameters that require grad show in the types.
        // Its check traces the check inputs with autograd off.
        at::AutoGradMode gradMode(options.gradEnabled);
        tj::Stack stack(p.inputs.begin(), p.inputs.end());
        auto lookup = [&semantics](const at::Tensor& t) { return semantics->nameFor(t); };
        auto traced = tj::tracer::trace(
            std::move(stack),
            [&](tj::Stack in) -> tj::Stack {
                std::vector<IValue> args;
                if (self)
                    args.push_back(self->_ivalue());
                for (auto& v : in)
                    args.push_back(v);
                for (auto& v : p.defaults)
                    args.push_back(v);
                std::vector<NotePtr> notes;
                auto outs = interpreter.run(*graph, std::move(args), function, &notes);
                tj::Stack result;
                if (outs.size() == 1) {
                    result = { semantics->pythonValue(outs[0], notes[0]) };
                } else {
                    std::vector<IValue> values;
                    for (size_t i = 0; i < outs.size(); ++i)
                        values.push_back(semantics->pythonValue(outs[i], notes[i]));
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
        if (tracedModule) {
            // The graph torch.jit.trace's check compares, and the whole model: traced.inlined_graph, every
            // submodule call inlined, each node keeping its scope and the place that recorded it (its source range).
            traceGraph = traceGraph->copy();
            tj::Inline(*traceGraph);
        }
        r.graph = snapshotGraph(*traceGraph, decorate);
        if (tracedModule)
            linkModuleCalls(r.graph, *p.scriptGraph);
        computeSignatureHashes(r.graph);
        for (const auto& v : traced.second)
            r.outputs.push_back(summarize(v));
        if (program) {
            auto kept = std::make_shared<TracedProgram>();
            kept->graph = traceGraph;
            kept->self = tracedModule;
            *program = kept;
        }
        r.warnings = warnings.warnings();
        r.branches = provenance.branches();
        r.ok = true;
    } catch (const Interrupted& e) {
        r.warnings = warnings.warnings();
        r.error = errorAt(model, QString::fromStdString(e.what()), e.location);
    } catch (const NodeError& e) {
        r.warnings = warnings.warnings();
        r.error = errorAt(model, QString::fromStdString(e.what()), e.location);
    } catch (const std::exception& e) {
        r.warnings = warnings.warnings();
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
                r.branches = provenance.branches();
                r.note = warningMessage(WarningKind::RawTrace, { r.error.message });
                TraceWarning w;
                w.kind = WarningKind::RawTrace;
                w.message = r.note;
                w.suggestion = warningFix(WarningKind::RawTrace);
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

} // namespace

TraceResult traceFunction(const ModelInfo& model, const QString& function, const InputSet& inputs,
    const ExecOptions& options, std::shared_ptr<TracedProgram>* program)
{
    if (program)
        program->reset();
    try {
        return traceFunctionImpl(model, function, inputs, options, program);
    } catch (const std::exception& e) {
        TraceResult r;
        r.inputs = inputs;
        r.error = errorAt(model, torchErrorMessage(e.what()));
        return r;
    }
}

TraceResult traceFunction(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options)
{
    return traceFunction(model, function, inputs, options, nullptr);
}

std::vector<IValue> runTracedProgram(TracedProgram& program, std::vector<IValue> inputs, const ExecOptions& options,
    FailedNode* failed, const std::function<void(Interpreter&)>& addHooks)
{
    at::NoGradGuard noGrad;
    Interpreter interpreter(options);
    FailureWatch watch;
    if (failed || addHooks)
        interpreter.indexScriptGraph(*program.graph, {});
    if (failed)
        interpreter.addHooks(&watch);
    if (addHooks)
        addHooks(interpreter);
    std::vector<IValue> args;
    if (program.self)
        args.push_back(program.self->deepcopy()._ivalue());
    for (auto& v : inputs)
        args.push_back(std::move(v));
    try {
        return interpreter.run(*program.graph, std::move(args));
    } catch (...) {
        if (failed && watch.node) {
            failed->node = interpreter.scriptId(watch.node);
            failed->operands = watch.operands;
        }
        throw;
    }
}

namespace {

/// The two runs of a replay on @p makeInputs' arguments: a quiet one that finds where @p program fails, then, after
/// @p ready, one the observer sees node by node. Fills @p r (its error where the second run failed).
void replayProgram(TracedProgram& program, const TraceResult& trace, const QString& function,
    const std::function<std::optional<std::vector<IValue>>(QString*)>& makeInputs, const ExecOptions& options,
    const std::function<void(const TraceResult&, const ReplayFailure&)>& ready, const ModelInfo& model, RunResult& r)
{
    ExecOptions quiet = options;
    quiet.observer = nullptr;
    try {
        ReplayFailure failure;
        {
            QString error;
            std::optional<std::vector<IValue>> args = makeInputs(&error);
            if (!args) {
                r.error = errorAt(model, error);
                return;
            }
            FailedNode failed;
            try {
                runTracedProgram(program, std::move(*args), quiet, &failed);
            } catch (const Interrupted&) {
                throw;
            } catch (const std::exception& e) {
                failure.node = failed.node;
                failure.error = torchErrorMessage(e.what()).section(QLatin1Char('\n'), 0, 0);
            }
        }
        if (ready)
            ready(trace, failure);
        QString error;
        std::optional<std::vector<IValue>> args = makeInputs(&error);
        if (!args) {
            r.error = errorAt(model, error);
            return;
        }
        at::NoGradGuard noGrad;
        Interpreter interpreter(options);
        DebuggerProbe probe(interpreter, options);
        probe.setTraceSnapshot([&trace] { return trace.graph; });
        if (options.observer)
            interpreter.addHooks(&probe);
        interpreter.indexScriptGraph(*program.graph, {});
        std::vector<IValue> stack;
        if (program.self)
            stack.push_back(program.self->deepcopy()._ivalue());
        for (auto& v : *args)
            stack.push_back(std::move(v));
        for (const auto& v : interpreter.run(*program.graph, std::move(stack), function))
            r.outputs.push_back(summarize(v));
        r.ok = true;
    } catch (const std::exception&) {
        r.error = runError(model);
    }
}

} // namespace

RunResult replayTrace(const ModelInfo& model, const QString& function, const InputSet& recordedOn,
    const InputSet& runOn, const ExecOptions& options, TraceResult* recorded,
    const std::function<void(const TraceResult&, const ReplayFailure&)>& ready)
{
    RunResult r;
    r.inputs = runOn;
    ExecOptions quiet = options;
    quiet.observer = nullptr;
    std::shared_ptr<TracedProgram> program;
    TraceResult trace = traceFunction(model, function, recordedOn, quiet, &program);
    if (recorded)
        *recorded = trace;
    if (!trace.ok || !program) {
        r.error = trace.ok
            ? errorAt(model, QStringLiteral("the trace on %1 cannot be run: %2").arg(recordedOn.toString(), trace.note))
            : trace.error;
        r.error.message = QStringLiteral("tracing on %1 failed: %2").arg(recordedOn.toString(), r.error.message);
        return r;
    }
    // The inputs as the check makes them: from the seed, for each run.
    auto inputs = [&](QString* error) -> std::optional<std::vector<IValue>> {
        PreparedRun p = prepareRun(model, function, runOn, options);
        if (!p.error.isEmpty()) {
            *error = p.error;
            return std::nullopt;
        }
        return std::vector<IValue>(p.inputs.begin(), p.inputs.end());
    };
    replayProgram(*program, trace, function, inputs, options, ready, model, r);
    return r;
}

RunResult replaySavedTrace(const QString& archive, const QString& method, const QString& inputsFile,
    const ExecOptions& options, TraceResult* recorded,
    const std::function<void(const TraceResult&, const ReplayFailure&)>& ready)
{
    RunResult r;
    ModelInfo place;
    place.path = archive;
    TraceResult trace;
    TracedProgram program;
    try {
        at::NoGradGuard noGrad;
        tj::Module module = tj::load(archive.toStdString());
        program.graph = module.get_method(method.toStdString()).graph()->copy();
        // One flat graph, numbered as the snapshot numbers it: the failing node is one of its nodes.
        tj::Inline(*program.graph);
        program.self = module;
        trace.graph = snapshotGraph(*program.graph);
        trace.ok = true;
    } catch (const std::exception& e) {
        QString message = QStringLiteral("cannot open the saved trace: %1")
                              .arg(torchErrorMessage(e.what()).section(QLatin1Char('\n'), 0, 0));
        if (const QString newer = newerTorchNote(archive); !newer.isEmpty())
            message += QStringLiteral("; ") + newer
                + QStringLiteral("; the check's graphs, warnings and verdicts, recorded by that torch, are still shown");
        trace.error = errorAt(place, message);
        r.error = trace.error;
    }
    if (recorded)
        *recorded = trace;
    if (!trace.ok)
        return r;
    auto inputs = [&](QString* error) -> std::optional<std::vector<IValue>> {
        std::vector<IValue> args = loadSavedInputs(inputsFile, error);
        if (!error->isEmpty())
            return std::nullopt;
        return args;
    };
    replayProgram(program, trace, method, inputs, options, ready, place, r);
    return r;
}

TraceResult traceWithLibtorchInterpreter(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options)
{
    TraceResult r;
    r.inputs = inputs;
    PreparedRun p = prepareRun(model, function, inputs, options);
    if (!p.error.isEmpty()) {
        r.error = errorAt(model, p.error);
        return r;
    }
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
        std::shared_ptr<tj::Graph> graph = traced.first->graph;
        if (self) {
            // As traceFunction() gives a module's trace: inlined.
            graph = graph->copy();
            tj::Inline(*graph);
        }
        r.graph = snapshotGraph(*graph);
        r.ok = true;
    } catch (const std::exception& e) {
        r.error = errorAt(model, torchErrorMessage(e.what()));
    }
    return r;
}

} // namespace jitscope
