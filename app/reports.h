#pragma once

#include "report/checkreport.h"
#include "report/graphlayout.h"
#include "report/interpreters.h"
#include "report/pythonrun.h"
#include "report/selfcheck.h"
#include "report/traceresult.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <functional>

namespace jitscope {

/// One checked function or recorded trace call of a report.
struct ReportEntry
{
    const CheckReport* report = nullptr;
    QString name; ///< the JUnit suite's and the headings' name: "loop_in_traced_fn", "line 43: MyModule.forward"
    QStringList sets; ///< each trace's input set in the SET syntax, trace 1 first
};

/// A check as CI systems and reviewers read it (`jitscope-cli check --format junit|markdown|html`): the built-in
/// check of one function, or each recorded torch.jit.trace call of a file run with `--python`.
struct ReportInput
{
    QString path; ///< the checked file, as the report's locations name it
    QString source; ///< its text, listed with line numbers in the HTML report (empty: an archive, no listing)
    QVector<ReportEntry> entries;
    /// What trace 1's outputs on the check sets are compared with: "the script function" or "the Python code".
    QString reference = QStringLiteral("the script function");
    QString htmlReport; ///< markdown: where the HTML report is, for the pointer at the end (empty: none)
    /// html: lays out a trace graph for its inline SVG (the CLI gives Graphviz's layoutGraph: the renderers read
    /// values only). Unset: the traces are listed without pictures.
    std::function<GraphLayout(const IrGraph&, const LayoutOptions&)> layout;
    /// `check --python`: the interpreter the file ran under, with its torch (html: named under the heading). Empty
    /// path: none (the built-in check).
    PythonInterpreter python;

