// jitscope-worker: the window's model work (loading, inlining, input suggestions, checks) in a process of its own,
// so that a crash inside libtorch ends this process and not the window. It reads requests on stdin and writes
// answers and a heartbeat on stdout, in protocol/protocol.h's frames; a fatal signal leaves the crash handler's one
// line on stderr, which the window shows.

#include "worker.h"

#include "bridge/pythoncheck.h"
#include "bridge/runpython.h"
#include "bridge/selfcheckcalls.h"
#include "check/check.h"
#include "debug/debugsession.h"
#include "ir/activity.h"
#include "layout/layout.h"
#include "load/model.h"
#include "report/protocol.h"

#include <QFile>
#include <QHash>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace jitscope {

namespace {

using namespace protocol;

/// A model the window asked for: loaded on a thread of its own; requests for it wait until it is.
struct ModelSlot
{
    std::mutex mutex;
    std::condition_variable loaded;
    bool ready = false;
    LoadResult result;

    /// The model once loaded (a copy: its graphs are shared), or nothing when loading failed (with @p error).
    std::optional<ModelInfo> wait(QString* error)
    {
        std::unique_lock<std::mutex> lock(mutex);
        loaded.wait(lock, [this] { return ready; });
        if (!result.ok) {
            *error = QStringLiteral("the model did not load: ") + result.error.toString();
            return std::nullopt;
        }
        return result.model;
    }
};

/// A debug session the window started: the session once its model is loaded, and what the window asked before.
struct DebugEntry
{
    std::mutex mutex;
    std::unique_ptr<DebugSession> session;
    QVector<DebugBreakpoint> breakpoints;
    bool stopped = false;
};

class Worker
{
public:
    explicit Worker(int out)
        : m_out(out)
    { }

    int run(int in);

private:
    void send(MessageType type, quint64 id, const QByteArray& payload);
    void heartbeat();
    void dispatch(const Message& m);
    void startDebug(const Message& m);
    void debugCommand(const Message& m);
    /// Runs @p work on a thread of its own, counted as busy, with the request's cancel flag.
    void spawn(quint64 id, MessageType type, std::function<void(const std::atomic<bool>& cancel)> work);
    std::shared_ptr<ModelSlot> slot(int model);

    int m_out;
    std::mutex m_writeMutex;
    std::mutex m_mutex; ///< m_models, m_cancels
    QHash<int, std::shared_ptr<ModelSlot>> m_models;
    QHash<quint64, std::shared_ptr<std::atomic<bool>>> m_cancels;
    QHash<quint64, std::shared_ptr<DebugEntry>> m_debug; ///< by the window's session id
    /// Module cluster layouts across the window's requests (folding one module lays out that module alone).
    std::shared_ptr<LayoutCache> m_layouts = std::make_shared<LayoutCache>();
    std::atomic<int> m_busy { 0 }; ///< requests running and debug sessions not finished
};

void Worker::send(MessageType type, quint64 id, const QByteArray& payload)
{
    const QByteArray frame = encode({ type, id, payload });
    std::lock_guard<std::mutex> lock(m_writeMutex);
    qsizetype written = 0;
    while (written < frame.size()) {
        const ssize_t n = ::write(m_out, frame.constData() + written, size_t(frame.size() - written));
        if (n <= 0) {
            if (errno == EINTR)
                continue;
            // The window is gone: nobody to work for.
            ::_exit(0);
        }
        written += n;
    }
}

/// Every 200 ms, what the process is doing; the window notices a hang from an operator call count that stands still.
void Worker::heartbeat()
{
    using Clock = std::chrono::steady_clock;
    unsigned long long lastCalls = ~0ull;
    Clock::time_point since = Clock::now();
    char line[2048];
    while (true) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        HeartbeatInfo beat;
        const unsigned long long calls = activity::operatorCalls();
        const bool running = activity::operatorRunning();
        if (calls != lastCalls) {
            lastCalls = calls;
            since = Clock::now();
        }
        beat.operatorCalls = calls;
        beat.operatorMs
            = running ? std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count() : -1;
        beat.busy = m_busy.load();
        if (beat.busy > 0) {
            activity::formatActivity(line, sizeof line);
            beat.activity = QString::fromUtf8(line);
        }
        send(MessageType::Heartbeat, 0, pack(beat));
    }
}

