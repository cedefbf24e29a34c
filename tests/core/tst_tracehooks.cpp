// Each implementation of the interpreter's hooks on its own, through what it adds to a run or a trace:
// the warning kinds' table and TraceWarningSink, ProvenanceRecorder, PythonTracingSemantics, the debugger probe.

#include "load/model.h"
#include "testutil.h"
#include "trace/trace.h"

#include <QTest>

using namespace jitscope;
using namespace jitscope::test;

namespace {

int countKind(const IrGraph& g, const QString& kind)
{
    int n = 0;
    for (const IrNode& node : g.nodes)
        n += node.kind == kind;
    return n;
}

} // namespace

class TestTraceHooks : public QObject
{
    Q_OBJECT

private:
    ModelInfo m_loop;
    ModelInfo m_shapes;
    const QString m_fn = QStringLiteral("loop_in_traced_fn");
    const InputSet m_set = *parseInputSet(QStringLiteral("f32[3,4,5]"));

    int scriptNodeOfKind(const QString& kind) const
    {
        const IrGraph& g = m_loop.function(m_fn)->graph;
        for (const IrNode& n : g.nodes)
            if (n.kind == kind)
                return n.id;
        return -1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        const LoadResult a = loadModel(QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py"));
        QVERIFY(a.ok);
        m_loop = a.model;
        const LoadResult b = loadModel(dataDir() + QStringLiteral("/corpus/trace_shapes.py"));
        QVERIFY(b.ok);
        m_shapes = b.model;
    }

    /// One table: every kind's name (the CLI's, unchanged), severity, text and fix.
    void warningKinds()
    {
        const QStringList names
            = { "tensor-to-bool", "tensor-to-number", "tensor-to-index", "len-of-tensor", "iterating-tensor",
                  "baked-constant", "shape-dependent-loop", "data-dependent-loop", "shape-dependent-branch",
                  "data-dependent-branch", "in-place-on-input", "in-place-on-view", "nondeterministic-op",
                  "user-warning", "tracer", "raw-trace", "trace-failed", "output-mismatch", "check-failed" };
        for (int i = 0; i < names.size(); ++i) {
            const WarningKind kind = WarningKind(i);
            QCOMPARE(warningKindName(kind), names[i]);
            WarningKind back = WarningKind::Tracer;
            QVERIFY(warningKindFromName(names[i], &back));
            QCOMPARE(back, kind);
            const bool error = kind == WarningKind::TraceFailed || kind == WarningKind::OutputMismatch
                || kind == WarningKind::CheckFailed;
            QCOMPARE(warningSeverity(kind), error ? WarningSeverity::Error : WarningSeverity::Warning);
        }
        WarningKind none;
        QVERIFY(!warningKindFromName(QStringLiteral("no-such-kind"), &none));
        QCOMPARE(warningMessage(WarningKind::ShapeDependentLoop, { "6", "3", "x.size(0)" }),
            QStringLiteral("loop at line 6 unrolled 3 times: trip count x.size(0)"));
        QCOMPARE(warningFix(WarningKind::LenOfTensor, { "x", "3" }),
            QStringLiteral(
                "use x.shape[0] (recorded dynamically) instead of len(x), which is baked in as the constant 3"));
        QVERIFY(warningMessage(WarningKind::TensorToBool, { "boolean" })
                    .startsWith("Converting a tensor to a Python boolean"));
        QVERIFY(warningFix(WarningKind::BakedConstant, {}, 1) != warningFix(WarningKind::BakedConstant, {}, 2));
        QVERIFY(warningMessage(WarningKind::UserWarning).isEmpty()); // the user's own text
    }

    /// TraceWarningSink: a warning at the node the interpreter stands on, blamed on its script node, once.
    void warningSink()
    {
        const TraceResult t = traceFunction(m_loop, m_fn, m_set);
        QVERIFY(t.ok);
        QCOMPARE(t.warnings.size(), 1);
        const TraceWarning& w = t.warnings.first();
        QCOMPARE(w.kind, WarningKind::ShapeDependentLoop);
        QCOMPARE(w.message, warningMessage(w.kind, { "6", "3", "x.size(0)" }));
        QCOMPARE(w.suggestion, warningFix(w.kind, { "3" }));
        QCOMPARE(w.scriptNode, scriptNodeOfKind(QStringLiteral("prim::Loop")));
        QCOMPARE(w.location.line, 6);
        QCOMPARE(w.detail, QStringLiteral("x.size(0)"));
        QCOMPARE(w.count, 3);
    }

    /// ProvenanceRecorder: every recorded op names the script node and the loop iteration that recorded it.
    void provenance()
    {
        const TraceResult t = traceFunction(m_loop, m_fn, m_set);
        QVERIFY(t.ok);
        const IrGraph& script = m_loop.function(m_fn)->graph;
        QVector<int> iterations;
        for (const IrNode& n : t.graph.nodes) {
            if (n.kind == QLatin1String("prim::Constant"))
                continue;
            QVERIFY2(n.originNode >= 0, qPrintable(n.kind));
            QCOMPARE(script.node(n.originNode).kind, n.kind);
            if (n.kind == QLatin1String("aten::mul")) {
                QCOMPARE(n.loopPath.size(), 1);
                QCOMPARE(n.loopPath.first().loopNode, scriptNodeOfKind(QStringLiteral("prim::Loop")));
                iterations << n.loopPath.first().iteration;
            } else {
                QVERIFY(n.loopPath.isEmpty() || n.kind == QLatin1String("aten::select"));
            }
        }
        QCOMPARE(iterations, (QVector<int> { 0, 1, 2 }));
    }

    /// PythonTracingSemantics: what Python's tracer records where running the script graph records something else.
    void pythonSemantics()
    {
        // x.size(0) is a traced 0-dim tensor: aten::size + prim::NumToTensor, aten::Int where view consumes it.
        const TraceResult rows = traceFunction(m_shapes, QStringLiteral("view_rows"), *parseInputSet("f32[2,3]"));
        QVERIFY2(rows.ok, qPrintable(rows.error.toString()));
        QCOMPARE(countKind(rows.graph, QStringLiteral("aten::size")), 1);
        QCOMPARE(countKind(rows.graph, QStringLiteral("prim::NumToTensor")), 1);
        QCOMPARE(countKind(rows.graph, QStringLiteral("aten::Int")), 1);
        // The loop's trip count is a size: unrolled, no loop in the trace.
        const TraceResult loop = traceFunction(m_loop, m_fn, m_set);
        QCOMPARE(countKind(loop.graph, QStringLiteral("prim::Loop")), 0);
        QCOMPARE(countKind(loop.graph, QStringLiteral("aten::mul")), 3);
        // Without tracing nothing of this happens: the outputs are the same values.
        const RunResult run = runFunction(m_loop, m_fn, m_set);
        QVERIFY(run.ok);
        QCOMPARE(run.outputs.first().sum, loop.outputs.first().sum);
    }

    /// The debugger probe: a before and an after event per node, breakpoints once per line and iteration.
    void debuggerProbe()
    {
        ExecOptions options;
        options.breakLines = { 7 };
        options.summarizeValues = true;
        int before = 0, after = 0, breakpoints = 0, depthMax = 0;
        QVector<int> breakIterations;
        options.observer = [&](const NodeEvent& e) {
            (e.after ? after : before) += 1;
            depthMax = std::max(depthMax, e.depth);
            QVERIFY(!e.traceSoFar); // not tracing
            if (e.breakpoint) {
                ++breakpoints;
                breakIterations << e.loopPath.value(0).iteration;
                QVERIFY(!e.values.isEmpty()); // the live values
            }
            if (e.after && e.kind == QLatin1String("aten::mul"))
                QCOMPARE(e.values.size(), 1); // its output
        };
        const RunResult r = runFunction(m_loop, m_fn, m_set, options);
        QVERIFY(r.ok);
        QVERIFY(before > 0);
        QCOMPARE(after, before);
        QCOMPARE(depthMax, 0);
        QCOMPARE(breakpoints, 3);
        QCOMPARE(breakIterations, (QVector<int> { 0, 1, 2 }));
    }
};

QTEST_GUILESS_MAIN(TestTraceHooks)
#include "tst_tracehooks.moc"
