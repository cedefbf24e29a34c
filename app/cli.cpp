#include "cli.h"
#include "progress.h"
#include "pythoncli.h"
#include "reports.h"

#include "check/check.h"
#include "ir/activity.h"
#include "layout/graphlayout.h"
#include "load/model.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <algorithm>
#include <cmath>

namespace jitscope {

namespace {

const char* const usageText = R"(Usage: jitscope-cli COMMAND [OPTIONS]

Inspect TorchScript archives (.pt/.pth/.zip) and .py files of TorchScript functions.

Commands:
  graph FILE [--fn NAME] [--inline] [--modules] [--format text|json|dot|svg|png] [-o OUT]
        Print a function's or method's script graph. text is what print(fn.graph)
        shows in Python; json is JitScope's IR snapshot; dot, svg and png go through
        Graphviz. --inline inlines calls; --modules also draws submodules as nested
        clusters and hides code that never reaches the outputs (dot, svg and png), laid
        out as the window lays it out: over 300 boxes module by module, and dot then
        carries the positions (neato -n2 draws them).
  list FILE [--format text|json]
        List functions and methods, submodules, parameters, default input sets and
        compile errors.
  trace FILE [--fn NAME] --inputs SET [--inputs SET ...] [--format text|json|dot|svg]
        Trace the function once per input set, as torch.jit.trace would; text prints
        each trace graph as libtorch dumps it. Without --inputs, the file's own
        `inputs` and `check_inputs`.
  check FILE [--fn NAME] [--inputs SET ...] [--rtol R] [--atol A] [--verbose]
        [--format text|json|junit|markdown|html] [-o OUT] [--html-link URL]
        torch.jit.trace's check_inputs, explained: the first set is traced, the rest
        are check inputs (default: the file's `inputs` and `check_inputs`). Every
        trace is diffed node by node against the first, the differences grouped into
        divergences (a loop unrolled, a branch frozen, a number or tensor baked in,
        module state, unexplained), each with its module, line, stack and evidence
        (--verbose: with its node rows), and the first trace is run
        on every other set against the script function. Exit 0 when all traces
        agree and outputs match, 1 when anything diverged, 2 on error. junit gives
        a testsuite with a testcase per input set for CI; html one self-contained page
        with the graphs; markdown a summary for a pull request (--html-link: where the
        HTML report will be).
  run FILE [--fn NAME] --inputs SET [--break LINE ...] [--format text|json]
        Run the script function node by node (no tracing), printing every executed
        node with its loop iterations and output values, and all live values at each
        breakpoint line (once per loop iteration).

Input sets (SET): arguments separated by ';'. A tensor is DTYPE[d0,d1,...] with an
optional =FILL (rand, the default; randn, zeros, ones, arange, full:V); DTYPE is one of
f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool (aliases float, double, long, int). Scalars
(3, 2.5, true), tuples (...), lists [...] and dicts {image: f32[3,224,224], height: 224}
(dicts with --python: traced through an adapter, as detectron2's TracingAdapter). Options: --seed N (default 0),
--max-memory BYTES (default 2G; K, M, G suffixes), --timeout SECONDS (default 600),
--no-strict (torch.jit.trace's strict=False: dicts and lists as outputs).

Python files as Python runs them (list, graph, trace, check and run):
  --python[=PATH]     run FILE under PyTorch (PATH, or $JITSCOPE_PYTHON, else the Python of
                      the torch whose libtorch JitScope runs) and report the file's own torch.jit.trace and
                      torch.jit.script calls, modules and functions. This runs the file's
                      code: give it only for files you trust. Traces are the graphs
                      PyTorch's own check compared, every submodule call inlined with its
                      module scope. trace prints every recorded trace's graph; check diffs
                      each call's traces across its check inputs and explains every
                      divergence at its line (junit: a testsuite per call; markdown and
                      html cover every call; a call that raised is an error, exit 2);
                      graph prints the recorded graphs, --call N the Nth call's, --fn NAME
                      a script graph, --modules (dot, svg) grouped by module.
  --fn NAME --inputs SET ...
                      with trace, check and run: after the file ran, trace NAME (`fn`,
                      `MyModule.forward`: the instance the file creates, or a fresh one)
                      through real torch.jit.trace on those sets (default: the file's
                      `inputs` and `check_inputs`), or run it on the first set.
  --self-check        check --python: where JitScope's own front end compiles a recorded
                      call's function, trace it with JitScope's executor too and compare
                      with torch.jit.trace node for node on the same inputs; a difference
                      is a JitScope defect (exit 3), with the first differing node.

Options for every command:
  --load-ops LIB.so   load a library of custom operators first (repeatable); without it,
                      an archive's torchvision:: (or other) operators are found in the
                      packages of the engine's torch's Python (then $JITSCOPE_PYTHON's)
  -q, --quiet         no progress line: long jobs (loading a big archive, tracing many
                      sets, laying out a huge graph, running Python) show one on stderr
                      when it is a terminal, never in a pipe or a file
  -h, --help          show this help
  --version           show versions of JitScope, libtorch and Graphviz

Exit status: 0 on success, 1 when `check` finds a divergence, 2 on any error
(one line on stderr), 3 when `check --self-check` finds a JitScope defect.
)";

struct CliError
{
    QString text;
};

class Args
{
public:
    explicit Args(QStringList args)
        : m_args(std::move(args))
    { }

    /// Takes "--name VALUE" or "--name=VALUE"; repeated options accumulate.
    QStringList takeValues(const QStringList& names)
    {
        QStringList values;
        for (int i = 0; i < m_args.size();) {
            const QString a = m_args[i];
            bool matched = false;
            for (const QString& n : names) {
                if (a == n) {
                    if (i + 1 >= m_args.size())
                        throw CliError { QStringLiteral("option %1 needs a value").arg(n) };
                    values << m_args[i + 1];
                    m_args.remove(i, 2);
                    matched = true;
                    break;
                }
                if (a.startsWith(n + QLatin1Char('='))) {
                    values << a.mid(n.size() + 1);
                    m_args.remove(i);
                    matched = true;
                    break;
                }
            }
            if (!matched)
                ++i;
        }
        return values;
    }
    QString takeValue(const QStringList& names, const QString& def = {})
    {
        const QStringList v = takeValues(names);
        if (v.size() > 1)
            throw CliError { QStringLiteral("option %1 given more than once").arg(names.first()) };
        return v.isEmpty() ? def : v.first();
    }
    bool takeFlag(const QString& name) { return m_args.removeAll(name) > 0; }
    QStringList rest()
    {
        for (const QString& a : m_args)
            if (a.startsWith(QLatin1Char('-')) && a != QLatin1String("-"))
                throw CliError { QStringLiteral("unknown option %1").arg(a) };
        return m_args;
    }

private:
    QStringList m_args;
};

QString fileArgument(Args& args, const QString& command)
{
    const QStringList rest = args.rest();
    if (rest.isEmpty())
        throw CliError { QStringLiteral("%1: missing FILE").arg(command) };
    if (rest.size() > 1)
        throw CliError { QStringLiteral("%1: unexpected argument '%2'").arg(command, rest[1]) };
    return rest.first();
}

void checkFormat(const QString& format, const QStringList& allowed)
{
    if (!allowed.contains(format))
        throw CliError { QStringLiteral("unknown format '%1' (use %2)").arg(format, allowed.join(QLatin1Char('|'))) };
}

ModelInfo load(const QString& path, const LoadOptions& options)
{
    ProgressScope progress(QStringLiteral("loading %1").arg(QFileInfo(path).fileName()));
    activity::setFile(QFile::encodeName(path).constData());
    LoadResult r = loadModel(path, options);
    if (!r.ok)
        throw CliError { r.error.toString() };
    return r.model;
}

QVector<InputSet> parseInputSets(const QStringList& specs);

/// The function --fn names (or the default one). @p specs: the command's --inputs, for trace, check and run, whose
/// tuple or list arguments may make a def compile that does not as written.
const FunctionInfo& selectFunction(const ModelInfo& model, const QString& name, const QStringList* specs = nullptr)
{
    QStringList names;
    for (const FunctionInfo& f : model.functions)
        names << f.name;
    const FunctionInfo* fn = name.isEmpty() ? model.defaultFunction() : model.function(name);
    if (!fn) {
        if (names.isEmpty())
            throw CliError { QStringLiteral("%1: no functions in this file").arg(model.path) };
        if (name.isEmpty())
            throw CliError { QStringLiteral("%1: several functions, choose one with --fn (%2)")
                                 .arg(model.path, names.join(QStringLiteral(", "))) };
        throw CliError { QStringLiteral("%1: no function or method named '%2' (have: %3)")
                             .arg(model.path, name, names.join(QStringLiteral(", "))) };
    }
    if (!fn->ok) {
        // A def that does not compile with its parameters as Tensor may with the sets' tuples and lists (core
        // compiles it again with their types, as torch.jit.trace takes whatever Python values it is given).
        const QVector<InputSet> sets
            = specs ? (specs->isEmpty() ? model.inputSets : parseInputSets(*specs)) : QVector<InputSet>();
        if (std::any_of(sets.cbegin(), sets.cend(), [](const InputSet& s) { return s.hasSequenceArgument(); }))
            return *fn;
        throw CliError { fn->error.toString() };
    }
    return *fn;
}

void writeOutput(const QByteArray& data, const QString& outPath, QTextStream& out)
{
    if (outPath.isEmpty() || outPath == QLatin1String("-")) {
        out << QString::fromUtf8(data);
        return;
    }
    // A regular file is replaced whole or not at all; a device or a pipe is written directly, and must take it all.
    if (QFileInfo(outPath).exists() && !QFileInfo(outPath).isFile()) {
        QFile file(outPath);
        if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size() || !file.flush())
            throw CliError { QStringLiteral("%1: cannot write: %2").arg(outPath, file.errorString()) };
        return;
    }
    QSaveFile file(outPath);
    if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size() || !file.commit())
        throw CliError { QStringLiteral("%1: cannot write: %2").arg(outPath, file.errorString()) };
}

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
        QJsonObject o { { QStringLiteral("file"), model.path }, { QStringLiteral("function"), fn.name },
            { QStringLiteral("signature"), fn.signature }, { QStringLiteral("graph"), fn.graph.toJson() } };
        data = QJsonDocument(o).toJson(QJsonDocument::Indented);
    } else {
        if (modules)
            layoutOptions.moduleTypes = submoduleTypes(model, fn.name);
        // As the window lays it out: a big graph grouped by module module by module (hierarchicalAbove).
        ProgressScope progress(QStringLiteral("laying out %1 nodes").arg(fn.graph.nodes.size()));
        error.clear();
        data = renderGraph(fn.graph, layoutOptions, format, &error);
        if (data.isEmpty())
            throw CliError { QStringLiteral("%1: %2").arg(path, error) };
    }
    writeOutput(data, outPath, out);
    return ExitOk;
}

/// --max-memory: a positive, finite size of at most 1 TiB, with an optional K, M or G suffix.
qint64 parseBytes(const QString& text)
{
    QString t = text.trimmed().toUpper();
    double factor = 1;
    if (t.endsWith(QLatin1Char('B')))
        t.chop(1);
    if (t.endsWith(QLatin1Char('K')))
        factor = 1024.0;
    else if (t.endsWith(QLatin1Char('M')))
        factor = 1024.0 * 1024;
    else if (t.endsWith(QLatin1Char('G')))
        factor = 1024.0 * 1024 * 1024;
    if (factor > 1)
        t.chop(1);
    bool ok = false;
    const double bytes = t.toDouble(&ok) * factor;
    constexpr double maxBytes = 1024.0 * 1024 * 1024 * 1024;
    if (!ok || !std::isfinite(bytes) || bytes < 1 || bytes > maxBytes)
        throw CliError {
            QStringLiteral("--max-memory: '%1' is not a size between 1 byte and 1024G (e.g. 512M, 2G)").arg(text)
        };
    return qint64(bytes);
}

/// --timeout: a positive, finite number of seconds, at most a week.
int parseTimeoutMs(const QString& text)
{
    bool ok = false;
    const double seconds = text.toDouble(&ok);
    constexpr double maxSeconds = 7 * 24 * 3600.0;
    if (!ok || !std::isfinite(seconds) || !(seconds > 0) || seconds > maxSeconds)
        throw CliError {
            QStringLiteral("--timeout: '%1' is not a number of seconds above 0 and at most 604800 (a week)").arg(text)
        };
    return std::max(1, int(seconds * 1000.0));
}

/// The input sets of --inputs; a malformed SET is reported with a caret.
QVector<InputSet> parseInputSets(const QStringList& specs)
{
    QVector<InputSet> sets;
    for (int i = 0; i < specs.size(); ++i) {
        InputParseError error;
        auto set = parseInputSet(specs[i], &error);
        if (!set)
            throw CliError { QStringLiteral("--inputs '%1': %2 at column %3\n  %1\n  %4^")
                                 .arg(specs[i], error.message)
                                 .arg(error.position + 1)
                                 .arg(QString(error.position, QLatin1Char(' '))) };
        sets.push_back(*set);
    }
    return sets;
}

/// The input sets of --inputs, or the file's own.
QVector<InputSet> inputSets(const QStringList& specs, const ModelInfo& model)
{
    QVector<InputSet> sets = parseInputSets(specs);
    if (sets.isEmpty())
        sets = model.inputSets;
    if (sets.isEmpty())
        throw CliError { QStringLiteral("%1: no input sets: give --inputs SET, or define `inputs = (...)` in the file")
                             .arg(model.path) };
    return sets;
}

ExecOptions execOptions(Args& args)
{
    ExecOptions o;
    o.strict = !args.takeFlag(QStringLiteral("--no-strict"));
    const QString seed = args.takeValue({ QStringLiteral("--seed") }, QStringLiteral("0"));
    bool ok = false;
    o.seed = seed.toULongLong(&ok);
    if (!ok)
        throw CliError { QStringLiteral("--seed: '%1' is not a non-negative integer").arg(seed) };
    const QString mem = args.takeValue({ QStringLiteral("--max-memory") });
    if (!mem.isEmpty())
        o.maxMemory = parseBytes(mem);
    o.timeoutMs = parseTimeoutMs(args.takeValue({ QStringLiteral("--timeout") }, QStringLiteral("600")));
    return o;
}

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

int commandCheck(Args& args, const LoadOptions& options, QTextStream& out)
{
    const QString fnName = args.takeValue({ QStringLiteral("--fn") });
    const QString format = args.takeValue({ QStringLiteral("--format"), QStringLiteral("-f") }, QStringLiteral("text"));
    const QString outPath = args.takeValue({ QStringLiteral("-o"), QStringLiteral("--output") });
    const QStringList specs = args.takeValues({ QStringLiteral("--inputs"), QStringLiteral("-i") });
    const QString htmlLink = args.takeValue({ QStringLiteral("--html-link") });
    const bool verbose = args.takeFlag(QStringLiteral("--verbose")) || args.takeFlag(QStringLiteral("-v"));
    checkFormat(format,
        { QStringLiteral("text"), QStringLiteral("json"), QStringLiteral("junit"), QStringLiteral("markdown"),
            QStringLiteral("html") });
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
    const QString path = fileArgument(args, QStringLiteral("check"));
    const ModelInfo model = load(path, options);
    const FunctionInfo& fn = selectFunction(model, fnName, &specs);
    const QVector<InputSet> sets = inputSets(specs, model);
    std::optional<ProgressScope> progress;
    progress.emplace(QStringLiteral("checking %1 input sets").arg(sets.size()));
    activity::setPhase(0, "checking %d input sets", int(sets.size()));
    const CheckReport report = checkModel(model, fn.name, sets, check);
    progress.reset();
    if (!report.ok)
        throw CliError { QStringLiteral("%1 (input set 1: %2)").arg(report.error.toString(), sets.first().toString()) };

    QByteArray data;
    QStringList setTexts;
    for (const InputSet& set : sets)
        setTexts << set.toString();
    ReportInput reportInput = ReportInput::single(
        model.path, model.kind == ModelInfo::Kind::PythonSource ? model.source : QString(), report, setTexts, htmlLink);
    reportInput.layout = layoutGraph;
    if (format == QLatin1String("json")) {
        data = QJsonDocument(checkReportJson(report)).toJson(QJsonDocument::Indented);
    } else if (format == QLatin1String("junit")) {
        data = junitReport(reportInput);
    } else if (format == QLatin1String("markdown")) {
        data = markdownReport(reportInput);
    } else if (format == QLatin1String("html")) {
        ProgressScope layout(QStringLiteral("laying out the report's graphs"));
        data = htmlReport(reportInput);
    } else {
        QString text;
        QTextStream s(&text);
        s << "check " << model.path << " " << fn.name << ": " << sets.size() << " input set(s)\n";
        for (int i = 0; i < report.traces.size(); ++i) {
            const TraceResult& t = report.traces[i];
            s << "  trace " << i + 1 << ": " << sets[i].toString();
            if (t.ok)
                s << "  (" << t.graph.nodes.size() << " nodes)\n";
            else
                s << "  FAILED: " << t.error.message << "\n";
        }
        const auto sourceLine = [&](const SourceLocation& at) {
            if (model.kind != ModelInfo::Kind::PythonSource || at.file != model.path)
                return QString();
            return model.source.section(QLatin1Char('\n'), at.line - 1, at.line - 1);
        };
        for (const TraceDiff& d : report.diffs) {
            s << "\ntrace " << d.other + 1 << " vs trace 1: "
              << (d.equal ? QStringLiteral("same graph")
                          : QStringLiteral("%1 divergence(s), %2 node difference(s)")
                                .arg(d.divergences.size())
                                .arg(d.changes.size()))
              << "\n"
              << divergencesText(report, d, sourceLine, verbose);
        }
        s << outputsText(report);
        if (!report.warnings.isEmpty()) {
            s << "\nwarnings:\n";
            for (const TraceWarning& w : report.warnings) {
                s << "  [" << warningKindName(w.kind) << "] trace " << w.traceIndex + 1 << ": " << w.message << "\n";
                if (w.location.isValid())
                    s << "    --> " << w.location.toString() << "\n" << sourceExcerpt(model, w.location);
                if (!w.suggestion.isEmpty())
                    s << "    fix: " << w.suggestion << "\n";
            }
        }
        s << "\nverdict: " << report.verdict() << "\n";
        s.flush();
        data = text.toUtf8();
    }
    writeOutput(data, outPath, out);
    return report.consistent ? ExitOk : ExitDiverged;
}

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
    const ModelInfo model = load(path, options);
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

QJsonObject diagnosticJson(const Diagnostic& d)
{
    return QJsonObject { { QStringLiteral("message"), d.message }, { QStringLiteral("file"), d.location.file },
        { QStringLiteral("line"), d.location.line }, { QStringLiteral("column"), d.location.column } };
}

int commandList(Args& args, const LoadOptions& options, QTextStream& out, QTextStream& err)
{
    const QString format = args.takeValue({ QStringLiteral("--format"), QStringLiteral("-f") }, QStringLiteral("text"));
    checkFormat(format, { QStringLiteral("text"), QStringLiteral("json") });
    const QString path = fileArgument(args, QStringLiteral("list"));
    const ModelInfo model = load(path, options);
    const bool archive = model.kind == ModelInfo::Kind::Archive;
    const FunctionInfo* firstError = nullptr;
    for (const FunctionInfo& f : model.functions)
        if (!f.ok && !firstError)
            firstError = &f;
    // A file without input sets (any archive) gets one guessed from forward's first parameters.
    std::optional<InputSuggestion> suggestion;
    if (model.inputSets.isEmpty()) {
        if (const FunctionInfo* fn = model.defaultFunction(); fn && fn->ok)
            suggestion = suggestInputSet(model, *fn);
    }

    if (format == QLatin1String("json")) {
        QJsonArray fns, subs, params, sets, warnings;
        for (const FunctionInfo& f : model.functions) {
            QJsonObject o { { QStringLiteral("name"), f.name }, { QStringLiteral("ok"), f.ok } };
            if (f.ok) {
                o.insert(QStringLiteral("signature"), f.signature);
                o.insert(QStringLiteral("nodes"), f.graph.nodes.size());
            } else {
                o.insert(QStringLiteral("error"), diagnosticJson(f.error));
            }
            if (f.location.isValid())
                o.insert(QStringLiteral("line"), f.location.line);
            fns.append(o);
        }
        for (const SubmoduleInfo& s : model.submodules)
            subs.append(QJsonObject { { QStringLiteral("path"), s.path }, { QStringLiteral("type"), s.typeName },
                { QStringLiteral("methods"), QJsonArray::fromStringList(s.methods) } });
        for (const ParameterInfo& p : model.parameters) {
            QJsonObject o { { QStringLiteral("name"), p.name }, { QStringLiteral("kind"), toText(p.kind) },
                { QStringLiteral("type"), p.type } };
            if (!p.dtype.isEmpty()) {
                o.insert(QStringLiteral("dtype"), p.dtype);
                QJsonArray shape;
                for (qint64 d : p.shape)
                    shape.append(d);
                o.insert(QStringLiteral("shape"), shape);
            }
            if (!p.value.isEmpty())
                o.insert(QStringLiteral("value"), p.value);
            params.append(o);
        }
        for (const InputSet& s : model.inputSets)
            sets.append(QJsonObject { { QStringLiteral("set"), s.toString() }, { QStringLiteral("line"), s.line } });
        QJsonArray libraries;
        for (const OpLibrary& lib : model.opLibraries)
            libraries.append(QJsonObject { { QStringLiteral("path"), lib.path },
                { QStringLiteral("namespaces"), QJsonArray::fromStringList(lib.namespaces) },
                { QStringLiteral("found"), lib.found } });
        for (const Diagnostic& d : model.warnings)
            warnings.append(diagnosticJson(d));
        QJsonObject o { { QStringLiteral("file"), model.path }, { QStringLiteral("kind"), toText(model.kind) },
            { QStringLiteral("functions"), fns }, { QStringLiteral("submodules"), subs },
            { QStringLiteral("parameters"), params }, { QStringLiteral("input_sets"), sets },
            { QStringLiteral("warnings"), warnings }, { QStringLiteral("libtorch"), libtorchVersion() } };
        if (!libraries.isEmpty())
            o.insert(QStringLiteral("operator_libraries"), libraries);
        if (suggestion)
            o.insert(QStringLiteral("suggested_input_set"),
                QJsonObject {
                    { QStringLiteral("set"), suggestion->set }, { QStringLiteral("from"), suggestion->reason } });
        out << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
    } else {
        out << model.path << QStringLiteral(": ")
            << (archive ? QStringLiteral("TorchScript archive") : QStringLiteral("Python source"))
            << QStringLiteral(" (libtorch %1)").arg(libtorchVersion()) << '\n';
        out << (archive ? "methods:\n" : "functions:\n");
        for (const FunctionInfo& f : model.functions) {
            if (f.ok) {
                out << "  " << (archive ? f.name.section(QLatin1Char('.'), 0, -2) : QString());
                if (archive && f.name.contains(QLatin1Char('.')))
                    out << '.';
                out << f.signature;
                if (!archive && f.location.isValid())
                    out << "  (line " << f.location.line << ')';
                out << '\n';
            } else {
                out << "  " << f.name << "  ERROR " << f.error.location.line << ':' << f.error.location.column << ": "
                    << f.error.message << '\n';
            }
        }
        if (!model.submodules.isEmpty()) {
            out << "submodules:\n";
            for (const SubmoduleInfo& s : model.submodules)
                out << "  " << (s.path.isEmpty() ? QStringLiteral("<root>") : s.path) << "  " << s.typeName << '\n';
        }
        if (!model.opLibraries.isEmpty()) {
            out << "operator libraries:\n";
            for (const OpLibrary& lib : model.opLibraries)
                out << "  " << lib.path << "  " << lib.namespaces.join(QStringLiteral(":: "))
                    << "::  " << (lib.found ? "(found in the system's Python)" : "(--load-ops)") << '\n';
        }
        if (!model.parameters.isEmpty()) {
            out << "parameters:\n";
            for (const ParameterInfo& p : model.parameters) {
                out << "  " << p.name << "  " << toText(p.kind) << "  " << p.type;
                if (!p.dtype.isEmpty())
                    out << "  " << p.dtype << shapeText(p.shape);
                if (!p.value.isEmpty())
                    out << "  = " << p.value;
                out << '\n';
            }
        }
        if (!model.inputSets.isEmpty()) {
            out << "input sets:\n";
            for (const InputSet& s : model.inputSets)
                out << "  " << s.toString() << "  (line " << s.line << ")\n";
        }
        if (suggestion)
            out << "suggested input set: " << suggestion->set << "  (guessed from " << suggestion->reason << ")\n";
        for (const Diagnostic& d : model.warnings)
            out << "warning: " << d.toString() << '\n';
    }
    out.flush();
    if (firstError) {
        err << "jitscope-cli: error: " << firstError->error.toString() << '\n';
        return ExitError;
    }
    return ExitOk;
}

} // namespace

