// check --format junit: one <testsuite> per checked function or recorded call, one <testcase> per input set.

#include "reports_p.h"

#include "report/tracewarning.h"

#include <QXmlStreamWriter>

#include <algorithm>

namespace jitscope {

using namespace reports;

namespace {

QString suiteName(const ReportInput& in, const ReportEntry& e)
{
    return QStringLiteral("%1::%2").arg(in.path, e.name);
}

QString warningLine(const TraceWarning& w)
{
    return QStringLiteral("[%1] trace %2: %3%4")
        .arg(warningKindName(w.kind))
        .arg(w.traceIndex + 1)
        .arg(w.message,
            w.location.isValid() ? QStringLiteral(" (") + w.location.toString() + QLatin1Char(')') : QString());
}

/// A test case of a recorded call's torch.export: the export itself (failed, or skipped), or one per set it ran on.
struct ExportCase
{
    QString name;
    QString failure; ///< empty: passes
    QString text;
    bool skipped = false;
};

QVector<ExportCase> exportCases(const ExportReport& x)
{
    QVector<ExportCase> cases;
    if (!x.requested)
        return cases;
    if (x.status != QLatin1String("exported")) {
        ExportCase c { QStringLiteral("torch.export"), {}, {}, x.status == QLatin1String("skipped") };
        c.failure = c.skipped ? x.reason : x.summary();
        for (const ExportFinding& f : x.findings + x.draft)
            c.text += exportFindingLine(f)
                + (f.suggestedFix.isEmpty() ? QString() : QStringLiteral("\n  fix: ") + f.suggestedFix)
                + QLatin1Char('\n');
        cases << c;
        return cases;
    }
    for (const ExportSetRow& row : x.sets) {
        ExportCase c { QStringLiteral("torch.export, set %1").arg(row.set) };
        if (row.status != QLatin1String("passes"))
            c.failure = QStringLiteral("the exported program %1 on set %2%3")
                            .arg(exportResult(row))
                            .arg(row.set)
                            .arg(row.message.isEmpty() ? QString() : QStringLiteral(": ") + row.message);
        cases << c;
    }
    return cases;
}

// ---------------------------------------------------------------------------------------------------------------

} // namespace

QByteArray junitReport(const ReportInput& in)
{
    QByteArray data;
    QXmlStreamWriter x(&data);
    x.setAutoFormatting(true);
    x.writeStartDocument();
    auto failuresOf = [&](const CheckReport& r) {
        int failures = 0;
        for (int k = 1; k < r.traces.size(); ++k)
            failures += !failureMessage(r, k, in.reference).isEmpty();
        for (const ExportCase& c : exportCases(r.exported))
            failures += !c.skipped && !c.failure.isEmpty();
        return failures + int(r.traces.isEmpty() || !r.traces[0].ok);
    };
    auto testsOf
        = [](const CheckReport& r) { return std::max<qsizetype>(r.traces.size(), 1) + exportCases(r.exported).size(); };
    qsizetype tests = 0;
    int failures = 0;
    for (const ReportEntry& e : in.entries) {
        tests += testsOf(*e.report);
        failures += failuresOf(*e.report);
    }
    x.writeStartElement(QStringLiteral("testsuites"));
    x.writeAttribute(QStringLiteral("name"), QStringLiteral("jitscope check"));
    x.writeAttribute(QStringLiteral("tests"), QString::number(tests));
    x.writeAttribute(QStringLiteral("failures"), QString::number(failures));
    for (const ReportEntry& e : in.entries) {
        const CheckReport& r = *e.report;
        x.writeStartElement(QStringLiteral("testsuite"));
        x.writeAttribute(QStringLiteral("name"), suiteName(in, e));
        x.writeAttribute(QStringLiteral("tests"), QString::number(testsOf(r)));
        x.writeAttribute(QStringLiteral("failures"), QString::number(failuresOf(r)));
        x.writeAttribute(QStringLiteral("errors"), QStringLiteral("0"));
        for (int k = 0; k < r.traces.size(); ++k) {
            x.writeStartElement(QStringLiteral("testcase"));
            x.writeAttribute(QStringLiteral("classname"), suiteName(in, e));
            x.writeAttribute(QStringLiteral("name"),
                QStringLiteral("set %1: %2%3")
                    .arg(k + 1)
                    .arg(e.sets.value(k), k == 0 ? QStringLiteral(" (traced)") : QString()));
            const QString message = k == 0 ? (r.traces[0].ok ? QString() : r.traces[0].error.toString())
                                           : failureMessage(r, k, in.reference);
            if (!message.isEmpty()) {
                x.writeStartElement(QStringLiteral("failure"));
                x.writeAttribute(QStringLiteral("message"), message);
                x.writeAttribute(QStringLiteral("type"), k == 0 ? QStringLiteral("error") : QStringLiteral("diverged"));
                QString text;
                if (const TraceDiff* d = diffOf(r, k))
                    text += divergencesText(r, *d, {}, true);
                if (k >= 1 && k - 1 < r.outputs.size() && r.outputs[k - 1].ran && !r.outputs[k - 1].comparison.equal)
                    text += QStringLiteral("outputs: %1\n").arg(r.outputs[k - 1].comparison.message);
                x.writeCharacters(text);
                x.writeEndElement();
            }
            x.writeEndElement();
        }
        for (const ExportCase& c : exportCases(r.exported)) {
            x.writeStartElement(QStringLiteral("testcase"));
            x.writeAttribute(QStringLiteral("classname"), suiteName(in, e));
            x.writeAttribute(QStringLiteral("name"), c.name);
            if (c.skipped) {
                x.writeStartElement(QStringLiteral("skipped"));
                x.writeAttribute(QStringLiteral("message"), c.failure);
                x.writeEndElement();
            } else if (!c.failure.isEmpty()) {
                x.writeStartElement(QStringLiteral("failure"));
                x.writeAttribute(QStringLiteral("message"), c.failure);
                x.writeAttribute(QStringLiteral("type"), QStringLiteral("export"));
                x.writeCharacters(c.text);
                x.writeEndElement();
            }
            x.writeEndElement();
        }
        QStringList warnings;
        for (const TraceWarning& w : r.warnings)
            warnings << warningLine(w);
        if (!warnings.isEmpty())
            x.writeTextElement(QStringLiteral("system-out"), warnings.join(QLatin1Char('\n')) + QLatin1Char('\n'));
        x.writeEndElement();
    }
    x.writeEndElement();
    x.writeEndDocument();
    return data;
}

} // namespace jitscope
