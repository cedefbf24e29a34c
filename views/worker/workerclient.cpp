#include "workerclient.h"

#include "protocol/protocol.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMetaObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QThread>
#include <QTimer>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <limits>
#include <mutex>
#include <unistd.h>

namespace jitscope {

using namespace protocol;

namespace {

/// One request waiting for its answer, shared by the thread that asked and the I/O thread.
struct PendingCall
{
    std::mutex mutex;
    std::condition_variable changed;
    bool done = false;
    bool ok = false;
    QByteArray payload;
    QString error;

    void finish(bool success, QByteArray answer, QString message)
    {
        {
            std::lock_guard<std::mutex> lock(mutex);
            if (done)
                return;
            done = true;
            ok = success;
            payload = std::move(answer);
            error = std::move(message);
        }
        changed.notify_all();
    }
};

QString signalName(int signal)
{
    switch (signal) {
    case SIGSEGV:
        return QStringLiteral("SIGSEGV");
    case SIGABRT:
        return QStringLiteral("SIGABRT");
    case SIGFPE:
        return QStringLiteral("SIGFPE");
    case SIGKILL:
        return QStringLiteral("SIGKILL");
    case SIGBUS:
        return QStringLiteral("SIGBUS");
    case SIGTERM:
        return QStringLiteral("SIGTERM");
    default:
        return QStringLiteral("signal %1").arg(signal);
    }
}

/// A worker's stop message as a Diagnostic at the place in @p path it says it was ("…/model.py:7: crashed…"): the
/// line the window marks. The place leaves the text, which Diagnostic::toString() then starts with once.
Diagnostic stopDiagnostic(const QString& message, const QString& path)
{
    const QRegularExpression place(QRegularExpression::escape(path) + QStringLiteral(":(\\d+): "));
    const QRegularExpressionMatch m = place.match(message);
    if (!m.hasMatch())
        return { message, { path, 0, 0 } };
    QString text = message;
    text.remove(m.capturedStart(), m.capturedLength());
    return { text, { path, m.captured(1).toInt(), 0 } };
}

/// The worker's model behind @p model (null for a model of another engine).
const WorkerModel* workerModel(const EngineModelRef& model)
{
    return dynamic_cast<const WorkerModel*>(model.get());
}

constexpr int kStartupMs = 30 * 1000; ///< a worker that has not said hello by then counts as stuck
constexpr int kCancelGraceMs = 3000; ///< a canceled check that runs on past this ends with its worker

} // namespace

/// The worker process and everything about it; lives on the channel's I/O thread, and only that thread touches it.
class WorkerIo : public QObject
{
public:
    explicit WorkerIo(WorkerChannel* channel)
        : m_channel(channel)
    { }

    void submit(
        quint64 id, MessageType type, int model, const QByteArray& payload, const std::shared_ptr<PendingCall>& call);
    void cancel(quint64 id) { write({ MessageType::Cancel, id, {} }); }
    void release(int model);
    /// A debug session in the worker: @p onPause gets its pauses (on this thread) until closeDebug(); a worker
    /// that stops ends it with a finished pause saying why.
    void openDebug(
        quint64 id, int model, const QByteArray& payload, std::function<void(const DebugSession::Pause&)> onPause);
    void debugCommand(quint64 id, const QByteArray& payload) { write({ MessageType::DebugCommand, id, payload }); }
    void closeDebug(quint64 id);
    /// Ends the worker as hung or as a runaway after a cancel: its calls fail with @p reason.
    void stop(const QString& reason);
    void restart();
    void warmUp()
    {
        if (!m_process)
            start();
    }
    void shutdown();

private:
    void start();
    /// A new worker process with the environment as it is now; null and m_startError set when it cannot start.
    QProcess* launch();
    /// A spare worker, started once the worker said hello and has nothing to do: libtorch loads in it while the
    /// window works, and the next start() (after a crash) takes it instead of waiting for a new one.
    void startSpare();
    void dropSpare();
    void write(const Message& m);
    void onOutput();
    void handle(const Message& m);
    void onErrorOutput();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void watch();
    void failAll(const QString& message);
    bool ensureLoaded(int model);

    struct Pending
    {
        std::shared_ptr<PendingCall> call;
        MessageType type = MessageType::Hello;
    };

