#include "comparison.h"

#include <QSet>

namespace jitscope {

int Comparison::count(NodeChange::Op op) const
{
    int n = 0;
    for (const NodeChange& c : diff.changes)
        n += c.op == op ? 1 : 0;
    return n;
}

TraceDiff reversedDiff(const TraceDiff& diff)
{
    TraceDiff r = diff;
    std::swap(r.base, r.other);
    for (NodeChange& c : r.changes) {
        std::swap(c.baseNode, c.otherNode);
        if (c.op == NodeChange::Op::Insert)
            c.op = NodeChange::Op::Delete;
        else if (c.op == NodeChange::Op::Delete)
            c.op = NodeChange::Op::Insert;
    }
    for (Divergence& d : r.divergences)
        std::swap(d.baseNodes, d.otherNodes);
    return r;
}

namespace {

bool traceUsable(const CheckReport& report, int index)
{
    return index >= 0 && index < report.traces.size() && report.traces.at(index).ok;
}

} // namespace

Comparison Comparison::between(const CheckReport& report, int left, int right)
{
    Comparison c;
    c.left = left;
    c.right = right;
    c.diff.base = left;
    c.diff.other = right;
    if (!c.isTracePair() || !traceUsable(report, left) || !traceUsable(report, right))
        return c;

    // The engine diffed and explained every pair (CheckReport::diffs and pairDiffs): read, never diffed here.
    const TraceDiff* d = report.diffBetween(left, right);
    if (!d)
        return c;
    c.diff = d->base == left ? *d : reversedDiff(*d);
    const TraceResult& base = report.traces.at(left);
    const TraceResult& other = report.traces.at(right);

    QSet<int> changedLeft, changedRight;
    for (const NodeChange& change : std::as_const(c.diff.changes)) {
        switch (change.op) {
        case NodeChange::Op::Insert:
            c.rightStatus.insert(change.otherNode, DiffStatus::Inserted);
            changedRight.insert(change.otherNode);
            break;
        case NodeChange::Op::Delete:
            c.leftStatus.insert(change.baseNode, DiffStatus::Deleted);
            changedLeft.insert(change.baseNode);
            break;
        case NodeChange::Op::Change:
            c.leftStatus.insert(change.baseNode, DiffStatus::Changed);
            c.rightStatus.insert(change.otherNode, DiffStatus::Changed);
            changedLeft.insert(change.baseNode);
            changedRight.insert(change.otherNode);
            c.leftToRight.insert(change.baseNode, change.otherNode);
            c.rightToLeft.insert(change.otherNode, change.baseNode);
            break;
        }
    }
    // What the edit script leaves out of both sequences is their common subsequence: pair it in order.
    QVector<int> commonLeft, commonRight;
    for (int id : base.graph.top.nodes) {
        if (!changedLeft.contains(id))
            commonLeft.append(id);
    }
    for (int id : other.graph.top.nodes) {
        if (!changedRight.contains(id))
            commonRight.append(id);
    }
    for (int i = 0; i < qMin(commonLeft.size(), commonRight.size()); ++i) {
        c.leftToRight.insert(commonLeft.at(i), commonRight.at(i));
        c.rightToLeft.insert(commonRight.at(i), commonLeft.at(i));
    }
    return c;
}

QString iterationLabel(const IrNode& node, int loopNode)
{
    if (node.loopPath.isEmpty())
        return {};
    for (const LoopFrame& frame : node.loopPath) {
        if (frame.loopNode == loopNode && loopNode >= 0)
            return QStringLiteral("iteration %1").arg(frame.iteration + 1);
    }
    QStringList parts;
    for (const LoopFrame& frame : node.loopPath)
        parts << QString::number(frame.iteration + 1);
    return QStringLiteral("iteration ") + parts.join(QLatin1Char('.'));
}

QVector<LinkedNode> traceNodesOf(const IrGraph& trace, const IrGraph& script, int scriptNode)
{
    QVector<LinkedNode> result;
    if (scriptNode < 0)
        return result;
    const bool isLoop = scriptNode < script.nodes.size() && script.node(scriptNode).kind == QLatin1String("prim::Loop");
    for (int id : trace.top.nodes) {
        const IrNode& node = trace.node(id);
        bool inLoop = false;
        if (isLoop) {
            for (const LoopFrame& frame : node.loopPath)
                inLoop = inLoop || frame.loopNode == scriptNode;
        }
        if (node.originNode == scriptNode || inLoop)
            result.append({ id, iterationLabel(node, isLoop ? scriptNode : -1) });
    }
    return result;
}

QHash<int, QString> traceWarningNodes(const CheckReport& report, int trace)
{
    QHash<int, QString> result;
    for (const TraceWarning& w : report.warnings) {
        if (w.traceIndex != trace || w.traceNode < 0)
            continue;
        QString& text = result[w.traceNode];
        if (!text.isEmpty())
            text += QLatin1Char('\n');
        text += QStringLiteral("%1: %2").arg(warningKindName(w.kind), w.message);
    }
    return result;
}

QString nodeLabel(const IrGraph& graph, int nodeId)
{
    if (nodeId < 0 || nodeId >= graph.nodes.size())
        return {};
    const IrNode& node = graph.node(nodeId);
    if (!node.outputs.isEmpty())
        return QLatin1Char('%') + graph.value(node.outputs.first()).name;
    return node.kind;
}

} // namespace jitscope
