#include "check/check.h"
#include "comparison.h"
#include "load/model.h"
#include "report/reportqueries.h"

#include <QtTest>

using namespace jitscope;

namespace {

/// A flat trace of @p kinds; node i's origin is origins[i] and it ran in iteration iterations[i] of loop 2
/// (-1: outside the loop).
IrGraph traceGraph(const QStringList& kinds, const QVector<int>& origins, const QVector<int>& iterations)
{
    IrGraph g;
    for (int i = 0; i < kinds.size(); ++i) {
        IrValue v;
        v.id = i;
        v.name = QString::number(10 + i);
        v.producer = i;
        g.values.append(v);
        IrNode n;
        n.id = i;
        n.kind = kinds.at(i);
        n.outputs = { i };
        n.originNode = origins.value(i, -1);
        if (iterations.value(i, -1) >= 0)
            n.loopPath = { LoopFrame { 2, iterations.at(i), 6 } };
        g.nodes.append(n);
        g.top.nodes.append(i);
    }
    return g;
}

IrGraph scriptGraph()
{
    IrGraph g;
    const QStringList kinds = { QStringLiteral("aten::select"), QStringLiteral("aten::size"),
        QStringLiteral("prim::Loop"), QStringLiteral("aten::mul") };
    for (int i = 0; i < kinds.size(); ++i) {
        IrNode n;
        n.id = i;
        n.kind = kinds.at(i);
        n.parentNode = i == 3 ? 2 : -1;
        g.nodes.append(n);
    }
    g.top.nodes = { 0, 1, 2 };
    return g;
}

NodeChange change(NodeChange::Op op, int base, int other)
{
    NodeChange c;
    c.op = op;
    c.baseNode = base;
    c.otherNode = other;
    c.cause = QStringLiteral("loop ran more often");
    return c;
}

} // namespace

