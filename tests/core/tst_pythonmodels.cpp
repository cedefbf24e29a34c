// Real models as people export them (tests/data/python/models/: torchvision's detection and segmentation models
// with weights=None, torch.nn's LSTM over packed sequences and TransformerEncoder, a YOLO-style cached grid, ...),
// recorded by the Python bridge: the graphs must be the ones PyTorch's own check compared, inlined with their
// module scopes (fixtures: tests/oracle/generate_recorded.py, which records what torch.jit._trace's check
// canonicalizes), every warning at its place with its stack, and every kind of outcome told apart.

#include "bridge/pythoncheck.h"
#include "bridge/runpython.h"
#include "debug/debugsession.h"
#include "testutil.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace jitscope;

namespace {

QString modelFile(const QString& name)
{
    return test::dataDir() + QStringLiteral("/python/models/") + name + QStringLiteral(".py");
}

/// The Python the files run under: the engine's (torch 2.x), or $JITSCOPE_PYTHON (the tst_pythonmodels_torch113
/// run: Debian's torch 1.13), as runPythonFile() picks it.
QString testPython()
{
    const QString env = qEnvironmentVariable("JITSCOPE_PYTHON");
    return env.isEmpty() ? QStringLiteral(JITSCOPE_TEST_PYTHON) : env;
}

/// Its torch's version ("2.14.1+cu130"), empty when it has none.
QString torchVersion()
{
    static const QString version = [] {
        QProcess p;
        p.start(testPython(), { QStringLiteral("-c"), QStringLiteral("import torch; print(torch.__version__)") });
        if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
            return QString();
        return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    }();
    return version;
}

/// The expectations below that name lines of torch's and torchvision's own files, or that need a model to diverge,
/// are those of Debian's torch 1.13 and torchvision 0.14 (the models were written against them): under torch 2.x,
/// only what the fixtures PyTorch wrote say is checked.
bool torch113()
{
    return torchVersion().startsWith(QLatin1String("1.13"));
}

#define REQUIRE_TORCH_113()                                                                                           \
    do {                                                                                                              \
        if (!torch113())                                                                                              \
            QSKIP("names lines of torch 1.13's and torchvision 0.14's files: tst_pythonmodels_torch113 checks it");   \
    } while (false)

QString fixtureDir()
{
    return test::dataDir()
        + (torch113() ? QStringLiteral("/python/models/torch-1.13/") : QStringLiteral("/python/models/"));
}

bool haveTorchvision()
{
    static const bool have = [] {
        QProcess p;
        p.start(testPython(), { QStringLiteral("-c"), QStringLiteral("import torchvision") });
        return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    }();
    return have;
}

/// Each node depth first as the fixture lists them: kind and attribute text, mangled class names aside.
QStringList nodeRows(const IrGraph& g)
{
    static const QRegularExpression mangle(QStringLiteral("___torch_mangle_\\d+\\."));
    QStringList rows;
    for (const IrNode& n : g.nodes)
        rows << n.kind + QString(n.attributeText).remove(mangle);
    return rows;
}

QStringList strings(const QJsonValue& v)
{
    QStringList out;
    for (const QJsonValue& s : v.toArray())
        out << s.toString();
    return out;
}

/// The runs are slow (a detection model traces for seconds): each file is run once for all the tests.
const PythonRun& recorded(const QString& name)
{
    static QHash<QString, PythonRun> runs;
    auto it = runs.find(name);
    if (it == runs.end())
        it = runs.insert(name, runPythonFile(modelFile(name)));
    return *it;
}

QVector<const PythonCall*> traceCalls(const PythonRun& run)
{
    QVector<const PythonCall*> calls;
    for (const PythonCall& c : run.calls)
        if (c.api != QLatin1String("script"))
            calls << &c;
    return calls;
}

const PythonWarning* findWarning(const PythonCall& call, const QString& fileEnd, int line)
{
    for (const PythonWarning& w : call.warnings)
        if (w.location.file.endsWith(fileEnd) && w.location.line == line)
            return &w;
    return nullptr;
}

} // namespace

