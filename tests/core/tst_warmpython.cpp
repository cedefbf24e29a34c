// Run Again without `import torch`: the window's runs go through a warm Python server (core/bridge/warmpython.h),
// each a fork of it. Real torch, real processes: a warm run records what a cold run records, sees the file's edits in
// a clean namespace, survives a server that was killed or hangs, kills a hanging run's process group and keeps the
// server, ends an idle server, and falls back to the cold path where the warm one cannot serve.

#include "bridge/runpython.h"
#include "bridge/warmpython.h"
#include "testutil.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <thread>

using namespace jitscope;

namespace {

QString pyFile(const char* name)
{
    return test::dataDir() + QStringLiteral("/python/") + QLatin1String(name);
}

PythonOptions options(bool warm)
{
    PythonOptions o;
    o.python = QStringLiteral(JITSCOPE_TEST_PYTHON);
    o.warm = warm;
    return o;
}

bool writeFile(const QString& path, const QByteArray& text)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
}

/// Alive, and not a zombie.
bool running(qint64 pid)
{
    const QString stat = test::readText(QStringLiteral("/proc/%1/stat").arg(pid));
    return !stat.isEmpty() && stat.section(QLatin1Char(')'), -1).trimmed().left(1) != QLatin1String("Z");
}

/// What a run recorded, as text: everything a cold and a warm run of the same file must agree on.
QString recorded(const PythonRun& run)
{
    // A crash's stderr goes on with faulthandler's dump of the thread (its id), its stack through the bridge (a warm
    // run's goes through the server's frames) and the extension modules loaded: its first line is the crash.
    const QString stderrText
        = run.status == QLatin1String("crashed") ? run.stderrText.section(QLatin1Char('\n'), 0, 0) : run.stderrText;
    QStringList lines { QStringLiteral("ok %1 status %2 exit %3").arg(run.ok).arg(run.status).arg(run.exitCode),
        QStringLiteral("error %1 at %2").arg(run.error.message).arg(run.error.location.line),
        QStringLiteral("torch %1").arg(run.torchVersion), QStringLiteral("stdout\n") + run.stdoutText,
        QStringLiteral("stderr\n") + stderrText, QStringLiteral("inputs %1").arg(run.inputs) };
    for (const PythonCall& c : run.calls) {
        lines << QStringLiteral("call %1 %2 line %3 ok %4 checked %5 passed %6")
                     .arg(c.api, c.target)
                     .arg(c.location.line)
                     .arg(c.ok)
                     .arg(c.checked)
                     .arg(c.checkPassed)
              << c.checkMessage << c.error.message << c.text;
        for (const PythonTrace& t : c.traces) {
            lines << QStringLiteral("trace %1 ok %2 compared %3 equal %4")
                         .arg(t.inputs)
                         .arg(t.ok)
                         .arg(t.outputsCompared)
                         .arg(t.outputsEqual)
                  << t.graph.toText();
            for (const PythonWarning& w : t.warnings)
                lines << QStringLiteral("warning %1 line %2 x%3: %4")
                             .arg(w.category)
                             .arg(w.location.line)
                             .arg(w.count)
                             .arg(w.message);
        }
        for (const PythonWarning& w : c.warnings)
            lines << QStringLiteral("call warning %1 line %2 x%3: %4")
                         .arg(w.category)
                         .arg(w.location.line)
                         .arg(w.count)
                         .arg(w.message);
    }
    for (const PythonModule& m : run.modules)
        lines << QStringLiteral("module %1 scripts %2").arg(m.className).arg(m.scriptOk);
    for (const PythonFunction& f : run.functions)
        lines << QStringLiteral("function %1 scripts %2").arg(f.name).arg(f.scriptOk);
    // Where outputs differ, by how much: the inputs are torch.rand's, and every run (cold ones too) draws its own seed.
    static const QRegularExpression drawn(
        QStringLiteral("(Mismatched elements: |Greatest (?:absolute|relative) difference: )[^\\n]*"));
    return lines.join(QLatin1Char('\n')).replace(drawn, QStringLiteral("\\1(drawn)"));
}

