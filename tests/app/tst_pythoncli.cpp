// jitscope-cli --python as a user runs it on their own export script: the recorded calls, the check of each
// trace call with its causes at the user's lines, and the failures of the file itself.

#include "clitest.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

using namespace jitscope::test;

namespace {

using Run = CliRun;

QString py(const char* name)
{
    return dataDir() + QStringLiteral("/python/") + QLatin1String(name);
}

bool writeText(const QString& path, const QString& text)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text.toUtf8()) >= 0;
}

/// The text of `check` or `trace` with --python after its first line, which names the interpreter ("python: PATH
/// (torch X, chosen as ...)", and a blank line after it for check; "# python: ..." for trace). Empty when the first
/// line is not that.
QString afterHeader(const QString& out)
{
    if (!out.startsWith(QLatin1String("python: ")) && !out.startsWith(QLatin1String("# python: ")))
        return {};
    const QString rest = out.mid(out.indexOf(QLatin1Char('\n')) + 1);
    return out.startsWith(QLatin1Char('#')) ? rest : rest.mid(1);
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
        QVERIFY2(afterHeader(r.out).startsWith(
                     QLatin1String("check line 43: torch.jit.trace(MyModule.forward): 2 input set(s)\n"
                                   "  trace 1: f32[3,4]  (21 nodes)\n  trace 2: f32[4,4]  (27 nodes)\n")),
            qPrintable(r.out));
        QVERIFY2(r.out.contains(QLatin1String("  [loop-unrolled] loop at line 18 (`for i in range(x.size(0)):`) "
                                              "unrolled 3 times in trace 1 but 4 times in trace 2")),
            qPrintable(r.out));
        QVERIFY(r.out.contains(QLatin1String("export_module.py:18\n    18 |         for i in range(x.size(0)):\n")));
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
        // Each call's document has the shape of the built-in check's (docs/check-json.md), the call under "call".
        for (const QJsonValue& report : reports) {
            QCOMPARE(report.toObject().value("version").toInt(), 1);
            for (const char* field : { "file", "function", "traces", "script", "diffs", "outputs", "warnings" })
                QVERIFY2(report.toObject().contains(QLatin1String(field)), field);
        }
        const QJsonObject fill = reports[0].toObject();
        const QJsonObject fillCall = fill.value("call").toObject();
        QCOMPARE(fillCall.value("target").toString(), QStringLiteral("fill_row_zero"));
        QCOMPARE(fillCall.value("line").toInt(), 14);
        QCOMPARE(fill.value("function").toString(), QStringLiteral("fill_row_zero"));
        // One input set: the graphs have nothing to differ from, but PyTorch's check failed (rand() differs), and
        // every field says what the report concludes.
        QCOMPARE(fill.value("diffs").toArray().size(), 0);
        QCOMPARE(fillCall.value("pytorch_check").toObject().value("passed").toBool(), false);
        QCOMPARE(fill.value("verdict").toString(), QStringLiteral("diverged"));
        const QJsonObject count = reports[1].toObject();
        const QJsonObject change
            = count.value("diffs").toArray()[0].toObject().value("changes").toArray()[0].toObject();
        QCOMPARE(change.value("line").toInt(), 11);
        QVERIFY(change.value("cause").toString().startsWith(QLatin1String("`len()` of a tensor at line 11 (")));
        QCOMPARE(change.value("kind").toString(), QStringLiteral("number-baked"));
        // The same divergences as the built-in check's JSON: the baked len() with its evidence, then where the
        // values part ways on set 2 (trace 1's arange with the baked 1, Python's with 2).
        const QJsonArray divergences = count.value("diffs").toArray()[0].toObject().value("divergences").toArray();
        QCOMPARE(divergences.size(), 2);
        QCOMPARE(divergences[1].toObject().value("kind").toString(), QStringLiteral("value"));
        QCOMPARE(divergences[1].toObject().value("line").toInt(), 11);
        QVERIFY(divergences[1]
                    .toObject()
                    .value("evidence")
                    .toArray()
                    .contains(QStringLiteral("operand 0 (constant): 1 in the trace, 2 in Python")));
        QCOMPARE(divergences[0].toObject().value("line").toInt(), 11);
        QVERIFY(divergences[0]
                    .toObject()
                    .value("evidence")
                    .toArray()
                    .contains(QStringLiteral("baked 1 in trace 1, 2 in trace 2: x.size(0) of each trace's inputs")));
        QCOMPARE(count.value("traces").toArray().size(), 2);
    }

    /// `check --python --export`: the export's finding and table in every format, from the one report. A branch on
    /// data fails the export at the line torch names (tst_pythonexport holds the record to real torch); the program
    /// of a function the trace gets wrong passes every set.
    void checkWithExportInEveryFormat()
    {
        const QString branch = dataDir() + QStringLiteral("/python/export/export_branch.py");
        const Run text = runCli({ "check", branch, "--python", "--export" });
        QCOMPARE(text.code, 0); // the exit status is the trace check's (consistent here), not the export's
        QVERIFY2(text.out.contains(QLatin1String("\nexport (torch.export, torch ")), qPrintable(text.out));
        QVERIFY2(text.out.contains(
                     QLatin1String("  [data-dependent] Could not guard on data-dependent expression Eq(u0, 0)")),
            qPrintable(text.out));
        QVERIFY2(
            text.out.contains(QLatin1String("    9 | if bright.numel() == 0:\n    expression: bright.numel() == 0\n")),
            qPrintable(text.out));
        QVERIFY2(text.out.contains(QLatin1String("\nexport: export failed (data-dependent) at export_branch.py:9: ")),
            qPrintable(text.out));
        QVERIFY2(text.out.contains(QLatin1String("    1  reference       -\n")), qPrintable(text.out));

        const Run json = runCli({ "check", branch, "--python", "--export", "--format", "json" });
        const QJsonObject report = QJsonDocument::fromJson(json.out.toUtf8()).array()[0].toObject();
        const QJsonObject e = report.value("export").toObject();
        for (const char* field : { "status", "torch", "summary", "dynamic", "dynamic_by", "findings", "draft", "ranges",
                 "specializations", "sets" })
            QVERIFY2(e.contains(QLatin1String(field)), field);
        QCOMPARE(e.value("status").toString(), QStringLiteral("failed"));
        const QJsonObject finding = e.value("findings").toArray()[0].toObject();
        QCOMPARE(finding.value("kind").toString(), QStringLiteral("data-dependent"));
        QCOMPARE(finding.value("expression").toString(), QStringLiteral("bright.numel() == 0"));
        QCOMPARE(finding.value("guard").toString(), QStringLiteral("Eq(u0, 0)"));
        QCOMPARE(finding.value("user").toObject().value("line").toInt(), 9);
        QVERIFY(finding.value("library").isNull());
        QCOMPARE(e.value("sets").toArray().size(), 2);
        QCOMPARE(e.value("sets").toArray()[1].toObject().value("export").toString(), QString());

        const Run junit = runCli({ "check", branch, "--python", "--export", "--format", "junit" });
        QVERIFY2(junit.out.contains(QLatin1String("name=\"torch.export\"")), qPrintable(junit.out));
        QVERIFY2(junit.out.contains(QLatin1String("type=\"export\"")), qPrintable(junit.out));
        const Run markdown = runCli({ "check", branch, "--python", "--export", "--format", "markdown" });
        QVERIFY2(markdown.out.contains(QLatin1String("**Export** (torch ")), qPrintable(markdown.out));
        QVERIFY2(markdown.out.contains(QLatin1String("export_branch.py:9: `bright.numel() == 0`")),
            qPrintable(markdown.out));
        const Run html = runCli({ "check", branch, "--python", "--export", "--format", "html" });
        QVERIFY2(html.out.contains(QLatin1String("<h2>Export</h2>")), qPrintable(html.out.left(2000)));
        QVERIFY2(html.out.contains(QLatin1String("<code>bright.numel() == 0</code>")), qPrintable(html.out.left(2000)));

        // The trace bakes s.item() (another constant in each set's graph), the export passes all three: one glance.
        const QString passes = dataDir() + QStringLiteral("/python/export/export_passes.py");
        const Run table = runCli({ "check", passes, "--python", "--export", "--format", "json" });
        const QJsonArray sets = QJsonDocument::fromJson(table.out.toUtf8())
                                    .array()[0]
                                    .toObject()
                                    .value("export")
                                    .toObject()
                                    .value("sets")
                                    .toArray();
        QStringList rows;
        for (const QJsonValue& row : sets)
            rows << row.toObject().value("trace").toString() + QLatin1Char('/')
                    + row.toObject().value("export").toString();
        QCOMPARE(rows.join(QLatin1Char(' ')),
            QStringLiteral("reference/passes graphs differ/passes graphs differ/passes"));
        const Run passesJunit = runCli({ "check", passes, "--python", "--export", "--format", "junit" });
        QVERIFY2(passesJunit.out.contains(QLatin1String("name=\"torch.export, set 3\"")), qPrintable(passesJunit.out));

        // Without --export, nothing of it.
        const Run plain = runCli({ "check", passes, "--python", "--format", "json" });
        QVERIFY(!QJsonDocument::fromJson(plain.out.toUtf8()).array()[0].toObject().contains(QLatin1String("export")));
    }

    /// The CI reports of a file's recorded trace calls: one JUnit testsuite per call, one Markdown summary and one
    /// HTML page covering every call (JitScope's own output as golden files; paths relative to the source tree).
    void checkReportGoldens_data()
    {
        QTest::addColumn<QString>("golden");
        QTest::addColumn<QStringList>("options");
        QTest::addRow("junit") << "report_model.check.junit.xml" << QStringList { "--format", "junit" };
        QTest::addRow("markdown") << "report_model.check.md"
                                  << QStringList { "--format", "markdown", "--html-link",
                                         "https://ci.example/artifacts/report.html" };
        QTest::addRow("html") << "report_model.check.html" << QStringList { "--format", "html" };
    }

    void checkReportGoldens()
    {
        QFETCH(QString, golden);
        QFETCH(QStringList, options);
        const Run r = runCli(QStringList { "check", py("report_model.py"), "--python" } + options);
        QCOMPARE(r.code, 1); // the second call diverges
        QString out = r.out;
        out.replace(QStringLiteral(JITSCOPE_SOURCE_DIR "/"), QString());
        // The interpreter is the machine's (and the shell's: an active virtual environment's).
        out.replace(QRegularExpression(QStringLiteral("Run with <code>[^<]*</code>")),
            QStringLiteral("Run with <code>PYTHON</code>"));
        const QString path = dataDir() + QStringLiteral("/cli/") + golden;
        QVERIFY2(
            matchesGolden(out, readText(path), path), qPrintable(QStringLiteral("diff -u %1 %1.actual").arg(path)));
    }

    void checkReportJunitCountsEveryCall()
    {
        const Run r = runCli({ "check", py("report_model.py"), "--python", "--format", "junit" });
        QCOMPARE(r.code, 1);
        QCOMPARE(r.out.count(QLatin1String("<testsuite ")), 2);
        QCOMPARE(r.out.count(QLatin1String("<testcase ")), 4);
        QCOMPARE(r.out.count(QLatin1String("<failure ")), 1);
        QVERIFY(r.out.contains(QLatin1String("<testsuites name=\"jitscope check\" tests=\"4\" failures=\"1\">")));
        QVERIFY(r.out.contains(QLatin1String("unrolled 2 times in trace 1 but 3 times in trace 2")));
        // A file without any trace call has nothing to report: an error, not an empty report.
        const Run none = runCli({ "check", py("exits.py"), "--python", "--format", "junit" });
        QCOMPARE(none.code, 2);
        QVERIFY(none.out.isEmpty());
    }

    /// The page renders in headless Chromium: an inline SVG per trace shown (trace 1 of the consistent call, both
    /// traces of the diverging one), the source with the loop's line, no console error, nothing from elsewhere.
    void checkReportHtmlRendersInChromium()
    {
        QTemporaryDir dir;
        const QString page = dir.filePath(QStringLiteral("report.html"));
        const Run r = runCli({ "check", py("report_model.py"), "--python", "--format", "html", "-o", page });
        QCOMPARE(r.code, 1);
        QVERIFY(r.out.isEmpty());
        const RenderedPage rendered = renderReport(page, dir.filePath(QStringLiteral("profile")));
        QVERIFY2(rendered.error.isEmpty(), qPrintable(rendered.error));
        const QString& dom = rendered.dom;
        QCOMPARE(dom.count(QLatin1String("<svg")), 3);
        QCOMPARE(dom.count(QLatin1String("<section id=\"check")), 2);
        QVERIFY(dom.contains(QLatin1String("class=\"node cat-")) && dom.contains(QLatin1String(" inserted\"")));
        QVERIFY(dom.contains(QLatin1String("<a href=\"#L22\">line 22</a>")));
        QVERIFY(dom.contains(QLatin1String("id=\"L22\"")));
        // The outputs PyTorch's check compares: set 2 of each call, 5x4 and 3x4 elements.
        QVERIFY(dom.contains(QLatin1String("<td>match (20 elements)</td>")));
        QVERIFY(dom.contains(QLatin1String("<td>match (12 elements)</td>")));
    }

    /// graph --python: every recorded call's graph as PyTorch prints it, one by --call, a script graph by --fn, in
    /// each of graph's formats.
    void graphShowsRecordedGraphs()
    {
        const Run all = runCli({ "graph", py("report_model.py"), "--python" });
        QCOMPARE(all.code, 0);
        QVERIFY2(all.out.startsWith(QLatin1String("# line 26: torch.jit.trace(scale_rows)\ngraph(%x : Float(3, 4")),
            qPrintable(all.out));
        QVERIFY(all.out.contains(QLatin1String("  %2 : int = aten::size(%x, %1)")));
        const int second = all.out.indexOf(QLatin1String("# line 28: torch.jit.trace(Stack.forward)\n"));
        QVERIFY(second > 0);
        // The example inputs' trace of the call whose check failed: two iterations of the loop.
        QCOMPARE(all.out.mid(second).count(QLatin1String("aten::relu(")), 2);

        const Run one = runCli({ "graph", py("report_model.py"), "--python", "--call", "2" });
        QCOMPARE(one.code, 0);
        QCOMPARE(one.out, all.out.mid(second));

        const Run script = runCli({ "graph", py("export_module.py"), "--python", "--fn", "MyModule.another_forward" });
        QCOMPARE(script.code, 0);
        QVERIFY2(script.out.startsWith(QLatin1String("graph(%self : __torch__.MyModule,\n      %x.1 : Tensor):\n")),
            qPrintable(script.out));
        QVERIFY(script.out.contains(QLatin1String("prim::CallMethod[name=\"helper\"](%self, %x.1)")));

        const Run json = runCli({ "graph", py("report_model.py"), "--python", "--format", "json" });
        QCOMPARE(json.code, 0);
        const QJsonArray graphs = QJsonDocument::fromJson(json.out.toUtf8()).array();
        QCOMPARE(graphs.size(), 2);
        QCOMPARE(
            graphs[1].toObject().value("title").toString(), QStringLiteral("line 28: torch.jit.trace(Stack.forward)"));
        QVERIFY(graphs[1].toObject().value("graph").toObject().value("nodes").toArray().size() >= 5);

        const Run dot = runCli({ "graph", py("report_model.py"), "--python", "--format", "dot" });
        QCOMPARE(dot.code, 0);
        QCOMPARE(dot.out.count(QLatin1String("digraph")), 2);
        const Run svg = runCli({ "graph", py("report_model.py"), "--python", "--call", "1", "--format", "svg" });
        QCOMPARE(svg.code, 0);
        QCOMPARE(svg.out.count(QLatin1String("<svg")), 1);
        QVERIFY(svg.out.contains(QLatin1String("aten::size")) || svg.out.contains(QLatin1String("size")));
    }

    /// --fn NAME --inputs SET ...: real torch.jit.trace on those sets, after the file ran.
    void traceAndCheckRequestedSets()
    {
        const Run trace = runCli({ "trace", py("report_model.py"), "--python", "--fn", "Stack.forward", "--inputs",
            "f32[2,4]", "--inputs", "f32[3,4]" });
        QCOMPARE(trace.code, 0);
        const int second = trace.out.indexOf(QLatin1String("# trace 2: f32[3,4]\n"));
        QVERIFY2(afterHeader(trace.out).startsWith(QLatin1String("# trace 1: f32[2,4]\ngraph(%self : ")) && second > 0,
            qPrintable(trace.out));
        QCOMPARE(trace.out.left(second).count(QLatin1String("aten::relu(")), 2);
        QCOMPARE(trace.out.mid(second).count(QLatin1String("aten::relu(")), 3);
        QVERIFY(trace.out.mid(second).contains(QLatin1String("Float(3, 4, strides=[4, 1]")));

        const Run diverged = runCli({ "check", py("report_model.py"), "--python", "--fn", "Stack.forward", "--inputs",
            "f32[2,4]", "--inputs", "f32[3,4]" });
        QCOMPARE(diverged.code, 1);
        QVERIFY2(afterHeader(diverged.out)
                     .startsWith(QLatin1String("check torch.jit.trace(Stack.forward) on --inputs: 2 input "
                                               "set(s)\n  trace 1: f32[2,4]  (5 nodes)\n  trace 2: f32[3,4]  "
                                               "(7 nodes)\n")),
            qPrintable(diverged.out));
        QVERIFY(diverged.out.contains(QLatin1String("[loop-unrolled] loop at line 21 (`for i in range(x.size(0)):`) "
                                                    "unrolled 2 times in trace 1 but 3 times in trace 2")));
        QVERIFY(diverged.out.contains(QLatin1String("PyTorch's check: Tracing failed sanity checks!")));

        // A fresh instance when the file made none; sizes recorded, not baked: the same graph for every batch.
        const Run consistent = runCli({ "check", py("report_model.py"), "--python", "--fn", "scale_rows", "--inputs",
            "f32[2,4]", "--inputs", "f32[7,4]", "--format", "json" });
        QCOMPARE(consistent.code, 0);
        const QJsonObject report = QJsonDocument::fromJson(consistent.out.toUtf8()).array()[0].toObject();
        QCOMPARE(report.value("verdict").toString(), QStringLiteral("consistent"));
        QCOMPARE(report.value("traces").toArray()[1].toObject().value("inputs").toString(), QStringLiteral("f32[7,4]"));

        // Without --inputs: the file's own `inputs` and `check_inputs`, as they are.
        const Run own = runCli({ "trace", QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py"),
            "--python", "--fn", "loop_in_traced_fn" });
        QCOMPARE(own.code, 0);
        QVERIFY(own.out.contains(QLatin1String("# trace 3: f32[2,3,4]\n")));
    }

    /// `trace --format json` has one document shape (docs/trace-json.md) for every route: JitScope's own trace of a
    /// .py function, PyTorch's trace of it with --python --fn, and the file's own calls with --python alone.
    void traceJsonIsOneShape()
    {
        const QString example = QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
        const Run builtIn
            = runCli({ "trace", example, "--inputs", "f32[3,4]", "--inputs", "f32[2,4]", "--format", "json" });
        QCOMPARE(builtIn.code, 0);
        const Run python = runCli({ "trace", example, "--python", "--fn", "loop_in_traced_fn", "--inputs", "f32[3,4]",
            "--inputs", "f32[2,4]", "--format", "json" });
        QCOMPARE(python.code, 0);
        const QJsonObject ours = QJsonDocument::fromJson(builtIn.out.toUtf8()).object();
        const QJsonObject pytorch = QJsonDocument::fromJson(python.out.toUtf8()).object();
        const QStringList documentKeys { "file", "flattened", "function", "traces", "version" };
        QCOMPARE(ours.keys(), documentKeys);
        QCOMPARE(pytorch.keys(), documentKeys);
        for (const QJsonObject& o : { ours, pytorch }) {
            QCOMPARE(o.value("version").toInt(), 1);
            QCOMPARE(o.value("function").toString(), QStringLiteral("loop_in_traced_fn"));
            QVERIFY(o.value("file").toString().endsWith(QLatin1String("loop_in_traced_fn.py")));
        }
        // Each trace: the same fields, the graph as IrGraph's JSON and its text, which both routes record alike.
        const QStringList traceKeys { "graph", "inputs", "nodes", "note", "ok", "text", "warnings" };
        const QJsonArray ourTraces = ours.value("traces").toArray();
        const QJsonArray pytorchTraces = pytorch.value("traces").toArray();
        QCOMPARE(ourTraces.size(), 2);
        QCOMPARE(pytorchTraces.size(), 2);
        for (int k = 0; k < 2; ++k) {
            const QJsonObject a = ourTraces[k].toObject(), b = pytorchTraces[k].toObject();
            for (const QString& key : traceKeys) {
                QVERIFY2(a.contains(key), qPrintable(key));
                QVERIFY2(b.contains(key), qPrintable(key));
            }
            QCOMPARE(a.value("inputs").toString(), b.value("inputs").toString());
            QVERIFY(a.value("ok").toBool() && b.value("ok").toBool());
            QVERIFY(a.value("graph").toObject().value("nodes").toArray().size() > 0);
            QVERIFY(b.value("graph").toObject().value("nodes").toArray().size() > 0);
            QCOMPARE(a.value("nodes").toInt(), a.value("graph").toObject().value("node_table").toArray().size());
            QVERIFY(a.value("text").toString().startsWith(QLatin1String("graph(")));
            QVERIFY(b.value("text").toString().startsWith(QLatin1String("graph(")));
        }

        // The file's own calls: each call with its traces in the same shape.
        const Run calls = runCli({ "trace", py("python_only.py"), "--python", "--format", "json" });
        QCOMPARE(calls.code, 0);
        const QJsonObject listing = QJsonDocument::fromJson(calls.out.toUtf8()).object();
        QCOMPARE(listing.keys(), (QStringList { "calls", "file", "version" }));
        QCOMPARE(listing.value("version").toInt(), 1);
        const QJsonArray recorded = listing.value("calls").toArray();
        QVERIFY(recorded.size() >= 2);
        QCOMPARE(recorded[0].toObject().value("function").toString(), QStringLiteral("fill_row_zero"));
        bool sawTrace = false;
        for (const QJsonValue& call : recorded)
            for (const QJsonValue& trace : call.toObject().value("traces").toArray()) {
                const QJsonObject t = trace.toObject();
                for (const QString& key : { "inputs", "ok", "note", "nodes", "warnings" })
                    QVERIFY2(t.contains(key), qPrintable(key));
                if (t.value("ok").toBool()) {
                    sawTrace = true;
                    QVERIFY(t.value("graph").isObject());
                    QVERIFY(t.value("text").toString().startsWith(QLatin1String("graph(")));
                } else {
                    QVERIFY(t.value("error").isObject());
                }
            }
        QVERIFY(sawTrace);
    }

    /// run --python makes the inputs as JitScope's executor does: the same numbers, so the same result.
    void runMatchesTheBuiltInExecutor_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addRow("rand") << "f32[3,4]";
        QTest::addRow("randn, seed") << "f64[5,2]=randn";
        QTest::addRow("arange") << "i64[4,3]=arange";
    }

    void runMatchesTheBuiltInExecutor()
    {
        QFETCH(QString, set);
        const QString example = QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
        const Run builtIn = runCli({ "run", example, "--inputs", set, "--seed", "7" });
        const Run python
            = runCli({ "run", example, "--python", "--fn", "loop_in_traced_fn", "--inputs", set, "--seed", "7" });
        QCOMPARE(builtIn.code, 0);
        QCOMPARE(python.code, 0);
        const QString returned = builtIn.out.section(QLatin1Char('\n'), -2, -2);
        QVERIFY2(returned.startsWith(QLatin1String("returned: ")), qPrintable(builtIn.out));
        QCOMPARE(python.out.section(QLatin1Char('\n'), -2, -2), returned);
        QVERIFY(python.out.startsWith(QStringLiteral("run %1 loop_in_traced_fn: %2  (Python)\n").arg(example, set)));
    }

    /// A forward taking a list of dicts (detectron2's inputs): traced through an adapter that takes the tensors
    /// flat and rebuilds the structure; traces, inputs and outputs are shown in the user's structure.
    void dictInputsAreFlattenedForTheTracer()
    {
        const QString one = QStringLiteral("[{image: f32[3,8,8], height: 8}]");
        const QString two = QStringLiteral("[{image: f32[3,8,8], height: 8}, {'image': f32[3,6,6], height: 12}]");
        const Run trace = runCli({ "trace", py("dict_inputs.py"), "--python", "--fn", "Detector.forward", "--inputs",
            one, "--inputs", two });
        QCOMPARE(trace.code, 0);
        QVERIFY2(afterHeader(trace.out).startsWith(
                     QLatin1String("# traced through an adapter taking the tensors of the inputs "
                                   "flat, as detectron2's TracingAdapter: [0][0]['image']\n"
                                   "# trace 1: [{image: f32[3,8,8], height: 8}]\n")),
            qPrintable(trace.out));
        const int second = trace.out.indexOf(
            QLatin1String("# trace 2: [{image: f32[3,8,8], height: 8},{image: f32[3,6,6], height: 12}]\n"));
        QVERIFY(second > 0);
        // The model's own ops (the adapter's call inlined), once per dict of the list; each image a graph input.
        QCOMPARE(trace.out.left(second).count(QLatin1String("aten::_convolution(")), 1);
        QCOMPARE(trace.out.mid(second).count(QLatin1String("aten::_convolution(")), 2);
        QVERIFY(trace.out.mid(second).contains(QLatin1String("Float(3, 6, 6, strides=[36, 6, 1]")));
        QVERIFY(trace.out.contains(QRegularExpression(
            QStringLiteral("\n# returned: \\[\\{scores: float32\\[1,2\\] sum=[-0-9.e]+, height: 8\\}, "
                           "\\{scores: float32\\[1,2\\] sum=[-0-9.e]+, height: 12\\}\\]\n"))));

        const Run check = runCli({ "check", py("dict_inputs.py"), "--python", "--fn", "Detector.forward", "--inputs",
            one, "--inputs", two, "--verbose" });
        QCOMPARE(check.code, 1);
        QVERIFY(check.out.contains(QLatin1String("[loop-unrolled] loop at line 14 (`for item in batched_inputs:`) "
                                                 "unrolled 1 times in trace 1 but 2 times in trace 2")));
        // The height is baked into the trace as a constant, as PyTorch bakes any Python number.
        QVERIFY(check.out.contains(QLatin1String("prim::Constant[value={12}]()")));

        const Run same = runCli({ "check", py("dict_inputs.py"), "--python", "--fn", "Detector.forward", "--inputs",
            one, "--inputs", "[{image: f32[3,5,5], height: 8}]" });
        QCOMPARE(same.code, 0);
        QVERIFY(same.out.contains(QLatin1String("PyTorch's check: passed\nverdict: consistent\n")));

        const Run run
            = runCli({ "run", py("dict_inputs.py"), "--python", "--fn", "Detector.forward", "--inputs", one });
        QCOMPARE(run.code, 0);
        QVERIFY2(run.out.contains(QRegularExpression(
                     QStringLiteral("\nreturned: \\[\\{scores: float32\\[1,2\\] sum=[-0-9.e]+, height: 8\\}\\]\n$"))),
            qPrintable(run.out));

        // JitScope's own executor does not take dicts, and says what to do instead.
        const Run builtIn = runCli(
            { "run", QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py"), "--inputs", "{x: f32[2]}" });
        QCOMPARE(builtIn.code, 2);
        QVERIFY2(builtIn.err.contains(QLatin1String("JitScope's executor takes no dict inputs ({key: value}); trace "
                                                    "the file under PyTorch with --python")),
            qPrintable(builtIn.err));
    }

    /// torchvision's traced helpers (issue 21): box ops with their _is_tracing() branch, the box coder, the anchor
    /// generator, resize_boxes, batch_images, batched_nms's coordinate trick, generalized_box_iou and expand_masks.
    /// JitScope's own trace of every recorded call equals PyTorch's; batch_images's traces differ between its sets
    /// (the check says so, exit 1).
    void selfCheckOfTorchvisionHelpers()
    {
        const Run r = runCli(
            { "check", dataDir() + QStringLiteral("/library/torchvision_helpers.py"), "--python", "--self-check" });
        QCOMPARE(r.code, 1);
        QVERIFY2(!r.out.contains(QLatin1String("JitScope defect")), qPrintable(r.out));
        QVERIFY2(!r.out.contains(QLatin1String("not compared")), qPrintable(r.out));
        QCOMPARE(r.out.count(QLatin1String("self-check: JitScope's own trace equals PyTorch's node for node")), 12);
        QVERIFY(r.out.contains(QLatin1String("torch.jit.trace(clip_boxes_to_image): 2 input set(s)")));
        QVERIFY(r.out.contains(QLatin1String("torch.jit.trace(batch_images): 2 input set(s)")));
    }

    /// --self-check: JitScope's own tracer against torch.jit.trace on the same inputs; a difference is a JitScope
    /// defect (exit status 3) naming the first differing node. self_check.py holds a known difference.
    void selfCheckComparesJitScopesOwnTrace()
    {
        const Run r = runCli({ "check", py("self_check.py"), "--python", "--self-check" });
        QCOMPARE(r.code, 3);
        QVERIFY2(r.out.contains(QLatin1String("check line 18: torch.jit.trace(scale_rows): 2 input set(s)\n")),
            qPrintable(r.out));
        QVERIFY(r.out.contains(
            QLatin1String("verdict: consistent\nself-check: JitScope's own trace equals PyTorch's node for node on 2 "
                          "set(s)\n")));
        QVERIFY(r.out.contains(QLatin1String(
            "self-check: JitScope defect: its own trace differs from PyTorch's on set 1 (f32[3]); the first "
            "differing node:\n      JitScope: %1 : Long(requires_grad=0, device=cpu) = prim::Constant[value={1}]()\n"
            "      PyTorch:  %1 : Bool(requires_grad=0, device=cpu) = prim::Constant[value={1}]()\n")));

        const Run json = runCli({ "check", py("self_check.py"), "--python", "--self-check", "--format", "json" });
        QCOMPARE(json.code, 3);
        const QJsonArray reports = QJsonDocument::fromJson(json.out.toUtf8()).array();
        QCOMPARE(reports.size(), 2);
        QCOMPARE(
            reports[0].toObject().value("self_check").toObject().value("status").toString(), QStringLiteral("agrees"));
        const QJsonObject defect = reports[1].toObject().value("self_check").toObject();
        QCOMPARE(defect.value("status").toString(), QStringLiteral("defect"));
        const QJsonObject first = defect.value("first_difference").toObject();
        QCOMPARE(first.value("set").toInt(), 1);
        QCOMPARE(first.value("in").toString(), QStringLiteral("node"));
        QVERIFY(first.value("pytorch").toString().contains(
            QLatin1String("Bool(requires_grad=0, device=cpu) = prim::Constant")));

        // Without --self-check the same file is consistent; classes and Python-only code are not compared.
        QCOMPARE(runCli({ "check", py("self_check.py"), "--python" }).code, 0);
        const Run module = runCli({ "check", py("report_model.py"), "--python", "--self-check" });
        QCOMPARE(module.code, 1);
        QVERIFY(module.out.contains(QLatin1String("line 26: torch.jit.trace(scale_rows)")));
        QVERIFY(module.out.contains(
            QLatin1String("self-check: not compared: JitScope's front end compiles no classes of a .py file\n")));
        const Run pythonOnly = runCli({ "check", py("python_only.py"), "--python", "--self-check" });
        QCOMPARE(pythonOnly.code, 1);
        QVERIFY(pythonOnly.out.contains(
            QLatin1String("self-check: not compared: fill_row_zero does not compile as TorchScript: ")));
        QVERIFY(pythonOnly.out.contains(
            QLatin1String("self-check: JitScope's own trace equals PyTorch's node for node on 2 set(s)\n")));

        const Run junit = runCli({ "check", py("self_check.py"), "--python", "--self-check", "--format", "junit" });
        QCOMPARE(junit.code, 2);
        QVERIFY(
            junit.err.contains(QLatin1String("--self-check is an option of check --python, reported as text or json")));
    }

    /// A long job (here: Python running the file) shows a progress line on stderr when stderr is a terminal (a
    /// pty, through script(1)), is silent with --quiet, and never writes one into a pipe.
    void progressOnlyOnATerminal()
    {
        auto onTerminal = [](const QStringList& extra) {
            // stdout goes to /dev/null inside the pty; what script(1) prints is what stderr drew.
            QString command = QStringLiteral("'" JITSCOPE_BIN_DIR "/jitscope-cli' list '%1' --python %2 >/dev/null")
                                  .arg(py("report_model.py"), extra.join(QLatin1Char(' ')));
            QProcess p;
            p.start(QStringLiteral("script"), { "-qec", command, "/dev/null" });
            p.waitForFinished(120000);
            return std::make_pair(p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()));
        };
        const auto [code, drawn] = onTerminal({});
        QCOMPARE(code, 0);
        QVERIFY2(drawn.contains(QLatin1String("\r\x1b[Kjitscope-cli: | running report_model.py under PyTorch (")),
            qPrintable(drawn));
        QVERIFY(drawn.endsWith(QLatin1String("\r\x1b[K"))); // the line is cleared when the job ends

        const auto [quietCode, quiet] = onTerminal({ "--quiet" });
        QCOMPARE(quietCode, 0);
        QVERIFY2(
            !quiet.contains(QLatin1String("jitscope-cli:")) && !quiet.contains(QLatin1Char('\x1b')), qPrintable(quiet));
        QVERIFY(!onTerminal({ "-q" }).second.contains(QLatin1String("jitscope-cli:")));

        // In a pipe, stderr carries what the file printed and nothing else.
        const Run piped = runCli({ "check", py("export_module.py"), "--python" });
        QCOMPARE(piped.err, QStringLiteral("tracing MyModule\n"));
    }

    void traceAndListShowWhatTheFileDid()
    {
        const Run trace = runCli({ "trace", py("python_only.py"), "--python" });
        QCOMPARE(trace.code, 0);
        QVERIFY(afterHeader(trace.out).startsWith(
            QLatin1String("# line 14: torch.jit.trace(fill_row_zero)\ngraph(%x : Float(3, 4")));
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
        QVERIFY(list.out.contains(QLatin1String("    constant scale: int = 2\n")));
        QVERIFY(list.out.contains(QLatin1String("  line 43: torch.jit.trace(MyModule.forward)  failed: ")));

        // A script call that fails (the module returns a tuple on one path) is what the file's list shows, with
        // PyTorch's error at its line: the file's own failure is the call's, not an error of the command.
        const Run unscriptable = runCli({ "list", py("traces_not_scripts.py"), "--python" });
        QCOMPARE(unscriptable.code, 0);
        QVERIFY2(unscriptable.out.contains(QRegularExpression(QStringLiteral(
                     "    script error: .*traces_not_scripts.py:17:8: Previous return statement returned a value of "
                     "type Tuple\\[Tensor, Tensor\\]"))),
            qPrintable(unscriptable.out));

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
        QTest::addRow("inputs without fn") << QStringList { "trace", py("report_model.py"), "--python", "--inputs",
            "f32[2]" } << "trace --python --inputs needs --fn NAME (a function, or Class.method)";
        QTest::addRow("run without fn") << QStringList { "run", py("report_model.py"), "--python" }
                                        << "run --python needs --fn NAME";
        QTest::addRow("unknown fn") << QStringList { "run", py("report_model.py"), "--python", "--fn", "nope",
            "--inputs", "f32[2]" }
                                    << "report_model.py: the file defines no function or module named 'nope' "
                                       "(have: scale_rows, Stack.forward)";
        QTest::addRow("call out of range") << QStringList { "graph", py("report_model.py"), "--python", "--call", "3" }
                                           << "--call 3, but the file made 2 torch.jit call(s)";
        QTest::addRow("ignored method") << QStringList { "graph", py("export_module.py"), "--python", "--fn",
            "MyModule.show" } << "MyModule.show is not compiled by torch.jit.script (@torch.jit.ignore)";
        QTest::addRow("svg of two graphs") << QStringList { "graph", py("report_model.py"), "--python", "--format",
            "svg" } << "2 graphs, and an SVG holds one: choose with --call N or --fn NAME";
        QTest::addRow("function raises") << QStringList { "run", py("report_model.py"), "--python", "--fn",
            "scale_rows", "--inputs", "(f32[2],3)" }
                                         << "report_model.py:12";
        QTest::addRow("crash after a call") << QStringList { "check", py("crashes_in_trace.py"), "--python" }
                                            << "crashes_in_trace.py:13:0: Python stopped abnormally (killed by a "
                                               "signal): Fatal Python error: Segmentation fault, during "
                                               "torch.jit.trace at line 18 (tracing); the 1 call(s) recorded before "
                                               "it are kept";
        QTest::addRow("trace raises") << QStringList { "check", py("models/trace_raises.py"), "--python" }
                                      << "trace_raises.py:9:0: RuntimeError: Only tensors, lists, tuples of tensors, "
                                         "or dictionary of tensors can be output from traced functions";
        QTest::addRow("export is check's") << QStringList { "trace", py("report_model.py"), "--python", "--export" }
                                           << "--export is an option of check --python";
        QTest::addRow("not for an unknown command") << QStringList { "show", py("exits.py"), "--python" }
                                                    << "--python works with list, graph, trace, check, run, not show";
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

    /// `--python` without a path runs under the active virtual environment, says so, and names the module a file
    /// imports that it lacks (issue #41). The environment is made here from the engine's Python, without pip: its
    /// torch through a .pth file (the engine's may be a venv itself, whose packages --system-site-packages would not
    /// see), and a package of its own that the model imports.
    void activeVirtualEnvironmentRunsTheFile()
    {
        const QString engine = QStringLiteral(JITSCOPE_TEST_PYTHON);
        QTemporaryDir dir;
        const QString venv = dir.filePath(QStringLiteral("venv"));
        auto output = [](const QString& program, const QStringList& args) {
            QProcess p;
            p.start(program, args);
            if (!p.waitForFinished(120000) || p.exitCode() != 0)
                return QString();
            return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
        };
        QVERIFY(QProcess::execute(engine, { "-m", "venv", "--without-pip", venv }) == 0);
        const QString python = venv + QStringLiteral("/bin/python");
        const QString site = output(python, { "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])" });
        const QString torchSite
            = output(engine, { "-c", "import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))" });
        QVERIFY(!site.isEmpty() && !torchSite.isEmpty());
        QVERIFY(writeText(site + QStringLiteral("/engine.pth"), torchSite + QLatin1Char('\n')));
        QVERIFY(QDir().mkpath(site + QStringLiteral("/mypkg")));
        QVERIFY(writeText(site + QStringLiteral("/mypkg/__init__.py"), QStringLiteral("SCALE = 2\n")));
        const QString model = dir.filePath(QStringLiteral("model.py"));
        QVERIFY(writeText(model,
            QStringLiteral("import torch\nimport mypkg\n\n\ndef double(x):\n    return x * mypkg.SCALE\n\n\n"
                           "traced = torch.jit.trace(double, torch.ones(3), check_inputs=[(torch.ones(4),)])\n")));
        const QString missing = dir.filePath(QStringLiteral("other.py"));
        QVERIFY(writeText(missing, QStringLiteral("import torch\nimport notinstalled_pkg\n")));

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : { "JITSCOPE_PYTHON", "CONDA_PREFIX" })
            env.remove(QLatin1String(name));
        env.insert(QStringLiteral("VIRTUAL_ENV"), venv);
        const QString named = QStringLiteral("%1 (torch %2, chosen as the active virtual environment)")
                                  .arg(python, output(python, { "-c", "import torch; print(torch.__version__)" }));

        const Run r = runCliIn({ "check", model, "--python" }, env);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.startsWith(QStringLiteral("python: %1\n\n").arg(named)), qPrintable(r.out));
        QVERIFY2(afterHeader(r.out).startsWith(QLatin1String("check line 9: torch.jit.trace(double): 2 input set(s)")),
            qPrintable(r.out));
        const Run json = runCliIn({ "check", model, "--python", "--format", "json" }, env);
        QCOMPARE(json.code, 0);
        const QJsonObject interpreter
            = QJsonDocument::fromJson(json.out.toUtf8()).array()[0].toObject().value("python").toObject();
        QCOMPARE(interpreter.value("path").toString(), python);
        QCOMPARE(interpreter.value("chosen_by").toString(), QStringLiteral("VIRTUAL_ENV"));

        const Run lacking = runCliIn({ "check", missing, "--python" }, env);
        QCOMPARE(lacking.code, 2);
        QCOMPARE(lacking.out, QString());
        QVERIFY2(lacking.err.trimmed().endsWith(
                     QStringLiteral("jitscope-cli: error: other.py imports `notinstalled_pkg`, which %1 does not "
                                    "have: choose another with --python=PATH or $JITSCOPE_PYTHON")
                         .arg(named)),
            qPrintable(lacking.err));
    }

    /// --progress: the progress line where stderr is no terminal, a line per step naming the call and what it
    /// does; stdout the same as without it; --quiet silences it.
    void progressNamesTheCallAndItsPhase()
    {
        QTemporaryDir dir;
        const QString model = dir.filePath(QStringLiteral("slow.py"));
        QVERIFY(writeText(model,
            QStringLiteral("import time\n\nimport torch\n\n\ndef slow(x):\n    time.sleep(0.6)\n    return x + 1\n\n\n"
                           "traced = torch.jit.trace(slow, torch.ones(2), check_inputs=[(torch.ones(3),)])\n")));
        const Run plain = runCli({ "check", model, "--python" });
        QCOMPARE(plain.code, 0);
        QVERIFY2(!plain.err.contains(QLatin1String("jitscope-cli: ")), qPrintable(plain.err));
        const Run shown = runCli({ "check", model, "--python", "--progress" });
        QCOMPARE(shown.code, 0);
        QCOMPARE(shown.out, plain.out);
        QVERIFY2(shown.err.contains(QLatin1String("jitscope-cli: call 1/1 `slow` (slow.py:11): tracing (")),
            qPrintable(shown.err));
        QVERIFY2(shown.err.contains(QLatin1String("jitscope-cli: call 1/1 `slow` (slow.py:11): check set 1 of 1, ")),
            qPrintable(shown.err));
        QVERIFY(!shown.err.contains(QLatin1String("\x1b[")));
        const Run json = runCli({ "check", model, "--python", "--progress", "--format", "json" });
        QCOMPARE(json.code, 0);
        QVERIFY(!json.out.contains(QLatin1String("call 1/1")));
        QVERIFY(QJsonDocument::fromJson(json.out.toUtf8()).isArray());
        const Run quiet = runCli({ "check", model, "--python", "--progress", "--quiet" });
        QCOMPARE(quiet.out, plain.out);
        QVERIFY2(!quiet.err.contains(QLatin1String("jitscope-cli: ")), qPrintable(quiet.err));
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
