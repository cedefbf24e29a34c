#include "documentcontroller.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

#include <algorithm>

namespace jitscope {

namespace {

/// What a layout depends on, for the layout cache: "|foldConstants showBlocks groupByModule|nodes|modules".
QString optionsKey(const LayoutOptions& options)
{
    QStringList nodes;
    for (int id : options.foldedNodes)
        nodes << QString::number(id);
    return QStringLiteral("|%1%2%3|%4|%5")
        .arg(int(options.foldConstants))
        .arg(int(options.showBlocks))
        .arg(int(options.groupByModule))
        .arg(nodes.join(QLatin1Char(',')), options.foldedModules.join(QLatin1Char(',')));
}

/// A big model grouped by module opens as an overview: its submodules folded (TensorBoard collapses name scopes).
/// Sets the folds in @p options and @p r when it applies.
void foldForOverview(const IrGraph& graph, LayoutOptions& options, DocumentJob& r, QPoint limits)
{
    // Control flow nested deep (F.interpolate's else-if ladder) opens as one box.
    if (options.foldedNodes.isEmpty()) {
        r.overviewNodeFolds = deepControlFlowFolds(graph, options);
        options.foldedNodes = r.overviewNodeFolds;
    }
    // Unfolded whole (--unfold-all): no limit to count boxes against; counting them costs a walk of the graph.
    if (!options.groupByModule || !options.foldedModules.isEmpty() || limits.x() == std::numeric_limits<int>::max())
        return;
    r.overviewFolds = overviewFolds(graph, options, limits.x(), limits.y());
    options.foldedModules = r.overviewFolds;
}

/// Lays @p graph out in @p engine (the model worker: a crash of Graphviz costs the worker, not the window).
GraphLayout layOut(
    const ModelEngineRef& engine, const IrGraph& graph, const LayoutOptions& options, const QString& function)
{
    return engine->layout(graph, options, QLatin1Char('`') + function + QLatin1Char('`'));
}

/// The function opened when none is named: "forward" or the only one, else the first that compiled.
const FunctionInfo* pickFunction(const ModelInfo& model)
{
    if (const FunctionInfo* fn = model.defaultFunction())
        return fn;
    for (const FunctionInfo& fn : model.functions) {
        if (fn.ok)
            return &fn;
    }
    return model.functions.isEmpty() ? nullptr : &model.functions.first();
}

/// The load job: the model, its function and that function's first layout.
DocumentJob loadJob(const QString& absolute, const QString& functionName, const LayoutOptions& layoutOptions,
    const LoadOptions& loadOptions, QPoint limits, const ModelEngineRef& engine, const JobControl& control)
{
    DocumentJob r;
    r.kind = DocumentJob::Kind::Load;
    r.path = absolute;
    QElapsedTimer timer;
    timer.start();
    if (engine) {
        r.load = engine->load(absolute, loadOptions, &r.engineModel, control.cancelFlag());
    } else {
        r.load = LoadResult();
        r.load.error = { QStringLiteral("no model engine to load it with"), { absolute, 0, 0 } };
    }
    r.loadMs = timer.elapsed();
    if (!r.load.ok) {
        QFile file(absolute);
        if (absolute.endsWith(QLatin1String(".py")) && file.open(QIODevice::ReadOnly | QIODevice::Text)
            && file.size() < 16 * 1024 * 1024)
            r.failedSource = QString::fromUtf8(file.readAll());
        return r;
    }
    const FunctionInfo* fn = nullptr;
    if (!functionName.isEmpty()) {
        fn = r.load.model.function(functionName);
        if (!fn) {
            QStringList names;
            for (const FunctionInfo& f : r.load.model.functions)
                names << f.name;
            r.functionError = QStringLiteral("%1: no function '%2' (functions: %3)")
                                  .arg(absolute, functionName,
                                      names.isEmpty() ? QStringLiteral("none") : names.join(QLatin1String(", ")));
        }
    }
    if (!fn)
        fn = pickFunction(r.load.model);
    if (!fn || control.canceled())
        return r;
    if (loadOptions.inlineCalls && !fn->inlined) { // a submodule's method (--fn layer1.0.forward)
        for (FunctionInfo& f : r.load.model.functions)
            if (&f == fn) {
                engine->inlineFunction(r.engineModel, f);
            }
    }
    r.functionName = fn->name;
    r.nodeCount = fn->graph.nodes.size();
    if (r.load.model.inputSets.isEmpty() && fn->ok)
        r.suggestion = engine->suggestInputSet(r.engineModel, fn->name);
    if (fn->ok) {
        timer.restart();
        LayoutOptions options = layoutOptions;
        options.cancel = control.cancelFlag();
        options.moduleTypes = engine->submoduleTypes(r.engineModel, fn->name);
        foldForOverview(fn->graph, options, r, limits);
        r.layout = layOut(engine, fn->graph, options, fn->name);
        r.layoutMs = timer.elapsed();
        r.hasLayout = true;
        r.layoutKey = fn->name + optionsKey(options);
    }
    return r;
}

} // namespace

DocumentController::DocumentController(QObject* parent)
    : QObject(parent)
    , m_jobs(new JobTracker<DocumentJob>(this))
{
    // Editors often save by replacing the file, which drops it from the watch: its directory is watched too.
    m_fileWatcher = new QFileSystemWatcher(this);
    m_reloadTimer = new QTimer(this);
    m_reloadTimer->setSingleShot(true);
    m_reloadTimer->setInterval(300);
    connect(m_fileWatcher, &QFileSystemWatcher::fileChanged, this, [this] { onWatchedPathChanged(true); });
    connect(m_fileWatcher, &QFileSystemWatcher::directoryChanged, this, [this] { onWatchedPathChanged(false); });
    connect(m_reloadTimer, &QTimer::timeout, this, [this] {
        if (QFileInfo::exists(m_currentFile))
            reload();
    });
}

DocumentController::~DocumentController() = default;

bool DocumentController::isSourceFile(const QString& path)
{
    return path.endsWith(QLatin1String(".py"), Qt::CaseInsensitive);
}

void DocumentController::startJob(JobTracker<DocumentJob>::Work work)
{
    m_jobs->start(std::move(work), [this](DocumentJob& r) { onJobDone(r); });
}

void DocumentController::open(const QString& path, const QString& functionName)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_currentFile = absolute;
    watchFile(absolute);
    m_currentFunction.clear();
    m_lastError.clear();
    m_hasModel = false;
    m_model = ModelInfo();
    m_engineModel.reset();
    m_sourceMap = SourceMap();
    m_layoutCache.clear();
    m_shownFunction.clear();
    m_foldedNodes.clear();
    m_foldedModules.clear();
    m_goodFolds.reset();
    Q_EMIT aboutToOpen(absolute);