/// Where two records part: the first line that differs in each, empty when they agree.
QString firstDifference(const QString& warm, const QString& cold)
{
    const QStringList w = warm.split(QLatin1Char('\n')), c = cold.split(QLatin1Char('\n'));
    for (qsizetype k = 0; k < std::max(w.size(), c.size()); ++k)
        if (w.value(k) != c.value(k))
            return QStringLiteral("line %1:\n  warm: %2\n  cold: %3").arg(k + 1).arg(w.value(k), c.value(k));
    return {};
}

} // namespace

class TestWarmPython : public QObject
{
    Q_OBJECT

    QSet<qint64> m_servers; ///< every server the tests saw, none of which may be left running
    QTemporaryDir m_dir;
    QString m_traces; ///< a file that traces a module, consistently: status "ok", one call

    /// The one warm server, once it is ready for a run (it may still be importing what the last run imported); -1
    /// when there is none or more than one.
    qint64 theServer()
    {
        QElapsedTimer clock;
        clock.start();
        QVector<qint64> pids = warmPythonServers();
        while (pids.size() != 1 && clock.elapsed() < 10000) {
            QTest::qWait(50);
            pids = warmPythonServers();
        }
        if (pids.size() != 1) {
            qWarning("warm servers ready: %d", int(pids.size()));
            return -1;
        }
        m_servers.insert(pids.first());
        return pids.first();
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("JITSCOPE_BRIDGE_VALIDATE", "1"); // every record checked against its schema as it is written
        m_traces = m_dir.filePath(QStringLiteral("traces.py"));
        QVERIFY(writeFile(m_traces,
            "import torch\n"
            "model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())\n"
            "traced = torch.jit.trace(model, torch.rand(2, 4), check_inputs=[torch.rand(5, 4)])\n"));
    }

    void cleanupTestCase()
    {
        endWarmPythonServers();
        QVERIFY(warmPythonServers().isEmpty());
        for (qint64 pid : std::as_const(m_servers))
            QVERIFY2(!running(pid), qPrintable(QString::number(pid)));
    }

