#pragma once

#include <QFutureWatcher>
#include <QHash>
#include <QObject>
#include <QPromise>
#include <QSet>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <functional>
#include <memory>

namespace jitscope {

/// What a job running on the thread pool sees of its tracker: whether to stop early, and a way to say how far it
/// got.
class JobControl
{
public:
    using Progress = std::function<void(int value, int maximum, const QString& text)>;
    JobControl(const std::shared_ptr<std::atomic<bool>>& cancel, Progress progress)
        : m_cancel(cancel)
        , m_progress(std::move(progress))
    { }
    /// True once the job was canceled or overtaken by a newer one: its result will be dropped or shown as canceled.
    bool canceled() const { return m_cancel->load(); }
    /// The flag canceled() reads, for core functions that take one (ExecOptions::cancel).
    const std::atomic<bool>* cancelFlag() const { return m_cancel.get(); }
    /// Reported on the GUI thread to the job's progress handler while the job is the newest.
    void setProgress(int value, int maximum, const QString& text);

private:
    std::shared_ptr<std::atomic<bool>> m_cancel;
    Progress m_progress;
};

/// The untyped half of JobTracker: the generation counter, the pending jobs and the signals.
class JobTrackerBase : public QObject
{
    Q_OBJECT
public:
    explicit JobTrackerBase(QObject* parent = nullptr);
    ~JobTrackerBase() override;

    /// True when no job is pending, stale ones included (they are still running until they notice).
    bool isIdle() const { return m_pending.isEmpty(); }
    int pendingCount() const { return int(m_pending.size()); }
    /// Bumped by every start() and invalidate(); a job finishing with an older one is dropped.
    int generation() const { return m_generation; }
    /// True while the newest job runs.
    bool isRunning() const { return m_newest != nullptr; }
    /// Asks the newest job to stop early; its result is still delivered (it can tell it was canceled).
    void cancel();
    bool isCancelRequested() const { return m_cancel && m_cancel->load(); }
    /// Drops the result of every pending job and asks them to stop.
    void invalidate();

Q_SIGNALS:
    /// A job ended (its result handled or dropped); idle() follows when it was the last.
    void jobFinished();
    /// The last pending job ended.
    void idle();
    /// The first job started after idle, or the last one ended.
    void busyChanged(bool busy);

protected:
    /// Registers @p watcher as the newest job; returns its generation and cancel flag.
    int beginJob(QFutureWatcherBase* watcher, std::shared_ptr<std::atomic<bool>>* cancel);
    /// Forgets @p watcher; true when it was pending and is of the current generation.
    bool endJob(QFutureWatcherBase* watcher, int generation);
    void afterJob();

private:
    int m_generation = 0;
    QSet<QFutureWatcherBase*> m_pending;
    QFutureWatcherBase* m_newest = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancel; ///< the newest job's
    QHash<QFutureWatcherBase*, std::shared_ptr<std::atomic<bool>>> m_cancels; ///< every pending job's
};

/// Runs jobs that return a @p Result on the thread pool (QtConcurrent) and hands the newest one's result to its
/// handler on the GUI thread; results of jobs overtaken by a later start() or invalidate() are dropped
/// (hotspot's job tracker). One tracker serves one kind of job: load and layout, the check, the live trace.
template <typename Result> class JobTracker : public JobTrackerBase
{
public:
    using Work = std::function<Result(JobControl& control)>;
    using Handler = std::function<void(Result& result)>;
    using ProgressHandler = std::function<void(int value, int maximum, const QString& text)>;

    explicit JobTracker(QObject* parent = nullptr)
        : JobTrackerBase(parent)
    { }

    /// Runs @p work as the newest job, asking the older ones to stop. @p onResult runs on the GUI thread unless
    /// the job was overtaken meanwhile; @p onProgress too, for the progress the job reports. Returns the job's
    /// generation.
    int start(Work work, Handler onResult, ProgressHandler onProgress = {})
    {
        auto* watcher = new QFutureWatcher<Result>(this);
        std::shared_ptr<std::atomic<bool>> cancel;
        const int generation = beginJob(watcher, &cancel);
        connect(
            watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, onResult = std::move(onResult)] {
                const bool current = endJob(watcher, generation);
                const QFuture<Result> future = watcher->future();
                if (current && future.resultCount() > 0) {
                    Result result = future.result();
                    onResult(result);
                }
                afterJob();
            });
        if (onProgress) {
            connect(watcher, &QFutureWatcherBase::progressValueChanged, this,
                [this, watcher, generation, onProgress = std::move(onProgress)](int value) {
                    if (generation == this->generation())
                        onProgress(value, watcher->progressMaximum(), watcher->progressText());
                });
        }
        watcher->setFuture(QtConcurrent::run([work = std::move(work), cancel](QPromise<Result>& promise) {
            JobControl control(cancel, [&promise](int value, int maximum, const QString& text) {
                promise.setProgressRange(0, maximum);
                promise.setProgressValueAndText(value, text);
            });
            promise.addResult(work(control));
        }));
        return generation;
    }
};

} // namespace jitscope
