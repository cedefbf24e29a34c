#include "workerclient.h"

#include "workerchannel_p.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <csignal>
#include <unistd.h>
#include <vector>

namespace jitscope {

using namespace protocol;

namespace {

/// Every client's channel in this process, for a new window to take another's spare worker.
std::mutex g_channelsMutex;
std::vector<std::weak_ptr<WorkerChannel>> g_channels;

/// The worker's model behind @p model (null for a model of another engine).
const WorkerModel* workerModel(const EngineModelRef& model)
{
    return dynamic_cast<const WorkerModel*>(model.get());
}

} // namespace

WorkerModel::~WorkerModel()
{
    if (const auto c = channel.lock())
        c->post([io = c->io(), model = id] { io->release(model); });
}

WorkerClient::WorkerClient(QObject* parent)
    : QObject(parent)
    , m_channel(std::make_shared<WorkerChannel>())
    , m_worker(std::make_shared<ModelWorker>(m_channel))
{
    m_channel->setNotify([this](const QString& message) {
        QMetaObject::invokeMethod(
            this, [this, message] { Q_EMIT workerStopped(message); }, Qt::QueuedConnection);
    });
    m_channel->setLifecycle([this](bool ready) {
        if (ready)
            Q_EMIT workerReady();
        else
            Q_EMIT workerStarted();
    });
    std::lock_guard<std::mutex> lock(g_channelsMutex);
    g_channels.erase(std::remove_if(g_channels.begin(), g_channels.end(), [](const auto& c) { return c.expired(); }),
        g_channels.end());
    g_channels.push_back(m_channel);
}

WorkerClient::~WorkerClient()
{
    m_channel->shutdown();
}

bool WorkerClient::takeSpareOfAnotherClient()
{
    std::vector<std::shared_ptr<WorkerChannel>> others;
    {
        std::lock_guard<std::mutex> lock(g_channelsMutex);
        for (const auto& weak : g_channels)
            if (auto channel = weak.lock(); channel && channel != m_channel)
                others.push_back(channel);
    }
    for (const auto& other : others) {
        std::optional<DonatedSpare> spare;
        // On the other client's I/O thread, which never waits for this one: the process moves to this client's.
        other->postAndWait([&spare, io = other->io(), to = m_channel->thread()] { spare = io->giveSpare(to); });
        if (!spare)
            continue;
        bool adopted = false;
        m_channel->postAndWait([&adopted, &spare, io = m_channel->io()] { adopted = io->adoptSpare(*spare); });
        return adopted;
    }
    return false;
}

QString WorkerClient::workerProgram()
{
    const QString dir = QCoreApplication::applicationDirPath();
    const QString beside = dir + QStringLiteral("/jitscope-worker");
    if (QFileInfo(beside).isExecutable())
        return beside;
    return QDir::cleanPath(dir + QStringLiteral("/../libexec/jitscope/jitscope-worker"));
}

LoadResult ModelWorker::load(
    const QString& path, const LoadOptions& options, EngineModelRef* model, const std::atomic<bool>* cancel) const
{
    const int id = m_channel->newModelId();
    auto ref = std::make_shared<WorkerModel>();
    ref->channel = m_channel;
    ref->id = id;
    ref->path = path;
    ref->options = options;
    QString error;
    LoadResult r;
    const auto answer = m_channel->call(MessageType::Load, id, pack(id, path, options), cancel, &error);
    if (!answer || !unpack(*answer, r)) {
        r = LoadResult();
        r.error = { answer ? QStringLiteral("a malformed answer from the model worker") : error, { path, 0, 0 } };
        return r;
    }
    if (r.ok && model)
        *model = ref;
    return r;
}

bool ModelWorker::inlineFunction(const EngineModelRef& engineModel, FunctionInfo& fn, QString* error) const
{
    const WorkerModel* model = workerModel(engineModel);
    QString message;
    bool ok = false;
    FunctionInfo inlined;
    const auto answer = model
        ? m_channel->call(MessageType::Inline, model->id, pack(model->id, fn.name), nullptr, &message)
        : std::nullopt;
    if (answer && unpack(*answer, ok, inlined, message) && ok) {
        fn = inlined;
        return true;
    }
    if (error)
        *error = model ? message : QStringLiteral("no model");
    return false;
}

std::optional<InputSuggestion> ModelWorker::suggestInputSet(
    const EngineModelRef& engineModel, const QString& function) const
{
    const WorkerModel* model = workerModel(engineModel);
    QString error;
    std::optional<InputSuggestion> suggestion;
    if (!model)
        return suggestion;
    const auto answer = m_channel->call(MessageType::Suggest, model->id, pack(model->id, function), nullptr, &error);
    if (!answer || !unpack(*answer, suggestion))
        return std::nullopt;
    return suggestion;
}

QHash<QString, QString> ModelWorker::submoduleTypes(const EngineModelRef& engineModel, const QString& function) const
{
    const WorkerModel* model = workerModel(engineModel);
    QString error;
    QHash<QString, QString> types;
    if (!model)
        return types;
    const auto answer
        = m_channel->call(MessageType::SubmoduleTypes, model->id, pack(model->id, function), nullptr, &error);
    if (!answer || !unpack(*answer, types))
        return {};
    return types;
}

CheckReport ModelWorker::check(const EngineModelRef& engineModel, const QString& function,
    const QVector<InputSet>& sets, const CheckOptions& options, const std::atomic<bool>* cancel) const
{
    const WorkerModel* model = workerModel(engineModel);
    CheckReport r;
    r.function = function;
    if (!model) {
        r.error = { QStringLiteral("no model loaded"), {} };
        return r;
    }
    r.file = model->path;
    QString error;
    const auto answer
        = m_channel->call(MessageType::Check, model->id, pack(model->id, function, sets, options), cancel, &error);
    if (!answer || !unpack(*answer, r)) {
        r = CheckReport();
        r.file = model->path;
        r.function = function;
        r.error = answer
            ? Diagnostic { QStringLiteral("a malformed answer from the model worker"), { model->path, 0, 0 } }
            : stopDiagnostic(error, model->path);
    }
    return r;
}

GraphLayout ModelWorker::layout(const IrGraph& graph, const LayoutOptions& options, const QString& what) const
{
    QString error;
    GraphLayout layout;
    const auto answer = m_channel->call(MessageType::Layout, -1, pack(graph, options, what), options.cancel, &error);
    if (!answer || !unpack(*answer, layout)) {
        layout = GraphLayout();
        layout.error = answer ? QStringLiteral("a malformed answer from the model worker") : error;
        layout.cancelled = !answer && options.cancel && options.cancel->load();
    }
    return layout;
}

PythonRun ModelWorker::runPython(const QString& path, const PythonOptions& options) const
{
    QString folder;
    PythonChild child;
    auto handle = makePythonRunFolder(&folder, &child.startError);
    if (handle) {
        QString error;
        const auto answer
            = m_channel->call(MessageType::RunPython, -1, pack(path, options, folder), options.cancel, &error);
        if (!answer || !unpack(*answer, child)) {
            child = PythonChild();
            child.python = pythonInterpreter(options);
            child.timeoutMs = options.timeoutMs;
            if (!answer && options.cancel && options.cancel->load())
                child.stopped = QStringLiteral("cancelled");
            else
                child.startError = answer ? QStringLiteral("a malformed answer from the model worker") : error;
        }
    }
    return readPythonRun(path, child, std::move(handle), folder);
}

QVector<CheckReport> ModelWorker::checkRecordedCalls(const QString& folder, const QString& source) const
{
    QString error;
    QVector<CheckReport> reports;
    const auto answer = m_channel->call(MessageType::CheckRecordedCalls, -1, pack(folder, source), nullptr, &error);
    if (!answer || !unpack(*answer, reports)) {
        CheckReport failed;
        failed.error.message = answer ? QStringLiteral("a malformed answer from the model worker") : error;
        reports = { failed };
    }
    return reports;
}

QVector<SelfCheck> ModelWorker::selfCheck(
    const QString& file, const PythonOptions& options, const QString& folder, const QVector<int>& calls) const
{
    QString error;
    QVector<SelfCheck> checks;
    const auto answer = m_channel->call(MessageType::SelfCheck, -1,
        pack(file, pythonInterpreter(options), bridgeScript(options), options.timeoutMs, folder, calls), options.cancel,
        &error);
    if (!answer || !unpack(*answer, checks)) {
        SelfCheck failed;
        failed.status = QStringLiteral("skipped");
        failed.reason = answer ? QStringLiteral("a malformed answer from the model worker") : error;
        checks = QVector<SelfCheck>(calls.size(), failed);
    }
    return checks;
}

void WorkerClient::setStallTimeout(int ms)
{
    m_channel->stallMs = ms;
    m_channel->operatorMs = ms;
}

int WorkerClient::stallTimeout() const
{
    return m_channel->stallMs;
}

void WorkerClient::warmUp()
{
    m_channel->post([io = m_channel->io()] { io->warmUp(); });
}

void WorkerClient::restart()
{
    m_channel->postAndWait([io = m_channel->io()] { io->restart(); });
}

QString WorkerClient::activity() const
{
    return m_channel->activity();
}

QString WorkerClient::libtorchVersion() const
{
    return m_channel->versions().first;
}

QString WorkerClient::graphvizVersion() const
{
    return m_channel->versions().second;
}

std::unique_ptr<DebugBackend> ModelWorker::debug(const EngineModelRef& model, const DebugTarget& target) const
{
    return std::make_unique<RemoteDebugSession>(std::dynamic_pointer_cast<const WorkerModel>(model), target);
}

RemoteDebugSession::RemoteDebugSession(std::shared_ptr<const WorkerModel> model, DebugTarget target)
    : m_model(std::move(model))
    , m_target(std::move(target))
{
    if (const auto channel = m_model ? m_model->channel.lock() : nullptr)
        m_id = channel->newRequestId();
}

RemoteDebugSession::~RemoteDebugSession()
{
    if (const auto channel = m_model ? m_model->channel.lock() : nullptr; channel && m_started)
        channel->post([io = channel->io(), id = m_id] { io->closeDebug(id); });
}

void RemoteDebugSession::start()
{
    const auto channel = m_model ? m_model->channel.lock() : nullptr;
    std::function<void(const DebugPause&)> callback;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        callback = m_callback;
    }
    if (!channel) {
        DebugPause done;
        done.finished = true;
        done.result.error = done.trace.error = { QStringLiteral("no model worker"), {} };
        if (callback)
            callback(done);
        return;
    }
    m_started = true;
    QVector<DebugBreakpoint> breakpoints;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        breakpoints = m_breakpoints;
    }
    channel->post(
        [io = channel->io(), id = m_id, model = m_model->id, payload = pack(m_model->id, m_target, breakpoints),
            callback] { io->openDebug(id, model, payload, callback); });
}

