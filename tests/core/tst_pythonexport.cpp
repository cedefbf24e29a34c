// Each recorded torch.jit.trace call exported with torch.export beside its trace (PythonOptions::exportCalls, the
// bridge's jitscope_bridge_export.py): where export fails and why at the right line, the exported program run on
// every set, the model left as the trace left it, and an older torch said plainly. Real torch is the oracle: what
// the fixtures of tests/data/python/export/ do under torch.export is in expected.json, written by
// tests/oracle/generate_export.py from torch's own exceptions and logs.

#include "bridge/pythoncheck.h"
#include "bridge/runpython.h"
#include "testutil.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace jitscope;

namespace {

QString exportFile(const QString& name)
{
    return test::dataDir() + QStringLiteral("/python/export/") + name;
}

QJsonObject oracle()
{
    return QJsonDocument::fromJson(test::readText(exportFile(QStringLiteral("expected.json"))).toUtf8()).object();
}

PythonRun runExported(const QString& name, bool exportCalls = true, const QString& python = {})
{
    PythonOptions options;
    options.exportCalls = exportCalls;
    options.definitions = false;
    options.python = python;
    return runPythonFile(exportFile(name), options);
}

/// The torch of the Python the tests run, as the oracle recorded it ("2.14.1+cu130").
QString torchOf(const PythonRun& run)
{
    return run.torchVersion;
}

} // namespace

class TestPythonExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // The bridge checks its record against the schema (version 1.2: calls[].export) before it writes it.
        qputenv("JITSCOPE_BRIDGE_VALIDATE", "1");
    }

    /// What export does with each fixture is what real torch.export does (expected.json): the failure's kind at the
    /// line torch names, the guard in export's words and the expression in the source's, or the program passing the
    /// sets it passes. The program is saved beside the record for the .pt2 reader.
    void exportsAsTorchDoes_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addRow("loop over x.size(0)") << "export_loop.py";
        QTest::addRow("branch on data") << "export_branch.py";
        QTest::addRow("exports where the trace fails") << "export_passes.py";
    }

    void exportsAsTorchDoes()
    {
        QFETCH(QString, file);
        const QJsonObject all = oracle();
        const QJsonObject expected = all.value(file).toObject();
        QVERIFY2(!expected.isEmpty(), "tests/oracle/generate_export.py writes expected.json");
        const PythonRun run = runExported(file);
        QVERIFY2(run.ok, qPrintable(run.error.toString() + run.stderrText));
        if (torchOf(run) != all.value(QLatin1String("torch")).toString())
            QSKIP(qPrintable(QStringLiteral("expected.json is torch %1's; this Python has torch %2")
                                 .arg(all.value(QLatin1String("torch")).toString(), torchOf(run))));
        QCOMPARE(run.calls.size(), 1);
        const PythonCall& call = run.calls[0];
        const ExportReport& e = call.exported;
        QVERIFY(e.requested);
        QCOMPARE(e.torchVersion, torchOf(run));
        QCOMPARE(e.status, expected.value(QLatin1String("status")).toString());
        QCOMPARE(e.dynamicBy, QStringLiteral("AdditionalInputs"));
        const QString path = QFileInfo(exportFile(file)).canonicalFilePath();
        if (e.status == QLatin1String("failed")) {
            QCOMPARE(e.findings.size(), 1);
            const ExportFinding& f = e.findings[0];
            QCOMPARE(f.kind, expected.value(QLatin1String("kind")).toString());
            QCOMPARE(f.type, expected.value(QLatin1String("type")).toString());
            QCOMPARE(f.userLocation.file, path);
            QCOMPARE(f.userLocation.line, expected.value(QLatin1String("line")).toInt());
            QVERIFY(!f.libraryLocation.isValid()); // the user's own code
            QVERIFY(!f.stack.isEmpty());
            QCOMPARE(f.stack[0], f.userLocation);
            if (f.kind == QLatin1String("data-dependent")) {
                // export's words (Eq(u0, 0)) and the user's (the if's condition on that line, as torch quotes it).
                QCOMPARE(f.guard, expected.value(QLatin1String("guard")).toString());
                const QString source = expected.value(QLatin1String("source")).toString();
                QCOMPARE(f.userText, source);
                QVERIFY2(
                    source.startsWith(QLatin1String("if ")) && source.endsWith(QLatin1Char(':')), qPrintable(source));
                QCOMPARE(f.expression, source.mid(3).chopped(1));
                QVERIFY2(!f.suggestedFix.isEmpty(), "export's own advice");
            } else {
                // A dimension that cannot be dynamic: which, the constant, and the guard that specialized it.
                const int value = expected.value(QLatin1String("value")).toInt();
                QCOMPARE(f.expression, QStringLiteral("x.size(0)"));
                QVERIFY2(f.message.endsWith(QStringLiteral("specialized it to %1").arg(value)), qPrintable(f.message));
                QVERIFY2(f.guard.startsWith(QStringLiteral("x.size(0) == %1").arg(value)), qPrintable(f.guard));
            }
            QVERIFY(e.sets.isEmpty());
            // A dimension the code specialized: the program Dim.AUTO exports instead is saved (with the run's
            // archives), for the window's Export tab and Compare; a data-dependent failure has no program.
            if (f.kind == QLatin1String("data-dependent"))
                QVERIFY(e.program.isEmpty());
            else
                QVERIFY2(!e.program.isEmpty() && QFileInfo(QDir(run.folder).filePath(e.program)).isFile(),
                    qPrintable(e.program + e.programError));
        } else {
            QStringList statuses;
            for (const ExportSetRow& row : e.sets)
                statuses << row.status;
            QStringList expectedStatuses;
            for (const QJsonValue& v : expected.value(QLatin1String("sets")).toArray())
                expectedStatuses << v.toString();
            QCOMPARE(statuses, expectedStatuses);
            // The rows of x made dynamic (export's 0/1 specialization leaves them 2 and more).
            QVERIFY(!e.ranges.isEmpty());
            QCOMPARE(e.ranges[0].name, QStringLiteral("x.size(0)"));
            QVERIFY2(e.ranges[0].text.endsWith(QLatin1String(" in 2..inf")), qPrintable(e.ranges[0].text));
            QCOMPARE(e.program, QStringLiteral("export_0.pt2"));
            QVERIFY(QFileInfo::exists(run.folder + QStringLiteral("/export_0.pt2")));
        }

        // The table: each set's trace beside its export, the trace column the check's own.
        const CheckReport report = checkRecordedCall(run, call);
        QCOMPARE(report.exported.sets.size(), report.traces.size());
        for (int k = 0; k < report.traces.size(); ++k) {
            const ExportSetRow& row = report.exported.sets[k];
            QCOMPARE(row.set, k + 1);
            const QString trace = k == 0                    ? QStringLiteral("reference")
                : report.status(k) == TraceStatus::Same     ? QStringLiteral("passes")
                : report.status(k) == TraceStatus::Failed   ? QStringLiteral("fails")
                : report.status(k) == TraceStatus::Diverged ? QStringLiteral("graphs differ")
                                                            : QStringLiteral("outputs differ");
            QCOMPARE(row.trace, trace);
        }
        if (file == QLatin1String("export_passes.py")) {
            // PyTorch's own check fails the trace on the other sets (s.item() baked); the export passes them all.
            QVERIFY(call.checked && !call.checkPassed);
            QVERIFY(!report.consistent);
            QCOMPARE(report.status(1), TraceStatus::Diverged); // each trace bakes its own s.item()
            QCOMPARE(report.exported.summary(), QStringLiteral("the export passes all 3 sets"));
        }
    }

    /// Exporting beside the trace leaves the file's model and random state as the trace left them: the file prints
    /// the same BatchNorm statistics, training flags and next random numbers with and without it.
    void exportLeavesTheModelAsTheTraceLeftIt()
    {
        const PythonRun plain = runExported(QStringLiteral("export_state.py"), false);
        const PythonRun exported = runExported(QStringLiteral("export_state.py"));
        QVERIFY2(plain.ok && exported.ok, qPrintable(plain.stderrText + exported.stderrText));
        QVERIFY(!plain.calls.value(0).exported.requested);
        QCOMPARE(exported.calls.value(0).exported.status, QStringLiteral("exported"));
        QVERIFY(plain.stdoutText.contains(QLatin1String("running_mean")));
        QCOMPARE(exported.stdoutText, plain.stdoutText);
    }

    /// torch 1.13 (Debian's python3-torch) has no torch.export: the call is recorded as ever and its export skipped,
    /// said plainly.
    void olderTorchIsSaidPlainly()
    {
        const QString python = QStringLiteral("/usr/bin/python3");
        QProcess probe;
        probe.start(python,
            { QStringLiteral("-c"),
                QStringLiteral("import torch; print(torch.__version__, "
                               "hasattr(torch, 'export'))") });
        if (!probe.waitForFinished(60000) || probe.exitCode() != 0)
            QSKIP("no /usr/bin/python3 with torch (Debian's python3-torch)");
        const QStringList words = QString::fromUtf8(probe.readAllStandardOutput()).split(QLatin1Char(' '));
        if (!words.value(0).startsWith(QLatin1String("1.")))
            QSKIP("/usr/bin/python3's torch is not older than 2.5");
        QCOMPARE(words.value(1).trimmed(), QStringLiteral("False")); // the oracle: that torch has no torch.export
        const PythonRun run = runExported(QStringLiteral("export_passes.py"), true, python);
        QVERIFY2(run.ok, qPrintable(run.error.toString() + run.stderrText));
        QCOMPARE(run.calls.size(), 1);
        QVERIFY(!run.calls[0].traces.isEmpty()); // the trace is recorded as ever
        const ExportReport& e = run.calls[0].exported;
        QCOMPARE(e.status, QStringLiteral("skipped"));
        QCOMPARE(e.reason,
            QStringLiteral("torch.export needs torch 2.5 or later; this Python has torch %1").arg(words.value(0)));
        QCOMPARE(e.summary(), QStringLiteral("export skipped: ") + e.reason);
    }
};

QTEST_GUILESS_MAIN(TestPythonExport)
#include "tst_pythonexport.moc"