/// `--python`: the file runs under the system's PyTorch (app/pythoncli.cpp).
int pythonCommand(const QString& command, Args& args, const QString& python, QTextStream& out, QTextStream& err)
{
    PythonCommand pc;
    pc.options.python = python;
    pc.format = args.takeValue({ QStringLiteral("--format"), QStringLiteral("-f") }, QStringLiteral("text"));
    const QString outPath = args.takeValue({ QStringLiteral("-o"), QStringLiteral("--output") });
    pc.htmlLink = args.takeValue({ QStringLiteral("--html-link") });
    pc.selfCheck = args.takeFlag(QStringLiteral("--self-check"));
    pc.verbose = args.takeFlag(QStringLiteral("--verbose")) || args.takeFlag(QStringLiteral("-v"));
    if (pc.selfCheck
        && (command != QLatin1String("check")
            || (pc.format != QLatin1String("text") && pc.format != QLatin1String("json"))))
        throw CliError { QStringLiteral("--self-check is an option of check --python, reported as text or json") };
    if (command == QLatin1String("check"))
        checkFormat(pc.format,
            { QStringLiteral("text"), QStringLiteral("json"), QStringLiteral("junit"), QStringLiteral("markdown"),
                QStringLiteral("html") });
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

int runCli(const QStringList& arguments, QTextStream& out, QTextStream& err)
{
    try {
        if (arguments.isEmpty()) {
            err << usageText;
            return ExitError;
        }
        if (arguments.contains(QStringLiteral("-h")) || arguments.contains(QStringLiteral("--help"))) {
            out << usageText;
            return ExitOk;
        }
        if (arguments.contains(QStringLiteral("--version"))) {
            out << "jitscope-cli " << JITSCOPE_VERSION << " (libtorch " << libtorchVersion() << ", Graphviz "
                << graphvizVersion() << ", Qt " << qVersion() << ")\n";
            return ExitOk;
        }
        Args args(arguments.mid(1));
        const bool quiet = args.takeFlag(QStringLiteral("--quiet"));
        ProgressScope::enable(ProgressScope::wanted(args.takeFlag(QStringLiteral("-q")) || quiet));
        LoadOptions options;
        options.opLibraries = args.takeValues({ QStringLiteral("--load-ops") });
        const QString command = arguments.first();
        const bool bare = args.takeFlag(QStringLiteral("--python"));
        const QStringList pythonPaths = args.takeValues({ QStringLiteral("--python") });
        if (bare || !pythonPaths.isEmpty())
            return pythonCommand(command, args, pythonPaths.value(0), out, err);
        if (command == QLatin1String("graph"))
            return commandGraph(args, options, out);
        if (command == QLatin1String("list"))
            return commandList(args, options, out, err);
        if (command == QLatin1String("trace"))
            return commandTrace(args, options, out);
        if (command == QLatin1String("check"))
            return commandCheck(args, options, out);
        if (command == QLatin1String("run"))
            return commandRun(args, options, out);
        throw CliError { QStringLiteral("unknown command '%1' (see --help)").arg(command) };
    } catch (const CliError& e) {
        out.flush();
        // One line names the problem; a malformed input set adds the set and a caret under the bad character.
        err << "jitscope-cli: error: " << e.text << '\n';
        return ExitError;
    }
}

} // namespace jitscope
