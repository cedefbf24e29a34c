#include "layout/graphlayout.h"
#include "load/model.h"
#include "testutil.h"

#include <QTest>

using namespace jitscope;
using namespace jitscope::test;

class TestGraphLayout : public QObject
{
    Q_OBJECT

private:
    static IrGraph graphOf(const QString& file, const QString& fn)
    {
        const LoadResult r = loadModel(dataDir() + file);
        if (!r.ok || !r.model.function(fn))
            return {};
        return r.model.function(fn)->graph;
    }

    /// tests/data/archives/NAME.pt loaded with its calls inlined, as the window groups it by module.
    static LoadResult inlinedArchive(const QString& name)
    {
        LoadOptions load;
        load.inlineCalls = true;
        return loadModel(dataDir() + QStringLiteral("/archives/") + name + QStringLiteral(".pt"), load);
    }

private Q_SLOTS:
    void foldsConstantsAndDrawsLoopsAsClusters()
    {
        const IrGraph g = graphOf(QStringLiteral("/corpus/loop_in_traced_fn.py"), QStringLiteral("loop_in_traced_fn"));
        QVERIFY(!g.isEmpty());
        const GraphLayout layout = layoutGraph(g);
        QVERIFY2(layout.error.isEmpty(), qPrintable(layout.error));
        // Every shown node is its own box; every folded constant is shown in the box of a node using it.
        for (const IrNode& n : g.nodes) {
            const int own = layout.indexOfNode(n.id);
            if (own >= 0) {
                QCOMPARE(layout.boxShowing(n.id), own);
                continue;
            }
            const int box = layout.boxShowing(n.id);
            if (n.kind != QLatin1String("prim::Constant") || box < 0)
                continue;
            bool usedThere = false;
            for (int out : n.outputs)
                for (int in : g.node(layout.nodes[box].nodeId).inputs)
                    usedThere |= in == out;
            QVERIFY2(usedThere, qPrintable(g.nodeLine(n.id, false)));
        }
        int constants = 0;
        for (const IrNode& n : g.nodes)
            constants += n.kind == QLatin1String("prim::Constant");
        QVERIFY(constants > 0);
        // Every non-constant node is drawn once, plus the used input and the return terminal.
        int drawn = 0;
        for (const LayoutNode& n : layout.nodes) {
            if (n.role == LayoutNode::Role::Node) {
                QVERIFY(g.node(n.nodeId).kind != QLatin1String("prim::Constant"));
                ++drawn;
            }
            QVERIFY2(n.box.width() > 0 && n.box.height() > 0, qPrintable(n.title));
            QVERIFY(layout.bounds.contains(n.box.center()));
        }
        QCOMPARE(drawn, int(g.nodes.size()) - constants);
        // One cluster for the loop, one for its body, nested.
        QCOMPARE(layout.clusters.size(), 2);
        QCOMPARE(layout.clusters[1].parentCluster, 0);
        QVERIFY(layout.clusters[0].box.contains(layout.clusters[1].box));
        const int loopIndex = layout.indexOfNode(layout.clusters[0].nodeId);
        QVERIFY(loopIndex >= 0);
        QCOMPARE(layout.nodes[loopIndex].title, QStringLiteral("prim::Loop"));
        // Nodes of the body sit inside the body's cluster.
        for (const LayoutNode& n : layout.nodes)
            if (n.role == LayoutNode::Role::Node && g.node(n.nodeId).parentNode == layout.clusters[0].nodeId)
                QVERIFY(layout.clusters[1].box.contains(n.box));
        // Constants folded into their consumer's detail lines.
        bool foldedShown = false;
        for (const LayoutNode& n : layout.nodes)
            foldedShown |= n.details.contains(QStringLiteral("dim=0"));
        QVERIFY(foldedShown);
        // Edges have Bezier points; y grows downwards: the input is above the return terminal.
        for (const LayoutEdge& e : layout.edges)
            QVERIFY(e.points.size() >= 4);
        QVERIFY(layout.nodes.first().box.top() < layout.nodes.last().box.top());
    }

    void unfoldedShowsConstants()
    {
        const IrGraph g = graphOf(QStringLiteral("/corpus/loop_in_traced_fn.py"), QStringLiteral("loop_in_traced_fn"));
        LayoutOptions options;
        options.foldConstants = false;
        const GraphLayout layout = layoutGraph(g, options);
        int drawn = 0;
        for (const LayoutNode& n : layout.nodes)
            drawn += n.role == LayoutNode::Role::Node;
        QCOMPARE(drawn, int(g.nodes.size()));
    }