    WorkerChannel* m_channel;
    QProcess* m_process = nullptr;
    QProcess* m_spare = nullptr;
    FrameReader m_spareReader; ///< the spare's output until it is taken: its hello is kept, its heartbeats dropped
    std::optional<Message> m_spareHello;
    QTimer* m_watch = nullptr;
    FrameReader m_reader;
    QHash<quint64, Pending> m_pending;
    QHash<quint64, std::function<void(const DebugSession::Pause&)>> m_debug; ///< open debug sessions
    QHash<int, QPair<QString, LoadOptions>> m_known; ///< every model the window holds: what to load again
    QSet<int> m_loaded; ///< the models the running worker was asked to load
    QByteArray m_stderrTail;
    HeartbeatInfo m_beat;
    QElapsedTimer m_sinceMessage;
    bool m_greeted = false;
    QString m_stopReason; ///< set when this side ended the worker
    bool m_quiet = false; ///< a restart asked for: no message
    QString m_startError;
};

class WorkerChannel
{
public:
    WorkerChannel()
    {
        m_io = new WorkerIo(this);
        m_io->moveToThread(&m_thread);
        m_thread.setObjectName(QStringLiteral("jitscope-worker-io"));
        m_thread.start();
    }

    ~WorkerChannel()
    {
        shutdown();
        delete m_io;
    }

