#pragma once

#include "report/irgraph.h"

#include <QHash>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QVector>

#include <atomic>
#include <memory>

namespace jitscope {

/// Broad op families, used for colouring boxes.
enum class OpCategory {
    Input,
    Output,
    Constant,
    ConvLinear,
    Normalization,
    Activation,
    Pooling,
    ShapeView,
    Arithmetic,
    ControlFlow,
    Creation,
    Call,
    Attribute,
    Container,
    Other,
};
OpCategory opCategory(const QString& kind);
QString opCategoryName(OpCategory c);

class LayoutCache;

struct LayoutOptions
{
    bool foldConstants = true; ///< fold prim::Constant / int lists / GetAttr chains into the consuming node
    bool showBlocks = true; ///< draw prim::Loop / prim::If bodies as nested clusters
    bool groupByModule = false; ///< draw the code of each submodule (IrNode::modulePath) as a nested cluster
    QStringList foldedModules; ///< submodules ("layer1.0") drawn as one box each instead of their code
    /// Class of each submodule by path, shown beside it ("layer1.0 · BasicBlock"): submoduleTypes().
    QHash<QString, QString> moduleTypes;
    QVector<int> foldedNodes; ///< prim::Loop / prim::If nodes drawn without their blocks
    /// Hide code whose results never reach the graph's outputs (shape checks that raise, counters): what an
    /// inlined model graph is full of. Off for functions, where every line the user wrote matters.
    bool hideUnreachable = false;
    QString fontName = QStringLiteral("Helvetica");
    double fontSize = 10; ///< points
    /// Grouped by module, a graph of more boxes than this is laid out module by module (hierarchically): each
    /// module cluster on its own, bottom up, its child modules as boxes of their size, a module like one already
    /// laid out reusing that layout. Smaller graphs are laid out whole by one dot run. 0: always hierarchical.
    int hierarchicalAbove = 300;
    /// Set to true (another thread) to stop a hierarchical layout between two clusters: GraphLayout::cancelled.
    const std::atomic<bool>* cancel = nullptr;
    /// Layouts of module clusters kept across calls (folding or unfolding one module then lays out that module and
    /// re-composes its parents only). Null: a cache for this call alone.
    std::shared_ptr<LayoutCache> cache;
};

/// Module cluster layouts by the structural hash of the cluster as drawn (its items' DOT text with local names and
/// the module's own path masked, child module sizes, edges): for LayoutOptions::cache. Thread-safe; least
/// recently used entries go first when it holds more than its capacity.
class LayoutCache
{
public:
    explicit LayoutCache(int capacity = 4096);
    ~LayoutCache();
    LayoutCache(const LayoutCache&) = delete;
    LayoutCache& operator=(const LayoutCache&) = delete;
    int size() const;
    void clear();

    /// The entries, defined in layoutcache_p.h and filled by the hierarchical layout (core/layout/).
    struct Private;
    Private* d() const { return m_d.get(); }

private:
    std::unique_ptr<Private> m_d;
};

/// A drawable box: a graph node, or the graph's input/output terminal.
struct LayoutNode
{
    int nodeId = -1; ///< IrGraph node id; -1 for the graph input/output terminals
    enum class Role { Node, GraphInputs, GraphOutputs, Module } role = Role::Node;
    QString module; ///< Role::Module: the folded submodule's path
    bool folded = false; ///< a control-flow node drawn without its blocks (LayoutOptions::foldedNodes)
    QString title; ///< "aten::conv2d"
    QStringList details; ///< folded constants and attributes, one per line ("stride=[2, 2]")
    OpCategory category = OpCategory::Other;
    QRectF box; ///< scene coordinates, y grows downwards
};

struct LayoutEdge
{
    int fromNode = -1; ///< index into GraphLayout::nodes
    int toNode = -1;
    int valueId = -1; ///< the IrGraph value carried
    QString label; ///< tensor shape when known, else the value name
    QVector<QPointF> points; ///< cubic Bezier control points as Graphviz gives them (1 + 3n points)
    QPointF labelPos;
    bool hasArrow = true;
};

/// A prim::Loop / prim::If block drawn as a cluster.
struct LayoutCluster
{
    int nodeId = -1; ///< the owning control-flow node; -1 for a module cluster
    int blockIndex = 0;
    QString module; ///< module clusters: the submodule's path ("layer1.0.conv1"); empty for control flow
    int parentCluster = -1; ///< index into GraphLayout::clusters, -1 at top level
    QString title; ///< "loop (line 5)" / "if (line 9): then"
    QRectF box;
};

/// Geometry of a laid-out graph. Produced by layoutGraph(), consumed by views.
struct GraphLayout
{
    QRectF bounds;
    QVector<LayoutNode> nodes;
    QVector<LayoutEdge> edges;
    QVector<LayoutCluster> clusters;
    QString error; ///< non-empty when Graphviz failed or the layout was cancelled
    bool cancelled = false; ///< LayoutOptions::cancel was set: the layout is incomplete (error says so)
    /// How the layout was made: whole by one dot run, or module by module (LayoutOptions::hierarchicalAbove).
    struct Stats
    {
        bool hierarchical = false;
        int clusters = 0; ///< hierarchical: module clusters and the top level, each a layout
        int dotRuns = 0; ///< layouts dot computed
        int reused = 0; ///< layouts taken from a structurally equal cluster of this graph
        int cached = 0; ///< layouts taken from LayoutOptions::cache, made by an earlier call
    } stats;
    /// IrGraph node id -> index into nodes of the box that shows it: its own; the folded loop/if or the folded
    /// module box it is inside; for what folds into its users (constants, list constructs, attribute reads), the
    /// first box down its consumers. Nodes hidden (LayoutOptions::hideUnreachable) have none.
    QHash<int, int> boxOfNode;

    int indexOfNode(int nodeId) const;
    /// The index into nodes of the box showing node @p nodeId (boxOfNode), -1 when none does.
    int boxShowing(int nodeId) const { return boxOfNode.value(nodeId, -1); }
};

/// The graph in Graphviz DOT, with the same folding as the layout.
QString toDot(const IrGraph& graph, const LayoutOptions& options = {});
/// An overview of a big model grouped by module, as TensorBoard collapses name scopes: when @p graph laid out with
/// @p options would draw more than @p bigBoxes boxes, the submodules to fold (LayoutOptions::foldedModules), all at
/// the deepest level of module paths that leaves at most @p overviewBoxes boxes ("features.1", "features.2", ...).
/// Empty for a graph small enough to show whole, or one without submodules.
QStringList overviewFolds(
    const IrGraph& graph, const LayoutOptions& options, int bigBoxes = 800, int overviewBoxes = 250);
/// The control-flow nodes a graph opens with folded (LayoutOptions::foldedNodes): the outermost ifs and loops in
/// whose blocks control flow nests more than @p maxDepth deep. A scripted F.interpolate is an else-if ladder of
/// fifteen modes, 4,700 pt wide and 4,100 tall drawn unfolded beside a whole segmentation model; folded it is one
/// box, which a double-click opens.
QVector<int> deepControlFlowFolds(const IrGraph& graph, const LayoutOptions& options, int maxDepth = 4);
} // namespace jitscope
