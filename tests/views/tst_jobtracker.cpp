// JobTracker: the newest job's result is handled, an overtaken one's dropped, cancel reaches the job, idle follows
// the last job.

#include "jobtracker.h"

#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

using namespace jitscope;

class TestJobTracker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void newestResultHandled()
    {
        JobTracker<int> tracker;
        QSignalSpy idle(&tracker, &JobTrackerBase::idle);
        QVERIFY(tracker.isIdle());
        int handled = -1;
        tracker.start([](JobControl&) { return 7; }, [&](int& r) { handled = r; });
        QVERIFY(!tracker.isIdle());
        QVERIFY(tracker.isRunning());
        QVERIFY(idle.wait(10000));
        QCOMPARE(handled, 7);
        QVERIFY(tracker.isIdle());
        QVERIFY(!tracker.isRunning());
    }

    void staleResultDropped()
    {
        JobTracker<int> tracker;
        QSemaphore release;
        std::atomic<bool> firstSawCancel { false };
        QList<int> handled;
        tracker.start(
            [&](JobControl& control) {
                release.acquire();
                firstSawCancel = control.canceled();
                return 1;
            },
            [&](int& r) { handled << r; });
        tracker.start([](JobControl&) { return 2; }, [&](int& r) { handled << r; });
        QCOMPARE(tracker.pendingCount(), 2);
        QSignalSpy idle(&tracker, &JobTrackerBase::idle);
        release.release();
        QVERIFY(idle.wait(10000));
        QCOMPARE(handled, QList<int> { 2 });
        QVERIFY(firstSawCancel); // overtaken: asked to stop
        QCOMPARE(idle.count(), 1);
    }

    void invalidateDropsEverything()
    {
        JobTracker<int> tracker;
        QSemaphore release;
        bool handled = false;
        tracker.start(
            [&](JobControl&) {
                release.acquire();
                return 1;
            },
            [&](int&) { handled = true; });
        tracker.invalidate();
        QVERIFY(!tracker.isRunning());
        QVERIFY(!tracker.isIdle()); // still running until it notices
        QSignalSpy idle(&tracker, &JobTrackerBase::idle);
        release.release();
        QVERIFY(idle.wait(10000));
        QVERIFY(!handled);
    }

    void cancelHonoured()
    {
        JobTracker<QString> tracker;
        QString result;
        QSemaphore started;
        tracker.start(
            [&](JobControl& control) {
                started.release();
                while (!control.canceled())
                    QThread::msleep(1);
                return QStringLiteral("canceled");
            },
            [&](QString& r) { result = r; });
        started.acquire();
        QSignalSpy idle(&tracker, &JobTrackerBase::idle);
        tracker.cancel();
        QVERIFY(idle.wait(10000));
        // Canceled, not overtaken: the job's result still comes back, for it to say so.
        QCOMPARE(result, QStringLiteral("canceled"));
    }

    void progressReported()
    {
        JobTracker<int> tracker;
        QStringList texts;
        tracker.start(
            [](JobControl& control) {
                control.setProgress(1, 3, QStringLiteral("one"));
                control.setProgress(2, 3, QStringLiteral("two"));
                return 0;
            },
            [](int&) {},
            [&](int value, int maximum, const QString& text) {
                Q_UNUSED(maximum);
                texts << QStringLiteral("%1:%2").arg(value).arg(text);
            });
        QSignalSpy idle(&tracker, &JobTrackerBase::idle);
        QVERIFY(idle.wait(10000));
        // Progress is coalesced: some report of the job's arrives, with the newest text at the time it is handled.
        QVERIFY(!texts.isEmpty());
        QVERIFY2(texts.last() == QStringLiteral("2:two") || texts.last() == QStringLiteral("1:two")
                || texts.last() == QStringLiteral("1:one"),
            qPrintable(texts.join(QLatin1Char(' '))));
    }

    void busyChanges()
    {
        JobTracker<int> tracker;
        QSignalSpy busy(&tracker, &JobTrackerBase::busyChanged);
        tracker.start([](JobControl&) { return 1; }, [](int&) {});
        tracker.start([](JobControl&) { return 2; }, [](int&) {});
        QSignalSpy idle(&tracker, &JobTrackerBase::idle);
        QVERIFY(idle.count() == 1 || idle.wait(10000));
        QTRY_VERIFY(tracker.isIdle());
        QCOMPARE(busy.first().first().toBool(), true);
        QCOMPARE(busy.last().first().toBool(), false);
    }
};

QTEST_GUILESS_MAIN(TestJobTracker)
#include "tst_jobtracker.moc"
