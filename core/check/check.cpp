#include "check/check.h"

#include <QHash>
#include <QSet>

namespace jitscope {

namespace {

/// Iterations each script loop ran in a trace, from the trace nodes' loop paths.
QHash<int, int> loopIterations(const IrGraph& trace)
{
    QHash<int, int> counts;
    for (const IrNode& n : trace.nodes)
        for (const LoopFrame& f : n.loopPath)
            counts[f.loopNode] = std::max(counts.value(f.loopNode), f.iteration + 1);
    return counts;
}

const TraceWarning* warningAt(const TraceResult& t, int scriptNode, const QStringList& kinds)
{
    for (const TraceWarning& w : t.warnings)
        if (w.scriptNode == scriptNode && kinds.contains(w.kind))
            return &w;
    return nullptr;
}

/// The prim::If nodes enclosing a script node, innermost first, with the block it sits in.
QVector<QPair<int, int>> enclosingBranches(const IrGraph& script, int node)
{
    QVector<QPair<int, int>> out;
    if (node < 0 || node >= script.nodes.size())
        return out;
    int current = node;
    while (current >= 0) {
        const IrNode& n = script.node(current);
        if (n.parentNode >= 0 && script.node(n.parentNode).kind == QLatin1String("prim::If"))
            out.push_back({ n.parentNode, n.parentBlock });
        current = n.parentNode;
    }
    return out;
}

QString branchName(int block)
{
    return block == 0 ? QStringLiteral("then") : block == 1 ? QStringLiteral("else") : QStringLiteral("?");
}

SourceLocation scriptLocation(const IrGraph& script, int node)
{
    if (node < 0 || node >= script.nodes.size())
        return {};
    return script.node(node).location;
}

QString constantText(const IrGraph& g, int node)
{
    const IrNode& n = g.node(node);
    if (n.kind == QLatin1String("prim::Constant"))
        return n.attributes.isEmpty() ? QStringLiteral("None") : n.attributes.first().value;
    // A node whose constant inputs differ: show those constants.
    QStringList parts;
    for (int in : n.inputs) {
        const int p = g.value(in).producer;
        if (p >= 0 && g.node(p).kind == QLatin1String("prim::Constant"))
            parts << (g.node(p).attributes.isEmpty() ? QStringLiteral("None") : g.node(p).attributes.first().value);
    }
    return parts.join(QStringLiteral(", "));
}

QString explain(const NodeChange& c, const TraceResult& base, const TraceResult& other, const IrGraph& script,
    int otherIndex, const QHash<int, int>& baseLoops, const QHash<int, int>& otherLoops)
{
    const IrNode* bn = c.baseNode >= 0 ? &base.graph.node(c.baseNode) : nullptr;
    const IrNode* on = c.otherNode >= 0 ? &other.graph.node(c.otherNode) : nullptr;
    const IrNode* any = on ? on : bn;
    const QString traceK = QStringLiteral("trace %1").arg(otherIndex + 1);

    // 1. A loop that ran a different number of times.
    for (const LoopFrame& f : any->loopPath) {
        const int a = baseLoops.value(f.loopNode), b = otherLoops.value(f.loopNode);
        if (a == b)
            continue;
        const TraceWarning* w = warningAt(other, f.loopNode,
            { QStringLiteral("shape-dependent-loop"), QStringLiteral("data-dependent-loop"),
                QStringLiteral("iterating-tensor") });
        if (!w)
            w = warningAt(base, f.loopNode,
                { QStringLiteral("shape-dependent-loop"), QStringLiteral("data-dependent-loop"),
                    QStringLiteral("iterating-tensor") });
        QString why = w && !w->detail.isEmpty() ? QStringLiteral(": trip count %1").arg(w->detail) : QString();
        if (w && w->kind == QLatin1String("data-dependent-loop"))
            why = QStringLiteral(": its condition depends on tensor values");
        return QStringLiteral("loop at line %1 unrolled %2 times in trace 1 but %3 times in %4%5")
            .arg(f.line)
            .arg(a)
            .arg(b)
            .arg(traceK, why);
    }
    // 2. A branch frozen differently.
    for (const auto& [ifNode, block] : enclosingBranches(script, any->originNode)) {
        const QStringList kinds = { QStringLiteral("shape-dependent-branch"), QStringLiteral("data-dependent-branch") };
        const TraceWarning* wa = warningAt(base, ifNode, kinds);
        const TraceWarning* wb = warningAt(other, ifNode, kinds);
        const int takenA = wa ? wa->count : (bn ? block : -1);
        const int takenB = wb ? wb->count : (on ? block : -1);
        if (takenA == takenB && takenA >= 0)
            continue;
        const TraceWarning* w = wb ? wb : wa;
        const int line = scriptLocation(script, ifNode).line;
        QString why;
        if (w && w->kind == QLatin1String("data-dependent-branch"))
            why = QStringLiteral(": its condition %1 depends on tensor values, frozen by a tensor-to-bool conversion")
                      .arg(w->detail.isEmpty() ? QString() : w->detail);
        else if (w)
            why = QStringLiteral(": its condition %1 depends on the input's shape").arg(w->detail);
        return QStringLiteral("branch at line %1 took the %2 branch in trace 1 but the %3 branch in %4%5")
            .arg(line)
            .arg(takenA >= 0 ? branchName(takenA) : QStringLiteral("other"))
            .arg(takenB >= 0 ? branchName(takenB) : QStringLiteral("other"))
            .arg(traceK, why);
    }
    // 3. A value baked in as a constant.
    if (bn && on && bn->kind == on->kind) {
        const QStringList kinds = { QStringLiteral("baked-constant"), QStringLiteral("len-of-tensor"),
            QStringLiteral("tensor-to-number"), QStringLiteral("tensor-to-bool") };
        const TraceWarning* w = warningAt(other, on->originNode, kinds);
        if (!w)
            w = warningAt(base, bn->originNode, kinds);
        const QString a = constantText(base.graph, c.baseNode), b = constantText(other.graph, c.otherNode);
        if (w && !w->detail.isEmpty())
            return QStringLiteral("%1 is baked in as a constant: %2 in trace 1, %3 in %4").arg(w->detail, a, b, traceK);
        if (w && w->kind == QLatin1String("len-of-tensor"))
            return QStringLiteral("len() of a tensor is baked in as a constant: %1 in trace 1, %2 in %3")
                .arg(a, b, traceK);
        if (w)
            return QStringLiteral("a tensor value converted to a Python number is baked in as a constant: %1 in "
                                  "trace 1, %2 in %3")
                .arg(a, b, traceK);
        if (a != b && !a.isEmpty())
            return QStringLiteral("constant %1 in trace 1 but %2 in %3").arg(a, b, traceK);
        return QStringLiteral("%1 recorded with different arguments in %2").arg(bn->kind, traceK);
    }
    if (bn && on)
        return QStringLiteral("%1 in trace 1 but %2 in %3").arg(bn->kind, on->kind, traceK);
    return on ? QStringLiteral("%1 recorded only in %2").arg(on->kind, traceK)
              : QStringLiteral("%1 recorded only in trace 1").arg(bn->kind);
}

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
            w.kind = QStringLiteral("in-place-on-input");
            w.message = QStringLiteral("%1 modifies the input %%2 in place: the trace records it, but callers of the "
                                       "traced function see their tensor changed")
                            .arg(n.kind, self.name);
            w.suggestion = QStringLiteral("clone the input first (x = x.clone()) or use the out-of-place op");
            t.warnings.push_back(w);
        } else if (self.producer >= 0 && viewKinds().contains(t.graph.node(self.producer).kind)) {
            w.kind = QStringLiteral("in-place-on-view");
            w.message = QStringLiteral("%1 modifies a view (%2) in place: the trace writes through to the viewed "
                                       "tensor only for the shapes seen while tracing")
                            .arg(n.kind, t.graph.node(self.producer).kind);
            w.suggestion = QStringLiteral("build the result out of place (torch.cat, torch.where, index_put)");
            t.warnings.push_back(w);
        }
    }
    if (!nondeterministic.isEmpty()) {
        nondeterministic.removeDuplicates();
        TraceWarning w;
        w.kind = QStringLiteral("nondeterministic-op");
        w.traceIndex = index;
        w.message = QStringLiteral("Trace had nondeterministic nodes. Did you forget call .eval() on your model? "
                                   "Nodes: %1")
                        .arg(nondeterministic.join(QStringLiteral(", ")));
        w.suggestion = QStringLiteral("call .eval() on the model, or expect outputs to differ from run to run");
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

} // namespace