class TestComparison : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void reportDiffGivesStatusesAndPairs()
    {
        CheckReport report;
        report.ok = true;
        report.script = scriptGraph();
        TraceResult a;
        a.ok = true;
        a.graph = traceGraph({ QStringLiteral("aten::select"), QStringLiteral("aten::mul") }, { 0, 3 }, { -1, 0 });
        TraceResult b;
        b.ok = true;
        b.graph
            = traceGraph({ QStringLiteral("aten::select"), QStringLiteral("aten::mul"), QStringLiteral("aten::mul") },
                { 0, 3, 3 }, { -1, 0, 1 });
        report.traces = { a, b };
        TraceDiff diff;
        diff.base = 0;
        diff.other = 1;
        diff.equal = false;
        diff.changes = { change(NodeChange::Op::Insert, -1, 2) };
        report.diffs = { diff };

        const Comparison c = Comparison::between(report, 0, 1);
        QVERIFY(c.isTracePair());
        QCOMPARE(c.diff.changes.size(), 1);
        QCOMPARE(c.rightStatus.value(2), DiffStatus::Inserted);
        QCOMPARE(c.rightStatus.size(), 1);
        QVERIFY(c.leftStatus.isEmpty());
        QCOMPARE(c.count(NodeChange::Op::Insert), 1);
        // The common nodes pair up in order; the inserted node has no partner.
        QCOMPARE(c.leftToRight.value(0), 0);
        QCOMPARE(c.leftToRight.value(1), 1);
        QVERIFY(!c.rightToLeft.contains(2));

        // The same diff from the other side: the insert becomes a delete on the left.
        const Comparison r = Comparison::between(report, 1, 0);
        QCOMPARE(r.diff.base, 1);
        QCOMPARE(r.diff.other, 0);
        QCOMPARE(r.diff.changes.first().op, NodeChange::Op::Delete);
        QCOMPARE(r.leftStatus.value(2), DiffStatus::Deleted);
        QVERIFY(r.rightStatus.isEmpty());
        QCOMPARE(r.diff.changes.first().cause, QStringLiteral("loop ran more often"));

        // A side showing the script has no diff; neither has a trace against itself.
        QVERIFY(Comparison::between(report, 0, Comparison::Script).diff.changes.isEmpty());
        QVERIFY(!Comparison::between(report, 0, Comparison::Script).isTracePair());
        QVERIFY(Comparison::between(report, 1, 1).diff.changes.isEmpty());
    }

    void changedNodesArePaired()
    {
        CheckReport report;
        report.ok = true;
        TraceResult a;
        a.ok = true;
        a.graph = traceGraph({ QStringLiteral("aten::add"), QStringLiteral("aten::relu") }, {}, {});
        TraceResult b = a;
        report.traces = { a, b };
        TraceDiff diff;
        diff.base = 0;
        diff.other = 1;
        diff.changes = { change(NodeChange::Op::Change, 0, 0) };
        report.diffs = { diff };
        const Comparison c = Comparison::between(report, 0, 1);
        QCOMPARE(c.leftStatus.value(0), DiffStatus::Changed);
        QCOMPARE(c.rightStatus.value(0), DiffStatus::Changed);
        QCOMPARE(c.leftToRight.value(0), 0);
        QCOMPARE(c.leftToRight.value(1), 1);
    }

    void failedTraceHasNoDiff()
    {
        CheckReport report;
        report.ok = true;
        TraceResult a;
        a.ok = true;
        a.graph = traceGraph({ QStringLiteral("aten::add") }, {}, {});
        TraceResult failed;
        report.traces = { a, failed };
        const Comparison c = Comparison::between(report, 0, 1);
        QVERIFY(c.diff.changes.isEmpty());
        QVERIFY(c.leftStatus.isEmpty() && c.rightStatus.isEmpty());
    }

    void traceNodesByIteration()
    {
        const IrGraph script = scriptGraph();
        const IrGraph trace = traceGraph({ QStringLiteral("aten::select"), QStringLiteral("aten::mul"),
                                             QStringLiteral("aten::mul"), QStringLiteral("aten::mul") },
            { 0, 3, 3, 3 }, { -1, 0, 1, 2 });

        const QVector<LinkedNode> body = traceNodesOf(trace, script, 3);
        QCOMPARE(body.size(), 3);
        QCOMPARE(body.at(0).node, 1);
        QCOMPARE(body.at(0).iteration, QStringLiteral("iteration 1"));
        QCOMPARE(body.at(2).iteration, QStringLiteral("iteration 3"));

        // The loop itself recorded nothing, but everything recorded inside it belongs to it.
        const QVector<LinkedNode> loop = traceNodesOf(trace, script, 2);
        QCOMPARE(loop.size(), 3);
        QCOMPARE(loop.at(1).iteration, QStringLiteral("iteration 2"));

        const QVector<LinkedNode> outside = traceNodesOf(trace, script, 0);
        QCOMPARE(outside.size(), 1);
        QVERIFY(outside.first().iteration.isEmpty());
        QVERIFY(traceNodesOf(trace, script, 1).isEmpty());
        QVERIFY(traceNodesOf(trace, script, -1).isEmpty());

        QCOMPARE(nodeLabel(trace, 1), QStringLiteral("%11"));
    }

    void nestedIterations()
    {
        IrNode node;
        node.loopPath = { LoopFrame { 4, 0, 3 }, LoopFrame { 7, 2, 4 } };
        QCOMPARE(iterationLabel(node), QStringLiteral("iteration 1.3"));
        QCOMPARE(iterationLabel(node, 7), QStringLiteral("iteration 3"));
        QCOMPARE(iterationLabel(IrNode()), QString());
    }

    void everyPairIsDiffedByTheEngine()
    {
        const QString path = QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
        const LoadResult load = loadModel(path);
        QVERIFY2(load.ok, qPrintable(load.error.toString()));
        const FunctionInfo* fn = load.model.defaultFunction();
        QVERIFY(fn);
        CheckOptions options;
        options.everyPair = true; // as the window's check asks
        const CheckReport report = checkFunction(load.model, fn->name, load.model.inputSets, options);
        QVERIFY2(report.ok, qPrintable(report.error.toString()));
        QCOMPARE(report.traces.size(), 3);

        // Trace 2 ran the loop 4 times, trace 3 twice: 2 iterations of 4 nodes each are missing on the right.
        const Comparison c = Comparison::between(report, 1, 2);
        QCOMPARE(c.count(NodeChange::Op::Delete), 8);
        QCOMPARE(c.leftStatus.size(), 8);
        QVERIFY(c.rightStatus.isEmpty());
        for (const NodeChange& change : c.diff.changes)
            QVERIFY2(change.cause.contains(QLatin1String("x.size(0)")), qPrintable(change.cause));
        QCOMPARE(c.rightToLeft.size(), report.traces.at(2).graph.top.nodes.size());
    }
};

QTEST_GUILESS_MAIN(TestComparison)
#include "tst_comparison.moc"
