#pragma once

#include "diff/tracediff.h"
#include "report/checkreport.h"
#include "trace/trace.h"

namespace jitscope {

/// Never throws; long runs honour options.exec.cancel and timeoutMs. Checks `function` as @p model holds it (see
/// checkModel for the pipeline the CLI and the window share).
CheckReport checkFunction(
    const ModelInfo& model, const QString& function, const QVector<InputSet>& sets, const CheckOptions& options = {});

/// The check the CLI and the window both run: @p function (empty: ModelInfo::defaultFunction()) prepared the same
/// way (calls inlined per CheckOptions::inlineCalls, on a copy of the function when @p model does not hold it so),
/// then checkFunction. An unknown or uncompiled function is reported in CheckReport::error.
CheckReport checkModel(
    const ModelInfo& model, const QString& function, const QVector<InputSet>& sets, const CheckOptions& options = {});

/// True when @p graph (a function's graph with its calls inlined) is what torch.jit.trace recorded: nine in ten
/// of the nodes of its top-level block that have a source place have one at column 0, as the tracer records them
/// (from Python's stack), where compiled code has the column of its expression.
bool isTracedGraph(const IrGraph& graph);

/// The sizes of @p first (set 1, the set a traced archive was traced on: its graph is @p trace) that @p trace
/// bakes in, as they matter on @p other (set @p otherIndex + 1, 0-based index): one BakedConstant warning per node
/// whose size argument (output_size, size, shape, ...) takes a constant equal to a dimension of set 1 that is not
/// that dimension on @p other ("the traced archive resizes set 2 to set 1's size: ..."), at the node's line.
QVector<TraceWarning> bakedInputSizes(
    const IrGraph& trace, const InputSet& first, const InputSet& other, int otherIndex);

/// Fills CheckReport::pairDiffs: trace i against trace j for every pair 1 <= i < j of traces that both recorded,
/// diffed and explained as diffs are (explainChanges() from the report's script graph and module types).
void completePairDiffs(CheckReport& report);

/// Fills NodeChange::cause, kind, causeAt, scope and location for every change of `diff`, from the traces'
/// provenance, their warnings and the script graph, then groups them (groupDivergences).
void explainChanges(TraceDiff& diff, const TraceResult& base, const TraceResult& other, const IrGraph& script,
    const QHash<QString, QString>& moduleTypes = {});

/// The constants node @p node of @p g takes, by input position (empty where an input is not a constant; a constant's
/// own value for a constant), as compared: IrAttribute::data where set (a tensor's values), else as libtorch prints.
QStringList constantArguments(const IrGraph& g, int node);

/// Fills @p failure's kind, place, scope, stack and operand origins from trace 1's graph (@p failure.node set, and
/// its operands' values on the failing set where known), linking a constant an operand comes from to the divergence
/// of @p diff (trace 1 against the failing set's trace; null when none) it belongs to.
void describeTraceFailure(TraceFailure& failure, const IrGraph& trace1, const TraceDiff* diff);

/// The node of @p trace1 a TorchScript interpreter error names: its "Traceback of TorchScript" lists the failing
/// node's Python stack (a recorded trace's nodes carry theirs). -1 when the message has none or no node matches.
int nodeOfTorchScriptError(const IrGraph& trace1, const QString& message);

/// The changes of @p diff, each explained (kind, cause, causeAt, scope), grouped into TraceDiff::divergences:
/// changes with the same kind and cause place are one divergence (a constant change goes with the change of a node
/// using it); each gets its module scope (the changes' common one, its class from @p moduleTypes), its stack (from
/// the nodes' Python stacks, recorded traces) and its evidence: the warnings either trace raised at its line or with
/// it on their stack, the values each trace baked where nodes differ in constants (and which input dimension such a
/// number equals), the elements by which tensor constants differ. Both check pipelines end here.
void groupDivergences(TraceDiff& diff, const TraceResult& base, const TraceResult& other,
    const QHash<QString, QString>& moduleTypes = {});

} // namespace jitscope
