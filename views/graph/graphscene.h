#pragma once

#include "graphitems.h"
#include "graphoverview.h"
#include "report/irgraph.h"
#include "report/graphlayout.h"

#include <QGraphicsScene>
#include <QHash>
#include <QList>
#include <QSet>
#include <QTimer>

#include <memory>

namespace jitscope {

/// The items of one laid-out graph: nodes, edges and control-flow clusters, or a message card when there is
/// no graph to show. Turns item selection into nodeSelected(nodeId).
class GraphScene : public QGraphicsScene
{
    Q_OBJECT
public:
    explicit GraphScene(QObject* parent = nullptr);
    ~GraphScene() override;

    enum class Build {
        AtOnce, ///< every item before setGraph() returns
        InSlices, ///< a first slice now, the rest in slices of a few ms from the event loop (graphBuilt())
    };
    /// Replaces the scene's contents with @p layout's items; @p graph supplies tooltips and block kinds. Built in
    /// slices, the GUI thread never stalls over a big graph: what needs the items (nodeItem(), selectNode(),
    /// statuses, marks) builds the rest first.
    void setGraph(const IrGraph& graph, const GraphLayout& layout, Build build = Build::AtOnce);
    /// Builds what is left of a setGraph() in slices now.
    void finishBuild();
    /// A setGraph() in slices has items left to build.
    bool isBuilding() const { return m_pending != nullptr; }
    /// Replaces the scene's contents with a message card (welcome text, load or compile error).
    void showMessage(const QString& title, const QString& text, bool isError = false);
    void clearContents();
    /// Repaints the background and every item after setDarkGraphTheme().
    void applyTheme();

    bool hasGraph() const { return !m_nodes.isEmpty() || m_pending; }
    /// The message card's title, empty when a graph is shown.
    QString messageTitle() const;
    QString messageText() const;

    /// Selects the item of an IrGraph node (and nothing else); -1 clears the selection.
    void selectNode(int nodeId);
    /// The IrGraph node id of the single selected node item, or -1.
    int selectedNodeId() const;
    NodeItem* nodeItem(int nodeId) const;

    int nodeCount() const { return built().m_nodes.size(); }
    int edgeCount() const { return built().m_edges.size(); }
    int clusterCount() const { return built().m_clusters.size(); }
    QList<NodeItem*> nodeItems() const { return built().m_nodes; }
    QList<EdgeItem*> edgeItems() const { return built().m_edges; }
    QList<ClusterItem*> clusterItems() const { return built().m_clusters; }

    /// The graph shown (empty while a message is shown).
    const IrGraph& graph() const { return m_graph; }
    /// Its layout, as setGraph() received it (what File > Export draws with graphSvg()).
    const GraphLayout& layout() const { return m_layout; }
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
    /// Where reading the graph starts: the boxes of its inputs and of its first ops (kFirstOps, the topmost);
    /// null without a graph.
    QRectF startRect() const { return m_startRect; }
    /// The boxes of the graph's inputs (without inputs, its topmost box), and the first input's box.
    QRectF inputsRect() const { return m_inputsRect; }
    QRectF firstInputRect() const { return m_firstInputRect; }
    static constexpr int kFirstOps = 6;
    /// The whole graph drawn into an image, for views zoomed out over a big graph (GraphOverview); null when
    /// the graph is too small to need one.
    const GraphOverview* overview() const { return m_overview.isActive() ? &m_overview : nullptr; }
    /// The items a view painting the overview paints over it at full detail: selected, linked and current
    /// boxes and the selection's edges.
    QList<QGraphicsItem*> standOutItems() const;

    /// The op categories of the shown nodes, in OpCategory order (for a legend).
    QVector<OpCategory> categories() const;

Q_SIGNALS:
    /// A node was selected by click or selectNode(); -1 when the selection was cleared or is not a graph node.
    void nodeSelected(int nodeId);
    /// The scene now shows another graph or message.
    void contentsReplaced();
    /// A double click on a loop/if cluster or folded node (nodeId), or on a module cluster or box (module).
    void foldToggleRequested(int nodeId, const QString& module);
    /// A setGraph() in slices made its last item.
    void graphBuilt();
    /// More of the overview was drawn, or a new one replaced it (overview()).
    void overviewUpdated();

protected:
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;
    void helpEvent(QGraphicsSceneHelpEvent* event) override;

private:
    enum DataKey { FoldNodeKey = 0x4a53, FoldModuleKey, ValueKey };
    void onSelectionChanged();
    void removeAllItems();
    /// Dims what setDimUnchanged() fades; true when an item's looks changed.
    bool updateDimming();
    struct PendingBuild;
    /// Makes pending items until @p budgetMs have passed (< 0: all of them); true when none is left.
    bool buildSlice(int budgetMs);
    void buildNextSlice();
    /// This scene with every item made (what needs the items asks through it).
    const GraphScene& built() const;

    QList<NodeItem*> m_nodes;
    QList<EdgeItem*> m_edges;
    QList<ClusterItem*> m_clusters;
    QList<EdgeItem*> m_highlightedEdges;
    GraphOverview m_overview { m_clusters, m_edges, m_nodes };
    QHash<int, NodeItem*> m_nodeById;
    QHash<int, int> m_boxOfId; ///< node id -> index of its own box in the layout (whether made yet or not)
    QVector<OpCategory> m_categories;
    std::unique_ptr<PendingBuild> m_pending;
    QTimer m_buildTimer;
    QHash<int, int> m_shownBy; ///< node id -> id of the node whose box shows it (GraphLayout::boxOfNode)
    IrGraph m_graph;
    GraphLayout m_layout;
    QHash<int, QVector<int>> m_consumers; ///< value id -> nodes using it
    QHash<int, DiffStatus> m_statuses;
    QHash<int, QString> m_linked;
    QHash<int, QString> m_warnings;
    int m_executionNode = -1;
    QSet<int> m_breakpointNodes;
    bool m_dimUnchanged = false;
    MessageItem* m_message = nullptr;
    QRectF m_contentsRect;
    QRectF m_startRect;
    QRectF m_inputsRect;
    QRectF m_firstInputRect;
    int m_lastEmitted = -2;
};

} // namespace jitscope
