#include "livetrace.h"

#include <QHash>
#include <QSet>

namespace jitscope {

namespace {

/// The ops ValueSummary runs on a tensor (see core's summarize()).
bool isStatisticsOp(const QString& kind)
{
    static const QSet<QString> kinds
        = { QStringLiteral("aten::detach"), QStringLiteral("aten::to"), QStringLiteral("aten::sum"),
              QStringLiteral("aten::isnan"), QStringLiteral("aten::isinf"), QStringLiteral("aten::isfinite"),
              QStringLiteral("aten::masked_select"), QStringLiteral("aten::min"), QStringLiteral("aten::max"),
              QStringLiteral("aten::mean"), QStringLiteral("aten::std"), QStringLiteral("aten::reshape"),
              QStringLiteral("aten::slice"), QStringLiteral("aten::select"), QStringLiteral("aten::contiguous") };
    return kinds.contains(kind);
}

bool isLeaf(const QString& kind)
{
    return kind == QLatin1String("prim::Constant") || kind == QLatin1String("prim::ListConstruct");
}

} // namespace

IrGraph liveTraceGraph(const IrGraph& snapshot, const IrGraph& script)
{
    QHash<int, QVector<int>> consumers; // value id -> nodes
    for (const IrNode& node : snapshot.nodes) {
        for (int input : node.inputs)
            consumers[input].append(node.id);
    }

    // A summary starts with detach() of a recorded tensor; everything downstream of it belongs to the summary when
    // it is made only of statistics ops and computes the finite elements (isfinite + masked_select).
    QSet<int> hidden;
    for (const IrNode& root : snapshot.nodes) {
        if (root.kind != QLatin1String("aten::detach") || root.parentNode >= 0)
            continue;
        QSet<int> closure { root.id };
        QVector<int> queue { root.id };
        bool statistics = true;
        bool finite = false, masked = false;
        for (int i = 0; i < queue.size() && statistics; ++i) {
            for (int output : snapshot.node(queue.at(i)).outputs) {
                for (int consumer : consumers.value(output)) {
                    if (closure.contains(consumer))
                        continue;
                    const QString& kind = snapshot.node(consumer).kind;
                    if (!isStatisticsOp(kind)) {
                        statistics = false;
                        break;
                    }
                    finite = finite || kind == QLatin1String("aten::isfinite");
                    masked = masked || kind == QLatin1String("aten::masked_select");
                    closure.insert(consumer);
                    queue.append(consumer);
                }
            }
        }
        if (statistics && finite && masked)
            hidden.unite(closure);
    }
    // Constants and lists that only fed the summaries go with them (several passes: lists of constants).
    for (bool changed = !hidden.isEmpty(); changed;) {
        changed = false;
        for (const IrNode& node : snapshot.nodes) {
            if (hidden.contains(node.id) || !isLeaf(node.kind))
                continue;
            bool allHidden = false;
            for (int output : node.outputs) {
                for (int consumer : consumers.value(output)) {
                    if (!hidden.contains(consumer)) {
                        allHidden = false;
                        break;
                    }
                    allHidden = true;
                }
                if (!allHidden)
                    break;
            }
            if (allHidden) {
                hidden.insert(node.id);
                changed = true;
            }
        }
    }

    // Script nodes by source line, in graph order, for the provenance of nodes without any.
    QHash<int, QVector<int>> scriptByLine;
    for (const IrNode& node : script.nodes) {
        if (node.kind != QLatin1String("prim::Constant") && node.location.isValid())
            scriptByLine[node.location.line].append(node.id);
    }
    auto originOf = [&](const IrNode& node) {
        const QVector<int> candidates = scriptByLine.value(node.location.line);
        for (int id : candidates) {
            if (script.node(id).kind == node.kind)
                return id;
        }
        return candidates.isEmpty() ? -1 : candidates.first();
    };

    bool needsOrigins = false;
    for (const IrNode& node : snapshot.nodes)
        needsOrigins = needsOrigins || (node.originNode < 0 && !hidden.contains(node.id) && !isLeaf(node.kind));
    if (hidden.isEmpty() && !needsOrigins)
        return snapshot;

    // Renumber the nodes that stay (ids are indexes); values keep their ids.
    IrGraph g;
    g.values = snapshot.values;
    QHash<int, int> newId;
    for (const IrNode& node : snapshot.nodes) {
        if (!hidden.contains(node.id))
            newId.insert(node.id, int(newId.size()));
    }
    auto remapBlock = [&](const IrBlock& block) {
        IrBlock b = block;
        b.nodes.clear();
        for (int id : block.nodes) {
            if (newId.contains(id))
                b.nodes.append(newId.value(id));
        }
        return b;
    };
    for (const IrNode& node : snapshot.nodes) {
        if (hidden.contains(node.id))
            continue;
        IrNode n = node;
        n.id = newId.value(node.id);
        n.parentNode = node.parentNode >= 0 ? newId.value(node.parentNode, -1) : -1;
        for (IrBlock& block : n.blocks)
            block = remapBlock(block);
        if (n.originNode < 0 && !isLeaf(n.kind)) {
            n.originNode = originOf(node);
            // No line of its own (prim::NumToTensor after aten::size): the origin of what it consumes.
            if (n.originNode < 0 && !node.location.isValid() && !node.inputs.isEmpty()) {
                const int producer = snapshot.value(node.inputs.first()).producer;
                if (producer >= 0 && newId.contains(producer))
                    n.originNode = g.nodes.value(newId.value(producer)).originNode;
            }
        }
        g.nodes.append(n);
    }
    for (IrValue& value : g.values)
        value.producer = value.producer >= 0 ? newId.value(value.producer, -1) : -1;
    g.top = remapBlock(snapshot.top);
    return g;
}

} // namespace jitscope
