#pragma once

// What dottext.cpp (the DOT text, the flat layout) and hierarchicallayout.cpp (big graphs module by module)
// share. Private to core/layout.

#include "report/graphlayout.h"

#include <QHash>
#include <QPair>
#include <QString>
#include <QVector>

namespace jitscope {

/// Above this many nodes dot's x placement (network simplex) gets a bound on its iterations (nslimit).
constexpr int kBoundedPlacementNodes = 300;

struct DotBuild
{
    /// What the hierarchical layout needs on top of the DOT text: names written as "\x01n12\x02" (node),
    /// "\x01e3\x02" (empty block's point), "\x01cluster_4\x02" (control-flow cluster), so that the text of each
    /// module's items can be renamed to local names; and each module cluster's contents in program order.
    struct Item
    {
        QString text; ///< DOT statements of one top-level node (with its blocks) or folded module box
        int child = -1; ///< >= 0: the module cluster (index into clusters) placed here instead of text
    };
    bool marked = false;
    QString header; ///< "digraph G {" and the default attributes
    QHash<int, QVector<Item>> contents; ///< module cluster index (-1 for the whole graph) -> its items in order
    QVector<int> moduleClusterOfNode; ///< index into nodes -> innermost module cluster holding it, -1 for none
    QVector<QPair<int, int>> invisibleEdges; ///< layout-only edges between node indices
    QString dot;
    QVector<LayoutNode> nodes; ///< in the order of their "n<i>" names
    QVector<LayoutEdge> edges; ///< in the order of their "id" attributes
    QVector<LayoutCluster> clusters; ///< in the order of their "cluster_<i>" names
    QHash<int, int> boxOfNode; ///< GraphLayout::boxOfNode
};

/// The DOT text of @p graph and what the layout fills in; with @p marked, names marked for the hierarchical layout.
DotBuild dotBuild(const IrGraph& graph, const LayoutOptions& options, bool marked);

/// Lays @p build out module by module, bottom up, each distinct module once (LayoutOptions::cache).
GraphLayout layoutHierarchically(const DotBuild& build, const LayoutOptions& options);

} // namespace jitscope