    void ifHasTwoBranchClusters()
    {
        const IrGraph g = graphOf(QStringLiteral("/corpus/branch_on_data.py"), QStringLiteral("branch_on_data"));
        QVERIFY(!g.isEmpty());
        const GraphLayout layout = layoutGraph(g);
        QStringList titles;
        for (const LayoutCluster& c : layout.clusters)
            titles << c.title;
        QVERIFY2(titles.contains(QStringLiteral("then")) && titles.contains(QStringLiteral("else")),
            qPrintable(titles.join(QLatin1Char(','))));
    }

    void dotAndSvg()
    {
        const IrGraph g = graphOf(QStringLiteral("/corpus/loop_in_traced_fn.py"), QStringLiteral("loop_in_traced_fn"));
        const QString dot = toDot(g);
        QVERIFY(dot.startsWith(QLatin1String("digraph")));
        QVERIFY(dot.contains(QLatin1String("subgraph cluster_0")));
        QString error;
        const QByteArray svg = renderDotToSvg(dot, &error);
        QVERIFY2(svg.contains("<svg"), qPrintable(error));
        QVERIFY(svg.contains("aten::mul"));
        QVERIFY(renderDotToSvg(QStringLiteral("digraph { a -> "), &error).isEmpty());
        QVERIFY(!error.isEmpty());
    }

    void modulesAsNestedClusters()
    {
        const LoadResult r = inlinedArchive(QStringLiteral("conv_block"));
        QVERIFY(r.ok);
        const IrGraph& g = r.model.function(QStringLiteral("forward"))->graph;
        LayoutOptions options;
        options.groupByModule = true;
        options.moduleTypes = submoduleTypes(r.model, QStringLiteral("forward"));
        QCOMPARE(options.moduleTypes.value(QStringLiteral("layer1")), QStringLiteral("Sequential"));
        QCOMPARE(options.moduleTypes.value(QStringLiteral("layer1.0")), QStringLiteral("Conv2d"));
        QCOMPARE(submoduleTypes(r.model, QStringLiteral("layer1.forward")).value(QStringLiteral("0")),
            QStringLiteral("Conv2d"));
        const GraphLayout layout = layoutGraph(g, options);
        QVERIFY2(layout.error.isEmpty(), qPrintable(layout.error));
        QHash<QString, int> modules;
        for (int i = 0; i < layout.clusters.size(); ++i)
            if (!layout.clusters[i].module.isEmpty())
                modules.insert(layout.clusters[i].module, i);
        QVERIFY2(modules.contains(QStringLiteral("layer1")) && modules.contains(QStringLiteral("layer1.0"))
                && modules.contains(QStringLiteral("fc")),
            qPrintable(QStringList(modules.keys()).join(QLatin1Char(','))));
        // Each titled with its class.
        QCOMPARE(
            layout.clusters[modules.value(QStringLiteral("layer1"))].title, QStringLiteral("layer1 \u00b7 Sequential"));
        // layer1.0 (the conv) sits inside layer1, and its nodes inside its box (a box per run of its code: the
        // batch norm's guard code, shown here, comes between).
        QVector<QRectF> convBoxes;
        for (const LayoutCluster& c : layout.clusters) {
            if (c.module != QLatin1String("layer1.0"))
                continue;
            QVERIFY(c.parentCluster >= 0);
            QCOMPARE(layout.clusters[c.parentCluster].module, QStringLiteral("layer1"));
            QVERIFY(layout.clusters[c.parentCluster].box.contains(c.box));
            convBoxes << c.box;
        }
        QVERIFY(!convBoxes.isEmpty());
        int inside = 0;
        for (const LayoutNode& n : layout.nodes)
            if (n.role == LayoutNode::Role::Node && g.node(n.nodeId).modulePath == QLatin1String("layer1.0")
                && g.node(n.nodeId).parentNode < 0) {
                QVERIFY(std::any_of(
                    convBoxes.begin(), convBoxes.end(), [&](const QRectF& r) { return r.contains(n.box); }));
                ++inside;
            }
        QVERIFY(inside > 0);
    }

