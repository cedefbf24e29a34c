#pragma once

// What the Graphviz side of core/layout (dotlayout.cpp, hierarchicallayout.cpp, graphrender.cpp) shares. Private to
// core/layout; the rest of it (graphlayout_p.h) stays free of Graphviz.

#include "report/graphlayout_p.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <mutex>

namespace jitscope {

/// Graphviz keeps global state and is not thread-safe: every call into it goes through this.
std::mutex& graphvizMutex();

/// gvLayout(@p gvc, @p g, @p engine), named as the operator running ("graphviz::dot") for the crash line and the
/// model worker's heartbeat, where JITSCOPE_WORKER_FAULT can stop it (activity::armFault()). Non-zero, with
/// Graphviz's errors in @p error, also when Graphviz reported an error but returned 0 (2.42 after "trouble in
/// init_rank"): then @p g must not be freed (gvFreeLayout() frees its memory twice). A caller holds graphvizMutex().
int runGraphviz(GVC_t* gvc, Agraph_t* g, const char* engine, QString* error = nullptr);

/// Parses @p dot and lays it out with dot: the graph (the caller frees its layout and closes it), or null and
/// @p error. Graphviz 2.42 fails to rank some graphs with labelled edges and clusters ("trouble in init_rank": each
/// label is ranked as a node of its own; a detection model's trace with batched_nms's `If` blocks is one), and then
/// corrupts the heap: a graph with clusters gets its edge labels as xlabels, placed after ranking. One without that
/// still fails is laid out again that way.
Agraph_t* layOutDot(GVC_t* gvc, const QByteArray& dot, QString* error);

/// The label of @p e as laid out: its label, or its xlabel once placed; null when it has none.
const textlabel_t* edgeLabel(Agedge_t* e);

/// Fills the boxes of the "cluster_<i>" subgraphs of a laid-out @p g (scene coordinates, y down).
void readClusters(Agraph_t* g, double height, QVector<LayoutCluster>& clusters);

} // namespace jitscope
