#pragma once

#include "report/checkreport.h"
#include "report/marks.h"

#include <QHash>
#include <QString>
#include <QVector>

namespace jitscope {

/// Two graphs of a check side by side: the changes between them, the status of every changed node on each side
/// (the one id-to-status map both scenes of the compare view read) and the pairing of the nodes they share.
struct Comparison
{
    static constexpr int Script = -1; ///< a side showing the script graph instead of a trace

    int left = 0; ///< trace index, or Script
    int right = 0;
    /// left = base, right = other. Empty when a side is the script, a failed trace, or both sides are the same.
    TraceDiff diff;
    QHash<int, DiffStatus> leftStatus; ///< by node id of the left graph; missing = unchanged
    QHash<int, DiffStatus> rightStatus;
    QHash<int, int> leftToRight; ///< unchanged and changed nodes, paired in order
    QHash<int, int> rightToLeft;

    bool isTracePair() const { return left >= 0 && right >= 0 && left != right; }
    int count(NodeChange::Op op) const;

    /// Compares graphs @p left and @p right of @p report. Trace pairs read the report's diff of that pair
    /// (CheckReport::diffBetween(): the engine diffed, explained and grouped every pair), reversed when recorded
    /// the other way round.
    static Comparison between(const CheckReport& report, int left, int right);
};

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