    void moduleGraphFlowsDownward()
    {
        // dense_residual: ReLU called twice, a features list appended to and concatenated layer by layer, and an
        // if on a bool attribute. These made dot lay whole networks out sideways (ResNet as a staircase, DenseNet's
        // layers side by side, MobileNet's blocks in a row).
        const LoadResult r = inlinedArchive(QStringLiteral("dense_residual"));
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        const IrGraph& g = r.model.function(QStringLiteral("forward"))->graph;
        LayoutOptions options;
        options.groupByModule = true;
        options.hideUnreachable = true;
        const GraphLayout layout = layoutGraph(g, options);
        QVERIFY2(layout.error.isEmpty(), qPrintable(layout.error));
        auto kindAt = [&](int index) {
            return layout.nodes[index].role == LayoutNode::Role::Node ? g.node(layout.nodes[index].nodeId).kind
                                                                      : QString();
        };

        // A cluster per call of the ReLU, each around its own node, one above the other.
        QVector<LayoutCluster> relus;
        for (const LayoutCluster& c : layout.clusters)
            if (c.module == QLatin1String("relu"))
                relus << c;
        QCOMPARE(relus.size(), 2);
        QVector<QRectF> reluBoxes;
        for (const LayoutNode& n : layout.nodes)
            if (n.role == LayoutNode::Role::Node && g.node(n.nodeId).modulePath == QLatin1String("relu"))
                reluBoxes << n.box;
        QCOMPARE(reluBoxes.size(), 2);
        for (const LayoutCluster& c : relus)
            QCOMPARE(int(c.box.contains(reluBoxes[0])) + int(c.box.contains(reluBoxes[1])), 1);
        QVERIFY(!relus[0].box.intersects(relus[1].box));
        // The ModuleList too: the caller's cat and append come between its entries' calls.
        QStringList entries;
        for (int i = 0; i < layout.clusters.size(); ++i)
            for (const LayoutCluster& child : layout.clusters)
                if (layout.clusters[i].module == QLatin1String("layers") && child.parentCluster == i)
                    entries << child.module;
        QCOMPARE(entries,
            QStringList({ QStringLiteral("layers.0"), QStringLiteral("layers.1"), QStringLiteral("layers.2") }));

        // The list reaches each cat from the append before it: a chain down the layers, not a hub.
        QVector<int> order; // layout indices of list ops and cats, in program order
        for (const IrNode& n : g.nodes) {
            if (n.kind == QLatin1String("aten::cat") || n.kind == QLatin1String("aten::append")
                || n.kind == QLatin1String("prim::ListConstruct")) {
                const int index = layout.indexOfNode(n.id);
                if (index >= 0)
                    order << index;
            }
        }
        int cats = 0, previousChange = -1;
        for (int index : std::as_const(order)) {
            const IrNode& n = g.node(layout.nodes[index].nodeId);
            if (n.kind == QLatin1String("aten::cat")) {
                QVERIFY(previousChange >= 0);
                bool fromChange = false;
                for (const LayoutEdge& e : layout.edges)
                    fromChange |= e.toNode == index && e.fromNode == previousChange && e.valueId == n.inputs.first();
                QVERIFY2(fromChange, qPrintable(QStringLiteral("cat %1 <- %2").arg(cats).arg(kindAt(previousChange))));
                QVERIFY(layout.nodes[index].box.top() > layout.nodes[previousChange].box.bottom());
                ++cats;
            } else if (n.kind == QLatin1String("aten::append")
                || g.value(n.outputs.first()).type.endsWith(QLatin1String("[]"))) {
                previousChange = index;
            }
        }
        QCOMPARE(cats, 4);

        // What the if's blocks return flows on below them, not beside the header.
        int ifIndex = -1;
        for (const LayoutNode& n : layout.nodes)
            if (n.role == LayoutNode::Role::Node && g.node(n.nodeId).kind == QLatin1String("prim::If"))
                ifIndex = layout.indexOfNode(n.nodeId);
        QVERIFY(ifIndex >= 0);
        const IrNode& ifNode = g.node(layout.nodes[ifIndex].nodeId);
        QRectF ifCluster;
        for (const LayoutCluster& c : layout.clusters)
            if (c.nodeId == ifNode.id && c.blockIndex < 0)
                ifCluster = c.box;
        QVERIFY(!ifCluster.isEmpty());
        int users = 0;
        for (const LayoutEdge& e : layout.edges) {
            if (e.fromNode == ifIndex && ifNode.outputs.contains(e.valueId)) {
                QVERIFY2(layout.nodes[e.toNode].box.top() > ifCluster.bottom(), qPrintable(kindAt(e.toNode)));
                ++users;
            }
        }
        QVERIFY(users >= 1);
        // The whole thing is a column: taller than wide.
        QVERIFY2(layout.bounds.height() > 2 * layout.bounds.width(),
            qPrintable(QStringLiteral("%1 x %2").arg(layout.bounds.width()).arg(layout.bounds.height())));
    }