std::shared_ptr<ModelSlot> Worker::slot(int model)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_models.value(model);
}

void Worker::spawn(quint64 id, MessageType type, std::function<void(const std::atomic<bool>& cancel)> work)
{
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_cancels.insert(id, cancel);
    }
    ++m_busy;
    std::thread([this, id, type, cancel, work = std::move(work)] {
        const auto started = std::chrono::steady_clock::now();
        work(*cancel);
        // JITSCOPE_TIMELINE (bench_open): what each request cost here, beside the window's own timeline.
        static const bool timeline = qEnvironmentVariableIsSet("JITSCOPE_TIMELINE");
        if (timeline)
            std::fprintf(stderr, "jitscope-worker: timeline: request %d took %lld ms\n", int(type),
                (long long)std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - started)
                    .count());
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_cancels.remove(id);
        }
        --m_busy;
    }).detach();
}

void Worker::dispatch(const Message& m)
{
    const auto fail = [this, &m](const QString& message) { send(MessageType::Failure, m.id, pack(message)); };
    int model = -1;
    QString function;
    switch (m.type) {
    case MessageType::Load: {
        QString path;
        LoadOptions options;
        if (!unpack(m.payload, model, path, options))
            return fail(QStringLiteral("a malformed load request"));
        auto s = std::make_shared<ModelSlot>();
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_models.insert(model, s);
        }
        spawn(m.id, m.type, [this, id = m.id, s, path, options](const std::atomic<bool>&) {
            activity::setFile(QFile::encodeName(path).constData());
            LoadResult r = loadModel(path, options);
            {
                std::lock_guard<std::mutex> lock(s->mutex);
                s->result = r;
                s->ready = true;
            }
            s->loaded.notify_all();
            send(MessageType::Answer, id, pack(r));
        });
        return;
    }
    case MessageType::Layout: {
        IrGraph graph;
        LayoutOptions options;
        QString what;
        if (!unpack(m.payload, graph, options, what))
            return fail(QStringLiteral("a malformed layout request"));
        spawn(m.id, m.type,
            [this, id = m.id, graph = std::move(graph), options, what](const std::atomic<bool>& cancel) mutable {
                activity::setPhase(0, "laying out %s (%d nodes)", what.toUtf8().constData(), int(graph.nodes.size()));
                options.cancel = &cancel;
                options.cache = m_layouts;
                send(MessageType::Answer, id, pack(layoutGraph(graph, options)));
            });
        return;
    }
    case MessageType::SelfCheck: {
        QString file, python, bridge, folder;
        int timeoutMs = 0;
        QVector<int> calls;
        if (!unpack(m.payload, file, python, bridge, timeoutMs, folder, calls))
            return fail(QStringLiteral("a malformed self-check request"));
        spawn(m.id, m.type,
            [this, id = m.id, file, python, bridge, timeoutMs, folder, calls](const std::atomic<bool>& cancel) {
                activity::setFile(QFile::encodeName(file).constData());
                activity::setPhase(0, "self-checking %d recorded call(s)", int(calls.size()));
                PythonOptions options;
                options.python = python;
                options.bridge = bridge;
                options.timeoutMs = timeoutMs;
                options.cancel = &cancel;
                send(MessageType::Answer, id, pack(selfCheckRecordedCalls(file, options, folder, calls)));
            });
        return;
    }
    case MessageType::RunPython: {
        QString file, folder;
        PythonOptions options;
        if (!unpack(m.payload, file, options, folder))
            return fail(QStringLiteral("a malformed request to run a Python file"));
        spawn(m.id, m.type, [this, id = m.id, file, options, folder](const std::atomic<bool>& cancel) mutable {
            activity::setFile(QFile::encodeName(file).constData());
            activity::setPhase(0, "running the file under PyTorch");
            options.cancel = &cancel;
            send(MessageType::Answer, id, pack(runPythonChild(file, options, folder)));
        });
        return;
    }
    case MessageType::CheckRecordedCalls: {
        QString folder, source;
        if (!unpack(m.payload, folder, source))
            return fail(QStringLiteral("a malformed request to check recorded calls"));
        spawn(m.id, m.type, [this, id = m.id, folder, source](const std::atomic<bool>&) {
            activity::setPhase(0, "explaining the recorded calls' traces");
            send(MessageType::Answer, id, pack(checkRecordedCalls(folder, source)));
        });
        return;
    }
    case MessageType::DebugStart:
        return startDebug(m);
    case MessageType::DebugCommand:
        return debugCommand(m);
    case MessageType::Cancel: {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (const auto cancel = m_cancels.value(m.id))
            cancel->store(true);
        return;
    }
    case MessageType::Release: {
        if (unpack(m.payload, model)) {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_models.remove(model);
        }
        return;
    }
    default:
        break;
    }
    QVector<InputSet> sets;
    CheckOptions options;
    const bool isCheck = m.type == MessageType::Check;
    if (!(isCheck ? unpack(m.payload, model, function, sets, options) : unpack(m.payload, model, function)))
        return fail(QStringLiteral("a malformed request (type %1)").arg(int(m.type)));
    const std::shared_ptr<ModelSlot> s = slot(model);
    if (!s) {
        send(MessageType::UnknownModel, m.id, pack(model));
        return;
    }
    spawn(m.id, m.type, [this, m, s, function, sets, options](const std::atomic<bool>& cancel) {
        QString error;
        const std::optional<ModelInfo> info = s->wait(&error);
        if (!info) {
            send(MessageType::Failure, m.id, pack(error));
            return;
        }
        const QByteArray name = function.toUtf8();
        switch (m.type) {
        case MessageType::Inline: {
            activity::setPhase(0, "inlining `%s`", name.constData());
            const FunctionInfo* fn = info->function(function);
            FunctionInfo inlined = fn ? *fn : FunctionInfo();
            const bool ok = fn && inlineFunction(info->handle, inlined, &error);
            if (!fn)
                error = QStringLiteral("no function '%1'").arg(function);
            if (ok) {
                // Later checks see the function as the window shows it.
                std::lock_guard<std::mutex> lock(s->mutex);
                for (FunctionInfo& f : s->result.model.functions)
                    if (f.name == function)
                        f = inlined;
            }
            send(MessageType::Answer, m.id, pack(ok, inlined, error));
            return;
        }
        case MessageType::Suggest: {
            const FunctionInfo* fn = info->function(function);
            std::optional<InputSuggestion> suggestion;
            if (fn)
                suggestion = suggestInputSet(*info, *fn);
            send(MessageType::Answer, m.id, pack(suggestion));
            return;
        }
        case MessageType::SubmoduleTypes:
            send(MessageType::Answer, m.id, pack(submoduleTypes(*info, function)));
            return;
        case MessageType::Check: {
            activity::setFile(QFile::encodeName(info->path).constData());
            activity::setPhase(0, "checking `%s` on %d input sets", name.constData(), int(sets.size()));
            CheckOptions check = options;
            check.exec.cancel = &cancel;
            send(MessageType::Answer, m.id, pack(checkModel(*info, function, sets, check)));
            return;
        }
        default:
            send(MessageType::Failure, m.id, pack(QStringLiteral("an unknown request (type %1)").arg(int(m.type))));
            return;
        }
    });
}

