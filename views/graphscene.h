#pragma once

#include "graphlayout.h"
#include "irgraph.h"

#include <QGraphicsScene>
#include <QHash>
#include <QList>

namespace jitscope {

class ClusterItem;
class EdgeItem;
class MessageItem;
class NodeItem;

/// The items of one laid-out graph: nodes, edges and control-flow clusters, or a message card when there is
/// no graph to show. Turns item selection into nodeSelected(nodeId).
class GraphScene : public QGraphicsScene
{
    Q_OBJECT
public:
    explicit GraphScene(QObject* parent = nullptr);

    /// Replaces the scene's contents with @p layout's items; @p graph supplies tooltips and block kinds.
    void setGraph(const IrGraph& graph, const GraphLayout& layout);
    /// Replaces the scene's contents with a message card (welcome text, load or compile error).
    void showMessage(const QString& title, const QString& text, bool isError = false);
    void clearContents();

    bool hasGraph() const { return !m_nodes.isEmpty(); }
    /// The message card's title, empty when a graph is shown.
    QString messageTitle() const;
    QString messageText() const;

    /// Selects the item of an IrGraph node (and nothing else); -1 clears the selection.
    void selectNode(int nodeId);
    /// The IrGraph node id of the single selected node item, or -1.
    int selectedNodeId() const;
    NodeItem* nodeItem(int nodeId) const;

    int nodeCount() const { return m_nodes.size(); }
    int edgeCount() const { return m_edges.size(); }
    int clusterCount() const { return m_clusters.size(); }
    QList<NodeItem*> nodeItems() const { return m_nodes; }
    QList<EdgeItem*> edgeItems() const { return m_edges; }
    QList<ClusterItem*> clusterItems() const { return m_clusters; }

    /// Bounds of the graph (or message) without the scene margin.
    QRectF contentsRect() const { return m_contentsRect; }
    /// The op categories of the shown nodes, in OpCategory order (for a legend).
    QVector<OpCategory> categories() const;

Q_SIGNALS:
    /// A node was selected by click or selectNode(); -1 when the selection was cleared or is not a graph node.
    void nodeSelected(int nodeId);
    /// The scene now shows another graph or message.
    void contentsReplaced();

private:
    void onSelectionChanged();
    void removeAllItems();

    QList<NodeItem*> m_nodes;
    QList<EdgeItem*> m_edges;
    QList<ClusterItem*> m_clusters;
    QHash<int, NodeItem*> m_nodeById;
    MessageItem* m_message = nullptr;
    QRectF m_contentsRect;
    int m_lastEmitted = -2;
};

} // namespace jitscope