    void overviewOfABigModel()
    {
        const LoadResult r = inlinedArchive(QStringLiteral("dense_residual"));
        QVERIFY(r.ok);
        const IrGraph& g = r.model.function(QStringLiteral("forward"))->graph;
        int ops = 0;
        for (const IrNode& n : g.nodes)
            ops += n.kind != QLatin1String("prim::Constant") && n.kind != QLatin1String("prim::GetAttr");
        // Small enough to show whole: nothing folded.
        QVERIFY(overviewFolds(g, LayoutOptions(), ops, 10).isEmpty());
        // Big: the deepest level of module paths that fits (relu, out and layers.N hold one op each: folding at depth
        // 2 leaves as many boxes as there are ops); depth 1 folds the whole ModuleList into one box.
        const QStringList deep = overviewFolds(g, LayoutOptions(), ops - 1, ops);
        QCOMPARE(
            deep, QStringList({ QStringLiteral("layers.0"), QStringLiteral("layers.1"), QStringLiteral("layers.2") }));
        const int ownOps = ops - 6; // relu twice, three linears, out
        const QStringList shallow = overviewFolds(g, LayoutOptions(), ops - 1, ownOps + 3);
        QCOMPARE(shallow, QStringList({ QStringLiteral("layers"), QStringLiteral("out"), QStringLiteral("relu") }));
        QVERIFY(overviewFolds(g, LayoutOptions(), ops - 1, ownOps + 2).isEmpty()); // even the top level is too much
        // Laid out with those folds, each is one box.
        LayoutOptions options;
        options.groupByModule = true;
        options.foldedModules = shallow;
        const GraphLayout layout = layoutGraph(g, options);
        int boxes = 0;
        for (const LayoutNode& n : layout.nodes)
            boxes += n.role == LayoutNode::Role::Module;
        QCOMPARE(boxes, 3);
    }

    void foldedModuleIsOneBox()
    {
        const LoadResult r = inlinedArchive(QStringLiteral("conv_block"));
        QVERIFY(r.ok);
        const IrGraph& g = r.model.function(QStringLiteral("forward"))->graph;
        LayoutOptions options;
        options.groupByModule = true;
        options.foldedModules = { QStringLiteral("layer1") };
        options.moduleTypes = submoduleTypes(r.model, QStringLiteral("forward"));
        const GraphLayout layout = layoutGraph(g, options);
        QVERIFY2(layout.error.isEmpty(), qPrintable(layout.error));
        int boxes = 0, boxIndex = -1;
        for (int i = 0; i < layout.nodes.size(); ++i) {
            const LayoutNode& n = layout.nodes[i];
            if (n.role == LayoutNode::Role::Module) {
                ++boxes;
                boxIndex = i;
                QCOMPARE(n.module, QStringLiteral("layer1"));
                QCOMPARE(n.details, QStringList { QStringLiteral("Sequential") });
            } else if (n.role == LayoutNode::Role::Node) {
                QVERIFY2(!g.node(n.nodeId).modulePath.startsWith(QLatin1String("layer1")), qPrintable(n.title));
            }
        }
        QCOMPARE(boxes, 1);
        // The layout says which box shows each node of the folded module: the module's.
        int inModule = 0;
        for (const IrNode& n : g.nodes) {
            if (n.modulePath.startsWith(QLatin1String("layer1")) && n.kind != QLatin1String("prim::Constant")
                && layout.boxShowing(n.id) >= 0) {
                ++inModule;
                QCOMPARE(layout.boxShowing(n.id), boxIndex);
            }
        }
        QVERIFY(inModule > 0);
        for (const LayoutCluster& c : layout.clusters)
            QVERIFY(!c.module.startsWith(QLatin1String("layer1")));
        // The box is wired in: the input flows into it and its result flows on.
        bool in = false, out = false;
        for (const LayoutEdge& e : layout.edges) {
            in |= e.toNode == boxIndex;
            out |= e.fromNode == boxIndex;
        }
        QVERIFY(in && out);
    }

