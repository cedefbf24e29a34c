#include "cli.h"
#include "cli_p.h"
#include "pythoncli.h"
#include "reports.h"

namespace jitscope::cli {

int pythonCommand(const QString& command, Args& args, const QString& python, QTextStream& out, QTextStream& err)
{
    PythonCommand pc;
    pc.options.python = python;
    pc.format = args.takeValue({ QStringLiteral("--format"), QStringLiteral("-f") }, QStringLiteral("text"));
    const QString outPath = args.takeValue({ QStringLiteral("-o"), QStringLiteral("--output") });
    pc.htmlLink = args.takeValue({ QStringLiteral("--html-link") });
    pc.selfCheck = args.takeFlag(QStringLiteral("--self-check"));
    pc.verbose = args.takeFlag(QStringLiteral("--verbose")) || args.takeFlag(QStringLiteral("-v"));
    pc.options.exportCalls = args.takeFlag(QStringLiteral("--export"));
    if (pc.options.exportCalls && command != QLatin1String("check"))
        throw CliError { QStringLiteral("--export is an option of check --python") };
    if (pc.selfCheck
        && (command != QLatin1String("check")
            || (pc.format != QLatin1String("text") && pc.format != QLatin1String("json"))))
        throw CliError { QStringLiteral("--self-check is an option of check --python, reported as text or json") };
    if (command == QLatin1String("check"))
        checkFormat(pc.format, checkReportFormats());
    else if (command != QLatin1String("graph")) // graph's are checked below
        checkFormat(pc.format, { QStringLiteral("text"), QStringLiteral("json") });
    pc.options.timeoutMs = parseTimeoutMs(args.takeValue({ QStringLiteral("--timeout") }, QStringLiteral("600")));
    bool ok = false;
    static const QStringList commands = { QStringLiteral("list"), QStringLiteral("graph"), QStringLiteral("trace"),
        QStringLiteral("check"), QStringLiteral("run") };
    if (!commands.contains(command))
        throw CliError {
            QStringLiteral("--python works with %1, not %2").arg(commands.join(QStringLiteral(", ")), command)
        };
    const QString fn = args.takeValue({ QStringLiteral("--fn") });
    const QStringList specs = args.takeValues({ QStringLiteral("--inputs"), QStringLiteral("-i") });
    const QString call = args.takeValue({ QStringLiteral("--call") });
    PythonRequest& request = pc.options.request;
    request.strict = !args.takeFlag(QStringLiteral("--no-strict"));
    const QString seed = args.takeValue({ QStringLiteral("--seed") }, QStringLiteral("0"));
    request.seed = seed.toULongLong(&ok);
    if (!ok)
        throw CliError { QStringLiteral("--seed: '%1' is not a non-negative integer").arg(seed) };
    request.sets = parseInputSets(specs);
    if (!call.isEmpty() && command != QLatin1String("graph"))
        throw CliError { QStringLiteral("--call N is an option of graph") };
    if (command == QLatin1String("graph")) {
        if (!specs.isEmpty())
            throw CliError { QStringLiteral("graph --python shows recorded graphs: --inputs is for trace, check and "
                                            "run") };
        if (!call.isEmpty()) {
            pc.call = call.toInt(&ok);
            if (!ok || pc.call < 1)
                throw CliError {
                    QStringLiteral("--call: '%1' is not a call number (1 is the file's first)").arg(call)
                };
            if (!fn.isEmpty())
                throw CliError { QStringLiteral("give --call N or --fn NAME, not both") };
        }
        pc.function = fn;
        pc.modules = args.takeFlag(QStringLiteral("--modules"));
        checkFormat(pc.format,
            { QStringLiteral("text"), QStringLiteral("json"), QStringLiteral("dot"), QStringLiteral("svg") });
    } else if (command == QLatin1String("list")) {
        if (!fn.isEmpty() || !specs.isEmpty())
            throw CliError { QStringLiteral("list --python takes neither --fn nor --inputs") };
    } else if (!fn.isEmpty()) {
        request.target = fn;
        request.mode = command == QLatin1String("trace") ? PythonRequest::Mode::Trace
            : command == QLatin1String("check")          ? PythonRequest::Mode::Check
                                                         : PythonRequest::Mode::Run;
    } else if (!specs.isEmpty() || command == QLatin1String("run")) {
        throw CliError { QStringLiteral("%1 --python%2 needs --fn NAME (a function, or Class.method)")
                             .arg(command, specs.isEmpty() ? QString() : QStringLiteral(" --inputs")) };
    }
    if (command == QLatin1String("run") && request.sets.size() > 1)
        throw CliError { QStringLiteral("run takes one --inputs SET") };
    pc.file = fileArgument(args, command);
    if (!pc.file.endsWith(QLatin1String(".py")))
        throw CliError { QStringLiteral("%1: --python runs .py files").arg(pc.file) };
    // -o: the command writes into a buffer, which replaces the file whole once it is complete.
    QString buffer;
    QTextStream bufferStream(&buffer);
    QTextStream& target = outPath.isEmpty() ? out : bufferStream;
    int status = ExitError;
    if (command == QLatin1String("list"))
        status = pythonListCommand(pc, target, err);
    else if (command == QLatin1String("graph"))
        status = pythonGraphCommand(pc, target, err);
    else if (command == QLatin1String("run"))
        status = pythonRunCommand(pc, target, err);
    else if (command == QLatin1String("trace"))
        status = pythonTraceCommand(pc, target, err);
    else
        status = pythonCheckCommand(pc, target, err);
    if (!outPath.isEmpty()) {
        bufferStream.flush();
        if (!buffer.isEmpty())
            writeOutput(buffer.toUtf8(), outPath, out);
    }
    return status;
}

} // namespace jitscope::cli
