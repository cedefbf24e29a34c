// buildCheckReport(): the one builder of a check's report from what the check observed, for JitScope's own traces
// (checkFunction) and for the traces PyTorch recorded (checkRecordedCall). Every verdict rule lives here once.
#include "check/check.h"

#include <QFileInfo>

#include <algorithm>

namespace jitscope {

namespace {

/// Trace @p base against trace @p other (0-based) of @p r, diffed with the names of classes compiled again plain
/// (PyTorch mangles them: the same module either way); copies of the graphs only where a name is mangled.
TraceDiff diffPlain(const CheckReport& r, int base, int other)
{
    auto mangled = [](const IrGraph& g) {
        return std::any_of(g.values.cbegin(), g.values.cend(),
            [](const IrValue& v) { return v.type.contains(QLatin1String("___torch_mangle_")); });
    };
    const IrGraph& a = r.traces[base].graph;
    const IrGraph& b = r.traces[other].graph;
    TraceDiff diff = mangled(a) || mangled(b) ? diffTraces(withoutMangling(a), withoutMangling(b)) : diffTraces(a, b);
    diff.base = base;
    diff.other = other;
    return diff;
}

/// Trace @p base against trace @p other, diffed and explained by the one explainer.
TraceDiff diffAndExplain(const CheckReport& r, int base, int other, ExplainContext& context)
{
    TraceDiff diff = diffPlain(r, base, other);
    context.repeat = r.traces[other].repeat;
    explainChanges(diff, r.traces[base], r.traces[other], context);
    return diff;
}

/// The check's own warning that trace 1 does not compute on set @p k (0-based) what the code does, or fails there.
/// JitScope's own check says it in PyTorch's words (its check would have); a recorded call, whose PyTorch warnings are
/// in the report already, says it plainly.
TraceWarning outputWarning(const CheckObservations& obs, int k, const OutputCheck& out)
{
    TraceWarning w;
    w.kind = WarningKind::OutputMismatch;
    w.traceIndex = k;
    w.location = obs.callLocation;
    w.suggestion = warningFix(w.kind, { QString::number(k + 1) });
    if (out.ran) {
        w.message = obs.recordedByPyTorch
            ? warningMessage(w.kind, { QString::number(k + 1), out.comparison.message }, 1)
            : warningMessage(
                w.kind, { QString::number(k + 1), obs.traces[k].inputs.toString(), out.comparison.message });
        return w;
    }
    w.message = out.error;
    if (out.failure.isValid()) {
        // Where trace 1 failed: its node's line (with its file's name when that is not the checked file), the node
        // in the message, and the stack down to the user's line.
        const QString place = out.failure.location.file == obs.file || out.failure.location.file.isEmpty()
            ? QStringLiteral("line %1").arg(out.failure.location.line)
            : QStringLiteral("%1:%2")
                  .arg(QFileInfo(out.failure.location.file).fileName())
                  .arg(out.failure.location.line);
        w.message += QStringLiteral(" (%1 fails at %2, %3)")
                         .arg(obs.tracedArchive ? QStringLiteral("the archive") : QStringLiteral("trace 1"))
                         .arg(out.failure.kind, place);
        if (out.failure.location.isValid())
            w.location = out.failure.location;
        w.stack = out.failure.stack;
    }
    return w;
}

/// How trace @p k compares with trace 1.
TraceStatus statusOf(const CheckReport& r, int k, const TraceDiff* diff, const OutputCheck* out, bool baked)
{
    if (!r.traces[k].ok)
        return TraceStatus::Failed;
    if (k == 0)
        return TraceStatus::Reference;
    if (!r.traces[0].ok)
        return TraceStatus::Failed;
    if (diff && !diff->equal)
        return TraceStatus::Diverged;
    const bool failedRun = out && ((!out->ran && !out->error.isEmpty()) || (out->ran && !out->comparison.equal));
    return failedRun || baked ? TraceStatus::WrongOutput : TraceStatus::Same;
}

} // namespace

namespace {

/// The call's export with its table's trace column: what each set's trace did beside what the exported program did
/// there, one row per set (a set the program was not run on: status empty).
ExportReport exportTable(ExportReport e, const CheckReport& r)
{
    if (!e.requested)
        return e;
    const int sets = std::max<int>(r.traces.size(), e.sets.size());
    QVector<ExportSetRow> rows(sets);
    for (int k = 0; k < sets; ++k) {
        rows[k].set = k + 1;
        for (const ExportSetRow& given : std::as_const(e.sets))
            if (given.set == k + 1)
                rows[k] = given;
        switch (k < r.statuses.size() ? r.statuses[k] : TraceStatus::Failed) {
        case TraceStatus::Reference:
            rows[k].trace = QStringLiteral("reference");
            break;
        case TraceStatus::Same:
            rows[k].trace = QStringLiteral("passes");
            break;
        case TraceStatus::Diverged:
            rows[k].trace = QStringLiteral("graphs differ");
            break;
        case TraceStatus::WrongOutput:
            rows[k].trace = QStringLiteral("outputs differ");
            break;
        case TraceStatus::Failed:
            rows[k].trace = QStringLiteral("fails");
            break;
        }
    }
    e.sets = rows;
    return e;
}

} // namespace

CheckReport buildCheckReport(CheckObservations obs)
{
    CheckReport r;
    r.file = obs.file;
    r.function = obs.function;
    r.script = std::move(obs.script);
    r.moduleTypes = obs.moduleTypes;
    r.tracedArchive = obs.tracedArchive;
    r.traces = obs.traces;
    r.ok = !r.traces.isEmpty() && r.traces[0].ok;
    if (!r.ok) {
        // Trace 1 is what every other set is compared with: without it, the check's error.
        r.error = obs.error.message.isEmpty() && !r.traces.isEmpty() ? r.traces[0].error : obs.error;
        if (r.error.message.isEmpty())
            r.error = Diagnostic { QStringLiteral("the call recorded no trace"), obs.callLocation };
        r.consistent = false;
        for (const TraceResult& t : std::as_const(r.traces))
            r.warnings += t.warnings;
        r.statuses.fill(TraceStatus::Failed, r.traces.size());
        r.exported = exportTable(std::move(obs.exported), r);
        return r;
    }
    obs.outputs.resize(r.traces.size() - 1);
    obs.bakedSizes.resize(r.traces.size() - 1);

    ExplainContext context;
    context.script = &r.script;
    context.moduleTypes = r.moduleTypes;
    context.file = r.file;
    context.source = obs.source;
    context.stateChanges = obs.stateChanges;
    // Every trace diffed before any is explained: a trace of the example inputs again that differs from trace 1 says
    // the model changed between the calls, which the other diffs' causes say too.
    QVector<TraceDiff> diffs(r.traces.size());
    for (int k = 1; k < r.traces.size(); ++k) {
        if (!r.traces[k].ok)
            continue;
        diffs[k] = diffPlain(r, 0, k);
        context.stateChanged |= r.traces[k].repeat && !diffs[k].equal;
    }

    QVector<TraceWarning> checkWarnings;
    r.statuses.push_back(TraceStatus::Reference);
    for (int k = 1; k < r.traces.size(); ++k) {
        OutputCheck out = obs.outputs[k - 1];
        const QVector<TraceWarning>& baked = obs.bakedSizes[k - 1];
        const TraceDiff* diff = nullptr;
        if (!r.traces[k].ok) {
            TraceWarning w;
            w.kind = WarningKind::TraceFailed;
            w.traceIndex = k;
            w.message = warningMessage(
                w.kind, { QString::number(k + 1), r.traces[k].inputs.toString(), r.traces[k].error.message });
            w.location = r.traces[k].error.location;
            checkWarnings << w;
        } else {
            TraceDiff& d = diffs[k];
            context.repeat = r.traces[k].repeat;
            explainChanges(d, r.traces[0], r.traces[k], context);
            // Where trace 1 and the code it came from part ways on this set: one divergence of kind value, at trace
            // 1's node. Where the graphs differ, code the other run does not run is the graph's own branch
            // divergence, said there.
            const ValueDivergence& v = out.values;
            if (v.present && v.error.isEmpty() && (d.equal || v.cause != QLatin1String("branch"))) {
                Divergence value
                    = valueDivergence(v, r.traces[0].graph, r.moduleTypes, k, obs.otherRun, obs.checkWords.value(k));
                if (d.equal) // the same graph: the same node on the other side
                    value.otherNodes = value.baseNodes;
                d.divergences << value;
            }
            r.diffs << d;
            diff = &r.diffs.back();
        }
        if (out.failure.isValid())
            describeTraceFailure(out.failure, r.traces[0].graph, diff);
        checkWarnings += baked;
        if (out.ran ? !out.comparison.equal : !out.error.isEmpty())
            checkWarnings << outputWarning(obs, k, out);
        r.statuses << statusOf(r, k, diff, &out, !baked.isEmpty());
        r.outputs << out;
    }
    r.consistent = true;
    for (TraceStatus s : std::as_const(r.statuses))
        r.consistent &= s == TraceStatus::Reference || s == TraceStatus::Same;
    // Every trace's warnings, in trace order, before the check's own.
    for (const TraceResult& t : std::as_const(r.traces))
        r.warnings += t.warnings;
    r.warnings += checkWarnings;
    // PyTorch's own verdict, when it failed for a reason the traces above do not show (nondeterministic nodes).
    if (obs.pytorchCheckFailed && r.consistent) {
        r.consistent = false;
        TraceWarning w;
        w.kind = obs.pytorchCheckMessage.contains(QLatin1String("nondeterministic")) ? WarningKind::NondeterministicOp
                                                                                     : WarningKind::OutputMismatch;
        w.message = QStringLiteral("PyTorch's check failed: %1")
                        .arg(obs.pytorchCheckMessage.section(QLatin1Char('\n'), 0, 2));
        w.location = obs.callLocation;
        w.suggestion = warningFix(w.kind);
        r.warnings << w;
    }
    if (obs.everyPair) {
        // Every other pair the window can compare, diffed and explained as the diffs above.
        for (int i = 1; i < r.traces.size(); ++i)
            for (int j = i + 1; j < r.traces.size(); ++j)
                if (r.traces[i].ok && r.traces[j].ok)
                    r.pairDiffs << diffAndExplain(r, i, j, context);
    }
    r.exported = exportTable(std::move(obs.exported), r);
    return r;
}

} // namespace jitscope
