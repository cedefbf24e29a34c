#include "report/irgraph.h"
#include "load/model.h"
#include "testutil.h"

#include <QJsonDocument>
#include <QTest>

using namespace jitscope;
using namespace jitscope::test;

class TestIrGraph : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void canonicalize_data()
    {
        QTest::addColumn<QString>("dump");
        QTest::addColumn<QString>("expected");
        QTest::addRow("renames in order of first appearance")
            << "graph(%x.1 : Tensor):\n  %3 : int = prim::Constant[value=1]() # /a/b.py:3:4\n"
               "  %y : Tensor = aten::add(%x.1, %x.1, %3) # /a/b.py:3:8\n  return (%y)\n"
            << "graph(%0 : Tensor):\n  %1 : int = prim::Constant[value=1]()\n"
               "  %2 : Tensor = aten::add(%0, %0, %1)\n  return (%2)\n";
        QTest::addRow("keeps string constants")
            << "graph():\n  %1 : str = prim::Constant[value=\"a # b\"]()\n  return (%1)\n"
            << "graph():\n  %0 : str = prim::Constant[value=\"a # b\"]()\n  return (%0)\n";
        QTest::addRow("drops trailing blanks and comments with spaces in paths")
            << "graph(%a : int):\n  return (%a)   \n\n\n"
            << "graph(%0 : int):\n  return (%0)\n";
    }

    void canonicalize()
    {
        QFETCH(QString, dump);
        QFETCH(QString, expected);
        QCOMPARE(canonicalizeDump(dump), expected);
    }

    void canonicalizeIgnoresNamesOnly()
    {
        const QString a = QStringLiteral("graph(%x : Tensor):\n  %1 : Tensor = aten::relu(%x)\n  return (%1)\n");
        const QString b = QStringLiteral("graph(%z : Tensor):\n  %5 : Tensor = aten::relu(%z)\n  return (%5)\n");
        const QString c = QStringLiteral("graph(%z : Tensor):\n  %5 : Tensor = aten::tanh(%z)\n  return (%5)\n");
        QCOMPARE(canonicalizeDump(a), canonicalizeDump(b));
        QVERIFY(canonicalizeDump(a) != canonicalizeDump(c));
    }

    void jsonRoundTrip_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("function");
        QTest::addRow("loop") << dataDir() + "/corpus/loop_in_traced_fn.py"
                              << "loop_in_traced_fn";
        QTest::addRow("nested loops") << dataDir() + "/corpus/nested_loops.py"
                                      << "nested_loops";
        QTest::addRow("archive with submodules") << dataDir() + "/archives/conv_block.pt"
                                                 << "forward";
    }

    void jsonRoundTrip()
    {
        QFETCH(QString, path);
        QFETCH(QString, function);
        const LoadResult r = loadModel(path);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        const FunctionInfo* fn = r.model.function(function);
        QVERIFY(fn && fn->ok);
        const QByteArray json = QJsonDocument(fn->graph.toJson()).toJson();
        QString error;
        const IrGraph back = IrGraph::fromJson(QJsonDocument::fromJson(json).object(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(back.toText(), fn->graph.toText());
        QCOMPARE(back.nodes.size(), fn->graph.nodes.size());
        QCOMPARE(QJsonDocument(back.toJson()).toJson(), json);
    }

    void snapshotStructure()
    {
        const LoadResult r = loadModel(dataDir() + "/corpus/loop_in_traced_fn.py");
        QVERIFY(r.ok);
        const IrGraph& g = r.model.function(QStringLiteral("loop_in_traced_fn"))->graph;
        int loops = 0;
        for (const IrNode& n : g.nodes) {
            if (n.kind != QLatin1String("prim::Loop"))
                continue;
            ++loops;
            QCOMPARE(n.blocks.size(), 1);
            QCOMPARE(n.location.line, 6); // `for i in range(x.size(0)):`
            for (int child : n.blocks.first().nodes) {
                QCOMPARE(g.node(child).parentNode, n.id);
                QCOMPARE(g.node(child).parentBlock, 0);
            }
            QVERIFY(!n.blocks.first().nodes.isEmpty());
        }
        QCOMPARE(loops, 1);
        // Values know their producers; graph inputs have none.
        QCOMPARE(g.value(g.top.inputs.first()).producer, -1);
        for (const IrNode& n : g.nodes)
            for (int out : n.outputs)
                QCOMPARE(g.value(out).producer, n.id);
    }

    void fromJsonRejectsDanglingReferences()
    {
        QJsonObject o = QJsonDocument::fromJson(R"({"inputs":[0],"outputs":[5],"nodes":[],
            "values":[{"id":0,"name":"x","type":"Tensor","producer":-1}],"node_table":[]})")
                            .object();
        QString error;
        const IrGraph g = IrGraph::fromJson(o, &error);
        QVERIFY(!error.isEmpty());
        QVERIFY(g.isEmpty());
    }

    void shapeTexts()
    {
        QCOMPARE(shapeText({ 1, 3, 224, 224 }), QStringLiteral("[1, 3, 224, 224]"));
        QCOMPARE(shapeText({}), QStringLiteral("[]"));
        QCOMPARE(shapeText({ 2, -1 }, ShapeStyle::Compact), QStringLiteral("[2,?]"));
    }
};

QTEST_GUILESS_MAIN(TestIrGraph)
#include "tst_irgraph.moc"
