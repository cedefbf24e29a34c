#include "report/checkreport.h"

#include <QJsonArray>

namespace jitscope {

std::optional<WarningSeverity> traceSeverity(TraceStatus status)
{
    switch (status) {
    case TraceStatus::Reference:
    case TraceStatus::Same:
        return std::nullopt;
    case TraceStatus::Diverged:
        return WarningSeverity::Warning;
    case TraceStatus::WrongOutput:
    case TraceStatus::Failed:
        return WarningSeverity::Error;
    }
    return std::nullopt;
}

QString traceStatusText(TraceStatus status)
{
    switch (status) {
    case TraceStatus::Reference:
        return QStringLiteral("traced: the other sets are compared with this trace");
    case TraceStatus::Same:
        return QStringLiteral("same graph as trace 1");
    case TraceStatus::Diverged:
        return QStringLiteral("records a different graph than trace 1");
    case TraceStatus::WrongOutput:
        return QStringLiteral("same graph as trace 1, but trace 1 computes something else on this set");
    case TraceStatus::Failed:
        return QStringLiteral("tracing failed");
    }
    return {};
}

QVector<int> CheckReport::differingTraces() const
{
    QVector<int> traces;
    for (int k = 0; k < statuses.size(); ++k)
        if (statuses[k] != TraceStatus::Reference && statuses[k] != TraceStatus::Same)
            traces.push_back(k);
    return traces;
}

const TraceDiff* CheckReport::diffBetween(int base, int other) const
{
    for (const QVector<TraceDiff>* list : { &diffs, &pairDiffs })
        for (const TraceDiff& d : *list)
            if ((d.base == base && d.other == other) || (d.base == other && d.other == base))
                return &d;
    return nullptr;
}

QJsonObject warningJson(const TraceWarning& w)
{
    return QJsonObject { { QStringLiteral("kind"), warningKindName(w.kind) }, { QStringLiteral("message"), w.message },
        { QStringLiteral("trace"), w.traceIndex }, { QStringLiteral("node"), w.traceNode },
        { QStringLiteral("script_node"), w.scriptNode }, { QStringLiteral("file"), w.location.file },
        { QStringLiteral("line"), w.location.line }, { QStringLiteral("column"), w.location.column },
        { QStringLiteral("suggestion"), w.suggestion } };
}

QJsonObject checkReportJson(const CheckReport& report)
{
    QJsonArray traces, diffs, outputs, warnings;
    for (int i = 0; i < report.traces.size(); ++i) {
        const TraceResult& t = report.traces[i];
        QJsonObject o { { QStringLiteral("inputs"), t.inputs.toString() }, { QStringLiteral("ok"), t.ok } };
        if (t.ok)
            o.insert(QStringLiteral("graph"), t.graph.toText());
        else
            o.insert(QStringLiteral("error"), t.error.message);
        traces.append(o);
    }
    for (const TraceDiff& d : report.diffs) {
        QJsonArray changes;
        for (const NodeChange& c : d.changes) {
            const TraceResult& base = report.traces[d.base];
            const TraceResult& other = report.traces[d.other];
            changes.append(QJsonObject { { QStringLiteral("op"), nodeChangeOpName(c.op) },
                { QStringLiteral("base_node"),
                    c.baseNode >= 0 ? QJsonValue(base.graph.nodeLine(c.baseNode)) : QJsonValue() },
                { QStringLiteral("other_node"),
                    c.otherNode >= 0 ? QJsonValue(other.graph.nodeLine(c.otherNode)) : QJsonValue() },
                { QStringLiteral("base_index"), c.baseNode }, { QStringLiteral("other_index"), c.otherNode },
                { QStringLiteral("cause"), c.cause }, { QStringLiteral("kind"), divergenceKindName(c.kind) },
                { QStringLiteral("divergence"), c.divergence }, { QStringLiteral("scope"), c.scope },
                { QStringLiteral("script_node"), c.scriptNode }, { QStringLiteral("file"), c.location.file },
                { QStringLiteral("line"), c.location.line }, { QStringLiteral("column"), c.location.column } });
        }
        QJsonArray divergences;
        for (const Divergence& v : d.divergences) {
            QJsonArray stack, evidence, changeIndices;
            for (const SourceLocation& f : v.stack)
                stack.append(QJsonObject { { QStringLiteral("file"), f.file }, { QStringLiteral("line"), f.line } });
            for (const QString& e : v.evidence)
                evidence.append(e);
            for (int i : v.changes)
                changeIndices.append(i);
            auto nodes = [](const QVector<int>& ids) {
                QJsonArray a;
                for (int id : ids)
                    a.append(id);
                return a;
            };
            QJsonObject o { { QStringLiteral("kind"), divergenceKindName(v.kind) },
                { QStringLiteral("message"), v.message }, { QStringLiteral("scope"), v.scope },
                { QStringLiteral("scope_type"), v.scopeType }, { QStringLiteral("file"), v.location.file },
                { QStringLiteral("line"), v.location.line }, { QStringLiteral("stack"), stack },
                { QStringLiteral("nodes"),
                    QJsonObject { { QStringLiteral("base"), nodes(v.baseNodes) },
                        { QStringLiteral("other"), nodes(v.otherNodes) } } },
                { QStringLiteral("changes"), changeIndices }, { QStringLiteral("evidence"), evidence } };
            if (v.observed.present) {
                // Where the runs' Python was seen to part (a recorded call): docs/check-json.md.
                const ObservedParting& p = v.observed;
                QJsonArray operands, frames;
                for (const ValueRow& row : p.operands)
                    operands.append(QJsonObject { { QStringLiteral("text"), row.what },
                        { QStringLiteral("trace"), row.trace }, { QStringLiteral("other"), row.other } });
                for (const SourceLocation& f : p.stack)
                    frames.append(
                        QJsonObject { { QStringLiteral("file"), f.file }, { QStringLiteral("line"), f.line } });
                QJsonObject observed { { QStringLiteral("file"), p.location.file },
                    { QStringLiteral("line"), p.location.line }, { QStringLiteral("function"), p.function },
                    { QStringLiteral("statement"), p.statement }, { QStringLiteral("text"), p.text },
                    { QStringLiteral("condition"), p.condition },
                    { QStringLiteral("values"), QJsonArray { p.firstValues, p.otherValues } },
                    { QStringLiteral("operands"), operands }, { QStringLiteral("stack"), frames } };
                if (p.firstIterations >= 0)
                    observed.insert(QStringLiteral("iterations"), QJsonArray { p.firstIterations, p.otherIterations });
                o.insert(QStringLiteral("observed"), observed);
            }
            if (!v.values.isEmpty()) {
                // A value divergence: both runs' values at the node, side by side.
                QJsonArray rows;
                for (const ValueRow& row : v.values)
                    rows.append(QJsonObject { { QStringLiteral("what"), row.what },
                        { QStringLiteral("trace"), row.trace }, { QStringLiteral("other"), row.other } });
                o.insert(QStringLiteral("other_run"), v.otherRun);
                o.insert(QStringLiteral("values"), rows);
            }
            divergences.append(o);
        }
        diffs.append(QJsonObject { { QStringLiteral("base"), d.base }, { QStringLiteral("other"), d.other },
            { QStringLiteral("equal"), d.equal }, { QStringLiteral("divergences"), divergences },
            { QStringLiteral("changes"), changes } });
    }
    for (int k = 0; k < report.outputs.size(); ++k) {
        const OutputCheck& o = report.outputs[k];
        QJsonObject j { { QStringLiteral("set"), k + 1 }, { QStringLiteral("ran"), o.ran } };
        if (!o.ran) {
            j.insert(QStringLiteral("error"), o.error);
            if (o.failure.isValid()) {
                QJsonArray operands, stack;
                for (const QString& op : o.failure.operands)
                    operands.append(op);
                for (const SourceLocation& f : o.failure.stack)
                    stack.append(
                        QJsonObject { { QStringLiteral("file"), f.file }, { QStringLiteral("line"), f.line } });
                j.insert(QStringLiteral("failure"),
                    QJsonObject { { QStringLiteral("node"), o.failure.node },
                        { QStringLiteral("kind"), o.failure.kind },
                        { QStringLiteral("node_text"), report.traces[0].graph.nodeLine(o.failure.node) },
                        { QStringLiteral("file"), o.failure.location.file },
                        { QStringLiteral("line"), o.failure.location.line },
                        { QStringLiteral("scope"), o.failure.scope }, { QStringLiteral("stack"), stack },
                        { QStringLiteral("error"), o.failure.error }, { QStringLiteral("operands"), operands } });
            }
        } else if (report.tracedArchive) {
            QJsonArray values;
            for (const ValueSummary& v : o.outputs)
                values.append(v.text);
            j.insert(QStringLiteral("outputs"), values);
        } else {
            j.insert(QStringLiteral("equal"), o.comparison.equal);
            j.insert(QStringLiteral("mismatched"), o.comparison.mismatched);
            j.insert(QStringLiteral("total"), o.comparison.total);
            j.insert(QStringLiteral("greatest_abs_diff"), o.comparison.greatestAbsDiff);
            j.insert(QStringLiteral("greatest_rel_diff"), o.comparison.greatestRelDiff);
            j.insert(QStringLiteral("where"), o.comparison.where);
            j.insert(QStringLiteral("message"), o.comparison.message);
        }
        outputs.append(j);
    }
    for (const TraceWarning& w : report.warnings)
        warnings.append(warningJson(w));
    QJsonObject json { { QStringLiteral("file"), report.file }, { QStringLiteral("function"), report.function },
        { QStringLiteral("traces"), traces }, { QStringLiteral("script"), report.script.toText() },
        { QStringLiteral("diffs"), diffs }, { QStringLiteral("outputs"), outputs },
        { QStringLiteral("warnings"), warnings }, { QStringLiteral("verdict"), report.verdict() } };
    if (report.tracedArchive)
        json.insert(QStringLiteral("traced_archive"), true);
    if (report.exported.requested)
        json.insert(QStringLiteral("export"), exportReportJson(report.exported));
    return json;
}

QString ExportReport::summary() const
{
    if (status == QLatin1String("skipped"))
        return QStringLiteral("export skipped: %1").arg(reason);
    if (status == QLatin1String("error"))
        return QStringLiteral("export not run: %1").arg(reason);
    if (status == QLatin1String("failed")) {
        if (findings.isEmpty())
            return QStringLiteral("export failed");
        const ExportFinding& f = findings.front();
        const SourceLocation& at = f.libraryLocation.isValid() ? f.libraryLocation : f.userLocation;
        return QStringLiteral("export failed (%1) at %2:%3: %4")
            .arg(f.kind, at.file.section(QLatin1Char('/'), -1))
            .arg(at.line)
            .arg(f.message);
    }
    QStringList rejected;
    int passing = 0;
    for (const ExportSetRow& row : sets) {
        if (row.status == QLatin1String("passes"))
            ++passing;
        else
            rejected << QStringLiteral("set %1 (%2)")
                            .arg(row.set)
                            .arg(row.status == QLatin1String("guard")               ? QStringLiteral("fails a guard")
                                    : row.status == QLatin1String("outputs-differ") ? QStringLiteral("outputs differ")
                                                                                    : QStringLiteral("raises"));
    }
    if (rejected.isEmpty())
        return QStringLiteral("the export passes all %1 set%2").arg(passing).arg(passing == 1 ? "" : "s");
    return QStringLiteral("the export passes %1 of %2 sets; not %3")
        .arg(passing)
        .arg(sets.size())
        .arg(rejected.join(QStringLiteral(", ")));
}

namespace {

QJsonObject placeJson(const SourceLocation& at, const QString& text)
{
    return QJsonObject { { QStringLiteral("file"), at.file }, { QStringLiteral("line"), at.line },
        { QStringLiteral("text"), text } };
}

QJsonObject findingJson(const ExportFinding& f)
{
    QJsonArray stack;
    for (const SourceLocation& at : f.stack)
        stack.append(QJsonObject { { QStringLiteral("file"), at.file }, { QStringLiteral("line"), at.line } });
    QJsonObject o { { QStringLiteral("kind"), f.kind }, { QStringLiteral("type"), f.type },
        { QStringLiteral("message"), f.message }, { QStringLiteral("expression"), f.expression },
        { QStringLiteral("guard"), f.guard }, { QStringLiteral("user"), placeJson(f.userLocation, f.userText) },
        { QStringLiteral("library"),
            f.libraryLocation.isValid() ? QJsonValue(placeJson(f.libraryLocation, f.libraryText)) : QJsonValue() },
        { QStringLiteral("stack"), stack }, { QStringLiteral("suggested_fix"), f.suggestedFix } };
    return o;
}

QJsonArray factsJson(const QVector<ExportFact>& facts)
{
    QJsonArray out;
    for (const ExportFact& f : facts) {
        QJsonObject o { { QStringLiteral("text"), f.text }, { QStringLiteral("name"), f.name },
            { QStringLiteral("symbol"), f.symbol } };
        o.insert(QStringLiteral("at"),
            f.location.isValid() ? QJsonValue(placeJson(f.location, f.sourceText)) : QJsonValue());
        out.append(o);
    }
    return out;
}

} // namespace

QJsonObject exportReportJson(const ExportReport& r)
{
    QJsonArray findings, draft, sets, dynamic;
    for (const ExportFinding& f : r.findings)
        findings.append(findingJson(f));
    for (const ExportFinding& f : r.draft)
        draft.append(findingJson(f));
    for (const ExportSetRow& row : r.sets)
        sets.append(QJsonObject { { QStringLiteral("set"), row.set }, { QStringLiteral("trace"), row.trace },
            { QStringLiteral("export"), row.status }, { QStringLiteral("message"), row.message } });
    for (const QString& d : r.dynamic)
        dynamic.append(d);
    QJsonObject o { { QStringLiteral("status"), r.status }, { QStringLiteral("torch"), r.torchVersion },
        { QStringLiteral("summary"), r.summary() }, { QStringLiteral("dynamic"), dynamic },
        { QStringLiteral("dynamic_by"), r.dynamicBy }, { QStringLiteral("findings"), findings },
        { QStringLiteral("draft"), draft }, { QStringLiteral("ranges"), factsJson(r.ranges) },
        { QStringLiteral("specializations"), factsJson(r.specializations) }, { QStringLiteral("sets"), sets } };
    if (!r.reason.isEmpty())
        o.insert(QStringLiteral("reason"), r.reason);
    if (!r.draftError.isEmpty())
        o.insert(QStringLiteral("draft_error"), r.draftError);
    if (!r.program.isEmpty())
        o.insert(QStringLiteral("program"), r.program);
    return o;
}

} // namespace jitscope
