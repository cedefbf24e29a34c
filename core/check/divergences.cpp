// The changes of a diff grouped into divergences: one per cause, with its module, line, stack and evidence. Both
// explainers (JitScope's own traces from the script graph, recorded Python traces from lines, stacks and
// TracerWarnings) fill each change's kind, cause and causeAt; what follows is the same for both.
#include "check/check.h"
#include "check/explain_p.h"

#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace jitscope {

namespace {

bool isConstant(const IrGraph& g, int node)
{
    return node >= 0 && g.node(node).kind == QLatin1String("prim::Constant");
}

/// A change of a constant only (a pooled constant at the top of the graph): it belongs with the change of the
/// node using it.
bool constantOnly(const NodeChange& c, const IrGraph& base, const IrGraph& other)
{
    return (c.baseNode < 0 || isConstant(base, c.baseNode)) && (c.otherNode < 0 || isConstant(other, c.otherNode));
}

/// A constant's value as evidence shows it: a number as is, a tensor as its dtype and shape and, up to 64 elements,
/// its values ("Float[2, 2] [0.5, 1, 1.5, 2]").
QString constantValue(const IrGraph& g, int node)
{
    const IrNode& n = g.node(node);
    if (n.attributes.isEmpty())
        return QStringLiteral("None");
    const IrAttribute& a = n.attributes.first();
    const IrValue& out = g.value(n.outputs.value(0));
    if (a.kind == QLatin1String("t") && out.tensor && out.tensor->sizes) {
        const QString head = QStringLiteral("%1%2").arg(out.tensor->dtype, shapeText(*out.tensor->sizes));
        if (a.data.startsWith(QLatin1Char('[')))
            return head + QLatin1Char(' ') + a.data;
        return a.data.isEmpty() ? QStringLiteral("%1 %2").arg(head, a.value) : head;
    }
    return a.data.isEmpty() ? a.value : a.data;
}

/// The constants a node of @p g takes, by input position (-1 where an input is not a constant); a constant itself.
QVector<int> constantProducers(const IrGraph& g, int node)
{
    if (isConstant(g, node))
        return { node };
    QVector<int> out;
    for (int in : g.node(node).inputs) {
        const int p = g.value(in).producer;
        out << (isConstant(g, p) ? p : -1);
    }
    return out;
}

/// A constant's value as compared: its data where set (a tensor's values or CRC), else as libtorch prints it.
QString rawValue(const IrGraph& g, int constant)
{
    const IrNode& n = g.node(constant);
    if (n.attributes.isEmpty())
        return QStringLiteral("None");
    return n.attributes.first().data.isEmpty() ? n.attributes.first().value : n.attributes.first().data;
}

/// "x.size(0)" for the first graph input dimension equal to @p value, or empty: where a baked number came from.
QString inputDimension(const IrGraph& g, qint64 value, int* input, int* dim)
{
    for (int i = 0; i < g.top.inputs.size(); ++i) {
        const IrValue& v = g.value(g.top.inputs[i]);
        if (!v.tensor || !v.tensor->sizes)
            continue;
        for (int d = 0; d < v.tensor->sizes->size(); ++d)
            if (v.tensor->sizes->at(d) == value) {
                *input = i;
                *dim = d;
                return QStringLiteral("%1.size(%2)").arg(v.name.section(QLatin1Char('.'), 0, 0)).arg(d);
            }
    }
    return {};
}

/// The module a divergence is in: the deepest module path holding at least 80% of its nodes (constants aside), so
/// that a few nodes of a consumer it reaches (the head after a frozen encoder layer) do not widen it to the top.
QString mainScope(const QStringList& scopes)
{
    QHash<QString, int> counts;
    for (const QString& scope : scopes) {
        ++counts[QString()];
        QString prefix;
        for (const QString& part : scope.split(QLatin1Char('.'), Qt::SkipEmptyParts)) {
            prefix += (prefix.isEmpty() ? QString() : QStringLiteral(".")) + part;
            ++counts[prefix];
        }
    }
    QString best;
    int bestDepth = -1;
    const int needed = (int(scopes.size()) * 4 + 4) / 5;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        const int depth = it.key().isEmpty() ? 0 : int(it.key().count(QLatin1Char('.'))) + 1;
        if (it.value() >= needed && (depth > bestDepth || (depth == bestDepth && it.key() < best))) {
            best = it.key();
            bestDepth = depth;
        }
    }
    return best;
}

