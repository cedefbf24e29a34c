#include "report/reportqueries.h"

#include <QStringList>

namespace jitscope {

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
