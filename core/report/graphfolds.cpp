// What a drawn graph folds and hides: constants into their users, code whose results never reach the outputs, and
// the modules and control flow a big graph opens folded (overviewFolds(), deepControlFlowFolds()).

#include "report/graphfolds_p.h"
#include "report/graphlayout.h"

#include <QRegularExpression>

#include <algorithm>
#include <functional>

namespace jitscope {

namespace {

QString constantText(const IrNode& n)
{
    if (n.attributes.isEmpty())
        return QStringLiteral("None");
    QString v = n.attributes.first().value;
    if (n.attributes.first().kind == QLatin1String("s"))
        v = QLatin1Char('"') + v + QLatin1Char('"');
    if (v.size() > 40)
        v = v.left(37) + QStringLiteral("...");
    return v;
}

} // namespace

Folder::Folder(const IrGraph& g, bool enabled)
    : m_g(g)
{
    if (!enabled)
        return;
    for (const IrNode& n : g.nodes) {
        if (n.kind == QLatin1String("prim::Constant") && n.outputs.size() == 1) {
            m_folded.insert(n.id, constantText(n));
        } else if (n.kind == QLatin1String("prim::Uninitialized") && n.inputs.isEmpty()) {
            // A placeholder for a variable only a raising branch leaves unset: drawn as a box of its own it
            // ranks at the top of its cluster, far from the branch that uses it.
            m_folded.insert(n.id, QStringLiteral("uninitialized"));
        } else if (n.kind == QLatin1String("prim::GetAttr") && n.inputs.size() == 1) {
            const int src = g.value(n.inputs.first()).producer;
            QString base;
            if (src >= 0 && m_folded.contains(src)) {
                base = m_folded.value(src);
            } else {
                // "self.1" is libtorch's unique name for self: show self.layer1.0.conv1.weight.
                static const QRegularExpression uniqueSuffix(QStringLiteral("\\.\\d+$"));
                base = g.value(n.inputs.first()).name;
                base.remove(uniqueSuffix);
            }
            m_folded.insert(n.id, base + QLatin1Char('.') + n.attribute(QStringLiteral("name")));
        } else if (n.kind == QLatin1String("prim::ListConstruct") && n.blocks.isEmpty()) {
            QStringList items;
            bool all = true;
            for (int in : n.inputs) {
                const int p = g.value(in).producer;
                if (p < 0 || g.node(p).kind != QLatin1String("prim::Constant")) {
                    all = false;
                    break;
                }
                items << m_folded.value(p);
            }
            if (all)
                m_folded.insert(n.id, QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']'));
        }
    }
}

QHash<int, QVector<int>> inPlaceChanges(const IrGraph& g)
{
    QHash<int, QVector<int>> mutators;
    for (const IrNode& n : g.nodes) {
        const QString op = n.kind.section(QStringLiteral("::"), 1);
        const bool inPlace = (op.endsWith(QLatin1Char('_')) && !op.endsWith(QLatin1String("__")))
            || op == QLatin1String("append") || op == QLatin1String("extend") || op == QLatin1String("insert")
            || op == QLatin1String("_set_item") || op == QLatin1String("__setitem__");
        if (inPlace && !n.inputs.isEmpty())
            mutators[n.inputs.first()].push_back(n.id);
    }
    return mutators;
}

QSet<int> nodesReachingOutputs(const IrGraph& g, const QHash<int, QVector<int>>& mutators)
{
    QSet<int> reaching;
    QVector<int> work;
    auto markNode = [&](int id) {
        if (id >= 0 && !reaching.contains(id)) {
            reaching.insert(id);
            work.push_back(id);
        }
    };
    auto markValue = [&](int valueId) {
        markNode(g.value(valueId).producer);
        for (int m : mutators.value(valueId))
            markNode(m);
    };
    for (int out : g.top.outputs)
        markValue(out);
    while (!work.isEmpty()) {
        const IrNode& n = g.node(work.takeLast());
        for (int in : n.inputs)
            markValue(in);
        for (const IrBlock& blk : n.blocks)
            for (int out : blk.outputs)
                markValue(out);
        markNode(n.parentNode);
    }
    return reaching;
}

QVector<int> deepControlFlowFolds(const IrGraph& graph, const LayoutOptions& options, int maxDepth)
{
    if (!options.showBlocks)
        return {};
    const QSet<int> reaching
        = options.hideUnreachable ? nodesReachingOutputs(graph, inPlaceChanges(graph)) : QSet<int>();
    QHash<int, int> depthOf; // node id -> how deep control flow nests in it (an if holding an if: 2)
    std::function<int(int)> depth = [&](int id) {
        const auto it = depthOf.constFind(id);
        if (it != depthOf.cend())
            return it.value();
        int deepest = 0;
        for (const IrBlock& blk : graph.node(id).blocks)
            for (int child : blk.nodes)
                deepest = std::max(deepest, depth(child));
        const int d = graph.node(id).blocks.isEmpty() ? 0 : deepest + 1;
        depthOf.insert(id, d);
        return d;
    };
    QVector<int> folds;
    std::function<void(const IrBlock&)> walk = [&](const IrBlock& blk) {
        for (int id : blk.nodes) {
            if (graph.node(id).blocks.isEmpty() || (options.hideUnreachable && !reaching.contains(id)))
                continue;
            if (depth(id) > maxDepth) {
                folds << id;
                continue;
            }
            for (const IrBlock& inner : graph.node(id).blocks)
                walk(inner);
        }
    };
    walk(graph.top);
    std::sort(folds.begin(), folds.end());
    return folds;
}

QStringList overviewFolds(const IrGraph& graph, const LayoutOptions& options, int bigBoxes, int overviewBoxes)
{
    // What becomes a box: every node shown but what folds into its users (constants, attribute reads, int lists),
    // counted by the module path of its top-level ancestor (folding a module folds the blocks of its nodes too).
    const QSet<int> reaching
        = options.hideUnreachable ? nodesReachingOutputs(graph, inPlaceChanges(graph)) : QSet<int>();
    const Folder folder(graph, options.foldConstants);
    QHash<QString, int> boxesByModule;
    int boxes = 0;
    int deepest = 0;
    for (const IrNode& n : graph.nodes) {
        if (folder.isFolded(n.id) || (options.hideUnreachable && !reaching.contains(n.id)))
            continue;
        int top = n.id;
        while (graph.node(top).parentNode >= 0)
            top = graph.node(top).parentNode;
        const QString& module = graph.node(top).modulePath;
        ++boxesByModule[module];
        ++boxes;
        if (!module.isEmpty())
            deepest = std::max(deepest, int(module.count(QLatin1Char('.'))) + 1);
    }
    if (boxes <= bigBoxes || deepest == 0)
        return {};
    QStringList best;
    for (int depth = 1; depth <= deepest; ++depth) {
        QSet<QString> folded;
        int shown = 0;
        for (auto it = boxesByModule.cbegin(); it != boxesByModule.cend(); ++it) {
            const QStringList parts = it.key().isEmpty() ? QStringList() : it.key().split(QLatin1Char('.'));
            if (parts.size() >= depth)
                folded.insert(parts.mid(0, depth).join(QLatin1Char('.')));
            else
                shown += it.value();
        }
        if (shown + folded.size() > overviewBoxes)
            break;
        best = QStringList(folded.begin(), folded.end());
    }
    best.sort();
    return best;
}

} // namespace jitscope
