#include "cli.h"
#include "cli_p.h"
#include "progress.h"
#include "reports.h"

#include "check/check.h"
#include "ir/activity.h"
#include "layout/layout.h"

#include <optional>

namespace jitscope::cli {

namespace {

/// The source line with a caret under the column, for text reports.
QString sourceExcerpt(const ModelInfo& model, const SourceLocation& loc)
{
    if (!loc.isValid() || model.kind != ModelInfo::Kind::PythonSource || loc.file != model.path)
        return {};
    const QStringList lines = model.source.split(QLatin1Char('\n'));
    if (loc.line > lines.size())
        return {};
    const QString number = QString::number(loc.line);
    QString text = lines.at(loc.line - 1);
    return QStringLiteral("    %1 | %2\n    %3 | %4^\n")
        .arg(number, text, QString(number.size(), QLatin1Char(' ')), QString(loc.column, QLatin1Char(' ')));
}

} // namespace

int commandCheck(Args& args, const LoadOptions& options, QTextStream& out)
{
    const QString fnName = args.takeValue({ QStringLiteral("--fn") });
    const QString format = args.takeValue({ QStringLiteral("--format"), QStringLiteral("-f") }, QStringLiteral("text"));
    const QString outPath = args.takeValue({ QStringLiteral("-o"), QStringLiteral("--output") });
    const QStringList specs = args.takeValues({ QStringLiteral("--inputs"), QStringLiteral("-i") });
    const QString htmlLink = args.takeValue({ QStringLiteral("--html-link") });
    const bool verbose = args.takeFlag(QStringLiteral("--verbose")) || args.takeFlag(QStringLiteral("-v"));
    const bool noValues = args.takeFlag(QStringLiteral("--no-values"));
    checkFormat(format, checkReportFormats());
    CheckOptions check;
    bool ok = true;
    const QString rtol = args.takeValue({ QStringLiteral("--rtol") }, QStringLiteral("1e-5"));
    check.rtol = rtol.toDouble(&ok);
    if (!ok || check.rtol < 0)
        throw CliError { QStringLiteral("--rtol: '%1' is not a non-negative number").arg(rtol) };
    const QString atol = args.takeValue({ QStringLiteral("--atol") }, QStringLiteral("1e-5"));
    check.atol = atol.toDouble(&ok);
    if (!ok || check.atol < 0)
        throw CliError { QStringLiteral("--atol: '%1' is not a non-negative number").arg(atol) };
    check.exec = execOptions(args);
    check.compareValues = !noValues;
    const QString path = fileArgument(args, QStringLiteral("check"));
    const ModelInfo model = loadRunnable(path, options, QStringLiteral("check"));
    const FunctionInfo& fn = selectFunction(model, fnName, &specs);
    const QVector<InputSet> sets = inputSets(specs, model);
    std::optional<ProgressScope> progress;
    progress.emplace(QStringLiteral("checking %1 input sets").arg(sets.size()));
    activity::setPhase(0, "checking %d input sets", int(sets.size()));
    const CheckReport report = checkModel(model, fn.name, sets, check);
    progress.reset();
    if (!report.ok)
        throw CliError { QStringLiteral("%1 (input set 1: %2)").arg(report.error.toString(), sets.first().toString()) };

    QStringList setTexts;
    for (const InputSet& set : sets)
        setTexts << set.toString();
    ReportInput reportInput = ReportInput::single(
        model.path, model.kind == ModelInfo::Kind::PythonSource ? model.source : QString(), report, setTexts, htmlLink);
    reportInput.layout = layoutGraph;
    CheckOutput output { reportInput.entries.front(), model.path + QLatin1Char(' ') + fn.name };
    output.sourceLine = [&](const SourceLocation& at) {
        if (model.kind != ModelInfo::Kind::PythonSource || at.file != model.path)
            return QString();
        return model.source.section(QLatin1Char('\n'), at.line - 1, at.line - 1);
    };
    output.warningExcerpt = [&](const SourceLocation& at) { return sourceExcerpt(model, at); };
    output.verbose = verbose;
    if (format == QLatin1String("html"))
        progress.emplace(QStringLiteral("laying out the report's graphs"));
    const QByteArray data = checkReportData(format, reportInput, { output }, false);
    progress.reset();
    writeOutput(data, outPath, out);
    return report.consistent ? ExitOk : ExitDiverged;
}

} // namespace jitscope::cli
