#pragma once

#include "graphitems.h"
#include "ir/irgraph.h"
#include "layout/graphlayout.h"

#include <QGraphicsScene>
#include <QHash>
#include <QList>
#include <QSet>

namespace jitscope {

/// The items of one laid-out graph: nodes, edges and control-flow clusters, or a message card when there is
/// no graph to show. Turns item selection into nodeSelected(nodeId).
class GraphScene : public QGraphicsScene
{
    Q_OBJECT
public:
    explicit GraphScene(QObject* parent = nullptr);
    ~GraphScene() override;

    /// Replaces the scene's contents with @p layout's items; @p graph supplies tooltips and block kinds.
    void setGraph(const IrGraph& graph, const GraphLayout& layout);
    /// Replaces the scene's contents with a message card (welcome text, load or compile error).
    void showMessage(const QString& title, const QString& text, bool isError = false);
    void clearContents();
    /// Repaints the background and every item after setDarkGraphTheme().
    void applyTheme();

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

    /// The graph shown (empty while a message is shown).
    const IrGraph& graph() const { return m_graph; }
    /// The node drawn for @p nodeId: the node itself, or the node whose box the layout shows it in
    /// (GraphLayout::boxOfNode: a folded constant's consumer, a folded loop or if); -1 when nothing shows it.
    int displayedNode(int nodeId) const;

    /// Diff colours of a comparison, by IrGraph node id; nodes missing from @p statuses are unchanged.
    /// Cleared when the contents are replaced.
    void setNodeStatuses(const QHash<int, DiffStatus>& statuses);
    DiffStatus nodeStatus(int nodeId) const { return m_statuses.value(nodeId, DiffStatus::Unchanged); }
    const QHash<int, DiffStatus>& nodeStatuses() const { return m_statuses; }
    /// Fades unchanged nodes and the edges between them, so that a comparison's changes stand out (kept across
    /// setGraph()).
    void setDimUnchanged(bool dim);
    bool dimsUnchanged() const { return m_dimUnchanged; }
    /// Marks the nodes linked to a selection elsewhere (node id -> tag, "" for no tag); replaces the previous set.
    void setLinkedNodes(const QHash<int, QString>& tags);
    QList<int> linkedNodes() const { return m_linked.keys(); }
    /// The debugger's execution marker on node @p nodeId (a displayed node); -1 removes it.
    void setExecutionNode(int nodeId);
    int executionNode() const { return m_executionNode; }
    /// Breakpoint dots on these nodes; replaces the previous set.
    void setBreakpointNodes(const QSet<int>& nodeIds);
    QSet<int> breakpointNodes() const { return m_breakpointNodes; }
    /// Warning badges by node id (message as tooltip); replaces the previous set.
    void setNodeWarnings(const QHash<int, QString>& messages);
    QList<int> warnedNodes() const { return m_warnings.keys(); }

    /// The tooltip of a node's box: its line as libtorch prints it, its module scope, its warning.
    QString nodeToolTip(const NodeItem* item) const;

    /// Bounds of the graph (or message) without the scene margin.
    QRectF contentsRect() const { return m_contentsRect; }
    /// The op categories of the shown nodes, in OpCategory order (for a legend).
    QVector<OpCategory> categories() const;

Q_SIGNALS:
    /// A node was selected by click or selectNode(); -1 when the selection was cleared or is not a graph node.
    void nodeSelected(int nodeId);
    /// The scene now shows another graph or message.
    void contentsReplaced();
    /// A double click on a loop/if cluster or folded node (nodeId), or on a module cluster or box (module).
    void foldToggleRequested(int nodeId, const QString& module);

protected:
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;
    void helpEvent(QGraphicsSceneHelpEvent* event) override;

private:
    enum DataKey { FoldNodeKey = 0x4a53, FoldModuleKey, ValueKey };
    void onSelectionChanged();
    void removeAllItems();
    void updateDimming();

    QList<NodeItem*> m_nodes;
    QList<EdgeItem*> m_edges;
    QList<ClusterItem*> m_clusters;
    QHash<int, NodeItem*> m_nodeById;
    QHash<int, int> m_shownBy; ///< node id -> id of the node whose box shows it (GraphLayout::boxOfNode)
    IrGraph m_graph;
    QHash<int, QVector<int>> m_consumers; ///< value id -> nodes using it
    QHash<int, DiffStatus> m_statuses;
    QHash<int, QString> m_linked;
    QHash<int, QString> m_warnings;
    int m_executionNode = -1;
    QSet<int> m_breakpointNodes;
    bool m_dimUnchanged = false;
    MessageItem* m_message = nullptr;
    QRectF m_contentsRect;
    int m_lastEmitted = -2;
};

} // namespace jitscope
