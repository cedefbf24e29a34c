#pragma once

// Queries over a check's graphs that every reader asks the same way: which trace nodes a script node recorded, the
// loop iterations a node ran in, how a node is named in lists, a trace's warnings by node, a diff seen from its
// other side.

#include "report/checkreport.h"

#include <QHash>
#include <QString>
#include <QVector>

namespace jitscope {

/// The same diff seen from the other side: inserts become deletes and base and other swap.
TraceDiff reversedDiff(const TraceDiff& diff);

/// A trace node that a script node recorded, with the loop iterations it was recorded in.
struct LinkedNode
{
    int node = -1;
    QString iteration; ///< "iteration 2", "iteration 1.3" inside nested loops; empty outside loops
};

/// The nodes of @p trace recorded by script node @p scriptNode: those whose originNode it is and, when it is a
/// loop, every node recorded inside it (labelled with that loop's iteration). In trace order.
QVector<LinkedNode> traceNodesOf(const IrGraph& trace, const IrGraph& script, int scriptNode);
/// 1-based iterations of @p node's loops, outermost first ("iteration 2", "iteration 1.3"); only the frame of
/// @p loopNode when it is one of them. Empty outside loops.
QString iterationLabel(const IrNode& node, int loopNode = -1);
/// The warnings of trace @p trace that point at one of its nodes, joined per node (for badges on the graph).
QHash<int, QString> traceWarningNodes(const CheckReport& report, int trace);

/// How a node is named in lists: its first output ("%12"), else its kind.
QString nodeLabel(const IrGraph& graph, int nodeId);

} // namespace jitscope
