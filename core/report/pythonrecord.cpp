// A Python run read back from the bridge's record (result.json, its fields listed in docs/python-record.md and
// resources/python/jitscope_record_schema.json), and from what its child process left when it ended some other way
// (calls.jsonl, progress.json): values only, so that the window reads a run the model worker made.

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

#include <algorithm>

namespace jitscope {

struct PythonRunFolder
{
    QTemporaryDir dir { QDir::tempPath() + QStringLiteral("/jitscope-python-XXXXXX") };
};

namespace {

/// While pythonRecordFieldsRead() runs: every field of the record read on this thread, by its path.
thread_local QSet<QString>* t_fieldsRead = nullptr;

/// An object of the record and where it is in it ("calls[].traces[]"). Every field is read through it, so that
/// pythonRecordFieldsRead() can name each one the reader reads, and tst_pythonrun hold them to the schema.
class Fields
{
public:
    Fields(QJsonObject object, QString path)
        : m_object(std::move(object))
        , m_path(std::move(path))
    { }

    QJsonValue value(const char* key) const
    {
        if (t_fieldsRead)
            t_fieldsRead->insert(pathOf(key));
        return m_object.value(QLatin1String(key));
    }
    bool contains(const char* key) const
    {
        if (t_fieldsRead)
            t_fieldsRead->insert(pathOf(key));
        return m_object.contains(QLatin1String(key));
    }
    bool isEmpty() const { return m_object.isEmpty(); }
    QString str(const char* key) const { return value(key).toString(); }
    int integer(const char* key, int otherwise = 0) const { return value(key).toInt(otherwise); }
    bool boolean(const char* key, bool otherwise = false) const { return value(key).toBool(otherwise); }
    Fields object(const char* key) const { return { value(key).toObject(), childPath(key, "") }; }
    /// An array of objects.
    QVector<Fields> objects(const char* key) const
    {
        QVector<Fields> out;
        const QString path = childPath(key, "[]");
        for (const QJsonValue& v : value(key).toArray())
            out.push_back({ v.toObject(), path });
        return out;
    }
    QStringList strings(const char* key) const
    {
        QStringList out;
        for (const QJsonValue& v : value(key).toArray())
            out << v.toString();
        return out;
    }

private:
    QString pathOf(const char* key) const
    {
        return m_path.isEmpty() ? QString::fromLatin1(key) : m_path + QLatin1Char('.') + QLatin1String(key);
    }
    QString childPath(const char* key, const char* suffix) const
    {
        return t_fieldsRead ? pathOf(key) + QLatin1String(suffix) : QString();
    }

