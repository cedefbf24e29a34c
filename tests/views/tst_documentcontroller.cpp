// DocumentController without a window: a load overtaken by another is dropped, a reload keeps the function, a
// change on disk reloads, folds and layouts follow the current function.

#include "documentcontroller.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

Q_DECLARE_METATYPE(jitscope::DocumentJob)

using namespace jitscope;

namespace {

constexpr int kJobTimeoutMs = 120000;
const QString kExample = QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
const QString kArange = QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/corpus/arange_shape.py");

DocumentJob loadedJob(const QSignalSpy& spy, int i = 0)
{
    return spy.at(i).at(0).value<DocumentJob>();
}

} // namespace

class TestDocumentController : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<DocumentJob>(); }

    void loadsModelAndFirstLayout()
    {
        DocumentController document;
        QSignalSpy loaded(&document, &DocumentController::loaded);
        QSignalSpy opening(&document, &DocumentController::aboutToOpen);
        document.open(kExample);
        QCOMPARE(opening.count(), 1);
        QVERIFY(!document.isIdle());
        QVERIFY(loaded.wait(kJobTimeoutMs));
        QVERIFY(document.isIdle());
        QVERIFY(document.hasModel());
        QVERIFY(document.lastError().isEmpty());
        QCOMPARE(document.currentFunction(), QStringLiteral("loop_in_traced_fn"));
        const DocumentJob job = loadedJob(loaded);
        QVERIFY(job.load.ok);
        QVERIFY(job.hasLayout);
        QVERIFY(!job.layout.nodes.isEmpty());
        // The first layout is cached: showing the function again needs no job.
        QVERIFY(!document.cachedLayout(QStringLiteral("loop_in_traced_fn")).nodes.isEmpty());
        // The source map knows the .py file: its def line is line 4.
        QCOMPARE(document.sourceLineFor(document.model().function(QStringLiteral("loop_in_traced_fn"))->location), 4);
    }

    void staleLoadDropped()
    {
        DocumentController document;
        QSignalSpy loaded(&document, &DocumentController::loaded);
        document.open(kExample);
        document.open(kArange, QStringLiteral("arange_len"));
        QVERIFY(loaded.wait(kJobTimeoutMs));
        QTRY_VERIFY_WITH_TIMEOUT(document.isIdle(), kJobTimeoutMs);
        QTest::qWait(50);
        // Only the newest load is handed over.
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loadedJob(loaded).path, QFileInfo(kArange).absoluteFilePath());
        QCOMPARE(document.currentFunction(), QStringLiteral("arange_len"));
    }

    void missingFileFails()
    {
        DocumentController document;
        QSignalSpy loaded(&document, &DocumentController::loaded);
        document.open(QStringLiteral("/nonexistent/model.py"));
        QVERIFY(loaded.wait(kJobTimeoutMs));
        QVERIFY(!loadedJob(loaded).load.ok);
        QVERIFY(!document.hasModel());
        QVERIFY(!document.lastError().isEmpty());
    }

    void showFunctionLaysOutOnceThenCaches()
    {
        DocumentController document;
        QSignalSpy loaded(&document, &DocumentController::loaded);
        document.open(kArange);
        QVERIFY(loaded.wait(kJobTimeoutMs));
        document.setShownFunction(document.currentFunction());
        QSignalSpy ready(&document, &DocumentController::layoutReady);
        QSignalSpy started(&document, &DocumentController::layoutStarted);
        QSignalSpy switched(&document, &DocumentController::functionSwitched);
        document.showFunction(QStringLiteral("arange_steps"));
        QCOMPARE(started.count(), 1);
        QCOMPARE(switched.count(), 1);
        QVERIFY(ready.wait(kJobTimeoutMs));
        QCOMPARE(ready.first().at(0).toString(), QStringLiteral("arange_steps"));
        document.setShownFunction(QStringLiteral("arange_steps"));
        // Back to functions laid out before (the first one by the load): from the cache, at once.
        document.showFunction(QStringLiteral("arange_shape"));
        QCOMPARE(ready.count(), 2);
        document.showFunction(QStringLiteral("arange_steps"));
        QCOMPARE(ready.count(), 3);
        QCOMPARE(started.count(), 1);
        QSignalSpy missing(&document, &DocumentController::noSuchFunction);
        document.showFunction(QStringLiteral("nope"));
        QCOMPARE(missing.count(), 1);
        QCOMPARE(document.currentFunction(), QStringLiteral("arange_steps"));
    }

    void reloadKeepsTheFunction()
    {
        DocumentController document;
        QSignalSpy loaded(&document, &DocumentController::loaded);
        document.open(kArange);
        QVERIFY(loaded.wait(kJobTimeoutMs));
        QSignalSpy ready(&document, &DocumentController::layoutReady);
        document.showFunction(QStringLiteral("arange_steps"));
        QVERIFY(ready.wait(kJobTimeoutMs));
        QSignalSpy reloading(&document, &DocumentController::aboutToReload);
        bool reloadingWhenLoaded = false;
        connect(&document, &DocumentController::loaded, this, [&] { reloadingWhenLoaded = document.isReloading(); });
        document.reload();
        QCOMPARE(reloading.count(), 1);
        QVERIFY(loaded.wait(kJobTimeoutMs));
        QVERIFY(reloadingWhenLoaded);
        QVERIFY(!document.isReloading());
        QCOMPARE(document.currentFunction(), QStringLiteral("arange_steps"));
        QCOMPARE(loadedJob(loaded, 1).functionName, QStringLiteral("arange_steps"));
    }

    void changeOnDiskReloads()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("f.py"));
        auto write = [&](const QByteArray& body) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            file.write("import torch\n\ndef f(x):\n    return " + body + "\n");
        };
        write("x + 1");
        DocumentController document;
        QSignalSpy loaded(&document, &DocumentController::loaded);
        document.open(path);
        QVERIFY(loaded.wait(kJobTimeoutMs));
        const int nodes = document.model().function(QStringLiteral("f"))->graph.nodes.size();
        QSignalSpy reloading(&document, &DocumentController::aboutToReload);
        QTest::qWait(1100); // a modification time of its own
        write("torch.relu(x * 2 + 1)");
        QVERIFY(reloading.wait(10000));
        QVERIFY(loaded.wait(kJobTimeoutMs));
        QVERIFY(document.model().function(QStringLiteral("f"))->graph.nodes.size() > nodes);
    }

    void foldsChangeTheLayoutKey()
    {
        DocumentController document;
        const QString plain = document.layoutOptionsKey();
        document.setGroupByModule(true);
        QVERIFY(document.layoutOptions().groupByModule);
        QVERIFY(document.layoutOptions().hideUnreachable);
        QVERIFY(document.layoutOptionsKey() != plain);
        // Without a model nothing is laid out, but the folds are kept, sorted.
        document.toggleFold(-1, QStringLiteral("layer2"));
        document.toggleFold(-1, QStringLiteral("layer1"));
        QCOMPARE(document.foldedModules(), QStringList({ QStringLiteral("layer1"), QStringLiteral("layer2") }));
        document.toggleFold(-1, QStringLiteral("layer1"));
        QCOMPARE(document.foldedModules(), QStringList { QStringLiteral("layer2") });
        document.toggleFold(7, QString());
        QCOMPARE(document.layoutOptions().foldedNodes, QVector<int> { 7 });
    }

    void layoutsShareOneClusterCache()
    {
        // Folding or unfolding a module lays out through the same LayoutCache: what did not change is not laid out
        // again (tst_graphlayout shows the cache at work).
        DocumentController document;
        const std::shared_ptr<LayoutCache> cache = document.layoutOptions().cache;
        QVERIFY(cache);
        document.setGroupByModule(true);
        document.toggleFold(-1, QStringLiteral("layer1"));
        QCOMPARE(document.layoutOptions().cache, cache);
        DocumentController other;
        QVERIFY(other.layoutOptions().cache != cache);
    }
};

QTEST_GUILESS_MAIN(TestDocumentController)
#include "tst_documentcontroller.moc"
