#pragma once

#include "report/divergence.h"

#include <QStringList>

namespace jitscope {

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
