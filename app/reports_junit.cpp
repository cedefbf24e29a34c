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
        return failures + int(r.traces.isEmpty() || !r.traces[0].ok);
    };
    auto testsOf = [](const CheckReport& r) { return std::max<qsizetype>(r.traces.size(), 1); };
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