    const LayoutOptions layoutOptions = this->layoutOptions();
    LoadOptions loadOptions;
    // Submodule code only shows up in the caller's graph once the calls are inlined.
    loadOptions.inlineCalls = layoutOptions.groupByModule;
    loadOptions.opLibraries = m_operatorLibraries;
    loadOptions.strictOpLibraries = false;
    startJob([absolute, functionName, layoutOptions, loadOptions, limits = overviewLimits(), engine = m_engine](
                 JobControl& control) {
        return loadJob(absolute, functionName, layoutOptions, loadOptions, limits, engine, control);
    });
}

void DocumentController::reload()
{
    if (m_currentFile.isEmpty())
        return;
    Q_EMIT aboutToReload();
    m_reloading = true;
    // Copies: open() forgets the current ones.
    const QString path = m_currentFile;
    const QString function = m_currentFunction;
    open(path, function);
}

void DocumentController::onJobDone(DocumentJob& r)
{
    if (r.kind == DocumentJob::Kind::Layout) {
        if (r.inlined) {
            for (FunctionInfo& f : m_model.functions)
                if (f.name == r.inlined->name)
                    f = std::move(*r.inlined);
        }
        if (r.layout.cancelled) {
            if (r.functionName == m_currentFunction)
                Q_EMIT layoutCanceled(r.functionName);
            return;
        }
        // A layout that failed (Graphviz crashed in the worker, or ran past its limit) is tried again next time.
        if (r.layout.error.isEmpty())
            m_layoutCache.insert(r.layoutKey, r.layout);
        if (r.functionName == m_currentFunction) {
            if (!r.overviewFolds.isEmpty())
                m_foldedModules = QSet<QString>(r.overviewFolds.begin(), r.overviewFolds.end());
            if (!r.overviewNodeFolds.isEmpty())
                m_foldedNodes = QSet<int>(r.overviewNodeFolds.begin(), r.overviewNodeFolds.end());
            if (r.layout.error.isEmpty())
                m_goodFolds = m_foldedModules;
            Q_EMIT layoutReady(r.functionName, r.layout, r.layoutMs, r.overviewFolds);
        }
        return;
    }
    if (!r.load.ok) {
        m_lastError = r.load.error.toString();
    } else {
        m_model = std::move(r.load.model);
        m_engineModel = r.engineModel;
        m_sourceMap = SourceMap(m_model);
        m_hasModel = true;
        m_lastError = r.functionError;
        m_foldedModules = QSet<QString>(r.overviewFolds.begin(), r.overviewFolds.end());
        m_foldedNodes = QSet<int>(r.overviewNodeFolds.begin(), r.overviewNodeFolds.end());
        if (r.hasLayout && !r.layout.cancelled && r.layout.error.isEmpty()) {
            m_layoutCache.insert(r.layoutKey, r.layout);
            m_goodFolds = m_foldedModules;
        }
        m_currentFunction = r.functionName;
    }
    // Listeners ask isReloading() while they handle it.
    Q_EMIT loaded(r);
    m_reloading = false;
}