    void shutdown()
    {
        if (m_shutdown.exchange(true))
            return;
        QMetaObject::invokeMethod(
            m_io, [this] { m_io->shutdown(); }, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
        setNotify({});
        setLifecycle({});
    }

    template <typename F> void post(F f)
    {
        if (!m_shutdown)
            QMetaObject::invokeMethod(m_io, std::move(f), Qt::QueuedConnection);
    }

    template <typename F> void postAndWait(F f)
    {
        if (!m_shutdown)
            QMetaObject::invokeMethod(m_io, std::move(f), Qt::BlockingQueuedConnection);
    }

    /// Sends a request and waits for its answer; nothing (and @p error) when it failed.
    std::optional<QByteArray> call(
        MessageType type, int model, const QByteArray& payload, const std::atomic<bool>* cancel, QString* error)
    {
        if (m_shutdown) {
            *error = QStringLiteral("the window is closing");
            return std::nullopt;
        }
        auto pending = std::make_shared<PendingCall>();
        const quint64 id = ++m_nextId;
        post([this, id, type, model, payload, pending] { m_io->submit(id, type, model, payload, pending); });
        using Clock = std::chrono::steady_clock;
        std::optional<Clock::time_point> canceledAt;
        std::unique_lock<std::mutex> lock(pending->mutex);
        while (!pending->done) {
            pending->changed.wait_for(lock, std::chrono::milliseconds(50));
            if (pending->done || !cancel || !cancel->load())
                continue;
            if (!canceledAt) {
                canceledAt = Clock::now();
                post([this, id] { m_io->cancel(id); });
            } else if ((type == MessageType::Check || type == MessageType::Layout)
                && Clock::now() - *canceledAt > std::chrono::milliseconds(kCancelGraceMs)) {
                // An operator that runs on (a kernel, or one dot run, never checks the flag): the worker goes, a
                // new one comes.
                canceledAt = Clock::time_point::max() - std::chrono::hours(1);
                const QString what
                    = type == MessageType::Check ? QStringLiteral("the check") : QStringLiteral("the layout");
                post([this, what] {
                    m_io->stop(QStringLiteral("%1 was canceled; the model worker did not stop "
                                              "within %2 s and was restarted")
                                   .arg(what)
                                   .arg(kCancelGraceMs / 1000));
                });
            }
        }
        if (!pending->ok) {
            *error = pending->error;
            return std::nullopt;
        }
        return pending->payload;
    }

    int newModelId() { return ++m_nextModel; }
    quint64 newRequestId() { return ++m_nextId; }

    void setNotify(std::function<void(const QString&)> notify)
    {
        std::lock_guard<std::mutex> lock(m_notifyMutex);
        m_notify = std::move(notify);
    }

    void notify(const QString& message)
    {
        std::lock_guard<std::mutex> lock(m_notifyMutex);
        if (m_notify)
            m_notify(message);
    }

    /// On the I/O thread: a worker started (false) or said hello (true).
    void setLifecycle(std::function<void(bool)> lifecycle)
    {
        std::lock_guard<std::mutex> lock(m_notifyMutex);
        m_lifecycle = std::move(lifecycle);
    }

    void lifecycle(bool ready)
    {
        std::function<void(bool)> f;
        {
            std::lock_guard<std::mutex> lock(m_notifyMutex);
            f = m_lifecycle;
        }
        if (f)
            f(ready);
    }

    WorkerIo* io() const { return m_io; }

    void setActivity(const QString& text)
    {
        std::lock_guard<std::mutex> lock(m_notifyMutex);
        m_activity = text;
    }

    QString activity() const
    {
        std::lock_guard<std::mutex> lock(m_notifyMutex);
        return m_activity;
    }

    void setVersions(const QString& torch, const QString& graphviz)
    {
        std::lock_guard<std::mutex> lock(m_notifyMutex);
        m_versions = { torch, graphviz };
    }

    QPair<QString, QString> versions() const
    {
        std::lock_guard<std::mutex> lock(m_notifyMutex);
        return m_versions;
    }

    std::atomic<qint64> pid { 0 };
    std::atomic<qint64> sparePid { 0 };
    /// How long after a worker's hello its spare starts (once it is idle); negative: no spare.
    std::atomic<int> spareDelayMs { 1500 };
    std::atomic<int> restarts { 0 };
    std::atomic<int> stallMs { 5000 }; ///< silence: the heartbeat comes every 200 ms
    /// One operator: a big convolution or matmul on a large input takes seconds, so a minute; Cancel ends one
    /// sooner (the worker is restarted when the op does not return within 3 s of it).
    std::atomic<int> operatorMs { 60000 };

private:
    QThread m_thread;
    WorkerIo* m_io = nullptr;
    std::atomic<bool> m_shutdown { false };
    std::atomic<quint64> m_nextId { 0 };
    std::atomic<int> m_nextModel { 0 };
    mutable std::mutex m_notifyMutex; ///< m_notify, m_activity
    std::function<void(const QString&)> m_notify;
    std::function<void(bool)> m_lifecycle;
    QString m_activity;
    QPair<QString, QString> m_versions { QStringLiteral("unknown"), QStringLiteral("unknown") }; ///< libtorch, Graphviz
};

void WorkerIo::start()
{
    m_startError.clear();
    m_reader = FrameReader();
    m_beat = HeartbeatInfo();
    m_stderrTail.clear();
    m_stopReason.clear();
    m_greeted = false;
    m_loaded.clear();
    if (!m_watch) {
        m_watch = new QTimer(this);
        m_watch->setInterval(250);
        connect(m_watch, &QTimer::timeout, this, [this] { watch(); });
        m_watch->start();
    }
    if (QProcess* spare = std::exchange(m_spare, nullptr)) {
        m_channel->sparePid = 0;
        spare->disconnect(this);
        if (spare->state() == QProcess::Running) {
            m_process = spare;
            // The rest of what it said goes on from there (a frame may be half read).
            m_reader = std::exchange(m_spareReader, FrameReader());
        } else {
            spare->deleteLater();
        }
    }
    if (!m_process)
        m_process = launch();
    if (!m_process)
        return;
    connect(m_process, &QProcess::readyReadStandardOutput, this, [this] { onOutput(); });
    connect(m_process, &QProcess::readyReadStandardError, this, [this] { onErrorOutput(); });
    connect(m_process, &QProcess::finished, this,
        [this](int code, QProcess::ExitStatus status) { onFinished(code, status); });
    m_channel->pid = m_process->processId();
    m_sinceMessage.start();
    m_channel->lifecycle(false);
    // A spare taken over may have said hello already (the heartbeats since are of no interest).
    if (const std::optional<Message> hello = std::exchange(m_spareHello, std::nullopt))
        handle(*hello);
    onOutput();
}

QProcess* WorkerIo::launch()
{
    const QString program = WorkerClient::workerProgram();
    auto* process = new QProcess(this);
    process->setProcessEnvironment(QProcessEnvironment::systemEnvironment());
    process->start(program, {});
    if (!process->waitForStarted(kStartupMs)) {
        m_startError = QStringLiteral("cannot start the model worker %1: %2").arg(program, process->errorString());
        delete process;
        return nullptr;
    }
    return process;
}

void WorkerIo::startSpare()
{
    if (m_spare || !m_process || !m_greeted || m_channel->spareDelayMs.load() < 0)
        return;
    if (!m_pending.isEmpty() || !m_debug.isEmpty()) {
        // Not while the worker works: both would share the cores.
        QTimer::singleShot(500, this, [this] { startSpare(); });
        return;
    }
    m_spare = launch();
    if (!m_spare)
        return;
    m_channel->sparePid = m_spare->processId();
    m_spareReader = FrameReader();
    m_spareHello.reset();
    QProcess* spare = m_spare;
    connect(spare, &QProcess::readyReadStandardOutput, this, [this, spare] {
        m_spareReader.append(spare->readAllStandardOutput());
        while (const auto m = m_spareReader.next())
            if (m->type == MessageType::Hello)
                m_spareHello = *m;
    });
    connect(spare, &QProcess::readyReadStandardError, this, [spare] {
        const QByteArray bytes = spare->readAllStandardError();
        [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, bytes.constData(), size_t(bytes.size()));
    });
    connect(spare, &QProcess::finished, this, [this, spare] {
        // A spare that died (killed from outside) is not replaced until the next worker's hello.
        if (m_spare == spare) {
            m_spare = nullptr;
            m_channel->sparePid = 0;
        }
        spare->deleteLater();
    });
}

void WorkerIo::dropSpare()
{
    if (QProcess* spare = std::exchange(m_spare, nullptr)) {
        m_channel->sparePid = 0;
        spare->disconnect(this);
        spare->closeWriteChannel();
        spare->kill();
        spare->waitForFinished(2000);
        delete spare;
    }
}

void WorkerIo::write(const Message& m)
{
    if (m_process)
        m_process->write(encode(m));
}

void WorkerIo::submit(
    quint64 id, MessageType type, int model, const QByteArray& payload, const std::shared_ptr<PendingCall>& call)
{
    if (!m_process)
        start();
    if (!m_process) {
        call->finish(false, {}, m_startError);
        return;
    }
    if (type == MessageType::Load) {
        int loaded = -1;
        QString path;
        LoadOptions options;
        if (unpack(payload, loaded, path, options))
            m_known.insert(model, { path, options });
        m_loaded.insert(model);
    } else if (!ensureLoaded(model)) {
        call->finish(false, {}, QStringLiteral("the model worker holds no such model"));
        return;
    }
    if (m_pending.isEmpty())
        m_sinceMessage.restart();
    m_pending.insert(id, { call, type });
    write({ type, id, payload });
}

bool WorkerIo::ensureLoaded(int model)
{
    if (model < 0 || m_loaded.contains(model))
        return true;
    // A worker started after the one that loaded it: the model is loaded again first (its answer, to id 0, is not
    // waited for; requests for the model wait in the worker until it is loaded).
    const auto known = m_known.constFind(model);
    if (known == m_known.constEnd())
        return false;
    write({ MessageType::Load, 0, pack(model, known->first, known->second) });
    m_loaded.insert(model);
    return true;
}

void WorkerIo::openDebug(
    quint64 id, int model, const QByteArray& payload, std::function<void(const DebugSession::Pause&)> onPause)
{
    if (!m_process)
        start();
    if (!m_process || !ensureLoaded(model)) {
        DebugSession::Pause done;
        done.finished = true;
        done.result.error = done.trace.error
            = { m_process ? QStringLiteral("the model worker holds no such model") : m_startError, {} };
        onPause(done);
        return;
    }
    if (m_pending.isEmpty() && m_debug.isEmpty())
        m_sinceMessage.restart();
    m_debug.insert(id, std::move(onPause));
    write({ MessageType::DebugStart, id, payload });
}

void WorkerIo::closeDebug(quint64 id)
{
    if (m_debug.remove(id))
        write({ MessageType::DebugCommand, id, pack(qint32(DebugOp::End)) });
}

void WorkerIo::release(int model)
{
    m_known.remove(model);
    if (m_loaded.remove(model))
        write({ MessageType::Release, 0, pack(model) });
}

void WorkerIo::onOutput()
{
    m_reader.append(m_process->readAllStandardOutput());
    while (const auto m = m_reader.next())
        handle(*m);
    if (!m_reader.error().isEmpty())
        stop(QStringLiteral("the model worker sent %1").arg(m_reader.error()));
}

void WorkerIo::handle(const Message& m)
{
    m_sinceMessage.restart();
    switch (m.type) {
    case MessageType::Hello: {
        m_greeted = true;
        qint64 pid = 0;
        QString torch, graphviz;
        if (unpack(m.payload, pid, torch, graphviz))
            m_channel->setVersions(torch, graphviz);
        m_channel->lifecycle(true);
        if (const int delay = m_channel->spareDelayMs.load(); delay >= 0 && !m_spare)
            QTimer::singleShot(delay, this, [this] { startSpare(); });
        break;
    }
    case MessageType::Heartbeat:
        unpack(m.payload, m_beat);
        m_channel->setActivity(m_beat.activity);
        break;
    case MessageType::DebugPause: {
        DebugSession::Pause pause;
        const auto it = m_debug.constFind(m.id);
        if (it != m_debug.constEnd() && unpack(m.payload, pause))
            it.value()(pause);
        break;
    }
    case MessageType::Answer:
    case MessageType::Failure:
    case MessageType::UnknownModel: {
        const Pending p = m_pending.take(m.id);
        if (!p.call)
            break; // a load sent again after a restart, or an answer to a call that failed already
        if (m.type == MessageType::Answer) {
            p.call->finish(true, m.payload, {});
        } else if (m.type == MessageType::Failure) {
            QString message;
            unpack(m.payload, message);
            p.call->finish(false, {}, message);
        } else {
            p.call->finish(false, {}, QStringLiteral("the model worker holds no such model"));
        }
        break;
    }
    default:
        break;
    }
}

void WorkerIo::onErrorOutput()
{
    const QByteArray bytes = m_process->readAllStandardError();
    // What the model and libtorch print reaches the window's stderr, as it did when they ran in it.
    qsizetype written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(STDERR_FILENO, bytes.constData() + written, size_t(bytes.size() - written));
        if (n <= 0)
            break;
        written += n;
    }
    m_stderrTail.append(bytes);
    if (m_stderrTail.size() > 16384)
        m_stderrTail = m_stderrTail.right(8192);
}

void WorkerIo::watch()
{
    if (!m_process || (m_pending.isEmpty() && m_debug.isEmpty()) || !m_stopReason.isEmpty())
        return;
    const int limit = m_channel->stallMs.load();
    if (!m_greeted) {
        if (m_sinceMessage.elapsed() > kStartupMs)
            stop(QStringLiteral("the model worker did not start within %1 s").arg(kStartupMs / 1000));
        return;
    }
    const int operatorLimit = m_channel->operatorMs.load();
    const auto seconds = [](int ms) { return QString::number(ms / 1000.0, 'g', 3); };
    const QString where = m_beat.activity.isEmpty() ? QString() : QStringLiteral(": ") + m_beat.activity;
    if (m_sinceMessage.elapsed() > limit) {
        stop(QStringLiteral("the model worker stopped answering (not a word for %1 s)%2").arg(seconds(limit), where));
    } else if (m_beat.operatorMs > operatorLimit) {
        stop(QStringLiteral("the model worker stopped answering (one operator ran for more than %1 s)%2")
                 .arg(seconds(operatorLimit), where));
    }
}

void WorkerIo::stop(const QString& reason)
{
    if (!m_process || !m_stopReason.isEmpty())
        return;
    m_stopReason = reason;
    m_process->kill();
}

void WorkerIo::failAll(const QString& message)
{
    const auto pending = std::exchange(m_pending, {});
    for (const Pending& p : pending)
        p.call->finish(false, {}, message);
    // A debug session ends as a run that failed, saying why.
    const auto sessions = std::exchange(m_debug, {});
    for (const auto& onPause : sessions) {
        DebugSession::Pause done;
        done.serial = std::numeric_limits<int>::max();
        done.finished = true;
        done.result.error = done.trace.error = { message, {} };
        onPause(done);
    }
}

void WorkerIo::onFinished(int exitCode, QProcess::ExitStatus status)
{
    QString message = m_stopReason;
    if (message.isEmpty()) {
        // The crash handler's line: "jitscope-worker: error: FILE:LINE: crashed (SIGSEGV) while running OP (...)".
        static const QByteArray prefix = "jitscope-worker: error: ";
        const QList<QByteArray> lines = m_stderrTail.split('\n');
        for (auto it = lines.crbegin(); it != lines.crend() && message.isEmpty(); ++it) {
            if (it->startsWith(prefix))
                message = QStringLiteral("the model worker stopped: ") + QString::fromUtf8(it->mid(prefix.size()));
        }
    }
    const QString where = m_beat.activity.isEmpty() ? QString() : QStringLiteral(": ") + m_beat.activity;
    if (message.isEmpty() && status == QProcess::CrashExit) {
        message = exitCode == SIGKILL
            ? QStringLiteral("the model worker was killed (SIGKILL: out of memory, or ended by another program)%1")
                  .arg(where)
            : QStringLiteral("the model worker stopped (%1)%2").arg(signalName(exitCode), where);
    }
    if (message.isEmpty())
        message = QStringLiteral("the model worker exited with status %1%2").arg(exitCode).arg(where);
    const bool wasWorking = !m_pending.isEmpty() || !m_debug.isEmpty();
    const bool greeted = m_greeted;
    // Counted (and the activity forgotten) before the calls waiting learn of it: they may ask.
    if (greeted && !m_quiet)
        ++m_channel->restarts;
    m_channel->setActivity({});
    failAll(message);
    m_process->disconnect(this);
    m_process->deleteLater();
    m_process = nullptr;
    m_channel->pid = 0;
    m_channel->setActivity({});
    m_loaded.clear();
    if (m_quiet)
        return;
    if (wasWorking || status == QProcess::CrashExit)
        m_channel->notify(message);
    // A worker that died before its hello would die again: the next request tries.
    if (greeted)
        start();
}

void WorkerIo::restart()
{
    // A new worker with the environment as it is now: not the spare, started with an older one.
    dropSpare();
    if (m_process) {
        m_quiet = true;
        m_process->kill();
        m_process->waitForFinished(5000);
        if (m_process) // finished was not delivered (it is, synchronously, in waitForFinished)
            onFinished(0, QProcess::CrashExit);
        m_quiet = false;
        failAll(QStringLiteral("the model worker was restarted"));
    }
    start();
}

void WorkerIo::shutdown()
{
    dropSpare();
    m_quiet = true;
    failAll(QStringLiteral("the window is closing"));
    if (m_process) {
        m_process->disconnect(this);
        m_process->closeWriteChannel();
        m_process->kill();
        m_process->waitForFinished(2000);
        delete m_process;
        m_process = nullptr;
    }
    delete m_watch;
    m_watch = nullptr;
}

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
}

