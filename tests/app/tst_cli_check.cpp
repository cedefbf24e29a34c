// jitscope-cli's `check` as a user runs it: text, JSON, JUnit, Markdown and HTML reports, golden files, and traced
// archives checked against PyTorch on other input sets.

#include "clitest.h"
#include "report/irgraph.h"
#include "testutil.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace jitscope::test;

namespace {

using Run = CliRun;

/// Where a traced archive's outputs as `check --format json` prints them ("float32[100,4]") differ from the shapes
/// PyTorch gave (an oracle's [[100, 4], ...]); empty when they agree.
QString shapeMismatch(const QJsonArray& outputs, const QJsonArray& shapes)
{
    if (outputs.size() != shapes.size())
        return QStringLiteral("%1 outputs, PyTorch's %2").arg(outputs.size()).arg(shapes.size());
    for (int i = 0; i < shapes.size(); ++i) {
        QStringList dims;
        for (const QJsonValue& d : shapes.at(i).toArray())
            dims << QString::number(d.toInt());
        if (!outputs.at(i).toString().contains(QStringLiteral("[%1]").arg(dims.join(QLatin1Char(',')))))
            return QStringLiteral("output %1 is %2, PyTorch's [%3]")
                .arg(i)
                .arg(outputs.at(i).toString(), dims.join(QLatin1Char(',')));
    }
    return {};
}

} // namespace

