#include "jobtracker.h"

namespace jitscope {

void JobControl::setProgress(int value, int maximum, const QString& text)
{
    if (!m_progress)
        return;
    m_progress(value, maximum, text);
}

JobTrackerBase::JobTrackerBase(QObject* parent)
    : QObject(parent)
{ }

JobTrackerBase::~JobTrackerBase()
{
    // Pending jobs keep running on the pool, but nobody will look at their results: tell them to stop.
    for (const auto& cancel : std::as_const(m_cancels))
        cancel->store(true);
    for (QFutureWatcherBase* watcher : std::as_const(m_pending))
        watcher->disconnect(this);
}

int JobTrackerBase::beginJob(QFutureWatcherBase* watcher, std::shared_ptr<std::atomic<bool>>* cancel)
{
    invalidate();
    const bool wasIdle = m_pending.isEmpty();
    m_pending.insert(watcher);
    m_newest = watcher;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_cancels.insert(watcher, m_cancel);
    *cancel = m_cancel;
    if (wasIdle)
        Q_EMIT busyChanged(true);
    return m_generation;
}

bool JobTrackerBase::endJob(QFutureWatcherBase* watcher, int generation)
{
    if (!m_pending.remove(watcher))
        return false;
    watcher->disconnect(this);
    watcher->deleteLater();
    const bool current = generation == m_generation;
    if (watcher == m_newest)
        m_newest = nullptr;
    m_cancels.remove(watcher);
    return current;
}

void JobTrackerBase::afterJob()
{
    Q_EMIT jobFinished();
    if (m_pending.isEmpty()) {
        Q_EMIT busyChanged(false);
        Q_EMIT idle();
    }
}

void JobTrackerBase::cancel()
{
    if (m_cancel && m_newest)
        m_cancel->store(true);
}

void JobTrackerBase::invalidate()
{
    ++m_generation;
    m_newest = nullptr;
    for (const auto& cancel : std::as_const(m_cancels))
        cancel->store(true);
}

} // namespace jitscope