void DocumentController::showFunction(const QString& name)
{
    if (!m_hasModel || name == m_currentFunction)
        return;
    const FunctionInfo* fn = m_model.function(name);
    if (!fn) {
        Q_EMIT noSuchFunction(name);
        return;
    }
    m_currentFunction = name;
    Q_EMIT currentFunctionChanged(name);
    if (!fn->ok) {
        // Leave no job running that could replace the error with an older graph.
        m_jobs->invalidate();
        m_shownFunction.clear();
        Q_EMIT compileErrorShown(*fn);
        return;
    }
    const bool firstShown = name != m_shownFunction;
    if (firstShown) {
        Q_EMIT functionSwitched(name);
        // Folds name nodes of one function.
        m_foldedNodes.clear();
        m_foldedModules.clear();
        m_goodFolds.reset();
    }
    const QString key = name + layoutOptionsKey();
    const auto cached = m_layoutCache.constFind(key);
    if (cached != m_layoutCache.constEnd()) {
        m_jobs->invalidate();
        Q_EMIT layoutReady(name, cached.value(), 0, {});
        return;
    }

    LayoutOptions options = layoutOptions();
    Q_EMIT layoutStarted(name);
    // Grouped by module, a submodule's method is inlined the first time it is shown.
    std::optional<FunctionInfo> toInline;
    if (options.groupByModule && !fn->inlined)
        toInline = *fn;
    startJob([graph = fn->graph, toInline, name, options, key, firstShown, limits = overviewLimits(), engine = m_engine,
                 engineModel = m_engineModel](JobControl& control) mutable {
        DocumentJob r;
        r.kind = DocumentJob::Kind::Layout;
        r.functionName = name;
        QElapsedTimer timer;
        timer.start();
        options.moduleTypes = engine->submoduleTypes(engineModel, name);
        if (toInline && engine->inlineFunction(engineModel, *toInline)) {
            graph = toInline->graph;
            r.inlined = std::move(toInline);
        }
        r.nodeCount = graph.nodes.size();
        if (firstShown)
            foldForOverview(graph, options, r, limits);
        options.cancel = control.cancelFlag();
        r.layout = layOut(engine, graph, options, name);
        r.layoutMs = timer.elapsed();
        r.hasLayout = true;
        r.layoutKey = r.overviewFolds.isEmpty() && r.overviewNodeFolds.isEmpty() ? key : name + optionsKey(options);
        return r;
    });
}

void DocumentController::relayout()
{
    if (!m_hasModel || m_currentFunction.isEmpty())
        return;
    const QString name = m_currentFunction;
    m_currentFunction.clear();
    showFunction(name);
}

