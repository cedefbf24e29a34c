#include "cli.h"
#include "cli_p.h"

#include "execute/run.h"
#include "ir/activity.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace jitscope::cli {

namespace {

QJsonObject summaryJson(const ValueSummary& v)
{
    QJsonObject o { { QStringLiteral("kind"), v.kind }, { QStringLiteral("text"), v.text } };
    if (v.kind == QLatin1String("tensor")) {
        QJsonArray shape;
        for (qint64 d : v.shape)
            shape.append(d);
        o.insert(QStringLiteral("dtype"), v.dtype);
        o.insert(QStringLiteral("shape"), shape);
        o.insert(QStringLiteral("sum"), v.sum);
    }
    return o;
}

QString loopText(const QVector<LoopFrame>& path)
{
    QStringList parts;
    for (const LoopFrame& f : path)
        parts << QStringLiteral("loop@%1 #%2").arg(f.line).arg(f.iteration + 1);
    return parts.join(QLatin1Char(' '));
}

QJsonArray loopJson(const QVector<LoopFrame>& path)
{
    QJsonArray a;
    for (const LoopFrame& f : path)
        a.append(QJsonObject { { QStringLiteral("line"), f.line }, { QStringLiteral("iteration"), f.iteration + 1 } });
    return a;
}

QString valueText(const ValueSummary& v)
{
    if (v.kind == QLatin1String("tensor"))
        return QStringLiteral("%1 sum=%2").arg(v.text).arg(v.sum, 0, 'g', 7);
    return v.text;
}

} // namespace

int commandRun(Args& args, const LoadOptions& options, QTextStream& out)
{
    const QString fnName = args.takeValue({ QStringLiteral("--fn") });
    const QString format = args.takeValue({ QStringLiteral("--format"), QStringLiteral("-f") }, QStringLiteral("text"));
    const QString outPath = args.takeValue({ QStringLiteral("-o"), QStringLiteral("--output") });
    const QStringList specs = args.takeValues({ QStringLiteral("--inputs"), QStringLiteral("-i") });
    const QStringList breaks = args.takeValues({ QStringLiteral("--break"), QStringLiteral("-b") });
    checkFormat(format, { QStringLiteral("text"), QStringLiteral("json") });
    ExecOptions exec = execOptions(args);
    for (const QString& b : breaks) {
        bool ok = false;
        const int line = b.toInt(&ok);
        if (!ok || line <= 0)
            throw CliError { QStringLiteral("--break: '%1' is not a line number").arg(b) };
        exec.breakLines.push_back(line);
    }
    const QString path = fileArgument(args, QStringLiteral("run"));
    const ModelInfo model = loadRunnable(path, options, QStringLiteral("run"));
    const FunctionInfo& fn = selectFunction(model, fnName, &specs);
    const QVector<InputSet> sets = inputSets(specs, model);
    const InputSet& set = sets.first();

    QJsonArray steps, hits;
    QString text;
    QTextStream s(&text);
    s << "run " << model.path << " " << fn.name << ": " << set.toString() << "\n";
    int index = 0;
    exec.summarizeValues = true;
    exec.observer = [&](const NodeEvent& e) {
        if (e.kind == QLatin1String("prim::Constant") || e.depth > 0)
            return;
        if (e.breakpoint) {
            QJsonArray values;
            s << "\nbreakpoint at line " << e.location.line;
            if (!e.loopPath.isEmpty())
                s << " (" << loopText(e.loopPath) << ")";
            s << ":\n";
            for (const NamedValue& v : e.values) {
                s << "    " << v.name << " = " << valueText(v.value) << "\n";
                values.append(QJsonObject {
                    { QStringLiteral("name"), v.name }, { QStringLiteral("value"), summaryJson(v.value) } });
            }
            s << "\n";
            hits.append(QJsonObject { { QStringLiteral("line"), e.location.line },
                { QStringLiteral("loop_path"), loopJson(e.loopPath) }, { QStringLiteral("values"), values } });
        }
        if (!e.after)
            return;
        ++index;
        QJsonArray outputs;
        QStringList shown;
        for (const NamedValue& v : e.values) {
            outputs.append(
                QJsonObject { { QStringLiteral("name"), v.name }, { QStringLiteral("value"), summaryJson(v.value) } });
            shown << v.name + QStringLiteral(" = ") + valueText(v.value);
        }
        s << QStringLiteral("  [%1] line %2%3  %4")
                 .arg(index, 3)
                 .arg(e.location.line, -3)
                 .arg(e.loopPath.isEmpty() ? QString() : QStringLiteral("  ") + loopText(e.loopPath), e.kind);
        if (!shown.isEmpty())
            s << "  -> " << shown.join(QStringLiteral(", "));
        s << "\n";
        steps.append(QJsonObject { { QStringLiteral("index"), index }, { QStringLiteral("kind"), e.kind },
            { QStringLiteral("script_node"), e.scriptNode }, { QStringLiteral("line"), e.location.line },
            { QStringLiteral("loop_path"), loopJson(e.loopPath) }, { QStringLiteral("outputs"), outputs } });
    };
    activity::setPhase(0, "running input set 1");
    const long long previous = activity::setDeadline(exec.timeoutMs);
    RunResult r = runFunction(model, fn.name, set, exec);
    activity::restoreDeadline(previous);
    if (!r.ok) {
        const QString message = QStringLiteral("%1 (input set 1: %2)").arg(r.error.toString(), set.toString());
        // The process ends next: a run stopped by --timeout may hold millions of node records, and freeing them
        // would take longer than the 200 ms the timeout is honoured within.
        new RunResult(std::move(r));
        new QJsonArray(std::move(steps));
        new QString(std::move(text));
        throw CliError { message };
    }
    QJsonArray outputs;
    QStringList shownOutputs;
    for (const ValueSummary& v : r.outputs) {
        outputs.append(summaryJson(v));
        shownOutputs << valueText(v);
    }
    s << "\nreturned: " << shownOutputs.join(QStringLiteral(", ")) << "\n";
    s.flush();
    QByteArray data;
    if (format == QLatin1String("json"))
        data = QJsonDocument(
            QJsonObject { { QStringLiteral("file"), model.path }, { QStringLiteral("function"), fn.name },
                { QStringLiteral("inputs"), set.toString() }, { QStringLiteral("steps"), steps },
                { QStringLiteral("breakpoints"), hits }, { QStringLiteral("outputs"), outputs } })
                   .toJson(QJsonDocument::Indented);
    else
        data = text.toUtf8();
    writeOutput(data, outPath, out);
    return ExitOk;
}

} // namespace jitscope::cli