WorkerClient::~WorkerClient()
{
    m_channel->shutdown();
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

std::unique_ptr<DebugBackend> ModelWorker::debug(const EngineModelRef& model, const DebugSession::Target& target) const
{
    return std::make_unique<RemoteDebugSession>(std::dynamic_pointer_cast<const WorkerModel>(model), target);
}

RemoteDebugSession::RemoteDebugSession(std::shared_ptr<const WorkerModel> model, DebugSession::Target target)
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
    std::function<void(const DebugSession::Pause&)> callback;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        callback = m_callback;
    }
    if (!channel) {
        DebugSession::Pause done;
        done.finished = true;
        done.result.error = done.trace.error = { QStringLiteral("no model worker"), {} };
        if (callback)
            callback(done);
        return;
    }
    m_started = true;
    QVector<DebugSession::Breakpoint> breakpoints;
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

void RemoteDebugSession::setBreakpoints(QVector<DebugSession::Breakpoint> breakpoints)
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_breakpoints = breakpoints;
    }
    send(pack(qint32(DebugOp::Breakpoints), breakpoints));
}

void RemoteDebugSession::resume(DebugSession::Command command, int line)
{
    send(pack(qint32(DebugOp::Resume), qint32(command), line));
}

void RemoteDebugSession::stop()
{
    send(pack(qint32(DebugOp::Stop)));
}

void RemoteDebugSession::setPauseCallback(std::function<void(const DebugSession::Pause&)> callback)
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

void WorkerClient::setSpareDelay(int ms)
{
    m_channel->spareDelayMs = ms;
}

int WorkerClient::restarts() const
{
    return m_channel->restarts;
}

} // namespace jitscope
