#include "layout/layout.h"
#include "load/model.h"
#include "testutil.h"

#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

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

    /// Graphviz 2.42 cannot rank some graphs whose labelled edges run between clusters ("trouble in init_rank", then
    /// a double free: the window's crash on a detection model's trace). Laid out again with the labels as xlabels,
    /// they come out whole, and so do the layouts after them.
    void dotThatCannotRank()
    {
        const QString dot = test::readText(test::dataDir() + QStringLiteral("/hostile/dot_init_rank.dot"));
        QVERIFY(dot.contains(QLatin1String("label=\"76\"")));
        for (int run = 0; run < 3; ++run) {
            QString error;
            const QByteArray svg = renderDotToSvg(dot, &error);
            QVERIFY2(!svg.isEmpty(), qPrintable(error));
            QVERIFY(svg.contains("n158"));
            QVERIFY(svg.contains(">76</text>"));
        }
        const GraphLayout layout
            = layoutGraph(graphOf(QStringLiteral("/corpus/loop_in_traced_fn.py"), QStringLiteral("loop_in_traced_fn")));
        QVERIFY2(layout.error.isEmpty(), qPrintable(layout.error));
        QVERIFY(!layout.nodes.isEmpty());
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

    void hierarchicalLayoutNestsModules_data()
    {
        QTest::addColumn<QString>("archive");
        QTest::addColumn<bool>("hideUnreachable");
        QTest::addRow("conv_block") << QStringLiteral("conv_block") << false;
        QTest::addRow("dense_residual") << QStringLiteral("dense_residual") << true;
        QTest::addRow("dense_residual, guards shown") << QStringLiteral("dense_residual") << false;
        QTest::addRow("module_list_loop") << QStringLiteral("module_list_loop") << false;
        QTest::addRow("nested_script") << QStringLiteral("nested_script") << true;
    }

    void hierarchicalLayoutNestsModules()
    {
        QFETCH(QString, archive);
        QFETCH(bool, hideUnreachable);
        const LoadResult r = inlinedArchive(archive);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        const IrGraph& g = r.model.function(QStringLiteral("forward"))->graph;
        LayoutOptions options;
        options.groupByModule = true;
        options.hideUnreachable = hideUnreachable;
        options.moduleTypes = submoduleTypes(r.model, QStringLiteral("forward"));
        options.hierarchicalAbove = 0;
        const GraphLayout layout = layoutGraph(g, options);
        QVERIFY2(layout.error.isEmpty(), qPrintable(layout.error));
        QVERIFY(layout.stats.hierarchical);
        QCOMPARE(layout.stats.clusters,
            1 + int(std::count_if(layout.clusters.begin(), layout.clusters.end(), [](const LayoutCluster& c) {
                return !c.module.isEmpty();
            })));
        QCOMPARE(layout.stats.dotRuns + layout.stats.reused + layout.stats.cached, layout.stats.clusters);
        // The same boxes, clusters and edges as the layout in one piece.
        LayoutOptions whole = options;
        whole.hierarchicalAbove = std::numeric_limits<int>::max();
        const GraphLayout flat = layoutGraph(g, whole);
        QVERIFY(!flat.stats.hierarchical);
        QCOMPARE(flat.stats.dotRuns, 1);
        QCOMPARE(layout.nodes.size(), flat.nodes.size());
        QCOMPARE(layout.edges.size(), flat.edges.size());
        QCOMPARE(layout.clusters.size(), flat.clusters.size());

        auto moduleOfBox = [&](const LayoutNode& n) {
            if (n.role == LayoutNode::Role::Module)
                return n.module;
            if (n.role != LayoutNode::Role::Node)
                return QString();
            int top = n.nodeId;
            while (g.node(top).parentNode >= 0)
                top = g.node(top).parentNode;
            return g.node(top).modulePath;
        };
        auto within = [](const QString& path, const QString& module) {
            return path == module || path.startsWith(module + QLatin1Char('.'));
        };
        const QRectF bounds = layout.bounds.adjusted(-1, -1, 1, 1);
        int modules = 0;
        for (int i = 0; i < layout.nodes.size(); ++i) {
            const LayoutNode& n = layout.nodes[i];
            QVERIFY2(n.box.width() > 0 && n.box.height() > 0, qPrintable(n.title));
            QVERIFY2(bounds.contains(n.box), qPrintable(n.title));
            // Every box inside a cluster of its module (a cluster per run of the module's code), and in no
            // cluster of another module.
            const QString path = moduleOfBox(n);
            bool inOwn = path.isEmpty();
            for (const LayoutCluster& c : layout.clusters) {
                if (c.module.isEmpty() || !c.box.contains(n.box.center()))
                    continue;
                QVERIFY2(within(path, c.module),
                    qPrintable(n.title + QStringLiteral(" of '") + path + QStringLiteral("' inside ") + c.module));
                inOwn |= c.module == path && c.box.contains(n.box);
            }
            QVERIFY2(inOwn, qPrintable(n.title + QStringLiteral(" outside its module ") + path));
            modules += !path.isEmpty();
            // No two boxes overlap.
            for (int j = i + 1; j < layout.nodes.size(); ++j)
                QVERIFY2(!n.box.intersects(layout.nodes[j].box),
                    qPrintable(n.title + QStringLiteral(" on ") + layout.nodes[j].title));
        }
        QVERIFY(modules > 0);
        for (int i = 0; i < layout.clusters.size(); ++i) {
            const LayoutCluster& c = layout.clusters[i];
            QVERIFY2(!c.box.isEmpty(), qPrintable(c.title));
            QVERIFY2(bounds.contains(c.box), qPrintable(c.title));
            // Child clusters inside their parents (modules in modules, blocks in their loop or if, a loop in its
            // module), siblings apart.
            if (c.parentCluster >= 0)
                QVERIFY2(layout.clusters[c.parentCluster].box.contains(c.box), qPrintable(c.title));
            // (A loop or an if at a module's top level has no parent cluster: its module's holds it.)
            for (const LayoutCluster& m : layout.clusters)
                if (c.parentCluster < 0 && c.nodeId >= 0 && !m.module.isEmpty()
                    && m.box.contains(layout.nodes[layout.indexOfNode(c.nodeId)].box))
                    QVERIFY2(m.box.contains(c.box), qPrintable(c.title + QStringLiteral(" outside ") + m.title));
            for (int j = i + 1; j < layout.clusters.size(); ++j)
                if (layout.clusters[j].parentCluster == c.parentCluster
                    && c.module.isEmpty() == layout.clusters[j].module.isEmpty())
                    QVERIFY2(!c.box.intersects(layout.clusters[j].box),
                        qPrintable(c.title + QStringLiteral(" on ") + layout.clusters[j].title));
            if (c.nodeId >= 0 && c.blockIndex >= 0) {
                for (const LayoutNode& n : layout.nodes)
                    if (n.role == LayoutNode::Role::Node && g.node(n.nodeId).parentNode == c.nodeId
                        && g.node(c.nodeId).blocks.value(c.blockIndex).nodes.contains(n.nodeId))
                        QVERIFY2(c.box.contains(n.box), qPrintable(n.title + QStringLiteral(" outside ") + c.title));
            }
        }
        // Edges start on the box they leave and end on the box they enter, across module borders too.
        auto distance = [](const QRectF& r, QPointF p) {
            const double dx = std::max({ r.left() - p.x(), 0.0, p.x() - r.right() });
            const double dy = std::max({ r.top() - p.y(), 0.0, p.y() - r.bottom() });
            return std::hypot(dx, dy);
        };
        for (const LayoutEdge& e : layout.edges) {
            QVERIFY(e.points.size() >= 4);
            const QString what = layout.nodes[e.fromNode].title + QStringLiteral(" -> ") + layout.nodes[e.toNode].title;
            QVERIFY2(distance(layout.nodes[e.fromNode].box, e.points.first()) < 2, qPrintable(what));
            QVERIFY2(distance(layout.nodes[e.toNode].box, e.points.last()) < 8, qPrintable(what));
            QVERIFY2(bounds.contains(e.points.first()) && bounds.contains(e.points.last()), qPrintable(what));
        }
        // Top-down: the inputs above the return.
        QVERIFY(layout.nodes.first().box.bottom() < layout.nodes.last().box.top());
    }

    void hierarchicalLayoutReusesRepeatedModules()
    {
        // dense_residual's layers.0, layers.1, layers.2: the same Linear, their weights' names apart.
        const LoadResult r = inlinedArchive(QStringLiteral("dense_residual"));
        QVERIFY(r.ok);
        const IrGraph& g = r.model.function(QStringLiteral("forward"))->graph;
        LayoutOptions options;
        options.groupByModule = true;
        options.hideUnreachable = true;
        options.hierarchicalAbove = 0;
        options.cache = std::make_shared<LayoutCache>();
        const GraphLayout layout = layoutGraph(g, options);
        QVERIFY2(layout.error.isEmpty(), qPrintable(layout.error));
        QVERIFY(layout.stats.reused >= 2);
        QCOMPARE(layout.stats.cached, 0);
        QCOMPARE(layout.stats.dotRuns, layout.stats.clusters - layout.stats.reused);
        QCOMPARE(options.cache->size(), layout.stats.dotRuns);
        // Reused: the same picture, moved.
        QVector<QRectF> entries, firstBoxes;
        for (const LayoutCluster& c : layout.clusters)
            if (c.module.startsWith(QLatin1String("layers.")))
                entries << c.box;
        QCOMPARE(entries.size(), 3);
        QVector<QPointF> offsets; // each entry's node box against its cluster
        for (const QRectF& box : std::as_const(entries)) {
            QCOMPARE(box.size(), entries.first().size());
            for (const LayoutNode& n : layout.nodes)
                if (box.contains(n.box))
                    offsets << n.box.topLeft() - box.topLeft();
        }
        QCOMPARE(offsets.size(), 3);
        QCOMPARE(offsets[1], offsets[0]);
        QCOMPARE(offsets[2], offsets[0]);
        // The entries one under the other, not side by side.
        QVERIFY(entries[0].bottom() < entries[1].top() && entries[1].bottom() < entries[2].top());

        // Laid out again with the cache: no dot run, the same geometry.
        const GraphLayout again = layoutGraph(g, options);
        QCOMPARE(again.stats.dotRuns, 0);
        QCOMPARE(again.stats.cached + again.stats.reused, again.stats.clusters);
        QCOMPARE(again.bounds, layout.bounds);
        for (int i = 0; i < layout.nodes.size(); ++i)
            QCOMPARE(again.nodes[i].box, layout.nodes[i].box);
        // Folding one entry lays out only what holds it: the ModuleList and the top level.
        options.foldedModules = { QStringLiteral("layers.1") };
        const GraphLayout folded = layoutGraph(g, options);
        QVERIFY2(folded.error.isEmpty(), qPrintable(folded.error));
        QVERIFY2(folded.stats.dotRuns <= 2, qPrintable(QString::number(folded.stats.dotRuns)));
        QVERIFY(folded.stats.cached > 0);
        int boxes = 0;
        for (const LayoutNode& n : folded.nodes)
            boxes += n.role == LayoutNode::Role::Module && n.module == QLatin1String("layers.1");
        QCOMPARE(boxes, 1);
    }

    /// Scripted torchvision models (made by tests/oracle/make_torchvision.py, weights=None) lay out as compact as
    /// resnet's column: the scripted LR-ASPP was 11,604 x 30,849 pt for its 463 boxes (773,000 pt^2 a box, resnet50
    /// 70,600), its backbone's blocks a staircase down a diagonal beside the IntermediateLayerGetter's dict
    /// writes, and F.interpolate's else-if ladder 4,700 pt wide.
    void torchvisionModelsCompact_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<double>("maxAreaPerBox"); ///< pt^2
        QTest::addColumn<double>("maxWidth"); ///< pt
        QTest::addColumn<int>("hierarchicalAbove"); ///< LayoutOptions::hierarchicalAbove
        // LR-ASPP's 353 boxes are laid out module by module; the F.interpolate that scales its result up starts
        // with checks of the input's shape, beside the classifier (2,800 pt in all under torch 1.13; torch 2.14's
        // F.interpolate checks more, and its width varied from 2,865 to 3,053 pt over runs).
        QTest::addRow("lraspp_mobilenet_v3_large") << "lraspp_mobilenet_v3_large" << 250000.0 << 3200.0 << 300;
        QTest::addRow("mobilenet_v3_small, module by module") << "mobilenet_v3_small" << 100000.0 << 1200.0 << 0;
        QTest::addRow("mobilenet_v3_small") << "mobilenet_v3_small" << 100000.0 << 1200.0 << 300;
        QTest::addRow("resnet18, module by module") << "resnet18" << 100000.0 << 1200.0 << 0;
    }

    void torchvisionModelsCompact()
    {
        QFETCH(QString, model);
        QFETCH(double, maxAreaPerBox);
        QFETCH(double, maxWidth);
        QFETCH(int, hierarchicalAbove);
        const QString python = QStringLiteral(JITSCOPE_TEST_PYTHON);
        QProcess probe;
        probe.start(python, { QStringLiteral("-c"), QStringLiteral("import torchvision") });
        if (!probe.waitForFinished(120000) || probe.exitCode() != 0)
            QSKIP("no torchvision for the engine's Python");
        static QTemporaryDir dir;
        const QString archive = dir.filePath(model + QStringLiteral(".pt"));
        if (!QFileInfo::exists(archive)) {
            QProcess make;
            make.start(
                python, { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/make_torchvision.py"), model, archive });
            QVERIFY(make.waitForFinished(300000));
            QVERIFY2(make.exitCode() == 0, make.readAllStandardError().constData());
        }
        LoadOptions load;
        load.inlineCalls = true;
        const LoadResult r = loadModel(archive, load);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        const IrGraph& g = r.model.function(QStringLiteral("forward"))->graph;
        // As the window lays out a model grouped by module.
        LayoutOptions options;
        options.groupByModule = true;
        options.hideUnreachable = true;
        options.moduleTypes = submoduleTypes(r.model, QStringLiteral("forward"));
        options.foldedNodes = deepControlFlowFolds(g, options);
        options.foldedModules = overviewFolds(g, options);
        options.hierarchicalAbove = hierarchicalAbove;
        const GraphLayout layout = layoutGraph(g, options);
        QCOMPARE(layout.stats.hierarchical, hierarchicalAbove == 0 || layout.nodes.size() > hierarchicalAbove);
        QVERIFY2(layout.error.isEmpty(), qPrintable(layout.error));
        const double area = layout.bounds.width() * layout.bounds.height() / layout.nodes.size();
        const QString size = QStringLiteral("%1 x %2 pt, %3 boxes, %4 pt^2 a box")
                                 .arg(layout.bounds.width(), 0, 'f', 0)
                                 .arg(layout.bounds.height(), 0, 'f', 0)
                                 .arg(layout.nodes.size())
                                 .arg(area, 0, 'f', 0);
        qInfo("%s: %s", qPrintable(model), qPrintable(size));
        QVERIFY2(area <= maxAreaPerBox, qPrintable(size));
        QVERIFY2(layout.bounds.width() <= maxWidth, qPrintable(size));
        // A column: the graph's input at the top, the return at the bottom (a loop of F.interpolate's size
        // computation may come beside it).
        QRectF input, output;
        for (const LayoutNode& n : layout.nodes) {
            if (n.role == LayoutNode::Role::GraphInputs)
                input = n.box;
            else if (n.role == LayoutNode::Role::GraphOutputs)
                output = n.box;
        }
        QVERIFY(!input.isNull() && !output.isNull());
        QVERIFY2(input.top() < layout.bounds.top() + 100, qPrintable(size));
        QVERIFY2(output.bottom() > layout.bounds.bottom() - layout.bounds.height() / 10, qPrintable(size));
        // Every box inside a cluster of its module (a module called twice has a cluster per call).
        for (const LayoutNode& n : layout.nodes) {
            if (n.role != LayoutNode::Role::Node || g.node(n.nodeId).modulePath.isEmpty())
                continue;
            const QString module = g.node(n.nodeId).modulePath;
            QVERIFY2(std::any_of(layout.clusters.cbegin(), layout.clusters.cend(),
                         [&](const LayoutCluster& c) { return c.module == module && c.box.contains(n.box); }),
                qPrintable(module + QLatin1String(": ") + n.title));
        }
    }

    void hierarchicalLayoutCancels()
    {
        const LoadResult r = inlinedArchive(QStringLiteral("dense_residual"));
        QVERIFY(r.ok);
        const IrGraph& g = r.model.function(QStringLiteral("forward"))->graph;
        LayoutOptions options;
        options.groupByModule = true;
        options.hierarchicalAbove = 0;
        std::atomic<bool> cancel { true };
        options.cancel = &cancel;
        const GraphLayout cancelled = layoutGraph(g, options);
        QVERIFY(cancelled.cancelled);
        QVERIFY(!cancelled.error.isEmpty());
        QCOMPARE(cancelled.stats.dotRuns, 0);
        cancel = false;
        const GraphLayout done = layoutGraph(g, options);
        QVERIFY(!done.cancelled);
        QVERIFY2(done.error.isEmpty(), qPrintable(done.error));
        QVERIFY(done.stats.dotRuns > 0);
    }

    void renderedWhereTheLayoutPutIt_data()
    {
        QTest::addColumn<QString>("archive");
        QTest::addRow("conv_block") << QStringLiteral("conv_block");
        QTest::addRow("module_list_loop") << QStringLiteral("module_list_loop");
        QTest::addRow("nested_script") << QStringLiteral("nested_script");
    }

    /// renderGraph() (the CLI's graph --format svg|png|dot) draws a graph laid out module by module where that
    /// layout, the window's, put every box: the DOT it renders carries those positions (y up, in points).
    void renderedWhereTheLayoutPutIt()
    {
        QFETCH(QString, archive);
        const LoadResult r = inlinedArchive(archive);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        const IrGraph& g = r.model.function(QStringLiteral("forward"))->graph;
        LayoutOptions options;
        options.groupByModule = true;
        options.hideUnreachable = true;
        options.moduleTypes = submoduleTypes(r.model, QStringLiteral("forward"));
        options.hierarchicalAbove = 0;
        const GraphLayout layout = layoutGraph(g, options);
        QVERIFY2(layout.error.isEmpty() && layout.stats.hierarchical, qPrintable(layout.error));
        QString error;
        // The layout passed in: Graphviz 2.43 need not lay the same graph out the same way twice in one process.
        const QString dot = QString::fromUtf8(renderGraph(g, options, QStringLiteral("dot"), &error, &layout));
        QVERIFY2(dot.startsWith(QLatin1String("digraph")), qPrintable(error));
        // Each node statement ("n12 [..., pos=\"x,y\", ...];"), to the next statement.
        static const QRegularExpression node(QStringLiteral("^\\s*n(\\d+)\\s+\\[.*?\\bpos=\"(-?[\\d.]+),(-?[\\d.]+)\""),
            QRegularExpression::MultilineOption | QRegularExpression::DotMatchesEverythingOption);
        int placed = 0;
        for (auto it = node.globalMatch(dot); it.hasNext();) {
            const auto p = it.next();
            const int index = p.captured(1).toInt();
            QVERIFY2(index < layout.nodes.size(), qPrintable(p.captured(0).simplified()));
            const QPointF centre = layout.nodes[index].box.center();
            QVERIFY2(std::abs(p.captured(2).toDouble() - centre.x()) < 1
                    && std::abs(p.captured(3).toDouble() - (layout.bounds.bottom() - centre.y())) < 1,
                qPrintable(QStringLiteral("n%1 at %2,%3, the layout's centre %4,%5")
                               .arg(index)
                               .arg(p.captured(2), p.captured(3))
                               .arg(centre.x())
                               .arg(layout.bounds.bottom() - centre.y())));
            ++placed;
        }
        QCOMPARE(placed, layout.nodes.size());
        const QByteArray svg = renderGraph(g, options, QStringLiteral("svg"), &error, &layout);
        QVERIFY2(svg.contains("<svg"), qPrintable(error));
        for (const LayoutNode& n : layout.nodes)
            QVERIFY2(svg.contains(n.title.toHtmlEscaped().toUtf8()), qPrintable(n.title));
        QVERIFY(renderGraph(g, options, QStringLiteral("png"), &error, &layout).startsWith("\x89PNG"));
        // A smaller graph is what dot draws of toDot()'s text, as before.
        LayoutOptions flat = options;
        flat.hierarchicalAbove = std::numeric_limits<int>::max();
        QCOMPARE(QString::fromUtf8(renderGraph(g, flat, QStringLiteral("dot"))), toDot(g, flat));
        QVERIFY(renderGraph(g, options, QStringLiteral("nonsense"), &error).isEmpty());
        QVERIFY(!error.isEmpty());
    }

    void smallGraphsLaidOutWhole()
    {
        // Below LayoutOptions::hierarchicalAbove boxes the picture is dot's on the whole graph, as before.
        const LoadResult r = inlinedArchive(QStringLiteral("dense_residual"));
        QVERIFY(r.ok);
        LayoutOptions options;
        options.groupByModule = true;
        const GraphLayout layout = layoutGraph(r.model.function(QStringLiteral("forward"))->graph, options);
        QVERIFY(layout.nodes.size() < options.hierarchicalAbove);
        QVERIFY(!layout.stats.hierarchical);
        QVERIFY(layout.error.isEmpty());
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