void RemoteDebugSession::send(const QByteArray& payload)
{
    if (const auto channel = m_model ? m_model->channel.lock() : nullptr; channel && m_started)
        channel->post([io = channel->io(), id = m_id, payload] { io->debugCommand(id, payload); });
}

void RemoteDebugSession::setBreakpoints(QVector<DebugBreakpoint> breakpoints)
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_breakpoints = breakpoints;
    }
    send(pack(qint32(DebugOp::Breakpoints), breakpoints));
}

void RemoteDebugSession::resume(DebugCommand command, int line)
{
    send(pack(qint32(DebugOp::Resume), qint32(command), line));
}

void RemoteDebugSession::stop()
{
    send(pack(qint32(DebugOp::Stop)));
}

void RemoteDebugSession::setPauseCallback(std::function<void(const DebugPause&)> callback)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_callback = std::move(callback);
}

qint64 WorkerClient::workerPid() const
{
    return m_channel->pid;
}

qint64 WorkerClient::sparePid() const
{
    return m_channel->sparePid;
}

bool WorkerClient::isSpareReady() const
{
    return m_channel->spareReady;
}

void WorkerClient::setSpareDelay(int ms)
{
    m_channel->spareDelayMs = ms;
}

int WorkerClient::restarts() const
{
    return m_channel->restarts;
}

} // namespace jitscope