    void foldedLoopHidesItsBody()
    {
        const IrGraph g = graphOf(QStringLiteral("/corpus/loop_in_traced_fn.py"), QStringLiteral("loop_in_traced_fn"));
        int loop = -1;
        for (const IrNode& n : g.nodes)
            if (n.kind == QLatin1String("prim::Loop"))
                loop = n.id;
        QVERIFY(loop >= 0);
        LayoutOptions options;
        options.foldedNodes = { loop };
        const GraphLayout layout = layoutGraph(g, options);
        QVERIFY2(layout.error.isEmpty(), qPrintable(layout.error));
        QVERIFY(layout.clusters.isEmpty());
        const int index = layout.indexOfNode(loop);
        QVERIFY(index >= 0);
        QVERIFY(layout.nodes[index].folded);
        QVERIFY(layout.nodes[index].details.contains(QStringLiteral("folded: 2 nodes")));
        // The body's nodes are shown by the folded loop's box.
        int inside = 0;
        for (const IrNode& n : g.nodes) {
            if (n.parentNode == loop) {
                ++inside;
                QCOMPARE(layout.boxShowing(n.id), index);
            }
        }
        QVERIFY(inside > 0);
        for (const LayoutNode& n : layout.nodes)
            if (n.role == LayoutNode::Role::Node)
                QCOMPARE(g.node(n.nodeId).parentNode, -1);
        // x still flows into the loop (its body used it), and the loop into return.
        bool in = false, out = false;
        for (const LayoutEdge& e : layout.edges) {
            in |= e.toNode == index && layout.nodes[e.fromNode].role == LayoutNode::Role::GraphInputs;
            out |= e.fromNode == index && layout.nodes[e.toNode].role == LayoutNode::Role::GraphOutputs;
        }
        QVERIFY(in && out);
    }

    void hidesCodeNotReachingTheOutputs()
    {
        const LoadResult r = inlinedArchive(QStringLiteral("conv_block"));
        QVERIFY(r.ok);
        const IrGraph& g = r.model.function(QStringLiteral("forward"))->graph;
        const GraphLayout all = layoutGraph(g);
        LayoutOptions options;
        options.hideUnreachable = true;
        const GraphLayout shown = layoutGraph(g, options);
        int raises = 0, convs = 0;
        for (const LayoutNode& n : shown.nodes) {
            if (n.role != LayoutNode::Role::Node)
                continue;
            raises += n.title == QLatin1String("prim::RaiseException");
            convs
                += n.title.startsWith(QLatin1String("aten::_convolution")) || n.title == QLatin1String("aten::conv2d");
        }
        // BatchNorm's input check raises and computes nothing for the output: hidden. The convolution stays.
        QCOMPARE(raises, 0);
        QVERIFY(convs >= 1);
        QVERIFY(shown.nodes.size() < all.nodes.size());
    }

    void categories_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("category");
        QTest::addRow("conv") << "aten::conv2d" << int(OpCategory::ConvLinear);
        QTest::addRow("linear") << "aten::linear" << int(OpCategory::ConvLinear);
        QTest::addRow("bn") << "aten::batch_norm" << int(OpCategory::Normalization);
        QTest::addRow("relu_") << "aten::relu_" << int(OpCategory::Activation);
        QTest::addRow("pool") << "aten::max_pool2d" << int(OpCategory::Pooling);
        QTest::addRow("view") << "aten::view" << int(OpCategory::ShapeView);
        QTest::addRow("add") << "aten::add" << int(OpCategory::Arithmetic);
        QTest::addRow("loop") << "prim::Loop" << int(OpCategory::ControlFlow);
        QTest::addRow("zeros") << "aten::zeros" << int(OpCategory::Creation);
        QTest::addRow("call") << "prim::CallMethod" << int(OpCategory::Call);
    }

    void categories()
    {
        QFETCH(QString, kind);
        QFETCH(int, category);
        QCOMPARE(int(opCategory(kind)), category);
    }
};

QTEST_GUILESS_MAIN(TestGraphLayout)
#include "tst_graphlayout.moc"