void explainChanges(TraceDiff& diff, const TraceResult& base, const TraceResult& other, const IrGraph& script)
{
    const QHash<int, int> baseLoops = loopIterations(base.graph);
    const QHash<int, int> otherLoops = loopIterations(other.graph);
    for (NodeChange& c : diff.changes) {
        const IrNode& n = c.otherNode >= 0 ? other.graph.node(c.otherNode) : base.graph.node(c.baseNode);
        c.scriptNode = n.originNode;
        c.location = scriptLocation(script, n.originNode);
        if (!c.location.isValid())
            c.location = n.location;
        c.cause = explain(c, base, other, script, diff.other, baseLoops, otherLoops);
    }
}

CheckReport checkFunction(
    const ModelInfo& model, const QString& function, const QVector<InputSet>& sets, const CheckOptions& options)
{
    CheckReport r;
    r.file = model.path;
    r.function = function;
    if (const FunctionInfo* fn = model.function(function))
        r.script = fn->graph;
    if (sets.isEmpty()) {
        r.error = { QStringLiteral("no input sets to check"), { model.path, 0, 0 } };
        return r;
    }
    for (int i = 0; i < sets.size(); ++i) {
        TraceResult t = traceFunction(model, function, sets[i], options.exec);
        if (!t.ok && i == 0) {
            r.error = t.error;
            return r;
        }
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
        r.traces.push_back(t);
    }
    r.ok = true;
    const TraceResult& first = r.traces.first();
    for (int k = 1; k < r.traces.size(); ++k) {
        const TraceResult& t = r.traces[k];
        if (!t.ok) {
            r.consistent = false;
            TraceWarning w;
            w.kind = QStringLiteral("trace-failed");
            w.traceIndex = k;
            w.message = QStringLiteral("tracing failed on input set %1 (%2): %3")
                            .arg(k + 1)
                            .arg(sets[k].toString(), t.error.message);
            w.location = t.error.location;
            r.warnings.push_back(w);
            continue;
        }
        TraceDiff diff = diffTraces(first.graph, t.graph);
        diff.base = 0;
        diff.other = k;
        explainChanges(diff, first, t, r.script);
        r.consistent &= diff.equal;
        r.diffs.push_back(diff);

        OutputCheck out = checkTraceOutputs(model, function, first, sets[k], options.exec, options.rtol, options.atol);
        if (!out.ran || !out.comparison.equal) {
            r.consistent = false;
            TraceWarning w;
            w.kind = QStringLiteral("output-mismatch");
            w.traceIndex = k;
            w.message = out.ran ? QStringLiteral("Output nr 1. of the traced function does not match the "
                                                 "corresponding output of the Python function on input set %1 "
                                                 "(%2). Detailed error: %3")
                                      .arg(k + 1)
                                      .arg(sets[k].toString(), out.comparison.message)
                                : out.error;
            w.suggestion = QStringLiteral("the trace recorded for input set 1 computes something else for input set "
                                          "%1: see the divergences above")
                               .arg(k + 1);
            w.location = { model.path, 0, 0 };
            r.warnings.push_back(w);
        }
        r.outputs.push_back(out);
    }
    // Every trace's warnings, in trace order, before the check's own.
    QVector<TraceWarning> all;
    for (const TraceResult& t : r.traces)
        all += t.warnings;
    r.warnings = all + r.warnings;
    return r;
}

} // namespace jitscope
