// A recorded trace call checked as `check` checks JitScope's own traces, into the same CheckReport (what every view
// of a check shows): its traces with the warnings at their nodes, each diffed against trace 1 and explained by the
// one explainer (explainChanges(): its source rules read the nodes' Python stacks and the user's lines), the outputs
// PyTorch compared, where trace 1 failed on a check input, the statuses.
#include "bridge/pythoncheck.h"
#include "bridge/runpython.h"

#include <QFileInfo>
#include <QHash>
#include <QMap>
#include <QStringList>

#include <algorithm>

namespace jitscope {

WarningKind pythonWarningKind(const PythonWarning& w)
{
    const QString& m = w.message;
    if (w.category != QLatin1String("TracerWarning"))
        return w.category == QLatin1String("UserWarning") ? WarningKind::UserWarning : WarningKind::Tracer;
    if (m.startsWith(QLatin1String("Converting a tensor to a Python boolean")))
        return WarningKind::TensorToBool;
    if (m.startsWith(QLatin1String("Converting a tensor to a Python index")))
        return WarningKind::TensorToIndex;
    if (m.startsWith(QLatin1String("Converting a tensor to a Python"))
        || m.startsWith(QLatin1String("Converting a tensor to a NumPy array")))
        return WarningKind::TensorToNumber;
    if (m.startsWith(QLatin1String("Using len to get tensor shape")))
        return WarningKind::LenOfTensor;
    if (m.startsWith(QLatin1String("Iterating over a tensor")))
        return WarningKind::IteratingTensor;
    if (m.contains(QLatin1String(" results are registered as constants in the trace")))
        return WarningKind::BakedConstant;
    if (m.startsWith(QLatin1String("Trace had nondeterministic nodes")))
        return WarningKind::NondeterministicOp;
    if (m.startsWith(QLatin1String("Output nr ")))
        return WarningKind::OutputMismatch;
    return WarningKind::Tracer;
}

CheckReport checkRecordedCall(const PythonRun& run, const PythonCall& call, const QString& source)
{
    CheckReport r;
    r.file = call.location.file;
    r.function = call.target;
    r.moduleTypes = call.moduleTypes;
    for (const PythonFunction& f : run.functions)
        if (f.name == call.target && f.scriptOk)
            r.script = f.graph;
    for (const PythonModule& m : run.modules)
        for (const PythonMethod& pm : m.methods)
            if (m.className + QLatin1Char('.') + pm.name == call.target && pm.compiled)
                r.script = pm.graph;

    // The node a warning is about: the first recorded at its line, else (a condition whose ops the trace dropped)
    // the next one recorded after it in the same file.
    auto nodeAtLine = [](const IrGraph& g, const SourceLocation& at) {
        int next = -1;
        int nextLine = 0;
        for (int id : g.top.nodes) {
            const IrNode& n = g.node(id);
            if (n.location.file != at.file || n.kind == QLatin1String("prim::Constant"))
                continue;
            if (n.location.line == at.line)
                return n.id;
            if (n.location.line > at.line && (next < 0 || n.location.line < nextLine)) {
                next = n.id;
                nextLine = n.location.line;
            }
        }
        return next;
    };
    // Per file, each line that recorded a node (constants aside) with the first such node, anywhere in the
    // (inlined) graph: a library's lines as well as the user's. Made once per trace: a model raises hundreds of
    // warnings, each looked up at every frame of its stack.
    QHash<const IrGraph*, QHash<QString, QMap<int, int>>> placesOf;
    auto places = [&](const IrGraph& g) -> const QHash<QString, QMap<int, int>>& {
        auto it = placesOf.find(&g);
        if (it == placesOf.end()) {
            QHash<QString, QMap<int, int>> byFile;
            for (const IrNode& n : g.nodes)
                if (n.location.isValid() && n.kind != QLatin1String("prim::Constant")) {
                    QMap<int, int>& lines = byFile[n.location.file];
                    if (!lines.contains(n.location.line))
                        lines.insert(n.location.line, n.id);
                }
            it = placesOf.insert(&g, byFile);
        }
        return *it;
    };
    // The first node recorded exactly at @p at.
    auto nodeExactlyAt
        = [&](const IrGraph& g, const SourceLocation& at) { return places(g).value(at.file).value(at.line, -1); };
    // The first node of the nearest line after @p at in its file.
    auto nodeAfter = [&](const IrGraph& g, const SourceLocation& at) {
        const auto file = places(g).constFind(at.file);
        if (file == places(g).constEnd())
            return -1;
        const auto next = file->upperBound(at.line);
        return next == file->constEnd() ? -1 : next.value();
    };
    auto toWarning = [&](const PythonWarning& w, int trace, const IrGraph* graph) {
        TraceWarning tw;
        tw.kind = pythonWarningKind(w);
        tw.message = w.message;
        tw.traceIndex = trace;
        tw.location = w.location;
        tw.suggestion = warningFix(tw.kind);
        tw.occurrences = w.count;
        for (const PythonFrame& f : w.stack)
            tw.stack << f.location;
        if (tw.kind == WarningKind::OutputMismatch
            && std::none_of(tw.stack.cbegin(), tw.stack.cend(),
                [&](const SourceLocation& f) { return f.file == call.location.file; })) {
            // PyTorch's check warns from torch/jit/_trace.py: the call it checks is the user's torch.jit.trace line.
            if (tw.stack.isEmpty())
                tw.stack << tw.location;
            tw.stack << call.location;
        }
        if (graph) {
            // The node of the innermost frame that recorded one (torch._assert's line records none; the
            // torchvision line that called it does).
            tw.traceNode = nodeExactlyAt(*graph, w.location);
            for (int f = 0; tw.traceNode < 0 && f < w.stack.size(); ++f)
                tw.traceNode = nodeExactlyAt(*graph, w.stack[f].location);
            if (tw.traceNode < 0 && w.userCode)
                tw.traceNode = nodeAtLine(*graph, w.location);
            // A frame whose line is a call recording nothing itself (a check before the op): the first node its
            // file records after that line.
            for (int f = 0; tw.traceNode < 0 && f < w.stack.size(); ++f)
                tw.traceNode = nodeAfter(*graph, w.stack[f].location);
        }
        return tw;
    };

    for (int k = 0; k < call.traces.size(); ++k) {
        const PythonTrace& t = call.traces[k];
        TraceResult tr;
        tr.ok = t.ok;
        tr.error = t.error;
        if (auto set = parseInputSet(t.inputs))
            tr.inputs = *set;
        tr.graph = t.graph;
        tr.repeat = t.repeat;
        if (t.repeat)
            tr.note = QStringLiteral("the example inputs again");
        for (const PythonWarning& w : t.warnings) {
            tr.warnings << toWarning(w, k, t.ok ? &t.graph : nullptr);
            r.warnings << tr.warnings.back();
        }
        r.traces << tr;
        if (k > 0) {
            OutputCheck oc;
            oc.ran = t.outputsCompared;
            if (t.outputsCompared) {
                oc.comparison.equal = t.outputsEqual;
                oc.comparison.message = t.outputsMessage;
                oc.comparison.total = t.outputsElements;
            } else {
                oc.error = t.outputsMessage;
            }
            r.outputs << oc;
            if (oc.ran && !oc.comparison.equal) {
                TraceWarning tw;
                tw.kind = WarningKind::OutputMismatch;
                tw.message = QStringLiteral("trace 1 run on set %1 does not compute what the Python code computes: %2")
                                 .arg(k + 1)
                                 .arg(t.outputsMessage);
                tw.traceIndex = k;
                tw.location = call.location;
                tw.suggestion = warningFix(tw.kind);
                r.warnings << tw;
            }
        }
    }
    r.ok = !r.traces.isEmpty() && r.traces[0].ok;
    if (!r.ok)
        r.error = !call.traces.isEmpty() && !call.traces[0].ok ? call.traces[0].error : call.error;
    if (!r.ok && r.error.message.isEmpty())
        r.error = Diagnostic { QStringLiteral("the call recorded no trace"), call.location };

    // Every trace diffed once, before any is explained: a trace of the example inputs again (PyTorch's check
    // without check inputs, or JitScope's after a check that found another graph) that differs from trace 1 says
    // the model changed between the calls, which the other diffs' causes say too.
    bool graphsAgree = true;
    if (r.ok) {
        const IrGraph first = withoutMangling(r.traces[0].graph);
        for (int k = 1; k < r.traces.size(); ++k) {
            if (!r.traces[k].ok)
                continue;
            TraceDiff diff = diffTraces(first, withoutMangling(r.traces[k].graph));
            diff.base = 0;
            diff.other = k;
            graphsAgree &= diff.equal;
            r.diffs << diff;
        }
    }
    ExplainContext context;
    context.script = &r.script;
    context.moduleTypes = r.moduleTypes;
    context.file = call.location.file;
    context.source = source;
    context.stateChanges = call.stateChanges;
    for (const TraceDiff& d : std::as_const(r.diffs))
        context.stateChanged |= r.traces[d.other].repeat && !d.equal;
    for (TraceDiff& d : r.diffs) {
        context.repeat = r.traces[d.other].repeat;
        explainChanges(d, r.traces[0], r.traces[d.other], context);
    }
    // Where trace 1 and the Python code part ways on a set whose outputs differ (the bridge compared their values
    // in execution order): one divergence of kind value in that set's diff, at trace 1's node, under which PyTorch's
    // own words stand.
    QString pytorchWords;
    for (const PythonWarning& w : call.warnings)
        if (w.message.startsWith(QLatin1String("Output nr "))) {
            const QStringList lines = w.message.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
            pytorchWords = lines.value(0).trimmed();
            for (const QString& l : lines)
                if (l.trimmed().startsWith(QLatin1String("Mismatched elements"))
                    || l.trimmed().startsWith(QLatin1String("The values for attribute")))
                    pytorchWords += QLatin1Char(' ') + l.trimmed();
            break;
        }
    for (TraceDiff& d : r.diffs) {
        const PythonTrace& t = call.traces.value(d.other);
        if (t.values.present && t.values.error.isEmpty()) {
            Divergence v = valueDivergence(t.values, r.traces[0].graph, r.moduleTypes, d.other,
                QStringLiteral("Python"), t.tracedHere ? QString() : pytorchWords);
            if (d.equal) // the same graph: the same node on the other side
                v.otherNodes = v.baseNodes;
            d.divergences << v;
        }
    }
    // Where trace 1 failed on a check input: the node its error's TorchScript traceback names.
    for (int k = 1; k < r.traces.size() && r.ok; ++k) {
        OutputCheck& oc = r.outputs[k - 1];
        if (oc.ran || oc.error.isEmpty())
            continue;
        oc.failure.node = nodeOfTorchScriptError(r.traces[0].graph, oc.error);
        const QStringList lines = oc.error.trimmed().split(QLatin1Char('\n'));
        if (lines.size() > 1) // the interpreter's traceback: its last line says what failed
            oc.error = QStringLiteral("the trace failed on this input set: %1").arg(lines.last().trimmed());
        if (!oc.failure.isValid())
            continue;
        oc.failure.error = lines.last().trimmed();
        const TraceDiff* diff = nullptr;
        for (const TraceDiff& d : r.diffs)
            if (d.other == k)
                diff = &d;
        describeTraceFailure(oc.failure, r.traces[0].graph, diff);
        // In the Warnings panel, at trace 1's failing node: activating it shows the node.
        TraceWarning tw;
        tw.kind = WarningKind::OutputMismatch;
        tw.message = QStringLiteral("trace 1 fails on set %1 at %2 (%3:%4): %5")
                         .arg(k + 1)
                         .arg(oc.failure.kind, QFileInfo(oc.failure.location.file).fileName())
                         .arg(oc.failure.location.line)
                         .arg(oc.failure.error);
        tw.traceIndex = 0;
        tw.traceNode = oc.failure.node;
        tw.location = oc.failure.location;
        tw.stack = oc.failure.stack;
        tw.suggestion = warningFix(tw.kind);
        r.warnings << tw;
    }
    r.statuses.resize(r.traces.size());
    for (int k = 0; k < r.traces.size(); ++k) {
        TraceStatus& s = r.statuses[k];
        if (!r.traces[k].ok)
            s = TraceStatus::Failed;
        else if (k == 0)
            s = TraceStatus::Reference;
        else if (!r.traces[0].ok)
            s = TraceStatus::Failed;
        else {
            s = TraceStatus::Same;
            for (const TraceDiff& d : r.diffs)
                if (d.other == k && !d.equal)
                    s = TraceStatus::Diverged;
            if (s == TraceStatus::Same && k - 1 < r.outputs.size() && r.outputs[k - 1].ran
                && !r.outputs[k - 1].comparison.equal)
                s = TraceStatus::WrongOutput;
        }
    }
    r.consistent = graphsAgree;
    for (TraceStatus s : r.statuses)
        r.consistent &= s == TraceStatus::Reference || s == TraceStatus::Same;
    // PyTorch's own verdict, when it failed for a reason the traces above do not show (nondeterministic nodes).
    if (call.checked && !call.checkPassed && r.consistent) {
        r.consistent = false;
        TraceWarning tw;
        tw.kind = call.checkMessage.contains(QLatin1String("nondeterministic")) ? WarningKind::NondeterministicOp
                                                                                : WarningKind::OutputMismatch;
        tw.message
            = QStringLiteral("PyTorch's check failed: %1").arg(call.checkMessage.section(QLatin1Char('\n'), 0, 2));
        tw.location = call.location;
        tw.suggestion = warningFix(tw.kind);
        r.warnings << tw;
    }
    return r;
}

QVector<CheckReport> checkRecordedCalls(const QString& folder, const QString& source)
{
    PythonRun run;
    CheckReport failed;
    if (!readPythonRecord(folder, run, &failed.error.message))
        return { failed };
    QVector<CheckReport> reports;
    for (const PythonCall& call : std::as_const(run.calls)) {
        if (call.api == QLatin1String("script") || call.traces.isEmpty())
            reports << CheckReport();
        else
        {
            reports << checkRecordedCall(run, call, source);
            completePairDiffs(reports.back(), source); // the window compares any two traces
        }
    }
    return reports;
}

} // namespace jitscope
