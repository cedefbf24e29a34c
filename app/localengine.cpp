#include "localengine.h"

#include "bridge/pythoncheck.h"
#include "bridge/selfcheckcalls.h"
#include "check/check.h"
#include "debug/debugsession.h"
#include "layout/layout.h"
#include "load/model.h"

namespace jitscope {

namespace {

/// A model loaded in this process; inlining a function replaces it here, so that later checks see it as the window
/// shows it (as the worker's model does).
struct LocalModel : EngineModel
{
    mutable std::mutex mutex;
    mutable ModelInfo model;

    ModelInfo snapshot() const
    {
        std::lock_guard<std::mutex> lock(mutex);
        return model;
    }
};

const LocalModel* localModel(const EngineModelRef& model)
{
    return dynamic_cast<const LocalModel*>(model.get());
}

class LocalDebugSession : public DebugBackend
{
public:
    LocalDebugSession(ModelInfo model, DebugTarget target)
        : m_session(std::move(model), std::move(target))
    { }
    void start() override { m_session.start(); }
    void setBreakpoints(QVector<DebugBreakpoint> breakpoints) override
    {
        m_session.setBreakpoints(std::move(breakpoints));
    }
    void resume(DebugCommand command, int line) override { m_session.resume(command, line); }
    void stop() override { m_session.stop(); }
    void setPauseCallback(std::function<void(const DebugPause&)> callback) override
    {
        m_session.setPauseCallback(std::move(callback));
    }

private:
    DebugSession m_session;
};

/// Linked in (jitscope_localengine is an object library), the in-process engine is every controller's default.
const bool g_registered = [] {
    ModelEngine::setInProcess(std::make_shared<LocalEngine>());
    return true;
}();

} // namespace

LocalEngine::LocalEngine()
    : m_layouts(std::make_shared<LayoutCache>())
{ }

LoadResult LocalEngine::load(
    const QString& path, const LoadOptions& options, EngineModelRef* model, const std::atomic<bool>*) const
{
    LoadResult r = loadModel(path, options);
    if (r.ok && model) {
        auto local = std::make_shared<LocalModel>();
        local->model = r.model;
        *model = std::move(local);
    }
    return r;
}

bool LocalEngine::inlineFunction(const EngineModelRef& model, FunctionInfo& fn, QString* error) const
{
    const LocalModel* local = localModel(model);
    if (!local) {
        if (error)
            *error = QStringLiteral("no model");
        return false;
    }
    if (!jitscope::inlineFunction(local->snapshot().handle, fn, error))
        return false;
    std::lock_guard<std::mutex> lock(local->mutex);
    for (FunctionInfo& f : local->model.functions)
        if (f.name == fn.name)
            f = fn;
    return true;
}

std::optional<InputSuggestion> LocalEngine::suggestInputSet(const EngineModelRef& model, const QString& function) const
{
    const LocalModel* local = localModel(model);
    if (!local)
        return std::nullopt;
    const ModelInfo info = local->snapshot();
    const FunctionInfo* fn = info.function(function);
    return fn ? jitscope::suggestInputSet(info, *fn) : std::nullopt;
}

QHash<QString, QString> LocalEngine::submoduleTypes(const EngineModelRef& model, const QString& function) const
{
    const LocalModel* local = localModel(model);
    return local ? jitscope::submoduleTypes(local->snapshot(), function) : QHash<QString, QString>();
}

CheckReport LocalEngine::check(const EngineModelRef& model, const QString& function, const QVector<InputSet>& sets,
    const CheckOptions& options, const std::atomic<bool>* cancel) const
{
    const LocalModel* local = localModel(model);
    if (!local) {
        CheckReport r;
        r.function = function;
        r.error = { QStringLiteral("no model loaded"), {} };
        return r;
    }
    CheckOptions check = options;
    if (cancel)
        check.exec.cancel = cancel;
    return checkModel(local->snapshot(), function, sets, check);
}

PythonRun LocalEngine::runPython(const QString& path, const PythonOptions& options) const
{
    return runPythonFile(path, options);
}

QVector<CheckReport> LocalEngine::checkRecordedCalls(const QString& folder, const QString& source) const
{
    return jitscope::checkRecordedCalls(folder, source);
}

QVector<SelfCheck> LocalEngine::selfCheck(
    const QString& file, const PythonOptions& options, const QString& folder, const QVector<int>& calls) const
{
    return selfCheckRecordedCalls(file, options, folder, calls);
}

GraphLayout LocalEngine::layout(const IrGraph& graph, const LayoutOptions& options, const QString&) const
{
    if (options.cache)
        return layoutGraph(graph, options);
    LayoutOptions cached = options;
    cached.cache = m_layouts;
    return layoutGraph(graph, cached);
}

std::unique_ptr<DebugBackend> LocalEngine::debug(const EngineModelRef& model, const DebugTarget& target) const
{
    const LocalModel* local = localModel(model);
    return std::make_unique<LocalDebugSession>(local ? local->snapshot() : ModelInfo(), target);
}

} // namespace jitscope
