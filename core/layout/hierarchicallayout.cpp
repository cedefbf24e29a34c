#include "layout/dotlayout_p.h"
#include "report/layoutcache_p.h"

#include <QCryptographicHash>
#include <QRegularExpression>
#include <QSet>

#include <graphviz/gvc.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

namespace jitscope {

namespace {

/// Local names of one cluster's DOT text, in order of appearance: "\x01n12\x02" -> "n0".
struct LocalNames
{
    QHash<int, int> node, cluster, point;
    QVector<int> nodeGlobal, clusterGlobal; ///< local -> index into DotBuild::nodes / clusters
};

void localize(const QString& text, LocalNames& names, QString& out)
{
    const QStringView view(text);
    qsizetype pos = 0;
    while (true) {
        const qsizetype open = view.indexOf(QChar(1), pos);
        if (open < 0) {
            out += view.mid(pos);
            return;
        }
        out += view.mid(pos, open - pos);
        const qsizetype close = view.indexOf(QChar(2), open);
        const QStringView name = view.mid(open + 1, close - open - 1);
        auto local = [](QHash<int, int>& map, QVector<int>* global, int index) {
            auto it = map.find(index);
            if (it == map.end()) {
                it = map.insert(index, int(map.size()));
                if (global)
                    global->append(index);
            }
            return QString::number(it.value());
        };
        if (name.startsWith(u"cluster_"))
            out += QStringLiteral("cluster_") + local(names.cluster, &names.clusterGlobal, name.mid(8).toInt());
        else if (name.startsWith(u'n'))
            out += QLatin1Char('n') + local(names.node, &names.nodeGlobal, name.mid(1).toInt());
        else
            out += QLatin1Char('e') + local(names.point, nullptr, name.mid(1).toInt());
        pos = close + 1;
    }
}

void readClusterBoxes(Agraph_t* g, double height, double left, QVector<QRectF>& boxes)
{
    for (Agraph_t* sub = agfstsubg(g); sub; sub = agnxtsubg(sub)) {
        const QString name = QString::fromUtf8(agnameof(sub));
        if (name.startsWith(QLatin1String("cluster_"))) {
            bool ok = false;
            const int index = name.mid(8).toInt(&ok);
            if (ok && index >= 0 && index < boxes.size()) {
                const boxf bb = GD_bb(sub);
                boxes[index] = QRectF(bb.LL.x - left, height - bb.UR.y, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
            }
        }
        readClusterBoxes(sub, height, left, boxes);
    }
}

/// How tall a piece of a child's column is (pt), at most how many pieces a child gets, and dot's rank separation
/// (buildDot()'s ranksep=0.35 in).
constexpr double kChildPiece = 144;
constexpr int kMaxChildPieces = 64;
constexpr double kRankSep = 0.35 * 72;

/// Runs dot on one cluster's text (a caller holds graphvizMutex()). Null and @p error set on failure.
GeometryPtr layoutCluster(
    GVC_t* gvc, const QString& text, int nodes, int children, int clusters, int edges, QString* error)
{
    Agraph_t* g = layOutDot(gvc, text.toUtf8(), error);
    if (!g)
        return {};
    auto geometry = std::make_shared<ClusterGeometry>();
    geometry->nodes.resize(nodes);
    geometry->children.resize(children);
    geometry->clusters.resize(clusters);
    geometry->edges.resize(edges);
    geometry->labels.resize(edges);
    const boxf bb = GD_bb(g);
    const double height = bb.UR.y, left = bb.LL.x;
    geometry->size = QSizeF(bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    auto at = [&](pointf p) { return QPointF(p.x - left, height - p.y); };
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
        const char* name = agnameof(n);
        bool ok = false;
        // "n12" is node 12; "c3_0", "c3_1", ... are the stacked pieces of child 3, whose box is their union.
        const QByteArray number(name + 1);
        const qsizetype piece = number.indexOf('_');
        const int index = (piece < 0 ? number : number.left(piece)).toInt(&ok);
        QVector<QRectF>* boxes = name[0] == 'n' ? &geometry->nodes : name[0] == 'c' ? &geometry->children : nullptr;
        if (ok && boxes && index >= 0 && index < boxes->size()) {
            const QPointF c = at(ND_coord(n));
            const double w = ND_width(n) * 72.0, h = ND_height(n) * 72.0;
            const QRectF box(c.x() - w / 2, c.y() - h / 2, w, h);
            QRectF& slot = (*boxes)[index];
            slot = slot.isNull() ? box : slot.united(box);
        }
        for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e)) {
            const int id = QByteArray(agget(e, const_cast<char*>("id"))).toInt(&ok);
            if (!ok || id < 0 || id >= edges || !ED_spl(e))
                continue;
            const splines* spl = ED_spl(e);
            for (int bi = 0; bi < spl->size; ++bi) {
                const bezier& bz = spl->list[bi];
                for (size_t pi = 0; pi < bz.size; ++pi)
                    geometry->edges[id].push_back(at(bz.list[pi]));
                if (bz.eflag)
                    geometry->edges[id].push_back(at(bz.ep));
            }
            if (const textlabel_t* label = edgeLabel(e))
                geometry->labels[id] = at(label->pos);
        }
    }
    readClusterBoxes(g, height, left, geometry->clusters);
    gvFreeLayout(gvc, g);
    agclose(g);
    // The frame is what is drawn: the invisible clusters around children's pieces keep a margin dot counts in its
    // bounding box, which would leave a strip of nothing at the frame's edge (and the CLI's renderer, which draws
    // what is drawn, would move every box by its width).
    QRectF drawn;
    auto add = [&drawn](const QRectF& r) {
        if (!r.isNull())
            drawn = drawn.isNull() ? r : drawn.united(r);
    };
    for (const QRectF& r : std::as_const(geometry->nodes))
        add(r);
    for (const QRectF& r : std::as_const(geometry->children))
        add(r);
    for (const QRectF& r : std::as_const(geometry->clusters))
        add(r);
    for (const auto& points : std::as_const(geometry->edges))
        for (const QPointF& p : points)
            add(QRectF(p, QSizeF(0.001, 0.001)));
    if (!drawn.isNull()) {
        const QPointF shift = -drawn.topLeft();
        for (QRectF& r : geometry->nodes)
            r.translate(shift);
        for (QRectF& r : geometry->children)
            r.translate(shift);
        for (QRectF& r : geometry->clusters)
            r.translate(shift);
        for (auto& points : geometry->edges)
            for (QPointF& p : points)
                p += shift;
        for (QPointF& p : geometry->labels)
            if (!p.isNull())
                p += shift;
        geometry->size = drawn.size();
    }
    return geometry;
}

/// LayoutOptions::hierarchicalAbove: each module cluster laid out by dot on its own, bottom up, its child modules
/// as fixed-size boxes; then the levels composed top down. An edge is routed by the layout of the innermost
/// cluster holding both its ends; where an end is deeper, a straight segment joins the border of the child box the
/// edge meets to the node (edges enter and leave a module through its border).

} // namespace

