// check's text: the traces, each diff's divergences, the outputs, the warnings and the verdict (checkText()), for
// the built-in check and check --python alike.

#include "reports.h"
#include "reports_p.h"

#include "report/tracewarning.h"

#include <QFileInfo>

#include <algorithm>

namespace jitscope {

QString divergencesText(const CheckReport& r, const TraceDiff& d,
    const std::function<QString(const SourceLocation&)>& sourceLine, bool verbose)
{
    QString s;
    const IrGraph& base = r.traces[d.base].graph;
    const IrGraph& other = r.traces[d.other].graph;
    for (const Divergence& v : d.divergences) {
        s += QStringLiteral("  [%1] %2\n").arg(divergenceKindName(v.kind), v.message);
        if (!v.scope.isEmpty())
            s += QStringLiteral("    in %1%2\n")
                     .arg(v.scope, v.scopeType.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(v.scopeType));
        if (v.location.isValid()) {
            s += QStringLiteral("    --> %1:%2\n").arg(v.location.file).arg(v.location.line);
            const QString line = sourceLine ? sourceLine(v.location) : QString();
            if (!line.isEmpty())
                s += QStringLiteral("    %1 | %2\n").arg(v.location.line).arg(line);
        }
        if (v.stack.size() > 1) {
            QStringList frames;
            for (const SourceLocation& f : v.stack.mid(1))
                frames << QStringLiteral("%1:%2").arg(QFileInfo(f.file).fileName()).arg(f.line);
            s += QStringLiteral("    called from %1\n").arg(frames.join(QStringLiteral(" < ")));
        }
        for (const QString& e : v.evidence)
            s += QStringLiteral("    evidence: %1\n").arg(e);
        if (v.kind == DivergenceKind::Value) {
            // One node of trace 1, the same in both graphs: the first whose value differs.
            if (!v.baseNodes.isEmpty())
                s += QStringLiteral("    node: %1\n").arg(base.nodeLine(v.baseNodes.first()));
            continue;
        }
        s += QStringLiteral("    nodes: %1 in trace 1, %2 in trace %3\n")
                 .arg(v.baseNodes.size())
                 .arg(v.otherNodes.size())
                 .arg(d.other + 1);
        if (!verbose)
            continue;
        for (int i : v.changes) {
            const NodeChange& c = d.changes[i];
            if (c.baseNode >= 0)
                s += QStringLiteral("    - %1\n").arg(base.nodeLine(c.baseNode));
            if (c.otherNode >= 0)
                s += QStringLiteral("    + %1\n").arg(other.nodeLine(c.otherNode));
        }
    }
    return s;
}

QString archiveRunText(const CheckReport& r, int k)
{
    const OutputCheck& o = r.outputs.at(k - 1);
    if (!o.ran)
        return o.error;
    QStringList outputs;
    for (const ValueSummary& v : o.outputs)
        outputs << v.text;
    QString text = QStringLiteral("ran: %1").arg(outputs.join(QStringLiteral(", ")));
    for (const QString& baked : o.bakedSizes)
        text += QStringLiteral("; %1").arg(baked);
    return text;
}

QString outputsText(const CheckReport& r, const QString& reference)
{
    if (r.outputs.isEmpty())
        return {};
    QString s;
    if (r.tracedArchive) {
        s = QStringLiteral("\noutputs (the traced archive's own graph run on each set; no Python to compare with):\n");
        QVector<ValueSummary> values = r.traces.value(0).outputs;
        if (values.size() == 1 && values[0].kind == QLatin1String("tuple"))
            values = values[0].items;
        QStringList first;
        for (const ValueSummary& v : values)
            first << v.text;
        s += QStringLiteral("  set 1: ran: %1\n").arg(first.join(QStringLiteral(", ")));
    } else {
        s = QStringLiteral("\noutputs (trace 1 run on each check set vs %1):\n").arg(reference);
    }
    for (int k = 0; k < r.outputs.size(); ++k) {
        const OutputCheck& o = r.outputs[k];
        s += QStringLiteral("  set %1: ").arg(k + 2);
        if (r.tracedArchive) {
            QStringList outputs;
            for (const ValueSummary& v : o.outputs)
                outputs << v.text;
            s += o.ran ? QStringLiteral("ran: %1\n").arg(outputs.join(QStringLiteral(", ")))
                       : o.error + QLatin1Char('\n') + traceFailureText(r, k + 1);
            for (const QString& baked : o.bakedSizes)
                s += QStringLiteral("    %1\n").arg(baked);
        } else if (!o.ran) {
            s += (o.error.isEmpty() ? QStringLiteral("not compared") : o.error) + QLatin1Char('\n')
                + traceFailureText(r, k + 1);
        } else if (o.comparison.equal) {
            s += QStringLiteral("match (%1 elements)\n").arg(o.comparison.total);
        } else {
            s += o.comparison.message + QLatin1Char('\n');
        }
    }
    return s;
}

QString traceFailureText(const CheckReport& r, int set)
{
    if (set < 1 || set - 1 >= r.outputs.size() || !r.outputs[set - 1].failure.isValid() || r.traces.isEmpty())
        return {};
    const TraceFailure& f = r.outputs[set - 1].failure;
    const IrGraph& g = r.traces[0].graph;
    QStringList outputs;
    for (int v : g.node(f.node).outputs)
        outputs << QLatin1Char('%') + g.value(v).name;
    QString s = QStringLiteral("  %1 fails on set %2 at %3 = %4\n")
                    .arg(r.tracedArchive ? QStringLiteral("the traced archive") : QStringLiteral("trace 1"))
                    .arg(set + 1)
                    .arg(outputs.join(QStringLiteral(", ")), f.kind);
    if (!f.error.isEmpty())
        s += QStringLiteral("    error: %1\n").arg(f.error);
    if (f.location.isValid())
        s += QStringLiteral("    --> %1:%2%3\n")
                 .arg(f.location.file)
                 .arg(f.location.line)
                 .arg(f.scope.isEmpty() ? QString() : QStringLiteral(" (in %1)").arg(f.scope));
    for (const QString& op : f.operands)
        s += QStringLiteral("    operand %1\n").arg(op);
    return s;
}

namespace {

/// A call's warnings as Python raised them, each once (the same message at the same line in several traces).
QString pythonWarningsText(const PythonCall& c)
{
    QVector<PythonWarning> warnings;
    for (const PythonTrace& t : c.traces)
        for (const PythonWarning& w : t.warnings)
            if (std::none_of(warnings.cbegin(), warnings.cend(), [&](const PythonWarning& o) {
                    return o.message == w.message && o.location.line == w.location.line;
                }))
                warnings << w;
    if (warnings.isEmpty())
        return {};
    QString s = QStringLiteral("\nwarnings:\n");
    for (const PythonWarning& w : std::as_const(warnings)) {
        QStringList notes;
        if (w.count > 1)
            notes << QStringLiteral("%1 times").arg(w.count);
        if (w.hidden)
            notes << QStringLiteral("hidden by PyTorch's warning filter");
        s += QStringLiteral("  [%1] %2%3\n")
                 .arg(w.category, w.message.section(QLatin1Char('\n'), 0, 0),
                     notes.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(notes.join(QStringLiteral(", "))));
        s += QStringLiteral("    --> %1:%2\n").arg(w.location.file).arg(w.location.line);
        if (w.userLocation.isValid())
            s += QStringLiteral("    from %1:%2\n").arg(w.userLocation.file).arg(w.userLocation.line);
    }
    return s;
}

/// The report's warnings with their places and fixes.
QString traceWarningsText(const CheckOutput& in)
{
    const CheckReport& r = *in.entry.report;
    if (r.warnings.isEmpty())
        return {};
    QString s = QStringLiteral("\nwarnings:\n");
    for (const TraceWarning& w : r.warnings) {
        s += QStringLiteral("  [%1] trace %2: %3\n").arg(warningKindName(w.kind)).arg(w.traceIndex + 1).arg(w.message);
        if (w.location.isValid())
            s += QStringLiteral("    --> %1\n").arg(w.location.toString())
                + (in.warningExcerpt ? in.warningExcerpt(w.location) : QString());
        if (!w.suggestion.isEmpty())
            s += QStringLiteral("    fix: %1\n").arg(w.suggestion);
    }
    return s;
}
} // namespace

namespace {

QString exportFindingText(const ExportFinding& f, const std::function<QString(const SourceLocation&)>& sourceLine)
{
    QString s = QStringLiteral("  [%1] %2\n").arg(f.kind, f.message);
    if (f.userLocation.isValid()) {
        s += QStringLiteral("    --> %1:%2\n").arg(f.userLocation.file).arg(f.userLocation.line);
        const QString line = !f.userText.isEmpty() ? f.userText : sourceLine ? sourceLine(f.userLocation) : QString();
        if (!line.isEmpty())
            s += QStringLiteral("    %1 | %2\n").arg(f.userLocation.line).arg(line);
    }
    if (f.libraryLocation.isValid())
        s += QStringLiteral("    raised in %1:%2 | %3\n")
                 .arg(f.libraryLocation.file)
                 .arg(f.libraryLocation.line)
                 .arg(f.libraryText);
    if (f.stack.size() > 1) {
        QStringList frames;
        for (int k = 1; k < f.stack.size(); ++k)
            frames << QStringLiteral("%1:%2%3")
                          .arg(QFileInfo(f.stack[k].file).fileName())
                          .arg(f.stack[k].line)
                          .arg(f.stackFunctions.value(k).isEmpty() ? QString()
                                                                   : QStringLiteral(" (%1)").arg(f.stackFunctions[k]));
        s += QStringLiteral("    called from %1\n").arg(frames.join(QStringLiteral(" < ")));
    }
    if (!f.expression.isEmpty())
        s += QStringLiteral("    expression: %1\n").arg(f.expression);
    if (!f.guard.isEmpty() && f.guard != f.expression)
        s += QStringLiteral("    guard: %1\n").arg(f.guard);
    if (!f.suggestedFix.isEmpty())
        s += QStringLiteral("    suggested fix: %1\n")
                 .arg(f.suggestedFix.split(QLatin1Char('\n')).join(QStringLiteral("\n                   ")));
    return s;
}

} // namespace

QString exportText(const ExportReport& e, const std::function<QString(const SourceLocation&)>& sourceLine)
{
    if (!e.requested)
        return {};
    QString s = QStringLiteral("\nexport (torch.export, torch %1").arg(e.torchVersion);
    if (!e.dynamic.isEmpty())
        s += QStringLiteral(", dynamic %1 by %2").arg(e.dynamic.join(QStringLiteral("; ")), e.dynamicBy);
    s += QStringLiteral("): %1\n").arg(e.status);
    if (!e.reason.isEmpty())
        s += QStringLiteral("  %1\n").arg(e.reason);
    for (const ExportFinding& f : e.findings)
        s += exportFindingText(f, sourceLine);
    if (!e.draft.isEmpty()) {
        s += QStringLiteral("  draft_export: %1 issue(s)\n").arg(e.draft.size());
        for (const ExportFinding& f : e.draft)
            s += exportFindingText(f, sourceLine);
    } else if (!e.draftError.isEmpty()) {
        s += QStringLiteral("  draft_export raised: %1\n").arg(e.draftError);
    }
    for (const ExportFact& f : e.ranges)
        s += QStringLiteral("  range: %1%2\n")
                 .arg(f.text,
                     f.location.isValid()
                         ? QStringLiteral(" (first guarded at %1:%2)").arg(f.location.file).arg(f.location.line)
                         : QString());
    for (const ExportFact& f : e.specializations)
        s += QStringLiteral("  specialized: %1%2\n")
                 .arg(f.text,
                     f.location.isValid()
                         ? QStringLiteral(" at %1:%2 | %3").arg(f.location.file).arg(f.location.line).arg(f.sourceText)
                         : QString());
    if (!e.sets.isEmpty()) {
        s += QStringLiteral("  set  trace           export\n");
        for (const ExportSetRow& row : e.sets) {
            const QString program = reports::exportResult(row);
            s += QStringLiteral("  %1  %2  %3%4\n")
                     .arg(row.set, 3)
                     .arg(row.trace, -14)
                     .arg(program)
                     .arg(row.message.isEmpty() ? QString() : QStringLiteral(": ") + row.message);
        }
    }
    return s;
}

QString checkText(const CheckOutput& in)
{
    const CheckReport& r = *in.entry.report;
    const PythonCall* call = in.call;
    QString s = QStringLiteral("check %1: %2 input set(s)\n").arg(in.title).arg(r.traces.size());
    for (int k = 0; k < r.traces.size(); ++k) {
        const TraceResult& t = r.traces[k];
        s += QStringLiteral("  trace %1: %2").arg(k + 1).arg(in.entry.sets.value(k));
        if (call && !t.note.isEmpty()) // a recorded trace on the example inputs again
            s += QStringLiteral("  (%1)").arg(t.note);
        s += t.ok ? QStringLiteral("  (%1 nodes)\n").arg(t.graph.nodes.size())
                  : QStringLiteral("  FAILED: %1\n").arg(t.error.message);
    }
    for (const TraceDiff& d : r.diffs)
        s += QStringLiteral("\ntrace %1 vs trace 1: %2\n")
                 .arg(d.other + 1)
                 .arg(d.equal && d.divergences.isEmpty() ? QStringLiteral("same graph")
                         : d.equal
                         ? QStringLiteral("same graph, other values: %1 divergence(s)").arg(d.divergences.size())
                         : QStringLiteral("%1 divergence(s), %2 node difference(s)")
                               .arg(d.divergences.size())
                               .arg(d.changes.size()))
            + divergencesText(r, d, in.sourceLine, in.verbose);
    s += outputsText(r, call ? QStringLiteral("the Python code") : QStringLiteral("the script function"));
    s += call ? pythonWarningsText(*call) : traceWarningsText(in);
    s += exportText(r.exported, in.sourceLine);
    // The conclusion: PyTorch's own check and the error the call raised, the verdict, the self-check.
    s += QLatin1Char('\n');
    if (call && call->checked)
        s += QStringLiteral("PyTorch's check: %1\n")
                 .arg(call->checkPassed ? QStringLiteral("passed")
                                        : call->checkMessage.section(QLatin1Char('\n'), 0, 1).simplified());
    if (call && call->raised())
        s += QStringLiteral("the call raised: %1\n").arg(call->error.toString());
    if (r.exported.requested)
        s += QStringLiteral("export: %1\n").arg(r.exported.summary());
    s += QStringLiteral("verdict: %1\n").arg(in.verdict.isEmpty() ? r.verdict() : in.verdict);
    if (in.selfCheck)
        s += QStringLiteral("self-check: %1\n").arg(selfCheckText(*in.selfCheck));
    return s;
}

} // namespace jitscope
