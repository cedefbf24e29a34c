#include "check/check.h"
#include "check/explain_p.h"

#include <QRegularExpression>

#include <QHash>
#include <QJsonArray>
#include <QSet>

#include <algorithm>

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

const TraceWarning* warningAt(const TraceResult& t, int scriptNode, std::initializer_list<WarningKind> kinds)
{
    for (const TraceWarning& w : t.warnings)
        if (w.scriptNode == scriptNode && std::find(kinds.begin(), kinds.end(), w.kind) != kinds.end())
            return &w;
    return nullptr;
}

const TraceWarning* warningAtLine(
    const TraceResult& t, const SourceLocation& at, std::initializer_list<WarningKind> kinds)
{
    if (!at.isValid())
        return nullptr;
    for (const TraceWarning& w : t.warnings)
        if (w.location.line == at.line && w.location.file == at.file
            && std::find(kinds.begin(), kinds.end(), w.kind) != kinds.end())
            return &w;
    return nullptr;
}

/// The script nodes that make @p node's operands, and theirs (two steps up): where a value it takes was converted.
QVector<int> operandProducers(const IrGraph& script, int node)
{
    QVector<int> out;
    if (node < 0 || node >= script.nodes.size())
        return out;
    QVector<int> level { node };
    for (int step = 0; step < 2; ++step) {
        QVector<int> next;
        for (int n : std::as_const(level))
            for (int in : script.node(n).inputs) {
                const int p = script.value(in).producer;
                if (p >= 0 && !out.contains(p) && script.node(p).kind != QLatin1String("prim::Constant")) {
                    out << p;
                    next << p;
                }
            }
        level = next;
    }
    return out;
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

SourceLocation scriptLocation(const IrGraph& script, int node)
{
    if (node < 0 || node >= script.nodes.size())
        return {};
    return script.node(node).location;
}

QString constantOf(const IrGraph& g, int node)
{
    const IrNode& n = g.node(node);
    return n.attributes.isEmpty() ? QStringLiteral("None") : n.attributes.first().value;
}

bool isTensorConstant(const IrGraph& g, int node)
{
    const IrNode& n = g.node(node);
    return n.kind == QLatin1String("prim::Constant") && n.outputs.size() == 1 && g.value(n.outputs[0]).tensor;
}

/// What two nodes recorded at the same place bake differently: their values (a constant's own; of a node, the
/// constants it takes that differ, in order), and whether one of them is a tensor.
struct BakedValues
{
    QString base;
    QString other;
    bool tensor = false;
};

BakedValues bakedValues(const IrGraph& a, int na, const IrGraph& b, int nb)
{
    BakedValues v;
    if (a.node(na).kind == QLatin1String("prim::Constant")) {
        v.base = constantOf(a, na);
        v.other = b.node(nb).kind == QLatin1String("prim::Constant") ? constantOf(b, nb) : QString();
        v.tensor = isTensorConstant(a, na);
        return v;
    }
    QStringList x, y;
    const QVector<int>& ia = a.node(na).inputs;
    const QVector<int>& ib = b.node(nb).inputs;
    for (int i = 0; i < ia.size() && i < ib.size(); ++i) {
        const int pa = a.value(ia[i]).producer, pb = b.value(ib[i]).producer;
        const bool ca = pa >= 0 && a.node(pa).kind == QLatin1String("prim::Constant");
        const bool cb = pb >= 0 && b.node(pb).kind == QLatin1String("prim::Constant");
        if (!ca || !cb)
            continue;
        const QString va = constantOf(a, pa), vb = constantOf(b, pb);
        const QString da = a.node(pa).attributes.isEmpty() ? QString() : a.node(pa).attributes.first().data;
        const QString db = b.node(pb).attributes.isEmpty() ? QString() : b.node(pb).attributes.first().data;
        if (va == vb && da == db)
            continue;
        x << va;
        y << vb;
        v.tensor |= isTensorConstant(a, pa);
    }
    v.base = x.join(QStringLiteral(", "));
    v.other = y.join(QStringLiteral(", "));
    return v;
}

/// A script value as Python text ("x.dim() == 3"), a few producers deep; @p shape is set when it reads a shape
/// (dim(), size(), len()).
QString expressionOf(const IrGraph& g, int value, bool* shape, int depth = 0)
{
    const IrValue& v = g.value(value);
    if (v.producer < 0) {
        QString name = v.name;
        const int dot = name.lastIndexOf(QLatin1Char('.'));
        if (dot > 0 && name.mid(dot + 1).toInt() > 0) // "x.1": the first assignment of x
            name.truncate(dot);
        return name;
    }
    const IrNode& n = g.node(v.producer);
    if (n.kind == QLatin1String("prim::Constant"))
        return constantOf(g, n.id);
    if (depth >= 4)
        return QStringLiteral("...");
    auto arg = [&](int i) { return i < n.inputs.size() ? expressionOf(g, n.inputs[i], shape, depth + 1) : QString(); };
    static const QHash<QString, QString> binary = {
        { QStringLiteral("aten::eq"), QStringLiteral("==") },
        { QStringLiteral("aten::ne"), QStringLiteral("!=") },
        { QStringLiteral("aten::lt"), QStringLiteral("<") },
        { QStringLiteral("aten::le"), QStringLiteral("<=") },
        { QStringLiteral("aten::gt"), QStringLiteral(">") },
        { QStringLiteral("aten::ge"), QStringLiteral(">=") },
        { QStringLiteral("aten::add"), QStringLiteral("+") },
        { QStringLiteral("aten::sub"), QStringLiteral("-") },
        { QStringLiteral("aten::mul"), QStringLiteral("*") },
        { QStringLiteral("aten::floordiv"), QStringLiteral("//") },
        { QStringLiteral("aten::remainder"), QStringLiteral("%") },
        { QStringLiteral("aten::__and__"), QStringLiteral("and") },
        { QStringLiteral("aten::__or__"), QStringLiteral("or") },
        { QStringLiteral("aten::__is__"), QStringLiteral("is") },
        { QStringLiteral("aten::__isnot__"), QStringLiteral("is not") },
    };
    if (n.kind == QLatin1String("aten::dim") || n.kind == QLatin1String("aten::len")
        || n.kind == QLatin1String("aten::size") || n.kind == QLatin1String("aten::numel")) {
        // Of a tensor (len() of a str or a list is not a shape).
        *shape |= !n.inputs.isEmpty() && g.value(n.inputs.first()).type.contains(QLatin1String("Tensor"))
            && !g.value(n.inputs.first()).type.endsWith(QLatin1String("[]"));
        if (n.kind == QLatin1String("aten::len"))
            return QStringLiteral("len(%1)").arg(arg(0));
        if (n.kind == QLatin1String("aten::size") && n.inputs.size() == 1)
            return arg(0) + QStringLiteral(".shape");
        return QStringLiteral("%1.%2(%3)").arg(arg(0), n.kind.mid(6), n.inputs.size() > 1 ? arg(1) : QString());
    }
    if (binary.contains(n.kind) && n.inputs.size() == 2)
        return QStringLiteral("%1 %2 %3").arg(arg(0), binary.value(n.kind), arg(1));
    if (n.kind == QLatin1String("aten::__not__"))
        return QStringLiteral("not %1").arg(arg(0));
    if (n.kind == QLatin1String("aten::__getitem__") && n.inputs.size() == 2)
        return QStringLiteral("%1[%2]").arg(arg(0), arg(1));
    if (!n.blocks.isEmpty()) // a value an if or a loop computes
        return QStringLiteral("...");
    return n.kind.section(QLatin1String("::"), 1) + QStringLiteral("(...)");
}

/// Whether a script value is computed from a call of @p kind: through producers, and through the blocks of the ifs
/// and loops that produce it (`why_not_fast_path`, set in a chain of ifs, one of them on torch.is_grad_enabled()).
bool computedFrom(const IrGraph& g, int value, const QString& kind)
{
    QVector<int> todo { value };
    QSet<int> seen;
    while (!todo.isEmpty() && seen.size() < 2000) {
        const int v = todo.takeLast();
        if (v < 0 || seen.contains(v))
            continue;
        seen.insert(v);
        const int producer = g.value(v).producer;
        if (producer < 0)
            continue;
        const IrNode& n = g.node(producer);
        if (n.kind == kind)
            return true;
        todo += n.inputs;
        for (const IrBlock& b : n.blocks) {
            todo += b.outputs;
            for (int child : b.nodes)
                if (g.node(child).kind == kind)
                    return true;
        }
    }
    return false;
}

/// An if the compiler made (no line: the rest of a function after an early `return` inside an if, run when it did
/// not return) is decided by the if that returned: its condition followed into the ifs computing it, through the
/// blocks both traces took, to the one they took differently. Any other if decides itself.
int decidingIf(const IrGraph& script, int ifNode, const TraceResult& base, const TraceResult& other)
{
    const IrNode& generated = script.node(ifNode);
    if (generated.location.isValid() || generated.inputs.isEmpty())
        return ifNode;
    int value = generated.inputs.first();
    for (int hops = 0; hops < 16; ++hops) {
        const int producer = script.value(value).producer;
        if (producer < 0 || script.node(producer).kind != QLatin1String("prim::If")) {
            // The flag is the condition of the if that returned (`if not why_not_fast_path: return ...`).
            for (const IrNode& n : script.nodes)
                if (n.kind == QLatin1String("prim::If") && !n.inputs.isEmpty() && n.inputs.first() == value
                    && base.branches.value(n.id) != other.branches.value(n.id))
                    return n.id;
            return ifNode;
        }
        const int taken = base.branches.value(producer);
        if (taken != other.branches.value(producer))
            return producer;
        const IrNode& p = script.node(producer);
        const int k = p.outputs.indexOf(value);
        const int block = taken == 1 ? 0 : taken == 2 ? 1 : -1;
        if (k < 0 || block < 0 || block >= p.blocks.size() || k >= p.blocks[block].outputs.size())
            return ifNode;
        value = p.blocks[block].outputs[k];
    }
    return ifNode;
}

/// The cause "branch at line L took X in trace b but Y in trace k" (@p traceB and @p traceK name the diff's two
/// traces), with why, where a warning or the script says.
Cause explainBranch(int ifNode, const TraceResult& base, const TraceResult& other, const IrGraph& script,
    const QString& traceB, const QString& traceK)
{
    const auto kinds = { WarningKind::ShapeDependentBranch, WarningKind::DataDependentBranch };
    const TraceWarning* wa = warningAt(base, ifNode, kinds);
    const TraceWarning* wb = warningAt(other, ifNode, kinds);
    const TraceWarning* w = wb ? wb : wa;
    QString why;
    const IrNode& branch = script.node(ifNode);
    if (w && w->kind == WarningKind::DataDependentBranch) {
        why = QStringLiteral(": its condition %1 depends on tensor values, frozen by a tensor-to-bool conversion")
                  .arg(w->detail.isEmpty() ? QString() : w->detail);
    } else if (w) {
        why = QStringLiteral(": its condition %1 depends on the input's shape").arg(w->detail);
    } else if (!branch.inputs.isEmpty()
        && computedFrom(script, branch.inputs.first(), QStringLiteral("aten::is_grad_enabled"))) {
        why = QStringLiteral(": its condition depends on torch.is_grad_enabled(), and torch.jit.trace's check "
                             "traces the check inputs under torch.no_grad()");
    } else if (!branch.inputs.isEmpty()) {
        // A condition on a rank or a length (`if x.dim() == 3`) is plain Python for the tracer, which says nothing
        // of it: read it off the script.
        bool shape = false;
        const QString condition = expressionOf(script, branch.inputs.first(), &shape);
        if (shape)
            why = QStringLiteral(": its condition %1 depends on the input's shape").arg(condition);
    }
    auto blocks = [](int bits) {
        return bits == 1 ? QStringLiteral("the then branch")
            : bits == 2  ? QStringLiteral("the else branch")
            : bits == 3  ? QStringLiteral("both branches")
                         : QStringLiteral("neither branch (not reached)");
    };
    return { DivergenceKind::BranchFrozen,
        QStringLiteral("branch at line %1 took %2 in %3 but %4 in %5%6")
            .arg(scriptLocation(script, ifNode).line)
            .arg(blocks(base.branches.value(ifNode)), traceB, blocks(other.branches.value(ifNode)), traceK, why),
        scriptLocation(script, ifNode) };
}

/// The cause of one change: @p traceB and @p traceK name the diff's base and other trace.
Cause explain(const NodeChange& c, const TraceResult& base, const TraceResult& other, const IrGraph& script,
    const QString& traceB, const QString& traceK, const QHash<int, int>& baseLoops, const QHash<int, int>& otherLoops)
{
    const IrNode* bn = c.baseNode >= 0 ? &base.graph.node(c.baseNode) : nullptr;
    const IrNode* on = c.otherNode >= 0 ? &other.graph.node(c.otherNode) : nullptr;
    const IrNode* any = on ? on : bn;

    // 1. A loop that ran a different number of times.
    for (const LoopFrame& f : any->loopPath) {
        const int a = baseLoops.value(f.loopNode), b = otherLoops.value(f.loopNode);
        if (a == b)
            continue;
        const auto kinds
            = { WarningKind::ShapeDependentLoop, WarningKind::DataDependentLoop, WarningKind::IteratingTensor };
        const TraceWarning* w = warningAt(other, f.loopNode, kinds);
        if (!w)
            w = warningAt(base, f.loopNode, kinds);
        QString why = w && !w->detail.isEmpty() ? QStringLiteral(": trip count %1").arg(w->detail) : QString();
        if (w && w->kind == WarningKind::DataDependentLoop)
            why = QStringLiteral(": its condition depends on tensor values");
        return { DivergenceKind::LoopUnrolled,
            QStringLiteral("loop at line %1 unrolled %2 times in %3 but %4 times in %5%6")
                .arg(f.line)
                .arg(a)
                .arg(traceB)
                .arg(b)
                .arg(traceK, why),
            scriptLocation(script, f.loopNode) };
    }
    // 2. A branch frozen differently: the outermost enclosing if whose blocks the two traces took differently.
    QVector<QPair<int, int>> branches = enclosingBranches(script, any->originNode);
    std::reverse(branches.begin(), branches.end());
    for (const auto& branch : branches) {
        const int ifNode = branch.first;
        // TraceResult::branches: 1 then, 2 else, 3 both (in a loop), 0 not reached.
        if (base.branches.value(ifNode) != other.branches.value(ifNode))
            return explainBranch(decidingIf(script, ifNode, base, other), base, other, script, traceB, traceK);
    }
    // 3. A value baked in as a constant.
    if (bn && on && bn->kind == on->kind) {
        const auto kinds = { WarningKind::BakedConstant, WarningKind::LenOfTensor, WarningKind::TensorToNumber,
            WarningKind::TensorToBool };
        const TraceWarning* w = warningAt(other, on->originNode, kinds);
        if (!w)
            w = warningAt(base, bn->originNode, kinds);
        // A conversion (`s = x.sum().item()`) is a script node of its own, apart from the op that takes the number
        // (`x * s`): the warning raised at a script node the op's operands come from.
        for (int producer : operandProducers(script, on->originNode)) {
            if (!w)
                w = warningAt(other, producer, kinds);
            if (!w)
                w = warningAt(base, producer, kinds);
        }
        // Or one raised at the op's own line (`torch.full((1,), max(x.size(0), y.sum().item()))`).
        if (!w)
            w = warningAtLine(other, on->location, kinds);
        if (!w)
            w = warningAtLine(base, bn->location, kinds);
        const BakedValues values = bakedValues(base.graph, c.baseNode, other.graph, c.otherNode);
        const QString a = values.base, b = values.other;
        const DivergenceKind baked = values.tensor ? DivergenceKind::TensorConstant : DivergenceKind::NumberBaked;
        if (w && !w->detail.isEmpty())
            return {
                baked,
                QStringLiteral("%1 is baked in as a constant: %2 in %3, %4 in %5").arg(w->detail, a, traceB, b, traceK)
            };
        if (w && w->kind == WarningKind::LenOfTensor)
            return { baked,
                QStringLiteral("len() of a tensor is baked in as a constant: %1 in %2, %3 in %4")
                    .arg(a, traceB, b, traceK) };
        if (w)
            return { baked,
                QStringLiteral("a tensor value converted to a Python number is baked in as a constant: %1 in "
                               "%2, %3 in %4")
                    .arg(a, traceB, b, traceK) };
        if (a != b && !a.isEmpty())
            return { baked, QStringLiteral("constant %1 in %2 but %3 in %4").arg(a, traceB, b, traceK) };
        return { DivergenceKind::Unexplained,
            QStringLiteral("%1 recorded with different arguments in %2").arg(bn->kind, traceK) };
    }
    if (bn && on)
        return { DivergenceKind::Unexplained,
            QStringLiteral("%1 in %2 but %3 in %4").arg(bn->kind, traceB, on->kind, traceK) };
    return { DivergenceKind::Unexplained,
        on ? QStringLiteral("%1 recorded only in %2").arg(on->kind, traceK)
           : QStringLiteral("%1 recorded only in %2").arg(bn->kind, traceB) };
}

/// True when @p trace's nodes came from a script graph (JitScope's executor records each node's origin there);
/// a trace PyTorch recorded from Python has none.
bool fromScript(const IrGraph& trace)
{
    return std::any_of(trace.nodes.cbegin(), trace.nodes.cend(), [](const IrNode& n) { return n.originNode >= 0; });
}

/// The script rules for every change (each gets a cause: at worst "recorded with different arguments").
void explainScriptChanges(TraceDiff& diff, const TraceResult& base, const TraceResult& other, const IrGraph& script)
{
    const QHash<int, int> baseLoops = loopIterations(base.graph);
    const QHash<int, int> otherLoops = loopIterations(other.graph);
    const QString traceB = traceLabel(diff.base), traceK = traceLabel(diff.other);
    for (NodeChange& c : diff.changes) {
        const IrNode& n = c.otherNode >= 0 ? other.graph.node(c.otherNode) : base.graph.node(c.baseNode);
        c.scriptNode = n.originNode;
        c.location = scriptLocation(script, n.originNode);
        if (!c.location.isValid())
            c.location = n.location;
        c.scope = n.modulePath;
        const Cause cause = explain(c, base, other, script, traceB, traceK, baseLoops, otherLoops);
        c.kind = cause.kind;
        c.cause = cause.text;
        c.causeAt = cause.at;
    }
}

/// The attributes the call changed, as evidence of the divergences in their modules: a module state divergence
/// names those of its module and the modules around it (every one when none is there), a branch those its condition
/// reads (`self.grid`).
void addStateEvidence(TraceDiff& diff, const QVector<PythonStateChange>& changes)
{
    auto text = [](const PythonStateChange& s) {
        return QStringLiteral("the call changed %1%2: %3 before, %4 after")
            .arg(s.module.isEmpty() ? QStringLiteral("self.") : s.module + QLatin1Char('.'), s.attribute,
                s.before.left(100), s.after.left(100));
    };
    auto related = [](const QString& a, const QString& b) {
        return a == b || a.startsWith(b + QLatin1Char('.')) || b.startsWith(a + QLatin1Char('.')) || b.isEmpty();
    };
    for (Divergence& d : diff.divergences) {
        QStringList found;
        if (d.kind == DivergenceKind::ModuleState) {
            for (const PythonStateChange& s : changes)
                if (related(d.scope, s.module) && !s.module.isEmpty())
                    found << text(s);
            if (found.isEmpty())
                for (const PythonStateChange& s : changes)
                    found << text(s);
        } else if (d.kind == DivergenceKind::BranchFrozen && !d.message.isEmpty()) {
            for (const PythonStateChange& s : changes)
                if (d.message.contains(QStringLiteral("self.%1").arg(s.attribute)))
                    found << text(s);
        }
        for (const QString& f : found.mid(0, 4))
            if (!d.evidence.contains(f))
                d.evidence << f;
        if (d.kind == DivergenceKind::ModuleState && !found.isEmpty()) {
            QStringList attributes;
            for (const QString& f : std::as_const(found))
                attributes << f.section(QLatin1Char(':'), 0, 0).mid(int(qstrlen("the call changed ")));
            d.message += QStringLiteral(" (the call changed %1)").arg(attributes.join(QStringLiteral(", ")));
        }
    }
}

} // namespace

IrGraph withoutMangling(IrGraph g)
{
    static const QRegularExpression mangle(QStringLiteral("___torch_mangle_\\d+\\."));
    bool mangled = false;
    for (IrValue& v : g.values) {
        if (!v.type.contains(QLatin1String("___torch_mangle_")))
            continue;
        v.type.remove(mangle);
        mangled = true;
    }
    if (mangled) // the signatures hash the types: computed again
        g.signatureHashes.clear();
    return g;
}

void explainChanges(TraceDiff& diff, const TraceResult& base, const TraceResult& other, const ExplainContext& context)
{
    if (context.script && fromScript(base.graph))
        explainScriptChanges(diff, base, other, *context.script);
    else
        explainRecordedChanges(diff, base, other, context);
    applyObservedParting(diff, base, other, context);
    groupDivergences(diff, base, other, context.moduleTypes);
    addStateEvidence(diff, context.stateChanges);
}

} // namespace jitscope
