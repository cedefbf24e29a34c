#pragma once

#include "check/check.h"
#include "debug/debugsession.h"
#include "load/model.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace jitscope {

class WorkerChannel;

/// The window's hold on a model loaded in its worker (what ModelInfo::handle is in the process that loaded it):
/// requests name it, the worker forgets it when the last copy goes. A restarted worker loads it again on its first
/// request.
struct WorkerModel
{
    std::weak_ptr<WorkerChannel> channel;
    int id = -1;
    QString path;
    LoadOptions options;
    ~WorkerModel();
};
using WorkerModelRef = std::shared_ptr<const WorkerModel>;

/// The blocking calls into the model worker, for jobs on the thread pool (any thread but the window's: the answer
/// comes on a thread of the client's own). Shared by the jobs, so that a job that outlives the window finds its
/// calls failing ("the window is closing") rather than a dangling client.
class ModelWorker
{
public:
    explicit ModelWorker(std::shared_ptr<WorkerChannel> channel)
        : m_channel(std::move(channel))
    { }

    /// Loads @p path in the worker; @p model is set to the worker's model when it loads.
    LoadResult load(const QString& path, const LoadOptions& options, WorkerModelRef* model,
        const std::atomic<bool>* cancel = nullptr) const;
    /// inlineFunction() in the worker, which keeps the inlined graph for later checks.
    bool inlineFunction(const WorkerModelRef& model, FunctionInfo& fn, QString* error = nullptr) const;
    std::optional<InputSuggestion> suggestInputSet(const WorkerModelRef& model, const QString& function) const;
    QHash<QString, QString> submoduleTypes(const WorkerModelRef& model, const QString& function) const;
    /// checkModel() in the worker; a canceled check whose worker does not stop within a few seconds is ended by
    /// restarting the worker. A worker that stops reports the stop in CheckReport::error.
    CheckReport check(const WorkerModelRef& model, const QString& function, const QVector<InputSet>& sets,
        const CheckOptions& options, const std::atomic<bool>* cancel = nullptr) const;

private:
    std::shared_ptr<WorkerChannel> m_channel;
};
using ModelWorkerRef = std::shared_ptr<const ModelWorker>;

/// What DebugController drives: a DebugSession in this process, or one in the model worker.
class DebugBackend
{
public:
    virtual ~DebugBackend() = default;
    virtual void start() = 0;
    virtual void setBreakpoints(QVector<DebugSession::Breakpoint> breakpoints) = 0;
    virtual void resume(DebugSession::Command command, int line = 0) = 0;
    virtual void stop() = 0;
    /// Called on another thread at each pause and at the end.
    virtual void setPauseCallback(std::function<void(const DebugSession::Pause&)> callback) = 0;
};

class LocalDebugSession : public DebugBackend
{
public:
    LocalDebugSession(ModelInfo model, QString function, InputSet inputs, bool tracing)
        : m_session(std::move(model), std::move(function), std::move(inputs), tracing)
    { }
    void start() override { m_session.start(); }
    void setBreakpoints(QVector<DebugSession::Breakpoint> breakpoints) override
    {
        m_session.setBreakpoints(std::move(breakpoints));
    }
    void resume(DebugSession::Command command, int line) override { m_session.resume(command, line); }
    void stop() override { m_session.stop(); }
    void setPauseCallback(std::function<void(const DebugSession::Pause&)> callback) override
    {
        m_session.setPauseCallback(std::move(callback));
    }

private:
    DebugSession m_session;
};

/// A DebugSession run in the model worker on its copy of @p model: commands and breakpoints go there, its pauses
/// (frames, live values, the trace so far) come back. A worker that stops ends the session with a finished pause
/// whose error says how.
class RemoteDebugSession : public DebugBackend
{
public:
    RemoteDebugSession(WorkerModelRef model, QString function, InputSet inputs, bool tracing);
    ~RemoteDebugSession() override;
    void start() override;
    void setBreakpoints(QVector<DebugSession::Breakpoint> breakpoints) override;
    void resume(DebugSession::Command command, int line) override;
    void stop() override;
    void setPauseCallback(std::function<void(const DebugSession::Pause&)> callback) override;

private:
    void send(const QByteArray& payload);

    WorkerModelRef m_model;
    QString m_function;
    InputSet m_inputs;
    bool m_tracing = false;
    quint64 m_id = 0;
    bool m_started = false;
    std::mutex m_mutex;
    QVector<DebugSession::Breakpoint> m_breakpoints;
    std::function<void(const DebugSession::Pause&)> m_callback;
};

/// The model worker (jitscope-worker) the window's model work runs in: loading, inlining, input suggestions,
/// submodule types and checks, so that a crash in libtorch ends the worker, not the window. The process is driven
/// from a thread of the client's own; calls go through worker(). When the worker dies (a signal, abort, the OOM
/// killer) or stops answering (no heartbeat, or one operator running past stallTimeout()), the calls waiting fail
/// with what it was doing, workerStopped() says the same, and a new worker starts.
class WorkerClient : public QObject
{
    Q_OBJECT
public:
    explicit WorkerClient(QObject* parent = nullptr);
    ~WorkerClient() override;

    /// jitscope-worker beside this program (the build tree), or in ../libexec/jitscope (installed).
    static QString workerProgram();

    ModelWorkerRef worker() const { return m_worker; }

    /// How long the worker may stay silent (default 5 s; it beats every 200 ms) and one operator may run (default
    /// 60 s: big ops take seconds) before it counts as hung; this sets both.
    void setStallTimeout(int ms);
    int stallTimeout() const;
    /// Starts the worker now, off the caller's thread, so that its start overlaps the window's (else the first
    /// request starts it).
    void warmUp();
    /// Starts a new worker (with the environment as it is now); the old one's calls fail. For tests.
    void restart();
    /// The worker's process id, 0 while none runs.
    qint64 workerPid() const;
    /// Workers started after one stopped.
    int restarts() const;
    /// What the worker said last it was doing (its heartbeat's activity line), empty while it is idle.
    QString activity() const;

Q_SIGNALS:
    /// The worker stopped while working: @p message says how and what it was doing ("the model worker stopped:
    /// model.py:7: crashed (SIGSEGV) while running aten::mul (checking `f`: tracing input set 2)").
    void workerStopped(const QString& message);

private:
    std::shared_ptr<WorkerChannel> m_channel;
    ModelWorkerRef m_worker;
};

} // namespace jitscope
