// ReportInput, and a check's report in the format asked for (checkReportData()): the one dispatch of `check` and
// `check --python`.

#include "reports.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace jitscope {

ReportInput ReportInput::single(const QString& path, const QString& source, const CheckReport& report,
    const QStringList& sets, const QString& htmlReport)
{
    ReportInput in;
    in.path = path;
    in.source = source;
    in.entries.push_back(ReportEntry { &report, report.function, sets });
    in.htmlReport = htmlReport;
    return in;
}

QStringList checkReportFormats()
{
    return { QStringLiteral("text"), QStringLiteral("json"), QStringLiteral("junit"), QStringLiteral("markdown"),
        QStringLiteral("html") };
}

QByteArray checkReportData(
    const QString& format, const ReportInput& in, const QVector<CheckOutput>& outputs, bool several)
{
    if (format == QLatin1String("junit"))
        return junitReport(in);
    if (format == QLatin1String("markdown"))
        return markdownReport(in);
    if (format == QLatin1String("html"))
        return htmlReport(in);
    if (format == QLatin1String("json")) {
        if (!several)
            return QJsonDocument(outputs.isEmpty() ? QJsonObject() : checkJson(outputs.front()))
                .toJson(QJsonDocument::Indented);
        QJsonArray reports;
        for (const CheckOutput& output : outputs)
            reports.append(checkJson(output));
        return QJsonDocument(reports).toJson(QJsonDocument::Indented);
    }
    QString text;
    for (const CheckOutput& output : outputs)
        text += checkText(output) + (several ? QStringLiteral("\n") : QString());
    return text.toUtf8();
}

} // namespace jitscope
