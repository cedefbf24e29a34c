#pragma once

// A check of traces across input sets, as a value: what every view of a check reads (the window, the CLI's reports).

#include "report/divergence.h"
#include "report/traceresult.h"

#include <QHash>
#include <QJsonObject>
#include <QVector>

#include <optional>

namespace jitscope {

struct CheckOptions
{
    double rtol = 1e-5; ///< as torch.jit.trace's check_tolerance
    double atol = 1e-5;
    ExecOptions exec;
    /// checkModel(): check the function with its calls inlined. Unset: as the window opens the file (an archive
    /// grouped by module, so inlined; a .py file as written).
    std::optional<bool> inlineCalls;
    /// Diff, explain and group every other pair of traces too (CheckReport::pairDiffs): for a reader that compares
    /// any two (the window's Compare). The CLI's reports read only trace 1 against each other.
    bool everyPair = false;
    /// On a set whose outputs differ, run trace 1 and the script function again with every node's values seen, to
    /// name where they part ways (OutputCheck::values); off: `check --no-values`.
    bool compareValues = true;
};

/// Outputs compared as torch.testing.assert_close does (rtol/atol).
struct OutputComparison
{
    bool equal = true;
    QString message; ///< what differs, when not equal
    qint64 mismatched = 0;
    qint64 total = 0;
    double greatestAbsDiff = 0;
    double greatestRelDiff = 0;
    QString where; ///< index of the greatest absolute difference, e.g. "output 0 [1, 2]"
};

/// Where trace 1 failed when run on another input set: the failing node of trace 1's graph, its place, and its
/// operands, each with where it came from (a graph input, a constant trace 1 baked in: one of a divergence's).
struct TraceFailure
{
    int node = -1; ///< node id in trace 1's graph, -1 when not known
    QString kind;
    SourceLocation location;
    QString scope; ///< its module path
    QVector<SourceLocation> stack; ///< recorded Python traces: its Python stack, innermost first
    QString error; ///< the error's own line ("The size of tensor a (3) must match ...")
    /// One per operand: "%hx : Float(1, 3, 6) = aten::zeros at rnn.py:747 with the constant 3 trace 1 baked in
    /// (divergence 1)"; the value on this set where the run saw it.
    QStringList operands;

