#include "cli.h"
#include "cli_p.h"
#include "progress.h"

#include "ir/activity.h"
#include "layout/layout.h"
#include "load/model.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <algorithm>
#include <cmath>

namespace jitscope {

namespace {

const char* const usageText = R"(Usage: jitscope-cli COMMAND [OPTIONS]

Inspect TorchScript archives (.pt/.pth/.zip), .py files of TorchScript functions and
.pt2 files of torch.export.save (list and graph: read by JitScope, never run).

Commands:
  graph FILE [--fn NAME] [--inline] [--modules] [--format text|json|dot|svg|png] [-o OUT]
        Print a function's or method's script graph. text is what print(fn.graph)
        shows in Python; json is JitScope's IR snapshot; dot, svg and png go through
        Graphviz. --inline inlines calls; --modules also draws submodules as nested
        clusters and hides code that never reaches the outputs (dot, svg and png), laid
        out as the window lays it out: over 300 boxes module by module, and dot then
        carries the positions (neato -n2 draws them). A .pt2's graph is its exported
        program's (torch.export), its nodes grouped by nn_module_stack.
  list FILE [--format text|json]
        List functions and methods, submodules, parameters, default input sets and
        compile errors.
  trace FILE [--fn NAME] --inputs SET [--inputs SET ...] [--format text|json|dot|svg]
        Trace the function once per input set, as torch.jit.trace would; text prints
        each trace graph as libtorch dumps it. Without --inputs, the file's own
        `inputs` and `check_inputs`.
  check FILE [--fn NAME] [--inputs SET ...] [--rtol R] [--atol A] [--verbose]
        [--no-values] [--format text|json|junit|markdown|html] [-o OUT] [--html-link URL]
        torch.jit.trace's check_inputs, explained: the first set is traced, the rest
        are check inputs (default: the file's `inputs` and `check_inputs`). Every
        trace is diffed node by node against the first, the differences grouped into
        divergences (a loop unrolled, a branch frozen, a number or tensor baked in,
        module state, unexplained), each with its module, line, stack and evidence
        (--verbose: with its node rows), and the first trace is run
        on every other set against the script function; where the outputs differ,
        both run again node by node to name where their values part ways
        (--no-values: not). Exit 0 when all traces
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
  --python[=PATH]     run FILE under PyTorch (PATH, else the first of: $JITSCOPE_PYTHON, the
                      active virtual environment's, the active conda environment's, the
                      first python3 on PATH that imports torch, the Python of the torch
                      whose libtorch JitScope runs; check and trace name it and its torch)
                      and report the file's own torch.jit.trace and
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
  --export            check --python: export each recorded trace call with torch.export too
                      (non-strict, the dimensions its check inputs vary made dynamic;
                      torch 2.5 or later): where export fails and why (kind, the user's
                      and the library's line, the expression, export's suggested fix),
                      else the exported program run on every set beside the trace.

Options for every command:
  --load-ops LIB.so   load a library of custom operators first (repeatable); without it,
                      an archive's torchvision:: (or other) operators are found in the
                      packages of the engine's torch's Python (then $JITSCOPE_PYTHON's;
                      installed: of the Python --python runs)
  -q, --quiet         no progress line: long jobs (loading a big archive, tracing many
                      sets, laying out a huge graph, running Python: which call of how
                      many, which check set, the phase) show one on stderr when it is a
                      terminal, never in a pipe or a file
  --progress          the progress line also when stderr is no terminal (a line per step)
  -h, --help          show this help
  --version           show versions of JitScope, libtorch and Graphviz

Exit status: 0 on success, 1 when `check` finds a divergence, 2 on any error
(one line on stderr), 3 when `check --self-check` finds a JitScope defect.
)";

} // namespace

namespace cli {

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

ModelInfo loadRunnable(const QString& path, const LoadOptions& options, const QString& command)
{
    ModelInfo model = load(path, options);
    if (model.kind == ModelInfo::Kind::ExportedProgram)
        throw CliError { QStringLiteral("%1: an exported program (torch.export) is read for its graph, not run: %2 "
                                        "takes TorchScript archives and .py files (list and graph take .pt2 files)")
                             .arg(path, command) };
    return model;
}

const FunctionInfo& selectFunction(const ModelInfo& model, const QString& name, const QStringList* specs)
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

} // namespace cli

int runCli(const QStringList& arguments, QTextStream& out, QTextStream& err)
{
    using namespace cli;
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
        const bool progress = args.takeFlag(QStringLiteral("--progress"));
        ProgressScope::enable(ProgressScope::wanted(args.takeFlag(QStringLiteral("-q")) || quiet, progress));
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
