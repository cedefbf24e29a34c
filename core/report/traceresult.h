#pragma once

#include "report/divergence.h"
#include "report/runvalues.h"
#include "report/tracewarning.h"

#include <QHash>
#include <QString>
#include <QVector>

namespace jitscope {

/// What torch.jit.trace records for one input set. A value: nothing in it refers to live torch state.
struct TraceResult
{
    bool ok = false;
    Diagnostic error;
    InputSet inputs;
    /// What torch.jit.trace records, each node with the script node and loop iterations behind it; of a module, with
    /// its submodule calls inlined (traced.inlined_graph, what the trace's check compares), nodes in their modules.
    IrGraph graph;
    QVector<TraceWarning> warnings;
    QVector<ValueSummary> outputs;
    QString note; ///< e.g. "cleanup passes failed: raw recorded graph"
    /// The example inputs traced again (PyTorch's check without check inputs, a recorded call's): a graph other than
    /// trace 1's says the model changed between the calls.
    bool repeat = false;
    /// Every prim::If of the script graph the trace ran (by node id): which blocks it took, 1 then, 2 else, 3 both
    /// (in a loop). What a divergence's frozen branch is read from, where blocks record nothing.
    QHash<int, int> branches;
    /// A recorded call's trace k whose graph differs from trace 1's: where the Python of the two runs went
    /// different ways (observed by the bridge; absent for the executor's own traces and archives).
    ObservedParting parting;
};

/// Where a quiet run of a recorded trace on another input set failed (replayTrace()).
struct ReplayFailure
{
    int node = -1; ///< its id in the recorded trace's graph; -1: the run did not fail
    QString error; ///< the error's own line ("The size of tensor a (3) must match ...")
};

} // namespace jitscope
