// check --format markdown: a short summary for a pull-request comment.

#include "reports_p.h"

#include "report/tracewarning.h"

#include <QFileInfo>

namespace jitscope {

using namespace reports;

QByteArray markdownReport(const ReportInput& in)
{
    QString s;
    for (const ReportEntry& e : in.entries) {
        const CheckReport& r = *e.report;
        if (&e != &in.entries.front())
            s += QLatin1Char('\n');
        s += QStringLiteral("### JitScope check: `%1` in `%2`: **%3**\n\n")
                 .arg(e.name, QFileInfo(in.path).fileName(), r.verdict());
        s += QStringLiteral("| set | inputs | result |\n|---|---|---|\n");
        for (int k = 0; k < r.traces.size(); ++k) {
            const QString result = setResult(r, k, in.reference);
            s += QStringLiteral("| %1 | `%2` | %3 |\n").arg(k + 1).arg(e.sets.value(k), result.toHtmlEscaped());
        }
        QString rows;
        for (const TraceDiff& d : r.diffs)
            for (const Divergence& v : d.divergences)
                rows += QStringLiteral("| %1 vs 1 | `%2` | %3 | %4 | %5 | %6 |\n")
                            .arg(d.other + 1)
                            .arg(divergenceKindName(v.kind), v.message.toHtmlEscaped(),
                                v.scope.isEmpty() ? QString() : QStringLiteral("`%1`").arg(v.scope),
                                shortWhere(v.location))
                            .arg(v.changes.size());
        if (!rows.isEmpty())
            s += QStringLiteral("\n**Divergences**\n\n| traces | kind | cause | module | line | nodes |\n"
                                "|---|---|---|---|---|---|\n")
                + rows;
        if (!r.warnings.isEmpty()) {
            s += QStringLiteral("\n**Warnings**\n\n");
            for (const TraceWarning& w : r.warnings)
                s += QStringLiteral("- `%1` trace %2%3: %4\n")
                         .arg(warningKindName(w.kind))
                         .arg(w.traceIndex + 1)
                         .arg(w.location.isValid() ? QStringLiteral(" at ") + shortWhere(w.location) : QString(),
                             w.message.section(QLatin1Char('\n'), 0, 0).toHtmlEscaped());
        }
        const ExportReport& x = r.exported;
        if (x.requested) {
            s += QStringLiteral("\n**Export** (torch %1): %2\n\n").arg(x.torchVersion, x.summary().toHtmlEscaped());
            for (const ExportFinding& f : x.findings + x.draft)
                s += QStringLiteral("- %1%2\n")
                         .arg(exportFindingLine(f).toHtmlEscaped(),
                             f.suggestedFix.isEmpty()
                                 ? QString()
                                 : QStringLiteral(" (fix: %1)").arg(f.suggestedFix.simplified().toHtmlEscaped()));
            for (const ExportFact& f : x.ranges + x.specializations)
                s += QStringLiteral("- %1%2\n")
                         .arg(f.text.toHtmlEscaped(),
                             f.location.isValid() ? QStringLiteral(" at ") + shortWhere(f.location) : QString());
            if (!x.sets.isEmpty()) {
                s += QStringLiteral("\n| set | trace | export |\n|---|---|---|\n");
                for (const ExportSetRow& row : x.sets)
                    s += QStringLiteral("| %1 | %2 | %3%4 |\n")
                             .arg(row.set)
                             .arg(row.trace, exportResult(row),
                                 row.message.isEmpty() ? QString()
                                                       : QStringLiteral(": ") + row.message.toHtmlEscaped());
            }
        }
    }
    if (!in.htmlReport.isEmpty())
        s += QStringLiteral("\nFull report with the graphs: `%1`\n").arg(in.htmlReport);
    return s.toUtf8();
}

} // namespace jitscope
