#pragma once

#include "modelengine.h"

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
struct WorkerModel : EngineModel
{
    std::weak_ptr<WorkerChannel> channel;
    int id = -1;
    QString path;
    LoadOptions options;
    ~WorkerModel() override;
};
/// What ModelWorker::load() sets: an EngineModelRef holding a WorkerModel.
using WorkerModelRef = EngineModelRef;

/// The blocking calls into the model worker, for jobs on the thread pool (any thread but the window's: the answer
/// comes on a thread of the client's own). Shared by the jobs, so that a job that outlives the window finds its
/// calls failing ("the window is closing") rather than a dangling client.
class ModelWorker : public ModelEngine
{
public:
    explicit ModelWorker(std::shared_ptr<WorkerChannel> channel)
        : m_channel(std::move(channel))
    { }

    /// Loads @p path in the worker; @p model is set to the worker's model when it loads.
    LoadResult load(const QString& path, const LoadOptions& options, EngineModelRef* model,
        const std::atomic<bool>* cancel = nullptr) const override;
    /// inlineFunction() in the worker, which keeps the inlined graph for later checks.
    bool inlineFunction(const EngineModelRef& model, FunctionInfo& fn, QString* error = nullptr) const override;
    std::optional<InputSuggestion> suggestInputSet(const EngineModelRef& model, const QString& function) const override;
    QHash<QString, QString> submoduleTypes(const EngineModelRef& model, const QString& function) const override;
    /// checkModel() in the worker; a canceled check whose worker does not stop within a few seconds is ended by
    /// restarting the worker. A worker that stops reports the stop in CheckReport::error.
    CheckReport check(const EngineModelRef& model, const QString& function, const QVector<InputSet>& sets,
        const CheckOptions& options, const std::atomic<bool>* cancel = nullptr) const override;
    /// layoutGraph() in the worker: Graphviz crashing or running past the limit costs the worker, not the window.
    /// @p options' cancel flag is read between clusters, and a canceled layout whose worker does not stop within a
    /// few seconds (one dot run that never ends) ends with its worker. A worker that stops reports it in
    /// GraphLayout::error.
    GraphLayout layout(const IrGraph& graph, const LayoutOptions& options, const QString& what) const override;
    /// runPythonChild() in the worker, in a folder this process makes and the run owns; the record is read here.
    PythonRun runPython(const QString& path, const PythonOptions& options) const override;
    QVector<CheckReport> checkRecordedCalls(const QString& folder, const QString& source) const override;
    QVector<SelfCheck> selfCheck(const QString& file, const PythonOptions& options, const QString& folder,
        const QVector<int>& calls) const override;
    /// A RemoteDebugSession on the worker's model.
    std::unique_ptr<DebugBackend> debug(const EngineModelRef& model, const DebugTarget& target) const override;

private:
    std::shared_ptr<WorkerChannel> m_channel;
};
using ModelWorkerRef = std::shared_ptr<const ModelWorker>;

/// A DebugSession run in the model worker on its copy of @p model: commands and breakpoints go there, its pauses
/// (frames, live values, the trace so far) come back. A worker that stops ends the session with a finished pause
/// whose error says how.
class RemoteDebugSession : public DebugBackend
{
public:
    RemoteDebugSession(std::shared_ptr<const WorkerModel> model, DebugTarget target);
    ~RemoteDebugSession() override;
    void start() override;
    void setBreakpoints(QVector<DebugBreakpoint> breakpoints) override;
    void resume(DebugCommand command, int line) override;
    void stop() override;
    void setPauseCallback(std::function<void(const DebugPause&)> callback) override;

private:
    void send(const QByteArray& payload);

    std::shared_ptr<const WorkerModel> m_model;
    DebugTarget m_target;
    quint64 m_id = 0;
    bool m_started = false;
    std::mutex m_mutex;
    QVector<DebugBreakpoint> m_breakpoints;
    std::function<void(const DebugPause&)> m_callback;
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
    /// Takes the spare worker of another client of this process (another window's), when one has started and said
    /// hello: this client's first worker is then that process, libtorch loaded already, and the other client starts
    /// a new spare. Call before warmUp() or any request; false when no other client had a spare ready.
    bool takeSpareOfAnotherClient();
    /// The worker's process id, 0 while none runs.
    qint64 workerPid() const;
    /// The spare worker's process id, 0 while there is none. Once the worker said hello and is idle for a moment,
    /// a spare starts (its libtorch loads while the window works): a restart after a crash takes it at once.
    qint64 sparePid() const;
    /// The spare said hello (libtorch loaded): another window can take it (takeSpareOfAnotherClient()).
    bool isSpareReady() const;
    /// How long after a worker's hello its spare starts (default 1.5 s, once idle); negative: no spare.
    void setSpareDelay(int ms);
    /// Workers started after one stopped.
    int restarts() const;
    /// What the worker said last it was doing (its heartbeat's activity line), empty while it is idle.
    QString activity() const;
    /// The versions of the libraries the worker runs on, from its hello ("unknown" until a worker said it).
    QString libtorchVersion() const;
    QString graphvizVersion() const;

Q_SIGNALS:
    /// A worker process started (on the client's I/O thread: connect with Qt::DirectConnection to time it).
    void workerStarted();
    /// The worker said hello: libtorch is loaded and it takes requests (on the client's I/O thread, as above).
    void workerReady();
    /// The worker stopped while working: @p message says how and what it was doing ("the model worker stopped:
    /// model.py:7: crashed (SIGSEGV) while running aten::mul (checking `f`: tracing input set 2)").
    void workerStopped(const QString& message);

private:
    std::shared_ptr<WorkerChannel> m_channel;
    ModelWorkerRef m_worker;
};

} // namespace jitscope
