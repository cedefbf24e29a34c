#pragma once

// Private to views/worker: the model worker's process and the channel to it, shared by workerclient.cpp (the
// engine the window calls) and workerio.cpp (the I/O thread that drives the process).

#include "report/protocol.h"
#include "workerclient.h"

#include <QElapsedTimer>
#include <QMetaObject>
#include <QProcess>
#include <QSet>
#include <QThread>
#include <QTimer>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <limits>
#include <mutex>

namespace jitscope {

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

/// "SIGSEGV", "SIGKILL", ... for a worker's exit signal.
QString signalName(int signal);

/// A worker's stop message as a Diagnostic at the place in @p path it says it was ("…/model.py:7: crashed…"): the
/// line the window marks. The place leaves the text, which Diagnostic::toString() then starts with once.
Diagnostic stopDiagnostic(const QString& message, const QString& path);

inline constexpr int kStartupMs = 30 * 1000; ///< a worker that has not said hello by then counts as stuck
inline constexpr int kCancelGraceMs = 3000; ///< a canceled check that runs on past this ends with its worker

/// A spare worker handed from one client to another (another window's): the process, moved to the taker's I/O
/// thread, and what it said so far.
struct DonatedSpare
{
    QProcess* process = nullptr;
    protocol::FrameReader reader;
    std::optional<protocol::Message> hello;
};

/// The worker process and everything about it; lives on the channel's I/O thread, and only that thread touches it.
class WorkerIo : public QObject
{
public:
    explicit WorkerIo(WorkerChannel* channel)
        : m_channel(channel)
    { }

    void submit(quint64 id, protocol::MessageType type, int model, const QByteArray& payload,
        const std::shared_ptr<PendingCall>& call);
    void cancel(quint64 id) { write({ protocol::MessageType::Cancel, id, {} }); }
    void release(int model);
    /// A debug session in the worker: @p onPause gets its pauses (on this thread) until closeDebug(); a worker
    /// that stops ends it with a finished pause saying why.
    void openDebug(
        quint64 id, int model, const QByteArray& payload, std::function<void(const DebugPause&)> onPause);
    void debugCommand(quint64 id, const QByteArray& payload)
    {
        write({ protocol::MessageType::DebugCommand, id, payload });
    }
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
    /// Hands this client's spare over to a client whose I/O thread is @p to (a second window): the process moves
    /// there, whole (started, libtorch loaded, its hello kept). None when there is no spare that said hello. A new
    /// spare starts here after the usual delay.
    std::optional<DonatedSpare> giveSpare(QThread* to);
    /// Takes @p spare (from giveSpare()) as this client's spare, before its first worker starts: start() then takes
    /// it at once. False (and the process ended) when this client has a worker or a spare already.
    bool adoptSpare(DonatedSpare spare);

private:
    void start();
    /// A new worker process with the environment as it is now; null and m_startError set when it cannot start.
    QProcess* launch();
    /// A spare worker, started once the worker said hello and has nothing to do: libtorch loads in it while the
    /// window works, and the next start() (after a crash) takes it instead of waiting for a new one.
    void startSpare();
    /// Watches the spare's output (its hello kept), passes its stderr on, and forgets it when it dies.
    void watchSpare(QProcess* spare);
    void dropSpare();
    void write(const protocol::Message& m);
    void onOutput();
    void handle(const protocol::Message& m);
    void onErrorOutput();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void watch();
    void failAll(const QString& message);
    bool ensureLoaded(int model);

    struct Pending
    {
        std::shared_ptr<PendingCall> call;
        protocol::MessageType type = protocol::MessageType::Hello;
    };

    WorkerChannel* m_channel;
    QProcess* m_process = nullptr;
    QProcess* m_spare = nullptr;
    /// The spare's output until it is taken: its hello is kept, its heartbeats dropped.
    protocol::FrameReader m_spareReader;
    std::optional<protocol::Message> m_spareHello;
    QTimer* m_watch = nullptr;
    protocol::FrameReader m_reader;
    QHash<quint64, Pending> m_pending;
    QHash<quint64, std::function<void(const DebugPause&)>> m_debug; ///< open debug sessions
    QHash<int, QPair<QString, LoadOptions>> m_known; ///< every model the window holds: what to load again
    QSet<int> m_loaded; ///< the models the running worker was asked to load
    QByteArray m_stderrTail;
    protocol::HeartbeatInfo m_beat;
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
    std::optional<QByteArray> call(protocol::MessageType type, int model, const QByteArray& payload,
        const std::atomic<bool>* cancel, QString* error)
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
            } else if ((type == protocol::MessageType::Check || type == protocol::MessageType::Layout)
                && Clock::now() - *canceledAt > std::chrono::milliseconds(kCancelGraceMs)) {
                // An operator that runs on (a kernel, or one dot run, never checks the flag): the worker goes, a
                // new one comes.
                canceledAt = Clock::time_point::max() - std::chrono::hours(1);
                const QString what
                    = type == protocol::MessageType::Check ? QStringLiteral("the check") : QStringLiteral("the layout");
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
    QThread* thread() { return &m_thread; }

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
    std::atomic<bool> spareReady { false }; ///< the spare said hello (it can be given to another window)
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

} // namespace jitscope
