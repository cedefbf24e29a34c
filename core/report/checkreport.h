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

/// One issue of a torch.export of a recorded call: the one that stopped torch.export.export, or one of
/// draft_export's. Like a divergence: its kind, where (the user's line, the library's, the stack between), the
/// expression in the source's words and export's own suggested fix.
struct ExportFinding
{
    /// "data-dependent" (a branch or size on data), "constraint" (a dimension that cannot be dynamic), "unsupported"
    /// (Python or an operator export does not support), "other"
    QString kind;
    QString type; ///< the exception's class ("GuardOnDataDependentSymNode"), or draft_export's failure type
    QString message; ///< in a line: "x.size(0) cannot be dynamic: the code specialized it to 3"
    QString expression; ///< in the source's words: "boxes.numel() == 0", or the dimension "x.size(0)"
    QString guard; ///< as export states it: "Eq(4*u1, 0)", "x.size(0) == 3 (s0)"
    SourceLocation userLocation; ///< the innermost frame in the user's own files, else the torch.jit.trace line
    QString userText; ///< its source line
    SourceLocation libraryLocation; ///< where it happened outside torch when not the user's code (invalid: none)
    QString libraryText;
    QVector<SourceLocation> stack; ///< the frames outside torch, innermost first
    QStringList stackFunctions; ///< the function of each frame of stack
    QString suggestedFix; ///< export's own: its dynamic_shapes suggestions, the torch._check it asks for
};

/// A fact of an exported program at its line: a dynamic dimension's range, or a size export made a constant.
struct ExportFact
{
    QString text; ///< "x.size(0) (s0) in 2..inf", "h specialized to 224"
    QString name; ///< the dimension in the user's words: "x.size(0)"
    QString symbol; ///< export's: "s0"
    SourceLocation location; ///< the line of the first guard on it, or where it was specialized (invalid: unknown)
    QString sourceText; ///< that line's source
};

/// One input set of a call: what its trace and its exported program did there.
struct ExportSetRow
{
    int set = 0; ///< 1: the example inputs
    /// The trace: "reference" (trace 1, set 1), "passes", "graphs differ", "outputs differ", "fails"
    QString trace;
    QString status; ///< the exported program: "passes", "guard" (rejects the set), "outputs-differ", "error"
    QString message; ///< the guard's words, what differs or the error
};

/// A recorded call exported with torch.export beside its trace (`check --python --export`): why it failed, or the
/// program checked on every input set. Absent (requested false) when the export was not asked for.
struct ExportReport
{
    bool requested = false; ///< the bridge was asked to export (the record has the call's export)
    QString status; ///< "exported", "failed", "skipped" (this torch cannot), "error" (the bridge's own failure)
    QString torchVersion;
    QString reason; ///< skipped or error: why ("torch.export needs torch 2.5 or later; ...")
    QStringList dynamic; ///< the dimensions made dynamic: "x: 0, 1, 2"
    QString dynamicBy; ///< "static", "AdditionalInputs", "Dim.AUTO"
    QVector<ExportFinding> findings; ///< failed: the issue that stopped the export
    QVector<ExportFinding> draft; ///< failed: every issue draft_export found (where torch has it)
    QString draftError; ///< draft_export itself raised
    QVector<ExportFact> ranges;
    QVector<ExportFact> specializations;
    QVector<ExportSetRow> sets; ///< exported: one row per input set (the trace column filled by the builder)
    QString program; ///< torch.export.save of the program, relative to the run's folder ("export_0.pt2")
    QString programError;
    /// The program's graph (readExportedProgram() of program, by the engine that checked the call: the window's
    /// Export tab), and trace 1 against it (diffTraceAgainstExport(): base 0, other -1), what Compare shows.
    IrGraph graph;
    TraceDiff traceDiff;
    double seconds = 0; ///< what the export and its checks took

    /// "the export passes all 3 sets", "the export rejects set 3: ...", "export failed: ...": one glance.
    QString summary() const;
};

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
    /// The call exported with torch.export too (a recorded call with `--export`): absent otherwise.
    ExportReport exported;

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
/// The JSON form of an export (docs/check-json.md, "export"): what `check --python --export` adds.
QJsonObject exportReportJson(const ExportReport& report);
/// The JSON form of a warning (CLI `check` and `trace`).
QJsonObject warningJson(const TraceWarning& warning);

} // namespace jitscope