/// Evidence from the values the two traces baked where their nodes differ only in constants: @p traceB and
/// @p traceK name the diff's base and other trace.
void addValueEvidence(Divergence& d, const NodeChange& c, const IrGraph& base, const IrGraph& other,
    const QString& traceB, const QString& traceK)
{
    if (c.op != NodeChange::Op::Change || d.evidence.size() >= 6)
        return;
    const QVector<int> pa = constantProducers(base, c.baseNode), pb = constantProducers(other, c.otherNode);
    if (pa.size() != pb.size())
        return;
    QStringList a, b; // the differing constants as evidence shows them, by position
    for (int i = 0; i < pa.size(); ++i) {
        const bool differ = pa[i] >= 0 && pb[i] >= 0 && rawValue(base, pa[i]) != rawValue(other, pb[i]);
        a << (differ ? constantValue(base, pa[i]) : QString());
        b << (differ ? constantValue(other, pb[i]) : QString());
    }
    for (int i = 0; i < a.size(); ++i) {
        if (a[i].isEmpty())
            continue;
        QString text;
        const bool tensor = a[i].contains(QLatin1Char('[')) && b[i].contains(QLatin1Char('['));
        bool okA = false, okB = false;
        const qint64 na = a[i].toLongLong(&okA), nb = b[i].toLongLong(&okB);
        if (tensor) {
            // Tensor constants of the same shape: which elements differ.
            // "Float[2, 2] [0.5, 1, ...]": the same shape, the elements compared.
            const QString va = a[i].section(QLatin1String("] ["), 1), vb = b[i].section(QLatin1String("] ["), 1);
            const QStringList ea = va.chopped(va.isEmpty() ? 0 : 1).split(QStringLiteral(", "));
            const QStringList eb = vb.chopped(vb.isEmpty() ? 0 : 1).split(QStringLiteral(", "));
            if (!va.isEmpty() && a[i].section(QLatin1Char(' '), 0, 0) == b[i].section(QLatin1Char(' '), 0, 0)
                && ea.size() == eb.size()) {
                QStringList diffs;
                int count = 0;
                for (int e = 0; e < ea.size(); ++e)
                    if (ea[e] != eb[e] && ++count <= 3)
                        diffs << QStringLiteral("[%1] %2 vs %3").arg(e).arg(ea[e], eb[e]);
                text = QStringLiteral("tensor constant %1: %2 of %3 elements differ (%4)")
                           .arg(a[i].section(QLatin1Char(' '), 0, 0))
                           .arg(count)
                           .arg(ea.size())
                           .arg(diffs.join(QStringLiteral(", ")));
            } else {
                text = QStringLiteral("tensor constant: %1 in %2, %3 in %4")
                           .arg(a[i].left(60), traceB, b[i].left(60), traceK);
            }
        } else {
            text = QStringLiteral("baked %1 in %2, %3 in %4").arg(a[i], traceB, b[i], traceK);
            if (okA && okB) {
                int ia = -1, da = -1, ib = -1, db = -1;
                const QString wa = inputDimension(base, na, &ia, &da);
                const QString wb = inputDimension(other, nb, &ib, &db);
                if (!wa.isEmpty() && ia == ib && da == db)
                    text += QStringLiteral(": %1 of each trace's inputs").arg(wa);
                else if (!wa.isEmpty())
                    text += QStringLiteral(" (%1 = %2 in %3)").arg(a[i], wa, traceB);
            }
        }
        if (!d.evidence.contains(text))
            d.evidence << text;
    }
}

bool sameLine(const SourceLocation& a, const SourceLocation& b)
{
    return a.line == b.line && a.file == b.file;
}

