// Trace 1 against the exported program of the same call: the two graphs are of different IRs (TorchScript's trace,
// torch.export's ATen graph), so nodes are matched by what both can say of them: the operator, the module and the
// source line, never by their inputs or constants.

#include "tracediff.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

#include <dtl/dtl.hpp>

#include <algorithm>
#include <vector>

namespace jitscope {

namespace {

/// Plumbing that one IR spells out and the other folds into arguments.
bool isNoise(const QString& kind)
{
    static const QSet<QString> noise { QStringLiteral("prim::Constant"), QStringLiteral("prim::GetAttr"),
        QStringLiteral("prim::ListConstruct"), QStringLiteral("prim::TupleConstruct"),
        QStringLiteral("prim::ListUnpack"), QStringLiteral("prim::TupleUnpack"), QStringLiteral("prim::NumToTensor"),
        QStringLiteral("aten::Int"), QStringLiteral("aten::ScalarImplicit"), QStringLiteral("prim::device"),
        QStringLiteral("prim::dtype"), QStringLiteral("prim::output"), QStringLiteral("prim::Param"),
        QStringLiteral("prim::Return"), QStringLiteral("aten::detach"), QStringLiteral("aten::alias") };
    return noise.contains(kind);
}

/// A frame of the user's code: not a library's (site-packages) and not the bridge's wrapper of a traced function.
bool isUserFrame(const SourceLocation& l)
{
    return l.isValid() && !l.file.contains(QLatin1String("-packages/"))
        && !QFileInfo(l.file).fileName().startsWith(QLatin1String("jitscope_bridge"));
}

/// The innermost line of the user's code that made the node: library lines differ between the IRs (the trace's
/// F.conv2d line, the export's module forward), the user's line is what both name.
QString place(const IrNode& n)
{
    if (isUserFrame(n.location))
        return QFileInfo(n.location.file).fileName() + QLatin1Char(':') + QString::number(n.location.line);
    for (const SourceLocation& l : n.stack)
        if (isUserFrame(l))
            return QFileInfo(l.file).fileName() + QLatin1Char(':') + QString::number(l.line);
    return {};
}

QString keyOf(const IrNode& n, bool withPlace)
{
    return normalizedOpKind(n.kind) + QLatin1Char('|') + n.modulePath + QLatin1Char('|')
        + (withPlace ? place(n) : QString());
}

/// The top-level nodes that carry an operator, in order.
QVector<int> opNodes(const IrGraph& g)
{
    QVector<int> ids;
    for (int id : g.top.nodes)
        if (!isNoise(g.nodes.at(id).kind))
            ids << id;
    return ids;
}

QString outputType(const IrGraph& g, int nodeId)
{
    const IrNode& n = g.nodes.at(nodeId);
    return n.outputs.isEmpty() ? QString() : g.values.at(n.outputs.first()).type;
}

bool hasSymbol(const QString& type)
{
    static const QRegularExpression symbol(QStringLiteral("\\b[su]\\d+\\b"));
    return symbol.match(type).hasMatch();
}

QString lineText(const IrNode& n)
{
    return n.location.isValid() ? QStringLiteral("line %1").arg(n.location.line) : QStringLiteral("an unknown line");
}

} // namespace

QString normalizedOpKind(const QString& kind)
{
    QString k = kind;
    // The export's own spelling: "aten.convolution.default", "torch.ops.aten.mul.Tensor".
    if (k.startsWith(QLatin1String("torch.ops.")))
        k = k.mid(10);
    if (!k.contains(QLatin1String("::"))) {
        const QStringList parts = k.split(QLatin1Char('.'));
        if (parts.size() >= 2)
            k = parts[0] + QStringLiteral("::") + parts[1];
    }
    const int sep = k.indexOf(QLatin1String("::"));
    QString ns = sep < 0 ? QString() : k.left(sep);
    QString name = sep < 0 ? k : k.mid(sep + 2);
    if (name.endsWith(QLatin1Char('_')) && !name.startsWith(QLatin1Char('_')))
        name.chop(1); // in place: relu_ is relu
    static const QHash<QString, QString> same { { QStringLiteral("_convolution"), QStringLiteral("convolution") },
        { QStringLiteral("conv1d"), QStringLiteral("convolution") },
        { QStringLiteral("conv2d"), QStringLiteral("convolution") },
        { QStringLiteral("conv3d"), QStringLiteral("convolution") },
        { QStringLiteral("sym_size"), QStringLiteral("size") },
        { QStringLiteral("_native_batch_norm_legit_no_training"), QStringLiteral("batch_norm") },
        { QStringLiteral("_native_batch_norm_legit"), QStringLiteral("batch_norm") },
        { QStringLiteral("native_batch_norm"), QStringLiteral("batch_norm") } };
    name = same.value(name, name);
    return ns.isEmpty() ? name : ns + QStringLiteral("::") + name;
}

TraceDiff diffTraceAgainstExport(const IrGraph& trace, const IrGraph& exportedGraph, const ExportReport& exported)
{
    TraceDiff diff;
    diff.base = 0;
    diff.other = -1;
    const QVector<int> a = opNodes(trace);
    const QVector<int> b = opNodes(exportedGraph);
    // Lines only where both graphs name the user's: a traced function's export knows only the bridge's wrapper.
    auto hasPlaces = [](const IrGraph& g, const QVector<int>& nodes) {
        return std::any_of(nodes.cbegin(), nodes.cend(), [&g](int id) { return !place(g.nodes.at(id)).isEmpty(); });
    };
    const bool withPlace = hasPlaces(trace, a) && hasPlaces(exportedGraph, b);
    auto keyOf = [withPlace](const IrNode& n) { return jitscope::keyOf(n, withPlace); };
    QHash<QString, quint64> ids;
    auto sequence = [&ids, &keyOf](const IrGraph& g, const QVector<int>& nodes) {
        std::vector<quint64> seq;
        for (int id : nodes) {
            const QString key = keyOf(g.nodes.at(id));
            seq.push_back(ids.contains(key) ? ids.value(key) : ids.insert(key, quint64(ids.size())).value());
        }
        return seq;
    };
    const std::vector<quint64> seqA = sequence(trace, a);
    const std::vector<quint64> seqB = sequence(exportedGraph, b);
    dtl::Diff<quint64> d(seqA, seqB);
    d.compose();
    QVector<QPair<int, int>> matched;
    std::vector<int> deletes, inserts;
    QVector<QPair<int, int>> groups; // [first, end) of each run of changes
    auto flush = [&] {
        if (deletes.empty() && inserts.empty())
            return;
        const int first = int(diff.changes.size());
        for (int i : deletes) {
            NodeChange c;
            c.op = NodeChange::Op::Delete;
            c.baseNode = a[i];
            c.location = trace.nodes.at(a[i]).location;
            c.scope = trace.nodes.at(a[i]).modulePath;
            diff.changes << c;
        }
        for (int i : inserts) {
            NodeChange c;
            c.op = NodeChange::Op::Insert;
            c.otherNode = b[i];
            c.location = exportedGraph.nodes.at(b[i]).location;
            c.scope = exportedGraph.nodes.at(b[i]).modulePath;
            diff.changes << c;
        }
        groups << qMakePair(first, int(diff.changes.size()));
        deletes.clear();
        inserts.clear();
    };
    for (const auto& e : d.getSes().getSequence()) {
        if (e.second.type == dtl::SES_DELETE) {
            deletes.push_back(int(e.second.beforeIdx) - 1);
        } else if (e.second.type == dtl::SES_ADD) {
            inserts.push_back(int(e.second.afterIdx) - 1);
        } else {
            flush();
            matched << qMakePair(a[int(e.second.beforeIdx) - 1], b[int(e.second.afterIdx) - 1]);
        }
    }
    flush();

    // How often each operator runs at each line: a loop the trace unrolled repeats its body's nodes.
    QHash<QString, int> countA, countB;
    for (int id : a)
        ++countA[keyOf(trace.nodes.at(id))];
    for (int id : b)
        ++countB[keyOf(exportedGraph.nodes.at(id))];

    QStringList specialized;
    for (const ExportFact& f : exported.specializations)
        specialized << f.text;

    // Why the export as asked for failed (its program then is the one with those dimensions specialized).
    for (const ExportFinding& f : exported.findings) {
        Divergence dv;
        dv.kind
            = f.kind == QLatin1String("data-dependent") ? DivergenceKind::BranchFrozen : DivergenceKind::NumberBaked;
        dv.location = f.userLocation;
        dv.message = QStringLiteral("torch.export failed (%1): %2").arg(f.kind, f.message);
        if (!f.guard.isEmpty())
            dv.evidence << QStringLiteral("guard: %1").arg(f.guard);
        if (!f.suggestedFix.isEmpty())
            dv.evidence << QStringLiteral("suggested fix: %1").arg(f.suggestedFix);
        diff.divergences << dv;
    }
    // Operators one side has and the other lacks, a run of them at a time.
    for (const auto& [first, end] : std::as_const(groups)) {
        Divergence dv;
        QStringList traceOnly, exportOnly;
        bool repeated = false;
        for (int c = first; c < end; ++c) {
            NodeChange& change = diff.changes[c];
            change.divergence = int(diff.divergences.size());
            dv.changes << c;
            if (change.op == NodeChange::Op::Delete) {
                const IrNode& n = trace.nodes.at(change.baseNode);
                dv.baseNodes << n.id;
                traceOnly << QStringLiteral("%1 at %2").arg(normalizedOpKind(n.kind), lineText(n));
                repeated = repeated || (countA.value(keyOf(n)) > countB.value(keyOf(n)) && countA.value(keyOf(n)) > 1);
            } else {
                const IrNode& n = exportedGraph.nodes.at(change.otherNode);
                dv.otherNodes << n.id;
                exportOnly << QStringLiteral("%1 at %2").arg(normalizedOpKind(n.kind), lineText(n));
            }
            if (!dv.location.isValid())
                dv.location = change.location;
            if (dv.scope.isEmpty())
                dv.scope = change.scope;
        }
        traceOnly.removeDuplicates();
        exportOnly.removeDuplicates();
        if (repeated && exportOnly.isEmpty()) {
            dv.kind = DivergenceKind::LoopUnrolled;
            dv.message = QStringLiteral("the trace repeats %1 more often than the export: a loop the trace unrolled "
                                        "for the example's sizes, which the export does not repeat")
                             .arg(traceOnly.join(QStringLiteral(", ")));
        } else {
            QStringList parts;
            if (!traceOnly.isEmpty())
                parts << QStringLiteral("only trace 1 records %1").arg(traceOnly.join(QStringLiteral(", ")));
            if (!exportOnly.isEmpty())
                parts << QStringLiteral("only the export has %1").arg(exportOnly.join(QStringLiteral(", ")));
            dv.message = parts.join(QStringLiteral("; "));
            if (std::any_of(exportOnly.cbegin(), exportOnly.cend(),
                    [](const QString& s) { return s.contains(QLatin1String("cond")); })) {
                dv.kind = DivergenceKind::BranchFrozen;
                dv.message += QStringLiteral(": a branch the trace froze is a torch.cond in the export");
            }
        }
        for (int c = first; c < end; ++c) {
            diff.changes[c].kind = dv.kind;
            diff.changes[c].cause = dv.message;
        }
        diff.divergences << dv;
    }

    // Matched operators at a line that runs more than once in both: a loop unrolled in both, the export's for the
    // example only, where it specialized the size the loop ran over and guards it.
    QHash<QString, int> atPlaceA, matchedAtPlace; // by operator and the trace's line
    for (int id : a)
        ++atPlaceA[jitscope::keyOf(trace.nodes.at(id), true)];
    for (const auto& [ta, eb] : std::as_const(matched))
        ++matchedAtPlace[jitscope::keyOf(trace.nodes.at(ta), true)];
    QSet<QString> loopLines;
    for (const auto& [ta, eb] : std::as_const(matched)) {
        const IrNode& n = trace.nodes.at(ta);
        const QString key = jitscope::keyOf(n, true);
        if (place(n).isEmpty() || atPlaceA.value(key) < 2 || matchedAtPlace.value(key) != atPlaceA.value(key)
            || loopLines.contains(place(n)))
            continue;
        loopLines.insert(place(n));
        Divergence dv;
        dv.kind = DivergenceKind::LoopUnrolled;
        dv.location = n.location;
        dv.scope = n.modulePath;
        for (const auto& [x, y] : std::as_const(matched))
            if (place(trace.nodes.at(x)) == place(n)) {
                dv.baseNodes << x;
                dv.otherNodes << y;
            }
        if (specialized.isEmpty()) {
            dv.message = QStringLiteral("%1 runs %2 times in trace 1 and in the export: a loop unrolled in both")
                             .arg(lineText(n))
                             .arg(atPlaceA.value(key));
        } else {
            dv.message = QStringLiteral("%1 runs %2 times in trace 1 and in the export, unrolled for the example "
                                        "only: the export specialized %3 and guards it; the trace guards nothing")
                             .arg(lineText(n))
                             .arg(atPlaceA.value(key))
                             .arg(specialized.join(QStringLiteral(", ")));
            dv.evidence = specialized;
        }
        diff.divergences << dv;
    }

    // Sizes: the trace's are the example's numbers where the export keeps symbols.
    Divergence sizes;
    sizes.kind = DivergenceKind::NumberBaked;
    QString traceType, exportType;
    for (const auto& [ta, eb] : std::as_const(matched)) {
        const QString tt = outputType(trace, ta);
        const QString et = outputType(exportedGraph, eb);
        if (!hasSymbol(et) || hasSymbol(tt))
            continue;
        if (traceType.isEmpty()) {
            traceType = tt;
            exportType = et;
            sizes.location = trace.nodes.at(ta).location;
        }
        sizes.baseNodes << ta;
        sizes.otherNodes << eb;
    }
    if (!sizes.baseNodes.isEmpty()) {
        QStringList ranges;
        for (const ExportFact& f : exported.ranges)
            ranges << f.text;
        sizes.message = QStringLiteral("trace 1 baked the example's sizes (%1) into %2 node(s) where the export keeps "
                                       "them symbolic (%3)")
                            .arg(traceType, QString::number(sizes.baseNodes.size()), exportType);
        sizes.evidence = ranges;
        diff.divergences << sizes;
    }
    diff.equal = diff.changes.isEmpty();
    return diff;
}

} // namespace jitscope
