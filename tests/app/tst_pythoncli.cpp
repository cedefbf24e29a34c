// jitscope-cli --python as a user runs it on their own export script: the recorded calls, the check of each
// trace call with its causes at the user's lines, and the failures of the file itself.

#include "clitest.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

using namespace jitscope::test;

namespace {

using Run = CliRun;

QString py(const char* name)
{
    return dataDir() + QStringLiteral("/python/") + QLatin1String(name);
}

} // namespace

class TestPythonCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void checkExplainsTheFilesTraceCall()
    {
        const Run r = runCli({ "check", py("export_module.py"), "--python" });
        QCOMPARE(r.code, 1);
        QVERIFY2(r.out.startsWith(QLatin1String("check line 43: torch.jit.trace(MyModule.forward): 2 input set(s)\n"
                                                "  trace 1: f32[3,4]  (15 nodes)\n  trace 2: f32[4,4]  (19 nodes)\n")),
            qPrintable(r.out));
        QVERIFY(r.out.contains(QLatin1String("    cause: loop at line 18 (`for i in range(x.size(0)):`) unrolled 3 "
                                             "times in trace 1 but 4 times in trace 2")));
        QVERIFY(r.out.contains(QLatin1String("export_module.py:19\n    19 |             x = self.lin(x) + i\n")));
        QVERIFY(r.out.contains(QLatin1String("  [TracerWarning] Converting a tensor to a Python boolean")));
        QVERIFY(r.out.contains(QLatin1String("export_module.py:20\n")));
        QVERIFY(r.out.contains(QLatin1String(
            "PyTorch's check: Tracing failed sanity checks! ERROR: Graphs differed across invocations!")));
        QVERIFY(r.out.contains(QLatin1String("verdict: diverged\n")));
        // The file's own output goes where running it would put it; the TracingCheckError is the finding.
        QCOMPARE(r.err, QStringLiteral("tracing MyModule\n"));
    }

    void checkJsonIsOneReportPerCall()
    {
        const Run r = runCli({ "check", py("python_only.py"), "--python", "--format", "json" });
        QCOMPARE(r.code, 1);
        const QJsonArray reports = QJsonDocument::fromJson(r.out.toUtf8()).array();
        QCOMPARE(reports.size(), 2);
        const QJsonObject fill = reports[0].toObject();
        QCOMPARE(fill.value("target").toString(), QStringLiteral("fill_row_zero"));
        QCOMPARE(fill.value("line").toInt(), 14);
        QCOMPARE(fill.value("consistent").toBool(), true); // one input set: nothing to diff...
        QCOMPARE(fill.value("pytorch_check").toObject().value("passed").toBool(), false); // ...but rand() differs
        QCOMPARE(fill.value("verdict").toString(), QStringLiteral("diverged"));
        const QJsonObject count = reports[1].toObject();
        const QJsonObject change
            = count.value("diffs").toArray()[0].toObject().value("changes").toArray()[0].toObject();
        QCOMPARE(change.value("line").toInt(), 11);
        QVERIFY(change.value("cause").toString().startsWith(QLatin1String("`len()` of a tensor at line 11 baked")));
        QCOMPARE(count.value("traces").toArray().size(), 2);
    }

    void traceAndListShowWhatTheFileDid()
    {
        const Run trace = runCli({ "trace", py("python_only.py"), "--python" });
        QCOMPARE(trace.code, 0);
        QVERIFY(
            trace.out.startsWith(QLatin1String("# line 14: torch.jit.trace(fill_row_zero)\ngraph(%x : Float(3, 4")));
        QVERIFY(trace.out.contains(QLatin1String("\n# line 15: torch.jit.trace(count_rows)\ngraph(")));
        QVERIFY(trace.out.contains(QLatin1String(" = aten::rand(")));
        QVERIFY(trace.out.contains(QLatin1String("# failed: ")));

        const Run list = runCli({ "list", py("export_module.py"), "--python" });
        QCOMPARE(list.code, 0);
        QVERIFY(list.out.contains(QLatin1String("  MyModule  (line 8)  instances: model\n")));
        QVERIFY(list.out.contains(
            QLatin1String("    MyModule.another_forward  (line 24)  compiled: export  @torch.jit.export\n")));
        QVERIFY(list.out.contains(QLatin1String("    MyModule.helper  (line 28)  compiled: implicit\n")));
        QVERIFY(list.out.contains(QLatin1String("    MyModule.show  (line 31)  @torch.jit.ignore\n")));
        QVERIFY(list.out.contains(QLatin1String("    attribute counts: Dict[str, int] = {'a': 1}\n")));
        QVERIFY(list.out.contains(QLatin1String("    constant scale = 2\n")));
        QVERIFY(list.out.contains(QLatin1String("  line 43: torch.jit.trace(MyModule.forward)  failed: ")));

        const Run functions = runCli({ "list", py("python_only.py"), "--python" });
        QVERIFY(functions.out.contains(QRegularExpression(
            QStringLiteral("  fill_row_zero  \\(line 5\\)  does not script\n    script error: .*python_only.py:6:22: "
                           "cannot statically infer the expected size of a list in this context"))));
    }

    void badFilesAndOptions_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("lastLine");
        QTest::addRow("raises") << QStringList { "check", py("raises.py"), "--python" }
                                << ":5:0: ValueError: shape (2, 3) is not supported";
        QTest::addRow("sys.exit") << QStringList { "list", py("exits.py"), "--python" }
                                  << "exits.py: the file called sys.exit(3)";
        QTest::addRow("endless") << QStringList { "trace", py("endless.py"), "--python", "--timeout", "1" }
                                 << "endless.py: Python did not finish within 1 s (a loop that never ends?); stopped";
        QTest::addRow("no interpreter") << QStringList { "list", py("exits.py"), "--python=/nonexistent/python3" }
                                        << "exits.py: cannot start /nonexistent/python3";
        QTest::addRow("bad timeout") << QStringList { "check", py("exits.py"), "--python", "--timeout", "0" }
                                     << "--timeout: '0' is not a number of seconds above 0 and at most 604800 (a week)";
        QTest::addRow("not for graph") << QStringList { "graph", py("exits.py"), "--python" }
                                       << "--python works with list, trace and check, not graph";
    }

    void badFilesAndOptions()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, lastLine);
        const Run r = runCli(args);
        QCOMPARE(r.code, 2);
        const QString last = r.err.trimmed().section(QLatin1Char('\n'), -1);
        QVERIFY2(last.startsWith(QLatin1String("jitscope-cli: error: ")) && last.contains(lastLine), qPrintable(r.err));
    }

    void withoutPythonNothingRuns()
    {
        // The same file without --python: JitScope compiles what it can itself, and no Python prints.
        const Run r = runCli({ "list", py("export_module.py") });
        QVERIFY(!r.err.contains(QLatin1String("tracing MyModule")));
        QVERIFY(!r.out.contains(QLatin1String("tracing MyModule")));
    }
};

QTEST_GUILESS_MAIN(TestPythonCli)
#include "tst_pythoncli.moc"