/// The warnings of either trace raised at the divergence's line or with it on their stack, each once, with the
/// traces (0-based @p baseIndex and @p otherIndex) that raised it.
void addWarningEvidence(
    Divergence& d, const TraceResult& base, const TraceResult& other, int baseIndex, int otherIndex)
{
    QHash<QString, QString> traces; // warning text -> "1,3", shown as "trace 1 and 3"
    QStringList order;
    for (int k = 0; k < 2; ++k)
        for (const TraceWarning& w : (k == 0 ? base : other).warnings) {
            bool at = sameLine(w.location, d.location);
            for (const SourceLocation& f : w.stack)
                at |= sameLine(f, d.location);
            if (!at)
                continue;
            const QString text
                = QStringLiteral("%1 at %2:%3: %4")
                      .arg(warningKindName(w.kind), w.location.file.section(QLatin1Char('/'), -1))
                      .arg(w.location.line)
                      .arg(w.message.section(QLatin1Char('\n'), 0, 0).section(QLatin1String(". "), 0, 0));
            const QString trace = QString::number((k == 0 ? baseIndex : otherIndex) + 1);
            if (!traces.contains(text))
                order << text;
            QString& in = traces[text];
            if (!in.split(QLatin1Char(',')).contains(trace))
                in += (in.isEmpty() ? QString() : QStringLiteral(",")) + trace;
        }
    for (const QString& text : std::as_const(order)) {
        if (d.evidence.size() >= 8)
            return;
        d.evidence << QStringLiteral("%1 (trace %2)")
                          .arg(text, traces.value(text).replace(QLatin1Char(','), QStringLiteral(" and ")));
    }
}

} // namespace

QStringList constantArguments(const IrGraph& g, int node)
{
    QStringList out;
    for (int p : constantProducers(g, node))
        out << (p >= 0 ? rawValue(g, p) : QString());
    return out;
}