    bool isValid() const { return node >= 0; }
};

/// Where trace 1 and the code it was traced from part ways on a check input set whose outputs differ: the first node
/// of trace 1 whose value the other run never computes while its operands agree, both values, and the cause by
/// kind. The other run is the Python code (a recorded torch.jit.trace call: the bridge's jitscope_bridge_values.py)
/// or the script function (JitScope's own check: both run by the executor, matched node by node by provenance).
struct ValueDivergence
{
    bool present = false;
    QString error; ///< why the values could not be compared (the analysis raised)
    int node = -1; ///< trace 1's node (its IrGraph id), -1 when none (a random op seen only in the other run)
    QString op; ///< the node's kind ("aten::upsample_bilinear2d")
    QString module; ///< its module path ("model.transform")
    /// "size" (a number computed with tensor arithmetic in the trace, with floats in the other run), "constant"
    /// (baked from the traced input), "nondeterministic" (the code run twice differs too), "branch" (code the
    /// other run does not run on this set: a fast path for tracing, a frozen condition), "op" (same operands, other
    /// values)
    QString cause;
    QString message;
    QString traceValue; ///< "float32[1x3x211x640] mean=..."
    QString otherValue; ///< the other run's value at the node, empty when none
    QString otherOp; ///< what made it there ("interpolate", "aten::upsample_linear1d")
    SourceLocation otherAt; ///< where the code made it (or the random call)
    QStringList operands; ///< "operand 1 (number): [211, 640] computed by aten::size, aten::mul, ... (float32)"
    QVector<ValueRow> operandRows; ///< the operands both runs have a value for, side by side ("operand 1")
    int randomNode = -1; ///< the random op's node in trace 1, when nondeterministic
};

/// Trace 1 and the script function run on one input set, as torch.jit.trace's check does (inputs created once
/// from the seed and cloned for each run, the random state carried from one run to the next), and their outputs
/// compared.
struct OutputCheck
{
    bool ran = false; ///< both ran; otherwise `error` says which failed and why
    QString error;
    OutputComparison comparison;
    TraceFailure failure; ///< trace 1 failed on this set: where
    /// A traced archive (CheckReport::tracedArchive): what its own graph gave on this set, nothing compared, and
    /// the sizes of set 1 it computes with here (the messages of bakedInputSizes(), also in the warnings).
    QVector<ValueSummary> outputs;
    QStringList bakedSizes;
    /// The outputs differ: where trace 1 and the script function part ways on this set (compared node by node).
    ValueDivergence values;
};

/// How one trace of a check compares with trace 1.
enum class TraceStatus {
    Reference, ///< trace 1: the others are compared with it
    Same, ///< the same graph as trace 1, and trace 1 computes what the script function computes on this set
    Diverged, ///< records a different graph than trace 1
    WrongOutput, ///< the same graph as trace 1, but trace 1 computes something else on this set
    Failed, ///< tracing failed on this set
};

/// How bad a status is: none (Reference, Same), Warning (Diverged) or Error (WrongOutput, Failed).
std::optional<WarningSeverity> traceSeverity(TraceStatus status);
/// "same graph as trace 1", "records a different graph than trace 1", ...
QString traceStatusText(TraceStatus status);

/// torch.jit.trace with check_inputs, made explicit: one trace per input set, every trace diffed against the
/// first, the first trace run on every other set against the script function, and every divergence explained.
struct CheckReport
{
    bool ok = false; ///< false: a fatal error (the first set could not be traced)
    Diagnostic error;
    QString file;
    QString function;
    IrGraph script; ///< the script graph the traces came from
    QVector<TraceResult> traces; ///< one per input set, in order
    QVector<TraceDiff> diffs; ///< trace k (k >= 1) against trace 0
    /// Every other pair the window can compare: trace i against trace j (1 <= i < j), diffed, explained and grouped
    /// by the engine like diffs (buildCheckReport(), when CheckOptions::everyPair asks, and for a Python run's
    /// recorded calls the window checks), so that a reader never diffs. Not in the JSON form.
    QVector<TraceDiff> pairDiffs;
    QVector<OutputCheck> outputs; ///< trace 0 run on set k (k >= 1) against the script function
    QVector<TraceWarning> warnings; ///< from every trace (traceIndex set) and from the checks
    QVector<TraceStatus> statuses; ///< one per trace
    bool consistent = true;
    /// The class of each submodule by path ("rpn.head" -> "RPNHead") for the traces' module clusters: a recorded
    /// Python call's, or an archive's (submoduleTypes()); empty for a .py file's functions.
    QHash<QString, QString> moduleTypes;
    /// The function is a trace (an archive saved from torch.jit.trace): no Python to compare it with, so each
    /// other set runs the archive's own graph (OutputCheck::outputs; trace 1's outputs are set 1's), and a size
    /// of set 1 that it bakes in is a BakedConstant warning of that set (bakedInputSizes()).
    bool tracedArchive = false;

    QString verdict() const { return consistent ? QStringLiteral("consistent") : QStringLiteral("diverged"); }
    TraceStatus status(int trace) const { return statuses.value(trace, TraceStatus::Failed); }
    /// The traces (0-based) whose status is not Reference or Same.
    QVector<int> differingTraces() const;
    /// The diff of trace @p base against trace @p other (0-based) from diffs or pairDiffs, as recorded (either
    /// order); null when the report has none.
    const TraceDiff* diffBetween(int base, int other) const;
};

/// The JSON form of a report, as `jitscope-cli check --format json` prints it.
QJsonObject checkReportJson(const CheckReport& report);
/// The JSON form of a warning (CLI `check` and `trace`).
QJsonObject warningJson(const TraceWarning& warning);

} // namespace jitscope
