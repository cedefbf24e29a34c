// check_inputs, explained: verdicts against PyTorch's, and the causes of divergences.

#include "bridge/pythoncheck.h"
#include "check/check.h"
#include "load/model.h"
#include "testutil.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace jitscope;
using namespace jitscope::test;

namespace {

QVector<InputSet> sets(const QStringList& specs)
{
    QVector<InputSet> out;
    for (const QString& s : specs)
        out.push_back(*parseInputSet(s));
    return out;
}

bool anyCause(const CheckReport& r, const QString& part)
{
    for (const TraceDiff& d : r.diffs)
        for (const NodeChange& c : d.changes)
            if (c.cause.contains(part))
                return true;
    return false;
}

bool hasWarning(const CheckReport& r, const QString& kind)
{
    for (const TraceWarning& w : r.warnings)
        if (warningKindName(w.kind) == kind)
            return true;
    return false;
}

/// An oracle case (tests/data/traces/NAME.json) loaded and checked by JitScope on PyTorch's sets and seed.
struct CheckedCase
{
    QJsonObject json;
    LoadResult loaded;
    QString function;
    CheckReport report;
};

CheckedCase checkCase(const QString& path)
{
    CheckedCase k;
    k.json = QJsonDocument::fromJson(readText(path).toUtf8()).object();
    const QString source = k.json.value(QStringLiteral("source")).toString();
    const QString archive = k.json.value(QStringLiteral("archive")).toString();
    k.loaded = loadModel(dataDir() + QLatin1Char('/') + (source.isEmpty() ? archive : source));
    if (!k.loaded.ok)
        return k;
    QStringList specs;
    for (const auto& s : k.json.value(QStringLiteral("sets")).toArray())
        specs << s.toString();
    CheckOptions options;
    options.exec.seed = quint64(k.json.value(QStringLiteral("seed")).toInt());
    options.exec.timeoutMs = 60000;
    k.function = k.json.value(QStringLiteral("function")).toString();
    k.report = checkFunction(k.loaded.model, k.function, sets(specs), options);
    return k;
}

} // namespace

