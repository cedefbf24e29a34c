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

/// What a check observed, before anything is diffed or judged: the input of buildCheckReport(). Its two sources
/// turn what they ran into it and nothing more: checkFunction() (JitScope's own traces, trace 1 run on each other set
/// against the script function) and checkRecordedCall() (the traces PyTorch recorded, the outputs its check compared).
struct CheckObservations
{
    QString file; ///< the checked file (a recorded call's: the file of its torch.jit.trace line)
    QString function;
    IrGraph script; ///< the script graph the traces came from, or empty
    QHash<QString, QString> moduleTypes; ///< the class of each submodule by path
    bool tracedArchive = false; ///< see CheckReport::tracedArchive
    /// The traces in set order, each with its own warnings (TraceWarning::traceIndex set, at their nodes).
    QVector<TraceResult> traces;
    /// Trace 1 run on set k (k >= 1) at index k - 1, as observed: ran and compared, or its error; the failing node
    /// (TraceFailure::node) where known, the rest of the failure is described here; where the values part ways.
    QVector<OutputCheck> outputs;
    /// A traced archive's set-1 sizes baked in, as they matter on set k (bakedInputSizes()), at index k - 1.
    QVector<QVector<TraceWarning>> bakedSizes;
    /// What trace 1's values are compared with: "the script function", "Python".
    QString otherRun;
    /// Where the check's own warnings stand when no node says better: the file, or the torch.jit.trace line.
    SourceLocation callLocation;
    /// The traces are PyTorch's (a recorded call): its own warnings are among theirs, so the check's sentences do not
    /// repeat its words.
    bool recordedByPyTorch = false;
    QStringList checkWords; ///< by trace: PyTorch's own "Output nr ..." words for that set's value divergence
    QString source; ///< the user's file's text, for the explainer's source rules; empty to leave them out
    QVector<PythonStateChange> stateChanges; ///< the submodules' attributes the call changed
    bool pytorchCheckFailed = false; ///< PyTorch's own check failed (a recorded call's)
    QString pytorchCheckMessage;
    Diagnostic error; ///< why there is no trace 1, where the traces do not say
    bool everyPair = false; ///< CheckOptions::everyPair: fill CheckReport::pairDiffs too
    /// A recorded call's torch.export (CheckReport::exported), its table's trace column filled by the builder.
    ExportReport exported;
};

/// The one builder of a check's report, whichever traces it checks: every trace diffed against trace 1 (mangled class
/// names plain) and explained (explainChanges()), the value divergence of a set whose outputs differ (left out where
/// the graphs differ and its cause is a branch: the graph's divergence says it), each failure of trace 1 described
/// (describeTraceFailure()), the check's own warnings (a trace that failed, baked sizes, outputs that differ or a run
/// that failed), each trace's status and the verdict, PyTorch's own failed check where the traces show nothing, and
/// on request every other pair of traces diffed and explained (CheckReport::pairDiffs).
CheckReport buildCheckReport(CheckObservations observations);

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