class TestPythonModels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (torchVersion().isEmpty())
            QSKIP(qPrintable(testPython() + QStringLiteral(" has no torch (Debian's python3-torch for the 1.13 run)")));
        if (qEnvironmentVariableIsSet("JITSCOPE_TEST_TORCH1") && !torch113())
            QSKIP(qPrintable(testPython() + QStringLiteral(" has torch ") + torchVersion() + QStringLiteral(", not 1.13")));
        qInfo("the models run under %s (torch %s)", qPrintable(testPython()), qPrintable(torchVersion()));
    }

    /// The traces of every recorded call are the graphs torch.jit.trace's check compared: the traced result's and,
    /// for each check input its check reached, the one it traced, node for node, each node in its module's scope.
    void graphsAreThoseThePyTorchCheckCompared_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("torchvision");
        QTest::addRow("detection") << "detection" << true;
        QTest::addRow("segmentation") << "segmentation" << true;
        QTest::addRow("packed LSTM") << "lstm_packed" << false;
        QTest::addRow("transformer with a mask") << "transformer_mask" << false;
        QTest::addRow("dict output") << "dict_output" << false;
        QTest::addRow("YOLO cached grid") << "yolo_grid" << false;
        QTest::addRow("YOLO state") << "yolo_state" << false;
        QTest::addRow("scripted helper") << "scripted_helper" << false;
    }

    void graphsAreThoseThePyTorchCheckCompared()
    {
        QFETCH(QString, name);
        QFETCH(bool, torchvision);
        if (torchvision && !haveTorchvision())
            QSKIP("no torchvision for the engine's Python");
        const QString fixturePath = fixtureDir() + name + QStringLiteral(".expected.json");
        const QJsonObject fixture = QJsonDocument::fromJson(test::readText(fixturePath).toUtf8()).object();
        const QJsonArray expectedCalls = fixture.value(QStringLiteral("calls")).toArray();
        QVERIFY2(!expectedCalls.isEmpty(), qPrintable(fixturePath));

        const PythonRun& run = recorded(name);
        QVERIFY2(run.ok, qPrintable(run.error.toString() + run.stderrText));
        const QVector<const PythonCall*> calls = traceCalls(run);
        QCOMPARE(calls.size(), expectedCalls.size());
        for (int c = 0; c < calls.size(); ++c) {
            const PythonCall& call = *calls[c];
            const QJsonObject expected = expectedCalls[c].toObject();
            const QJsonArray pairs = expected.value(QStringLiteral("pairs")).toArray();
            // PyTorch's own verdict, as its check gave it under this torch.
            QCOMPARE(call.checked && !call.checkPassed, expected.value(QStringLiteral("raised")).toBool());
            QVERIFY(!pairs.isEmpty());
            QVERIFY(call.traces.size() >= pairs.size() + 1);
            QVERIFY2(call.traces[0].ok, qPrintable(call.traces[0].error.toString()));
            for (int k = 0; k < pairs.size(); ++k) {
                const QJsonObject pair = pairs[k].toObject();
                const PythonTrace& checkTrace = call.traces[k + 1];
                QVERIFY2(checkTrace.ok, qPrintable(checkTrace.error.toString()));
                QVERIFY(!checkTrace.tracedHere); // PyTorch's own, not traced again
                QCOMPARE(nodeRows(call.traces[0].graph), strings(pair.value(QStringLiteral("trace"))));
                QCOMPARE(nodeRows(checkTrace.graph), strings(pair.value(QStringLiteral("check"))));
                QStringList scopes;
                for (const IrNode& n : checkTrace.graph.nodes)
                    scopes << n.scope;
                QCOMPARE(scopes, strings(pair.value(QStringLiteral("check_scopes"))));
            }
            // Every submodule's class, for the clusters.
            for (const IrNode& n : call.traces[0].graph.nodes)
                if (!n.modulePath.isEmpty())
                    QVERIFY2(call.moduleTypes.contains(n.modulePath), qPrintable(n.modulePath));
            const CheckReport check = checkRecordedCall(run, call, test::readText(modelFile(name)));
            bool graphsDiffer = false;
            for (const TraceDiff& d : check.diffs)
                graphsDiffer |= !d.equal;
            // JitScope's diff finds a difference where PyTorch's check found one, and only there.
            bool pairsDiffer = false;
            for (const QJsonValue& p : pairs)
                pairsDiffer |= !p.toObject().value(QStringLiteral("equal")).toBool();
            QCOMPARE(graphsDiffer, pairsDiffer);
        }
    }

    /// The detection model whole: about 2,000 nodes inlined, in the scopes of its submodules, and the warnings
    /// PyTorch raised inside torchvision (its own filter hides them from Python's output) at their places, with
    /// the stack down to the user's line.
    void detectionModelWhole()
    {
        REQUIRE_TORCH_113();
        if (!haveTorchvision())
            QSKIP("no torchvision for the engine's Python");
        const PythonRun& run = recorded(QStringLiteral("detection"));
        QVERIFY(run.ok);
        const PythonCall& call = *traceCalls(run).value(0);
        QVERIFY(call.traces[0].graph.nodes.size() > 1500);
        QCOMPARE(call.moduleTypes.value(QStringLiteral("model.rpn.head")), QStringLiteral("RPNHead"));
        QVERIFY(std::any_of(call.traces[0].graph.nodes.cbegin(), call.traces[0].graph.nodes.cend(),
            [](const IrNode& n) { return n.modulePath == QLatin1String("model.rpn.head.conv.0.0"); }));

        // batched_nms's size test: a TracerWarning Python's filters hid, raised all the same.
        const PythonWarning* nms = findWarning(call, QStringLiteral("torchvision/ops/boxes.py"), 72);
        QVERIFY(nms);
        QVERIFY(nms->hidden);
        QCOMPARE(nms->category, QStringLiteral("TracerWarning"));
        QCOMPARE(nms->userLocation.line, 15); // out = self.model([image])[0]
        QVERIFY(nms->userLocation.file.endsWith(QLatin1String("models/detection.py")));
        // torch._assert's tensor-to-bool, shown by Python: its stack names torchvision's caller and the user's line.
        const PythonWarning* assertion = findWarning(call, QStringLiteral("torch/__init__.py"), 853);
        QVERIFY(assertion);
        QVERIFY(!assertion->hidden);
        QVERIFY(assertion->count > 1); // duplicates folded with their count
        QVERIFY(std::any_of(assertion->stack.cbegin(), assertion->stack.cend(),
            [](const PythonFrame& f) { return f.location.file.endsWith(QLatin1String("torchvision/ops/_utils.py")); }));
        QCOMPARE(assertion->userLocation.line, 15);

        // In the report, that warning stands at a node: the innermost frame that recorded one.
        const CheckReport report = checkRecordedCall(run, call);
        bool placed = false;
        for (const TraceWarning& w : report.warnings)
            if (w.location.file.endsWith(QLatin1String("torch/__init__.py")) && w.traceIndex == 0) {
                placed |= w.traceNode >= 0;
                QVERIFY(w.stack.size() > 2);
                QVERIFY(w.occurrences > 1);
            }
        QVERIFY(placed);
        QCOMPARE(report.moduleTypes.value(QStringLiteral("model.backbone")), QStringLiteral("BackboneWithFPN"));

        // The check found another graph, so the example inputs were traced once more: that differs from trace 1
        // too, in the same module. The model's first call left state behind (PyTorch's 12 values against 8).
        QCOMPARE(call.traces.size(), 3);
        QVERIFY(call.traces[2].repeat);
        QVERIFY(call.traces[2].tracedHere);
        QCOMPARE(call.traces[2].inputs, call.traces[0].inputs);
        const CheckReport check = checkRecordedCall(run, call, test::readText(modelFile(QStringLiteral("detection"))));
        QCOMPARE(check.diffs.size(), 2);
        QSet<QString> causes;
        for (const TraceDiff& d : check.diffs) {
            QVERIFY(!d.equal);
            for (const NodeChange& c : d.changes)
                causes.insert(c.cause);
        }
        QCOMPARE(causes.size(), 2); // one per diff: every changed node in the one module
        for (const QString& cause : causes) {
            QVERIFY2(cause.contains(QLatin1String("module `model.roi_heads.box_roi_pool` (MultiScaleRoIAlign)")),
                qPrintable(cause));
            QVERIFY2(cause.contains(QLatin1String("module state")), qPrintable(cause));
        }
    }

    /// Every diff of a real model explained by a handful of divergences, each one cause with its kind, place,
    /// module and evidence, covering every changed node: not a row per node.
    void divergencesAtModelScale_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("torchvision");
        QTest::addColumn<int>("trace"); ///< the diff of trace k (0-based) against trace 1
        QTest::addColumn<int>("most"); ///< at most this many divergences
        QTest::addColumn<QString>("kind"); ///< of the divergence covering the most nodes
        QTest::addColumn<QString>("place"); ///< its place: FILE:LINE, FILE relative to its package
        QTest::addColumn<QString>("scope");
        QTest::addColumn<QString>("evidence"); ///< a part of one of its evidence lines
        // A submodule call with 12 feature maps in the first trace and 8 after: torchvision's MultiScaleRoIAlign
        // sets its scales on its first call.
        QTest::addRow("detection, check input") << "detection" << true << 1 << 1 << "module-state"
                                                << "torchvision/ops/roi_align.py:63"
                                                << "model.roi_heads.box_roi_pool"
                                                << "box_roi_pool.scales";
        QTest::addRow("detection, example again") << "detection" << true << 2 << 1 << "module-state"
                                                  << "torchvision/ops/roi_align.py:63"
                                                  << "model.roi_heads.box_roi_pool"
                                                  << "box_roi_pool.map_levels";
        // A cached grid decides a tensor-to-bool branch: the grid made in one trace, baked in the other.
        QTest::addRow("YOLO grid") << "yolo_grid" << false << 1 << 1 << "branch-frozen"
                                   << "yolo_grid.py:22"
                                   << "detect"
                                   << "tensor-to-bool at yolo_grid.py:22";
        QTest::addRow("YOLO grid, example again") << "yolo_grid" << false << 2 << 1 << "module-state"
                                                  << "yolo_grid.py:22"
                                                  << "detect"
                                                  << "tensor-to-bool";
        QTest::addRow("YOLO state") << "yolo_state" << false << 1 << 1 << "module-state"
                                    << "yolo_grid.py:22"
                                    << "detect"
                                    << "the call changed detect.grid";
        // int(batch_sizes[0]) in torch.nn's LSTM: the batch size baked, equal to x.size(0) in each set.
        QTest::addRow("packed LSTM") << "lstm_packed" << false << 1 << 1 << "number-baked"
                                     << "torch/nn/modules/rnn.py:"
                                     << "lstm"
                                     << "x.size(0) of each trace's inputs";
        // TransformerEncoderLayer's fast path, taken in one trace only.
        QTest::addRow("transformer with a mask") << "transformer_mask" << false << 1 << 3 << "branch-frozen"
                                                 << "torch/nn/modules/transformer.py:505"
                                                 << "encoder.layers"
                                                 << "";
    }

    void divergencesAtModelScale()
    {
        QFETCH(QString, name);
        QFETCH(bool, torchvision);
        QFETCH(int, trace);
        QFETCH(int, most);
        QFETCH(QString, kind);
        QFETCH(QString, place);
        QFETCH(QString, scope);
        QFETCH(QString, evidence);
        if (torchvision && !haveTorchvision())
            QSKIP("no torchvision for the engine's Python");
        if (place.contains(QLatin1String("torch")))
            REQUIRE_TORCH_113();
        const PythonRun& run = recorded(name);
        QVERIFY2(run.ok, qPrintable(run.error.toString()));
        const PythonCall& call = *traceCalls(run).value(0);
        const CheckReport report = checkRecordedCall(run, call, test::readText(modelFile(name)));
        const TraceDiff* diff = nullptr;
        for (const TraceDiff& d : report.diffs)
            if (d.other == trace)
                diff = &d;
        QVERIFY(diff);
        QVERIFY(!diff->equal);
        QVERIFY2(!diff->divergences.isEmpty() && diff->divergences.size() <= most,
            qPrintable(QString::number(diff->divergences.size())));
        // Every change is in exactly one divergence, and each divergence lists its changes' nodes.
        QVector<int> seen(diff->changes.size(), 0);
        for (int d = 0; d < diff->divergences.size(); ++d) {
            const Divergence& v = diff->divergences[d];
            QVERIFY(!v.message.isEmpty());
            for (int i : v.changes) {
                ++seen[i];
                QCOMPARE(diff->changes[i].divergence, d);
            }
        }
        QCOMPARE(seen, QVector<int>(diff->changes.size(), 1));
        const Divergence* largest = &diff->divergences.first();
        for (const Divergence& v : diff->divergences)
            if (v.changes.size() > largest->changes.size())
                largest = &v;
        QCOMPARE(divergenceKindName(largest->kind), kind);
        const QString where = QStringLiteral("%1:%2").arg(largest->location.file).arg(largest->location.line);
        QVERIFY2(where.contains(place), qPrintable(where));
        QCOMPARE(largest->scope, scope);
        if (!scope.isEmpty())
            QCOMPARE(largest->scopeType, call.moduleTypes.value(scope));
        // The stack leads from the cause down to the user's line.
        QVERIFY(!largest->stack.isEmpty());
        QCOMPARE(largest->stack.first(), largest->location);
        QVERIFY2(!largest->stack.last().file.contains(QLatin1String("-packages/")),
            qPrintable(largest->stack.last().toString()));
        if (!evidence.isEmpty())
            QVERIFY2(largest->evidence.join(QLatin1Char('\n')).contains(evidence),
                qPrintable(largest->evidence.join(QLatin1Char('\n'))));
    }

    /// Library-style control flow (an early return in a callee, a loop in a helper, `continue` on a size, a guard
    /// computed lines before its `if`, a branch on torch.jit.is_tracing(), an early return in a submodule): each
    /// call's divergence is explained at the line its `# parts:` comment marks, where the two runs' Python really
    /// went different ways, as observed by the bridge (with the condition's values in both runs); and no
    /// divergence says "no TracerWarning" where the traces raised one in its function.
    void observedPartings()
    {
        const QString name = QStringLiteral("partings");
        const PythonRun& run = recorded(name);
        QVERIFY2(run.ok, qPrintable(run.error.toString()));
        const QString source = test::readText(modelFile(name));
        const QStringList lines = source.split(QLatin1Char('\n'));
        struct Mark
        {
            int line;
            QString statement;
        };
        QVector<Mark> marks;
        static const QRegularExpression marker(QStringLiteral("# parts: ([a-z-]+)"));
        for (int i = 0; i < lines.size(); ++i)
            if (const auto m = marker.match(lines[i]); m.hasMatch())
                marks.push_back({ i + 1, m.captured(1) });
        const QVector<const PythonCall*> calls = traceCalls(run);
        QCOMPARE(calls.size(), marks.size());
        for (int c = 0; c < calls.size(); ++c) {
            const PythonCall& call = *calls[c];
            const CheckReport report = checkRecordedCall(run, call, source);
            QVERIFY2(!report.diffs.isEmpty() && !report.diffs.first().equal, qPrintable(call.target));
            const TraceDiff& diff = report.diffs.first();
            const Divergence* largest = &diff.divergences.first();
            for (const Divergence& v : diff.divergences)
                if (v.changes.size() > largest->changes.size())
                    largest = &v;
            const QString what = QStringLiteral("%1: %2 at line %3").arg(call.target, largest->message).arg(
                largest->location.line);
            QVERIFY2(largest->observed.present, qPrintable(what));
            QVERIFY2(largest->location.file.endsWith(QLatin1String("/partings.py")), qPrintable(what));
            QCOMPARE(largest->location.line, marks[c].line);
            QCOMPARE(largest->observed.statement, marks[c].statement);
            QVERIFY2(largest->message.contains(QLatin1String("(observed)")), qPrintable(what));
            // The condition's values differ between the runs (or, for a loop, its iterations).
            if (marks[c].statement == QLatin1String("loop"))
                QVERIFY2(largest->observed.firstIterations != largest->observed.otherIterations, qPrintable(what));
            else
                QVERIFY2(largest->observed.firstValues != largest->observed.otherValues, qPrintable(what));
            for (const Divergence& v : diff.divergences) {
                if (!v.message.contains(QLatin1String("no TracerWarning")))
                    continue;
                // The function holding the cause's line: from its `def` to the next line indented no deeper.
                int def = v.location.line;
                while (def > 1 && !lines.value(def - 1).trimmed().startsWith(QLatin1String("def ")))
                    --def;
                for (const TraceResult& t : report.traces)
                    for (const TraceWarning& w : t.warnings)
                        QVERIFY2(!(w.location.file == v.location.file && w.location.line >= def
                                     && w.location.line <= v.location.line + 20),
                            qPrintable(QStringLiteral("%1 while %2 warned").arg(v.message, w.location.toString())));
            }
        }
    }

    /// Trace 1 fails on the LSTM's second set (PyTorch: "The size of tensor a (3) must match the size of tensor b
    /// (2)"): the node its error names, in torch.nn's LSTM, with the operand made of the batch size trace 1 baked.
    void failingNodeOfAPackedLstm()
    {
        REQUIRE_TORCH_113();
        const PythonRun& run = recorded(QStringLiteral("lstm_packed"));
        const PythonCall& call = *traceCalls(run).value(0);
        const CheckReport report = checkRecordedCall(run, call, test::readText(modelFile(QStringLiteral("lstm_packed"))));
        QCOMPARE(report.outputs.size(), 1);
        const OutputCheck& out = report.outputs.first();
        QVERIFY(!out.ran);
        QVERIFY2(out.failure.isValid(), qPrintable(out.error));
        QCOMPARE(out.failure.kind, QStringLiteral("aten::lstm"));
        QCOMPARE(out.failure.scope, QStringLiteral("lstm"));
        QVERIFY(out.failure.location.file.endsWith(QLatin1String("torch/nn/modules/rnn.py")));
        QVERIFY2(
            out.failure.error.contains(QLatin1String("The size of tensor a (3) must match the size of tensor b (2)")),
            qPrintable(out.failure.error));
        QVERIFY2(out.error.startsWith(QLatin1String("the trace failed on this input set: RuntimeError")),
            qPrintable(out.error));
        const QString operands = out.failure.operands.join(QLatin1Char('\n'));
        QVERIFY2(operands.contains(QLatin1String("the constant 3 trace 1 baked in (divergence 1: number-baked)")),
            qPrintable(operands));
        // A warning of set 2 at that node's line, for the window's Warnings panel (and its Debug Trace 1 Where It
        // Fails on Set 2).
        QVERIFY(std::any_of(report.warnings.cbegin(), report.warnings.cend(), [&](const TraceWarning& w) {
            return w.traceIndex == 1 && w.kind == WarningKind::OutputMismatch && w.location == out.failure.location
                && w.message.endsWith(QLatin1String("(trace 1 fails at aten::lstm, rnn.py:777)"));
        }));
    }

    /// The debugger's replay of that failure: the bridge saved trace 1 and set 2's arguments; trace 1 runs on them
    /// node by node and breaks before the node the check named (aten::lstm), with its error and set 2's inputs live.
    void replayOfAPackedLstm()
    {
        REQUIRE_TORCH_113();
        const PythonRun& run = recorded(QStringLiteral("lstm_packed"));
        const PythonCall& call = *traceCalls(run).value(0);
        QCOMPARE(call.traces.size(), 2);
        QVERIFY(call.traces[0].replayArchive.isEmpty()); // trace 1's own set: nothing to replay
        const PythonTrace& failing = call.traces[1];
        QVERIFY2(!failing.replayArchive.isEmpty(), qPrintable(failing.replayError));
        QCOMPARE(failing.replayMethod, QStringLiteral("forward"));
        const CheckReport report = checkRecordedCall(run, call, test::readText(modelFile(QStringLiteral("lstm_packed"))));
        const TraceFailure& checked = report.outputs.first().failure;
        QVERIFY(checked.isValid());

        DebugSession::Target target;
        target.function = call.target;
        target.archive = QDir(run.folder).filePath(failing.replayArchive);
        target.method = failing.replayMethod;
        target.inputsFile = QDir(run.folder).filePath(failing.replayInputs);
        DebugSession s(ModelInfo(), target);
        s.start();
        std::optional<DebugSession::Pause> p = s.waitForPause(0, 60000);
        QVERIFY(p && !p->finished);
        // The recorded trace, inlined as the bridge recorded it: the check's failing node is the replay's.
        // The recorded trace as saved and loaded again: the same operators in the same order as the trace the bridge
        // recorded (constants and attribute reads are numbered differently), the failing one the check's.
        auto operators = [](const IrGraph& g, int upTo = -1) {
            QStringList rows;
            for (const IrNode& n : g.nodes)
                if (n.id <= upTo || upTo < 0)
                    if (n.kind != QLatin1String("prim::Constant") && n.kind != QLatin1String("prim::GetAttr"))
                        rows << n.kind;
            return rows;
        };
        QCOMPARE(operators(p->traceSoFar), operators(report.traces[0].graph));
        QVERIFY(p->failureNode >= 0);
        QCOMPARE(p->traceSoFar.node(p->failureNode).kind, QStringLiteral("aten::lstm"));
        QCOMPARE(operators(p->traceSoFar, p->failureNode), operators(report.traces[0].graph, checked.node));
        s.resume(DebugSession::Command::Continue);
        p = s.waitForPause(p->serial, 60000);
        QVERIFY(p && !p->finished);
        QVERIFY(p->atFailure);
        QCOMPARE(p->event.kind, QStringLiteral("aten::lstm"));
        QVERIFY(p->event.location.file.endsWith(QLatin1String("torch/nn/modules/rnn.py")));
        QCOMPARE(p->event.location.line, checked.location.line);
        QVERIFY2(p->failure.contains(QLatin1String("The size of tensor a (3) must match the size of tensor b (2)")),
            qPrintable(p->failure));
        bool input = false;
        for (const NamedValue& v : p->values)
            input |= v.value.shape == QVector<qint64> { 2, 5, 5 };
        QVERIFY(input);
        s.resume(DebugSession::Command::Continue);
        p = s.waitForPause(p->serial, 60000);
        QVERIFY(p && p->finished);
        QVERIFY(!p->result.ok);
        QVERIFY2(p->result.error.message.contains(QLatin1String("must match the size of tensor b (2)")),
            qPrintable(p->result.error.message));
    }

    /// torch.nn's own TracerWarnings (hidden by PyTorch's filter) are why a packed LSTM bakes its batch size.
    void libraryWarningsOfAPackedLstm()
    {
        REQUIRE_TORCH_113();
        const PythonRun& run = recorded(QStringLiteral("lstm_packed"));
        QVERIFY(run.ok);
        const PythonCall& call = *traceCalls(run).value(0);
        int inRnn = 0;
        for (const PythonWarning& w : call.warnings)
            if (w.location.file.contains(QLatin1String("torch/nn/")) && w.category == QLatin1String("TracerWarning")) {
                ++inRnn;
                QVERIFY(w.hidden);
                QVERIFY2(w.userLocation.file.endsWith(QLatin1String("lstm_packed.py")), qPrintable(w.message));
            }
        QVERIFY(inRnn > 0);
    }

    /// The state case: no check inputs, and PyTorch's check of the same input records another graph: shown as
    /// trace 2 on the same set.
    void stateChangeIsASecondTraceOfTheSameSet()
    {
        const PythonRun& run = recorded(QStringLiteral("yolo_state"));
        const PythonCall& call = *traceCalls(run).value(0);
        QCOMPARE(call.traces.size(), 2);
        QVERIFY(call.traces[1].repeat);
        QCOMPARE(call.traces[1].inputs, call.traces[0].inputs);
        QVERIFY(call.checked && !call.checkPassed);
    }

    /// A trace that raises is an error, not a verdict: torchvision's detection model returns a list of dicts.
    void traceThatRaisesIsAnError()
    {
        if (!haveTorchvision())
            QSKIP("no torchvision for the engine's Python");
        const PythonRun& run = recorded(QStringLiteral("trace_raises"));
        QVERIFY(run.ok);
        QCOMPARE(run.status, QStringLiteral("error"));
        const PythonCall& call = *traceCalls(run).value(0);
        QVERIFY(call.raised());
        QVERIFY2(call.error.message.contains(QLatin1String("Only tensors, lists, tuples of tensors, or dictionary of "
                                                           "tensors can be output from traced functions")),
            qPrintable(call.error.message));
        QCOMPARE(call.error.location.line, 9);
        QCOMPARE(run.failedCall(), call.index);
    }

    /// Calls from other threads are recorded, every one.
    void callsFromThreads()
    {
        const PythonRun& run = recorded(QStringLiteral("threads"));
        QVERIFY(run.ok);
        QCOMPARE(traceCalls(run).size(), 8);
        for (const PythonCall* c : traceCalls(run)) {
            QVERIFY(c->ok);
            QCOMPARE(c->location.line, 14);
            QVERIFY(c->traces.value(0).ok);
        }
    }

    /// A tuple argument is traced as torch.jit.trace takes it, not through the flattening adapter.
    void tupleArgumentsAsTheyAre()
    {
        PythonOptions options;
        options.request.mode = PythonRequest::Mode::Trace;
        options.request.target = QStringLiteral("blend");
        options.request.sets = { *parseInputSet(QStringLiteral("f32[2,3]; (f32[2,3], f32[2,3])")) };
        const PythonRun run = runPythonFile(modelFile(QStringLiteral("tuple_arg")), options);
        QVERIFY2(run.request.ok, qPrintable(run.request.error.toString()));
        QVERIFY(run.request.flattened.isEmpty());
        const IrGraph& g = run.request.call.traces.value(0).graph;
        QCOMPARE(g.top.inputs.size(), 2); // x and the tuple, as PyTorch records them
        QVERIFY(std::any_of(g.nodes.cbegin(), g.nodes.cend(),
            [](const IrNode& n) { return n.kind == QLatin1String("prim::TupleUnpack"); }));
        // The file's own call, the same graph.
        QCOMPARE(nodeRows(run.calls.value(0).traces.value(0).graph), nodeRows(g));
    }
};

QTEST_GUILESS_MAIN(TestPythonModels)
#include "tst_pythonmodels.moc"