void Worker::startDebug(const Message& m)
{
    int model = -1;
    DebugTarget target;
    QVector<DebugBreakpoint> breakpoints;
    auto entry = std::make_shared<DebugEntry>();
    const bool ok = unpack(m.payload, model, target, breakpoints);
    entry->breakpoints = breakpoints;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_debug.insert(m.id, entry);
    }
    const std::shared_ptr<ModelSlot> s = ok ? slot(model) : nullptr;
    ++m_busy;
    std::thread([this, id = m.id, s, entry, target] {
        QString error = s ? QString() : QStringLiteral("the model worker holds no such model");
        std::optional<ModelInfo> info = s ? s->wait(&error) : std::nullopt;
        if (!info && !target.archive.isEmpty()) {
            // A trace PyTorch recorded and the bridge saved: the session needs no model of the window's.
            info = ModelInfo();
            info->path = target.archive;
        }
        std::lock_guard<std::mutex> lock(entry->mutex);
        if (!info || entry->stopped) {
            DebugPause done;
            done.finished = true;
            done.result.error = done.trace.error = { entry->stopped ? QStringLiteral("stopped") : error, {} };
            send(MessageType::DebugPause, id, pack(done));
            --m_busy;
            return;
        }
        activity::setFile(QFile::encodeName(info->path).constData());
        const QByteArray on = target.inputs.toString().left(120).toUtf8();
        if (!target.archive.isEmpty())
            activity::setPhase(0, "debugging trace 1 of `%s` (recorded by PyTorch) on %s",
                target.function.toUtf8().constData(), on.constData());
        else if (target.isReplay())
            activity::setPhase(0, "debugging trace 1 of `%s` (recorded on %s) on %s",
                target.function.toUtf8().constData(), target.recordedOn->toString().left(120).toUtf8().constData(),
                on.constData());
        else
            activity::setPhase(0, "debugging `%s` on %s", target.function.toUtf8().constData(), on.constData());
        entry->session = std::make_unique<DebugSession>(*info, target);
        entry->session->setBreakpoints(entry->breakpoints);
        entry->session->setPauseCallback([this, id](const DebugPause& pause) {
            if (pause.finished)
                --m_busy;
            send(MessageType::DebugPause, id, pack(pause));
        });
        entry->session->start();
    }).detach();
}