    QJsonObject m_object;
    QString m_path;
};

SourceLocation locationOf(const Fields& o, const char* fileKey, const char* lineKey, const char* columnKey = nullptr)
{
    return { o.str(fileKey), o.integer(lineKey), columnKey ? o.integer(columnKey) : 0 };
}

/// A Python exception as one diagnostic: TorchScript's own first line for compile errors ("cannot statically
/// infer..."), else "Type: message", at the user's place.
Diagnostic diagnosticOf(const Fields& e, const QString& file)
{
    Diagnostic d;
    d.location = locationOf(e, "file", "line", "column");
    if (d.location.file.isEmpty())
        d.location.file = file;
    // TorchScript's compile errors say what is wrong on their first line, as the .py loader reports them;
    // other exceptions read as Python prints them: "ValueError: message".
    const QString summary = e.str("summary");
    const QString type = e.str("type");
    const QString message = e.str("message").section(QLatin1Char('\n'), 0, 0).trimmed();
    if (!summary.isEmpty())
        d.message = summary;
    else
        d.message = type.isEmpty() || message.startsWith(type) ? message : type + QStringLiteral(": ") + message;
    return d;
}

/// The "graph" member of a record: the IR snapshot and the text PyTorch printed for it.
void readGraph(const Fields& record, IrGraph& graph, QString& text)
{
    const QJsonValue v = record.value("graph");
    if (!v.isObject())
        return;
    graph = IrGraph::fromJson(v.toObject());
    text = record.object("graph").str("text");
}

/// A value the bridge described: its SET syntax.
QString setOf(const Fields& value)
{
    return value.str("set");
}

QVector<PythonWarning> warningsOf(const QVector<Fields>& warnings)
{
    QVector<PythonWarning> out;
    for (const Fields& o : warnings) {
        PythonWarning pw;
        pw.category = o.str("category");
        pw.message = o.str("message");
        pw.location = locationOf(o, "file", "line");
        pw.userCode = o.boolean("user");
        for (const Fields& f : o.objects("stack"))
            pw.stack.push_back(PythonFrame { locationOf(f, "file", "line"), f.str("function") });
        if (o.contains("user_line"))
            pw.userLocation = locationOf(o, "user_file", "user_line");
        pw.count = std::max(1, o.integer("count", 1));
        pw.hidden = o.boolean("hidden");
        out.push_back(pw);
    }
    return out;
}

ValueDivergence valueDivergenceOf(const Fields& o)
{
    ValueDivergence v;
    if (o.isEmpty())
        return v;
    v.present = true;
    v.error = o.str("error");
    v.node = o.integer("node", -1);
    v.op = o.str("kind");
    v.module = o.str("module");
    v.cause = o.str("cause");
    v.message = o.str("message");
    v.traceValue = o.str("trace");
    v.otherValue = o.str("python");
    v.otherOp = o.str("python_op");
    v.otherAt = locationOf(o, "python_file", "python_line");
    v.randomNode = o.integer("random_node", -1);
    for (const Fields& op : o.objects("operands")) {
        const QString what = op.str("what");
        const QString trace = op.str("trace");
        const QJsonValue agrees = op.value("agrees");
        const bool hasPython = op.contains("python");
        const QString python = op.str("python");
        const int index = op.integer("index");
        // Side by side: Python's value where its call took the same operand, else the trace's where they agree.
        if (!trace.isEmpty())
            v.operandRows << ValueRow { QStringLiteral("operand %1").arg(index), trace,
                hasPython             ? python
                    : agrees.toBool() ? trace
                                      : QString() };
        const QStringList arithmetic = op.strings("arithmetic");
        const QStringList dtypes = op.strings("dtypes");
        if (what.isEmpty() && agrees.toBool(true))
            continue; // an operand that agrees, or a flag: said by the message when it matters
        QString text = QStringLiteral("operand %1").arg(index);
        if (!what.isEmpty())
            text += QStringLiteral(" (%1)").arg(what);
        text += QStringLiteral(": %1 in the trace").arg(trace);
        if (hasPython)
            text += QStringLiteral(", %1 in Python").arg(python);
        if (!arithmetic.isEmpty())
            text += QStringLiteral(", computed by %1").arg(arithmetic.join(QStringLiteral(", ")));
        if (!dtypes.isEmpty())
            text += QStringLiteral(" in %1").arg(dtypes.join(QLatin1Char('/')));
        v.operands << text;
    }
    return v;
}

/// One issue of a failed export (the record's export_finding).
ExportFinding exportFindingOf(const Fields& o)
{
    ExportFinding f;
    f.kind = o.str("kind");
    f.type = o.str("type");
    f.message = o.str("message");
    f.expression = o.str("expression");
    f.guard = o.str("guard");
    f.userLocation = locationOf(o, "file", "line");
    f.userText = o.str("text");
    if (o.contains("library_line")) {
        f.libraryLocation = locationOf(o, "library_file", "library_line");
        f.libraryText = o.str("library_text");
    }
    for (const Fields& frame : o.objects("stack")) {
        f.stack.push_back(locationOf(frame, "file", "line"));
        f.stackFunctions << frame.str("function");
    }
    f.suggestedFix = o.str("suggested_fix");
    return f;
}

/// The call's torch.export (the record's "export", version 1.2): the table's trace column is the check's.
ExportReport exportOf(const Fields& o)
{
    ExportReport r;
    r.requested = true;
    r.status = o.str("status");
    r.torchVersion = o.str("torch");
    r.reason = o.str("reason");
    for (const Fields& d : o.objects("dynamic")) {
        QStringList dims;
        for (const QJsonValue& v : d.value("dims").toArray())
            dims << QString::number(v.toInt());
        const QString name = d.str("name");
        const int input = d.integer("input");
        r.dynamic << QStringLiteral("%1: %2").arg(
            name.isEmpty() ? QStringLiteral("input %1").arg(input) : name, dims.join(QStringLiteral(", ")));
    }
    r.dynamicBy = o.str("dynamic_by");
    for (const Fields& f : o.objects("findings"))
        r.findings.push_back(exportFindingOf(f));
    for (const Fields& f : o.objects("draft"))
        r.draft.push_back(exportFindingOf(f));
    r.draftError = o.str("draft_error");
    for (const Fields& f : o.objects("ranges")) {
        ExportFact fact { f.str("text"), f.str("name"), f.str("symbol"), locationOf(f, "file", "line"), {} };
        const QString least = f.str("min");
        const QString greatest = f.str("max");
        if (fact.text.isEmpty())
            fact.text = QStringLiteral("%1 (%2) in %3..%4").arg(fact.name, fact.symbol, least, greatest);
        r.ranges.push_back(fact);
    }
    for (const Fields& f : o.objects("specializations")) {
        ExportFact fact { f.str("text"), f.str("name"), f.str("symbol"), locationOf(f, "file", "line"),
            f.str("source") };
        fact.text = QStringLiteral("%1 specialized to %2").arg(fact.name).arg(f.integer("value"));
        if (f.contains("library_line")) { // where it happened, in the library the user's line called
            fact.text += QStringLiteral(" (in %1:%2: %3)")
                             .arg(QFileInfo(f.str("library_file")).fileName())
                             .arg(f.integer("library_line"))
                             .arg(f.str("library_text"));
        }
        r.specializations.push_back(fact);
    }
    for (const Fields& f : o.objects("sets"))
        r.sets.push_back({ f.integer("set"), {}, f.str("status"), f.str("message") });
    r.program = o.str("program");
    r.programError = o.str("program_error");
    r.seconds = o.value("seconds").toDouble();
    return r;
}

ObservedParting partingOf(const Fields& o)
{
    ObservedParting p;
    if (o.isEmpty())
        return p;
    p.present = true;
    p.location = locationOf(o, "file", "line");
    p.function = o.str("function");
    p.statement = o.str("statement");
    p.text = o.str("text");
    p.condition = o.str("condition");
    const QStringList values = o.strings("values");
    p.firstValues = values.value(0);
    p.otherValues = values.value(1);
    for (const Fields& op : o.objects("operands")) {
        const QStringList v = op.strings("values");
        p.operands << ValueRow { op.str("text"), v.value(0), v.value(1) };
    }
    const QJsonArray iterations = o.value("iterations").toArray();
    if (iterations.size() == 2) {
        p.firstIterations = iterations[0].toInt(-1);
        p.otherIterations = iterations[1].toInt(-1);
    }
    // Innermost first, as every stack JitScope holds.
    const QVector<Fields> frames = o.objects("stack");
    for (auto f = frames.crbegin(); f != frames.crend(); ++f)
        p.stack << locationOf(*f, "file", "line");
    return p;
}

PythonCall callOf(const Fields& o, const QString& file)
{
    PythonCall c;
    c.index = o.integer("index");
    c.api = o.str("api");
    c.location = locationOf(o, "file", "line");
    const Fields target = o.object("target");
    c.target = target.str("name");
    c.targetKind = target.str("kind");
    c.targetLine = target.integer("line");
    c.ok = o.boolean("ok");
    if (o.contains("error"))
        c.error = diagnosticOf(o.object("error"), file);
    c.exampleInputs = setOf(o.object("example_inputs"));
    for (const Fields& ci : o.objects("check_inputs"))
        c.checkInputs << setOf(ci);
    readGraph(o, c.graph, c.text);
    for (const Fields& to : o.objects("traces")) {
        PythonTrace pt;
        pt.inputs = setOf(to.object("inputs"));
        pt.ok = to.contains("graph");
        if (to.contains("error"))
            pt.error = diagnosticOf(to.object("error"), file);
        readGraph(to, pt.graph, pt.text);
        pt.warnings = warningsOf(to.objects("warnings"));
        const Fields oc = to.object("output_check");
        pt.outputsCompared = oc.boolean("ran");
        pt.outputsEqual = !pt.outputsCompared || oc.boolean("equal");
        const QString message = oc.str("message");
        const QString error = oc.str("error");
        pt.outputsMessage = pt.outputsCompared ? message : error;
        pt.returned = to.str("returned");
        pt.outputsElements = qint64(oc.value("elements").toDouble());
        pt.tracedHere = to.boolean("traced_here");
        pt.repeat = to.boolean("repeat");
        const Fields replay = to.object("replay");
        pt.replayArchive = replay.str("archive");
        pt.replayMethod = replay.str("method");
        pt.replayInputs = replay.str("inputs");
        pt.replayError = replay.str("error");
        pt.values = valueDivergenceOf(to.object("value_divergence"));
        pt.parting = partingOf(to.object("parting"));
        c.traces.push_back(pt);
    }
    c.warnings = warningsOf(o.objects("warnings"));
    const Fields verdict = o.object("verdict");
    c.checked = verdict.boolean("checked");
    c.checkPassed = verdict.boolean("ok", true);
    c.checkMessage = verdict.str("message");
    c.archive = o.str("archive"); // empty when saving failed ({"error": ...})
    const QJsonObject types = o.value("module_types").toObject();
    for (auto it = types.constBegin(); it != types.constEnd(); ++it)
        c.moduleTypes.insert(it.key(), it.value().toString());
    for (const Fields& change : o.objects("state_changes"))
        c.stateChanges.push_back(
            { change.str("module"), change.str("attribute"), change.str("before"), change.str("after") });
    c.requested = o.boolean("requested");
    if (o.contains("export"))
        c.exported = exportOf(o.object("export"));
    return c;
}

QVector<PythonModule::Attribute> attributesOf(const QVector<Fields>& attributes)
{
    QVector<PythonModule::Attribute> out;
    for (const Fields& a : attributes)
        out.push_back({ a.str("name"), a.str("type"), a.str("value") });
    return out;
}

PythonModule moduleOf(const Fields& o, const QString& file)
{
    PythonModule m;
    m.className = o.str("class");
    m.line = o.integer("line");
    m.instances = o.strings("instances");
    m.scriptedInstance = o.str("instance");
    for (const Fields& mo : o.objects("methods")) {
        PythonMethod pm;
        pm.name = mo.str("name");
        pm.line = mo.integer("line");
        pm.modifier = mo.str("modifier");
        pm.compiled = mo.boolean("compiled");
        pm.how = mo.str("how");
        readGraph(mo, pm.graph, pm.text);
        m.methods.push_back(pm);
    }
    m.attributes = attributesOf(o.objects("attributes"));
    m.constants = attributesOf(o.objects("constants"));
    m.scriptOk = !o.contains("script_error");
    if (!m.scriptOk)
        m.scriptError = diagnosticOf(o.object("script_error"), file);
    m.archive = o.str("archive");
    return m;
}

PythonFunction functionOf(const Fields& o, const QString& file)
{
    PythonFunction f;
    f.name = o.str("name");
    f.line = o.integer("line");
    f.modifier = o.str("modifier");
    f.scriptOk = o.boolean("script_ok");
    if (o.contains("script_error"))
        f.scriptError = diagnosticOf(o.object("script_error"), file);
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
            const Fields o { QJsonDocument::fromJson(calls.readLine()).object(), QStringLiteral("calls[]") };
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
        const Fields p { QJsonDocument::fromJson(progress.readAll()).object(), QStringLiteral("progress.json") };
        if (!p.isEmpty() && !done.contains(p.integer("index"))) {
            const int line = p.integer("line");
            run.error.message += QStringLiteral(", during torch.jit.%1 at line %2 (%3)")
                                     .arg(p.str("api"))
                                     .arg(line)
                                     .arg(p.str("phase"));
            if (!run.error.location.isValid())
                run.error.location = SourceLocation { file, line, 0 };
        }
    }
    if (place.isValid() && place.file != file)
        run.error.message += QStringLiteral("; Python was at %1:%2").arg(place.file).arg(place.line);
    if (!done.isEmpty())
        run.error.message += QStringLiteral("; the %1 call(s) recorded before it are kept").arg(done.size());
}

} // namespace

