#include "cli.h"
#include "cli_p.h"
#include "progress.h"

#include "ir/activity.h"
#include "layout/layout.h"
#include "report/checkreport.h"
#include "trace/trace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

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
    const ModelInfo model = load(path, options);
    const FunctionInfo& fn = selectFunction(model, fnName, &specs);
    const QVector<InputSet> sets = inputSets(specs, model);
    QByteArray data;
    QJsonArray traces;
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
            QJsonArray warnings;
            for (TraceWarning w : t.warnings) {
                w.traceIndex = i;
                warnings.append(warningJson(w));
            }
            traces.append(QJsonObject { { QStringLiteral("inputs"), sets[i].toString() },
                { QStringLiteral("note"), t.note }, { QStringLiteral("graph"), t.graph.toJson() },
                { QStringLiteral("text"), t.graph.toText() }, { QStringLiteral("warnings"), warnings } });
        } else {
            const QString dot = toDot(t.graph);
            if (format == QLatin1String("dot")) {
                data += dot.toUtf8();
            } else {
                QString error;
                const QByteArray svg = renderDotToSvg(dot, &error);
                if (svg.isEmpty())
                    throw CliError { QStringLiteral("%1: %2").arg(path, error) };
                data += svg;
            }
        }
    }
    if (format == QLatin1String("json"))
        data = QJsonDocument(QJsonObject { { QStringLiteral("file"), model.path },
                                 { QStringLiteral("function"), fn.name }, { QStringLiteral("traces"), traces } })
                   .toJson(QJsonDocument::Indented);
    writeOutput(data, outPath, out);
    return ExitOk;
}

} // namespace jitscope::cli
