#include "debug/debugsession.h"

#include <chrono>

namespace jitscope {

DebugSession::DebugSession(ModelInfo model, Target target, ExecOptions options)
    : m_model(std::move(model))
    , m_target(std::move(target))
    , m_options(std::move(options))
{ }

DebugSession::DebugSession(ModelInfo model, QString function, InputSet inputs, bool tracing, ExecOptions options)
    : DebugSession(
        std::move(model), Target { std::move(function), std::move(inputs), tracing, std::nullopt }, std::move(options))
{ }

DebugSession::~DebugSession()
{
    stop();
    if (m_thread.joinable())
        m_thread.join();
}

void DebugSession::start()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_thread.joinable())
        return;
    m_command = Command::StepInto; // pause before the first node
    m_running = true;
    m_thread = std::thread([this] { run(); });
}

void DebugSession::setBreakpoints(QVector<Breakpoint> breakpoints)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_breakpoints = std::move(breakpoints);
}

void DebugSession::setPauseCallback(std::function<void(const Pause&)> callback)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_callback = std::move(callback);
}

void DebugSession::resume(Command command, int line)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_pause.finished || m_running)
        return;
    m_command = command;
    m_targetLine = line;
    m_from = m_pause.event;
    m_running = true;
    m_changed.notify_all();
}

void DebugSession::stop()
{
    m_cancel = true;
    std::lock_guard<std::mutex> lock(m_mutex);
    m_running = true;
    m_changed.notify_all();
}

bool DebugSession::isFinished() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_pause.finished;
}

std::optional<DebugSession::Pause> DebugSession::waitForPause(int afterSerial, int timeoutMs)
{
    std::unique_lock<std::mutex> lock(m_mutex);
    const bool ok = m_changed.wait_for(lock, std::chrono::milliseconds(timeoutMs),
        [&] { return m_pause.serial > afterSerial && (!m_running || m_pause.finished); });
    if (!ok)
        return std::nullopt;
    return m_pause;
}

bool DebugSession::shouldPause(const NodeEvent& e)
{
    // A replay breaks before the node where the recorded trace fails, whatever the command.
    m_pause.atFailure = m_failure.node >= 0 && e.depth == 0 && e.scriptNode == m_failure.node;
    if (m_pause.atFailure) {
        m_pause.atBreakpoint = false;
        return true;
    }
    // Breakpoints: once per line and loop iteration, in the function itself.
    if (e.depth == 0) {
        QString key = QString::number(e.location.line);
        for (const LoopFrame& f : e.loopPath)
            key += QStringLiteral("/%1:%2").arg(f.loopNode).arg(f.iteration);
        const bool newPlace = key != m_lastBreakKey;
        m_lastBreakKey = key;
        if (newPlace) {
            for (const Breakpoint& b : m_breakpoints) {
                if (b.line != e.location.line)
                    continue;
                if (b.iteration >= 0 && (e.loopPath.isEmpty() || e.loopPath.last().iteration + 1 != b.iteration))
                    continue;
                m_pause.atBreakpoint = true;
                return true;
            }
        }
    }
    m_pause.atBreakpoint = false;
    const NodeEvent& f = m_from;
    switch (m_command) {
    case Command::StepInto:
        return true;
    case Command::StepOver:
        return e.depth < f.depth || (e.depth == f.depth && e.blockDepth <= f.blockDepth);
    case Command::StepOut:
        return e.depth < f.depth || (e.depth == f.depth && e.blockDepth < f.blockDepth);
    case Command::NextIteration: {
        if (f.loopPath.isEmpty())
            return e.depth < f.depth || (e.depth == f.depth && e.blockDepth <= f.blockDepth);
        const LoopFrame& loop = f.loopPath.last();
        for (const LoopFrame& l : e.loopPath)
            if (l.loopNode == loop.loopNode && l.line == loop.line && l.iteration > loop.iteration
                && e.loopPath.size() == f.loopPath.size())
                return true;
        // The loop ended: stop at the first node after it.
        return e.depth < f.depth || (e.depth == f.depth && e.loopPath.size() < f.loopPath.size());
    }
    case Command::RunToLine:
        return e.depth == 0 && e.location.line == m_targetLine;
    case Command::Continue:
        return false;
    }
    return false;
}

void DebugSession::onEvent(const NodeEvent& e)
{
    if (e.after || e.kind == QLatin1String("prim::Constant"))
        return;
    std::function<void(const Pause&)> callback;
    Pause snapshot;
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        if (m_cancel || !shouldPause(e))
            return;
        m_pause.serial += 1;
        m_pause.event = e;
        // A recorded trace's nodes: the place is the one the trace recorded for the node.
        if (!m_pause.event.location.isValid() && e.depth == 0 && e.scriptNode >= 0
            && e.scriptNode < m_replayed.nodes.size())
            m_pause.event.location = m_replayed.node(e.scriptNode).location;
        m_pause.event.liveValues = nullptr;
        m_pause.event.traceSoFar = nullptr;
        m_pause.values = e.liveValues ? e.liveValues() : QVector<NamedValue> {};
        m_pause.traceSoFar = e.traceSoFar ? e.traceSoFar() : IrGraph {};
        m_running = false;
        snapshot = m_pause;
        callback = m_callback;
    }
    m_changed.notify_all();
    if (callback)
        callback(snapshot);
    std::unique_lock<std::mutex> lock(m_mutex);
    m_changed.wait(lock, [&] { return m_running || m_cancel; });
}

void DebugSession::run()
{
    ExecOptions options = m_options;
    options.cancel = &m_cancel;
    options.observer = [this](const NodeEvent& e) { onEvent(e); };
    Pause done;
    if (m_target.isReplay()) {
        auto ready = [this](const TraceResult& trace, const ReplayFailure& failure) {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_replayed = trace.graph;
            m_failure = failure;
            if (m_failure.node < 0 && m_target.stopAtOccurrence >= 0) {
                // It raises nothing here, but computes another value than Python at this node: break before it.
                int seen = 0;
                for (int id : trace.graph.top.nodes)
                    if (trace.graph.node(id).kind == m_target.stopAtKind && seen++ == m_target.stopAtOccurrence) {
                        m_failure.node = id;
                        m_failure.error = m_target.stopReason;
                        break;
                    }
            }
            m_pause.failure = m_failure.error;
            m_pause.failureNode = m_failure.node;
        };
        done.result = m_target.archive.isEmpty()
            ? replayTrace(
                m_model, m_target.function, *m_target.recordedOn, m_target.inputs, options, &done.trace, ready)
            : replaySavedTrace(m_target.archive, m_target.method, m_target.inputsFile, options, &done.trace, ready);
        done.result.inputs = m_target.inputs;
        done.failure = m_failure.error;
        done.failureNode = m_failure.node;
    } else if (m_target.tracing) {
        done.trace = traceFunction(m_model, m_target.function, m_target.inputs, options);
    } else {
        done.result = runFunction(m_model, m_target.function, m_target.inputs, options);
    }
    std::function<void(const Pause&)> callback;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        done.serial = m_pause.serial + 1;
        done.finished = true;
        done.event = m_pause.event;
        m_pause = done;
        m_running = false;
        callback = m_callback;
    }
    m_changed.notify_all();
    if (callback)
        callback(done);
}

} // namespace jitscope
