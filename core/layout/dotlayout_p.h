#pragma once

// What the Graphviz side of core/layout (dotlayout.cpp, hierarchicallayout.cpp, graphrender.cpp) shares. Private to
// core/layout; the rest of it (graphlayout_p.h) stays free of Graphviz.

#include "layout/graphlayout_p.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <mutex>

namespace jitscope {

/// Graphviz keeps global state and is not thread-safe: every call into it goes through this.
std::mutex& graphvizMutex();

/// gvLayout(@p gvc, @p g, @p engine), named as the operator running ("graphviz::dot") for the crash line and the
/// model worker's heartbeat, where JITSCOPE_WORKER_FAULT can stop it (activity::armFault()). A caller holds
/// graphvizMutex().
int runGraphviz(GVC_t* gvc, Agraph_t* g, const char* engine);

/// Fills the boxes of the "cluster_<i>" subgraphs of a laid-out @p g (scene coordinates, y down).
void readClusters(Agraph_t* g, double height, QVector<LayoutCluster>& clusters);

} // namespace jitscope
