#pragma once

#include "ir/irgraph.h"

#include <QString>
#include <QVector>

namespace jitscope {

/// One difference between two traces, node by node.
struct NodeChange
{
    enum class Op { Insert, Delete, Change };
    Op op = Op::Change;
    int baseNode = -1; ///< node in the base trace (Delete, Change)
    int otherNode = -1; ///< node in the other trace (Insert, Change)
    int scriptNode = -1; ///< script node that recorded it
    SourceLocation location;
    QString cause; ///< why the traces differ here
};

QString nodeChangeOpName(NodeChange::Op op);

struct TraceDiff
{
    int base = 0; ///< index of the base trace (the first input set)
    int other = 0;
    bool equal = true;
    QVector<NodeChange> changes;
};

/// A node's identity for diffing: kind, constant values and attributes, output types with shapes erased, and
/// inputs by what produces them. Value names never matter.
QString nodeSignature(const IrGraph& graph, int nodeId);

/// Diffs the top-level node sequences of two traces with dtl (Wu's O(NP) algorithm over node signatures).
/// Adjacent deletes and inserts are paired as changes. Causes are left empty (see explainChanges).
TraceDiff diffTraces(const IrGraph& base, const IrGraph& other);

/// Fills graph.signatureHashes (hashes of nodeSignature, computed in one pass over the graph).
void computeSignatureHashes(IrGraph& graph);

/// The signature sequence of a graph, one line per top-level node (for baselines and tests).
QStringList signatureLines(const IrGraph& graph);

} // namespace jitscope
