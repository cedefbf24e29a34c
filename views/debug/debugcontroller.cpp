#include "debugcontroller.h"

#include <QMetaObject>

namespace jitscope {

DebugController::DebugController(QObject* parent)
    : QObject(parent)
{ }

DebugController::~DebugController()
{
    // Stop them all first so that they end in parallel; the destructors then join.
    if (m_current.session)
        m_current.session->stop();
    for (Entry& e : m_retired)
        e.session->stop();
    m_current.session.reset();
    m_retired.clear();
}

void DebugController::start(
    const ModelEngineRef& engine, const EngineModelRef& model, const DebugTarget& target)
{
    if (m_current.session) {
        m_current.session->stop();
        if (m_state == State::Finished) {
            // Its end was reported: the thread has nothing left to do.
            m_current.session.reset();
        } else {
            m_retired.push_back(std::move(m_current));
        }
    }
    m_current = Entry();
    m_current.id = m_nextId++;
    m_current.session = engine->debug(model, target);
    m_target = target;
    m_stopRequested = false;
    m_pause = DebugPause();
    m_pauseCount = 0;
    m_current.session->setBreakpoints(m_breakpoints);
    const int id = m_current.id;
    // Called on the worker thread, which waits for the next command after it returns: hand the pause over and
    // return at once. A queued call to a deleted controller is dropped with its pending events.
    m_current.session->setPauseCallback([this, id](const DebugPause& pause) {
        QMetaObject::invokeMethod(
            this, [this, id, pause] { onPause(id, pause); }, Qt::QueuedConnection);
    });
    setState(State::Running);
    m_current.session->start();
    Q_EMIT started();
}

void DebugController::resume(DebugCommand command, int line)
{
    if (m_state != State::Paused || !m_current.session)
        return;
    setState(State::Running);
    m_current.session->resume(command, line);
}

void DebugController::stop()
{
    if (!m_current.session || !isActive())
        return;
    m_stopRequested = true;
    m_current.session->stop();
    setState(State::Stopping);
}

void DebugController::setBreakpoints(const QVector<DebugBreakpoint>& breakpoints)
{
    m_breakpoints = breakpoints;
    if (m_current.session)
        m_current.session->setBreakpoints(m_breakpoints);
}

void DebugController::onPause(int id, const DebugPause& pause)
{
    if (id != m_current.id) {
        if (!pause.finished)
            return;
        // A retired session reported its end: its thread is returning, joining it is immediate.
        for (auto it = m_retired.begin(); it != m_retired.end(); ++it) {
            if (it->id == id) {
                m_retired.erase(it);
                break;
            }
        }
        return;
    }
    m_pause = pause;
    if (pause.finished) {
        setState(State::Finished);
        Q_EMIT finished();
        return;
    }
    // A stop asked while this pause was on its way wins.
    if (m_state == State::Stopping)
        return;
    ++m_pauseCount;
    setState(State::Paused);
    Q_EMIT paused();
}

void DebugController::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

} // namespace jitscope
