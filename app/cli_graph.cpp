#include "cli.h"
#include "cli_p.h"
#include "progress.h"
#include "reports.h"

#include "layout/layout.h"
#include "load/model.h"

#include <QJsonDocument>

namespace jitscope::cli {

int commandGraph(Args& args, const LoadOptions& baseOptions, QTextStream& out)
{
    LoadOptions options = baseOptions;
    const bool modules = args.takeFlag(QStringLiteral("--modules"));
    options.inlineCalls = args.takeFlag(QStringLiteral("--inline")) || modules;
    LayoutOptions layoutOptions;
    layoutOptions.groupByModule = modules;
    layoutOptions.hideUnreachable = modules;
    const QString fnName = args.takeValue({ QStringLiteral("--fn") });
    const QString format = args.takeValue({ QStringLiteral("--format"), QStringLiteral("-f") }, QStringLiteral("text"));
    const QString outPath = args.takeValue({ QStringLiteral("-o"), QStringLiteral("--output") });
    checkFormat(format,
        { QStringLiteral("text"), QStringLiteral("json"), QStringLiteral("dot"), QStringLiteral("svg"),
            QStringLiteral("png") });
    const QString path = fileArgument(args, QStringLiteral("graph"));
    const ModelInfo model = load(path, options);
    FunctionInfo fn = selectFunction(model, fnName);
    QString error;
    if (options.inlineCalls && !inlineFunction(model.handle, fn, &error)) // a submodule's method
        throw CliError { QStringLiteral("%1: %2").arg(path, error) };
    QByteArray data;
    if (format == QLatin1String("text")) {
        data = fn.graph.toText().toUtf8();
    } else if (format == QLatin1String("json")) {
        const QString text = fn.graph.toText();
        data = QJsonDocument(graphJson(GraphDocument { model.path, fn.name, fn.signature, fn.name, text, &fn.graph }))
                   .toJson(QJsonDocument::Indented);
    } else {
        if (modules)
            layoutOptions.moduleTypes = submoduleTypes(model, fn.name);
        // As the window lays it out: a big graph grouped by module module by module (hierarchicalAbove).
        ProgressScope progress(QStringLiteral("laying out %1 nodes").arg(fn.graph.nodes.size()));
        error.clear();
        data = renderGraph(fn.graph, layoutOptions, format, &error, nullptr, fn.name);
        if (data.isEmpty())
            throw CliError { QStringLiteral("%1: %2").arg(path, error) };
    }
    writeOutput(data, outPath, out);
    return ExitOk;
}

} // namespace jitscope::cli