void Worker::debugCommand(const Message& m)
{
    std::shared_ptr<DebugEntry> entry;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        entry = m.type == MessageType::DebugCommand ? m_debug.value(m.id) : nullptr;
    }
    if (!entry)
        return;
    QDataStream in(m.payload);
    in.setVersion(QDataStream::Qt_6_0);
    qint32 op = 0;
    in >> op;
    std::lock_guard<std::mutex> lock(entry->mutex);
    switch (DebugOp(op)) {
    case DebugOp::Resume: {
        qint32 command = 0;
        int line = 0;
        in >> command >> line;
        if (entry->session)
            entry->session->resume(DebugCommand(command), line);
        break;
    }
    case DebugOp::Breakpoints:
        in >> entry->breakpoints;
        if (entry->session)
            entry->session->setBreakpoints(entry->breakpoints);
        break;
    case DebugOp::Stop:
        entry->stopped = true;
        if (entry->session)
            entry->session->stop();
        break;
    case DebugOp::End: {
        entry->stopped = true;
        {
            std::lock_guard<std::mutex> tableLock(m_mutex);
            m_debug.remove(m.id);
        }
        // Its thread ends at the next node; joining it must not hold up the requests behind this one.
        if (std::shared_ptr<DebugSession> session = std::move(entry->session)) {
            session->stop();
            std::thread([session = std::move(session)]() mutable { session.reset(); }).detach();
        }
        break;
    }
    }
}

int Worker::run(int in)
{
    send(MessageType::Hello, 0, pack(qint64(::getpid()), libtorchVersion(), graphvizVersion()));
    std::thread([this] { heartbeat(); }).detach();
    FrameReader reader;
    QByteArray buffer(64 * 1024, Qt::Uninitialized);
    while (true) {
        const ssize_t n = ::read(in, buffer.data(), size_t(buffer.size()));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0; // the window closed the pipe
        reader.append(QByteArray(buffer.constData(), n));
        while (const auto m = reader.next())
            dispatch(*m);
        if (!reader.error().isEmpty()) {
            std::fprintf(stderr, "jitscope-worker: error: %s\n", qPrintable(reader.error()));
            return 3;
        }
    }
}

} // namespace

int runWorker()
{
    if (const char* fault = std::getenv("JITSCOPE_WORKER_FAULT"); fault && *fault) {
        if (!activity::armFault(fault)) {
            std::fprintf(stderr,
                "jitscope-worker: error: JITSCOPE_WORKER_FAULT=%s: expected KIND@OP or KIND@OP#N, KIND one of "
                "abort, segv, hang, oom\n",
                fault);
            return 3;
        }
    }
    // For tests of the window's start-up: a worker as slow to say hello as a loaded machine's.
    if (const int delay = qEnvironmentVariableIntValue("JITSCOPE_WORKER_DELAY_MS"); delay > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min(delay, 60000)));
    // The frames go to a copy of stdout; stdout itself becomes stderr, so that what a model prints cannot corrupt
    // them.
    const int out = ::dup(STDOUT_FILENO);
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    Worker worker(out);
    return worker.run(STDIN_FILENO);
}

} // namespace jitscope