GraphLayout layoutHierarchically(const DotBuild& b, const LayoutOptions& options)
{
    GraphLayout layout;
    layout.nodes = b.nodes;
    layout.edges = b.edges;
    layout.clusters = b.clusters;
    layout.boxOfNode = b.boxOfNode;
    layout.stats.hierarchical = true;

    const int clusterCount = int(b.clusters.size());
    const QVector<int>& moduleOf = b.moduleClusterOfNode;
    auto parentOf = [&](int c) { return b.clusters[c].parentCluster; };
    QVector<int> depth(clusterCount, 0); // module clusters only; parents come before their children
    for (int c = 0; c < clusterCount; ++c)
        if (!b.clusters[c].module.isEmpty())
            depth[c] = parentOf(c) < 0 ? 1 : depth[parentOf(c)] + 1;
    auto depthOf = [&](int c) { return c < 0 ? 0 : depth[c]; };
    auto commonCluster = [&](int x, int y) {
        while (x != y) {
            const int dx = depthOf(x), dy = depthOf(y);
            if (dx >= dy)
                x = parentOf(x);
            if (dy >= dx)
                y = parentOf(y);
        }
        return x;
    };
    // The child of @p level holding node @p index, -1 when the node is the level's own.
    auto childHolding = [&](int index, int level) {
        int c = moduleOf[index];
        if (c == level)
            return -1;
        while (parentOf(c) != level)
            c = parentOf(c);
        return c;
    };
    QHash<int, QVector<int>> edgesAt; // level (module cluster, -1 for the whole graph) -> edge indices
    for (int e = 0; e < b.edges.size(); ++e)
        edgesAt[commonCluster(moduleOf[b.edges[e].fromNode], moduleOf[b.edges[e].toNode])].append(e);
    QHash<int, QVector<QPair<int, int>>> invisibleAt;
    for (const auto& pair : b.invisibleEdges)
        invisibleAt[commonCluster(moduleOf[pair.first], moduleOf[pair.second])].append(pair);
    // In a fixed order (buildDot finds them through a QSet): equal modules must give equal text.
    for (auto& pairs : invisibleAt)
        std::sort(pairs.begin(), pairs.end());

    struct Level
    {
        LocalNames names;
        QVector<int> children; ///< local placeholder -> module cluster
        QVector<int> edges; ///< local edge id -> edge index
        GeometryPtr geometry;
        QPointF offset; ///< where the frame's (0, 0) is in the whole layout
    };
    QVector<Level> levels(clusterCount + 1); // cluster c at c + 1, the whole graph at 0
    const double pad = 8;
    const double titleHeight = options.fontSize * 1.4 + 8;
    auto placeholderSize = [&](int c) {
        const QSizeF content = levels[c + 1].geometry->size;
        const double titleWidth = b.clusters[c].title.size() * options.fontSize * 0.6 + 2 * pad;
        return QSizeF(std::max(content.width() + 2 * pad, titleWidth), content.height() + titleHeight + pad);
    };

    QVector<int> order; // children before parents: module clusters by falling index, then the whole graph
    for (int c = clusterCount - 1; c >= 0; --c)
        if (!b.clusters[c].module.isEmpty())
            order << c;
    order << -1;

    GVC_t* gvc = nullptr;
    auto finish = [&] {
        if (gvc) {
            std::lock_guard<std::mutex> lock(graphvizMutex());
            gvFreeContext(gvc);
        }
    };
    LayoutCache::Private* cache = options.cache ? options.cache->d() : nullptr;
    QHash<QByteArray, GeometryPtr> laidOut; // this call's layouts by key
    for (int c : order) {
        if (options.cancel && options.cancel->load()) {
            finish();
            layout.cancelled = true;
            layout.error = QStringLiteral("Layout cancelled");
            return layout;
        }
        Level& level = levels[c + 1];
        QString text = b.header;
        QHash<int, int> childIndex; // module cluster -> local placeholder
        QVector<int> pieceCount; // local placeholder -> how many pieces stand for it
        for (const DotBuild::Item& item : b.contents.value(c)) {
            if (item.child < 0) {
                localize(item.text, level.names, text);
                continue;
            }
            const int local = int(level.children.size());
            childIndex.insert(item.child, local);
            const QSizeF size = placeholderSize(item.child);
            // A child is a column of pieces, one a rank, not one box: a box as tall as a whole block is one rank,
            // and whatever shares that rank with it (the caller's code between two calls, an if writing the
            // block's result into a dict) stands beside it, each such if beside the next: the blocks of a
            // MobileNet then ran down a diagonal across a cluster 5,800 pt wide. The pieces' union is the box.
            const int pieces = std::clamp(int(size.height() / kChildPiece), 1, kMaxChildPieces);
            const double pieceHeight = std::max(1.0, (size.height() - (pieces - 1) * kRankSep) / pieces);
            pieceCount.append(pieces);
            if (pieces > 1)
                text += QStringLiteral("  subgraph cluster_c%1 {\n    style=invis; margin=0;\n").arg(local);
            for (int k = 0; k < pieces; ++k)
                text += QStringLiteral("    c%1_%2 [label=\"\", shape=box, fixedsize=true, width=%3, height=%4];\n")
                            .arg(local)
                            .arg(k)
                            .arg(size.width() / 72.0, 0, 'f', 3)
                            .arg(pieceHeight / 72.0, 0, 'f', 3);
            for (int k = 0; k + 1 < pieces; ++k)
                text
                    += QStringLiteral("    c%1_%2 -> c%1_%3 [style=invis, weight=100];\n").arg(local).arg(k).arg(k + 1);
            if (pieces > 1)
                text += QStringLiteral("  }\n");
            level.children.append(item.child);
        }
        // An edge leaves a child from its last piece and enters it at its first.
        auto endName = [&](int index, bool from) {
            const int child = childHolding(index, c);
            if (child < 0)
                return QLatin1Char('n') + QString::number(level.names.node.value(index));
            const int local = childIndex.value(child);
            return QStringLiteral("c%1_%2").arg(local).arg(from ? pieceCount[local] - 1 : 0);
        };
        for (int e : edgesAt.value(c)) {
            const LayoutEdge& edge = b.edges[e];
            text += QStringLiteral("  %1 -> %2 [id=\"%3\"%4];\n")
                        .arg(endName(edge.fromNode, true), endName(edge.toNode, false))
                        .arg(level.edges.size())
                        .arg(edge.label.isEmpty() ? QString() : QStringLiteral(", label=\"%1\"").arg(edge.label));
            level.edges.append(e);
        }
        for (const auto& [from, to] : invisibleAt.value(c))
            text += QStringLiteral("  %1 -> %2 [style=invis];\n").arg(endName(from, true), endName(to, false));
        if (level.names.nodeGlobal.size() + level.children.size() > kBoundedPlacementNodes)
            text += QStringLiteral("  graph [nslimit=1];\n");
        text += QStringLiteral("}\n");

        // The structural key: the text as laid out, with the module's own path masked (its weights' names show
        // it: "self.layer1.0.conv1.weight"), kept at its length so that the boxes keep their size.
        QString keyText = text;
        if (c >= 0)
            keyText.replace(b.clusters[c].module, QString(b.clusters[c].module.size(), QChar(0x2022)));
        const QByteArray key = QCryptographicHash::hash(keyText.toUtf8(), QCryptographicHash::Sha1);
        ++layout.stats.clusters;
        if (const auto it = laidOut.constFind(key); it != laidOut.cend()) {
            level.geometry = it.value();
            ++layout.stats.reused;
            continue;
        }
        if (cache && (level.geometry = cache->find(key))) {
            ++layout.stats.cached;
            laidOut.insert(key, level.geometry);
            continue;
        }
        QString error;
        {
            std::lock_guard<std::mutex> lock(graphvizMutex());
            if (!gvc)
                gvc = gvContext();
            level.geometry = layoutCluster(gvc, text, int(level.names.nodeGlobal.size()), int(level.children.size()),
                int(level.names.clusterGlobal.size()), int(level.edges.size()), &error);
        }
        if (!level.geometry) {
            finish();
            layout.error = error;
            return layout;
        }
        ++layout.stats.dotRuns;
        laidOut.insert(key, level.geometry);
        if (cache)
            cache->insert(key, level.geometry);
    }
    finish();

    // Compose top down: each child's frame centred in its box, under its title.
    layout.bounds = QRectF(QPointF(0, 0), levels[0].geometry->size);
    for (int k = order.size() - 1; k >= 0; --k) {
        const int c = order[k];
        const Level& level = levels[c + 1];
        const ClusterGeometry& geometry = *level.geometry;
        for (int j = 0; j < level.names.nodeGlobal.size(); ++j)
            layout.nodes[level.names.nodeGlobal[j]].box = geometry.nodes[j].translated(level.offset);
        for (int j = 0; j < level.names.clusterGlobal.size(); ++j)
            layout.clusters[level.names.clusterGlobal[j]].box = geometry.clusters[j].translated(level.offset);
        for (int j = 0; j < level.children.size(); ++j) {
            const int child = level.children[j];
            const QRectF box = geometry.children[j].translated(level.offset);
            layout.clusters[child].box = box;
            const QSizeF content = levels[child + 1].geometry->size;
            levels[child + 1].offset
                = QPointF(box.left() + (box.width() - content.width()) / 2, box.top() + titleHeight);
        }
    }
    auto straight = [](QVector<QPointF>& points, QPointF from, QPointF to) {
        points << from + (to - from) / 3 << from + (to - from) * 2 / 3 << to;
    };
    for (int c : std::as_const(order)) {
        const Level& level = levels[c + 1];
        for (int j = 0; j < level.edges.size(); ++j) {
            LayoutEdge& edge = layout.edges[level.edges[j]];
            QVector<QPointF> points = level.geometry->edges[j];
            for (QPointF& p : points)
                p += level.offset;
            edge.labelPos = level.geometry->labels[j] + level.offset;
            if (points.isEmpty()) {
                edge.points = points;
                continue;
            }
            if (moduleOf[edge.toNode] != c) {
                if (points.size() >= 5 && (points.size() - 2) % 3 == 0)
                    points.removeLast(); // the tip on the child's border: the edge goes on to the node
                const QRectF to = layout.nodes[edge.toNode].box;
                straight(points, points.last(), QPointF(to.center().x(), to.top()));
            }
            if (moduleOf[edge.fromNode] != c) {
                const QRectF from = layout.nodes[edge.fromNode].box;
                QVector<QPointF> start { QPointF(from.center().x(), from.bottom()) };
                straight(start, start.first(), points.first());
                start.removeLast();
                points = start + points;
            }
            edge.points = points;
        }
    }
    return layout;
}

} // namespace jitscope
