#include "checkcontroller.h"

#include "documentcontroller.h"
#include "inputsetsmodel.h"

#include <QElapsedTimer>
#include <QSet>

#include <algorithm>

#include <algorithm>

namespace jitscope {

CheckController::CheckController(const DocumentController* document, const InputSetsModel* inputSets, QObject* parent)
    : QObject(parent)
    , m_document(document)
    , m_inputSets(inputSets)
    , m_jobs(new JobTracker<CheckJobResult>(this))
{ }

void CheckController::run(bool force)
{
    // A report shown with showReport() stays while the document shows the same function: a relayout lays its
    // traces out again. Run Check (force) or another function checks the function itself.
    if (!force && m_source.isRecordedCall() && m_hasReport && m_externalFunction == m_document->currentFunction()) {
        const CheckReport report = m_report;
        showReport(report, m_source);
        return;
    }
    const ModelInfo& model = m_document->model();
    const FunctionInfo* fn = m_document->hasModel() ? model.function(m_document->currentFunction()) : nullptr;
    // Only once the script graph is shown: the compare view needs its layout.
    if (!fn || !fn->ok || m_document->shownFunction() != fn->name)
        return;
    bool valid = false;
    const QVector<InputSet> sets = m_inputSets->sets(&valid);
    if (!valid) {
        const int row = m_inputSets->firstInvalidRow();
        reset(tr("Input set %1 is invalid").arg(row + 1),
            tr("Fix it in the Input Sets panel, then run the check again (Ctrl+R)."), true);
        Q_EMIT statusMessage(tr("Input set %1 is invalid: %2")
                                 .arg(row + 1)
                                 .arg(m_inputSets->index(row, 0).data(InputSetsModel::ErrorRole).toString()));
        return;
    }
    if (sets.isEmpty()) {
        reset(tr("No input sets"),
            tr("Add an input set in the Input Sets panel (for example f32[2,3]) to trace %1 and check the trace.")
                .arg(fn->name));
        return;
    }
    // The traces depend on the sets and on strict.
    const QString setsKey
        = m_inputSets->texts().join(QLatin1Char('\n')) + (m_strict ? QString() : QStringLiteral("\nstrict=False"));
    if (force)
        m_cache.remove(fn->name);
    const auto cached = m_cache.constFind(fn->name);
    if (cached != m_cache.constEnd() && cached->setsKey == setsKey) {
        if (cached->layoutKey == m_document->layoutOptionsKey()) {
            m_jobs->invalidate();
            CheckJobResult r;
            r.function = fn->name;
            r.setsKey = setsKey;
            r.layoutKey = cached->layoutKey;
            r.report = cached->report;
            r.layouts = cached->layouts;
            apply(r);
            return;
        }
        // Same traces, other layout options: lay them out again without tracing again.
        const CheckReport report = cached->report;
        start(fn->name, sets, setsKey, &report);
        return;
    }
    start(fn->name, sets, setsKey, nullptr);
}

void CheckController::showReport(const CheckReport& report, const CheckSource& source)
{
    QVector<InputSet> sets;
    for (const TraceResult& t : report.traces)
        sets << t.inputs;
    m_externalFunction = m_document->currentFunction();
    start(report.function, sets, QString(), &report, source);
}

namespace {

/// The submodules whose code differs between any two traces of @p report, and every module holding one.
QSet<QString> differingModules(const CheckReport& report)
{
    QSet<QString> modules;
    auto add = [&](const TraceResult& trace, int node) {
        if (node < 0 || node >= trace.graph.nodes.size())
            return;
        QString path = trace.graph.node(node).modulePath;
        while (!path.isEmpty()) {
            modules.insert(path);
            const int dot = path.lastIndexOf(QLatin1Char('.'));
            path = dot < 0 ? QString() : path.left(dot);
        }
    };
    for (const TraceDiff& d : report.diffs)
        for (const NodeChange& c : d.changes) {
            add(report.traces.value(d.base), c.baseNode);
            add(report.traces.value(d.other), c.otherNode);
        }
    return modules;
}

/// Traces of a module (JitScope's of an archive, or a recorded Python call's) are inlined models: grouped by module
/// as an archive is (clusters named by path and class, code that never reaches the outputs hidden), a big one as
/// the folded overview with the modules that differ between the traces unfolded.
void groupModuleTraces(const CheckReport& report, LayoutOptions& options)
{
    if (report.traces.isEmpty() || !report.traces[0].ok)
        return;
    const IrGraph& first = report.traces[0].graph;
    if (std::none_of(first.nodes.cbegin(), first.nodes.cend(), [](const IrNode& n) { return !n.modulePath.isEmpty(); }))
        return;
    options.groupByModule = true;
    options.hideUnreachable = true;
    options.moduleTypes = report.moduleTypes;
    if (!options.foldedModules.isEmpty())
        return;
    const QSet<QString> differing = differingModules(report);
    for (const QString& fold : overviewFolds(first, options))
        if (!differing.contains(fold))
            options.foldedModules << fold;
}

} // namespace

void CheckController::start(const QString& function, const QVector<InputSet>& sets, const QString& setsKey,
    const CheckReport* reuse, const CheckSource& source)
{
    const bool relayoutOnly = reuse != nullptr;
    const CheckReport reused = reuse ? *reuse : CheckReport();
    LayoutOptions options = m_document->layoutOptions();
    const QString layoutKey = m_document->layoutOptionsKey();
    const int steps = int(sets.size()) + 1;
    auto work = [engine = m_document->engine(), engineModel = m_document->engineModel(), function, sets, setsKey,
                    layoutKey, options, reused, relayoutOnly, steps, source, strict = m_strict](JobControl& control) {
        CheckJobResult r;
        r.function = function;
        r.source = source;
        r.setsKey = setsKey;
        r.layoutKey = layoutKey;
        // Step 1 is the check itself, steps 2.. the layouts (progress values must grow to be reported).
        QElapsedTimer timer;
        timer.start();
        if (relayoutOnly) {
            r.report = reused;
        } else {
            control.setProgress(1, steps + 1, QStringLiteral("Tracing %1 input set(s)").arg(sets.size()));
            CheckOptions check;
            check.exec.cancel = control.cancelFlag();
            check.exec.timeoutMs = kTimeoutMs;
            check.exec.strict = strict;
            check.everyPair = true; // Compare shows any two traces: the engine diffs and explains them all
            // The pipeline jitscope-cli check runs too: the function prepared the same way (the model holds it
            // inlined when grouped by module), so one file gives one report.
            // In the window's model worker: a crash in libtorch then ends the worker, and the report says
            // what it was doing.
            r.report = engine->check(engineModel, function, sets, check, control.cancelFlag());
            r.checkMs = timer.restart();
        }
        LayoutOptions traceOptions = options;
        groupModuleTraces(r.report, traceOptions);
        for (int k = 0; k < r.report.traces.size(); ++k) {
            if (control.canceled())
                break;
            control.setProgress(
                k + 2, steps + 1, QStringLiteral("Laying out trace %1 of %2").arg(k + 1).arg(r.report.traces.size()));
            const TraceResult& trace = r.report.traces.at(k);
            // Graphviz in the model worker too: its crash costs a layout, not the window.
            const QString what = QStringLiteral("trace %1 of `%2`").arg(k + 1).arg(function);
            r.layouts.append(trace.ok ? engine->layout(trace.graph, traceOptions, what) : GraphLayout());
        }
        if (source.isRecordedCall() && !r.report.script.nodes.isEmpty() && !control.canceled())
            r.scriptLayout = engine->layout(r.report.script, traceOptions, QStringLiteral("the script graph"));
        if (!r.report.exported.graph.nodes.isEmpty() && !control.canceled()) {
            // Grouped by nn_module_stack as the traces are by their scopes.
            LayoutOptions exportOptions = options;
            exportOptions.groupByModule = true;
            exportOptions.moduleTypes = r.report.moduleTypes;
            r.exportLayout = engine->layout(r.report.exported.graph, exportOptions, QStringLiteral("the export"));
        }
        r.layoutMs = timer.elapsed();
        r.canceled = control.canceled();
        return r;
    };
    m_jobs->start(
        std::move(work), [this](CheckJobResult& r) { apply(r); },
        [this](int value, int, const QString& text) { Q_EMIT progress(value, text); });
    Q_EMIT started(function, int(sets.size()), relayoutOnly);
}

void CheckController::cancel()
{
    if (m_jobs->isIdle())
        return;
    m_jobs->cancel();
    Q_EMIT canceling();
}

void CheckController::apply(const CheckJobResult& r)
{
    if ((r.source.isRecordedCall() || r.function == m_document->currentFunction()) && !r.canceled) {
        // A layout that failed (Graphviz crashed in the worker) is laid out again by the next run, the traces kept.
        const bool laidOut
            = std::all_of(r.layouts.cbegin(), r.layouts.cend(), [](const GraphLayout& l) { return l.error.isEmpty(); });
        if (!r.source.isRecordedCall() && r.report.ok && r.layouts.size() == r.report.traces.size())
            m_cache.insert(r.function, { r.setsKey, r.report, laidOut ? r.layoutKey : QString(), r.layouts });
        m_source = r.source;
        m_scriptLayout = r.scriptLayout;
        m_exportLayout = r.exportLayout;
        m_report = r.report;
        m_traceLayouts = r.layouts;
        m_hasReport = true;
    }
    Q_EMIT finished(r);
}

void CheckController::reset(const QString& title, const QString& text, bool isError)
{
    m_jobs->invalidate();
    m_report = CheckReport();
    m_traceLayouts.clear();
    m_scriptLayout = GraphLayout();
    m_exportLayout = GraphLayout();
    m_hasReport = false;
    m_source = CheckSource();
    Q_EMIT cleared(title, text, isError);
}

} // namespace jitscope
