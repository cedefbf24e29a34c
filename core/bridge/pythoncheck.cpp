#include "bridge/pythoncheck.h"

#include <QHash>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QStringList>

#include <optional>

namespace jitscope {

namespace {

/// Classes PyTorch compiles again for every trace get mangled names (`___torch_mangle_3.Linear`): the same
/// module either way, so they must not make two traces differ.
IrGraph withoutMangling(IrGraph g)
{
    static const QRegularExpression mangle(QStringLiteral("___torch_mangle_\\d+\\."));
    for (IrValue& v : g.values)
        v.type.remove(mangle);
    g.signatureHashes.clear();
    return g;
}

/// For every top-level node, the line of the user's file it stands for: its own, or for library code (a
/// submodule's forward in torch/nn) the user's line recorded last before it.
QHash<int, int> userLines(const IrGraph& g, const QString& file)
{
    QHash<int, int> lines;
    int last = 0;
    for (int id : g.top.nodes) {
        const SourceLocation& l = g.node(id).location;
        if (l.isValid() && l.file == file)
            last = l.line;
        lines.insert(id, last);
    }
    // Library code before the first user line belongs to the line after it.
    int next = 0;
    for (auto it = g.top.nodes.crbegin(); it != g.top.nodes.crend(); ++it) {
        if (lines.value(*it) > 0)
            next = lines.value(*it);
        else
            lines[*it] = next;
    }
    return lines;
}

/// How many times line @p line ran in a trace: the count of its most frequent op (constants aside).
int timesRecorded(const IrGraph& g, const QHash<int, int>& lines, int line)
{
    QHash<QString, int> counts;
    int best = 0;
    for (int id : g.top.nodes)
        if (lines.value(id) == line && g.node(id).kind != QLatin1String("prim::Constant")
            && g.node(id).kind != QLatin1String("prim::GetAttr")) // an inlined submodule's parameter reads
            best = std::max(best, ++counts[g.node(id).kind]);
    return best;
}

bool warnedAt(const PythonTrace& t, int line, const QString& prefix)
{
    for (const PythonWarning& w : t.warnings)
        if (w.location.line == line && w.message.startsWith(prefix))
            return true;
    return false;
}

int indentOf(const QString& text)
{
    int n = 0;
    while (n < text.size() && (text[n] == QLatin1Char(' ') || text[n] == QLatin1Char('\t')))
        ++n;
    return n;
}

/// The nearest line above @p line (1-based) in @p lines, less indented than it, that starts with one of
/// @p keywords, within the same def; 0 if none.
int enclosing(const QStringList& lines, int line, const QStringList& keywords)
{
    if (line < 1 || line > lines.size())
        return 0;
    int indent = indentOf(lines[line - 1]);
    for (int k = line - 1; k >= 1 && indent > 0; --k) {
        const QString& text = lines[k - 1];
        const QString stripped = text.trimmed();
        if (stripped.isEmpty() || stripped.startsWith(QLatin1Char('#')))
            continue;
        const int ind = indentOf(text);
        if (ind >= indent)
            continue;
        indent = ind;
        for (const QString& kw : keywords)
            if (stripped.startsWith(kw))
                return k;
        if (stripped.startsWith(QLatin1String("def ")) || stripped.startsWith(QLatin1String("class ")))
            return 0;
    }
    return 0;
}

/// The `if` an `else:` at line @p elseLine belongs to: the nearest line above at the same indentation.
int matchingIf(const QStringList& lines, int elseLine)
{
    const int indent = indentOf(lines.value(elseLine - 1));
    for (int k = elseLine - 1; k >= 1; --k) {
        const QString stripped = lines[k - 1].trimmed();
        if (stripped.isEmpty() || indentOf(lines[k - 1]) != indent)
            continue;
        if (stripped.startsWith(QLatin1String("if ")))
            return k;
    }
    return 0;
}

QString quoted(const QStringList& lines, int line)
{
    if (line < 1 || line > lines.size())
        return {};
    return QStringLiteral(" (`%1`)").arg(lines[line - 1].trimmed());
}

/// The value of the first constant at @p line whose value is not among @p other's there, for "baked as".
std::optional<QString> bakedValue(const IrGraph& g, const QVector<int>& nodes)
{
    for (int id : nodes)
        if (id >= 0 && g.node(id).kind == QLatin1String("prim::Constant")
            && g.node(id).hasAttribute(QStringLiteral("value")))
            return g.node(id).attribute(QStringLiteral("value"));
    return std::nullopt;
}

QString explain(int line, const PythonTrace& base, const PythonTrace& other, int otherIndex, const IrGraph& baseGraph,
    const IrGraph& otherGraph, const QHash<int, int>& baseLines, const QHash<int, int>& otherLines,
    const QVector<int>& baseNodes, const QVector<int>& otherNodes, const QStringList& source)
{
    const QString t1 = QStringLiteral("trace 1");
    const QString t2 = QStringLiteral("trace %1").arg(otherIndex + 1);
    const int nBase = timesRecorded(baseGraph, baseLines, line);
    const int nOther = timesRecorded(otherGraph, otherLines, line);
    static const QString toBool = QStringLiteral("Converting a tensor to a Python boolean");

    // A branch frozen by a tensor-to-bool conversion: the line ran in one trace only, or is the condition itself.
    int branch = warnedAt(base, line, toBool) || warnedAt(other, line, toBool) ? line : 0;
    if (!branch && (nBase == 0 || nOther == 0)) {
        const int header
            = enclosing(source, line, { QStringLiteral("if "), QStringLiteral("elif "), QStringLiteral("else") });
        int condition = header;
        if (header && source.value(header - 1).trimmed().startsWith(QLatin1String("else")))
            condition = matchingIf(source, header);
        if (condition && (warnedAt(base, condition, toBool) || warnedAt(other, condition, toBool)))
            branch = condition;
        else if (condition == 0 && header)
            branch = header;
    }
    if (branch && (nBase == 0 || nOther == 0 || branch == line))
        return QStringLiteral("branch at line %1%2 frozen by a tensor-to-bool conversion: %3 and %4 took different "
                              "paths (TracerWarning at line %1)")
            .arg(branch)
            .arg(quoted(source, branch), t1, t2);

    if (nBase != nOther && nBase > 0 && nOther > 0) {
        const int loop = enclosing(source, line, { QStringLiteral("for "), QStringLiteral("while ") });
        if (loop)
            return QStringLiteral("loop at line %1%2 unrolled %3 times in %4 but %5 times in %6: the tracer records "
                                  "every iteration, so the trip count was baked from the inputs")
                .arg(loop)
                .arg(quoted(source, loop))
                .arg(nBase)
                .arg(t1)
                .arg(nOther)
                .arg(t2);
        return QStringLiteral("line %1 recorded %2 times in %3 but %4 times in %5: a loop the tracer unrolled")
            .arg(line)
            .arg(nBase)
            .arg(t1)
            .arg(nOther)
            .arg(t2);
    }

    const auto v1 = bakedValue(baseGraph, baseNodes);
    const auto v2 = bakedValue(otherGraph, otherNodes);
    const QString values = v1 && v2 ? QStringLiteral(": %1 in %2, %3 in %4").arg(*v1, t1, *v2, t2) : QString();
    if (warnedAt(base, line, QStringLiteral("Using len to get tensor shape"))
        || warnedAt(other, line, QStringLiteral("Using len to get tensor shape")))
        return QStringLiteral("`len()` of a tensor at line %1 baked as a constant%2 (TracerWarning at line %1)")
            .arg(line)
            .arg(values);
    if (warnedAt(base, line, QStringLiteral("Converting a tensor to a Python"))
        || warnedAt(other, line, QStringLiteral("Converting a tensor to a Python")))
        return QStringLiteral("a tensor converted to a Python number at line %1 baked as a constant%2 (TracerWarning "
                              "at line %1)")
            .arg(line)
            .arg(values);
    if (v1 || v2)
        return QStringLiteral("a Python value at line %1 baked as a constant%2").arg(line).arg(values);
    return QStringLiteral("line %1 recorded different operations in %2 and %3").arg(line).arg(t1, t2);
}

/// The nodes taking each value of a graph (value id -> node ids), for placedNode().
using Users = QHash<int, QVector<int>>;

Users usersOf(const IrGraph& g)
{
    Users users;
    for (const IrNode& n : g.nodes)
        for (int v : n.inputs)
            users[v] << n.id;
    return users;
}

/// The node standing for node @p id of @p g where it has no place of its own (the tuples an inlined call passes
/// its values in carry neither a place nor a module): the nearest node with a place along the data flow (the nodes
/// using its outputs, breadth first; @p users: usersOf(g)), else @p id.
int placedNode(const IrGraph& g, const Users& users, int id)
{
    if (g.node(id).location.isValid())
        return id;
    QVector<int> queue { id };
    QSet<int> seen { id };
    for (int head = 0; head < queue.size() && head < 256; ++head) {
        const IrNode& n = g.node(queue[head]);
        if (n.location.isValid())
            return n.id;
        for (int v : n.outputs)
            for (int user : users.value(v))
                if (!seen.contains(user)) {
                    seen.insert(user);
                    queue << user;
                }
    }
    return id;
}

} // namespace

PythonCheck checkPythonCall(const PythonCall& call, const QString& source)
{
    PythonCheck check;
    check.call = call.index;
    if (call.traces.isEmpty() || !call.traces[0].ok)
        return check;
    const QStringList lines = source.split(QLatin1Char('\n'));
    const QString file = call.location.file;
    const PythonTrace& base = call.traces[0];
    const IrGraph baseGraph = withoutMangling(base.graph);
    const QHash<int, int> baseLines = userLines(baseGraph, file);
    // Every trace diffed once, before any is explained: a trace of the example inputs again (PyTorch's check
    // without check inputs, or JitScope's after a check that found another graph) that differs from trace 1 says
    // the model changed between the calls, which the other diffs' causes say too.
    QVector<IrGraph> graphs(call.traces.size());
    QVector<TraceDiff> diffs(call.traces.size());
    bool stateChanged = false;
    for (int k = 1; k < call.traces.size(); ++k) {
        if (!call.traces[k].ok)
            continue;
        graphs[k] = withoutMangling(call.traces[k].graph);
        diffs[k] = diffTraces(baseGraph, graphs[k]);
        stateChanged |= call.traces[k].repeat && !diffs[k].equal;
    }
    for (int k = 1; k < call.traces.size(); ++k) {
        const PythonTrace& other = call.traces[k];
        if (!other.ok)
            continue;
        const IrGraph& otherGraph = graphs[k];
        const QHash<int, int> otherLines = userLines(otherGraph, file);
        TraceDiff& diff = diffs[k];
        diff.base = 0;
        diff.other = k;
        // Changes by the user's line they stand for, each line explained once from all of its changes.
        QHash<int, QPair<QVector<int>, QVector<int>>> byLine;
        for (NodeChange& c : diff.changes) {
            const int line = c.otherNode >= 0 && c.op == NodeChange::Op::Insert ? otherLines.value(c.otherNode)
                                                                                : baseLines.value(c.baseNode);
            c.location = SourceLocation { file, line, 0 };
            if (c.baseNode >= 0)
                byLine[line].first << c.baseNode;
            if (c.otherNode >= 0)
                byLine[line].second << c.otherNode;
        }
        QHash<int, QString> causes;
        for (auto it = byLine.cbegin(); it != byLine.cend(); ++it)
            causes.insert(it.key(),
                explain(it.key(), base, other, k, baseGraph, otherGraph, baseLines, otherLines, it.value().first,
                    it.value().second, lines));
        // A changed node with no place of its own (the tuples an inlined call passes its values in) belongs with
        // the next changed node that has one: the op those values reach.
        QVector<QPair<int, int>> placed; // (base or other node id, change index), in node order
        for (int i = 0; i < diff.changes.size(); ++i) {
            const NodeChange& c = diff.changes[i];
            const bool inserted = c.op == NodeChange::Op::Insert;
            const int id = inserted ? c.otherNode : c.baseNode;
            if ((inserted ? otherGraph : baseGraph).node(id).location.isValid())
                placed << qMakePair(id, i);
        }
        std::optional<Users> baseUsers, otherUsers; // made when a change with no place has no placed change
        auto standIn = [&](const IrGraph& g, int id) {
            const NodeChange* after = nullptr;
            for (const auto& p : placed)
                if (p.first >= id) {
                    after = &diff.changes[p.second];
                    break;
                }
            if (!after && !placed.isEmpty())
                after = &diff.changes[placed.last().second];
            if (!after) {
                std::optional<Users>& users = &g == &baseGraph ? baseUsers : otherUsers;
                if (!users)
                    users = usersOf(g);
                return std::make_pair(&g, placedNode(g, *users, id));
            }
            const bool inserted = after->op == NodeChange::Op::Insert;
            return std::make_pair(inserted ? &otherGraph : &baseGraph, inserted ? after->otherNode : after->baseNode);
        };
        for (NodeChange& c : diff.changes) {
            c.cause = causes.value(c.location.line);
            if (c.location.line > 0 && !other.repeat)
                continue;
            // Library code the user's file recorded nothing around (a submodule's call in torchvision): the
            // node's own place and module say where.
            const bool inserted = c.op == NodeChange::Op::Insert;
            const IrGraph& g = inserted ? otherGraph : baseGraph;
            const int id = inserted ? c.otherNode : c.baseNode;
            const auto [standInGraph, standInNode] = standIn(g, id);
            const IrNode& standing = standInGraph->node(standInNode);
            if (c.location.line == 0)
                c.location = standing.location.isValid() ? standing.location : SourceLocation { file, 0, 0 };
            const QString module = standing.modulePath;
            const QString where = module.isEmpty()
                ? QStringLiteral("the top module")
                : QStringLiteral("module `%1`%2")
                      .arg(module,
                          call.moduleTypes.contains(module)
                              ? QStringLiteral(" (%1)").arg(call.moduleTypes.value(module))
                              : QString());
            if (other.repeat)
                c.cause = QStringLiteral("module state: the same inputs traced again record another graph in %1; "
                                         "the model changed between the calls (a cache or counter its first call "
                                         "made), not its inputs")
                              .arg(where);
            else
                c.cause = QStringLiteral("%1 recorded different operations in trace 1 and trace %2%3")
                              .arg(where)
                              .arg(k + 1)
                              .arg(stateChanged ? QStringLiteral(": module state, the example inputs traced again "
                                                                 "differ too")
                                                : QString());
        }
        check.consistent &= diff.equal;
        check.diffs.push_back(diff);
    }
    return check;
}

WarningKind pythonWarningKind(const PythonWarning& w)
{
    const QString& m = w.message;
    if (w.category != QLatin1String("TracerWarning"))
        return w.category == QLatin1String("UserWarning") ? WarningKind::UserWarning : WarningKind::Tracer;
    if (m.startsWith(QLatin1String("Converting a tensor to a Python boolean")))
        return WarningKind::TensorToBool;
    if (m.startsWith(QLatin1String("Converting a tensor to a Python index")))
        return WarningKind::TensorToIndex;
    if (m.startsWith(QLatin1String("Converting a tensor to a Python"))
        || m.startsWith(QLatin1String("Converting a tensor to a NumPy array")))
        return WarningKind::TensorToNumber;
    if (m.startsWith(QLatin1String("Using len to get tensor shape")))
        return WarningKind::LenOfTensor;
    if (m.startsWith(QLatin1String("Iterating over a tensor")))
        return WarningKind::IteratingTensor;
    if (m.contains(QLatin1String(" results are registered as constants in the trace")))
        return WarningKind::BakedConstant;
    if (m.startsWith(QLatin1String("Trace had nondeterministic nodes")))
        return WarningKind::NondeterministicOp;
    if (m.startsWith(QLatin1String("Output nr ")))
        return WarningKind::OutputMismatch;
    return WarningKind::Tracer;
}

CheckReport pythonCheckReport(const PythonRun& run, const PythonCall& call, const PythonCheck& check)
{
    CheckReport r;
    r.file = call.location.file;
    r.function = call.target;
    r.moduleTypes = call.moduleTypes;
    for (const PythonFunction& f : run.functions)
        if (f.name == call.target && f.scriptOk)
            r.script = f.graph;
    for (const PythonModule& m : run.modules)
        for (const PythonMethod& pm : m.methods)
            if (m.className + QLatin1Char('.') + pm.name == call.target && pm.compiled)
                r.script = pm.graph;

    // The node a warning is about: the first recorded at its line, else (a condition whose ops the trace dropped)
    // the next one recorded after it in the same file.
    auto nodeAtLine = [](const IrGraph& g, const SourceLocation& at) {
        int next = -1;
        int nextLine = 0;
        for (int id : g.top.nodes) {
            const IrNode& n = g.node(id);
            if (n.location.file != at.file || n.kind == QLatin1String("prim::Constant"))
                continue;
            if (n.location.line == at.line)
                return n.id;
            if (n.location.line > at.line && (next < 0 || n.location.line < nextLine)) {
                next = n.id;
                nextLine = n.location.line;
            }
        }
        return next;
    };
    // Per file, each line that recorded a node (constants aside) with the first such node, anywhere in the
    // (inlined) graph: a library's lines as well as the user's. Made once per trace: a model raises hundreds of
    // warnings, each looked up at every frame of its stack.
    QHash<const IrGraph*, QHash<QString, QMap<int, int>>> placesOf;
    auto places = [&](const IrGraph& g) -> const QHash<QString, QMap<int, int>>& {
        auto it = placesOf.find(&g);
        if (it == placesOf.end()) {
            QHash<QString, QMap<int, int>> byFile;
            for (const IrNode& n : g.nodes)
                if (n.location.isValid() && n.kind != QLatin1String("prim::Constant")) {
                    QMap<int, int>& lines = byFile[n.location.file];
                    if (!lines.contains(n.location.line))
                        lines.insert(n.location.line, n.id);
                }
            it = placesOf.insert(&g, byFile);
        }
        return *it;
    };
    // The first node recorded exactly at @p at.
    auto nodeExactlyAt
        = [&](const IrGraph& g, const SourceLocation& at) { return places(g).value(at.file).value(at.line, -1); };
    // The first node of the nearest line after @p at in its file.
    auto nodeAfter = [&](const IrGraph& g, const SourceLocation& at) {
        const auto file = places(g).constFind(at.file);
        if (file == places(g).constEnd())
            return -1;
        const auto next = file->upperBound(at.line);
        return next == file->constEnd() ? -1 : next.value();
    };
    auto toWarning = [&](const PythonWarning& w, int trace, const IrGraph* graph) {
        TraceWarning tw;
        tw.kind = pythonWarningKind(w);
        tw.message = w.message;
        tw.traceIndex = trace;
        tw.location = w.location;
        tw.suggestion = warningFix(tw.kind);
        tw.occurrences = w.count;
        for (const PythonFrame& f : w.stack)
            tw.stack << f.location;
        if (graph) {
            // The node of the innermost frame that recorded one (torch._assert's line records none; the
            // torchvision line that called it does).
            tw.traceNode = nodeExactlyAt(*graph, w.location);
            for (int f = 0; tw.traceNode < 0 && f < w.stack.size(); ++f)
                tw.traceNode = nodeExactlyAt(*graph, w.stack[f].location);
            if (tw.traceNode < 0 && w.userCode)
                tw.traceNode = nodeAtLine(*graph, w.location);
            // A frame whose line is a call recording nothing itself (a check before the op): the first node its
            // file records after that line.
            for (int f = 0; tw.traceNode < 0 && f < w.stack.size(); ++f)
                tw.traceNode = nodeAfter(*graph, w.stack[f].location);
        }
        return tw;
    };

    for (int k = 0; k < call.traces.size(); ++k) {
        const PythonTrace& t = call.traces[k];
        TraceResult tr;
        tr.ok = t.ok;
        tr.error = t.error;
        if (auto set = parseInputSet(t.inputs))
            tr.inputs = *set;
        tr.graph = t.graph;
        for (const PythonWarning& w : t.warnings) {
            tr.warnings << toWarning(w, k, t.ok ? &t.graph : nullptr);
            r.warnings << tr.warnings.back();
        }
        r.traces << tr;
        if (k > 0) {
            OutputCheck oc;
            oc.ran = t.outputsCompared;
            if (t.outputsCompared) {
                oc.comparison.equal = t.outputsEqual;
                oc.comparison.message = t.outputsMessage;
                oc.comparison.total = t.outputsElements;
            } else {
                oc.error = t.outputsMessage;
            }
            r.outputs << oc;
            if (oc.ran && !oc.comparison.equal) {
                TraceWarning tw;
                tw.kind = WarningKind::OutputMismatch;
                tw.message = QStringLiteral("trace 1 run on set %1 does not compute what the Python code computes: %2")
                                 .arg(k + 1)
                                 .arg(t.outputsMessage);
                tw.traceIndex = k;
                tw.location = call.location;
                tw.suggestion = warningFix(tw.kind);
                r.warnings << tw;
            }
        }
    }
    r.ok = !r.traces.isEmpty() && r.traces[0].ok;
    if (!r.ok)
        r.error = !call.traces.isEmpty() && !call.traces[0].ok ? call.traces[0].error : call.error;
    if (!r.ok && r.error.message.isEmpty())
        r.error = Diagnostic { QStringLiteral("the call recorded no trace"), call.location };

    r.diffs = check.diffs;
    r.statuses.resize(r.traces.size());
    for (int k = 0; k < r.traces.size(); ++k) {
        TraceStatus& s = r.statuses[k];
        if (!r.traces[k].ok)
            s = TraceStatus::Failed;
        else if (k == 0)
            s = TraceStatus::Reference;
        else if (!r.traces[0].ok)
            s = TraceStatus::Failed;
        else {
            s = TraceStatus::Same;
            for (const TraceDiff& d : r.diffs)
                if (d.other == k && !d.equal)
                    s = TraceStatus::Diverged;
            if (s == TraceStatus::Same && k - 1 < r.outputs.size() && r.outputs[k - 1].ran
                && !r.outputs[k - 1].comparison.equal)
                s = TraceStatus::WrongOutput;
        }
    }
    r.consistent = check.consistent;
    for (TraceStatus s : r.statuses)
        r.consistent &= s == TraceStatus::Reference || s == TraceStatus::Same;
    // PyTorch's own verdict, when it failed for a reason the traces above do not show (nondeterministic nodes).
    if (call.checked && !call.checkPassed && r.consistent) {
        r.consistent = false;
        TraceWarning tw;
        tw.kind = call.checkMessage.contains(QLatin1String("nondeterministic")) ? WarningKind::NondeterministicOp
                                                                                : WarningKind::OutputMismatch;
        tw.message
            = QStringLiteral("PyTorch's check failed: %1").arg(call.checkMessage.section(QLatin1Char('\n'), 0, 2));
        tw.location = call.location;
        tw.suggestion = warningFix(tw.kind);
        r.warnings << tw;
    }
    return r;
}

} // namespace jitscope
