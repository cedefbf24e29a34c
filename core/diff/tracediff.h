#pragma once

#include "report/checkreport.h"
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

/// An operator's name as trace and export both can say it: "aten::_convolution" and "aten::conv2d" (the export's
/// "aten.convolution.default" reads as "aten::convolution") are "aten::convolution", an in-place "aten::relu_" is
/// "aten::relu", "aten::sym_size" is "aten::size"; the overload is never part of a node's kind.
QString normalizedOpKind(const QString& kind);

/// Trace 1 against the graph of the call's exported program (torch.export), as Compare shows them: the top-level
/// nodes of each, constants, attribute reads and list plumbing left out, matched with dtl by normalised operator,
/// module and source line (base 0, other -1: the export has no trace index). Each divergence says what differs in
/// kind where the graphs and @p exported's facts tell: a loop the trace unrolled that the export unrolled for the
/// example only and guards (its specializations), sizes the trace baked where the export keeps symbols, operators
/// one side has and the other lacks.
TraceDiff diffTraceAgainstExport(const IrGraph& trace, const IrGraph& exportedGraph, const ExportReport& exported);

} // namespace jitscope
