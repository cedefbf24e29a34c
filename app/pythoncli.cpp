#include "pythoncli.h"

#include "bridge/pythoncheck.h"
#include "bridge/selfcheckcalls.h"
#include "layout/layout.h"
#include "load/model.h"
#include "progress.h"
#include "reports.h"
#include "trace/trace.h"

#include <algorithm>

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <list>
#include <optional>

namespace jitscope {

namespace {

QString callTitle(const PythonCall& c)
{
    if (c.requested)
        return QStringLiteral("torch.jit.trace(%1) on --inputs").arg(c.target);
    return QStringLiteral("line %1: torch.jit.%2(%3)").arg(c.location.line).arg(c.api, c.target);
}

void writeJson(const QJsonValue& v, QTextStream& out)
{
    out << (v.isArray() ? QJsonDocument(v.toArray()) : QJsonDocument(v.toObject())).toJson(QJsonDocument::Indented);
}

/// The interpreter the run used, as reports name it.
PythonInterpreter runInterpreter(const PythonRun& run)
{
    return { run.python, run.pythonChosenBy, run.torchVersion };
}

/// The one message for a file whose imports fail under the interpreter ("model.py imports `mypkg`, which
/// /venv/bin/python (torch 2.13.0, chosen as the active virtual environment) does not have: ..."), or empty when
/// the run's error is another.
QString missingModuleMessage(const PythonRun& run)
{
    const QString module = missingModule(run.error.message);
    if (module.isEmpty())
        return {};
    const QString file = run.error.location.file.isEmpty() ? QStringLiteral("the file")
                                                           : QFileInfo(run.error.location.file).fileName();
    return QStringLiteral("%1 imports `%2`, which %3 does not have: choose another with --python=PATH or "
                          "$JITSCOPE_PYTHON")
        .arg(file, module, interpreterText(runInterpreter(run)));
}

/// Runs the file; echoes what it printed to @p err. Returns false (after printing the error line) when nothing
/// usable was recorded.
bool runFile(const PythonCommand& command, PythonRun& run, QTextStream& err)
{
    {
        ProgressScope progress(QStringLiteral("running %1 under PyTorch").arg(QFileInfo(command.file).fileName()));
        PythonOptions options = command.options;
        if (ProgressScope::enabled())
            options.onProgress = [&progress](const PythonProgress& p) { progress.setText(p.text()); };
        run = runPythonFile(command.file, options);
    }
    run.pythonChosenBy = choosePython(command.options.python).chosenBy;
    if (!run.stdoutText.isEmpty() || !run.stderrText.isEmpty())
        err << run.stdoutText << run.stderrText << Qt::flush;
    if (!run.ok) {
        const QString missing = missingModuleMessage(run);
        err << "jitscope-cli: error: " << (missing.isEmpty() ? run.error.toString() : missing) << "\n";
        // Python crashed after some calls were recorded: those are reported, and finish() exits 2.
        return !run.calls.isEmpty();
    }
    return true;
}

bool requested(const PythonCommand& command)
{
    return command.options.request.mode != PythonRequest::Mode::None;
}

/// The calls a command reports: the requested one, or the file's own.
QVector<PythonCall> reportedCalls(const PythonCommand& command, const PythonRun& run)
{
    return requested(command) ? QVector<PythonCall> { run.request.call } : run.calls;
}

/// The file's own failure, unless it is a recorded call's (a TracingCheckError is the check's finding).
bool fileFailed(const PythonRun& run)
{
    if (run.status == QLatin1String("exit"))
        return run.exitCode != 0;
    return run.status == QLatin1String("error") && run.failedCall() < 0;
}

int finish(const PythonRun& run, int status, QTextStream& err);

/// False (after the error line) when the request was not served or failed.
bool requestServed(const PythonCommand& command, const PythonRun& run, QTextStream& err)
{
    if (!requested(command))
        return true;
    if (!run.request.served) {
        finish(run, 2, err);
        if (run.status == QLatin1String("ok"))
            err << "jitscope-cli: error: " << command.file << ": the bridge did not answer the request\n";
        return false;
    }
    if (!run.request.ok) {
        err << "jitscope-cli: error: " << run.request.error.toString() << "\n";
        return false;
    }
    return true;
}

int finish(const PythonRun& run, int status, QTextStream& err)
{
    if (!run.ok)
        return 2; // said by runFile()
    if (run.status == QLatin1String("exit") && run.exitCode != 0) {
        err << "jitscope-cli: error: " << run.error.location.file << ": the file called sys.exit(" << run.exitCode
            << ")\n";
        return 2;
    }
    if (fileFailed(run)) {
        const QString missing = missingModuleMessage(run);
        err << "jitscope-cli: error: " << (missing.isEmpty() ? run.error.toString() : missing) << "\n";
        return 2;
    }
    return status;
}

QString sourceLine(const QStringList& lines, int line)
{
    return line >= 1 && line <= lines.size() ? lines[line - 1] : QString();
}

/// A library file's lines (torchvision's, torch.nn's), read once.
const QStringList& libraryLines(const QString& path)
{
    static QHash<QString, QStringList> files;
    auto it = files.find(path);
    if (it == files.end()) {
        QFile f(path);
        it = files.insert(path,
            f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).split(QLatin1Char('\n')) : QStringList());
    }
    return *it;
}

QString readSource(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// The self-check with the terminal's progress line.
SelfCheck selfCheckCall(const PythonCommand& command, const PythonCall& call, const LoadResult& builtIn)
{
    std::optional<ProgressScope> progress;
    return selfCheckCall(
        command.file, command.options, call, builtIn, [&progress](const QString& text, int step, int steps) {
            if (!progress)
                progress.emplace(text);
            if (steps > 0)
                progress->step(text, step, steps);
        });
}

/// `trace FILE.py --python --fn NAME --inputs SET ...`: as the built-in trace prints its traces.
int requestedTrace(const PythonCommand& command, const PythonRun& run, QTextStream& out, QTextStream& err)
{
    const PythonCall& c = run.request.call;
    bool failed = false;
    if (command.format != QLatin1String("json"))
        out << "# python: " << interpreterText(runInterpreter(run)) << "\n";
    if (!run.request.flattened.isEmpty() && command.format != QLatin1String("json"))
        out << "# traced through an adapter taking the tensors of the inputs flat, as detectron2's TracingAdapter: "
            << run.request.flattened.join(QStringLiteral(", ")) << "\n";
    TraceListing listing { command.file, run.request.target, run.request.flattened };
    for (int k = 0; k < c.traces.size(); ++k) {
        const PythonTrace& t = c.traces[k];
        failed |= !t.ok;
        if (command.format == QLatin1String("json")) {
            listing.traces << traceEntry(t);
            continue;
        }
        if (c.traces.size() > 1)
            out << "# trace " << k + 1 << ": " << t.inputs << "\n";
        if (t.ok)
            out << t.text << "# returned: " << t.returned << "\n";
        else
            out << "# failed: " << t.error.toString() << "\n";
    }
    if (command.format == QLatin1String("json"))
        writeJson(traceJson(listing), out);
    if (c.traces.isEmpty()) {
        err << "jitscope-cli: error: "
            << (c.ok ? QStringLiteral("%1: nothing was traced").arg(command.file) : c.error.toString()) << "\n";
        return 2;
    }
    if (failed)
        for (const PythonTrace& t : c.traces)
            if (!t.ok) {
                err << "jitscope-cli: error: " << t.error.toString() << " (input set " << t.inputs << ")\n";
                return 2;
            }
    return finish(run, 0, err);
}

} // namespace

int pythonGraphCommand(const PythonCommand& command, QTextStream& out, QTextStream& err)
{
    PythonRun run;
    if (!runFile(command, run, err))
        return 2;
    struct Shown
    {
        QString title;
        QString function; ///< the scripted function or method, the call's target
        const IrGraph* graph;
        QString text;
        QHash<QString, QString> moduleTypes; ///< a traced module's submodule classes by path
    };
    QVector<Shown> shown;
    QString error;
    auto callGraph = [](const PythonCall& c) -> std::pair<const IrGraph*, QString> {
        // What the example inputs recorded, every submodule call inlined (also when the check failed).
        if (!c.traces.isEmpty() && c.traces[0].ok)
            return { &c.traces[0].graph, c.traces[0].text };
        if (!c.text.isEmpty())
            return { &c.graph, c.text };
        return { nullptr, QString() };
    };
    if (!command.function.isEmpty()) {
        QStringList names;
        for (const PythonFunction& f : run.functions) {
            names << f.name;
            if (f.name != command.function)
                continue;
            if (!f.scriptOk)
                error = QStringLiteral("%1 does not script: %2 (its traces: graph --call N)")
                            .arg(f.name, f.scriptError.toString());
            else
                shown.push_back({ QStringLiteral("torch.jit.script(%1)").arg(f.name), f.name, &f.graph, f.text });
        }
        for (const PythonModule& m : run.modules)
            for (const PythonMethod& pm : m.methods) {
                const QString name = m.className + QLatin1Char('.') + pm.name;
                if (pm.compiled)
                    names << name;
                if (name != command.function)
                    continue;
                if (!m.scriptOk)
                    error = QStringLiteral("%1 does not script: %2").arg(m.className, m.scriptError.toString());
                else if (!pm.compiled || pm.text.isEmpty())
                    error = QStringLiteral("%1 is not compiled by torch.jit.script%2")
                                .arg(name,
                                    pm.modifier.isEmpty() ? QString()
                                                          : QStringLiteral(" (@torch.jit.%1)").arg(pm.modifier));
                else
                    shown.push_back({ QStringLiteral("torch.jit.script(%1)").arg(name), name, &pm.graph, pm.text });
            }
        if (shown.isEmpty() && error.isEmpty())
            error = QStringLiteral("%1: no function or module method named '%2' (have: %3)")
                        .arg(command.file, command.function, names.join(QStringLiteral(", ")));
    } else if (command.call > 0) {
        if (command.call > run.calls.size())
            error = QStringLiteral("%1: --call %2, but the file made %3 torch.jit call(s)")
                        .arg(command.file)
                        .arg(command.call)
                        .arg(run.calls.size());
        else {
            const PythonCall& c = run.calls[command.call - 1];
            const auto [graph, text] = callGraph(c);
            if (graph)
                shown.push_back({ callTitle(c), c.target, graph, text, c.moduleTypes });
            else
                error = QStringLiteral("call %1 (%2) recorded no graph: %3")
                            .arg(command.call)
                            .arg(callTitle(c), c.error.toString());
        }
    } else {
        for (const PythonCall& c : run.calls) {
            const auto [graph, text] = callGraph(c);
            if (graph)
                shown.push_back({ callTitle(c), c.target, graph, text, c.moduleTypes });
        }
        if (shown.isEmpty())
            error = QStringLiteral("%1: the file made no torch.jit.trace or script call that recorded a graph")
                        .arg(command.file);
    }
    if (!error.isEmpty()) {
        finish(run, 0, err);
        err << "jitscope-cli: error: " << error << "\n";
        return 2;
    }
    if (command.format == QLatin1String("svg") && shown.size() > 1) {
        err << "jitscope-cli: error: " << command.file << ": " << shown.size()
            << " graphs, and an SVG holds one: choose with --call N or --fn NAME\n";
        return 2;
    }
    QJsonArray graphs;
    for (const Shown& g : shown) {
        if (command.format == QLatin1String("text")) {
            if (shown.size() > 1 || command.call > 0)
                out << "# " << g.title << "\n";
            out << g.text;
        } else if (command.format == QLatin1String("json")) {
            graphs.append(graphJson(GraphDocument { command.file, g.function, QString(), g.title, g.text, g.graph }));
        } else {
            // As the window lays a model out: with --modules grouped by module, a big graph module by module.
            LayoutOptions options;
            options.groupByModule = command.modules;
            options.hideUnreachable = command.modules;
            if (command.modules)
                options.moduleTypes = g.moduleTypes;
            QString layoutError;
            const QByteArray data = renderGraph(*g.graph, options, command.format, &layoutError, nullptr, g.title);
            if (data.isEmpty()) {
                err << "jitscope-cli: error: " << command.file << ": " << layoutError << "\n";
                return 2;
            }
            out << QString::fromUtf8(data);
        }
    }
    if (command.format == QLatin1String("json"))
        writeJson(graphs, out);
    return finish(run, 0, err);
}

int pythonRunCommand(const PythonCommand& command, QTextStream& out, QTextStream& err)
{
    PythonRun run;
    if (!runFile(command, run, err))
        return 2;
    if (!requestServed(command, run, err))
        return 2;
    const PythonRequest& request = command.options.request;
    const QString set = request.sets.isEmpty() ? QStringLiteral("the file's inputs") : request.sets[0].toString();
    if (command.format == QLatin1String("json"))
        writeJson(
            QJsonObject { { QStringLiteral("file"), command.file }, { QStringLiteral("function"), run.request.target },
                { QStringLiteral("inputs"), set }, { QStringLiteral("outputs"), run.request.outputs },
                { QStringLiteral("warnings"), pythonWarningsJson(run.request.warnings) } },
            out);
    else {
        out << "run " << command.file << " " << run.request.target << ": " << set << "  (Python)\n";
        for (const PythonWarning& w : run.request.warnings)
            out << "  [" << w.category << "] " << w.message.section(QLatin1Char('\n'), 0, 0) << "  (line "
                << w.location.line << ")\n";
        out << "\nreturned: " << run.request.outputs << "\n";
    }
    return finish(run, 0, err);
}

int pythonTraceCommand(const PythonCommand& command, QTextStream& out, QTextStream& err)
{
    PythonRun run;
    if (!runFile(command, run, err))
        return 2;
    if (!requestServed(command, run, err))
        return 2;
    if (requested(command))
        return requestedTrace(command, run, out, err);
    if (command.format != QLatin1String("json"))
        out << "# python: " << interpreterText(runInterpreter(run)) << "\n";
    TraceListing listing { command.file };
    listing.ofCalls = true;
    int traces = 0;
    for (const PythonCall& c : run.calls) {
        if (c.api == QLatin1String("script"))
            continue;
        ++traces;
        if (command.format == QLatin1String("json")) {
            listing.calls << &c;
            continue;
        }
        out << "# " << callTitle(c) << "\n";
        // The graph the example inputs recorded, every submodule call inlined (also when the check failed).
        const QString text = !c.traces.isEmpty() && !c.traces[0].text.isEmpty() ? c.traces[0].text : c.text;
        if (!text.isEmpty())
            out << text;
        if (!c.ok)
            out << "# failed: " << c.error.toString() << "\n";
    }
    if (command.format == QLatin1String("json"))
        writeJson(traceJson(listing), out);
    else if (traces == 0)
        out << "# the file made no torch.jit.trace call\n";
    return finish(run, 0, err);
}

int pythonListCommand(const PythonCommand& command, QTextStream& out, QTextStream& err)
{
    PythonRun run;
    if (!runFile(command, run, err))
        return 2;
    if (command.format == QLatin1String("json")) {
        QJsonArray modules, functions, calls;
        for (const PythonModule& m : run.modules) {
            QJsonArray methods, attributes, constants;
            for (const PythonMethod& pm : m.methods)
                methods.append(QJsonObject { { QStringLiteral("name"), pm.name }, { QStringLiteral("line"), pm.line },
                    { QStringLiteral("modifier"), pm.modifier }, { QStringLiteral("compiled"), pm.compiled },
                    { QStringLiteral("how"), pm.how } });
            for (const auto& a : m.attributes)
                attributes.append(QJsonObject { { QStringLiteral("name"), a.name }, { QStringLiteral("type"), a.type },
                    { QStringLiteral("value"), a.value } });
            for (const auto& a : m.constants)
                constants.append(QJsonObject { { QStringLiteral("name"), a.name }, { QStringLiteral("type"), a.type },
                    { QStringLiteral("value"), a.value } });
            QJsonObject mo { { QStringLiteral("class"), m.className }, { QStringLiteral("line"), m.line },
                { QStringLiteral("instances"), QJsonArray::fromStringList(m.instances) },
                { QStringLiteral("methods"), methods }, { QStringLiteral("attributes"), attributes },
                { QStringLiteral("constants"), constants }, { QStringLiteral("scripts"), m.scriptOk } };
            if (!m.scriptOk)
                mo.insert(QStringLiteral("script_error"), diagnosticJson(m.scriptError));
            modules.append(mo);
        }
        for (const PythonFunction& f : run.functions) {
            QJsonObject fo { { QStringLiteral("name"), f.name }, { QStringLiteral("line"), f.line },
                { QStringLiteral("scripts"), f.scriptOk } };
            if (!f.scriptOk)
                fo.insert(QStringLiteral("script_error"), diagnosticJson(f.scriptError));
            functions.append(fo);
        }
        for (const PythonCall& c : run.calls)
            calls.append(QJsonObject { { QStringLiteral("line"), c.location.line }, { QStringLiteral("api"), c.api },
                { QStringLiteral("target"), c.target }, { QStringLiteral("ok"), c.ok } });
        writeJson(QJsonObject { { QStringLiteral("file"), command.file },
                      { QStringLiteral("kind"), QStringLiteral("python") }, { QStringLiteral("python"), run.python },
                      { QStringLiteral("torch"), run.torchVersion }, { QStringLiteral("status"), run.status },
                      { QStringLiteral("modules"), modules }, { QStringLiteral("functions"), functions },
                      { QStringLiteral("calls"), calls }, { QStringLiteral("inputs"), run.inputs },
                      { QStringLiteral("check_inputs"), QJsonArray::fromStringList(run.checkInputs) } },
            out);
        return finish(run, 0, err);
    }
    out << command.file << ": Python, run with " << run.python << " (torch " << run.torchVersion << ")\n";
    if (!run.modules.isEmpty())
        out << "modules:\n";
    for (const PythonModule& m : run.modules) {
        out << "  " << m.className << "  (line " << m.line << ")";
        if (!m.instances.isEmpty())
            out << "  instances: " << m.instances.join(QStringLiteral(", "));
        out << "\n";
        for (const PythonMethod& pm : m.methods) {
            out << "    " << m.className << "." << pm.name << "  (line " << pm.line << ")";
            if (pm.compiled)
                out << "  compiled: " << pm.how;
            if (!pm.modifier.isEmpty())
                out << "  @torch.jit." << pm.modifier;
            out << "\n";
        }
        for (const auto& a : m.attributes)
            out << "    attribute " << a.name << ": " << a.type << " = " << a.value << "\n";
        for (const auto& a : m.constants)
            out << "    constant " << a.name << (a.type.isEmpty() ? QString() : QStringLiteral(": ") + a.type) << " = "
                << a.value << "\n";
        if (!m.scriptOk)
            out << "    script error: " << m.scriptError.toString() << "\n";
    }
    if (!run.functions.isEmpty())
        out << "functions:\n";
    for (const PythonFunction& f : run.functions) {
        out << "  " << f.name << "  (line " << f.line << ")";
        if (!f.modifier.isEmpty())
            out << "  @torch.jit." << f.modifier;
        out << (f.scriptOk ? QStringLiteral("  scripts") : QStringLiteral("  does not script")) << "\n";
        if (!f.scriptOk)
            out << "    script error: " << f.scriptError.toString() << "\n";
    }
    if (!run.calls.isEmpty())
        out << "calls:\n";
    for (const PythonCall& c : run.calls)
        out << "  " << callTitle(c) << (c.ok ? QString() : QStringLiteral("  failed: ") + c.error.message) << "\n";
    if (!run.inputs.isEmpty() || !run.checkInputs.isEmpty()) {
        out << "input sets:\n";
        if (!run.inputs.isEmpty())
            out << "  " << run.inputs << "  (inputs)\n";
        for (const QString& s : run.checkInputs)
            out << "  " << s << "  (check_inputs)\n";
    }
    return finish(run, 0, err);
}

int pythonCheckCommand(const PythonCommand& commandGiven, QTextStream& out, QTextStream& err)
{
    PythonCommand command = commandGiven;
    // Text and JSON say what the recorded calls did: the file's classes need not be scripted for them (the CI
    // reports and the self-check use the script graphs).
    command.options.definitions
        = command.selfCheck || (command.format != QLatin1String("text") && command.format != QLatin1String("json"));
    command.options.archives = false; // no debugger to open them
    PythonRun run;
    if (!runFile(command, run, err))
        return 2;
    if (!requestServed(command, run, err))
        return 2;
    const QVector<PythonCall> calls = reportedCalls(command, run);
    std::optional<LoadResult> builtIn;
    if (command.selfCheck) {
        ProgressScope progress(QStringLiteral("self-check: JitScope loads %1").arg(QFileInfo(command.file).fileName()));
        builtIn = loadModel(command.file);
    }
    bool defect = false;
    const QString source = readSource(command.file);
    const QStringList lines = source.split(QLatin1Char('\n'));
    bool diverged = false;
    const bool ciReport = command.format != QLatin1String("text") && command.format != QLatin1String("json");
    // The report entries and outputs point into these.
    std::list<CheckReport> checkReports;
    std::list<SelfCheck> selfChecks;
    ReportInput reportInput;
    reportInput.path = QFileInfo(command.file).canonicalFilePath(); // as the bridge names the user's file
    reportInput.source = source;
    reportInput.reference = QStringLiteral("the Python code");
    reportInput.htmlReport = command.htmlLink;
    reportInput.layout = layoutGraph;
    reportInput.python = runInterpreter(run);
    QVector<CheckOutput> outputs;
    bool failedCall = false;
    Diagnostic failedCallError; // the first call whose trace raised: the report's conclusion, on stderr too
    for (const PythonCall& c : calls) {
        if (c.api == QLatin1String("script") || (c.traces.isEmpty() && !c.raised()))
            continue;
        // The same report as the window's and the CI formats': every diff's divergences.
        checkReports.push_back(checkRecordedCall(run, c, source));
        const CheckReport& checkReport = checkReports.back();
        const bool graphsAgree = std::all_of(
            checkReport.diffs.cbegin(), checkReport.diffs.cend(), [](const TraceDiff& d) { return d.equal; });
        // One conclusion per call: the trace raised (a broken export), its traces or outputs diverged, or neither.
        const bool callError = c.raised();
        if (callError && !failedCall)
            failedCallError = c.error;
        failedCall |= callError;
        QStringList sets;
        for (const PythonTrace& t : c.traces)
            sets << t.inputs;
        const ReportEntry entry { &checkReport, callTitle(c), sets };
        reportInput.entries.push_back(entry);
        const bool callDiverged = !callError && (!graphsAgree || (c.checked && !c.checkPassed));
        diverged |= ciReport ? !checkReport.consistent : callDiverged;
        const QString verdict = callError ? QStringLiteral("error")
            : callDiverged                ? QStringLiteral("diverged")
                                          : QStringLiteral("consistent");
        const SelfCheck* self = nullptr;
        if (builtIn) {
            selfChecks.push_back(selfCheckCall(command, c, *builtIn));
            self = &selfChecks.back();
            defect |= self->status == QLatin1String("defect");
        }
        CheckOutput output { entry, callTitle(c), verdict, &c, self };
        output.sourceLine = [&lines, &c](const SourceLocation& at) {
            return sourceLine(at.file == c.location.file ? lines : libraryLines(at.file), at.line);
        };
        output.verbose = command.verbose;
        output.python = &reportInput.python;
        outputs.push_back(output);
    }
    // The file stopped before any call (an import it lacks): its one message, and no report of nothing.
    if (outputs.isEmpty() && fileFailed(run) && command.format != QLatin1String("json"))
        return finish(run, 2, err);
    if (ciReport && outputs.isEmpty()) {
        err << "jitscope-cli: error: " << command.file << ": the file made no torch.jit.trace call to check\n";
        return 2;
    }
    if (command.format == QLatin1String("text"))
        out << "python: " << interpreterText(reportInput.python) << "\n\n";
    out << QString::fromUtf8(checkReportData(command.format, reportInput, outputs, true));
    if (command.format == QLatin1String("text") && outputs.isEmpty())
        out << "# the file made no torch.jit.trace call to check\n";
    // TorchScript's own deprecation notice, once for the run, apart from the model's warnings.
    if (command.format == QLatin1String("text"))
        for (const QString& notice : std::as_const(run.notices))
            out << "note: torch " << run.torchVersion << " says: " << notice << "\n";
    if (failedCall)
        err << "jitscope-cli: error: " << failedCallError.toString() << "\n";
    return finish(run, failedCall ? 2 : defect ? 3 : diverged ? 1 : 0, err);
}

} // namespace jitscope