void DocumentController::cancelLayout()
{
    m_jobs->cancel();
}

void DocumentController::toggleFold(int nodeId, const QString& module)
{
    if (!module.isEmpty()) {
        if (!m_foldedModules.remove(module))
            m_foldedModules.insert(module);
    } else if (nodeId >= 0) {
        if (!m_foldedNodes.remove(nodeId))
            m_foldedNodes.insert(nodeId);
    }
    relayout();
}

void DocumentController::unfoldAllModules()
{
    if (m_foldedModules.isEmpty() || !m_hasModel || m_currentFunction.isEmpty())
        return;
    m_foldedModules.clear();
    relayout();
}

bool DocumentController::canShowOverview() const
{
    const FunctionInfo* fn = m_hasModel ? m_model.function(m_currentFunction) : nullptr;
    if (!fn || !fn->ok || !m_groupByModule)
        return false;
    if (m_goodFolds && *m_goodFolds != m_foldedModules)
        return true;
    const QStringList folds = overviewFolds(fn->graph, layoutOptions(), 0, m_overviewLimits.y());
    return !folds.isEmpty() && QSet<QString>(folds.begin(), folds.end()) != m_foldedModules;
}

void DocumentController::showOverview()
{
    if (!canShowOverview())
        return;
    if (m_goodFolds && *m_goodFolds != m_foldedModules) {
        m_foldedModules = *m_goodFolds;
    } else {
        const QStringList folds
            = overviewFolds(m_model.function(m_currentFunction)->graph, layoutOptions(), 0, m_overviewLimits.y());
        m_foldedModules = QSet<QString>(folds.begin(), folds.end());
    }
    relayout();
}

QStringList DocumentController::foldedModules() const
{
    QStringList modules(m_foldedModules.begin(), m_foldedModules.end());
    modules.sort();
    return modules;
}

LayoutOptions DocumentController::layoutOptions() const
{
    LayoutOptions options;
    options.foldConstants = m_foldConstants;
    options.showBlocks = m_showBlocks;
    options.groupByModule = m_groupByModule;
    // The whole model, inlined: hide its guard code (shape checks that raise, counters) as model viewers do.
    options.hideUnreachable = options.groupByModule;
    options.foldedNodes = QVector<int>(m_foldedNodes.begin(), m_foldedNodes.end());
    std::sort(options.foldedNodes.begin(), options.foldedNodes.end());
    options.foldedModules = QStringList(m_foldedModules.begin(), m_foldedModules.end());
    options.foldedModules.sort();
    // Folding or unfolding one module lays out that module and re-composes its parents: the rest comes from here.
    options.cache = m_clusterLayouts;
    return options;
}

QString DocumentController::layoutOptionsKey() const
{
    return optionsKey(layoutOptions());
}

GraphLayout DocumentController::cachedLayout(const QString& function) const
{
    return m_layoutCache.value(function + layoutOptionsKey());
}

void DocumentController::watchFile(const QString& path)
{
    const QStringList watched = m_fileWatcher->files() + m_fileWatcher->directories();
    if (!watched.isEmpty())
        m_fileWatcher->removePaths(watched);
    m_lastModified = QFileInfo(path).lastModified();
    if (QFileInfo::exists(path))
        m_fileWatcher->addPath(path);
    m_fileWatcher->addPath(QFileInfo(path).absolutePath());
}

void DocumentController::onWatchedPathChanged(bool fileSignal)
{
    if (m_currentFile.isEmpty())
        return;
    const QFileInfo info(m_currentFile);
    if (!info.exists()) {
        // Saved by delete-and-rename: the new file may be a moment away; the directory watch brings it back.
        m_reloadTimer->stop();
        Q_EMIT removedFromDisk(m_currentFile);
        return;
    }
    // The directory also changes for its other files: only a new or modified file of ours counts.
    bool changed = fileSignal || info.lastModified() != m_lastModified;
    if (!m_fileWatcher->files().contains(m_currentFile)) {
        m_fileWatcher->addPath(m_currentFile);
        changed = true;
    }
    if (changed)
        m_reloadTimer->start();
}

} // namespace jitscope
