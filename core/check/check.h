#pragma once

#include "diff/tracediff.h"
#include "report/checkreport.h"
#include "report/pythonrun.h"
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
/// diffed and explained as diffs are (explainChanges(), with the report's script graph and module types, and for a
/// recorded call's traces @p source, the text of the user's file CheckReport::file).
void completePairDiffs(CheckReport& report, const QString& source = {});

/// What the explainer reads besides the two traces.
struct ExplainContext
{
    const IrGraph* script = nullptr; ///< the script graph the traces came from (its loops and branches), or null
    QHash<QString, QString> moduleTypes; ///< the class of each submodule by path, for the divergences' scopes
    QString file; ///< the user's file, which a recorded trace's Python stacks name
    QString source; ///< its text (to name the loop or branch a line is in); empty to leave that out
    bool repeat = false; ///< the other trace is the example inputs traced again (PyTorch's check without inputs)
    /// Another trace of the example inputs differs from trace 1: the model changed between the calls.
    bool stateChanged = false;
    /// The submodules' attributes the call changed (a recorded call's), as evidence of state and branch divergences.
    QVector<PythonStateChange> stateChanges;
};

/// The one explainer of a diff, for every check (the executor's traces of an archive or .py function, and traces
/// PyTorch recorded from Python): fills NodeChange::cause, kind, causeAt, scope and location for every change, then
/// groups them (groupDivergences) with their evidence. Its rules, first match wins:
/// - script rules, for nodes that came from a script graph (IrNode::originNode): a loop that ran another number of
///   times, a branch taken differently (followed to the if that decided it), a value baked as a constant;
/// - source rules, for recorded traces (their nodes' Python stacks, the source lines and the tracer's warnings): a
///   line run another number of times in a loop, a branch frozen by a tensor-to-bool conversion or by a plain Python
///   value, a number baked by a conversion or len(), where the node's code path left what both traces ran;
/// - then, for a change no rule explains: the cause of a changed node it takes a value from, the model's state (the
///   same inputs traced again differ), or "recorded different operations".
void explainChanges(TraceDiff& diff, const TraceResult& base, const TraceResult& other, const ExplainContext& context);

/// @p g with the mangled class names PyTorch gives a class compiled again (`___torch_mangle_3.Linear`) plain: the
/// same module either way, so they must not make two traces differ.
IrGraph withoutMangling(IrGraph g);

/// The constants node @p node of @p g takes, by input position (empty where an input is not a constant; a constant's
/// own value for a constant), as compared: IrAttribute::data where set (a tensor's values), else as libtorch prints.
QStringList constantArguments(const IrGraph& g, int node);

/// The divergence of kind value for where trace 1 and @p otherRun ("Python", "the script function") part ways on set
/// @p set (0-based): at trace 1's node, or the Python call's place and the stack from it down to the user's line;
/// evidence: both values, the operands, and @p checkWords (PyTorch's own "Output nr ..." message) when given.
Divergence valueDivergence(const ValueDivergence& v, const IrGraph& first, const QHash<QString, QString>& moduleTypes,
    int set, const QString& otherRun, const QString& checkWords = {});

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