void groupDivergences(
    TraceDiff& diff, const TraceResult& base, const TraceResult& other, const QHash<QString, QString>& moduleTypes)
{
    diff.divergences.clear();
    const IrGraph& bg = base.graph;
    const IrGraph& og = other.graph;
    const QString traceB = traceLabel(diff.base), traceK = traceLabel(diff.other);
    // Constants follow the change of a node using them, else the next change that is not a constant.
    QVector<int> leader(diff.changes.size(), -1);
    ChangesByNode byNode = changesByNode(diff);
    QHash<int, int>& changeOfBase = byNode.base;
    QHash<int, int>& changeOfOther = byNode.other;
    QHash<int, QVector<int>> baseUsers, otherUsers; // made only when a diff has constant changes
    auto usersOf = [](const IrGraph& g, QHash<int, QVector<int>>& users) {
        if (users.isEmpty())
            for (const IrNode& n : g.nodes)
                for (int v : n.inputs)
                    users[v] << n.id;
        return &users;
    };
    for (int i = 0; i < diff.changes.size(); ++i) {
        const NodeChange& c = diff.changes[i];
        if (!constantOnly(c, bg, og))
            continue;
        int found = -1;
        auto userChange = [&](const IrGraph& g, int node, QHash<int, QVector<int>>& users, QHash<int, int>& changes) {
            if (node < 0 || found >= 0)
                return;
            for (int out : g.node(node).outputs)
                for (int user : usersOf(g, users)->value(out)) {
                    const int ch = changes.value(user, -1);
                    if (ch >= 0 && !constantOnly(diff.changes[ch], bg, og)) {
                        found = ch;
                        return;
                    }
                }
        };
        userChange(bg, c.baseNode, baseUsers, changeOfBase);
        userChange(og, c.otherNode, otherUsers, changeOfOther);
        for (int j = i + 1; found < 0 && j < diff.changes.size(); ++j)
            if (!constantOnly(diff.changes[j], bg, og))
                found = j;
        for (int j = i - 1; found < 0 && j >= 0; --j)
            if (!constantOnly(diff.changes[j], bg, og))
                found = j;
        leader[i] = found;
    }

    // A change nothing explains that takes a value of an explained change, or makes one for it, is part of that
    // change's cause (the call a frozen branch passes its slice to; the sizes a branch's reshape is made of).
    for (int pass = 0; pass < 4; ++pass) {
        bool adopted = false;
        for (int i = 0; i < diff.changes.size(); ++i) {
            const NodeChange& c = diff.changes[i];
            if (c.kind != DivergenceKind::Unexplained || leader[i] >= 0)
                continue;
            const NodeChange* from = nullptr;
            auto consider = [&](int j) {
                for (int hops = 0; j >= 0 && leader[j] >= 0 && hops < 8; ++hops)
                    j = leader[j];
                if (!from && j >= 0 && j != i && diff.changes[j].kind != DivergenceKind::Unexplained)
                    from = &diff.changes[j];
            };
            auto related = [&](const IrGraph& g, int node, QHash<int, QVector<int>>& users, QHash<int, int>& changes) {
                if (node < 0)
                    return;
                for (int in : g.node(node).inputs)
                    consider(changes.value(g.value(in).producer, -1));
                for (int out : g.node(node).outputs)
                    for (int user : usersOf(g, users)->value(out))
                        consider(changes.value(user, -1));
            };
            related(og, c.otherNode, otherUsers, changeOfOther);
            related(bg, c.baseNode, baseUsers, changeOfBase);
            if (from) {
                leader[i] = int(from - diff.changes.constData());
                adopted = true;
            }
        }
        if (!adopted)
            break;
    }
    // A constant that follows a change that follows another: both go with the last.
    for (int i = 0; i < leader.size(); ++i)
        for (int hops = 0; leader[i] >= 0 && leader[leader[i]] >= 0 && hops < 8; ++hops)
            leader[i] = leader[leader[i]];

    QHash<QString, int> byKey;
    QHash<int, QStringList> scopes; // per divergence, its nodes' modules
    auto keyOf = [](const NodeChange& c) {
        const SourceLocation& at = c.causeAt.isValid() ? c.causeAt : c.location;
        QString key
            = divergenceKindName(c.kind) + QLatin1Char('|') + at.file + QLatin1Char(':') + QString::number(at.line);
        if (c.kind == DivergenceKind::ModuleState || !at.isValid())
            key += QLatin1Char('|') + c.scope;
        return key;
    };
    for (int i = 0; i < diff.changes.size(); ++i) {
        NodeChange& c = diff.changes[i];
        const NodeChange& lead = leader[i] >= 0 ? diff.changes[leader[i]] : c;
        const QString key = keyOf(lead);
        auto it = byKey.find(key);
        if (it == byKey.end()) {
            Divergence d;
            d.kind = lead.kind;
            d.message = lead.cause;
            d.location = lead.causeAt.isValid() ? lead.causeAt : lead.location;
            it = byKey.insert(key, int(diff.divergences.size()));
            diff.divergences.push_back(d);
        }
        Divergence& d = diff.divergences[it.value()];
        c.divergence = it.value();
        if (&lead != &c) {
            c.kind = lead.kind;
            c.cause = lead.cause;
            c.causeAt = lead.causeAt;
        }
        d.changes << i;
        if (c.baseNode >= 0)
            d.baseNodes << c.baseNode;
        if (c.otherNode >= 0)
            d.otherNodes << c.otherNode;
        if (!constantOnly(c, bg, og) || leader[i] < 0)
            scopes[it.value()] << c.scope;
    }
    for (int v = 0; v < diff.divergences.size(); ++v) {
        Divergence& d = diff.divergences[v];
        d.scope = mainScope(scopes.value(v));
        d.scopeType = moduleTypes.value(d.scope);
        // The stack of the cause: a node's stack from the frame at the cause's line outward.
        for (int i : std::as_const(d.changes)) {
            const NodeChange& c = diff.changes[i];
            const IrNode& n = c.otherNode >= 0 ? og.node(c.otherNode) : bg.node(c.baseNode);
            for (int f = 0; f < n.stack.size(); ++f)
                if (sameLine(n.stack[f], d.location)) {
                    d.stack = n.stack.mid(f);
                    break;
                }
            if (!d.stack.isEmpty())
                break;
        }
        // A line that records no node itself (a branch's condition, an int() conversion): the stack of a node
        // recorded further down the same function's file, from there outward.
        for (int i : std::as_const(d.changes)) {
            if (!d.stack.isEmpty() || !d.location.isValid())
                break;
            const NodeChange& c = diff.changes[i];
            const IrNode& n = c.otherNode >= 0 ? og.node(c.otherNode) : bg.node(c.baseNode);
            for (int f = 0; f < n.stack.size(); ++f)
                if (n.stack[f].file == d.location.file) {
                    d.stack = QVector<SourceLocation> { d.location } + n.stack.mid(f + 1);
                    break;
                }
        }
        if (d.stack.isEmpty() && d.location.isValid())
            d.stack << d.location;
        // Observed where the runs' Python parted: the condition's operands in both runs, first.
        if (other.parting.present && diff.base == 0 && sameLine(other.parting.location, d.location)) {
            d.observed = other.parting;
            QStringList observed;
            for (const ValueRow& row : std::as_const(other.parting.operands))
                observed << QStringLiteral("observed: `%1` is %2 in %3, %4 in %5")
                                .arg(row.what, row.trace, traceB, row.other, traceK);
            d.evidence = observed + d.evidence;
        }
        addWarningEvidence(d, base, other, diff.base, diff.other);
        // The values baked, where they are the cause (a path that differs pairs unrelated constants).
        if (d.kind != DivergenceKind::BranchFrozen && d.kind != DivergenceKind::LoopUnrolled)
            for (int i : std::as_const(d.changes))
                addValueEvidence(d, diff.changes[i], bg, og, traceB, traceK);
        // A constant that differs in value with no other cause found: a tensor constant baked in, or a number.
        if (d.kind == DivergenceKind::Unexplained) {
            for (const QString& e : std::as_const(d.evidence))
                if (e.startsWith(QLatin1String("tensor constant")))
                    d.kind = DivergenceKind::TensorConstant;
        }
    }
}