PythonProgress readPythonProgress(const QString& folder)
{
    PythonProgress progress;
    QFile file(QDir(folder).filePath(QStringLiteral("progress.json")));
    if (!file.open(QIODevice::ReadOnly))
        return progress;
    const Fields p { QJsonDocument::fromJson(file.readAll()).object(), QStringLiteral("progress.json") };
    if (p.isEmpty())
        return progress; // being replaced
    progress.valid = true;
    progress.call = p.integer("index") + 1;
    progress.callsExpected = p.integer("calls_expected");
    progress.api = p.str("api");
    progress.target = p.str("target");
    progress.location = SourceLocation { p.str("file"), p.integer("line"), 0 };
    progress.phase = p.str("phase");
    progress.step = p.str("step");
    progress.check = p.integer("check");
    progress.checks = p.integer("checks");
    return progress;
}

QString PythonProgress::text() const
{
    QString s = callsExpected >= call ? QStringLiteral("call %1/%2").arg(call).arg(callsExpected)
                                      : QStringLiteral("call %1").arg(call);
    if (!target.isEmpty())
        s += QStringLiteral(" `%1`").arg(target);
    s += QStringLiteral(" (%1:%2): ").arg(QFileInfo(location.file).fileName()).arg(location.line);
    const QString set = QStringLiteral("check set %1 of %2").arg(check).arg(std::max(check, checks));
    if (step == QLatin1String("tracing"))
        s += api == QLatin1String("script") ? QStringLiteral("scripting") : QStringLiteral("tracing");
    else if (step == QLatin1String("check-tracing"))
        s += set + QStringLiteral(", tracing");
    else if (step == QLatin1String("check-comparing"))
        s += set + QStringLiteral(", comparing with trace 1");
    else if (step == QLatin1String("values"))
        s += set + QStringLiteral(", comparing values");
    else if (step == QLatin1String("exporting"))
        s += QStringLiteral("exporting with torch.export");
    else if (step == QLatin1String("export-checking"))
        s += check == 0 ? QStringLiteral("running the exported program on the example inputs")
                        : QStringLiteral("export check set %1 of %2").arg(check).arg(std::max(check, checks));
    else
        s += phase;
    return s;
}

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
        *error
            = QStringLiteral("the run's record could not be read: %1").arg(why.isEmpty() ? record.errorString() : why);
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
    const Fields o { doc.object(), QString() };
    // MAJOR.MINOR (docs/python-record.md): a newer minor version only adds fields, which this reader passes over.
    const QString version = o.str("record_version");
    static const QRegularExpression versionForm(QStringLiteral("^(\\d+)\\.(\\d+)$"));
    const QRegularExpressionMatch v = versionForm.match(version);
    if (!v.hasMatch() || v.captured(1).toInt() != kPythonRecordMajorVersion) {
        if (error)
            *error = QStringLiteral("result.json %1: this JitScope reads %2.x")
                         .arg(version.isEmpty() ? QStringLiteral("without a record version")
                                                : QStringLiteral("of record version %1").arg(version))
                         .arg(kPythonRecordMajorVersion);
        return false;
    }
    const QString file = o.str("file");
    run.status = o.str("status");
    run.torchVersion = o.str("torch");
    run.notices = o.strings("notices");
    run.exitCode = o.integer("exit_code");
    if (o.contains("error"))
        run.error = diagnosticOf(o.object("error"), file);
    for (const Fields& c : o.objects("calls"))
        run.calls.push_back(callOf(c, file));
    for (const Fields& m : o.objects("modules"))
        run.modules.push_back(moduleOf(m, file));
    for (const Fields& f : o.objects("functions"))
        run.functions.push_back(functionOf(f, file));
    const Fields sets = o.object("input_sets");
    run.inputs = setOf(sets.object("inputs"));
    for (const Fields& c : sets.objects("check_inputs"))
        run.checkInputs << setOf(c);
    if (o.contains("request")) {
        const Fields ro = o.object("request");
        PythonRequestResult& r = run.request;
        r.served = true;
        r.ok = ro.boolean("ok");
        r.target = ro.str("target");
        if (ro.contains("error"))
            r.error = diagnosticOf(ro.object("error"), file);
        if (ro.contains("call"))
            r.call = callOf(ro.object("call"), file);
        r.outputs = ro.str("outputs");
        r.flattened = ro.strings("flattened");
        r.warnings = warningsOf(ro.objects("warnings"));
    }
    run.ok = true;
    return true;
}

QSet<QString> pythonRecordFieldsRead(const std::function<void()>& read)
{
    QSet<QString> fields;
    t_fieldsRead = &fields;
    read();
    t_fieldsRead = nullptr;
    return fields;
}

PythonRun readPythonRun(
    const QString& path, const PythonChild& child, std::shared_ptr<const PythonRunFolder> folder, const QString& where)
{
    if (!child.startError.isEmpty())
        return failed(path, QStringLiteral("error"), child.startError);
    PythonRun run;
    run.python = child.python;
    run.warm = child.warm;
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
