#include "cli.h"
#include "cli_p.h"
#include "progress.h"
#include "reports.h"

#include "ir/activity.h"
#include "layout/layout.h"
#include "trace/trace.h"

#include <QJsonDocument>

#include <list>

namespace jitscope::cli {

int commandTrace(Args& args, const LoadOptions& options, QTextStream& out)
{
    const QString fnName = args.takeValue({ QStringLiteral("--fn") });
    const QString format = args.takeValue({ QStringLiteral("--format"), QStringLiteral("-f") }, QStringLiteral("text"));
    const QString outPath = args.takeValue({ QStringLiteral("-o"), QStringLiteral("--output") });
    const QStringList specs = args.takeValues({ QStringLiteral("--inputs"), QStringLiteral("-i") });
    checkFormat(
        format, { QStringLiteral("text"), QStringLiteral("json"), QStringLiteral("dot"), QStringLiteral("svg") });
    const ExecOptions exec = execOptions(args);
    const QString path = fileArgument(args, QStringLiteral("trace"));
    const ModelInfo model = loadRunnable(path, options, QStringLiteral("trace"));
    const FunctionInfo& fn = selectFunction(model, fnName, &specs);
    const QVector<InputSet> sets = inputSets(specs, model);
    QByteArray data;
    std::list<TraceResult> results; // the listing's entries point into it
    TraceListing listing { model.path, fn.name };
    ProgressScope progress(QStringLiteral("tracing"));
    for (int i = 0; i < sets.size(); ++i) {
        progress.step(QStringLiteral("tracing set"), i + 1, int(sets.size()));
        activity::setPhase(0, "tracing input set %d", i + 1);
        // The watchdog (crashhandler.cpp) holds the run to --timeout, the trace's own result included.
        const long long previous = activity::setDeadline(exec.timeoutMs);
        TraceResult t = traceFunction(model, fn.name, sets[i], exec);
        activity::restoreDeadline(previous);
        if (!t.ok)
            throw CliError {
                QStringLiteral("%1 (input set %2: %3)").arg(t.error.toString()).arg(i + 1).arg(sets[i].toString())
            };
        if (format == QLatin1String("text")) {
            if (sets.size() > 1)
                data += QStringLiteral("# trace %1: %2\n").arg(i + 1).arg(sets[i].toString()).toUtf8();
            if (!t.note.isEmpty())
                data += QStringLiteral("# note: %1\n").arg(t.note).toUtf8();
            data += t.graph.toText().toUtf8();
        } else if (format == QLatin1String("json")) {
            results.push_back(std::move(t));
            listing.traces << traceEntry(results.back(), sets[i].toString(), i);
        } else {
            QString error;
            const QByteArray picture = renderGraph(t.graph, LayoutOptions(), format, &error, nullptr,
                sets.size() > 1 ? QStringLiteral("%1: trace %2").arg(fn.name).arg(i + 1) : fn.name);
            if (picture.isEmpty())
                throw CliError { QStringLiteral("%1: %2").arg(path, error) };
            data += picture;
        }
    }
    if (format == QLatin1String("json"))
        data = QJsonDocument(traceJson(listing)).toJson(QJsonDocument::Indented);
    writeOutput(data, outPath, out);
    return ExitOk;
}

} // namespace jitscope::cli