    /// The report of a single check (the built-in `check`).
    static ReportInput single(const QString& path, const QString& source, const CheckReport& report,
        const QStringList& sets, const QString& htmlReport = {});
};

/// The version of the JSON form of a check (docs/check-json.md): raised when a field changes its meaning or goes.
inline constexpr int checkJsonVersion = 1;

/// One check as `check` prints it in text or JSON, the built-in check's (an archive's or a .py file's function) and
/// each recorded call's of `check --python` alike: the report, and what its route adds.
struct CheckOutput
{
    ReportEntry entry; ///< the report and each trace's input set as the user gave it
    QString title; ///< the text's heading: "FILE FUNCTION", "line 43: torch.jit.trace(MyModule.forward)"
    QString verdict; ///< empty: the report's; a call of `check --python` that raised: "error"
    /// `check --python`: the call the file made, as Python recorded it (its warnings with their categories, PyTorch's
    /// own check, the error it raised). Null for the built-in check.
    const PythonCall* call = nullptr;
    const SelfCheck* selfCheck = nullptr; ///< `check --python --self-check`: JitScope's own trace of the call
    /// `check --python`: the interpreter the file ran under (json: "python"). Null for the built-in check.
    const PythonInterpreter* python = nullptr;
    /// text: the line of the source at a divergence's place (unset or empty: none shown)
    std::function<QString(const SourceLocation&)> sourceLine;
    /// text: what follows a warning's place, the source line with a caret under the column (unset: nothing)
    std::function<QString(const SourceLocation&)> warningExcerpt;
    bool verbose = false; ///< text: each divergence's node rows
};

/// The text of a check: the traces, each diff's divergences (divergencesText()), the outputs (outputsText()), the
/// warnings, the verdict.
QString checkText(const CheckOutput& in);

/// The JSON document of a check (docs/check-json.md): "version", checkReportJson()'s fields with each trace's input
/// set as given, and, for a call of `check --python`, "call" (the call as recorded, without its graphs) and
/// "self_check".
QJsonObject checkJson(const CheckOutput& in);

/// An interpreter as the JSON names it: path, torch, chosen_by.
QJsonObject pythonInterpreterJson(const PythonInterpreter& python);
/// A recorded call as a check's "call" holds it (docs/check-json.md): the call, its traces without their graphs.
QJsonObject pythonCallJson(const PythonCall& call);
/// Warnings as Python raised them: category, message, place, count, the user's line, the stack.
QJsonArray pythonWarningsJson(const QVector<PythonWarning>& warnings);
/// An error with its place: message, file, line, column.
QJsonObject diagnosticJson(const Diagnostic& d);

/// The version of the JSON form of a trace listing (docs/trace-json.md): raised when a field changes its meaning or
/// goes.
inline constexpr int traceJsonVersion = 1;

/// One trace as `trace --format json` lists it, JitScope's own (traceEntry(const TraceResult&, ...)) or one PyTorch
/// recorded (traceEntry(const PythonTrace&)): the one shape of docs/trace-json.md.
struct TraceEntry
{
    QString inputs; ///< the input set in the SET syntax, as given
    bool ok = true;
    Diagnostic error; ///< when not ok
    const IrGraph* graph = nullptr; ///< the recorded graph (null: none)
    QString text; ///< the graph as print(traced.graph) prints it
    QString note; ///< what JitScope's trace notes ("cleanup passes failed: raw recorded graph")
    QString returned; ///< --python: what the trace returned, as `run` prints values
    QJsonArray warnings; ///< warningJson()s (JitScope's) or pythonWarningsJson() (Python's)
};

/// Trace @p index (0-based) of JitScope's own trace on the set @p inputs.
TraceEntry traceEntry(const TraceResult& trace, const QString& inputs, int index);
/// A trace PyTorch recorded.
TraceEntry traceEntry(const PythonTrace& trace);

/// What `trace --format json` lists, by every route (an archive's or a .py file's function, `--python --fn` on
/// input sets, or `--python` alone: the file's own torch.jit.trace calls).
struct TraceListing
{
    QString file;
    QString function; ///< the traced function or method (not for a list of calls)
    QStringList flattened; ///< --python --fn: the tensors of inputs passed flat through an adapter (detectron2's)
    QVector<TraceEntry> traces;
    /// `trace FILE.py --python` without --fn: the file's torch.jit.trace calls, each with its traces in the same
    /// shape; the listing's function and traces are then left out.
    QVector<const PythonCall*> calls;
    bool ofCalls = false;
};

/// The JSON document of a trace listing (docs/trace-json.md): "version", "file", and "function", "flattened" and
/// "traces", or "calls".
QJsonObject traceJson(const TraceListing& listing);

/// The version of the JSON form of a graph (docs/graph-formats.md).
inline constexpr int graphJsonVersion = 1;

/// A graph as `graph --format json` prints it: an archive's or a .py file's function, or each graph of `graph
/// --python` (a recorded call's trace, a scripted function).
struct GraphDocument
{
    QString file;
    QString function; ///< the function or method, a recorded call's target
    QString signature; ///< the function's signature where known ("forward(self, x: Tensor) -> Tensor")
    QString title; ///< "line 28: torch.jit.trace(Stack.forward)", "torch.jit.script(f)", the function
    QString text; ///< as print(fn.graph) prints it
    const IrGraph* graph = nullptr;
};

/// The JSON document of a graph (docs/graph-formats.md): "version", the fields above, "graph" (IrGraph::toJson()).
QJsonObject graphJson(const GraphDocument& document);

/// The formats of `check --format`, the built-in check's and `check --python`'s.
QStringList checkReportFormats();

/// A check's report in @p format (checkReportFormats()): what `check` and `check --python` print. text and json come
/// from @p outputs (one per checked function or recorded call: the built-in check's one is printed as one text and
/// one JSON document, several as texts each followed by an empty line and as a JSON array, see @p several); junit,
/// markdown and html from @p in. The one dispatch of both routes.
QByteArray checkReportData(
    const QString& format, const ReportInput& in, const QVector<CheckOutput>& outputs, bool several);

/// JUnit XML: one <testsuite> per entry, one <testcase> per input set, a <failure> for each set that diverged or
/// whose outputs mismatch (message: the cause; text: the divergences with node and file:line), the warnings as
/// <system-out>.
QByteArray junitReport(const ReportInput& in);

/// A short summary for a pull-request comment: per entry the verdict, a table of divergences with causes and
/// lines, warnings; the pointer to the HTML report at the end.
QByteArray markdownReport(const ReportInput& in);

/// One self-contained HTML page (no scripts, nothing from the network): per entry the verdict, each trace graph as
/// inline SVG with inserted / deleted / changed nodes coloured as in the window, the divergences with their causes
/// linked to the numbered source, the warnings and the output comparison; the source once. Printable.
QByteArray htmlReport(const ReportInput& in);

/// A diff's divergences as `check` prints them in text: each in a few lines (kind and message, module, place with
/// its source line from @p sourceLine, the stack, the evidence, how many nodes it covers) and, @p verbose, its node
/// rows. The built-in check and `check --python` both print this.
QString divergencesText(const CheckReport& r, const TraceDiff& d,
    const std::function<QString(const SourceLocation&)>& sourceLine, bool verbose);

/// Where trace 1 failed on the input set of trace @p set (0-based, >= 1), as text: the node, the error, its
/// place and each operand with where it came from; empty when it did not fail or the node is not known.
QString traceFailureText(const CheckReport& r, int set);

/// What the check ran on each other set, as `check` prints it under "outputs": trace 1 against @p reference (the
/// script function, the Python code), or a traced archive's own graph (its outputs, and the sizes of set 1 it
/// computes with there).
QString outputsText(const CheckReport& r, const QString& reference = QStringLiteral("the script function"));

/// A recorded call's torch.export as `check --python --export` prints it: the status, each finding (kind, the user's
/// line and the library's, the stack, the expression, the suggested fix), draft_export's issues, the ranges and
/// specializations at their lines, and the table of what the trace and the export did on each set. Empty when the
/// export was not asked for.
QString exportText(const ExportReport& e, const std::function<QString(const SourceLocation&)>& sourceLine);

/// A traced archive's run on set @p k (0-based, k >= 1) in a line: "ran: float32[100, 4], ..." or its error.
QString archiveRunText(const CheckReport& r, int k);

} // namespace jitscope
