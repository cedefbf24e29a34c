#include "diff/tracediff.h"
#include "load/model.h"
#include "testutil.h"
#include "trace/trace.h"

#include <QTest>

using namespace jitscope;
using namespace jitscope::test;

class TestTraceDiff : public QObject
{
    Q_OBJECT

private:
    static IrGraph trace(const QString& file, const QString& fn, const QString& set)
    {
        const LoadResult r = loadModel(dataDir() + file);
        if (!r.ok)
            return {};
        const TraceResult t = traceFunction(r.model, fn, *parseInputSet(set));
        return t.ok ? t.graph : IrGraph {};
    }

private Q_SLOTS:
    void sameGraphIsEqual()
    {
        const IrGraph a = trace(
            QStringLiteral("/corpus/view_reshape.py"), QStringLiteral("view_reshape"), QStringLiteral("f32[2,3,4]"));
        const IrGraph b = trace(
            QStringLiteral("/corpus/view_reshape.py"), QStringLiteral("view_reshape"), QStringLiteral("f32[5,3,4]"));
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        // Shapes differ, but they are erased: the traces record the same computation.
        QVERIFY(a.toText() != b.toText());
        const TraceDiff d = diffTraces(a, b);
        QVERIFY(d.equal);
        QVERIFY(d.changes.isEmpty());
    }

    void valueNamesNeverMatter()
    {
        IrGraph a = trace(QStringLiteral("/corpus/loop_in_traced_fn.py"), QStringLiteral("loop_in_traced_fn"),
            QStringLiteral("f32[3,4,5]"));
        IrGraph b = a;
        for (IrValue& v : b.values)
            v.name = QStringLiteral("renamed_%1").arg(v.id);
        QVERIFY(diffTraces(a, b).equal);
    }

    void insertionsAtTheLoop()
    {
        const IrGraph a = trace(QStringLiteral("/corpus/loop_in_traced_fn.py"), QStringLiteral("loop_in_traced_fn"),
            QStringLiteral("f32[3,4,5]"));
        const IrGraph b = trace(QStringLiteral("/corpus/loop_in_traced_fn.py"), QStringLiteral("loop_in_traced_fn"),
            QStringLiteral("f32[6,4,5]"));
        const TraceDiff d = diffTraces(a, b);
        QVERIFY(!d.equal);
        // Three more iterations, each a select with its two constants and a mul.
        QCOMPARE(d.changes.size(), 12);
        for (const NodeChange& c : d.changes)
            QCOMPARE(c.op, NodeChange::Op::Insert);
        const TraceDiff back = diffTraces(b, a);
        QCOMPARE(back.changes.size(), 12);
        for (const NodeChange& c : back.changes)
            QCOMPARE(c.op, NodeChange::Op::Delete);
    }

    void changedConstantIsAChange()
    {
        const IrGraph a = trace(
            QStringLiteral("/corpus/arange_shape.py"), QStringLiteral("arange_len"), QStringLiteral("f32[3,2]"));
        const IrGraph b = trace(
            QStringLiteral("/corpus/arange_shape.py"), QStringLiteral("arange_len"), QStringLiteral("f32[4,2]"));
        const TraceDiff d = diffTraces(a, b);
        QVERIFY(!d.equal);
        bool change = false;
        for (const NodeChange& c : d.changes)
            change |= c.op == NodeChange::Op::Change && a.node(c.baseNode).kind == QLatin1String("prim::Constant");
        QVERIFY(change);
    }

    void signatureErasesShapesOnly()
    {
        const IrGraph a = trace(
            QStringLiteral("/corpus/view_reshape.py"), QStringLiteral("view_reshape"), QStringLiteral("f32[2,3,4]"));
        const QStringList lines = signatureLines(a);
        QCOMPARE(lines.size(), a.top.nodes.size());
        for (const QString& l : lines)
            QVERIFY2(!l.contains(QLatin1String("strides")), qPrintable(l));
        QVERIFY(lines.join(QLatin1Char('\n')).contains(QLatin1String("aten::view")));
    }
};

QTEST_GUILESS_MAIN(TestTraceDiff)
#include "tst_tracediff.moc"
