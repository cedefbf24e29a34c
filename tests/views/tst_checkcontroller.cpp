// CheckController without a window: a check runs off the GUI thread once the function is shown, its result is
// cached per function, cancel is honoured, a check overtaken by another or by reset() is dropped, and the trace
// verdicts say how each trace compares with trace 1.

#include "checkcontroller.h"
#include "documentcontroller.h"
#include "inputsetsmodel.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

Q_DECLARE_METATYPE(jitscope::CheckJobResult)
Q_DECLARE_METATYPE(jitscope::DocumentJob)

using namespace jitscope;

namespace {

constexpr int kJobTimeoutMs = 120000;

/// Loads @p path with @p function shown (as the window marks it once drawn) and its own input sets.
bool openShown(DocumentController& document, InputSetsModel& sets, const QString& path, const QString& function)
{
    QSignalSpy loaded(&document, &DocumentController::loaded);
    document.open(path, function);
    if (!loaded.wait(kJobTimeoutMs) || !document.hasModel())
        return false;
    document.setShownFunction(document.currentFunction());
    sets.setSets(document.model().inputSets);
    return true;
}

CheckJobResult result(const QSignalSpy& spy, int i)
{
    return spy.at(i).at(0).value<CheckJobResult>();
}

} // namespace

class TestCheckController : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<CheckJobResult>();
        qRegisterMetaType<DocumentJob>();
    }

    void checksThenCaches()
    {
        DocumentController document;
        InputSetsModel sets;
        QVERIFY(openShown(document, sets, QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py"), {}));
        CheckController check(&document, &sets);
        QSignalSpy started(&check, &CheckController::started);
        QSignalSpy finished(&check, &CheckController::finished);
        check.run(false);
        QCOMPARE(started.count(), 1);
        QVERIFY(check.isChecking());
        QVERIFY(finished.wait(kJobTimeoutMs));
        QVERIFY(!check.isChecking());
        QVERIFY(check.hasReport());
        const CheckReport& report = check.report();
        QVERIFY(report.ok);
        QCOMPARE(report.traces.size(), 3);
        QCOMPARE(check.traceLayouts().size(), 3);
        QVERIFY(!report.consistent); // the loop unrolls x.size(0) times
        QCOMPARE(report.status(0), TraceStatus::Reference);
        QCOMPARE(report.status(1), TraceStatus::Diverged);
        QVERIFY(!traceStatusText(TraceStatus::Diverged).isEmpty());

        // Same function, same sets: the cached result, at once and without a job.
        check.run(false);
        QCOMPARE(finished.count(), 2);
        QCOMPARE(started.count(), 1);
        QVERIFY(!check.isChecking());
        // Forced: traced again.
        check.run(true);
        QCOMPARE(started.count(), 2);
        QVERIFY(finished.wait(kJobTimeoutMs));
    }

    /// A function returning a dict (torchvision's segmentation models) cannot be traced strict, as PyTorch says;
    /// with strict=False (Check > Trace with strict=False) it is, and the cached strict result is not reused.
    void strictFalseTracesDictOutputs()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("segment.py"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("import torch\nfrom typing import Dict\n\n"
                   "def segment(x: torch.Tensor) -> Dict[str, torch.Tensor]:\n"
                   "    return {\"out\": x.relu(), \"aux\": x.sigmoid()}\n\n"
                   "inputs = (torch.rand(2, 3),)\n");
        file.close();
        DocumentController document;
        InputSetsModel sets;
        QVERIFY(openShown(document, sets, path, {}));
        QCOMPARE(sets.texts().size(), 1);
        CheckController check(&document, &sets);
        QSignalSpy finished(&check, &CheckController::finished);
        QVERIFY(check.strict());
        check.run(false);
        QVERIFY(finished.wait(kJobTimeoutMs));
        QVERIFY(!check.report().ok);
        QVERIFY2(check.report().error.message.contains(QLatin1String("strict=False")),
            qPrintable(check.report().error.message));
        check.setStrict(false);
        check.run(false);
        QVERIFY(finished.wait(kJobTimeoutMs));
        QVERIFY2(check.report().ok, qPrintable(check.report().error.message));
        QVERIFY(check.report().traces.first().ok);
    }

    void nothingUntilShownAndInvalidSetsSaySo()
    {
        DocumentController document;
        InputSetsModel sets;
        QVERIFY(openShown(document, sets, QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py"), {}));
        CheckController check(&document, &sets);
        QSignalSpy started(&check, &CheckController::started);
        QSignalSpy cleared(&check, &CheckController::cleared);
        document.setShownFunction(QString());
        check.run(true);
        QCOMPARE(started.count(), 0);
        QCOMPARE(cleared.count(), 0);
        document.setShownFunction(document.currentFunction());
        sets.setTexts({ QStringLiteral("f32[3") });
        check.run(true);
        QCOMPARE(started.count(), 0);
        QCOMPARE(cleared.count(), 1);
        QVERIFY(cleared.first().at(0).toString().contains(QLatin1String("invalid")));
        QCOMPARE(cleared.first().at(2).toBool(), true);
        sets.setTexts({});
        check.run(true);
        QCOMPARE(cleared.count(), 2);
        QCOMPARE(cleared.last().at(0).toString(), QStringLiteral("No input sets"));
    }

    void cancelHonoured()
    {
        DocumentController document;
        InputSetsModel sets;
        QVERIFY(openShown(document, sets, QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/bad/infinite_loop.py"),
            QStringLiteral("spin")));
        CheckController check(&document, &sets);
        QSignalSpy finished(&check, &CheckController::finished);
        QSignalSpy canceling(&check, &CheckController::canceling);
        check.run(true);
        QVERIFY(!finished.wait(300)); // spinning
        check.cancel();
        QCOMPARE(canceling.count(), 1);
        QVERIFY(finished.wait(10000)); // long before the check's own timeout
        QVERIFY(result(finished, 0).canceled);
        QVERIFY(!check.hasReport());
    }

    void overtakenCheckDropped()
    {
        DocumentController document;
        InputSetsModel sets;
        QVERIFY(openShown(document, sets, QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/bad/infinite_loop.py"),
            QStringLiteral("spin")));
        CheckController check(&document, &sets);
        QSignalSpy finished(&check, &CheckController::finished);
        QSignalSpy cleared(&check, &CheckController::cleared);
        check.run(true);
        // Another file, say: the spinning check is asked to stop and its result is never handed over.
        check.reset(QStringLiteral("Loading"));
        QCOMPARE(cleared.count(), 1);
        QVERIFY(!check.hasReport());
        QTRY_VERIFY_WITH_TIMEOUT(!check.isChecking(), 10000);
        QTest::qWait(50);
        QCOMPARE(finished.count(), 0);
    }
};

QTEST_GUILESS_MAIN(TestCheckController)
#include "tst_checkcontroller.moc"