class TestCheck : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    /// One builder, two adapters: JitScope's own check of an oracle case, and the same traces, outputs and value
    /// findings handed to checkRecordedCall() as a recorded call PyTorch made, give the same report: the same
    /// statuses and verdict, the same diffs with the same divergences (kind, message, nodes, place, evidence), the
    /// same output checks, and the check's own warnings of the same kinds on the same sets (their sentences differ
    /// where PyTorch's own words stand beside them).
    void oneBuilderForBothChecks_data()
    {
        QTest::addColumn<QString>("name");
        // Branches frozen, numbers baked, loops unrolled another number of times, values that part ways on equal
        // graphs (a baked constant, sizes, a random op), each with the warnings PyTorch raises there.
        const QDir dir(dataDir() + QStringLiteral("/traces"));
        for (const QString& file : dir.entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name)) {
            const QJsonObject c = QJsonDocument::fromJson(readText(dir.filePath(file)).toUtf8()).object();
            const QString verdict
                = c.value(QStringLiteral("check")).toObject().value(QStringLiteral("verdict")).toString();
            if (!c.value(QStringLiteral("source")).toString().isEmpty() && verdict != QLatin1String("error"))
                QTest::newRow(qPrintable(file.chopped(5))) << file.chopped(5);
        }
    }

    void oneBuilderForBothChecks()
    {
        QFETCH(QString, name);
        const CheckedCase k = checkCase(dataDir() + QStringLiteral("/traces/%1.json").arg(name));
        QVERIFY2(k.loaded.ok, qPrintable(k.loaded.error.toString()));
        const QString& function = k.function;
        const CheckReport& own = k.report;
        QVERIFY2(own.ok, qPrintable(own.error.message));

        // The same observations as a recorded call: the traces, their warnings as Python would show them, trace 1's
        // outputs on each set as PyTorch's check compared them, the values where they part ways.
        PythonRun run;
        PythonFunction fn;
        fn.name = function;
        fn.scriptOk = true;
        fn.graph = own.script;
        run.functions << fn;
        PythonCall call;
        call.api = QStringLiteral("trace");
        call.target = function;
        call.location = { own.file, 0, 0 };
        for (int k = 0; k < own.traces.size(); ++k) {
            const TraceResult& t = own.traces[k];
            if (t.branches != own.traces[0].branches)
                QSKIP("the traces took a script if differently: the executor records which (TraceResult::branches), "
                      "a Python run does not");
            PythonTrace pt;
            pt.ok = t.ok;
            pt.error = t.error;
            pt.inputs = t.inputs.toString();
            pt.graph = t.graph;
            for (const TraceWarning& w : t.warnings) {
                PythonWarning pw;
                pw.category = QStringLiteral("TracerWarning"); // the executor raises them in PyTorch's words
                pw.message = w.message;
                pw.location = w.location;
                pw.userCode = true;
                if (pythonWarningKind(pw) != w.kind)
                    QSKIP("a warning only JitScope's tracer raises (of a loop, a branch): a Python run has none");
                pt.warnings << pw;
            }
            if (k > 0) {
                const OutputCheck& o = own.outputs.value(k - 1);
                if (!o.ran && !o.error.isEmpty())
                    QSKIP(
                        "trace 1 fails on a set: a recorded call finds its node from PyTorch's TorchScript traceback");
                pt.outputsCompared = o.ran;
                pt.outputsEqual = o.comparison.equal;
                pt.outputsMessage = o.comparison.message;
                pt.outputsElements = o.comparison.total;
                pt.values = o.values;
            }
            call.traces << pt;
        }
        CheckReport recorded = checkRecordedCall(run, call);
        // What differs by source alone: who the values are compared with, and the check's sentences.
        for (TraceDiff& d : recorded.diffs)
            for (Divergence& v : d.divergences)
                if (v.kind == DivergenceKind::Value) {
                    QCOMPARE(v.otherRun, QStringLiteral("Python"));
                    v.otherRun = QStringLiteral("the script function");
                    for (QString& e : v.evidence)
                        e.replace(QLatin1String("Python on set"), QLatin1String("the script function on set"));
                }

        QCOMPARE(recorded.ok, own.ok);
        QCOMPARE(recorded.consistent, own.consistent);
        QCOMPARE(recorded.statuses, own.statuses);
        QCOMPARE(recorded.diffs.size(), own.diffs.size());
        for (int i = 0; i < own.diffs.size(); ++i) {
            const TraceDiff& a = own.diffs[i];
            const TraceDiff& b = recorded.diffs[i];
            QCOMPARE(b.other, a.other);
            QCOMPARE(b.equal, a.equal);
            QCOMPARE(b.changes.size(), a.changes.size());
            QCOMPARE(b.divergences.size(), a.divergences.size());
            for (int v = 0; v < a.divergences.size(); ++v) {
                const Divergence& x = a.divergences[v];
                const Divergence& y = b.divergences[v];
                QCOMPARE(y.kind, x.kind);
                QCOMPARE(y.message, x.message);
                QCOMPARE(y.baseNodes, x.baseNodes);
                QCOMPARE(y.otherNodes, x.otherNodes);
                QCOMPARE(y.location, x.location);
                QCOMPARE(y.scope, x.scope);
                // A warning's kind comes from its source (the executor's own, or Python's category and text): the
                // rest of its line is the evidence.
                auto evidence = [](QStringList lines) {
                    static const QRegularExpression kind(QStringLiteral("^[a-z-]+ at (\\S+:\\d+: )"));
                    for (QString& l : lines)
                        l.replace(kind, QStringLiteral("* at \\1"));
                    return lines;
                };
                QCOMPARE(evidence(y.evidence), evidence(x.evidence));
                QCOMPARE(y.otherRun, x.otherRun);
            }
        }
        QCOMPARE(recorded.outputs.size(), own.outputs.size());
        for (int k = 0; k < own.outputs.size(); ++k) {
            QCOMPARE(recorded.outputs[k].ran, own.outputs[k].ran);
            QCOMPARE(recorded.outputs[k].comparison.equal, own.outputs[k].comparison.equal);
            QCOMPARE(recorded.outputs[k].comparison.message, own.outputs[k].comparison.message);
        }
        auto checkWarnings = [](const CheckReport& r) {
            QStringList out;
            for (const TraceWarning& w : r.warnings)
                if (w.kind == WarningKind::OutputMismatch || w.kind == WarningKind::TraceFailed)
                    out << QStringLiteral("%1 on set %2").arg(w.kindName()).arg(w.traceIndex + 1);
            return out;
        };
        QCOMPARE(checkWarnings(recorded), checkWarnings(own));
        // A case whose check finds nothing says nothing either way; the others are judged alike above.
        if (!own.consistent)
            QVERIFY(!checkWarnings(own).isEmpty()
                || std::any_of(own.diffs.cbegin(), own.diffs.cend(), [](const TraceDiff& d) { return !d.equal; }));
    }

    /// The same verdict as torch.jit.trace(..., check_inputs=...) on every oracle case.
    void verdicts_data()
    {
        QTest::addColumn<QString>("casePath");
        const QDir dir(dataDir() + QStringLiteral("/traces"));
        for (const QString& file : dir.entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name))
            QTest::addRow("%s", qPrintable(file.chopped(5))) << dir.filePath(file);
    }

    void verdicts()
    {
        QFETCH(QString, casePath);
        const CheckedCase k = checkCase(casePath);
        QVERIFY2(k.loaded.ok, qPrintable(k.loaded.error.toString()));
        const QJsonObject& c = k.json;
        const CheckReport& report = k.report;
        const QString expected
            = c.value(QStringLiteral("check")).toObject().value(QStringLiteral("verdict")).toString();
        if (expected == QLatin1String("error")) {
            // PyTorch raised: JitScope fails where PyTorch did (tracing set 1, or a trace or run on a check
            // input), and never reports a mere divergence instead.
            const QJsonArray traces = c.value(QStringLiteral("traces")).toArray();
            if (!traces.at(0).toObject().value(QStringLiteral("ok")).toBool()) {
                QVERIFY2(!report.ok, "PyTorch could not trace set 1, JitScope did");
                return;
            }
            QVERIFY2(report.ok, qPrintable(report.error.toString()));
            bool failed = false;
            for (int k = 0; k < report.traces.size(); ++k)
                failed |= report.status(k) == TraceStatus::Failed;
            for (const OutputCheck& o : report.outputs)
                failed |= !o.ran;
            QVERIFY2(failed, "PyTorch raised, JitScope reports only a divergence");
            return;
        }
        QVERIFY2(report.ok, qPrintable(report.error.toString()));
        QCOMPARE(report.verdict(), expected);
        // Where trace 1 computes other outputs than the script function although the graphs agree, a divergence of
        // kind value names the node where the values part ways; PyTorch's own check (its "Output nr" warning) is
        // the oracle that the outputs differ there, and a value divergence never stands where they agree.
        bool pytorchOutputsDiffer = false;
        for (const auto& w : c.value(QStringLiteral("check")).toObject().value(QStringLiteral("warnings")).toArray())
            pytorchOutputsDiffer
                |= w.toObject().value(QStringLiteral("message")).toString().startsWith(QLatin1String("Output nr"));
        for (const TraceDiff& d : report.diffs) {
            const OutputCheck& out = report.outputs.at(d.other - 1);
            const bool wrong = out.ran && !out.comparison.equal;
            int values = 0;
            for (const Divergence& v : d.divergences) {
                if (v.kind != DivergenceKind::Value)
                    continue;
                ++values;
                QVERIFY2(wrong, qPrintable(v.message));
                QVERIFY2(expected != QLatin1String("consistent"), qPrintable(v.message));
                QVERIFY(!v.baseNodes.isEmpty() && !v.message.isEmpty());
            }
            QVERIFY(values <= 1);
            if (d.equal && wrong) {
                QVERIFY2(pytorchOutputsDiffer, "JitScope's outputs differ on a set PyTorch's check found equal");
                QVERIFY2(values == 1, qPrintable(QStringLiteral("set %1: no value divergence").arg(d.other + 1)));
            }
        }
        // Every divergence names its cause and a place.
        for (const TraceDiff& d : report.diffs) {
            for (const NodeChange& ch : d.changes) {
                QVERIFY2(!ch.cause.isEmpty(), "a change without a cause");
                QVERIFY(ch.otherNode >= 0 || ch.baseNode >= 0);
            }
        }
    }

    void seedExampleExplainsTheLoop()
    {
        const LoadResult r = loadModel(QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py"));
        QVERIFY(r.ok);
        QCOMPARE(r.model.inputSets.size(), 3);
        const CheckReport report = checkFunction(r.model, QStringLiteral("loop_in_traced_fn"), r.model.inputSets);
        QVERIFY(report.ok);
        QCOMPARE(report.verdict(), QStringLiteral("diverged"));
        QCOMPARE(report.diffs.size(), 2);
        // Set 2 (4 rows) unrolls one more iteration: its select and mul are inserted.
        const TraceDiff& d = report.diffs.first();
        QVERIFY(!d.equal);
        int inserts = 0;
        for (const NodeChange& c : d.changes) {
            QCOMPARE(c.op, NodeChange::Op::Insert);
            QVERIFY2(
                c.cause.contains(QLatin1String("loop at line 6 unrolled 3 times in trace 1 but 4 times in trace 2")),
                qPrintable(c.cause));
            QVERIFY(c.cause.contains(QLatin1String("trip count x.size(0)")));
            QCOMPARE(c.location.line, 7);
            ++inserts;
        }
        QCOMPARE(inserts, 4);
        // One divergence: the loop, at its line, covering every inserted node.
        QCOMPARE(d.divergences.size(), 1);
        QCOMPARE(d.divergences.first().kind, DivergenceKind::LoopUnrolled);
        QCOMPARE(d.divergences.first().location.line, 6);
        QCOMPARE(d.divergences.first().changes.size(), 4);
        QCOMPARE(d.divergences.first().otherNodes.size(), 4);
        QVERIFY(d.divergences.first().evidence.join(QLatin1Char('\n')).contains(QLatin1String("shape-dependent-loop")));
        // Set 3 (2 rows): one iteration fewer, and the first trace cannot even run on it.
        for (const NodeChange& c : report.diffs[1].changes)
            QCOMPARE(c.op, NodeChange::Op::Delete);
        QCOMPARE(report.outputs.size(), 2);
        QVERIFY(report.outputs[0].ran);
        QVERIFY(!report.outputs[0].comparison.equal);
        QCOMPARE(report.outputs[0].comparison.total, qint64(30));
        QVERIFY(!report.outputs[1].ran);
        // Where trace 1 fails on set 3: a node of the loop's body (its third iteration), with its operands.
        const TraceFailure& failure = report.outputs[1].failure;
        QVERIFY2(failure.isValid(), qPrintable(report.outputs[1].error));
        QCOMPARE(failure.location.line, 7);
        QVERIFY(!failure.error.isEmpty());
        QVERIFY(!failure.operands.isEmpty());
        QVERIFY2(failure.operands.first().contains(QLatin1String("on this set")), qPrintable(failure.operands.first()));
        QVERIFY(hasWarning(report, QStringLiteral("shape-dependent-loop")));
        QVERIFY(hasWarning(report, QStringLiteral("output-mismatch")));
        // Each trace's status, decided once here for every view.
        QCOMPARE(report.statuses,
            (QVector<TraceStatus> { TraceStatus::Reference, TraceStatus::Diverged, TraceStatus::Diverged }));
        QCOMPARE(report.differingTraces(), (QVector<int> { 1, 2 }));
        QCOMPARE(traceSeverity(TraceStatus::Diverged), std::optional(WarningSeverity::Warning));
        QVERIFY(!traceSeverity(TraceStatus::Same));
        // Provenance: every node of trace 2's extra iteration comes from the loop, iteration 4.
        const TraceResult& t2 = report.traces[1];
        const NodeChange& c = d.changes.last();
        const IrNode& n = t2.graph.node(c.otherNode);
        QCOMPARE(n.loopPath.size(), 1);
        QCOMPARE(n.loopPath.first().iteration, 3);
        QCOMPARE(n.loopPath.first().line, 6);
        QCOMPARE(report.script.node(n.originNode).kind, QStringLiteral("aten::mul"));
    }

    /// One pipeline: an archive gives the same report whether the caller loaded it with calls inlined (the window,
    /// grouped by module) or not (the CLI), and the same graph's status is Same.
    void onePipeline()
    {
        const QString path = dataDir() + QStringLiteral("/archives/shape_branch.pt");
        const LoadResult plain = loadModel(path);
        LoadOptions inlining;
        inlining.inlineCalls = true;
        const LoadResult inlined = loadModel(path, inlining);
        QVERIFY(plain.ok && inlined.ok);
        const QVector<InputSet> checked = sets({ "f32[2,4]", "f32[5,4]", "f32[2,3,4]", "f32[2,4]" });
        const CheckReport a = checkModel(plain.model, QString(), checked);
        const CheckReport b = checkModel(inlined.model, QStringLiteral("forward"), checked);
        QVERIFY2(a.ok, qPrintable(a.error.toString()));
        QCOMPARE(checkReportJson(a), checkReportJson(b));
        QCOMPARE(a.script.toText(), inlined.model.function(QStringLiteral("forward"))->graph.toText());
        QVERIFY(!plain.model.function(QStringLiteral("forward"))->inlined); // the caller's model is left as it is
        QCOMPARE(a.status(3), TraceStatus::Same);
        QCOMPARE(a.status(1), TraceStatus::Diverged);
        // Asked not to inline: the function as loaded.
        CheckOptions asLoaded;
        asLoaded.inlineCalls = false;
        QCOMPARE(checkModel(plain.model, QString(), checked, asLoaded).script.toText(),
            plain.model.function(QStringLiteral("forward"))->graph.toText());
        // Unknown and missing functions are reported, not guessed.
        QVERIFY(!checkModel(plain.model, QStringLiteral("nope"), checked).ok);
    }

    void causes_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("function");
        QTest::addColumn<QStringList>("specs");
        QTest::addColumn<QString>("cause");
        QTest::addColumn<QString>("warning");
        QTest::addColumn<QString>("kind"); ///< of the first divergence
        QTest::addColumn<QString>("evidence"); ///< a part of its evidence
        QTest::addRow("data branch") << "corpus/branch_on_data.py"
                                     << "branch_on_data" << QStringList { "f32[3,4]=ones", "f32[3,4]=full:-1" }
                                     << "took the then branch in trace 1 but the else branch in trace 2"
                                     << "data-dependent-branch"
                                     << "branch-frozen"
                                     << "data-dependent-branch";
        QTest::addRow("shape branch") << "corpus/trace_control.py"
                                      << "size_branch" << QStringList { "f32[5,2]", "f32[2,2]" }
                                      << "depends on the input's shape"
                                      << "tensor-to-bool"
                                      << "branch-frozen"
                                      << "";
        QTest::addRow("len baked") << "corpus/arange_shape.py"
                                   << "arange_len" << QStringList { "f32[3,2]", "f32[5,2]" }
                                   << "len(x) is baked in as a constant: 3 in trace 1, 5 in trace 2"
                                   << "len-of-tensor"
                                   << "number-baked"
                                   << "x.size(0) of each trace's inputs";
        // torch.tensor of sizes: a tensor constant whose values differ, which PyTorch's check compares.
        QTest::addRow("tensor of sizes") << "corpus/binding_edges.py"
                                         << "tensor_of_sizes" << QStringList { "f32[3,4]", "f32[5,4]" } << QString()
                                         << "baked-constant"
                                         << "tensor-constant"
                                         << "1 of 2 elements differ ([0] 3 vs 5)";
        QTest::addRow("nondeterministic")
            << "corpus/trace_functional.py"
            << "add_noise" << QStringList { "f32[3]", "f32[3]" } << QString() << "nondeterministic-op"
            << ""
            << "";
        QTest::addRow("in-place on input")
            << "corpus/trace_inplace.py"
            << "add_inplace_input" << QStringList { "f32[3]", "f32[4]" } << QString() << "in-place-on-input"
            << ""
            << "";
    }

    void causes()
    {
        QFETCH(QString, file);
        QFETCH(QString, function);
        QFETCH(QStringList, specs);
        QFETCH(QString, cause);
        QFETCH(QString, warning);
        QFETCH(QString, kind);
        QFETCH(QString, evidence);
        const LoadResult r = loadModel(dataDir() + QLatin1Char('/') + file);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        QVERIFY2(r.model.function(function), qPrintable(function));
        const CheckReport report = checkFunction(r.model, function, sets(specs));
        QVERIFY2(report.ok, qPrintable(report.error.toString()));
        if (!cause.isEmpty()) {
            QStringList all;
            for (const TraceDiff& d : report.diffs)
                for (const NodeChange& c : d.changes)
                    all << c.cause;
            QVERIFY2(anyCause(report, cause), qPrintable(all.join(QLatin1Char('\n'))));
        }
        QStringList kinds;
        for (const TraceWarning& w : report.warnings)
            kinds << warningKindName(w.kind);
        QVERIFY2(hasWarning(report, warning), qPrintable(kinds.join(QLatin1Char(','))));
        if (!kind.isEmpty()) {
            const TraceDiff& d = report.diffs.first();
            QVERIFY(!d.divergences.isEmpty());
            const Divergence& first = d.divergences.first();
            QCOMPARE(divergenceKindName(first.kind), kind);
            QVERIFY(first.location.isValid());
            QVERIFY2(first.evidence.join(QLatin1Char('\n')).contains(evidence),
                qPrintable(first.evidence.join(QLatin1Char('\n'))));
        }
    }

    /// JitScope's own check: where trace 1 and the script function part ways on a set whose outputs differ (both
    /// run by the executor, matched node by node), the node and the cause. The oracle cases give the sets PyTorch
    /// checked; tracing_branch.py's is a fast path taken only while tracing.
    void valuesPartWays_data()
    {
        QTest::addColumn<QString>("oracle"); ///< a case of tests/data/traces, or a file of tests/data/values
        QTest::addColumn<int>("set"); ///< 0-based
        QTest::addColumn<QString>("cause");
        QTest::addColumn<QString>("node"); ///< trace 1's node kind
        QTest::addColumn<QString>("words"); ///< a part of the message
        QTest::addRow("random op") << "add_noise" << 1 << "nondeterministic"
                                   << "aten::rand"
                                   << "the script function run twice on this set differs too";
        QTest::addRow("len baked") << "arange_len" << 1 << "constant"
                                   << "aten::arange"
                                   << "a constant trace 1 baked in from the traced input (5) where the script "
                                      "function computes 7";
        QTest::addRow("tensor of sizes") << "tensor_of_sizes" << 1 << "constant"
                                         << "aten::mul"
                                         << "a constant trace 1 baked in";
        QTest::addRow("sizes chosen while tracing") << "max_by_axis" << 2 << "size"
                                                    << "aten::new_zeros"
                                                    << "float32[2x4] in the trace, float32[4x4] in the script function";
        QTest::addRow("fast path for tracing") << "tracing_branch.py" << 1 << "branch"
                                               << "aten::floor"
                                               << "the if at line 8";
    }

    void valuesPartWays()
    {
        QFETCH(QString, oracle);
        QFETCH(int, set);
        QFETCH(QString, cause);
        QFETCH(QString, node);
        QFETCH(QString, words);
        QString file = dataDir() + QStringLiteral("/values/") + oracle;
        QString function = QStringLiteral("quantize");
        QStringList specs;
        quint64 seed = 0;
        if (!oracle.endsWith(QLatin1String(".py"))) {
            const QJsonObject c
                = QJsonDocument::fromJson(readText(dataDir() + QStringLiteral("/traces/%1.json").arg(oracle)).toUtf8())
                      .object();
            file = dataDir() + QLatin1Char('/') + c.value(QStringLiteral("source")).toString();
            function = c.value(QStringLiteral("function")).toString();
            for (const auto& s : c.value(QStringLiteral("sets")).toArray())
                specs << s.toString();
            seed = quint64(c.value(QStringLiteral("seed")).toInt());
        }
        const LoadResult r = loadModel(file);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        QVector<InputSet> checked = sets(specs);
        if (checked.isEmpty())
            checked = r.model.inputSets;
        CheckOptions options;
        options.exec.seed = seed;
        const CheckReport report = checkFunction(r.model, function, checked, options);
        QVERIFY2(report.ok, qPrintable(report.error.toString()));
        const OutputCheck& out = report.outputs.at(set - 1);
        QVERIFY2(out.ran && !out.comparison.equal, "the outputs agree on this set");
        QVERIFY2(out.values.present && out.values.error.isEmpty(), qPrintable(out.values.error));
        QCOMPARE(out.values.cause, cause);
        QCOMPARE(report.traces.first().graph.node(out.values.node).kind, node);
        QVERIFY2(out.values.message.contains(words), qPrintable(out.values.message));
        // In the set's diff, with the script function's value beside trace 1's, at the script's line.
        const Divergence* v = nullptr;
        for (const TraceDiff& d : report.diffs)
            for (const Divergence& dv : d.divergences)
                if (d.other == set && dv.kind == DivergenceKind::Value)
                    v = &dv;
        QVERIFY(v);
        QCOMPARE(v->baseNodes, QVector<int> { out.values.node });
        QVERIFY(v->location.isValid());
        QVERIFY2(v->evidence.join(QLatin1Char('\n')).contains(QStringLiteral("trace 1 on set %1").arg(set + 1)),
            qPrintable(v->evidence.join(QLatin1Char('\n'))));
        if (cause != QLatin1String("branch"))
            QVERIFY2(v->evidence.join(QLatin1Char('\n'))
                         .contains(QStringLiteral("the script function on set %1").arg(set + 1)),
                qPrintable(v->evidence.join(QLatin1Char('\n'))));
    }

    /// The explainer of every pair (CheckReport::pairDiffs, everyPair) names the pair's own traces: trace 2
    /// against trace 3 says "trace 2" and "trace 3" in its causes and evidence, never trace 1.
    void pairCausesNameThePair_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("function");
        QTest::addColumn<QStringList>("specs"); ///< empty: the file's own sets
        QTest::addColumn<QString>("cause"); ///< a part of a cause of trace 2 against trace 3
        QTest::addColumn<QString>("evidence"); ///< a part of the evidence of a divergence of that pair
        QTest::addRow("loop") << QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py")
                              << "loop_in_traced_fn" << QStringList {}
                              << "loop at line 6 unrolled 4 times in trace 2 but 2 times in trace 3"
                              << "unrolled 4 times: trip count x.size(0) (trace 2)";
        QTest::addRow("data branch") << dataDir() + QStringLiteral("/corpus/branch_on_data.py") << "branch_on_data"
                                     << QStringList { "f32[3,4]=full:-1", "f32[3,4]=ones", "f32[3,4]=full:-1" }
                                     << "took the then branch in trace 2 but the else branch in trace 3"
                                     << "(trace 2 and 3)";
        QTest::addRow("len baked") << dataDir() + QStringLiteral("/corpus/arange_shape.py") << "arange_len"
                                   << QStringList { "f32[3,2]", "f32[4,2]", "f32[5,2]" }
                                   << "len(x) is baked in as a constant: 4 in trace 2, 5 in trace 3"
                                   << "baked 4 in trace 2, 5 in trace 3: x.size(0) of each trace's inputs";
    }

    void pairCausesNameThePair()
    {
        QFETCH(QString, file);
        QFETCH(QString, function);
        QFETCH(QStringList, specs);
        QFETCH(QString, cause);
        QFETCH(QString, evidence);
        const LoadResult r = loadModel(file);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        CheckOptions options;
        options.everyPair = true;
        const CheckReport report
            = checkFunction(r.model, function, specs.isEmpty() ? r.model.inputSets : sets(specs), options);
        QVERIFY2(report.ok, qPrintable(report.error.toString()));
        QCOMPARE(report.traces.size(), 3);
        QCOMPARE(report.pairDiffs.size(), 1);
        const TraceDiff& pair = report.pairDiffs.first();
        QCOMPARE(pair.base, 1);
        QCOMPARE(pair.other, 2);
        QVERIFY(!pair.equal);

        // Every text of the pair names trace 2 or 3 only ("trace 2", "trace 2 and 3").
        static const QRegularExpression named(QStringLiteral("trace (\\d+)(?: and (\\d+))?"));
        QStringList texts;
        for (const NodeChange& c : pair.changes)
            texts << c.cause;
        for (const Divergence& d : pair.divergences)
            texts << d.message << d.evidence;
        const QString all = texts.join(QLatin1Char('\n'));
        for (const QString& text : std::as_const(texts)) {
            for (auto it = named.globalMatch(text); it.hasNext();) {
                const QRegularExpressionMatch m = it.next();
                for (int group = 1; group <= 2; ++group)
                    if (m.hasCaptured(group))
                        QVERIFY2(m.captured(group) == QLatin1String("2") || m.captured(group) == QLatin1String("3"),
                            qPrintable(text));
            }
        }
        QVERIFY2(all.contains(QLatin1String("trace 2")) && all.contains(QLatin1String("trace 3")), qPrintable(all));
        QVERIFY2(!all.contains(QLatin1String("trace 1")), qPrintable(all));
        bool found = false;
        for (const NodeChange& c : pair.changes)
            found |= c.cause.contains(cause);
        QVERIFY2(found, qPrintable(all));
        bool shown = false;
        for (const Divergence& d : pair.divergences)
            shown |= d.evidence.join(QLatin1Char('\n')).contains(evidence);
        QVERIFY2(shown, qPrintable(all));

        // The diffs against trace 1 still name trace 1 as their base.
        for (const TraceDiff& d : report.diffs)
            for (const NodeChange& c : d.changes)
                QVERIFY2(c.cause.contains(QLatin1String("trace 1")), qPrintable(c.cause));
    }
};

QTEST_GUILESS_MAIN(TestCheck)
#include "tst_check.moc"