class TestCliCheck : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    /// A traced archive checked on another image size (issue 22): no Python behind it, so each set runs the
    /// archive's own graph; a size of set 1 it baked in (int() of a traced size) is named at its node as what set
    /// 2 computes with, and a set it fails on names the failing node with its operands. PyTorch is the oracle:
    /// tests/oracle/make_detection_archives.py records what torch.jit.load's module gives on each set.
    void tracedArchiveOnOtherSets_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expectedText");
        QTest::addRow("resize") << "resize_traced"
                                << "the traced archive resizes set 2 (f32[3,256,384]) to set 1's size: output_size "
                                   "[320, 320] of aten::upsample_bilinear2d is baked in, from set 1 (image.size(1) "
                                   "and image.size(2) of set 1: 256 and 384 on set 2)";
        QTest::addRow("reshape") << "reshape_traced"
                                 << "the traced archive computes with set 1's size on set 2 (f32[3,256,384]): shape "
                                    "[3, 320, -1] of aten::reshape is baked in";
    }

    void tracedArchiveOnOtherSets()
    {
        QFETCH(QString, name);
        QFETCH(QString, expectedText);
        static QTemporaryDir dir;
        const QString archive = dir.filePath(name + QStringLiteral(".pt"));
        if (!QFileInfo::exists(archive)) {
            QProcess make;
            make.start(QStringLiteral(JITSCOPE_TEST_PYTHON),
                { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/make_detection_archives.py"), dir.path(), name });
            QVERIFY(make.waitForFinished(300000));
            QVERIFY2(make.exitCode() == 0, make.readAllStandardError().constData());
        }
        const QJsonArray oracle
            = QJsonDocument::fromJson(readText(dir.filePath(name + QStringLiteral(".json"))).toUtf8())
                  .object()
                  .value(QLatin1String("sets"))
                  .toArray();
        QCOMPARE(oracle.size(), 2);
        const QStringList args = { QStringLiteral("check"), archive, QStringLiteral("--inputs"),
            QStringLiteral("f32[3,320,320]"), QStringLiteral("--inputs"), QStringLiteral("f32[3,256,384]") };
        const Run text = runCli(args);
        QCOMPARE(text.code, 1);
        QVERIFY2(text.out.contains(expectedText), qPrintable(text.out));
        QVERIFY2(text.out.contains(QLatin1String("outputs (the traced archive's own graph run on each set")),
            qPrintable(text.out));
        const Run json = runCli(args + QStringList { QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(json.code, 1);
        const QJsonObject report = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(report.value(QLatin1String("traced_archive")).toBool(), true);
        const QJsonObject set2 = report.value(QLatin1String("outputs")).toArray().at(0).toObject();
        const QJsonObject expected = oracle.at(1).toObject();
        // Runs where PyTorch's archive runs, with its output shapes; fails where it fails, with its error.
        QCOMPARE(set2.value(QLatin1String("ran")).toBool(), expected.contains(QLatin1String("archive_outputs")));
        if (expected.contains(QLatin1String("archive_outputs"))) {
            const QJsonArray shape = expected.value(QLatin1String("archive_outputs")).toArray().at(0).toArray();
            QStringList dims;
            for (const QJsonValue& d : shape)
                dims << QString::number(d.toInt());
            const QString outputs = set2.value(QLatin1String("outputs")).toArray().at(0).toString();
            QVERIFY2(outputs.startsWith(QStringLiteral("float32[%1]").arg(dims.join(QLatin1Char(',')))),
                qPrintable(outputs));
            // The eager module computes another shape there: the baked size is why.
            QVERIFY(expected.value(QLatin1String("eager_outputs")) != expected.value(QLatin1String("archive_outputs")));
        } else {
            const QJsonObject failure = set2.value(QLatin1String("failure")).toObject();
            QCOMPARE(failure.value(QLatin1String("kind")).toString(), QStringLiteral("aten::reshape"));
            QString error = expected.value(QLatin1String("archive_error")).toString();
            error.remove(QStringLiteral("RuntimeError: "));
            QVERIFY2(failure.value(QLatin1String("error")).toString().contains(error),
                qPrintable(failure.value(QLatin1String("error")).toString()));
            QVERIFY(!failure.value(QLatin1String("operands")).toArray().isEmpty());
            QVERIFY2(text.out.contains(QLatin1String("the traced archive fails on set 2 at %")), qPrintable(text.out));
        }
        // The warning stands at the node's line, in the script that was traced.
        bool warned = false;
        for (const QJsonValue& w : report.value(QLatin1String("warnings")).toArray())
            warned |= w.toObject().value(QLatin1String("message")).toString().startsWith(expectedText.left(40));
        QVERIFY(warned);
        // The same in the shared report formats.
        const Run junit = runCli(args + QStringList { QStringLiteral("--format"), QStringLiteral("junit") });
        QVERIFY2(junit.out.contains(expectedText.toHtmlEscaped().left(60)), qPrintable(junit.out));
        const Run markdown = runCli(args + QStringList { QStringLiteral("--format"), QStringLiteral("markdown") });
        QVERIFY2(markdown.out.contains(expectedText.toHtmlEscaped().left(60)), qPrintable(markdown.out));
    }

    /// Issue 22's traced detection model (torchvision, weights=None): it opens with no option, and checked at
    /// 256x384 it runs, with PyTorch's output shapes, and bakes nothing of set 1's size: torchvision's transform
    /// traces its resize from the image's shape, and PyTorch's archive resizes 256x384 to 320x480 as eager does.
    void tracedDetectionArchive()
    {
        const QString python = QStringLiteral(JITSCOPE_TEST_PYTHON);
        if (QProcess::execute(python, { QStringLiteral("-c"), QStringLiteral("import torchvision") }) != 0)
            QSKIP("no torchvision for the engine's Python");
        QTemporaryDir dir;
        QProcess make;
        make.start(python,
            { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/make_detection_archives.py"), dir.path(),
                QStringLiteral("det_traced") });
        QVERIFY(make.waitForFinished(600000));
        QVERIFY2(make.exitCode() == 0, make.readAllStandardError().constData());
        const QString archive = dir.filePath(QStringLiteral("det_traced.pt"));
        const QJsonArray oracle
            = QJsonDocument::fromJson(readText(dir.filePath(QStringLiteral("det_traced.json"))).toUtf8())
                  .object()
                  .value(QLatin1String("sets"))
                  .toArray();
        const QJsonObject set2 = oracle.at(1).toObject();
        QCOMPARE(
            set2.value(QLatin1String("archive_backbone_input")), set2.value(QLatin1String("eager_backbone_input")));
        const Run list = runCli({ QStringLiteral("list"), archive });
        QCOMPARE(list.code, 0);
        QVERIFY2(list.out.contains(QLatin1String("operator libraries:")), qPrintable(list.out));
        const Run check = runCli({ QStringLiteral("check"), archive, QStringLiteral("--inputs"),
            QStringLiteral("f32[3,320,320]"), QStringLiteral("--inputs"), QStringLiteral("f32[3,256,384]"),
            QStringLiteral("--format"), QStringLiteral("json") });
        const QJsonObject report = QJsonDocument::fromJson(check.out.toUtf8()).object();
        QVERIFY2(report.value(QLatin1String("traced_archive")).toBool(), qPrintable(check.out.left(2000)));
        const QJsonObject run = report.value(QLatin1String("outputs")).toArray().at(0).toObject();
        QVERIFY2(run.value(QLatin1String("ran")).toBool(), qPrintable(run.value(QLatin1String("error")).toString()));
        const QJsonArray outputs = run.value(QLatin1String("outputs")).toArray();
        const QJsonArray shapes = set2.value(QLatin1String("archive_outputs")).toArray();
        const QString mismatch = shapeMismatch(outputs, shapes);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
        for (const QJsonValue& w : report.value(QLatin1String("warnings")).toArray())
            QVERIFY2(!w.toObject()
                          .value(QLatin1String("message"))
                          .toString()
                          .startsWith(QLatin1String("the traced archive")),
                qPrintable(w.toObject().value(QLatin1String("message")).toString()));
        QCOMPARE(check.code, 0);
    }

    /// Archives only torch 2.x writes (issue 28: SDPA in a traced ViT and a scripted transformer encoder, RMSNorm),
    /// made by the engine's torch (tests/oracle/make_torch2_archives.py, real torch.nn and torchvision code): each
    /// opens, lays out, offers the input set guessed from its parameters (but the encoder, whose input meets
    /// attention's checks first), and checks on it and on a second set, with the output shapes PyTorch's
    /// torch.jit.load of the same archive gives.
    void torch2Archives_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("op"); ///< an operator libtorch 1.13 did not have, in the archive's graph
        QTest::newRow("ViT traced (SDPA)") << "vit_traced" << "aten::scaled_dot_product_attention";
        QTest::newRow("transformer encoder scripted") << "encoder_scripted" << "aten::_transformer_encoder_layer_fwd";
        QTest::newRow("RMSNorm traced") << "rmsnorm_traced" << "aten::rms_norm";
        QTest::newRow("RMSNorm scripted") << "rmsnorm_scripted" << "aten::rms_norm";
    }

    void torch2Archives()
    {
        QFETCH(QString, name);
        QFETCH(QString, op);
        static QTemporaryDir dir; // made once for all rows
        const QString archive = dir.filePath(name + QStringLiteral(".pt"));
        if (!QFileInfo::exists(archive)) {
            QProcess make;
            make.start(QStringLiteral(JITSCOPE_TEST_PYTHON),
                { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/make_torch2_archives.py"), dir.path() });
            QVERIFY(make.waitForFinished(300000));
            QVERIFY2(make.exitCode() == 0, make.readAllStandardError().constData());
        }
        const QJsonObject oracle
            = QJsonDocument::fromJson(readText(dir.filePath(name + QStringLiteral(".json"))).toUtf8()).object();
        const QJsonArray sets = oracle.value(QLatin1String("sets")).toArray();
        const Run list = runCli({ QStringLiteral("list"), archive });
        QCOMPARE(list.code, 0);
        if (oracle.value(QLatin1String("guessed")).toBool())
            QVERIFY2(list.out.contains(QLatin1String("suggested input set: ") + sets.at(0).toString()),
                qPrintable(list.out));
        const Run graph = runCli({ QStringLiteral("graph"), archive, QStringLiteral("--inline") });
        QCOMPARE(graph.code, 0);
        QVERIFY2(graph.out.contains(op), qPrintable(graph.out.left(3000)));
        const Run dot = runCli({ QStringLiteral("graph"), archive, QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(dot.code, 0);
        const Run check = runCli({ QStringLiteral("check"), archive, QStringLiteral("--inputs"), sets.at(0).toString(),
            QStringLiteral("--inputs"), sets.at(1).toString(), QStringLiteral("--format"), QStringLiteral("json") });
        QVERIFY2(check.code == 0 || check.code == 1, qPrintable(check.err));
        const QJsonObject report = QJsonDocument::fromJson(check.out.toUtf8()).object();
        const QJsonArray runs = report.value(QLatin1String("outputs")).toArray();
        const QJsonArray expected = oracle.value(QLatin1String("outputs")).toArray();
        if (report.value(QLatin1String("traced_archive")).toBool()) {
            // Set 2 runs the archive's own graph: its outputs have PyTorch's shapes.
            QCOMPARE(runs.size(), expected.size() - 1);
            for (int k = 0; k < runs.size(); ++k) {
                const QJsonObject run = runs.at(k).toObject();
                QVERIFY2(run.value(QLatin1String("ran")).toBool(), qPrintable(run.value(QLatin1String("error")).toString()));
                const QJsonArray shapes = expected.at(run.value(QLatin1String("set")).toInt()).toArray();
                const QJsonArray outputs = run.value(QLatin1String("outputs")).toArray();
                const QString mismatch = shapeMismatch(outputs, shapes);
                QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
            }
            QCOMPARE(check.code, 0);
        } else {
            // A scripted archive is traced by the executor on both sets: both traces are recorded, and trace 1 runs
            // on set 2 against the script.
            const QJsonArray traces = report.value(QLatin1String("traces")).toArray();
            QCOMPARE(traces.size(), 2);
            for (const QJsonValue& t : traces)
                QVERIFY2(t.toObject().value(QLatin1String("ok")).toBool(), qPrintable(check.out.left(3000)));
        }
    }

    void traceAndCheck()
    {
        const QString example = QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
        const Run trace
            = runCli({ QStringLiteral("trace"), example, QStringLiteral("--inputs"), QStringLiteral("f32[3,4,5]") });
        QCOMPARE(trace.code, 0);
        QCOMPARE(jitscope::canonicalizeDump(trace.out),
            jitscope::canonicalizeDump(
                readText(dataDir() + "/expected/loop_in_traced_fn.loop_in_traced_fn.trace.txt")));
        // The file's own inputs and check_inputs: diverged, exit 1, the loop named as the cause.
        const Run check = runCli({ QStringLiteral("check"), example });
        QCOMPARE(check.code, 1);
        QVERIFY2(check.out.contains(QLatin1String("trace 2 vs trace 1: 1 divergence(s), 4 node difference(s)\n"
                                                  "  [loop-unrolled] loop at line 6 unrolled 3 times in trace 1 but 4 "
                                                  "times in trace 2: trip count x.size(0)\n")),
            qPrintable(check.out));
        QVERIFY(check.out.contains(QLatin1String("    6 |     for i in range(x.size(0)):\n")));
        QVERIFY(check.out.contains(QLatin1String("    nodes: 0 in trace 1, 4 in trace 2\n")));
        // Node rows only with --verbose.
        QVERIFY(!check.out.contains(QLatin1String("aten::mul")));
        const Run verbose = runCli({ QStringLiteral("check"), example, QStringLiteral("--verbose") });
        QVERIFY(verbose.out.contains(QLatin1String("    + %")));
        QVERIFY(verbose.out.contains(QLatin1String("aten::mul")));
        // Where trace 1 fails on set 3 (2 rows, and trace 1 indexes a third): the node with its operands.
        QVERIFY2(check.out.contains(QLatin1String("  trace 1 fails on set 3 at %")), qPrintable(check.out));
        QVERIFY(check.out.trimmed().endsWith(QLatin1String("verdict: diverged")));
        // Consistent sets: exit 0.
        const Run same = runCli({ QStringLiteral("check"), example, QStringLiteral("--inputs"),
            QStringLiteral("f32[3,4,5]"), QStringLiteral("--inputs"), QStringLiteral("f32[3,2,2]") });
        QCOMPARE(same.code, 0);
        QVERIFY(same.out.contains(QLatin1String("verdict: consistent")));
        // JSON in the documented shape.
        const Run json
            = runCli({ QStringLiteral("check"), example, QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(json.code, 1);
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("verdict")).toString(), QStringLiteral("diverged"));
        QCOMPARE(o.value(QStringLiteral("traces")).toArray().size(), 3);
        QVERIFY(o.value(QStringLiteral("script")).toString().contains(QLatin1String("prim::Loop")));
        const QJsonArray diffs = o.value(QStringLiteral("diffs")).toArray();
        QCOMPARE(diffs.size(), 2);
        const QJsonObject change = diffs[0].toObject().value(QStringLiteral("changes")).toArray().first().toObject();
        QCOMPARE(change.value(QStringLiteral("op")).toString(), QStringLiteral("insert"));
        QVERIFY(change.value(QStringLiteral("cause")).toString().contains(QLatin1String("x.size(0)")));
        QCOMPARE(change.value(QStringLiteral("line")).toInt(), 7);
        QCOMPARE(change.value(QStringLiteral("kind")).toString(), QStringLiteral("loop-unrolled"));
        QCOMPARE(change.value(QStringLiteral("divergence")).toInt(), 0);
        // The divergences: one cause each, with its place, nodes and evidence.
        const QJsonArray divergences = diffs[0].toObject().value(QStringLiteral("divergences")).toArray();
        QCOMPARE(divergences.size(), 1);
        const QJsonObject loop = divergences[0].toObject();
        QCOMPARE(loop.value(QStringLiteral("kind")).toString(), QStringLiteral("loop-unrolled"));
        QCOMPARE(loop.value(QStringLiteral("line")).toInt(), 6);
        QCOMPARE(loop.value(QStringLiteral("nodes")).toObject().value(QStringLiteral("other")).toArray().size(), 4);
        QCOMPARE(loop.value(QStringLiteral("changes")).toArray().size(), 4);
        QVERIFY(!loop.value(QStringLiteral("evidence")).toArray().isEmpty());
        QVERIFY(loop.contains(QStringLiteral("scope")) && loop.contains(QStringLiteral("stack")));
        const QJsonObject failure
            = o.value(QStringLiteral("outputs")).toArray()[1].toObject().value(QStringLiteral("failure")).toObject();
        QCOMPARE(failure.value(QStringLiteral("line")).toInt(), 7);
        QVERIFY(!failure.value(QStringLiteral("operands")).toArray().isEmpty());
        bool loopWarning = false;
        for (const auto& w : o.value(QStringLiteral("warnings")).toArray())
            loopWarning
                |= w.toObject().value(QStringLiteral("kind")).toString() == QLatin1String("shape-dependent-loop");
        QVERIFY(loopWarning);
        QCOMPARE(o.value(QStringLiteral("outputs")).toArray().size(), 2);
    }

    /// A parameter without annotation that receives a tuple, in a def that does not compile with it as a Tensor
    /// (`a, b = pair`): trace, check and run compile it with the set's types, as torch.jit.trace takes whatever it
    /// is given; the trace is PyTorch's (tests/data/traces/tuple_argument.json, made by the oracle).
    void tupleArgumentOfAnUncompiledDef()
    {
        const QString file = dataDir() + QStringLiteral("/corpus/binding_edges.py");
        QFile fixture(dataDir() + QStringLiteral("/traces/tuple_argument.json"));
        QVERIFY(fixture.open(QIODevice::ReadOnly));
        const QJsonObject oracle = QJsonDocument::fromJson(fixture.readAll()).object();
        const QJsonArray sets = oracle.value(QStringLiteral("sets")).toArray();
        const QJsonArray traces = oracle.value(QStringLiteral("traces")).toArray();
        QCOMPARE(sets.size(), 2);
        for (int k = 0; k < sets.size(); ++k) {
            const Run trace = runCli({ QStringLiteral("trace"), file, QStringLiteral("--fn"),
                QStringLiteral("tuple_argument"), QStringLiteral("--inputs"), sets[k].toString() });
            QCOMPARE(trace.code, 0);
            QCOMPARE(jitscope::canonicalizeDump(trace.out),
                jitscope::canonicalizeDump(traces[k].toObject().value(QStringLiteral("graph")).toString()));
        }
        const Run check
            = runCli({ QStringLiteral("check"), file, QStringLiteral("--fn"), QStringLiteral("tuple_argument"),
                QStringLiteral("--inputs"), sets[0].toString(), QStringLiteral("--inputs"), sets[1].toString() });
        QCOMPARE(check.code, 0);
        QVERIFY2(check.out.contains(QLatin1String("verdict: consistent")), qPrintable(check.out + check.err));
        const Run run = runCli({ QStringLiteral("run"), file, QStringLiteral("--fn"), QStringLiteral("tuple_argument"),
            QStringLiteral("--inputs"), sets[0].toString() });
        QCOMPARE(run.code, 0);
        QVERIFY2(run.out.contains(QLatin1String("returned: float32[2]")), qPrintable(run.out + run.err));
        // Given a tensor, the def is what it is: TorchScript's error at its line.
        const Run tensor = runCli({ QStringLiteral("trace"), file, QStringLiteral("--fn"),
            QStringLiteral("tuple_argument"), QStringLiteral("--inputs"), QStringLiteral("f32[2]") });
        QCOMPARE(tensor.code, 2);
        QVERIFY2(tensor.err.contains(QLatin1String("binding_edges.py:39:")), qPrintable(tensor.err));
    }

    /// The same graph, other values, in JitScope's own check (a dropout left on in a .py function): text says where,
    /// JSON carries the divergence with both runs' values side by side, and --no-values leaves it out.
    void valuesPartWays()
    {
        const QString file = dataDir() + QStringLiteral("/values/noisy_mlp.py");
        const Run text = runCli({ QStringLiteral("check"), file });
        QCOMPARE(text.code, 1);
        QVERIFY2(text.out.contains(QLatin1String("trace 2 vs trace 1: same graph, other values: 1 divergence(s)")),
            qPrintable(text.out));
        QVERIFY2(text.out.contains(QLatin1String("[value] the script function run twice on this set differs too: "
                                                 "`aten::dropout`")),
            qPrintable(text.out));
        QVERIFY2(text.out.contains(QLatin1String("noisy_mlp.py:10")), qPrintable(text.out));
        const Run json = runCli({ QStringLiteral("check"), file, QStringLiteral("--format"), QStringLiteral("json") });
        const QJsonObject doc = QJsonDocument::fromJson(json.out.toUtf8()).object();
        const QJsonObject diff = doc.value(QStringLiteral("diffs")).toArray().at(0).toObject();
        QVERIFY(diff.value(QStringLiteral("equal")).toBool());
        const QJsonObject value = diff.value(QStringLiteral("divergences")).toArray().at(0).toObject();
        QCOMPARE(value.value(QStringLiteral("kind")).toString(), QStringLiteral("value"));
        QCOMPARE(value.value(QStringLiteral("line")).toInt(), 10);
        QCOMPARE(value.value(QStringLiteral("other_run")).toString(), QStringLiteral("the script function"));
        const QJsonObject node = value.value(QStringLiteral("values")).toArray().at(0).toObject();
        QCOMPARE(node.value(QStringLiteral("what")).toString(), QStringLiteral("aten::dropout"));
        QVERIFY(node.value(QStringLiteral("trace")).toString().startsWith(QLatin1String("float32[128x512]")));
        QVERIFY(node.value(QStringLiteral("other")).toString().startsWith(QLatin1String("float32[128x512]")));
        QVERIFY(node.value(QStringLiteral("trace")).toString() != node.value(QStringLiteral("other")).toString());
        const Run off = runCli({ QStringLiteral("check"), file, QStringLiteral("--no-values") });
        QCOMPARE(off.code, 1);
        QVERIFY2(off.out.contains(QLatin1String("trace 2 vs trace 1: same graph\n")), qPrintable(off.out));
        QVERIFY(!off.out.contains(QLatin1String("[value]")));
    }

    /// A real model left in train mode (torch.nn's TransformerEncoder, scripted): the graphs agree, the outputs do
    /// not, and the check names the attention whose dropout makes two runs differ. PyTorch is the oracle: the archive
    /// loaded back with torch.jit.load gives other outputs on two runs of the same set.
    void valuesPartWaysInARealModel()
    {
        QTemporaryDir dir;
        QProcess make;
        make.start(QStringLiteral(JITSCOPE_TEST_PYTHON), { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/make_torch2_archives.py"),
                                                            dir.path(), QStringLiteral("encoder_train") });
        QVERIFY(make.waitForFinished(300000));
        QVERIFY2(make.exitCode() == 0, make.readAllStandardError().constData());
        const QJsonObject oracle
            = QJsonDocument::fromJson(readText(dir.filePath(QStringLiteral("encoder_train.json"))).toUtf8()).object();
        QVERIFY(oracle.value(QLatin1String("nondeterministic")).toBool());
        const QJsonArray sets = oracle.value(QLatin1String("sets")).toArray();
        const Run check = runCli({ QStringLiteral("check"), dir.filePath(QStringLiteral("encoder_train.pt")),
            QStringLiteral("--inputs"), sets.at(0).toString(), QStringLiteral("--inputs"), sets.at(1).toString(),
            QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(check.code, 1);
        const QJsonObject diff = QJsonDocument::fromJson(check.out.toUtf8())
                                     .object()
                                     .value(QLatin1String("diffs"))
                                     .toArray()
                                     .at(0)
                                     .toObject();
        QVERIFY(diff.value(QLatin1String("equal")).toBool());
        const QJsonObject value = diff.value(QLatin1String("divergences")).toArray().at(0).toObject();
        QCOMPARE(value.value(QLatin1String("kind")).toString(), QStringLiteral("value"));
        QCOMPARE(value.value(QLatin1String("scope")).toString(), QStringLiteral("layers.0.self_attn"));
        QCOMPARE(value.value(QLatin1String("scope_type")).toString(), QStringLiteral("MultiheadAttention"));
        const QString message = value.value(QLatin1String("message")).toString();
        QVERIFY2(message.startsWith(QLatin1String("the script function run twice on this set differs too: "
                                                  "`aten::scaled_dot_product_attention`")),
            qPrintable(message));
    }

    /// `check` output, text and JSON, as golden files (JitScope's own output: regenerate them with the CLI when it
    /// changes on purpose; a mismatch writes <golden>.actual). Paths are relative to the source tree.
    void checkGoldens_data()
    {
        QTest::addColumn<QString>("golden");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        const QString example = QStringLiteral("examples/loop_in_traced_fn.py");
        const QString archive = QStringLiteral("tests/data/archives/shape_branch.pt");
        const QStringList archiveSets = { "--inputs", "f32[2,4]", "--inputs", "f32[5,4]", "--inputs", "f32[2,3,4]" };
        QTest::addRow("loop text") << "loop_in_traced_fn.check.txt" << QStringList { "check", example } << 1;
        QTest::addRow("loop json") << "loop_in_traced_fn.check.json"
                                   << QStringList { "check", example, "--format", "json" } << 1;
        QTest::addRow("loop consistent") << "loop_in_traced_fn.consistent.check.txt"
                                         << QStringList { "check", example, "--inputs", "f32[3,4,5]", "--inputs",
                                                "f32[3,2,2]" }
                                         << 0;
        QTest::addRow("archive text") << "shape_branch.check.txt" << QStringList { "check", archive } + archiveSets
                                      << 1;
        QTest::addRow("archive json") << "shape_branch.check.json"
                                      << QStringList { "check", archive, "--format", "json" } + archiveSets << 1;
        QTest::addRow("loop junit") << "loop_in_traced_fn.check.junit.xml"
                                    << QStringList { "check", example, "--format", "junit" } << 1;
        QTest::addRow("loop consistent junit")
            << "loop_in_traced_fn.consistent.check.junit.xml"
            << QStringList { "check", example, "--format", "junit", "--inputs", "f32[3,4,5]", "--inputs", "f32[3,2,2]" }
            << 0;
        // A loop over the time axis one module down (issue 22): explained in its module, at its line.
        const QString seq2vec = QStringLiteral("tests/data/archives/seq2vec.pt");
        QTest::addRow("submodule loop text")
            << "seq2vec.check.txt"
            << QStringList { "check", seq2vec, "--inputs", "f32[2,3,4]", "--inputs", "f32[2,5,4]" } << 1;
        QTest::addRow("submodule loop json")
            << "seq2vec.check.json"
            << QStringList { "check", seq2vec, "--format", "json", "--inputs", "f32[2,3,4]", "--inputs", "f32[2,5,4]" }
            << 1;
        // nn.MultiheadAttention checked as PyTorch checks it (the check inputs under no_grad): its fast path.
        QTest::addRow("attention fast path") << "self_attention.check.txt"
                                             << QStringList { "check", "tests/data/archives/self_attention.pt",
                                                    "--inputs", "f32[2,5,8]", "--inputs", "f32[2,3,8]" }
                                             << 1;
        QTest::addRow("archive junit") << "shape_branch.check.junit.xml"
                                       << QStringList { "check", archive, "--format", "junit" } + archiveSets << 1;
        QTest::addRow("loop markdown") << "loop_in_traced_fn.check.md"
                                       << QStringList { "check", example, "--format", "markdown", "--html-link",
                                              "https://ci.example/artifacts/report.html" }
                                       << 1;
        QTest::addRow("loop html") << "loop_in_traced_fn.check.html"
                                   << QStringList { "check", example, "--format", "html" } << 1;
    }

    void checkGoldens()
    {
        QFETCH(QString, golden);
        QFETCH(QStringList, args);
        QFETCH(int, code);
        for (QString& a : args)
            if (a.endsWith(QLatin1String(".py")) || a.endsWith(QLatin1String(".pt")))
                a = QStringLiteral(JITSCOPE_SOURCE_DIR "/") + a;
        const Run r = runCli(args);
        QCOMPARE(r.code, code);
        QString out = r.out;
        // torch's own files (torch.nn's), wherever a torch installed them: this machine's, or the fixed place the
        // oracle's archives name (tests/oracle/generate.py, ORACLE_PREFIX).
        static const QRegularExpression sitePackages(QStringLiteral("/[^\\s:'\"]*/site-packages/"));
        out.replace(sitePackages, QStringLiteral("<site-packages>/"));
        out.replace(QStringLiteral(JITSCOPE_SOURCE_DIR "/"), QString());
        const QString path = dataDir() + QStringLiteral("/cli/") + golden;
        QVERIFY2(
            matchesGolden(out, readText(path), path), qPrintable(QStringLiteral("diff -u %1 %1.actual").arg(path)));
    }

    /// The HTML report's graphs are the CLI's SVG pictures: `trace --format svg` and the report draw trace 1 through
    /// one renderer (graphSvg()), the page carrying the style sheet that the file holds.
    void htmlGraphIsTheTraceSvg()
    {
        const QString example = QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
        const Run svg = runCli({ "trace", example, "--inputs", "f32[3,4]", "--format", "svg" });
        QCOMPARE(svg.code, 0);
        const Run html
            = runCli({ "check", example, "--inputs", "f32[3,4]", "--inputs", "f32[3,4]", "--format", "html" });
        QCOMPARE(html.code, 0);
        // From the arrowhead's definition to the end: the drawing, without the root element, title and style.
        auto drawing = [](const QString& text) {
            const qsizetype from = text.indexOf(QLatin1String("<defs>"));
            const qsizetype to = text.indexOf(QLatin1String("</svg>"), from);
            return from < 0 || to < 0
                ? QString()
                : text.mid(from, to - from)
                      .replace(QRegularExpression(QStringLiteral("arrow\\d+")), QStringLiteral("arrow"));
        };
        QVERIFY(svg.out.startsWith(QLatin1String("<?xml")));
        QVERIFY(svg.out.contains(QLatin1String("<style>")));
        const QString file = drawing(svg.out);
        QVERIFY2(file.contains(QLatin1String(">aten::mul</text>")), qPrintable(svg.out.left(2000)));
        QCOMPARE(drawing(html.out), file);
    }

    /// The HTML report is one self-contained page: it renders in headless Chromium with its inline SVG graphs and
    /// no console error, and asks for nothing from elsewhere.
    void htmlReportRendersInChromium()
    {
        QTemporaryDir dir;
        const QString page = dir.filePath(QStringLiteral("report.html"));
        const Run r = runCli({ "check", QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py"),
            "--format", "html", "-o", page });
        QCOMPARE(r.code, 1);
        const RenderedPage rendered = renderReport(page, dir.filePath(QStringLiteral("profile")));
        QVERIFY2(rendered.error.isEmpty(), qPrintable(rendered.error));
        const QString& dom = rendered.dom;
        QCOMPARE(dom.count(QLatin1String("<svg")), 4); // trace 1 and trace k, for each of the two diverging sets
        QVERIFY(dom.contains(QLatin1String("class=\"node inserted\"")) || dom.contains(QLatin1String("inserted\">")));
        QVERIFY(dom.contains(QLatin1String("id=\"L7\"")));
    }
};

QTEST_GUILESS_MAIN(TestCliCheck)
#include "tst_cli_check.moc"
