// A Python run read back from the bridge's record (result.json, protocol 1), and from what its child process left
// when it ended some other way: values only, so that the window reads a run the model worker made.

#include "report/pythonrun.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>

namespace jitscope {

struct PythonRunFolder
{
    QTemporaryDir dir { QDir::tempPath() + QStringLiteral("/jitscope-python-XXXXXX") };
};

namespace {

QString str(const QJsonObject& o, const char* key)
{
    return o.value(QLatin1String(key)).toString();
}

SourceLocation locationOf(const QJsonObject& o, const char* fileKey = "file", const char* lineKey = "line")
{
    SourceLocation l;
    l.file = o.value(QLatin1String(fileKey)).toString();
    l.line = o.value(QLatin1String(lineKey)).toInt();
    l.column = o.value(QLatin1String("column")).toInt();
    return l;
}

/// A Python exception as one diagnostic: TorchScript's own first line for compile errors ("cannot statically
/// infer..."), else "Type: message", at the user's place.
Diagnostic diagnosticOf(const QJsonObject& e, const QString& file)
{
    Diagnostic d;
    d.location = locationOf(e);
    if (d.location.file.isEmpty())
        d.location.file = file;
    // TorchScript's compile errors say what is wrong on their first line, as the .py loader reports them;
    // other exceptions read as Python prints them: "ValueError: message".
    const QString summary = str(e, "summary");
    if (!summary.isEmpty()) {
        d.message = summary;
        return d;
    }
    const QString type = str(e, "type");
    const QString message = str(e, "message").section(QLatin1Char('\n'), 0, 0).trimmed();
    d.message = type.isEmpty() || message.startsWith(type) ? message : type + QStringLiteral(": ") + message;
    return d;
}

/// The "graph" member of a record: the IR snapshot and the text PyTorch printed for it.
void readGraph(const QJsonObject& record, IrGraph& graph, QString& text)
{
    const QJsonValue v = record.value(QLatin1String("graph"));
    if (!v.isObject())
        return;
    graph = IrGraph::fromJson(v.toObject());
    text = v.toObject().value(QLatin1String("text")).toString();
}

QString setOf(const QJsonValue& v)
{
    return v.toObject().value(QLatin1String("set")).toString();
}

QVector<PythonWarning> warningsOf(const QJsonValue& v)
{
    QVector<PythonWarning> out;
    for (const QJsonValue& w : v.toArray()) {
        const QJsonObject o = w.toObject();
        PythonWarning pw;
        pw.category = str(o, "category");
        pw.message = str(o, "message");
        pw.location = locationOf(o);
        pw.userCode = o.value(QLatin1String("user")).toBool();
        for (const QJsonValue& f : o.value(QLatin1String("stack")).toArray()) {
            const QJsonObject fo = f.toObject();
            pw.stack.push_back(PythonFrame { locationOf(fo), str(fo, "function") });
        }
        if (o.contains(QLatin1String("user_line")))
            pw.userLocation = SourceLocation { str(o, "user_file"), o.value(QLatin1String("user_line")).toInt(), 0 };
        pw.count = std::max(1, o.value(QLatin1String("count")).toInt(1));
        pw.hidden = o.value(QLatin1String("hidden")).toBool();
        out.push_back(pw);
    }
    return out;
}

ValueDivergence valueDivergenceOf(const QJsonObject& o)
{
    ValueDivergence v;
    if (o.isEmpty())
        return v;
    v.present = true;
    v.error = str(o, "error");
    v.node = o.value(QLatin1String("node")).toInt(-1);
    v.op = str(o, "kind");
    v.module = str(o, "module");
    v.cause = str(o, "cause");
    v.message = str(o, "message");
    v.traceValue = str(o, "trace");
    v.otherValue = str(o, "python");
    v.otherOp = str(o, "python_op");
    v.otherAt = locationOf(o, "python_file", "python_line");
    v.randomNode = o.value(QLatin1String("random_node")).toInt(-1);
    for (const QJsonValue& e : o.value(QLatin1String("operands")).toArray()) {
        const QJsonObject op = e.toObject();
        const QString what = str(op, "what");
        // Side by side: Python's value where its call took the same operand, else the trace's where they agree.
        if (!str(op, "trace").isEmpty())
            v.operandRows << ValueRow { QStringLiteral("operand %1").arg(op.value(QLatin1String("index")).toInt()),
                str(op, "trace"),
                op.contains(QLatin1String("python"))  ? str(op, "python")
                    : op.value(QLatin1String("agrees")).toBool() ? str(op, "trace")
                                                                  : QString() };
        if (what.isEmpty() && op.value(QLatin1String("agrees")).toBool(true))
            continue; // an operand that agrees, or a flag: said by the message when it matters
        QString text = QStringLiteral("operand %1").arg(op.value(QLatin1String("index")).toInt());
        if (!what.isEmpty())
            text += QStringLiteral(" (%1)").arg(what);
        text += QStringLiteral(": %1 in the trace").arg(str(op, "trace"));
        if (op.contains(QLatin1String("python")))
            text += QStringLiteral(", %1 in Python").arg(str(op, "python"));
        QStringList arithmetic;
        for (const QJsonValue& a : op.value(QLatin1String("arithmetic")).toArray())
            arithmetic << a.toString();
        if (!arithmetic.isEmpty())
            text += QStringLiteral(", computed by %1").arg(arithmetic.join(QStringLiteral(", ")));
        QStringList dtypes;
        for (const QJsonValue& a : op.value(QLatin1String("dtypes")).toArray())
            dtypes << a.toString();
        if (!dtypes.isEmpty())
            text += QStringLiteral(" in %1").arg(dtypes.join(QLatin1Char('/')));
        v.operands << text;
    }
    return v;
}

PythonCall callOf(const QJsonObject& o, const QString& file)
{
    PythonCall c;
    c.index = o.value(QLatin1String("index")).toInt();
    c.api = str(o, "api");
    c.location = locationOf(o);
    const QJsonObject target = o.value(QLatin1String("target")).toObject();
    c.target = str(target, "name");
    c.targetKind = str(target, "kind");
    c.targetLine = target.value(QLatin1String("line")).toInt();
    c.ok = o.value(QLatin1String("ok")).toBool();
    if (o.contains(QLatin1String("error")))
        c.error = diagnosticOf(o.value(QLatin1String("error")).toObject(), file);
    c.exampleInputs = setOf(o.value(QLatin1String("example_inputs")));
    for (const QJsonValue& ci : o.value(QLatin1String("check_inputs")).toArray())
        c.checkInputs << setOf(ci);
    readGraph(o, c.graph, c.text);
    for (const QJsonValue& t : o.value(QLatin1String("traces")).toArray()) {
        const QJsonObject to = t.toObject();
        PythonTrace pt;
        pt.inputs = setOf(to.value(QLatin1String("inputs")));
        pt.ok = to.contains(QLatin1String("graph"));
        if (to.contains(QLatin1String("error")))
            pt.error = diagnosticOf(to.value(QLatin1String("error")).toObject(), file);
        readGraph(to, pt.graph, pt.text);
        pt.warnings = warningsOf(to.value(QLatin1String("warnings")));
        const QJsonObject oc = to.value(QLatin1String("output_check")).toObject();
        pt.outputsCompared = oc.value(QLatin1String("ran")).toBool();
        pt.outputsEqual = !pt.outputsCompared || oc.value(QLatin1String("equal")).toBool();
        pt.outputsMessage = oc.value(pt.outputsCompared ? QLatin1String("message") : QLatin1String("error")).toString();
        pt.returned = str(to, "returned");
        pt.outputsElements = qint64(oc.value(QLatin1String("elements")).toDouble());
        pt.tracedHere = to.value(QLatin1String("traced_here")).toBool();
        pt.repeat = to.value(QLatin1String("repeat")).toBool();
        const QJsonObject replay = to.value(QLatin1String("replay")).toObject();
        pt.replayArchive = str(replay, "archive");
        pt.replayMethod = str(replay, "method");
        pt.replayInputs = str(replay, "inputs");
        pt.replayError = str(replay, "error");
        pt.values = valueDivergenceOf(to.value(QLatin1String("value_divergence")).toObject());
        c.traces.push_back(pt);
    }
    c.warnings = warningsOf(o.value(QLatin1String("warnings")));
    const QJsonObject verdict = o.value(QLatin1String("verdict")).toObject();
    c.checked = verdict.value(QLatin1String("checked")).toBool();
    c.checkPassed = verdict.value(QLatin1String("ok")).toBool(true);
    c.checkMessage = str(verdict, "message");
    c.archive = o.value(QLatin1String("archive")).toString();
    const QJsonObject types = o.value(QLatin1String("module_types")).toObject();
    for (auto it = types.constBegin(); it != types.constEnd(); ++it)
        c.moduleTypes.insert(it.key(), it.value().toString());
    for (const QJsonValue& v : o.value(QLatin1String("state_changes")).toArray()) {
        const QJsonObject change = v.toObject();
        c.stateChanges.push_back(
            { str(change, "module"), str(change, "attribute"), str(change, "before"), str(change, "after") });
    }
    c.requested = o.value(QLatin1String("requested")).toBool();
    return c;
}

PythonModule moduleOf(const QJsonObject& o, const QString& file)
{
    PythonModule m;
    m.className = str(o, "class");
    m.line = o.value(QLatin1String("line")).toInt();
    for (const QJsonValue& i : o.value(QLatin1String("instances")).toArray())
        m.instances << i.toString();
    m.scriptedInstance = str(o, "instance");
    for (const QJsonValue& mv : o.value(QLatin1String("methods")).toArray()) {
        const QJsonObject mo = mv.toObject();
        PythonMethod pm;
        pm.name = str(mo, "name");
        pm.line = mo.value(QLatin1String("line")).toInt();
        pm.modifier = str(mo, "modifier");
        pm.compiled = mo.value(QLatin1String("compiled")).toBool();
        pm.how = str(mo, "how");
        readGraph(mo, pm.graph, pm.text);
        m.methods.push_back(pm);
    }
    for (const QJsonValue& a : o.value(QLatin1String("attributes")).toArray())
        m.attributes.push_back({ str(a.toObject(), "name"), str(a.toObject(), "type"), str(a.toObject(), "value") });
    for (const QJsonValue& a : o.value(QLatin1String("constants")).toArray())
        m.constants.push_back({ str(a.toObject(), "name"), str(a.toObject(), "type"), str(a.toObject(), "value") });
    m.scriptOk = !o.contains(QLatin1String("script_error"));
    if (!m.scriptOk)
        m.scriptError = diagnosticOf(o.value(QLatin1String("script_error")).toObject(), file);
    m.archive = str(o, "archive");
    return m;
}

PythonFunction functionOf(const QJsonObject& o, const QString& file)
{
    PythonFunction f;
    f.name = str(o, "name");
    f.line = o.value(QLatin1String("line")).toInt();
    f.modifier = str(o, "modifier");
    f.scriptOk = o.value(QLatin1String("script_ok")).toBool();
    if (o.contains(QLatin1String("script_error")))
        f.scriptError = diagnosticOf(o.value(QLatin1String("script_error")).toObject(), file);
    readGraph(o, f.graph, f.text);
    return f;
}


PythonRun failed(const QString& path, const QString& status, const QString& message)
{
    PythonRun r;
    r.status = status;
    r.error.location.file = path;
    r.error.message = message;
    return r;
}

/// The last line of the file's stderr that says what went wrong (faulthandler's "Fatal Python error: ..." when
/// the interpreter crashed), for messages.
QString lastErrorLine(const QString& stderrText)
{
    const QStringList lines = stderrText.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (auto it = lines.crbegin(); it != lines.crend(); ++it)
        if (it->startsWith(QLatin1String("Fatal Python error")) || it->contains(QLatin1String("Error")))
            return it->trimmed();
    return {};
}

/// Python crashed (PyTorch's own check segfaults on a trace of a 20,000-step loop): the calls the bridge had
/// completed (calls.jsonl), the one running and what it was doing (progress.json), and the place faulthandler
/// printed (its innermost frame in the user's file, else its innermost frame).
void salvageCrashedRun(const QDir& folder, const QString& file, PythonRun& run)
{
    QFile calls(folder.filePath(QStringLiteral("calls.jsonl")));
    QSet<int> done;
    if (calls.open(QIODevice::ReadOnly))
        while (!calls.atEnd()) {
            const QJsonObject o = QJsonDocument::fromJson(calls.readLine()).object();
            if (o.isEmpty())
                continue;
            run.calls.push_back(callOf(o, file));
            done.insert(run.calls.back().index);
        }
    static const QRegularExpression frame(
        QStringLiteral("^\\s*File \"(.*)\", line (\\d+) in (\\S+)"), QRegularExpression::MultilineOption);
    const int fatal = run.stderrText.lastIndexOf(QLatin1String("Fatal Python error"));
    SourceLocation place;
    for (auto it = frame.globalMatch(run.stderrText, std::max(0, fatal)); it.hasNext();) {
        const auto m = it.next();
        const SourceLocation at { m.captured(1), m.captured(2).toInt(), 0 };
        if (!place.isValid())
            place = at;
        if (at.file == file) {
            place = at;
            break;
        }
    }
    if (place.isValid()) {
        run.error.location = place;
        if (place.file != file)
            run.error.location = SourceLocation { file, 0, 0 };
    }
    QFile progress(folder.filePath(QStringLiteral("progress.json")));
    if (progress.open(QIODevice::ReadOnly)) {
        const QJsonObject p = QJsonDocument::fromJson(progress.readAll()).object();
        if (!p.isEmpty() && !done.contains(p.value(QLatin1String("index")).toInt())) {
            run.error.message += QStringLiteral(", during torch.jit.%1 at line %2 (%3)")
                                     .arg(str(p, "api"))
                                     .arg(p.value(QLatin1String("line")).toInt())
                                     .arg(str(p, "phase"));
            if (!run.error.location.isValid())
                run.error.location = SourceLocation { file, p.value(QLatin1String("line")).toInt(), 0 };
        }
    }
    if (place.isValid() && place.file != file)
        run.error.message += QStringLiteral("; Python was at %1:%2").arg(place.file).arg(place.line);
    if (!done.isEmpty())
        run.error.message += QStringLiteral("; the %1 call(s) recorded before it are kept").arg(done.size());
}

} // namespace

std::shared_ptr<const PythonRunFolder> makePythonRunFolder(QString* path, QString* error)
{
    auto folder = std::make_shared<PythonRunFolder>();
    if (!folder->dir.isValid()) {
        if (error)
            *error = QStringLiteral("cannot make a temporary folder: %1").arg(folder->dir.errorString());
        return {};
    }
    *path = folder->dir.path();
    return folder;
}

bool readPythonRecord(const QString& folder, PythonRun& run, QString* error)
{
    QFile record(QDir(folder).filePath(QStringLiteral("result.json")));
    QString why;
    if (record.open(QIODevice::ReadOnly) && parsePythonRecord(record.readAll(), run, &why))
        return true;
    if (error)
        *error = QStringLiteral("the run's record could not be read: %1").arg(why.isEmpty() ? record.errorString() : why);
    return false;
}

bool parsePythonRecord(const QByteArray& json, PythonRun& run, QString* error)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (!doc.isObject()) {
        if (error)
            *error = QStringLiteral("the bridge's record is not JSON: %1").arg(pe.errorString());
        return false;
    }
    const QJsonObject o = doc.object();
    if (o.value(QLatin1String("protocol")).toInt() != 1) {
        if (error)
            *error = QStringLiteral("the bridge speaks protocol %1, JitScope 1")
                         .arg(o.value(QLatin1String("protocol")).toInt());
        return false;
    }
    const QString file = str(o, "file");
    run.status = str(o, "status");
    run.torchVersion = str(o, "torch");
    for (const QJsonValue& n : o.value(QLatin1String("notices")).toArray())
        run.notices << n.toString();
    run.exitCode = o.value(QLatin1String("exit_code")).toInt();
    if (o.contains(QLatin1String("error")))
        run.error = diagnosticOf(o.value(QLatin1String("error")).toObject(), file);
    for (const QJsonValue& c : o.value(QLatin1String("calls")).toArray())
        run.calls.push_back(callOf(c.toObject(), file));
    for (const QJsonValue& m : o.value(QLatin1String("modules")).toArray())
        run.modules.push_back(moduleOf(m.toObject(), file));
    for (const QJsonValue& f : o.value(QLatin1String("functions")).toArray())
        run.functions.push_back(functionOf(f.toObject(), file));
    const QJsonObject sets = o.value(QLatin1String("input_sets")).toObject();
    run.inputs = setOf(sets.value(QLatin1String("inputs")));
    for (const QJsonValue& c : sets.value(QLatin1String("check_inputs")).toArray())
        run.checkInputs << setOf(c);
    if (o.contains(QLatin1String("request"))) {
        const QJsonObject ro = o.value(QLatin1String("request")).toObject();
        PythonRequestResult& r = run.request;
        r.served = true;
        r.ok = ro.value(QLatin1String("ok")).toBool();
        r.target = str(ro, "target");
        if (ro.contains(QLatin1String("error")))
            r.error = diagnosticOf(ro.value(QLatin1String("error")).toObject(), file);
        if (ro.contains(QLatin1String("call")))
            r.call = callOf(ro.value(QLatin1String("call")).toObject(), file);
        r.outputs = str(ro, "outputs");
        for (const QJsonValue& f : ro.value(QLatin1String("flattened")).toArray())
            r.flattened << f.toString();
        r.warnings = warningsOf(ro.value(QLatin1String("warnings")));
    }
    run.ok = true;
    return true;
}
PythonRun readPythonRun(
    const QString& path, const PythonChild& child, std::shared_ptr<const PythonRunFolder> folder, const QString& where)
{
    if (!child.startError.isEmpty())
        return failed(path, QStringLiteral("error"), child.startError);
    PythonRun run;
    run.python = child.python;
    run.stdoutText = child.stdoutText;
    run.stderrText = child.stderrText;
    run.outputTruncated = child.outputTruncated;
    run.folder = where;
    run.folderHandle = std::move(folder);
    run.error.location.file = path;
    if (!child.stopped.isEmpty()) {
        run.status = child.stopped;
        run.error.message = child.stopped == QLatin1String("cancelled")
            ? QStringLiteral("Python run cancelled")
            : QStringLiteral("Python did not finish within %1 s (a loop that never ends?); stopped")
                  .arg(child.timeoutMs / 1000.0);
        return run;
    }
    QFile record(QDir(where).filePath(QStringLiteral("result.json")));
    if (child.crashed || !record.open(QIODevice::ReadOnly)) {
        run.status = QStringLiteral("crashed");
        const QString why = lastErrorLine(run.stderrText);
        run.error.message = child.crashed
            ? QStringLiteral("Python stopped abnormally (killed by a signal)%1")
                  .arg(why.isEmpty() ? QString() : QStringLiteral(": ") + why)
            : QStringLiteral("Python exited with status %1 before the bridge wrote its record%2")
                  .arg(child.exitCode)
                  .arg(why.isEmpty() ? QString() : QStringLiteral(": ") + why);
        salvageCrashedRun(QDir(where), QFileInfo(path).absoluteFilePath(), run);
        return run;
    }
    QString parseError;
    if (!parsePythonRecord(record.readAll(), run, &parseError)) {
        run.status = QStringLiteral("crashed");
        run.error.message = parseError;
    }
    return run;
}

} // namespace jitscope