Divergence valueDivergence(const ValueDivergence& v, const IrGraph& first, const QHash<QString, QString>& moduleTypes,
    int set, const QString& otherRun, const QString& checkWords)
{
    Divergence d;
    d.kind = DivergenceKind::Value;
    d.message = v.message;
    d.scope = v.module;
    d.scopeType = moduleTypes.value(v.module);
    const int node = v.node >= 0 ? v.node : v.randomNode;
    if (node >= 0 && node < first.nodes.size()) {
        const IrNode& n = first.node(node);
        d.baseNodes << node;
        d.location = n.location;
        d.stack = n.stack;
    }
    // Where the code made the value: the Python call's place (transform.py's interpolate, not torch's own
    // functional.py), with the stack from there down to the user's line.
    if (v.otherAt.isValid()) {
        for (int i = 0; i < d.stack.size(); ++i)
            if (d.stack[i].file == v.otherAt.file && d.stack[i].line == v.otherAt.line) {
                d.stack = d.stack.mid(i);
                break;
            }
        d.location = v.otherAt;
    }
    if (!v.traceValue.isEmpty())
        d.evidence << QStringLiteral("trace 1 on set %1: %2 = %3").arg(set + 1).arg(v.op, v.traceValue);
    if (!v.otherValue.isEmpty())
        d.evidence << QStringLiteral("%1 on set %2: %3 = %4%5")
                          .arg(otherRun)
                          .arg(set + 1)
                          .arg(v.otherOp, v.otherValue,
                              v.otherAt.isValid() ? QStringLiteral(" (%1:%2)")
                                                        .arg(QFileInfo(v.otherAt.file).fileName())
                                                        .arg(v.otherAt.line)
                                                  : QString());
    for (const QString& o : v.operands)
        d.evidence << o;
    d.otherRun = otherRun;
    if (!v.traceValue.isEmpty() || !v.otherValue.isEmpty())
        d.values << ValueRow { v.op, v.traceValue, v.otherValue };
    d.values += v.operandRows;
    if (!checkWords.isEmpty())
        d.evidence << QStringLiteral("PyTorch's check: %1").arg(checkWords);
    return d;
}

