// The model worker from the client's side: its answers equal the in-process pipeline's, and a worker that aborts,
// segfaults, hangs or is killed for memory (JITSCOPE_WORKER_FAULT, armed in a worker started for the test) fails
// the call waiting with what it was doing, and the next call gets a new worker that loads the model again.

#include "../core/testutil.h"
#include "bridge/runpython.h"
#include "check/check.h"
#include "load/model.h"
#include "workerclient.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

#include <thread>

using namespace jitscope;

namespace {

QString twoSets()
{
    return QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/worker/two_sets.py");
}

QByteArray json(const CheckReport& r)
{
    return QJsonDocument(checkReportJson(r)).toJson();
}

/// Starts a new worker of @p client with JITSCOPE_WORKER_FAULT=@p fault; later workers start without it.
void armFault(WorkerClient& client, const QByteArray& fault)
{
    qputenv("JITSCOPE_WORKER_FAULT", fault);
    client.restart();
    qunsetenv("JITSCOPE_WORKER_FAULT");
}

} // namespace

class TestWorkerClient : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void answersAsInProcess_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("inlineCalls");
        QTest::addRow("py") << twoSets() << false;
        QTest::addRow("archive inlined") << QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/archives/conv_block.pt")
                                         << true;
    }

    void answersAsInProcess()
    {
        QFETCH(QString, path);
        QFETCH(bool, inlineCalls);
        WorkerClient client;
        const ModelWorkerRef worker = client.worker();
        LoadOptions options;
        options.inlineCalls = inlineCalls;
        WorkerModelRef model;
        const LoadResult remote = worker->load(path, options, &model);
        const LoadResult local = loadModel(path, options);
        QVERIFY2(remote.ok, qPrintable(remote.error.toString()));
        QVERIFY(model);
        QVERIFY(!remote.model.handle);
        QVERIFY(client.workerPid() > 0);
        QCOMPARE(remote.model.functions.size(), local.model.functions.size());
        for (int i = 0; i < local.model.functions.size(); ++i)
            QCOMPARE(remote.model.functions[i].graph.toText(), local.model.functions[i].graph.toText());

        const FunctionInfo* fn = local.model.defaultFunction();
        QVERIFY(fn);
        const auto suggestion = suggestInputSet(local.model, *fn);
        const auto remoteSuggestion = worker->suggestInputSet(model, fn->name);
        QCOMPARE(bool(remoteSuggestion), bool(suggestion));
        if (suggestion)
            QCOMPARE(remoteSuggestion->set, suggestion->set);
        QCOMPARE(worker->submoduleTypes(model, fn->name), submoduleTypes(local.model, fn->name));

        QVector<InputSet> sets = local.model.inputSets;
        if (sets.isEmpty())
            sets = { *parseInputSet(suggestion->set), *parseInputSet(suggestion->set) };
        const CheckReport expected = checkModel(local.model, fn->name, sets);
        const CheckReport got = worker->check(model, fn->name, sets, {});
        QVERIFY2(got.ok, qPrintable(got.error.toString()));
        QCOMPARE(json(got), json(expected));
    }

    /// An archive calling torchvision::nms and roi_align opens in the worker with no library given: the worker
    /// finds torchvision's in the system's Python and the result names it. With nowhere to look
    /// (JITSCOPE_OPS_PATH empty in the worker's environment), the load fails naming the namespace.
    void customOperatorsInTheWorker_data()
    {
        QTest::addColumn<QString>("archive");
        QTest::addColumn<bool>("searchable");
        for (const char* archive : { "ops_scripted.pt", "ops_traced.pt" }) {
            QTest::addRow("%s", archive) << archive << true;
            QTest::addRow("%s, nothing to search", archive) << archive << false;
        }
    }

    void customOperatorsInTheWorker()
    {
        QFETCH(QString, archive);
        QFETCH(bool, searchable);
        JITSCOPE_CUSTOM_OPS_DIR(dir);
        QTemporaryDir empty;
        WorkerClient client;
        if (!searchable) {
            qputenv("JITSCOPE_OPS_PATH", QFile::encodeName(empty.path()));
            client.restart();
            qunsetenv("JITSCOPE_OPS_PATH");
        }
        WorkerModelRef model;
        LoadOptions options;
        options.inlineCalls = true;
        options.strictOpLibraries = false;
        const LoadResult r = client.worker()->load(dir.filePath(archive), options, &model);
        if (!searchable) {
            QVERIFY(!r.ok);
            QVERIFY2(r.error.message.startsWith(QLatin1String("unknown operator torchvision::")),
                qPrintable(r.error.message));
            QVERIFY2(r.error.message.contains(QLatin1String("no library of torchvision:: operators is loaded")),
                qPrintable(r.error.message));
            return;
        }
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        QCOMPARE(r.model.opLibraries.size(), 1);
        QVERIFY2(r.model.opLibraries.first().path.contains(QLatin1String("/torchvision/_C")),
            qPrintable(r.model.opLibraries.first().path));
        QCOMPARE(r.model.opLibraries.first().namespaces, QStringList { QStringLiteral("torchvision") });
        QVERIFY(r.model.opLibraries.first().found);
        const FunctionInfo* forward = r.model.function(QStringLiteral("forward"));
        QVERIFY(forward && forward->ok);
        const bool callsNms = std::any_of(forward->graph.nodes.cbegin(), forward->graph.nodes.cend(),
            [](const IrNode& n) { return n.kind == QLatin1String("torchvision::nms"); });
        QVERIFY(callsNms);
        // A second model in the same worker names the library too (loaded once, remembered).
        WorkerModelRef again;
        const LoadResult second = client.worker()->load(dir.filePath(archive), options, &again);
        QVERIFY(second.ok);
        QCOMPARE(second.model.opLibraries.size(), 1);
        QCOMPARE(second.model.opLibraries.first().path, r.model.opLibraries.first().path);
    }

    /// A submodule's method inlined in the worker is the graph inlineFunction() makes here, and the worker keeps it.
    void inlinesInTheWorker()
    {
        const QString path = QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/archives/conv_block.pt");
        WorkerClient client;
        WorkerModelRef model;
        const LoadResult remote = client.worker()->load(path, {}, &model);
        QVERIFY2(remote.ok, qPrintable(remote.error.toString()));
        const LoadResult local = loadModel(path);
        for (const FunctionInfo& f : local.model.functions) {
            FunctionInfo here = f;
            FunctionInfo there = f;
            QString error;
            const bool ok = inlineFunction(local.model.handle, here);
            QCOMPARE(client.worker()->inlineFunction(model, there, &error), ok);
            if (ok) {
                QVERIFY(there.inlined);
                QCOMPARE(there.graph.toText(), here.graph.toText());
                QCOMPARE(there.inlinedIds, here.inlinedIds);
            }
        }
    }

    void faults_data()
    {
        QTest::addColumn<QByteArray>("fault");
        QTest::addColumn<QString>("how");
        QTest::addRow("abort") << QByteArray("abort@aten::mul#2") << QStringLiteral("crashed (SIGABRT)");
        QTest::addRow("segv") << QByteArray("segv@aten::mul#2") << QStringLiteral("crashed (SIGSEGV)");
        QTest::addRow("hang") << QByteArray("hang@aten::mul#2")
                              << QStringLiteral("stopped answering (one operator ran for more than 1 s)");
        QTest::addRow("oom") << QByteArray("oom@aten::mul#2") << QStringLiteral("was killed (SIGKILL");
    }

    /// The worker stops at the multiplication of input set 2 (line 7): the check fails with how and where, the
    /// window is told once, and the same check on a new worker (the model loaded again) succeeds.
    void faults()
    {
        QFETCH(QByteArray, fault);
        QFETCH(QString, how);
        WorkerClient client;
        // A short stall timeout for the hang only: the OOM fault fills 256 MB and waits half a second before its
        // kill, which on a loaded 2-core machine can take more than 1 s.
        client.setStallTimeout(how.contains(QLatin1String("stopped answering")) ? 1000 : 20000);
        QSignalSpy stopped(&client, &WorkerClient::workerStopped);
        armFault(client, fault);
        const qint64 firstPid = client.workerPid();
        WorkerModelRef model;
        const LoadResult load = client.worker()->load(twoSets(), {}, &model);
        QVERIFY2(load.ok, qPrintable(load.error.toString()));
        const CheckReport failed = client.worker()->check(model, QStringLiteral("f"), load.model.inputSets, {});
        QVERIFY(!failed.ok);
        const QString message = failed.error.message;
        QVERIFY2(message.startsWith(QLatin1String("the model worker ")), qPrintable(message));
        QVERIFY2(message.contains(how), qPrintable(message));
        // The place is the location, named once by toString().
        QVERIFY2(failed.error.toString().startsWith(twoSets() + QStringLiteral(":7:")), qPrintable(message));
        QVERIFY2(!message.contains(twoSets()), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("aten::mul")), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("checking `f`: tracing input set 2")), qPrintable(message));
        // The line it stopped at, for the source panel's mark.
        QCOMPARE(failed.error.location.line, 7);
        QVERIFY(stopped.wait(5000) || stopped.size() == 1);
        QCOMPARE(stopped.size(), 1);
        // The signal's text keeps the place in it.
        QCOMPARE(stopped.first().first().toString().remove(twoSets() + QStringLiteral(":7: ")), message);
        QCOMPARE(client.restarts(), 1);

        const CheckReport again = client.worker()->check(model, QStringLiteral("f"), load.model.inputSets, {});
        QVERIFY2(again.ok, qPrintable(again.error.toString()));
        QCOMPARE(again.traces.size(), 3);
        QVERIFY(client.workerPid() != firstPid);
    }

    /// Once the worker is up and idle a spare starts (its libtorch loading meanwhile): the worker that follows a
    /// crash is that spare, taken at once, and it works.
    void aRestartTakesTheSpare()
    {
        WorkerClient client;
        client.setStallTimeout(1000);
        client.setSpareDelay(0);
        armFault(client, "segv@aten::mul#2");
        WorkerModelRef model;
        const LoadResult load = client.worker()->load(twoSets(), {}, &model);
        QVERIFY2(load.ok, qPrintable(load.error.toString()));
        QTRY_VERIFY_WITH_TIMEOUT(client.sparePid() != 0, 20000);
        const qint64 spare = client.sparePid();
        QVERIFY(spare != client.workerPid());
        const CheckReport failed = client.worker()->check(model, QStringLiteral("f"), load.model.inputSets, {});
        QVERIFY2(failed.error.message.contains(QLatin1String("crashed (SIGSEGV)")), qPrintable(failed.error.message));
        QTRY_COMPARE(client.workerPid(), spare);
        const CheckReport again = client.worker()->check(model, QStringLiteral("f"), load.model.inputSets, {});
        QVERIFY2(again.ok, qPrintable(again.error.toString()));
        // A restart asked for starts a new worker with the environment as it is now, not the spare.
        QTRY_VERIFY_WITH_TIMEOUT(client.sparePid() != 0, 20000);
        const qint64 second = client.sparePid();
        client.restart();
        QVERIFY(client.workerPid() != second);
        QVERIFY(client.workerPid() != 0);
    }

    /// A .py file runs from the worker (the window starts no process of the user's) as it runs in process: the same
    /// calls, graphs and outputs, its record in a folder the returned run owns (removed with it); a cancel stops the
    /// child there within the poll.
    void pythonRunsInTheWorker()
    {
        WorkerClient client;
        const QString file = test::dataDir() + QStringLiteral("/python/branch.py");
        PythonRun remote = client.worker()->runPython(file, {});
        const PythonRun local = runPythonFile(file);
        QVERIFY2(remote.ok, qPrintable(remote.error.toString() + remote.stderrText));
        QCOMPARE(remote.status, local.status);
        QCOMPARE(remote.python, local.python);
        QCOMPARE(remote.stdoutText, local.stdoutText);
        QCOMPARE(remote.calls.size(), local.calls.size());
        QVERIFY(!remote.calls.isEmpty());
        for (int k = 0; k < local.calls.size(); ++k) {
            QCOMPARE(remote.calls[k].traces.size(), local.calls[k].traces.size());
            for (int t = 0; t < local.calls[k].traces.size(); ++t)
                QCOMPARE(remote.calls[k].traces[t].graph.toText(), local.calls[k].traces[t].graph.toText());
        }
        const QString folder = remote.folder;
        QVERIFY(QFileInfo::exists(folder + QStringLiteral("/result.json")));
        remote = PythonRun();
        QVERIFY(!QFileInfo::exists(folder));

        std::atomic<bool> cancel { false };
        PythonOptions options;
        options.cancel = &cancel;
        std::thread canceler([&cancel] {
            std::this_thread::sleep_for(std::chrono::milliseconds(1500));
            cancel = true;
        });
        QElapsedTimer clock;
        clock.start();
        const PythonRun cancelled
            = client.worker()->runPython(test::dataDir() + QStringLiteral("/python/endless.py"), options);
        canceler.join();
        QCOMPARE(cancelled.status, QStringLiteral("cancelled"));
        QVERIFY(clock.elapsed() < 10000);
        QVERIFY(client.worker()->runPython(QStringLiteral("/no/such/file.py"), {}).error.message.contains(
            QLatin1String("not a regular file")));
    }

    /// The window's Run Again in the worker: a fork of the worker's warm Python server, which records what the first
    /// run recorded, and which ends when its worker ends (the window closed, the worker crashed).
    void warmRunAgainInTheWorker()
    {
        const QString file = test::dataDir() + QStringLiteral("/python/branch.py");
        PythonOptions options;
        options.warm = true;
        const PythonRun local = runPythonFile(file);
        QStringList servers;
        {
            WorkerClient client;
            const PythonRun first = client.worker()->runPython(file, options);
            const PythonRun again = client.worker()->runPython(file, options);
            QVERIFY2(first.ok, qPrintable(first.error.toString() + first.stderrText));
            QVERIFY(first.warm);
            QVERIFY(again.warm);
            for (const PythonRun* run : { &first, &again }) {
                QCOMPARE(run->status, local.status);
                QCOMPARE(run->stdoutText, local.stdoutText);
                QCOMPARE(run->calls.size(), local.calls.size());
                for (int k = 0; k < local.calls.size(); ++k)
                    for (int t = 0; t < local.calls[k].traces.size(); ++t)
                        QCOMPARE(run->calls[k].traces.value(t).graph.toText(), local.calls[k].traces[t].graph.toText());
            }
            // The worker's children that serve Python runs.
            const QString worker = QString::number(client.workerPid());
            for (const QString& pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
                QFile stat(QStringLiteral("/proc/%1/stat").arg(pid)),
                    cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
                if (pid.toLongLong() > 0 && stat.open(QIODevice::ReadOnly) && cmdline.open(QIODevice::ReadOnly)
                    && QString::fromLatin1(stat.readAll()).section(QLatin1Char(')'), -1).section(QLatin1Char(' '), 2, 2)
                        == worker
                    && cmdline.readAll().contains("--serve"))
                    servers << pid;
            }
            QCOMPARE(servers.size(), 1);
        }
        const auto ended = [pid = servers.first()] {
            QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
            return !stat.open(QIODevice::ReadOnly) || stat.readAll().contains(") Z "); // gone, or a zombie of init's
        };
        QTRY_VERIFY_WITH_TIMEOUT(ended(), 5000);
    }

    /// A canceled check stuck in an operator that never returns ends with its worker, a few seconds later.
    void cancelEndsARunaway()
    {
        WorkerClient client;
        client.setStallTimeout(600 * 1000);
        armFault(client, "hang@aten::mul");
        WorkerModelRef model;
        const LoadResult load = client.worker()->load(twoSets(), {}, &model);
        QVERIFY(load.ok);
        std::atomic<bool> cancel { false };
        std::thread canceler([&cancel] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            cancel = true;
        });
        const CheckReport r = client.worker()->check(model, QStringLiteral("f"), load.model.inputSets, {}, &cancel);
        canceler.join();
        QVERIFY(!r.ok);
        QVERIFY2(r.error.message.contains(QLatin1String("canceled")), qPrintable(r.error.message));
        QVERIFY(client.worker()->check(model, QStringLiteral("f"), load.model.inputSets, {}).ok);
    }

    void badFaultSpecIsSaid()
    {
        WorkerClient client;
        armFault(client, "melt@aten::mul");
        WorkerModelRef model;
        const LoadResult load = client.worker()->load(twoSets(), {}, &model);
        QVERIFY(!load.ok);
        QVERIFY2(load.error.message.contains(QLatin1String("JITSCOPE_WORKER_FAULT=melt@aten::mul: expected")),
            qPrintable(load.error.message));
        // The next request starts a worker without the fault.
        QVERIFY(client.worker()->load(twoSets(), {}, &model).ok);
    }
};

QTEST_GUILESS_MAIN(TestWorkerClient)
#include "tst_workerclient.moc"