    /// The same file recorded cold and warm (a warm run of a file that imported torch before, and the run after
    /// the server imported what that run imported): the same calls, graphs, warnings, output, status and error.
    void warmRecordsWhatColdRecords_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addRow("seed example") << QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
        QTest::addRow("three check sets") << pyFile("three_sets.py");
        QTest::addRow("a module traced") << m_traces;
        QTest::addRow("branch, with output") << pyFile("branch.py");
        QTest::addRow("raises") << pyFile("raises.py");
        QTest::addRow("sys.exit") << pyFile("exits.py");
        QTest::addRow("imports a missing module") << pyFile("missing_import.py");
        QTest::addRow("crashes in a trace") << pyFile("crashes_in_trace.py");
        QTest::addRow("kills itself") << pyFile("kills_itself.py");
    }

    void warmRecordsWhatColdRecords()
    {
        QFETCH(QString, file);
        const PythonRun cold = runPythonFile(file, options(false));
        QVERIFY(!cold.warm);
        for (int k = 0; k < 2; ++k) {
            const PythonRun warm = runPythonFile(file, options(true));
            QVERIFY(warm.warm);
            const QString difference = firstDifference(recorded(warm), recorded(cold));
            QVERIFY2(difference.isEmpty(), qPrintable(difference));
            QVERIFY(theServer() > 0);
        }
    }

    /// Run Again sees the file and the helper module beside it as they are now, in a fresh namespace: nothing the
    /// first run set (a global of the file, an attribute of a library module) is there in the second.
    void runAgainSeesEditsInACleanNamespace()
    {
        QTemporaryDir dir;
        const QString main = dir.filePath(QStringLiteral("model.py"));
        const QString helper = dir.filePath(QStringLiteral("helper.py"));
        const QByteArray source = "import sys\n"
                                  "import torch\n"
                                  "import helper\n"
                                  "print('global', globals().get('LEFT'), 'sys', getattr(sys, 'jitscope_left', None))\n"
                                  "LEFT = 'run'\n"
                                  "sys.jitscope_left = 'run'\n"
                                  "print('helper', helper.SCALE, 'version', VERSION)\n"
                                  "torch.jit.trace(lambda x: x * helper.SCALE, torch.rand(2))\n";
        QVERIFY(writeFile(helper, "SCALE = 2\n"));
        QVERIFY(writeFile(main, "VERSION = 1\n" + source));
        const PythonRun first = runPythonFile(main, options(true));
        QCOMPARE(first.status, QStringLiteral("ok"));
        QVERIFY(first.warm);
        QCOMPARE(first.stdoutText, QStringLiteral("global None sys None\nhelper 2 version 1\n"));
        const qint64 server = theServer();
        QVERIFY(server > 0);

        QVERIFY(writeFile(helper, "SCALE = 3\n"));
        QVERIFY(writeFile(main, "VERSION = 2\n" + source));
        const PythonRun second = runPythonFile(main, options(true));
        QCOMPARE(second.status, QStringLiteral("ok"));
        QVERIFY(second.warm);
        QCOMPARE(second.stdoutText, QStringLiteral("global None sys None\nhelper 3 version 2\n"));
        QCOMPARE(second.calls.size(), 1);
        QVERIFY2(second.calls[0].text.contains(QLatin1String("value={3}")), qPrintable(second.calls[0].text));
        QCOMPARE(theServer(), server); // the same server, forked again
    }

    /// A server killed (SIGKILL) or stopped (it never answers) between runs is replaced: the next run succeeds,
    /// warm, in another server.
    void deadOrHungServerIsReplaced_data()
    {
        QTest::addColumn<int>("signal");
        QTest::addRow("killed") << int(SIGKILL);
        QTest::addRow("hung") << int(SIGSTOP);
    }

    void deadOrHungServerIsReplaced()
    {
        QFETCH(int, signal);
        const QString file = m_traces;
        QCOMPARE(runPythonFile(file, options(true)).status, QStringLiteral("ok"));
        const qint64 before = theServer();
        QVERIFY(before > 0);
        QVERIFY(::kill(pid_t(before), signal) == 0);
        const PythonRun run = runPythonFile(file, options(true));
        QCOMPARE(run.status, QStringLiteral("ok"));
        QVERIFY(run.warm);
        QCOMPARE(run.calls.size(), 1);
        const qint64 after = theServer();
        QVERIFY(after > 0);
        QVERIFY(after != before);
        QTRY_VERIFY(!running(before));
    }

    /// A run that never ends is killed by its timeout or its cancel with its process group (a subprocess it started
    /// dies too); the server lives on and serves the next run.
    void hangingRunIsKilledAndTheServerServesOn_data()
    {
        QTest::addColumn<bool>("cancel");
        QTest::addRow("timeout") << false;
        QTest::addRow("cancel") << true;
    }

    void hangingRunIsKilledAndTheServerServesOn()
    {
        QFETCH(bool, cancel);
        QCOMPARE(runPythonFile(pyFile("exits.py"), options(true)).status, QStringLiteral("exit"));
        const qint64 server = theServer();
        QVERIFY(server > 0);

        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("hangs.py"));
        const QString pidFile = dir.filePath(QStringLiteral("sleeper.pid"));
        QVERIFY(writeFile(file,
            "import subprocess, sys\n"
            "sleeper = subprocess.Popen(['sleep', '600'])\n"
            "open('sleeper.pid', 'w').write(str(sleeper.pid))\n"
            "print('started', flush=True)\n"
            "while True:\n"
            "    pass\n"));
        PythonOptions o = options(true);
        std::atomic<bool> cancelled { false };
        std::thread canceller;
        if (cancel) {
            o.cancel = &cancelled;
            canceller = std::thread([&] {
                std::this_thread::sleep_for(std::chrono::milliseconds(1500));
                cancelled = true;
            });
        } else {
            o.timeoutMs = 1500;
        }
        QElapsedTimer clock;
        clock.start();
        const PythonRun run = runPythonFile(file, o);
        const qint64 ms = clock.elapsed();
        if (canceller.joinable())
            canceller.join();
        QCOMPARE(run.status, cancel ? QStringLiteral("cancelled") : QStringLiteral("timeout"));
        QVERIFY(run.warm);
        QCOMPARE(run.stdoutText, QStringLiteral("started\n"));
        QVERIFY2(ms < 5000, qPrintable(QString::number(ms)));
        const qint64 sleeper = test::readText(pidFile).toLongLong();
        QVERIFY(sleeper > 0);
        QTRY_VERIFY(!running(sleeper));

        QCOMPARE(theServer(), server);
        QVERIFY(running(server));
        const PythonRun next = runPythonFile(m_traces, options(true));
        QCOMPARE(next.status, QStringLiteral("ok"));
        QVERIFY(next.warm);
        QCOMPARE(theServer(), server);
    }

    /// A second run while the server runs the first goes cold, at once.
    void busyServerRunsTheNextCold()
    {
        QCOMPARE(runPythonFile(pyFile("exits.py"), options(true)).status, QStringLiteral("exit"));
        std::atomic<bool> cancelled { false };
        PythonRun hanging;
        std::thread first([&] {
            PythonOptions o = options(true);
            o.cancel = &cancelled;
            hanging = runPythonFile(pyFile("endless.py"), o);
        });
        QTest::qWait(500);
        const PythonRun second = runPythonFile(m_traces, options(true));
        cancelled = true;
        first.join();
        QCOMPARE(second.status, QStringLiteral("ok"));
        QVERIFY(!second.warm);
        QCOMPARE(hanging.status, QStringLiteral("cancelled"));
        QVERIFY(hanging.warm);
    }

    /// A server idle for $JITSCOPE_PYTHON_IDLE_S seconds ends itself (another environment: another server).
    void idleServerEnds()
    {
        qputenv("JITSCOPE_PYTHON_IDLE_S", "2");
        const PythonRun run = runPythonFile(pyFile("exits.py"), options(true));
        QCOMPARE(run.status, QStringLiteral("exit"));
        QVERIFY(run.warm);
        const qint64 server = theServer();
        QVERIFY(server > 0);
        QVERIFY(running(server));
        QTRY_VERIFY_WITH_TIMEOUT(warmPythonServers().isEmpty(), 20000);
        QTRY_VERIFY(!running(server));
        qunsetenv("JITSCOPE_PYTHON_IDLE_S");
    }

    /// An interpreter without torch cannot serve: the run is cold, and says what a cold run says.
    void interpreterWithoutTorchRunsCold()
    {
        QTemporaryDir dir;
        const QString python = dir.filePath(QStringLiteral("python-without-site"));
        // The tests' Python without its site-packages (-S), where torch is.
        QVERIFY(writeFile(python, "#!/bin/sh\nexec '" JITSCOPE_TEST_PYTHON "' -S \"$@\"\n"));
        QVERIFY(QFile::setPermissions(python, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        const qsizetype servers = warmPythonServers().size();
        PythonOptions o = options(false);
        o.python = python;
        const PythonRun cold = runPythonFile(pyFile("three_sets.py"), o);
        o.warm = true;
        const PythonRun warm = runPythonFile(pyFile("three_sets.py"), o);
        QVERIFY(!warm.warm);
        QVERIFY(!warm.ok || warm.status != QLatin1String("ok"));
        QVERIFY2(warm.error.message.contains(QLatin1String("no torch")), qPrintable(warm.error.message));
        QCOMPARE(recorded(warm), recorded(cold));
        QCOMPARE(warmPythonServers().size(), servers); // none of this Python
    }
};

QTEST_GUILESS_MAIN(TestWarmPython)
#include "tst_warmpython.moc"
