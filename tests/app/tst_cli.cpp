// jitscope-cli as a user runs it: exit codes, the one-line error format, and every output format (`check` and its
// reports: tst_cli_check.cpp).

#include "clitest.h"
#include "report/irgraph.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
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

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("errorPattern");
        const QString bad = dataDir() + QStringLiteral("/bad/");
        const QString corpus = dataDir() + QStringLiteral("/corpus/");
        QTest::addRow("missing file") << QStringList { "graph", bad + "nope.py" } << "nope\\.py: no such file$";
        QTest::addRow("empty file") << QStringList { "graph", bad + "empty.py" } << "empty\\.py: file is empty$";
        QTest::addRow("binary file") << QStringList { "list", bad + "binary.py" } << "binary\\.py: binary file";
        QTest::addRow("non-UTF-8") << QStringList { "graph", bad + "latin1.py" }
                                   << "latin1\\.py:4:19: not valid UTF-8 text";
        QTest::addRow("truncated archive")
            << QStringList { "graph", bad + "truncated.pt" } << "truncated\\.pt: not a valid TorchScript archive";
        QTest::addRow("zip that is not TorchScript") << QStringList { "list", bad + "not_torchscript.zip" }
                                                     << "not_torchscript\\.zip: not a valid TorchScript archive";
        QTest::addRow("py as archive name")
            << QStringList { "graph", bad + "syntax_error.py", "--fn", "f" } << "syntax_error\\.py:3:0: .*expected";
        QTest::addRow("syntax error in list")
            << QStringList { "list", bad + "syntax_error.py" } << "syntax_error\\.py:3:0: ";
        QTest::addRow("unknown fn") << QStringList { "graph", corpus + "loop_in_traced_fn.py", "--fn", "nope" }
                                    << "no function or method named 'nope' \\(have: loop_in_traced_fn\\)$";
        QTest::addRow("compile error") << QStringList { "graph", corpus + "compile_error.py", "--fn", "uses_undefined" }
                                       << "compile_error\\.py:10:15: undefined value undefined_scale$";
        QTest::addRow("ambiguous fn") << QStringList { "graph", corpus + "arange_shape.py" }
                                      << "several functions, choose one with --fn";
        QTest::addRow("unknown format") << QStringList { "graph", corpus + "loop_in_traced_fn.py", "--format", "gif" }
                                        << "unknown format 'gif'";
        QTest::addRow("unknown option") << QStringList { "graph", "--frobnicate", corpus + "loop_in_traced_fn.py" }
                                        << "unknown option --frobnicate";
        QTest::addRow("unknown command") << QStringList { "paint", "x" } << "unknown command 'paint'";
        QTest::addRow("missing ops library") << QStringList { "list", "--load-ops", bad + "nope.so",
            corpus + "loop_in_traced_fn.py" } << "nope\\.so: cannot load operator library";
        QTest::addRow("directory") << QStringList { "list", bad } << "is a directory";
        // --timeout and --max-memory: positive, finite, bounded.
        for (const char* value : { "0", "nan", "inf", "1e300", "-1", "-inf" }) {
            QTest::addRow("--timeout %s", value)
                << QStringList { "trace", corpus + "loop_in_traced_fn.py", "--timeout", value }
                << QStringLiteral("--timeout: '%1' is not a number of seconds above 0 and at most 604800 \\(a week\\)$")
                       .arg(QRegularExpression::escape(QLatin1String(value)));
            QTest::addRow("--max-memory %s", value)
                << QStringList { "trace", corpus + "loop_in_traced_fn.py", "--max-memory", value }
                << QStringLiteral("--max-memory: '%1' is not a size between 1 byte and 1024G")
                       .arg(QRegularExpression::escape(QLatin1String(value)));
        }
        QTest::addRow("--timeout with --python") << QStringList { "list", corpus + "loop_in_traced_fn.py", "--python",
            "--timeout", "nan" } << "--timeout: 'nan' is not a number of seconds";
        // Issue #14's crash classes 3 to 5 (tests/data/hostile/make_archives.py): one line, exit 2, no crash.
        const QString hostile = dataDir() + QStringLiteral("/hostile/");
        QTest::addRow("pickle underflow")
            << QStringList { "list", hostile + "pickle_underflow_constants.pt" }
            << "pickle_underflow_constants\\.pt: constants\\.pkl: byte 3: stack underflow";
        QTest::addRow("debug_pkl underflow")
            << QStringList { "graph", hostile + "pickle_underflow_debug.pt" }
            << "pickle_underflow_debug\\.pt: code/__torch__/modules\\.py\\.debug_pkl: byte 3: stack underflow";
        // .pt2 packages: one line naming the file and what is wrong (tst_hostileinputs has the whole messages).
        QTest::addRow("truncated .pt2") << QStringList { "graph", hostile + "pt2_truncated.pt2" }
                                        << "pt2_truncated\\.pt2: not a zip file, or truncated";
        QTest::addRow("corrupt .pt2 JSON") << QStringList { "list", hostile + "pt2_corrupt_json.pt2" }
                                           << "pt2_corrupt_json\\.pt2: linear_relu/models/model\\.json: not valid JSON";
        QTest::addRow("newer .pt2 schema") << QStringList { "graph", hostile + "pt2_newer_schema.pt2" }
                                           << "pt2_newer_schema\\.pt2: .*schema version 9\\.20 is newer";
        QTest::addRow("AOTInductor package") << QStringList { "graph", hostile + "pt2_aotinductor.pt2" }
                                             << "pt2_aotinductor\\.pt2: an AOTInductor package";
        QTest::addRow("4 GiB .pt2 entry") << QStringList { "graph", hostile + "pt2_huge_entry.pt2" }
                                          << "pt2_huge_entry\\.pt2: .*declares 4294967280 bytes";
        QTest::addRow("check a .pt2") << QStringList {
            "check", dataDir() + "/pt2/linear_relu.pt2"
        } << "linear_relu\\.pt2: an exported program \\(torch\\.export\\) is read for its graph, not run: check";
        QTest::addRow("nested pickle") << QStringList { "list", hostile + "pickle_nested_tuples.pt" }
                                       << "constants\\.pkl: byte 1002: values nested more than 1000 deep";
        QTest::addRow("untyped class attribute")
            << QStringList { "list", hostile + "class_untyped_attr.pt" }
            << "class_untyped_attr\\.pt: code/__torch__/torch/nn/modules/linear\\.py:4:2: class attribute `weight`";
        QTest::addRow("deep archive code") << QStringList { "list", hostile + "code_deep_brackets.pt" }
                                           << "modules\\.py:15:232: too many nested parentheses";
        // Class 7: INT64_MIN / -1 in a kernel, traced or run (SIGFPE before); the place of `//` (found in the text
        // around TorchScript's builtin floordiv, which keeps no call site), `%`, torch.div, fmod.
        const QString kernels = hostile + QStringLiteral("int_min_kernels.py");
        const QString minusOne = QStringLiteral("i64[2]=full:-1");
        for (const char* command : { "trace", "run" }) {
            const QString c = QLatin1String(command);
            QTest::addRow("%s INT64_MIN tensor // -1", command)
                << QStringList { c, kernels, "--fn", "floor_div", "--inputs", minusOne }
                << "int_min_kernels\\.py:7:13: aten::floor_divide: integer overflow: -9223372036854775808 // -1 does "
                   "not "
                   "fit in int64 \\(libtorch's kernel would crash on it: SIGFPE\\)";
            QTest::addRow("%s INT64_MIN %% -1", command)
                << QStringList { c, kernels, "--fn", "mod", "--inputs", minusOne }
                << "int_min_kernels\\.py:12:11: aten::remainder: integer overflow: -9223372036854775808 % -1";
            QTest::addRow("%s div rounding_mode floor", command)
                << QStringList { c, kernels, "--fn", "div_floor", "--inputs", minusOne }
                << "int_min_kernels\\.py:17:11: aten::div: integer overflow: -9223372036854775808 // -1";
            QTest::addRow("%s fmod", command) << QStringList { c, kernels, "--fn", "fmod", "--inputs", minusOne }
                                              << "int_min_kernels\\.py:27:11: aten::fmod: integer overflow";
            QTest::addRow("%s remainder", command) << QStringList { c, kernels, "--fn", "remainder", "--inputs",
                minusOne } << "int_min_kernels\\.py:32:11: aten::remainder: integer overflow";
            QTest::addRow("%s INT32_MIN // -1", command)
                << QStringList { c, kernels, "--fn", "int32", "--inputs", minusOne }
                << "int_min_kernels\\.py:37:13: aten::floor_divide: integer overflow: -2147483648 // -1 does not fit "
                   "in int32";
        }
        // One memory budget for the run: tensors made inside the function and the trace it records.
        const QString big = hostile + QStringLiteral("big_alloc.py");
        for (const char* command : { "trace", "run" }) {
            const QString c = QLatin1String(command);
            QTest::addRow("%s torch.ones of 8 GiB", command)
                << QStringList { c, big, "--fn", "f", "--inputs", "f32[1]" }
                << "big_alloc\\.py:6:8: aten::ones: out of the memory budget of 2048 MiB \\(--max-memory\\): this "
                   "tensor needs 8192 MiB, the run holds 0 MiB \\(input set 1: f32\\[1\\]\\)$";
            QTest::addRow("%s tensors kept alive", command)
                << QStringList { c, big, "--fn", "grow", "--inputs", "f32[1]", "--max-memory", "1G" }
                << "big_alloc\\.py:1[34]:[0-9]+: [a-z:A-Z]+: out of the memory budget of 1024 MiB \\(--max-memory\\): "
                   "this tensor needs [0-9]+ MiB, the run holds [0-9]+ MiB";
        }
        QTest::addRow("growing trace") << QStringList { "trace", bad + "infinite_loop.py", "--max-memory", "200M" }
                                       << "infinite_loop\\.py:[78]:[0-9]+: aten::add: out of the memory budget of 200 "
                                          "MiB \\(--max-memory\\): the run has grown by [0-9]+ MiB \\(tensors, and "
                                          "the trace it records\\)";
        QTest::addRow("run div rounding_mode trunc")
            << QStringList { "run", kernels, "--fn", "div_trunc", "--inputs", minusOne }
            << "int_min_kernels\\.py:22:11: aten::div: integer overflow: -9223372036854775808 "
               "div\\(rounding_mode='trunc'\\) -1";
        QTest::addRow("run int // int") << QStringList { "run", kernels, "--fn", "ints", "--inputs", "-1" }
                                        << "int_min_kernels\\.py:42:11: aten::floordiv: integer overflow";
        QTest::addRow("INT64_MIN // -1 folded") << QStringList { "graph", hostile + "int_min_floordiv.py", "--fn", "f" }
                                                << "int_min_floordiv\\.py:7:8: integer overflow";
    }

    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, errorPattern);
        const Run r = runCli(args);
        QCOMPARE(r.code, 2);
        const QStringList lines = r.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().startsWith(QLatin1String("jitscope-cli: error: ")), qPrintable(r.err));
        QVERIFY2(QRegularExpression(errorPattern).match(lines.first()).hasMatch(), qPrintable(r.err));
    }

    /// A fatal signal is one line and exit 2: the file, the line and the operator running (a real crash, armed by
    /// JITSCOPE_TEST_CRASH at the first operator).
    void crashIsOneLine_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("signal");
        QTest::addColumn<QString>("phase");
        QTest::addRow("segv while running") << "segv"
                                            << "run"
                                            << "SIGSEGV"
                                            << "running input set 1";
        QTest::addRow("stack overflow") << "stack"
                                        << "run"
                                        << "SIGSEGV"
                                        << "running input set 1";
        QTest::addRow("fpe while tracing") << "fpe"
                                           << "trace"
                                           << "SIGFPE"
                                           << "tracing input set 1";
        QTest::addRow("abort while checking") << "abort"
                                              << "check"
                                              << "SIGABRT"
                                              << "checking `f`: tracing input set 1";
    }

    void crashIsOneLine()
    {
        QFETCH(QString, kind);
        QFETCH(QString, command);
        QFETCH(QString, signal);
        QFETCH(QString, phase);
        const QString file = dataDir() + QStringLiteral("/hostile/crash_here.py");
        const Run r = runCli({ command, file, QStringLiteral("--inputs"), QStringLiteral("f32[3]") },
            { QStringLiteral("JITSCOPE_TEST_CRASH=") + kind });
        QCOMPARE(r.code, 2);
        QCOMPARE(r.err,
            QStringLiteral("jitscope-cli: error: %1:7: crashed (%2) while running aten::add (%3)\n")
                .arg(file, signal, phase));
        // Unarmed, the same run succeeds.
        QCOMPARE(runCli({ command, file, QStringLiteral("--inputs"), QStringLiteral("f32[3]") }).code, 0);
    }

    /// Near misses of the integer traps run: true division, int32 promoted to int64, // 2.
    void integerNearMissesRun()
    {
        const QString kernels = dataDir() + QStringLiteral("/hostile/int_min_kernels.py");
        for (const char* command : { "trace", "run" }) {
            const Run r = runCli({ QLatin1String(command), kernels, QStringLiteral("--fn"), QStringLiteral("fine"),
                QStringLiteral("--inputs"), QStringLiteral("i64[2]=full:-1") });
            QVERIFY2(r.code == 0, qPrintable(r.err));
        }
    }

    void graphText()
    {
        const QString file = dataDir() + QStringLiteral("/corpus/loop_in_traced_fn.py");
        const Run r = runCli({ QStringLiteral("graph"), file });
        QCOMPARE(r.code, 0);
        QVERIFY(r.err.isEmpty());
        QVERIFY(r.out.startsWith(QLatin1String("graph(%x")));
        QVERIFY(r.out.contains(QLatin1String("prim::Loop")));
        // Source comments name the user's file and line, as PyTorch prints them.
        QVERIFY2(r.out.contains(file + QStringLiteral(":7:")), qPrintable(r.out));
        const QString golden = dataDir() + QStringLiteral("/expected/loop_in_traced_fn.loop_in_traced_fn.script.txt");
        QCOMPARE(jitscope::canonicalizeDump(r.out), jitscope::canonicalizeDump(readText(golden)));
    }

    void graphFormats()
    {
        const QString file = dataDir() + QStringLiteral("/corpus/loop_in_traced_fn.py");
        const Run json = runCli({ QStringLiteral("graph"), file, QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(json.code, 0);
        QJsonParseError pe;
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8(), &pe).object();
        QCOMPARE(pe.error, QJsonParseError::NoError);
        QCOMPARE(o.value(QStringLiteral("function")).toString(), QStringLiteral("loop_in_traced_fn"));
        QVERIFY(o.value(QStringLiteral("graph")).toObject().value(QStringLiteral("node_table")).toArray().size() > 3);

        const Run dot = runCli({ QStringLiteral("graph"), file, QStringLiteral("--format=dot") });
        QCOMPARE(dot.code, 0);
        QVERIFY(dot.out.startsWith(QLatin1String("digraph")));

        QTemporaryDir dir;
        const QString svgPath = dir.filePath(QStringLiteral("g.svg"));
        const Run svg = runCli({ QStringLiteral("graph"), file, QStringLiteral("-f"), QStringLiteral("svg"),
            QStringLiteral("-o"), svgPath });
        QCOMPARE(svg.code, 0);
        QVERIFY(svg.out.isEmpty());
        QVERIFY(readText(svgPath).contains(QLatin1String("<svg")));

        const Run unwritable = runCli(
            { QStringLiteral("graph"), file, QStringLiteral("-o"), dir.filePath(QStringLiteral("missing/dir/g.txt")) });
        QCOMPARE(unwritable.code, 2);
        QVERIFY(unwritable.err.contains(QLatin1String("cannot write")));
    }

    /// jitscope-cli graph FILE.pt2 in every format: text and JSON are golden files (JitScope's own output, whose
    /// nodes tst_exportedprogram holds to torch's), dot/svg/png go through Graphviz grouped by module.
    void graphOfExportedProgram_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("linear_relu") << "linear_relu";
        QTest::addRow("dynamic_batch") << "dynamic_batch";
        QTest::addRow("legacy layout") << "legacy_linear_relu";
    }

    void graphOfExportedProgram()
    {
        QFETCH(QString, name);
        const QString file = dataDir() + QStringLiteral("/pt2/") + name + QStringLiteral(".pt2");
        const QString golden = dataDir() + QStringLiteral("/cli/") + name + QStringLiteral(".pt2.graph.txt");
        const Run text = runCli({ QStringLiteral("graph"), file });
        QVERIFY2(text.code == 0, qPrintable(text.err));
        QVERIFY(text.err.isEmpty());
        QVERIFY2(matchesGolden(text.out, readText(golden), golden), qPrintable(golden + QStringLiteral(".actual")));

        const Run json = runCli({ QStringLiteral("graph"), file, QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(json.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("function")).toString(), QStringLiteral("forward"));
        const QJsonObject graph = o.value(QStringLiteral("graph")).toObject();
        QVERIFY(graph.value(QStringLiteral("node_table")).toArray().size() >= 3);

        for (const char* format : { "dot", "svg", "png" }) {
            const Run r = runCli({ QStringLiteral("graph"), file, QStringLiteral("--modules"),
                QStringLiteral("--format"), QLatin1String(format) });
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QVERIFY(!r.out.isEmpty());
        }
        // Grouped by module, the submodules are clusters; parameters are named in their users, not boxes.
        const Run svg = runCli({ QStringLiteral("graph"), file, QStringLiteral("--modules"), QStringLiteral("--format"),
            QStringLiteral("svg") });
        QVERIFY2(svg.out.contains(QLatin1String(".lin")), qPrintable(svg.out.left(2000)));
        QVERIFY(svg.out.contains(QLatin1String("lin.weight")));
        QVERIFY(!svg.out.contains(QLatin1String("p_block_lin_weight"))
            && !svg.out.contains(QLatin1String("p_encoder_lin_weight")));

        const Run list = runCli({ QStringLiteral("list"), file, QStringLiteral("--format"), QStringLiteral("json") });
        QVERIFY2(list.code == 0, qPrintable(list.err));
        const QJsonObject l = QJsonDocument::fromJson(list.out.toUtf8()).object();
        QCOMPARE(l.value(QStringLiteral("kind")).toString(), QStringLiteral("exported_program"));
        const QJsonObject program = l.value(QStringLiteral("exported_program")).toObject();
        QCOMPARE(program.value(QStringLiteral("schema_version")).toString(), QStringLiteral("8.20"));
        QCOMPARE(program.value(QStringLiteral("inputs"))
                     .toArray()
                     .first()
                     .toObject()
                     .value(QStringLiteral("kind"))
                     .toString(),
            QStringLiteral("parameter"));
        const Run listText = runCli({ QStringLiteral("list"), file });
        QVERIFY2(listText.code == 0, qPrintable(listText.err));
        QVERIFY2(listText.out.contains(QLatin1String(": exported program (libtorch")), qPrintable(listText.out));
        QVERIFY(listText.out.contains(QLatin1String("\nsignature:\n  input parameter p_")));
        QVERIFY(listText.out.contains(QLatin1String("\nrange constraints:\n")));
        if (name == QLatin1String("dynamic_batch"))
            QVERIFY2(listText.out.contains(QLatin1String("  s77: 2 <= s77 <= 1024\n")), qPrintable(listText.out));
    }

    void inlineGraph()
    {
        const QString file = dataDir() + QStringLiteral("/corpus/helper_calls.py");
        const Run plain = runCli({ QStringLiteral("list"), file, QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(plain.code, 0);
        QString caller;
        for (const auto& f :
            QJsonDocument::fromJson(plain.out.toUtf8()).object().value(QStringLiteral("functions")).toArray()) {
            const QString name = f.toObject().value(QStringLiteral("name")).toString();
            const Run g = runCli({ QStringLiteral("graph"), file, QStringLiteral("--fn"), name });
            if (g.out.contains(QLatin1String("prim::CallFunction")))
                caller = name;
        }
        QVERIFY2(!caller.isEmpty(), "helper_calls.py has no function calling another");
        const Run inlined
            = runCli({ QStringLiteral("graph"), file, QStringLiteral("--fn"), caller, QStringLiteral("--inline") });
        QCOMPARE(inlined.code, 0);
        QVERIFY(!inlined.out.contains(QLatin1String("prim::CallFunction")));
    }

    void listPython()
    {
        const Run r = runCli({ QStringLiteral("list"), dataDir() + QStringLiteral("/corpus/loop_in_traced_fn.py") });
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains(QLatin1String("loop_in_traced_fn(x: Tensor) -> Tensor")));
        QVERIFY(r.out.contains(QLatin1String("f32[3,4,5]")));
        QVERIFY(r.out.contains(QLatin1String("f32[4,5,6]")));
        QVERIFY(r.out.contains(QLatin1String("f32[2,3,4]")));
    }

    void listCompileErrorsExitTwo()
    {
        const Run r = runCli({ QStringLiteral("list"), dataDir() + QStringLiteral("/corpus/compile_error.py"),
            QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(r.code, 2);
        const QJsonArray fns
            = QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("functions")).toArray();
        QCOMPARE(fns.size(), 2);
        QVERIFY(fns[0].toObject().value(QStringLiteral("ok")).toBool());
        const QJsonObject error = fns[1].toObject().value(QStringLiteral("error")).toObject();
        QCOMPARE(error.value(QStringLiteral("line")).toInt(), 10);
        QVERIFY(r.err.contains(QLatin1String("compile_error.py:10:15")));
        // The function that compiles stays usable.
        const Run works = runCli({ QStringLiteral("graph"), dataDir() + QStringLiteral("/corpus/compile_error.py"),
            QStringLiteral("--fn"), QStringLiteral("works") });
        QCOMPARE(works.code, 0);
    }

    void listArchive()
    {
        const Run r = runCli({ QStringLiteral("list"), dataDir() + QStringLiteral("/archives/conv_block.pt") });
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QLatin1String("layer1.0.forward(")), qPrintable(r.out));
        QVERIFY(r.out.contains(QLatin1String("layer1.0.weight  parameter  Tensor  Float[4, 3, 3, 3]")));
        // An archive records no input shapes: a set is guessed from the first conv's weight, and it traces.
        QVERIFY2(r.out.contains(QLatin1String(
                     "suggested input set: f32[1,3,224,224]  (guessed from layer1.0.weight [4, 3, 3, 3])")),
            qPrintable(r.out));
        const Run json = runCli({ QStringLiteral("list"), dataDir() + QStringLiteral("/archives/conv_block.pt"),
            QStringLiteral("--format"), QStringLiteral("json") });
        const QJsonObject suggested = QJsonDocument::fromJson(json.out.toUtf8())
                                          .object()
                                          .value(QStringLiteral("suggested_input_set"))
                                          .toObject();
        QCOMPARE(suggested.value(QStringLiteral("set")).toString(), QStringLiteral("f32[1,3,224,224]"));
        const Run traced = runCli({ QStringLiteral("trace"), dataDir() + QStringLiteral("/archives/conv_block.pt"),
            QStringLiteral("--inputs"), suggested.value(QStringLiteral("set")).toString() });
        QCOMPARE(traced.code, 0);
        // No guess where the first op has no weight to tell the shape (dense_residual starts with a ReLU).
        const Run relu = runCli({ QStringLiteral("list"), dataDir() + QStringLiteral("/archives/dense_residual.pt") });
        QCOMPARE(relu.code, 0);
        QVERIFY(!relu.out.contains(QLatin1String("suggested")));
        const Run g = runCli({ QStringLiteral("graph"), dataDir() + QStringLiteral("/archives/conv_block.pt"),
            QStringLiteral("--fn"), QStringLiteral("layer1.0.forward") });
        QCOMPARE(g.code, 0);
        QVERIFY(g.out.contains(QLatin1String("prim::CallMethod")));
    }

    /// Archives calling torchvision::nms and roi_align (tests/oracle/make_custom_ops.py, as every detection model
    /// does) open without --load-ops: the library is found in the system's Python's torchvision package and `list`
    /// names it; without it (an empty JITSCOPE_OPS_PATH), or with one that does not load or defines other
    /// operators, the one error line names the namespace and the library.
    void customOperators_data()
    {
        QTest::addColumn<QString>("archive");
        QTest::addColumn<QString>("opsPath"); ///< JITSCOPE_OPS_PATH: "" unset, "empty", "garbage", "other"
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("expected"); ///< a regular expression: stdout when code is 0, else stderr
        const QString found = QStringLiteral("operator libraries:\n  /\\S+/torchvision/_C[^ ]*\\.so  torchvision::  "
                                             "\\(found in the system's Python\\)\n");
        for (const char* archive : { "ops_scripted.pt", "ops_traced.pt" }) {
            QTest::addRow("%s found", archive) << archive << QString() << 0 << found;
            QTest::addRow("%s none there", archive)
                << archive << "empty" << 2
                << "^jitscope-cli: error: \\S+ops_\\w+\\.pt: unknown operator torchvision::(nms|roi_align): no library "
                   "of torchvision:: operators is loaded; looked for the torchvision package in the engine's Python's packages: "
                   "found none in \\S+; load the library that defines them with --load-ops LIB\\.so";
        }
        QTest::addRow("does not load")
            << "ops_scripted.pt"
            << "garbage" << 2
            << "unknown operator torchvision::\\w+: no library of torchvision:: operators "
               "is loaded; \\S+/torchvision/_C\\.so did not load: .*(invalid ELF header|too short)";
        QTest::addRow("other operators") << "ops_traced.pt"
                                         << "other" << 2
                                         << "unknown operator torchvision::\\w+: no library of torchvision:: "
                                            "operators is loaded; \\S+/libm\\.so\\.6 loaded but defines no "
                                            "torchvision:: operators";
    }

    void customOperators()
    {
        QFETCH(QString, archive);
        QFETCH(QString, opsPath);
        QFETCH(int, code);
        QFETCH(QString, expected);
        JITSCOPE_CUSTOM_OPS_DIR(dir);
        QTemporaryDir ops;
        QStringList environment;
        if (!opsPath.isEmpty()) {
            environment << QStringLiteral("JITSCOPE_OPS_PATH=") + ops.path();
            QVERIFY(QDir(ops.path()).mkpath(QStringLiteral("torchvision")));
            const QString lib = ops.filePath(QStringLiteral("torchvision/_C.so"));
            if (opsPath == QLatin1String("garbage")) {
                QFile f(lib);
                QVERIFY(f.open(QIODevice::WriteOnly));
                f.write("not a shared library\n");
            } else if (opsPath == QLatin1String("other")) {
                const QString libm = QStringLiteral("/lib/x86_64-linux-gnu/libm.so.6");
                if (!QFileInfo::exists(libm))
                    QSKIP("no libm.so.6 where Debian keeps it");
                QVERIFY(QFile::link(libm, lib));
            }
        }
        const Run list = runCli({ QStringLiteral("list"), dir.filePath(archive) }, environment);
        QVERIFY2(list.code == code, qPrintable(list.err));
        const QRegularExpression re(expected);
        QVERIFY2(re.match(code == 0 ? list.out : list.err).hasMatch(), qPrintable(list.out + list.err));
        if (code != 0)
            return;
        QVERIFY(list.out.contains(QLatin1String("forward(self, x: Tensor, boxes: Tensor)")));
        const Run json = runCli(
            { QStringLiteral("list"), dir.filePath(archive), QStringLiteral("--format"), QStringLiteral("json") },
            environment);
        QCOMPARE(json.code, 0);
        const QJsonArray libraries
            = QJsonDocument::fromJson(json.out.toUtf8()).object().value(QLatin1String("operator_libraries")).toArray();
        QCOMPARE(libraries.size(), 1);
        const QJsonObject lib = libraries.first().toObject();
        QVERIFY(lib.value(QLatin1String("path")).toString().contains(QLatin1String("/torchvision/_C")));
        QCOMPARE(lib.value(QLatin1String("namespaces")).toArray(), QJsonArray { QStringLiteral("torchvision") });
        QCOMPARE(lib.value(QLatin1String("found")).toBool(), true);
        // Given with --load-ops, the same library is named as given.
        const Run given = runCli({ QStringLiteral("list"), QStringLiteral("--load-ops"),
            lib.value(QLatin1String("path")).toString(), dir.filePath(archive) });
        QCOMPARE(given.code, 0);
        QVERIFY2(given.out.contains(QLatin1String("torchvision::  (--load-ops)")), qPrintable(given.out));
    }

    void torchvisionResnet18()
    {
        const QString python = QStringLiteral(JITSCOPE_TEST_PYTHON);
        if (QProcess::execute(python, { QStringLiteral("-c"), QStringLiteral("import torchvision") }) != 0)
            QSKIP("no torchvision for the engine's Python");
        QTemporaryDir dir;
        const QString archive = dir.filePath(QStringLiteral("resnet18.pt"));
        QProcess make;
        make.start(python,
            { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/make_torchvision.py"), QStringLiteral("resnet18"),
                archive });
        QVERIFY(make.waitForFinished(300000));
        QVERIFY2(make.exitCode() == 0, make.readAllStandardError().constData());
        QProcess dump;
        dump.start(python, { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/dump_graph.py"), archive });
        QVERIFY(dump.waitForFinished(300000));
        QVERIFY2(dump.exitCode() == 0, dump.readAllStandardError().constData());
        const QString expected = QString::fromUtf8(dump.readAllStandardOutput());
        const Run list = runCli({ QStringLiteral("list"), archive });
        QCOMPARE(list.code, 0);
        QVERIFY(list.out.contains(QLatin1String("layer4.1.forward(")));
        QVERIFY(list.out.contains(QLatin1String("fc.weight  parameter  Tensor  Float[1000, 512]")));
        QVERIFY(list.out.contains(
            QLatin1String("suggested input set: f32[1,3,224,224]  (guessed from conv1.weight [64, 3, 7, 7])")));
        const Run graph = runCli({ QStringLiteral("graph"), archive });
        QCOMPARE(graph.code, 0);
        QCOMPARE(jitscope::canonicalizeDump(graph.out), jitscope::canonicalizeDump(expected));
        // Tracing the scripted archive records what torch.jit.trace records for the eager model.
        QProcess pyTrace;
        pyTrace.start(python,
            { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/trace_torchvision.py"), QStringLiteral("resnet18"),
                QStringLiteral("1,3,64,64") });
        QVERIFY(pyTrace.waitForFinished(300000));
        QVERIFY2(pyTrace.exitCode() == 0, pyTrace.readAllStandardError().constData());
        const Run trace = runCli(
            { QStringLiteral("trace"), archive, QStringLiteral("--inputs"), QStringLiteral("f32[1,3,64,64]") });
        QCOMPARE(trace.code, 0);
        static const QRegularExpression mangle(QStringLiteral("___torch_mangle_\\d+\\."));
        QString ours = trace.out, theirs = QString::fromUtf8(pyTrace.readAllStandardOutput());
        ours.remove(mangle);
        theirs.remove(mangle);
        QCOMPARE(jitscope::canonicalizeDump(ours), jitscope::canonicalizeDump(theirs));
    }

    /// An archive of a torch newer than the engine's (an operator libtorch lacks): one message naming the operator and
    /// the engine's libtorch, and the torch that saved it where JitScope's bridge wrote that into the archive.
    void archiveOfANewerTorch_data()
    {
        QTest::addColumn<QString>("producer");
        QTest::addColumn<QString>("expected");
        QTest::newRow("saved by the bridge under torch 2.99")
            << "torch 2.99.0"
            << "unknown operator aten::relu_of_2_99: JitScope's libtorch " JITSCOPE_TEST_TORCH_VERSION " has no such "
               "operator; it was saved by torch 2.99.0, newer than JitScope's libtorch " JITSCOPE_TEST_TORCH_VERSION;
        QTest::newRow("saved by an older torch") << "torch 1.13.0" << "has no such operator; the archive was probably "
                                                                      "saved by a newer torch";
        QTest::newRow("no producer") << "" << "has no such operator; the archive was probably saved by a newer torch";
    }

    void archiveOfANewerTorch()
    {
        QFETCH(QString, producer);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString archive = dir.filePath(QStringLiteral("newer.pt"));
        QProcess make;
        make.start(QStringLiteral(JITSCOPE_TEST_PYTHON),
            { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/make_newer_torch_archive.py"), archive, producer });
        QVERIFY(make.waitForFinished(120000));
        QVERIFY2(make.exitCode() == 0, make.readAllStandardError().constData());
        const Run list = runCli({ QStringLiteral("list"), archive });
        QCOMPARE(list.code, 2);
        QVERIFY2(list.err.startsWith(QStringLiteral("jitscope-cli: error: ") + archive + QStringLiteral(": ")),
            qPrintable(list.err));
        QVERIFY2(list.err.contains(expected), qPrintable(list.err));
        QCOMPARE(list.err.count(QLatin1Char('\n')), 1);
    }

    /// Archives saved by torch 1.13 (tests/data/archives/torch-1.13, kept from before the engine moved to 2.x) open in
    /// libtorch 2.x through its operator upgraders, and check on the input set `list` guesses or the case's first.
    void torch113Archives_data()
    {
        QTest::addColumn<QString>("archive");
        const QStringList files = QDir(dataDir() + QStringLiteral("/archives/torch-1.13"))
                                      .entryList({ QStringLiteral("*.pt") }, QDir::Files, QDir::Name);
        QVERIFY(files.size() >= 10);
        for (const QString& f : files)
            QTest::newRow(qPrintable(f)) << dataDir() + QStringLiteral("/archives/torch-1.13/") + f;
    }

    void torch113Archives()
    {
        QFETCH(QString, archive);
        const Run list = runCli({ QStringLiteral("list"), archive, QStringLiteral("--format"), QStringLiteral("json") });
        QVERIFY2(list.code == 0, qPrintable(list.err));
        const QJsonObject model = QJsonDocument::fromJson(list.out.toUtf8()).object();
        QCOMPARE(model.value(QLatin1String("libtorch")).toString(), QStringLiteral(JITSCOPE_TEST_TORCH_VERSION));
        QString set = model.value(QLatin1String("suggested_input_set")).toObject().value(QLatin1String("set")).toString();
        if (set.isEmpty()) {
            // No parameter to guess from: the set its trace case records.
            const QString stem = QFileInfo(archive).completeBaseName();
            const QStringList cases = QDir(dataDir() + QStringLiteral("/traces")).entryList({ QStringLiteral("*.json") });
            for (const QString& c : cases) {
                const QJsonObject doc
                    = QJsonDocument::fromJson(readText(dataDir() + QStringLiteral("/traces/") + c).toUtf8()).object();
                if (doc.value(QLatin1String("archive")).toString().endsWith(QLatin1Char('/') + stem + QLatin1String(".pt")))
                    set = doc.value(QLatin1String("sets")).toArray().at(0).toString();
            }
        }
        if (set.isEmpty())
            QSKIP("no input set known for this archive");
        const Run graph = runCli({ QStringLiteral("graph"), archive, QStringLiteral("--format"), QStringLiteral("json") });
        QVERIFY2(graph.code == 0, qPrintable(graph.err));
        const Run check = runCli({ QStringLiteral("check"), archive, QStringLiteral("--inputs"), set });
        QVERIFY2(check.code == 0 || check.code == 1, qPrintable(check.err + check.out.left(2000)));
        QVERIFY2(check.out.contains(QLatin1String("verdict: ")), qPrintable(check.out.left(2000)));
    }

    void badInputSets_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("firstLine");
        QTest::addColumn<QString>("caretLine");
        const QString example = QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
        QTest::addRow("bad dimension") << QStringList { "trace", example, "--inputs", "f32[3,4,x]" }
                                       << "jitscope-cli: error: --inputs 'f32[3,4,x]': expected a dimension at column 9"
                                       << "          ^";
        QTest::addRow("bad dtype") << QStringList { "check", example, "--inputs", "q8[2]" }
                                   << "jitscope-cli: error: --inputs 'q8[2]': unknown dtype 'q8'"
                                   << "  ^";
    }

    void badInputSets()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, firstLine);
        QFETCH(QString, caretLine);
        const Run r = runCli(args);
        QCOMPARE(r.code, 2);
        const QStringList lines = r.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QVERIFY2(lines[0].startsWith(firstLine), qPrintable(r.err));
        QCOMPARE(lines[2], caretLine);
    }

    void refusesHugeInputsAndEndlessLoops()
    {
        const QString example = QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
        const Run huge = runCli(
            { QStringLiteral("trace"), example, QStringLiteral("--inputs"), QStringLiteral("f32[100000,100000,100]") });
        QCOMPARE(huge.code, 2);
        QVERIFY2(huge.err.contains(QLatin1String("more than the memory budget of 2048 MiB")), qPrintable(huge.err));
        const Run budget = runCli({ QStringLiteral("trace"), example, QStringLiteral("--inputs"),
            QStringLiteral("f32[1024,1024]"), QStringLiteral("--max-memory"), QStringLiteral("1M") });
        QCOMPARE(budget.code, 2);
        const Run spin = runCli({ QStringLiteral("trace"), dataDir() + QStringLiteral("/bad/infinite_loop.py"),
            QStringLiteral("--timeout"), QStringLiteral("2") });
        QCOMPARE(spin.code, 2);
        // How long it takes is a figure of bench/bench_stop; here it must stop at all. The trace's own check stops
        // it at line 6; when freeing the recorded trace takes longer than 100 ms, the watchdog names the last
        // operator's line instead.
        QVERIFY2(
            QRegularExpression(QStringLiteral("^jitscope-cli: error: [^\\n]*infinite_loop\\.py:(6:4: did not finish "
                                              "within 2 s; stopped here, in iteration [0-9]+ of the loop at line 6|"
                                              "7: did not finish within 2 s; stopped while tracing input set 1, "
                                              "after aten::add)"))
                .match(spin.err)
                .hasMatch(),
            qPrintable(spin.err));
        const Run run = runCli({ QStringLiteral("run"), dataDir() + QStringLiteral("/bad/infinite_loop.py"),
            QStringLiteral("--timeout"), QStringLiteral("1") });
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains(QLatin1String("infinite_loop.py:6:4: did not finish within 1 s; stopped here, in "
                                                "iteration ")),
            qPrintable(run.err));
        // A loop over a size: bool[2^63-1, 0] needs no memory and loops 2^63 times.
        const Run sized = runCli(
            { QStringLiteral("run"), dataDir() + QStringLiteral("/hostile/size_loop.py"), QStringLiteral("--inputs"),
                QStringLiteral("bool[9223372036854775807,0]"), QStringLiteral("--timeout"), QStringLiteral("1") });
        QCOMPARE(sized.code, 2);
        QVERIFY2(
            sized.err.contains(QLatin1String("size_loop.py:7:4: did not finish within 1 s")), qPrintable(sized.err));
    }

    void runStepsAndBreakpoints()
    {
        const QString example = QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
        const Run r = runCli({ QStringLiteral("run"), example, QStringLiteral("--break"), QStringLiteral("7"),
            QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        // The exact node sequence, with loop iteration paths.
        QStringList sequence;
        for (const auto& step : o.value(QStringLiteral("steps")).toArray()) {
            const QJsonObject s = step.toObject();
            QString item = s.value(QStringLiteral("kind")).toString();
            for (const auto& f : s.value(QStringLiteral("loop_path")).toArray())
                item += QStringLiteral("@%1#%2")
                            .arg(f.toObject().value(QStringLiteral("line")).toInt())
                            .arg(f.toObject().value(QStringLiteral("iteration")).toInt());
            sequence << item;
        }
        QCOMPARE(sequence,
            (QStringList { "aten::select", "aten::size", "aten::select@6#1", "aten::mul@6#1", "aten::select@6#2",
                "aten::mul@6#2", "aten::select@6#3", "aten::mul@6#3", "prim::Loop" }));
        // A breakpoint on a line inside the loop hits once per iteration, with the live values.
        const QJsonArray hits = o.value(QStringLiteral("breakpoints")).toArray();
        QCOMPARE(hits.size(), 3);
        const QJsonArray steps = o.value(QStringLiteral("steps")).toArray();
        auto valueOf = [](const QJsonObject& hit, const QString& name) {
            for (const auto& v : hit.value(QStringLiteral("values")).toArray())
                if (v.toObject().value(QStringLiteral("name")).toString() == name)
                    return v.toObject().value(QStringLiteral("value")).toObject();
            return QJsonObject();
        };
        for (int k = 0; k < 3; ++k) {
            const QJsonObject hit = hits[k].toObject();
            QCOMPARE(hit.value(QStringLiteral("line")).toInt(), 7);
            QCOMPARE(valueOf(hit, QStringLiteral("i")).value(QStringLiteral("text")).toString(), QString::number(k));
            // `result` at iteration k+1 is what the mul of iteration k produced.
            const double expected = k == 0 ? steps[0]
                                                 .toObject()
                                                 .value(QStringLiteral("outputs"))
                                                 .toArray()[0]
                                                 .toObject()
                                                 .value(QStringLiteral("value"))
                                                 .toObject()
                                                 .value(QStringLiteral("sum"))
                                                 .toDouble()
                                           : steps[1 + 2 * k]
                                                 .toObject()
                                                 .value(QStringLiteral("outputs"))
                                                 .toArray()[0]
                                                 .toObject()
                                                 .value(QStringLiteral("value"))
                                                 .toObject()
                                                 .value(QStringLiteral("sum"))
                                                 .toDouble();
            QCOMPARE(valueOf(hit, QStringLiteral("result")).value(QStringLiteral("sum")).toDouble(), expected);
        }
        // The result equals PyTorch's eager result on the same inputs (oracle fixture).
        const QJsonObject oracle
            = QJsonDocument::fromJson(readText(dataDir() + "/traces/loop_in_traced_fn.json").toUtf8()).object();
        const double eager = oracle.value(QStringLiteral("traces"))
                                 .toArray()[0]
                                 .toObject()
                                 .value(QStringLiteral("output"))
                                 .toObject()
                                 .value(QStringLiteral("sum"))
                                 .toDouble();
        const double ours
            = o.value(QStringLiteral("outputs")).toArray()[0].toObject().value(QStringLiteral("sum")).toDouble();
        QVERIFY2(std::abs(ours - eager) < 1e-5, qPrintable(QStringLiteral("%1 vs %2").arg(ours).arg(eager)));
    }

    void helpAndVersion()
    {
        const Run help = runCli({ QStringLiteral("--help") });
        QCOMPARE(help.code, 0);
        QVERIFY(help.out.contains(QLatin1String("graph FILE")));
        const Run version = runCli({ QStringLiteral("--version") });
        QCOMPARE(version.code, 0);
        QVERIFY2(version.out.contains(QLatin1String("libtorch " JITSCOPE_TEST_TORCH_VERSION)), qPrintable(version.out));
        const Run none = runCli({});
        QCOMPARE(none.code, 2);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
