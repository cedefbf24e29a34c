// checkModel(): the check itself, one trace per input set (trace/ over execute/, libtorch) and the outputs compared.
// In a file of its own: the report's values and texts (check.cpp) serve the window, whose process links no libtorch.

#include "check/check.h"
#include "check/opkinds_p.h"
#include "check/outputcheck_p.h"
#include "ir/activity.h"

#include <QHash>
#include <QSet>

#include <algorithm>

namespace jitscope {

const QSet<QString>& nondeterministicKinds()
{
    static const QSet<QString> kinds = {
        QStringLiteral("aten::rand"),
        QStringLiteral("aten::randn"),
        QStringLiteral("aten::randint"),
        QStringLiteral("aten::rand_like"),
        QStringLiteral("aten::randn_like"),
        QStringLiteral("aten::randint_like"),
        QStringLiteral("aten::randperm"),
        QStringLiteral("aten::bernoulli"),
        QStringLiteral("aten::bernoulli_"),
        QStringLiteral("aten::normal"),
        QStringLiteral("aten::normal_"),
        QStringLiteral("aten::uniform_"),
        QStringLiteral("aten::multinomial"),
        QStringLiteral("aten::dropout"),
        QStringLiteral("aten::feature_dropout"),
        QStringLiteral("aten::alpha_dropout"),
        QStringLiteral("aten::poisson"),
        QStringLiteral("aten::rrelu"),
        QStringLiteral("aten::exponential_"),
        QStringLiteral("aten::geometric_"),
        QStringLiteral("aten::log_normal_"),
        QStringLiteral("aten::cauchy_"),
        QStringLiteral("aten::random_"),
    };
    return kinds;
}

const QSet<QString>& viewKinds()
{
    static const QSet<QString> kinds = {
        QStringLiteral("aten::select"),
        QStringLiteral("aten::slice"),
        QStringLiteral("aten::view"),
        QStringLiteral("aten::expand"),
        QStringLiteral("aten::transpose"),
        QStringLiteral("aten::permute"),
        QStringLiteral("aten::narrow"),
        QStringLiteral("aten::as_strided"),
        QStringLiteral("aten::unsqueeze"),
        QStringLiteral("aten::squeeze"),
        QStringLiteral("aten::t"),
        QStringLiteral("aten::diagonal"),
        QStringLiteral("aten::unfold"),
        QStringLiteral("aten::reshape"),
        QStringLiteral("aten::flatten"),
    };
    return kinds;
}

namespace {

/// Warnings read off a finished trace: nondeterministic ops, in-place ops on inputs and on views.
void traceGraphWarnings(TraceResult& t, int index)
{
    QStringList nondeterministic;
    for (int id : t.graph.top.nodes) {
        const IrNode& n = t.graph.node(id);
        if (nondeterministicKinds().contains(n.kind))
            nondeterministic << n.kind;
        const bool inplace
            = n.kind.endsWith(QLatin1Char('_')) && !n.kind.endsWith(QLatin1String("__")) && !n.inputs.isEmpty();
        if (!inplace)
            continue;
        const IrValue& self = t.graph.value(n.inputs.first());
        TraceWarning w;
        w.traceIndex = index;
        w.traceNode = id;
        w.scriptNode = n.originNode;
        w.location = n.location;
        if (self.producer < 0 && t.graph.top.inputs.contains(self.id)) {
            w.kind = WarningKind::InPlaceOnInput;
            w.message = warningMessage(w.kind, { n.kind, self.name });
            w.suggestion = warningFix(w.kind);
            t.warnings.push_back(w);
        } else if (self.producer >= 0 && viewKinds().contains(t.graph.node(self.producer).kind)) {
            w.kind = WarningKind::InPlaceOnView;
            w.message = warningMessage(w.kind, { n.kind, t.graph.node(self.producer).kind });
            w.suggestion = warningFix(w.kind);
            t.warnings.push_back(w);
        }
    }
    if (!nondeterministic.isEmpty()) {
        nondeterministic.removeDuplicates();
        TraceWarning w;
        w.kind = WarningKind::NondeterministicOp;
        w.traceIndex = index;
        w.message = warningMessage(w.kind, { nondeterministic.join(QStringLiteral(", ")) });
        w.suggestion = warningFix(w.kind);
        for (int id : t.graph.top.nodes) {
            if (nondeterministicKinds().contains(t.graph.node(id).kind)) {
                w.traceNode = id;
                w.scriptNode = t.graph.node(id).originNode;
                w.location = t.graph.node(id).location;
                break;
            }
        }
        t.warnings.push_back(w);
    }
}

/// The node of trace 1 recorded from node @p scriptNode of @p script: the one of its kind (a script node also
/// records the constants it takes), else the first; -1 when none.
int traceNodeOf(const IrGraph& trace, const IrGraph& script, int scriptNode)
{
    if (scriptNode < 0 || scriptNode >= script.nodes.size())
        return -1;
    int any = -1;
    for (const IrNode& n : trace.nodes) {
        if (n.originNode != scriptNode)
            continue;
        if (n.kind == script.node(scriptNode).kind)
            return n.id;
        if (any < 0)
            any = n.id;
    }
    return any;
}

/// A traced archive's graph as the trace of @p set: each node recorded by itself.
TraceResult archiveTrace(const IrGraph& script, const InputSet& set)
{
    TraceResult t;
    t.ok = true;
    t.inputs = set;
    t.graph = script;
    for (IrNode& n : t.graph.nodes)
        n.originNode = n.id;
    computeSignatureHashes(t.graph);
    return t;
}

} // namespace

CheckReport checkFunction(
    const ModelInfo& model, const QString& function, const QVector<InputSet>& sets, const CheckOptions& options)
{
    CheckObservations obs;
    obs.file = model.path;
    obs.function = function;
    obs.otherRun = QStringLiteral("the script function");
    obs.callLocation = { model.path, 0, 0 };
    obs.everyPair = options.everyPair;
    if (const FunctionInfo* fn = model.function(function))
        obs.script = fn->graph;
    if (sets.isEmpty()) {
        obs.error = { QStringLiteral("no input sets to check"), { model.path, 0, 0 } };
        return buildCheckReport(std::move(obs));
    }
    // A trace saved as an archive has no Python behind it, and tracing its graph again is no trace of the model
    // (PyTorch's torch.jit.trace of a ScriptModule returns it as it is): its graph is the trace for every set, and
    // each set runs it. The sizes of set 1 it baked in are what its results on another set are wrong by.
    obs.tracedArchive = model.kind == ModelInfo::Kind::Archive && isTracedGraph(obs.script);
    // Divergences name their module's class ("in encoder (StepEncoder)").
    if (model.kind == ModelInfo::Kind::Archive)
        obs.moduleTypes = submoduleTypes(model, function);
    // Trace 1's recorded program stays here, for running it on the other sets; it never goes into the report.
    std::shared_ptr<TracedProgram> program;
    const QByteArray name = function.toUtf8();
    for (int i = 0; i < sets.size(); ++i) {
        // For a crash line (the CLI's, the window's model worker's): which set was being traced.
        activity::setPhase(0, "checking `%s`: tracing input set %d", name.constData(), i + 1);
        // As torch.jit.trace's check: the check inputs traced under torch.no_grad() (_check_trace).
        ExecOptions exec = options.exec;
        exec.gradEnabled = i == 0;
        TraceResult t = obs.tracedArchive ? archiveTrace(obs.script, sets[i])
                                          : traceFunction(model, function, sets[i], exec, i == 0 ? &program : nullptr);
        if (obs.tracedArchive && i == 0) {
            // What the archive gives on set 1; where it fails there, that is the check's error.
            activity::setPhase(0, "checking `%s`: running the traced archive on input set 1", name.constData());
            const OutputCheck out = runTracedArchive(model, function, sets[0], options.exec);
            t.ok = out.ran;
            t.outputs = out.outputs;
            t.error = { out.error,
                out.failure.location.isValid() ? out.failure.location : SourceLocation { model.path, 0, 0 } };
        }
        // The warnings the tracer raised, at the trace's node their script node recorded.
        for (TraceWarning& w : t.warnings) {
            w.traceIndex = i;
            for (int id : t.graph.top.nodes) {
                if (t.graph.node(id).originNode == w.scriptNode && w.scriptNode >= 0) {
                    w.traceNode = id;
                    break;
                }
            }
        }
        if (t.ok)
            traceGraphWarnings(t, i);
        obs.traces.push_back(t);
        if (!t.ok && i == 0)
            return buildCheckReport(std::move(obs)); // nothing to compare the other sets with
    }
    // Trace 1 run on every other set: against the script function, or a traced archive's own graph.
    const IrGraph& first = obs.traces.first().graph;
    for (int k = 1; k < obs.traces.size(); ++k) {
        OutputCheck out;
        QVector<TraceWarning> baked;
        if (obs.tracedArchive) {
            activity::setPhase(0, "checking `%s`: running the traced archive on input set %d", name.constData(), k + 1);
            out = runTracedArchive(model, function, sets[k], options.exec);
            // Its node ids are the script graph's: trace 1's node recorded from it names it in the report.
            out.failure.node = traceNodeOf(first, obs.script, out.failure.node);
            baked = bakedInputSizes(obs.script, sets[0], sets[k], k);
            for (TraceWarning& w : baked) {
                w.traceNode = traceNodeOf(first, obs.script, w.scriptNode);
                out.bakedSizes << w.message;
            }
        } else if (!obs.traces[k].ok) {
            // Nothing to run trace 1 against: the trace's failure is the set's finding.
        } else if (program) {
            activity::setPhase(0, "checking `%s`: running trace 1 on input set %d", name.constData(), k + 1);
            out = checkTraceOutputs(model, function, *program, sets[k], options.exec, options.rtol, options.atol);
            if (out.ran && !out.comparison.equal && options.compareValues) {
                // Where the values part ways: only on a set whose outputs differ (two more runs, values seen).
                activity::setPhase(0, "checking `%s`: comparing values on input set %d", name.constData(), k + 1);
                out.values = findValueDivergence(model, function, *program, first, obs.script, sets[k], options.exec,
                    options.rtol, options.atol, obs.moduleTypes);
            }
        } else {
            out.error = obs.traces.first().note.isEmpty()
                ? QStringLiteral("no trace to run")
                : QStringLiteral("no trace to run: trace 1 is the raw recording (the tracer's cleanup passes failed)");
        }
        obs.outputs << out;
        obs.bakedSizes << baked;
    }
    return buildCheckReport(std::move(obs));
}

CheckReport checkModel(
    const ModelInfo& model, const QString& function, const QVector<InputSet>& sets, const CheckOptions& options)
{
    const FunctionInfo* fn = function.isEmpty() ? model.defaultFunction() : model.function(function);
    auto failed = [&](const QString& message) {
        CheckReport r;
        r.file = model.path;
        r.function = function;
        r.error = { message, { model.path, 0, 0 } };
        return r;
    };
    if (!fn)
        return failed(function.isEmpty() ? QStringLiteral("no default function: name one")
                                         : QStringLiteral("no function or method named '%1'").arg(function));
    // A def that does not compile with its parameters as Tensor may with the sets' tuples and lists (traceFunction
    // compiles it again with their types, as torch.jit.trace takes whatever it is given); else it is the error.
    const bool sequences
        = std::any_of(sets.cbegin(), sets.cend(), [](const InputSet& s) { return s.hasSequenceArgument(); });
    if (!fn->ok && !sequences) {
        CheckReport r = failed(fn->error.message);
        r.function = fn->name;
        r.error = fn->error;
        return r;
    }
    const bool inlineCalls = options.inlineCalls.value_or(model.kind == ModelInfo::Kind::Archive);
    if (!inlineCalls || fn->inlined)
        return checkFunction(model, fn->name, sets, options);
    // The caller's model stays as it is: the check runs on a copy holding the inlined function.
    ModelInfo inlined = model;
    for (FunctionInfo& f : inlined.functions) {
        if (f.name != fn->name)
            continue;
        QString error;
        if (!inlineFunction(inlined.handle, f, &error))
            return failed(error);
    }
    return checkFunction(inlined, fn->name, sets, options);
}

} // namespace jitscope
