#include "graphscene.h"

#include <QElapsedTimer>
#include <QGraphicsSceneHelpEvent>
#include <QGraphicsSceneMouseEvent>
#include <QToolTip>

#include "graphitems.h"
#include "graphview.h"

#include <QGraphicsItem>
#include <QSet>

#include <algorithm>

namespace jitscope {

namespace {

constexpr qreal kSceneMargin = 24;
/// A slice of a build in slices: well under a frame (16 ms), so that paints and input go on in between.
constexpr int kSliceMs = 8;

ClusterItem::Kind clusterKind(const IrGraph& graph, int nodeId)
{
    if (nodeId >= 0 && nodeId < graph.nodes.size()) {
        const QString& kind = graph.node(nodeId).kind;
        if (kind == QLatin1String("prim::Loop"))
            return ClusterItem::Kind::Loop;
        if (kind == QLatin1String("prim::If"))
            return ClusterItem::Kind::If;
    }
    return ClusterItem::Kind::Block;
}

QString valueDescription(const IrGraph& graph, int valueId)
{
    if (valueId < 0 || valueId >= graph.values.size())
        return {};
    const IrValue& value = graph.value(valueId);
    QString text = QLatin1Char('%') + value.name;
    if (!value.type.isEmpty())
        text += QLatin1String(" : ") + value.type;
    return text;
}

} // namespace

GraphScene::GraphScene(QObject* parent)
    : QGraphicsScene(parent)
{
    setBackgroundBrush(graphBackgroundColor());
    // Items are placed once per layout; BSP indexing pays off for hit tests on large graphs.
    setItemIndexMethod(BspTreeIndex);
    connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
    m_buildTimer.setInterval(0);
    connect(&m_buildTimer, &QTimer::timeout, this, &GraphScene::buildNextSlice);
    connect(&m_overview, &GraphOverview::updated, this, [this] {
        // Only views that paint the image: one zoomed in paints items, which did not change.
        for (QGraphicsView* view : views()) {
            auto* graphView = qobject_cast<GraphView*>(view);
            if (graphView && graphView->paintsOverview())
                graphView->viewport()->update();
        }
        Q_EMIT overviewUpdated();
    });
}

void GraphScene::applyTheme()
{
    setBackgroundBrush(graphBackgroundColor());
    m_overview.redraw(graphBackgroundColor());
    // Items cache their pixels: each must repaint, not just the scene.
    for (QGraphicsItem* item : items())
        item->update();
}

GraphScene::~GraphScene()
{
    // QGraphicsScene's destructor deletes the items and reports selected ones through selectionChanged, which
    // would reach onSelectionChanged() after this object's members are gone: delete them while they still exist.
    removeAllItems();
}

void GraphScene::clearContents()
{
    removeAllItems();
    Q_EMIT contentsReplaced();
}

void GraphScene::removeAllItems()
{
    // clear() emits selectionChanged for selected items; do not report that as a user selection.
    const QSignalBlocker blocker(this);
    m_overview.clear();
    m_pending.reset();
    m_buildTimer.stop();
    clear();
    m_nodes.clear();
    m_boxOfId.clear();
    m_categories.clear();
    m_edges.clear();
    m_highlightedEdges.clear();
    m_clusters.clear();
    m_nodeById.clear();
    m_shownBy.clear();
    m_graph = IrGraph();
    m_layout = GraphLayout();
    m_consumers.clear();
    m_statuses.clear();
    m_linked.clear();
    m_warnings.clear();
    m_executionNode = -1;
    m_breakpointNodes.clear();
    m_message = nullptr;
    m_contentsRect = QRectF();
    m_startRect = QRectF();
    m_inputsRect = QRectF();
    m_firstInputRect = QRectF();
    m_lastEmitted = -2;
    setSceneRect(QRectF());
}

struct GraphScene::PendingBuild
{
    GraphLayout layout;
    QVector<int> depth; ///< of each cluster, from its parent chain
    double fontSize = 10;
    bool sliced = false;
    int cluster = 0, node = 0, edge = 0; ///< the next item of each kind to make
    QRectF itemBounds; ///< of the items made so far
};

void GraphScene::setGraph(const IrGraph& graph, const GraphLayout& layout, Build build)
{
    removeAllItems();
    m_graph = graph;
    m_layout = layout;
    for (const IrNode& node : graph.nodes) {
        for (int input : node.inputs)
            m_consumers[input].append(node.id);
    }
    auto pending = std::make_unique<PendingBuild>();
    pending->layout = layout;
    pending->fontSize = LayoutOptions().fontSize;
    pending->sliced = build == Build::InSlices && layout.bounds.isValid();
    // Depth of each cluster from its parent chain; the layout lists parents before children but do not rely on it.
    pending->depth.fill(0, layout.clusters.size());
    for (int i = 0; i < layout.clusters.size(); ++i) {
        int parent = layout.clusters.at(i).parentCluster;
        int guard = 0;
        while (parent >= 0 && parent < layout.clusters.size() && guard++ < layout.clusters.size()) {
            ++pending->depth[i];
            parent = layout.clusters.at(parent).parentCluster;
        }
    }
    // What the layout says without the items: which node has a box, which box shows the others, the categories,
    // where reading starts.
    QSet<int> seen;
    QVector<QRectF> ops; // the boxes of ops and folded modules
    for (int i = 0; i < layout.nodes.size(); ++i) {
        const LayoutNode& node = layout.nodes.at(i);
        if (node.role == LayoutNode::Role::GraphInputs) {
            if (m_inputsRect.isNull())
                m_firstInputRect = node.box;
            m_inputsRect = m_inputsRect.isNull() ? node.box : m_inputsRect.united(node.box);
        } else if (node.role != LayoutNode::Role::GraphOutputs && !node.box.isEmpty())
            ops << node.box;
        if (node.nodeId >= 0 && node.nodeId < graph.nodes.size())
            m_boxOfId.insert(node.nodeId, i);
        seen.insert(int(node.category));
    }
    // The inputs and the first ops below them: what the first view of a graph too big to show whole shows.
    std::sort(ops.begin(), ops.end(), [](const QRectF& a, const QRectF& b) { return a.top() < b.top(); });
    m_startRect = m_inputsRect;
    for (int i = 0; i < ops.size() && i < kFirstOps; ++i)
        m_startRect = m_startRect.isNull() ? ops[i] : m_startRect.united(ops[i]);
    if (m_inputsRect.isNull() && !ops.isEmpty())
        m_inputsRect = m_firstInputRect = ops.first();
    for (int c = int(OpCategory::Input); c <= int(OpCategory::Other); ++c) {
        if (seen.contains(c))
            m_categories.append(OpCategory(c));
    }
    for (auto it = layout.boxOfNode.cbegin(); it != layout.boxOfNode.cend(); ++it) {
        if (it.value() < 0 || it.value() >= layout.nodes.size())
            continue;
        const LayoutNode& box = layout.nodes.at(it.value());
        if (box.role == LayoutNode::Role::Node && m_boxOfId.contains(box.nodeId))
            m_shownBy.insert(it.key(), box.nodeId);
    }
    m_pending = std::move(pending);
    if (m_pending->sliced) {
        // The view frames the layout's bounds; the items' own (labels past a box) come when the last is made.
        m_contentsRect = layout.bounds;
        setSceneRect(m_contentsRect.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
        if (!buildSlice(kSliceMs))
            m_buildTimer.start();
    } else {
        buildSlice(-1);
    }
    // Drawn once the build is done, over the scene's rectangle as the layout gives it: that holds every box, spline
    // and frame (what items have past it, labels, is not drawn that small).
    m_overview.start(layout.bounds.isValid()
            ? layout.bounds.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin)
            : sceneRect(),
        graphBackgroundColor(), layout.clusters.size(), layout.edges.size(), layout.nodes.size());
    Q_EMIT contentsReplaced();
}

bool GraphScene::buildSlice(int budgetMs)
{
    PendingBuild& p = *m_pending;
    const GraphLayout& layout = p.layout;
    const IrGraph& graph = m_graph;
    QElapsedTimer clock;
    clock.start();
    int made = 0;
    // The clock is read every 64 items: reading it costs about what making a small item does.
    auto spent = [&] { return budgetMs >= 0 && ++made % 64 == 0 && clock.elapsed() >= budgetMs; };
    for (; p.cluster < layout.clusters.size(); ++p.cluster) {
        if (spent())
            return false;
        const int i = p.cluster;
        const LayoutCluster& cluster = layout.clusters.at(i);
        const ClusterItem::Kind kind
            = cluster.module.isEmpty() ? clusterKind(graph, cluster.nodeId) : ClusterItem::Kind::Module;
        auto* item = new ClusterItem(cluster, i, kind, p.depth.at(i), p.fontSize);
        // What a double click folds: the owning loop/if node, or the submodule.
        item->setData(FoldNodeKey, cluster.nodeId);
        item->setData(FoldModuleKey, cluster.module);
        if (cluster.nodeId >= 0 && cluster.nodeId < graph.nodes.size()) {
            const IrNode& node = graph.node(cluster.nodeId);
            item->setToolTip(node.location.isValid()
                    ? QStringLiteral("%1, block %2 (line %3)")
                          .arg(node.kind)
                          .arg(cluster.blockIndex)
                          .arg(node.location.line)
                    : QStringLiteral("%1, block %2").arg(node.kind).arg(cluster.blockIndex));
        }
        addItem(item);
        m_clusters.append(item);
        p.itemBounds = p.itemBounds.united(item->boundingRect());
    }
    for (; p.node < layout.nodes.size(); ++p.node) {
        if (spent())
            return false;
        const int i = p.node;
        const LayoutNode& node = layout.nodes.at(i);
        auto* item = new NodeItem(node, i, p.fontSize);
        // Folded loops/ifs and folded module boxes unfold on a double click.
        if (node.folded)
            item->setData(FoldNodeKey, node.nodeId);
        if (node.role == LayoutNode::Role::Module)
            item->setData(FoldModuleKey, node.module);
        // Tooltips are made when asked for (helpEvent()): on a graph of thousands of boxes, printing every node's
        // line up front is a good part of building the scene.
        if (node.nodeId >= 0 && node.nodeId < graph.nodes.size())
            m_nodeById.insert(node.nodeId, item);
        addItem(item);
        m_nodes.append(item);
        p.itemBounds = p.itemBounds.united(item->mapRectToScene(item->boundingRect()));
    }
    for (; p.edge < layout.edges.size(); ++p.edge) {
        if (spent())
            return false;
        const int i = p.edge;
        const LayoutEdge& edge = layout.edges.at(i);
        const QRectF target
            = edge.toNode >= 0 && edge.toNode < layout.nodes.size() ? layout.nodes.at(edge.toNode).box : QRectF();
        auto* item = new EdgeItem(edge, i, target, p.fontSize);
        item->setData(ValueKey, edge.valueId); // its tooltip, when asked for (helpEvent())
        addItem(item);
        m_edges.append(item);
        p.itemBounds = p.itemBounds.united(item->boundingRect());
    }

    // The items' bounds as they were made: itemsBoundingRect() would ask every item of a big graph again.
    m_contentsRect = layout.bounds.isValid() ? layout.bounds.united(p.itemBounds) : p.itemBounds;
    setSceneRect(m_contentsRect.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
    const bool sliced = p.sliced;
    m_pending.reset();
    m_buildTimer.stop();
    if (m_dimUnchanged)
        updateDimming();
    if (sliced)
        Q_EMIT graphBuilt();
    return true;
}

void GraphScene::buildNextSlice()
{
    if (m_pending)
        buildSlice(kSliceMs);
}

void GraphScene::finishBuild()
{
    if (m_pending)
        buildSlice(-1);
}

const GraphScene& GraphScene::built() const
{
    // Building is not a visible change of the scene's state: the items were already promised.
    if (m_pending)
        const_cast<GraphScene*>(this)->finishBuild();
    return *this;
}

void GraphScene::showMessage(const QString& title, const QString& text, bool isError)
{
    removeAllItems();
    m_message = new MessageItem(title, text, isError ? MessageItem::Kind::Error : MessageItem::Kind::Info);
    addItem(m_message);
    m_contentsRect = m_message->boundingRect();
    setSceneRect(m_contentsRect.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
    Q_EMIT contentsReplaced();
}

QVector<OpCategory> GraphScene::categories() const
{
    return m_categories;
}

QString GraphScene::messageTitle() const
{
    return m_message ? m_message->title() : QString();
}

QString GraphScene::messageText() const
{
    return m_message ? m_message->text() : QString();
}

void GraphScene::selectNode(int nodeId)
{
    NodeItem* item = nodeItem(nodeId);
    {
        // One selectionChanged for the whole change, not one per item.
        const QSignalBlocker blocker(this);
        clearSelection();
        if (item)
            item->setSelected(true);
    }
    onSelectionChanged();
}

int GraphScene::selectedNodeId() const
{
    const QList<QGraphicsItem*> items = selectedItems();
    if (items.size() != 1 || items.first()->type() != NodeItem::Type)
        return -1;
    return static_cast<NodeItem*>(items.first())->nodeId();
}

NodeItem* GraphScene::nodeItem(int nodeId) const
{
    return built().m_nodeById.value(nodeId, nullptr);
}

int GraphScene::displayedNode(int nodeId) const
{
    if (m_boxOfId.contains(nodeId))
        return nodeId;
    if (const auto shown = m_shownBy.constFind(nodeId); shown != m_shownBy.constEnd())
        return shown.value();
    if (nodeId < 0 || nodeId >= m_graph.nodes.size())
        return -1;
    // A folded module's box stands for no node, hidden code for none at all: the first shown node down the
    // consumers.
    QVector<int> queue { nodeId };
    QSet<int> seen { nodeId };
    for (int i = 0; i < queue.size() && i < 64; ++i) {
        for (int output : m_graph.node(queue.at(i)).outputs) {
            for (int consumer : m_consumers.value(output)) {
                if (m_boxOfId.contains(consumer))
                    return consumer;
                if (!seen.contains(consumer)) {
                    seen.insert(consumer);
                    queue.append(consumer);
                }
            }
        }
    }
    return -1;
}

void GraphScene::setNodeStatuses(const QHash<int, DiffStatus>& statuses)
{
    finishBuild();
    const bool changed = m_statuses != statuses;
    m_statuses = statuses;
    for (NodeItem* item : std::as_const(m_nodes))
        item->setDiffStatus(m_statuses.value(item->nodeId(), DiffStatus::Unchanged));
    if (!updateDimming() && changed)
        m_overview.redraw();
}

void GraphScene::setDimUnchanged(bool dim)
{
    if (m_dimUnchanged == dim)
        return;
    m_dimUnchanged = dim;
    updateDimming();
}

bool GraphScene::updateDimming()
{
    if (m_pending)
        return false; // the last slice dims
    // Selected and linked nodes always stay visible.
    const bool active = m_dimUnchanged;
    bool changed = false;
    QSet<int> bright;
    for (NodeItem* item : std::as_const(m_nodes)) {
        const bool dim
            = active && item->diffStatus() == DiffStatus::Unchanged && !item->isSelected() && !item->isLinked();
        changed |= item->isDimmed() != dim;
        item->setDimmed(dim);
        if (!dim)
            bright.insert(item->layoutIndex());
    }
    for (EdgeItem* edge : std::as_const(m_edges)) {
        const bool dim = active && !bright.contains(edge->fromIndex()) && !bright.contains(edge->toIndex());
        changed |= edge->isDimmed() != dim;
        edge->setDimmed(dim);
    }
    for (ClusterItem* cluster : std::as_const(m_clusters)) {
        changed |= cluster->opacity() != (active ? 0.4 : 1.0);
        cluster->setOpacity(active ? 0.4 : 1.0);
    }
    // The overview shows the new looks once it is drawn again.
    if (changed)
        m_overview.redraw();
    return changed;
}

QList<QGraphicsItem*> GraphScene::standOutItems() const
{
    QList<QGraphicsItem*> items;
    for (EdgeItem* edge : m_highlightedEdges)
        items.append(edge);
    for (QGraphicsItem* item : selectedItems())
        items.append(item);
    for (auto it = m_linked.cbegin(); it != m_linked.cend(); ++it) {
        NodeItem* node = m_nodeById.value(it.key());
        if (node && !node->isSelected())
            items.append(node);
    }
    NodeItem* current = m_nodeById.value(m_executionNode);
    if (current && !current->isSelected() && !m_linked.contains(m_executionNode))
        items.append(current);
    // Painted in stacking order, as the view would.
    std::stable_sort(items.begin(), items.end(),
        [](const QGraphicsItem* a, const QGraphicsItem* b) { return a->zValue() < b->zValue(); });
    return items;
}

void GraphScene::setLinkedNodes(const QHash<int, QString>& tags)
{
    finishBuild();
    m_linked = tags;
    for (NodeItem* item : std::as_const(m_nodes)) {
        const auto it = m_linked.constFind(item->nodeId());
        item->setLinked(item->nodeId() >= 0 && it != m_linked.constEnd(), it != m_linked.constEnd() ? *it : QString());
    }
    updateDimming();
}

void GraphScene::setExecutionNode(int nodeId)
{
    if (NodeItem* old = nodeItem(m_executionNode))
        old->setExecutionMarker(false);
    NodeItem* item = nodeItem(nodeId);
    m_executionNode = item ? nodeId : -1;
    if (item)
        item->setExecutionMarker(true);
}

void GraphScene::setBreakpointNodes(const QSet<int>& nodeIds)
{
    finishBuild();
    m_breakpointNodes = nodeIds;
    for (NodeItem* item : std::as_const(m_nodes))
        item->setBreakpoint(item->nodeId() >= 0 && m_breakpointNodes.contains(item->nodeId()));
}

void GraphScene::setNodeWarnings(const QHash<int, QString>& messages)
{
    finishBuild();
    m_warnings = messages;
    for (NodeItem* item : std::as_const(m_nodes)) {
        if (item->nodeId() < 0)
            continue;
        const QString message = m_warnings.value(item->nodeId());
        item->setWarning(message);
        // Warned boxes carry their tooltip; the others get theirs when hovered.
        item->setToolTip(message.isEmpty() ? QString() : nodeToolTip(item));
    }
}

QString GraphScene::nodeToolTip(const NodeItem* item) const
{
    const int id = item->nodeId();
    if (id < 0 || id >= m_graph.nodes.size()) {
        const QVector<int>& ids
            = item->role() == LayoutNode::Role::GraphOutputs ? m_graph.top.outputs : m_graph.top.inputs;
        QStringList lines;
        for (int v : ids)
            lines << valueDescription(m_graph, v);
        return lines.join(QLatin1Char('\n'));
    }
    QString tip = m_graph.nodeLine(id, true).toHtmlEscaped();
    const QString& scope = m_graph.node(id).scope;
    if (!scope.isEmpty())
        tip += QLatin1String("<br/><i>scope: ") + scope.toHtmlEscaped() + QLatin1String("</i>");
    tip = QLatin1String("<pre style='white-space:pre-wrap'>") + tip + QLatin1String("</pre>");
    const QString message = m_warnings.value(id);
    if (!message.isEmpty())
        tip += QStringLiteral("<p><b>\u26a0 ") + message.toHtmlEscaped() + QLatin1String("</b></p>");
    return tip;
}

void GraphScene::helpEvent(QGraphicsSceneHelpEvent* event)
{
    const QList<QGraphicsItem*> under = items(event->scenePos(), Qt::IntersectsItemShape, Qt::DescendingOrder);
    if (!under.isEmpty() && under.first()->type() == NodeItem::Type) {
        const auto* node = static_cast<const NodeItem*>(under.first());
        const QString tip = node->toolTip().isEmpty() ? nodeToolTip(node) : node->toolTip();
        QToolTip::showText(event->screenPos(), tip, event->widget());
        event->accept();
        return;
    }
    if (!under.isEmpty() && under.first()->type() == EdgeItem::Type && under.first()->toolTip().isEmpty()) {
        QToolTip::showText(
            event->screenPos(), valueDescription(m_graph, under.first()->data(ValueKey).toInt()), event->widget());
        event->accept();
        return;
    }
    QGraphicsScene::helpEvent(event);
}

void GraphScene::onSelectionChanged()
{
    if (m_pending && !selectedItems().isEmpty())
        finishBuild(); // the edges of a selected node, all of them highlighted
    QSet<int> selectedIndexes;
    for (QGraphicsItem* item : selectedItems()) {
        if (item->type() == NodeItem::Type)
            selectedIndexes.insert(static_cast<NodeItem*>(item)->layoutIndex());
    }
    m_highlightedEdges.clear();
    for (EdgeItem* edge : std::as_const(m_edges)) {
        const bool highlighted
            = selectedIndexes.contains(edge->fromIndex()) || selectedIndexes.contains(edge->toIndex());
        edge->setHighlighted(highlighted);
        if (highlighted)
            m_highlightedEdges.append(edge);
    }
    if (m_dimUnchanged)
        updateDimming();

    const int id = selectedNodeId();
    if (id == m_lastEmitted)
        return;
    m_lastEmitted = id;
    Q_EMIT nodeSelected(id);
}

void GraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event)
{
    // Innermost first: a node inside a cluster folds the node (if it can be folded), not the cluster.
    for (QGraphicsItem* item : items(event->scenePos())) {
        const QVariant node = item->data(FoldNodeKey);
        const QVariant module = item->data(FoldModuleKey);
        const int nodeId = node.isValid() ? node.toInt() : -1;
        const QString path = module.toString();
        if (nodeId >= 0 || !path.isEmpty()) {
            Q_EMIT foldToggleRequested(nodeId, path);
            event->accept();
            return;
        }
    }
    QGraphicsScene::mouseDoubleClickEvent(event);
}

} // namespace jitscope