int nodeOfTorchScriptError(const IrGraph& trace1, const QString& message)
{
    // "Traceback of TorchScript (most recent call last):" then "FILE(LINE): FUNCTION" lines, innermost first.
    static const QRegularExpression frame(QStringLiteral("^(.*)\\((\\d+)\\): .*$"));
    const int start = message.indexOf(QLatin1String("Traceback of TorchScript"));
    if (start < 0)
        return -1;
    QVector<SourceLocation> frames;
    for (const QString& line : message.mid(start).split(QLatin1Char('\n')).mid(1)) {
        const QRegularExpressionMatch m = frame.match(line.trimmed());
        if (!m.hasMatch())
            break;
        const QString file = m.captured(1);
        if (file.contains(QLatin1String("/torch/jit/_trace.py")))
            break;
        if (file.contains(QLatin1String("/torch/nn/modules/module.py")) || file.contains(QLatin1String("/torch/jit/")))
            continue;
        const QString canonical = QFileInfo(file).canonicalFilePath(); // as the bridge names a stack's files
        frames << SourceLocation { canonical.isEmpty() ? file : canonical, m.captured(2).toInt(), 0 };
    }
    if (frames.isEmpty())
        return -1;
    // The node whose stack is that one; of several (every op of one line), the last that is not a constant or a
    // list (the failing op runs after the values it takes are made).
    int best = -1;
    for (const IrNode& n : trace1.nodes) {
        if (n.stack.size() != frames.size())
            continue;
        bool same = true;
        for (int f = 0; same && f < frames.size(); ++f)
            same = n.stack[f].line == frames[f].line && n.stack[f].file == frames[f].file;
        if (!same)
            continue;
        const bool plumbing = n.kind == QLatin1String("prim::Constant")
            || n.kind.startsWith(QLatin1String("prim::List")) || n.kind.startsWith(QLatin1String("prim::Tuple"));
        if (best < 0 || !plumbing)
            best = n.id;
    }
    return best;
}

void describeTraceFailure(TraceFailure& failure, const IrGraph& trace1, const TraceDiff* diff)
{
    if (failure.node < 0 || failure.node >= trace1.nodes.size())
        return;
    const IrNode& n = trace1.node(failure.node);
    failure.kind = n.kind;
    failure.location = n.location;
    failure.scope = n.modulePath;
    failure.stack = n.stack;
    // Which divergence each of trace 1's nodes belongs to.
    QHash<int, int> divergenceOf;
    if (diff)
        for (int d = 0; d < diff->divergences.size(); ++d)
            for (int id : diff->divergences[d].baseNodes)
                divergenceOf.insert(id, d);
    const QStringList values = failure.operands;
    failure.operands.clear();
    for (int i = 0; i < n.inputs.size(); ++i) {
        const IrValue& v = trace1.value(n.inputs[i]);
        const bool plainConstant = v.producer >= 0 && trace1.node(v.producer).kind == QLatin1String("prim::Constant")
            && !divergenceOf.contains(v.producer);
        if (plainConstant)
            continue; // a flag or a dimension the op takes, the same in every trace
        static const QRegularExpression strides(
            QStringLiteral(", strides=\\[[^\\]]*\\]|, requires_grad=\\d|, device=\\w+"));
        QString type = v.type;
        type.remove(strides);
        QString text = QStringLiteral("%%1 : %2").arg(v.name, type);
        if (!values.value(i).isEmpty())
            text += QStringLiteral(" (on this set: %1)").arg(values.value(i));
        if (v.producer < 0) {
            const int input = int(trace1.top.inputs.indexOf(v.id));
            text += input >= 0 ? QStringLiteral(" from input %1").arg(input) : QStringLiteral(" from a block input");
        } else {
            const IrNode& p = trace1.node(v.producer);
            text += QStringLiteral(" = %1").arg(p.kind);
            if (p.location.isValid())
                text += QStringLiteral(" at %1:%2").arg(QFileInfo(p.location.file).fileName()).arg(p.location.line);
            // A constant it is made of, up to three producers up: a value trace 1 baked in.
            QVector<int> queue { p.id };
            QSet<int> seen { p.id };
            for (int head = 0; head < queue.size() && head < 24; ++head) {
                const IrNode& q = trace1.node(queue[head]);
                const bool constant = q.kind == QLatin1String("prim::Constant") && !q.attributes.isEmpty();
                const int d = divergenceOf.value(q.id, -1);
                if (constant && d >= 0) {
                    text += QStringLiteral("%1 %2 trace 1 baked in (divergence %3: %4)")
                                .arg(q.id == p.id ? QStringLiteral(": the constant")
                                                  : QStringLiteral(", made with the constant"),
                                    constantValue(trace1, q.id).left(60))
                                .arg(d + 1)
                                .arg(divergenceKindName(diff->divergences[d].kind));
                    break;
                }
                if (head >= 8)
                    continue;
                for (int in : q.inputs) {
                    const int producer = trace1.value(in).producer;
                    if (producer >= 0 && !seen.contains(producer)) {
                        seen.insert(producer);
                        queue << producer;
                    }
                }
            }
        }
        failure.operands << text;
    }
}

} // namespace jitscope
