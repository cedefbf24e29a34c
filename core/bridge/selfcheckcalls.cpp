#include "bridge/selfcheckcalls.h"

#include "trace/trace.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>

#include <algorithm>

namespace jitscope {

namespace {

/// A trace's text as both tracers should print it: value names renumbered, source comments, scopes and
/// PyTorch's class-name mangling dropped (as tests/core/tst_traces compares JitScope with the oracle).
QStringList comparableLines(const QString& dump)
{
    QString text = dump;
    static const QRegularExpression mangle(QStringLiteral("___torch_mangle_\\d+\\."));
    text.remove(mangle);
    static const QRegularExpression scope(QStringLiteral(", scope: [^\\n#]*"));
    text.remove(scope);
    return canonicalizeDump(text).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

} // namespace

SelfCheck selfCheckCall(const QString& file, const PythonOptions& options, const PythonCall& call,
    const LoadResult& builtIn, const SelfCheckProgress& progress)
{
    SelfCheck r;
    r.status = QStringLiteral("skipped");
    if (call.targetKind != QLatin1String("function")) {
        r.reason = QStringLiteral("JitScope's front end compiles no classes of a .py file");
        return r;
    }
    if (!builtIn.ok) {
        r.reason = QStringLiteral("JitScope cannot load the file: %1").arg(builtIn.error.toString());
        return r;
    }
    const FunctionInfo* fn = builtIn.model.function(call.target);
    if (!fn) {
        r.reason = QStringLiteral("JitScope's front end has no function %1").arg(call.target);
        return r;
    }
    if (!fn->ok) {
        r.reason = QStringLiteral("%1 does not compile as TorchScript: %2").arg(call.target, fn->error.toString());
        return r;
    }
    PythonOptions again = options;
    PythonRequest& request = again.request;
    request.mode = PythonRequest::Mode::Trace;
    request.target = call.target;
    for (const PythonTrace& t : call.traces) {
        const auto set = parseInputSet(t.inputs);
        if (!set) {
            r.reason = QStringLiteral("input set '%1' is not expressible in the SET syntax").arg(t.inputs);
            return r;
        }
        request.sets.push_back(*set);
    }
    if (request.sets.isEmpty()) {
        r.reason = QStringLiteral("the call recorded no trace");
        return r;
    }
    if (progress)
        progress(QStringLiteral("self-check of %1: tracing it again under PyTorch").arg(call.target), 0, 0);
    const PythonRun real = runPythonFile(file, again);
    if (!real.ok || !real.request.served || !real.request.ok) {
        r.reason = QStringLiteral("PyTorch could not trace it again: %1")
                       .arg((real.request.served ? real.request.error : real.error).toString());
        return r;
    }
    const QVector<PythonTrace>& traces = real.request.call.traces;
    for (int k = 0; k < request.sets.size() && k < traces.size(); ++k) {
        if (!traces[k].ok)
            continue; // PyTorch fails on this set: nothing to compare with
        if (progress)
            progress(QStringLiteral("self-check of %1: JitScope traces set").arg(call.target), k + 1,
                int(request.sets.size()));
        ExecOptions exec;
        exec.cancel = options.cancel;
        const TraceResult own = traceFunction(builtIn.model, call.target, request.sets[k], exec);
        const QStringList mine = own.ok ? comparableLines(own.graph.toText(false)) : QStringList();
        const QStringList theirs = comparableLines(traces[k].text);
        ++r.sets;
        if (own.ok && mine == theirs)
            continue;
        r.status = QStringLiteral("defect");
        r.set = k;
        r.reason = QStringLiteral("set %1 (%2)").arg(k + 1).arg(request.sets[k].toString());
        if (!own.ok) {
            r.line = 0;
            r.inputs = true;
            r.jitscope = QStringLiteral("the trace failed: %1").arg(own.error.toString());
            r.pytorch = theirs.value(0);
            return r;
        }
        int i = 0;
        while (i < mine.size() && i < theirs.size() && mine[i] == theirs[i])
            ++i;
        r.line = i;
        int signatureEnd = 0;
        while (signatureEnd < theirs.size() && !theirs[signatureEnd].endsWith(QLatin1String("):")))
            ++signatureEnd;
        r.inputs = i <= signatureEnd;
        r.jitscope = i < mine.size() ? mine[i].trimmed() : QStringLiteral("(nothing more)");
        r.pytorch = i < theirs.size() ? theirs[i].trimmed() : QStringLiteral("(nothing more)");
        return r;
    }
    r.status = r.sets > 0 ? QStringLiteral("agrees") : QStringLiteral("skipped");
    if (r.sets == 0)
        r.reason = QStringLiteral("PyTorch traced none of the sets");
    return r;
}

QVector<SelfCheck> selfCheckRecordedCalls(
    const QString& file, const PythonOptions& options, const QString& folder, const QVector<int>& calls)
{
    QVector<SelfCheck> checks;
    PythonRun run;
    SelfCheck skipped;
    if (!readPythonRecord(folder, run, &skipped.reason)) {
        skipped.status = QStringLiteral("skipped");
        return QVector<SelfCheck>(calls.size(), skipped);
    }
    // The file as JitScope's front end compiles it: the traces to compare are its own.
    const LoadResult builtIn = loadModel(file);
    for (int index : calls) {
        if (options.cancel && options.cancel->load())
            break;
        const auto call
            = std::find_if(run.calls.cbegin(), run.calls.cend(), [&](const PythonCall& c) { return c.index == index; });
        if (call == run.calls.cend()) {
            SelfCheck skipped;
            skipped.status = QStringLiteral("skipped");
            skipped.reason = QStringLiteral("the run recorded no call %1").arg(index + 1);
            checks << skipped;
            continue;
        }
        checks << selfCheckCall(file, options, *call, builtIn);
    }
    return checks;
}

} // namespace jitscope
