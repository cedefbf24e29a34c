#include "graphitems.h"
#include "graphscene.h"
#include "graphview.h"
#include "layout/layout.h"
#include "report/irgraph.h"

#include <QImage>
#include <QPainter>
#include <QSet>
#include <QSignalSpy>
#include <QStyleOptionGraphicsItem>
#include <QtMath>
#include <QtTest>

using namespace jitscope;

namespace {

enum NodeIds { ConstTwo, Mul, TripCount, CondTrue, Loop, BodyMul, BodyRelu, Sigmoid };

int addValue(IrGraph& g, const QString& name, const QString& type, int producer, QVector<qint64> sizes = {})
{
    IrValue v;
    v.id = g.values.size();
    v.name = name;
    v.type = type;
    v.producer = producer;
    if (!sizes.isEmpty()) {
        TensorInfo t;
        t.dtype = QStringLiteral("Float");
        t.sizes = sizes;
        v.tensor = t;
    }
    g.values.append(v);
    return v.id;
}

int addNode(IrGraph& g, const QString& kind, QVector<int> inputs, int line, int parentNode = -1)
{
    IrNode n;
    n.id = g.nodes.size();
    n.kind = kind;
    n.inputs = inputs;
    n.location = SourceLocation { QStringLiteral("model.py"), line, 4 };
    n.parentNode = parentNode;
    n.parentBlock = parentNode >= 0 ? 0 : -1;
    g.nodes.append(n);
    return n.id;
}

/// A chain of @p n ops laid out in rows of 40 (made up: no Graphviz), big enough to be built in slices.
void chainGraph(int n, IrGraph& g, GraphLayout& layout)
{
    int v = addValue(g, QStringLiteral("x"), QStringLiteral("Tensor"), -1);
    g.top.inputs = { v };
    for (int i = 0; i < n; ++i) {
        const int id = addNode(g, i % 2 ? QStringLiteral("aten::relu") : QStringLiteral("aten::conv2d"), { v }, i + 1);
        v = addValue(g, QString::number(i), QStringLiteral("Tensor"), id);
        g.nodes[id].outputs = { v };
        g.top.nodes << id;
        LayoutNode box;
        box.nodeId = id;
        box.title = g.nodes[id].kind;
        box.category = opCategory(box.title);
        box.box = QRectF((i / 40) * 200.0, (i % 40) * 80.0, 130, 44);
        layout.nodes << box;
        layout.boxOfNode.insert(id, i);
        if (i % 40) {
            LayoutEdge e;
            e.fromNode = i - 1;
            e.toNode = i;
            e.valueId = v - 1;
            const QPointF a = layout.nodes[i - 1].box.center(), b = box.box.center();
            e.points = { a, a + (b - a) / 3, a + 2 * (b - a) / 3, b };
            layout.edges << e;
        }
    }
    g.top.outputs = { v };
    layout.bounds = QRectF(0, 0, (n / 40 + 1) * 200.0, 40 * 80.0);
}

/// def f(x):
///     y = x * 2
///     for i in range(3):
///         y = relu(y * x)
///     return sigmoid(y)
IrGraph loopGraph()
{
    IrGraph g;
    const int x = addValue(g, QStringLiteral("x.1"), QStringLiteral("Float(3, 4)"), -1, { 3, 4 });
    g.top.inputs = { x };

    addNode(g, QStringLiteral("prim::Constant"), {}, 2);
    g.nodes[ConstTwo].attributes
        = { IrAttribute { QStringLiteral("value"), QStringLiteral("i"), QStringLiteral("2") } };
    g.nodes[ConstTwo].attributeText = QStringLiteral("[value=2]");
    const int two = addValue(g, QStringLiteral("2"), QStringLiteral("int"), ConstTwo);
    g.nodes[ConstTwo].outputs = { two };

    addNode(g, QStringLiteral("aten::mul"), { x, two }, 2);
    const int y = addValue(g, QStringLiteral("y.1"), QStringLiteral("Tensor"), Mul, { 3, 4 });
    g.nodes[Mul].outputs = { y };

    addNode(g, QStringLiteral("prim::Constant"), {}, 3);
    g.nodes[TripCount].attributes
        = { IrAttribute { QStringLiteral("value"), QStringLiteral("i"), QStringLiteral("3") } };
    const int n = addValue(g, QStringLiteral("3"), QStringLiteral("int"), TripCount);
    g.nodes[TripCount].outputs = { n };

    addNode(g, QStringLiteral("prim::Constant"), {}, 3);
    g.nodes[CondTrue].attributes
        = { IrAttribute { QStringLiteral("value"), QStringLiteral("i"), QStringLiteral("1") } };
    const int cond = addValue(g, QStringLiteral("4"), QStringLiteral("bool"), CondTrue);
    g.nodes[CondTrue].outputs = { cond };

    addNode(g, QStringLiteral("prim::Loop"), { n, cond, y }, 3);
    const int loopOut = addValue(g, QStringLiteral("y"), QStringLiteral("Tensor"), Loop);
    g.nodes[Loop].outputs = { loopOut };

    const int i = addValue(g, QStringLiteral("i"), QStringLiteral("int"), -1);
    const int acc = addValue(g, QStringLiteral("y.6"), QStringLiteral("Tensor"), -1);
    addNode(g, QStringLiteral("aten::mul"), { acc, x }, 4, Loop);
    const int prod = addValue(g, QStringLiteral("5"), QStringLiteral("Tensor"), BodyMul);
    g.nodes[BodyMul].outputs = { prod };
    addNode(g, QStringLiteral("aten::relu"), { prod }, 4, Loop);
    const int relu = addValue(g, QStringLiteral("y.3"), QStringLiteral("Tensor"), BodyRelu);
    g.nodes[BodyRelu].outputs = { relu };

    IrBlock body;
    body.inputs = { i, acc };
    body.nodes = { BodyMul, BodyRelu };
    body.outputs = { cond, relu };
    g.nodes[Loop].blocks = { body };

    addNode(g, QStringLiteral("aten::sigmoid"), { loopOut }, 5);
    const int out = addValue(g, QStringLiteral("6"), QStringLiteral("Tensor"), Sigmoid, { 3, 4 });
    g.nodes[Sigmoid].outputs = { out };

    g.top.nodes = { ConstTwo, Mul, TripCount, CondTrue, Loop, Sigmoid };
    g.top.outputs = { out };
    return g;
}

} // namespace

class TestGraphScene : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        m_graph = loopGraph();
        m_layout = layoutGraph(m_graph);
        QVERIFY2(m_layout.error.isEmpty(), qPrintable(m_layout.error));
        QVERIFY(!m_layout.nodes.isEmpty());
    }

    void displayedNodeFollowsTheLayout()
    {
        GraphScene scene;
        scene.setGraph(m_graph, m_layout);
        QCOMPARE(scene.displayedNode(BodyRelu), int(BodyRelu));
        // A folded constant shows in the node using it.
        QCOMPARE(scene.displayedNode(ConstTwo), m_layout.nodes.at(m_layout.boxShowing(ConstTwo)).nodeId);
        QVERIFY(scene.displayedNode(ConstTwo) >= 0);
        QVERIFY(scene.nodeItem(scene.displayedNode(ConstTwo)));
        // Folded, the loop's box shows its body: the layout says so, the scene need not guess.
        LayoutOptions options;
        options.foldedNodes = { Loop };
        const GraphLayout folded = layoutGraph(m_graph, options);
        QVERIFY2(folded.error.isEmpty(), qPrintable(folded.error));
        scene.setGraph(m_graph, folded);
        QVERIFY(!scene.nodeItem(BodyMul));
        QCOMPARE(scene.displayedNode(BodyMul), int(Loop));
        QCOMPARE(scene.displayedNode(BodyRelu), int(Loop));
        QCOMPARE(scene.displayedNode(-1), -1);
    }

    void levelOfDetailDrawsPlainBoxes_data()
    {
        QTest::addColumn<double>("scale");
        QTest::addColumn<bool>("plain");
        QTest::addRow("whole graph small (10%)") << 0.1 << true;
        QTest::addRow("readable (100%)") << 1.0 << false;
    }

    void levelOfDetailDrawsPlainBoxes()
    {
        QFETCH(double, scale);
        QFETCH(bool, plain);
        LayoutNode node;
        node.nodeId = 1;
        node.title = QStringLiteral("aten::convolution");
        node.details = { QStringLiteral("stride=[2, 2]"), QStringLiteral("padding=[3, 3]") };
        node.category = OpCategory::ConvLinear;
        node.box = QRectF(-200, -60, 400, 120);
        NodeItem item(node, 0);
        // Drawn at @p scale into an image big enough for the box at that scale; count the colours inside it.
        const QSize size(qCeil(420 * scale) + 4, qCeil(140 * scale) + 4);
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        painter.translate(size.width() / 2.0, size.height() / 2.0);
        painter.scale(scale, scale);
        QStyleOptionGraphicsItem option;
        option.exposedRect = item.boundingRect();
        item.paint(&painter, &option, nullptr);
        painter.end();
        QSet<QRgb> colours;
        const QRect inside(QPointF(size.width() / 2.0 - 150 * scale, size.height() / 2.0 - 40 * scale).toPoint(),
            QSizeF(300 * scale, 80 * scale).toSize());
        for (int y = inside.top(); y <= inside.bottom(); ++y)
            for (int x = inside.left(); x <= inside.right(); ++x)
                colours.insert(image.pixel(x, y));
        if (plain)
            QCOMPARE(colours.size(), 1); // the fill, no text
        else
            QVERIFY2(colours.size() > 4, qPrintable(QString::number(colours.size()))); // text over the fill
    }

    void itemCounts()
    {
        GraphScene scene;
        scene.setGraph(m_graph, m_layout);
        QVERIFY(scene.hasGraph());
        QCOMPARE(scene.nodeCount(), m_layout.nodes.size());
        QCOMPARE(scene.edgeCount(), m_layout.edges.size());
        QCOMPARE(scene.clusterCount(), m_layout.clusters.size());

        int nodes = 0, edges = 0, clusters = 0;
        for (QGraphicsItem* item : scene.items()) {
            nodes += item->type() == NodeItem::Type;
            edges += item->type() == EdgeItem::Type;
            clusters += item->type() == ClusterItem::Type;
        }
        QCOMPARE(nodes, scene.nodeCount());
        QCOMPARE(edges, scene.edgeCount());
        QCOMPARE(clusters, scene.clusterCount());
        QVERIFY(scene.edgeCount() >= 4);

        for (int id : { Mul, Loop, BodyMul, BodyRelu, Sigmoid }) {
            NodeItem* item = scene.nodeItem(id);
            QVERIFY2(item, qPrintable(QStringLiteral("no item for node %1").arg(id)));
            QCOMPARE(item->type(), int(NodeItem::Type));
            QCOMPARE(item->nodeId(), id);
            QCOMPARE(item->title(), m_graph.node(id).kind);
            // Items sit where Graphviz put them and keep the box size.
            const QRectF box = m_layout.nodes.at(item->layoutIndex()).box;
            QVERIFY(qAbs(item->sceneBoundingRect().center().x() - box.center().x()) < 3);
            QVERIFY(item->shape().boundingRect().width() >= box.width() - 0.5);
            QVERIFY(item->flags() & QGraphicsItem::ItemIsSelectable);
            // Drawn directly, not through a cached pixmap per item: zoomed out, a box is a plain rectangle
            // (levelOfDetailDrawsPlainBoxes), cheaper to draw than thousands of cached pixmaps are to make.
            QCOMPARE(item->cacheMode(), QGraphicsItem::NoCache);
        }
        QCOMPARE(scene.nodeItem(12345), nullptr);
        QVERIFY(scene.sceneRect().contains(scene.contentsRect()));
    }

    void edgesHavePathsAndLabels()
    {
        GraphScene scene;
        scene.setGraph(m_graph, m_layout);
        bool anyLabel = false;
        for (EdgeItem* edge : scene.edgeItems()) {
            QVERIFY(!edge->path().isEmpty());
            QVERIFY(edge->boundingRect().isValid());
            QVERIFY(!edge->shape().isEmpty());
            QVERIFY(edge->zValue() < scene.nodeItems().first()->zValue());
            anyLabel |= !edge->label().isEmpty();
        }
        // x.1 is Float(3, 4): its edges carry the shape as a label.
        QVERIFY(anyLabel);
    }

    void clustersNest()
    {
        GraphScene scene;
        scene.setGraph(m_graph, m_layout);
        QVERIFY(scene.clusterCount() >= 1);
        const QList<ClusterItem*> clusters = scene.clusterItems();
        bool nested = false;
        for (ClusterItem* cluster : clusters) {
            QCOMPARE(cluster->type(), int(ClusterItem::Type));
            QCOMPARE(cluster->nodeId(), int(Loop));
            QCOMPARE(cluster->kind(), ClusterItem::Kind::Loop);
            QVERIFY(cluster->zValue() < scene.edgeItems().first()->zValue());
            if (cluster->parentCluster() >= 0) {
                nested = true;
                ClusterItem* parent = clusters.at(cluster->parentCluster());
                QCOMPARE(cluster->depth(), parent->depth() + 1);
                QVERIFY(cluster->zValue() > parent->zValue());
                QVERIFY(parent->rect().adjusted(-1, -1, 1, 1).contains(cluster->rect()));
            }
        }
        if (clusters.size() > 1)
            QVERIFY(nested);
        // The loop body's nodes are inside some cluster.
        const QPointF bodyCenter = scene.nodeItem(BodyMul)->sceneBoundingRect().center();
        QVERIFY(std::any_of(
            clusters.begin(), clusters.end(), [&](ClusterItem* c) { return c->rect().contains(bodyCenter); }));
        QVERIFY(!clusters.first()->title().isEmpty());
    }

    void coloursByCategory()
    {
        GraphScene scene;
        scene.setGraph(m_graph, m_layout);
        NodeItem* mul = scene.nodeItem(Mul);
        NodeItem* relu = scene.nodeItem(BodyRelu);
        NodeItem* loop = scene.nodeItem(Loop);
        QCOMPARE(mul->category(), OpCategory::Arithmetic);
        QCOMPARE(relu->category(), OpCategory::Activation);
        QCOMPARE(loop->category(), OpCategory::ControlFlow);
        QCOMPARE(mul->fillColor(), scene.nodeItem(BodyMul)->fillColor());
        QVERIFY(mul->fillColor() != relu->fillColor());
        QVERIFY(mul->fillColor() != loop->fillColor());
        QVERIFY(relu->fillColor() != loop->fillColor());

        const QVector<OpCategory> shown = scene.categories();
        for (OpCategory c : { OpCategory::Input, OpCategory::Output, OpCategory::Arithmetic, OpCategory::Activation,
                 OpCategory::ControlFlow })
            QVERIFY2(shown.contains(c), qPrintable(opCategoryName(c)));
        QVERIFY(!shown.contains(OpCategory::ConvLinear));

        QSet<QRgb> all;
        for (int c = int(OpCategory::Input); c <= int(OpCategory::Other); ++c)
            all.insert(categoryColor(OpCategory(c)).rgb());
        QCOMPARE(all.size(), int(OpCategory::Other) + 1);
        // Light fills keep dark text readable.
        for (QRgb rgb : all)
            QVERIFY(QColor(rgb).lightness() > 190);
    }

    void selectionEmitsNodeSelected()
    {
        GraphScene scene;
        scene.setGraph(m_graph, m_layout);
        QSignalSpy spy(&scene, &GraphScene::nodeSelected);

        scene.selectNode(BodyRelu);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toInt(), int(BodyRelu));
        QCOMPARE(scene.selectedNodeId(), int(BodyRelu));
        QVERIFY(scene.nodeItem(BodyRelu)->isSelected());

        // Edges touching the selected node are highlighted, the others are not.
        const int reluIndex = scene.nodeItem(BodyRelu)->layoutIndex();
        for (EdgeItem* edge : scene.edgeItems())
            QCOMPARE(edge->isHighlighted(), edge->fromIndex() == reluIndex || edge->toIndex() == reluIndex);

        scene.selectNode(Sigmoid);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toInt(), int(Sigmoid));
        QVERIFY(!scene.nodeItem(BodyRelu)->isSelected());

        scene.clearSelection();
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toInt(), -1);
        for (EdgeItem* edge : scene.edgeItems())
            QVERIFY(!edge->isHighlighted());
    }

    void clickSelectsAndBackgroundClears()
    {
        GraphScene scene;
        scene.setGraph(m_graph, m_layout);
        GraphView view;
        view.setScene(&scene);
        view.resize(800, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.fitGraph();
        QVERIFY(view.zoom() > GraphView::MinZoom);
        QCOMPARE(view.dragMode(), QGraphicsView::ScrollHandDrag);

        QSignalSpy spy(&scene, &GraphScene::nodeSelected);
        NodeItem* target = scene.nodeItem(Sigmoid);
        const QPoint pos = view.mapFromScene(target->sceneBoundingRect().center());
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, pos);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toInt(), int(Sigmoid));

        // A click on empty background clears the selection (the drag-to-pan mode must not swallow it).
        const QPoint empty(2, 2);
        QVERIFY(!view.itemAt(empty));
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, empty);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toInt(), -1);
    }

    void zoom()
    {
        GraphScene scene;
        scene.setGraph(m_graph, m_layout);
        GraphView view;
        view.setScene(&scene);
        view.resize(600, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.resetZoom();
        QCOMPARE(view.zoom(), 1.0);
        QSignalSpy spy(&view, &GraphView::zoomChanged);
        view.zoomIn();
        QVERIFY(view.zoom() > 1.0);
        view.zoomOut();
        QVERIFY(qFuzzyCompare(view.zoom(), 1.0));
        QCOMPARE(spy.count(), 2);
        for (int i = 0; i < 50; ++i)
            view.zoomIn();
        QCOMPARE(view.zoom(), GraphView::MaxZoom);

        // Ctrl+wheel zooms and keeps the point under the cursor in place.
        view.setTransform(QTransform::fromScale(2.5, 2.5));
        view.centerOn(scene.contentsRect().center());
        const QPoint cursor = view.viewport()->rect().center() + QPoint(40, 30);
        const QPointF before = view.mapToScene(cursor);
        QWheelEvent wheel(cursor, view.viewport()->mapToGlobal(cursor), QPoint(), QPoint(0, 240), Qt::NoButton,
            Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.viewport(), &wheel);
        QVERIFY(view.zoom() > 2.5 * 1.2);
        const QPointF after = view.mapToScene(cursor);
        QVERIFY2(QLineF(before, after).length() < 3,
            qPrintable(QStringLiteral("moved by %1").arg(QLineF(before, after).length())));

        // Fitting never magnifies a small graph beyond 150%.
        view.fitGraph();
        QVERIFY(view.zoom() <= 1.5 + 1e-9);
    }

    void messageReplacesGraph()
    {
        GraphScene scene;
        scene.setGraph(m_graph, m_layout);
        scene.selectNode(Mul);
        QSignalSpy spy(&scene, &GraphScene::nodeSelected);
        scene.showMessage(QStringLiteral("f failed to compile"), QStringLiteral("line 3: unknown builtin op"), true);
        QCOMPARE(spy.count(), 0);
        QVERIFY(!scene.hasGraph());
        QCOMPARE(scene.nodeCount(), 0);
        QCOMPARE(scene.edgeCount(), 0);
        QCOMPARE(scene.messageTitle(), QStringLiteral("f failed to compile"));
        QCOMPARE(scene.items().size(), 1);
        QCOMPARE(scene.items().first()->type(), int(MessageItem::Type));
        QVERIFY(scene.contentsRect().width() > 100);

        scene.setGraph(m_graph, m_layout);
        QVERIFY(scene.messageTitle().isEmpty());
        QCOMPARE(scene.selectedNodeId(), -1);
    }

    void diffStatusesAndDimming()
    {
        GraphScene scene;
        scene.setGraph(m_graph, m_layout);
        scene.setNodeStatuses({ { Mul, DiffStatus::Inserted }, { Sigmoid, DiffStatus::Changed } });
        QCOMPARE(scene.nodeStatus(Mul), DiffStatus::Inserted);
        QCOMPARE(scene.nodeItem(Mul)->diffStatus(), DiffStatus::Inserted);
        QCOMPARE(scene.nodeItem(Sigmoid)->diffStatus(), DiffStatus::Changed);
        QCOMPARE(scene.nodeStatus(BodyMul), DiffStatus::Unchanged);
        QCOMPARE(scene.nodeItem(BodyMul)->diffStatus(), DiffStatus::Unchanged);
        QVERIFY(diffStatusColor(DiffStatus::Inserted) != diffStatusColor(DiffStatus::Deleted));
        QVERIFY(!diffStatusColor(DiffStatus::Unchanged).isValid());

        // Dimming fades unchanged nodes, and edges between faded nodes, but never a selected node.
        scene.setDimUnchanged(true);
        QVERIFY(!scene.nodeItem(Mul)->isDimmed());
        QVERIFY(scene.nodeItem(BodyRelu)->isDimmed());
        QVERIFY(scene.nodeItem(BodyRelu)->opacity() < 1);
        scene.selectNode(BodyRelu);
        QVERIFY(!scene.nodeItem(BodyRelu)->isDimmed());
        bool dimmedEdge = false;
        for (EdgeItem* edge : scene.edgeItems())
            dimmedEdge = dimmedEdge || edge->isDimmed();
        QVERIFY(dimmedEdge);
        scene.setDimUnchanged(false);
        for (NodeItem* item : scene.nodeItems())
            QVERIFY(!item->isDimmed());

        // A new graph starts unmarked.
        scene.setGraph(m_graph, m_layout);
        QVERIFY(scene.nodeStatuses().isEmpty());
        QCOMPARE(scene.nodeItem(Mul)->diffStatus(), DiffStatus::Unchanged);
    }

    void linkedNodesAndWarnings()
    {
        GraphScene scene;
        scene.setGraph(m_graph, m_layout);
        QSignalSpy selected(&scene, &GraphScene::nodeSelected);
        scene.setLinkedNodes({ { BodyMul, QStringLiteral("iteration 1") }, { BodyRelu, QString() } });
        QCOMPARE(selected.count(), 0);
        QVERIFY(scene.nodeItem(BodyMul)->isLinked());
        QCOMPARE(scene.nodeItem(BodyMul)->linkTag(), QStringLiteral("iteration 1"));
        // The tag is drawn above the box: the item's bounds grow to hold it.
        QVERIFY(scene.nodeItem(BodyMul)->boundingRect().top() < scene.nodeItem(BodyRelu)->boundingRect().top());
        QVERIFY(scene.nodeItem(BodyRelu)->isLinked());
        QVERIFY(!scene.nodeItem(Mul)->isLinked());
        QCOMPARE(scene.linkedNodes().size(), 2);
        scene.setLinkedNodes({});
        QVERIFY(!scene.nodeItem(BodyMul)->isLinked());

        scene.setNodeWarnings({ { Loop, QStringLiteral("loop unrolled 3 times") } });
        QCOMPARE(scene.nodeItem(Loop)->warning(), QStringLiteral("loop unrolled 3 times"));
        QVERIFY(scene.nodeItem(Loop)->toolTip().contains(QLatin1String("loop unrolled 3 times")));
        QVERIFY(scene.nodeItem(Loop)->toolTip().contains(QLatin1String("prim::Loop")));
        scene.setNodeWarnings({});
        QVERIFY(scene.nodeItem(Loop)->warning().isEmpty());
        QVERIFY(!scene.nodeItem(Loop)->toolTip().contains(QLatin1String("unrolled")));
    }

    void foldedConstantsShowInTheirConsumer()
    {
        GraphScene scene;
        scene.setGraph(m_graph, m_layout);
        // The constant 2 is folded into the multiplication that uses it.
        QCOMPARE(scene.nodeItem(ConstTwo), nullptr);
        QCOMPARE(scene.displayedNode(ConstTwo), int(Mul));
        QCOMPARE(scene.displayedNode(Mul), int(Mul));
        QCOMPARE(scene.displayedNode(-1), -1);
        QCOMPARE(scene.displayedNode(999), -1);
        QCOMPARE(scene.graph().nodes.size(), m_graph.nodes.size());
    }

    /// A big graph built in slices: setGraph() returns with part of it made, the event loop makes the rest
    /// (graphBuilt()), and what needs every item makes them first; what the layout alone answers (which box shows
    /// a node, the legend's categories) does not wait for them.
    void buildInSlices()
    {
        IrGraph g;
        GraphLayout layout;
        chainGraph(20000, g, layout);
        GraphScene scene;
        QSignalSpy built(&scene, &GraphScene::graphBuilt);
        QSignalSpy replaced(&scene, &GraphScene::contentsReplaced);
        scene.setGraph(g, layout, GraphScene::Build::InSlices);
        QVERIFY(scene.isBuilding());
        QVERIFY(scene.hasGraph());
        QCOMPARE(replaced.count(), 1);
        QVERIFY(scene.items().size() < layout.nodes.size() + layout.edges.size());
        QCOMPARE(scene.displayedNode(19999), 19999);
        QCOMPARE(scene.categories().size(), 2);
        QVERIFY(scene.isBuilding());
        QVERIFY(built.wait(10000));
        QVERIFY(!scene.isBuilding());
        QCOMPARE(scene.items().size(), layout.nodes.size() + layout.edges.size());
        QCOMPARE(scene.nodeCount(), layout.nodes.size());
        QVERIFY(scene.contentsRect().contains(layout.bounds));

        // Asked for an item mid-build, the scene makes the rest first.
        scene.setGraph(g, layout, GraphScene::Build::InSlices);
        QVERIFY(scene.isBuilding());
        QSignalSpy selected(&scene, &GraphScene::nodeSelected);
        scene.selectNode(19999);
        QVERIFY(!scene.isBuilding());
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.first().first().toInt(), 19999);
        QCOMPARE(scene.selectedNodeId(), 19999);
        const auto edges = scene.edgeItems();
        QVERIFY(std::any_of(edges.begin(), edges.end(), [](EdgeItem* e) { return e->isHighlighted(); }));

        // Replaced mid-build: nothing of the old build is left or comes later.
        const int builds = built.count();
        scene.setGraph(g, layout, GraphScene::Build::InSlices);
        scene.showMessage(QStringLiteral("Loading"), QString());
        QVERIFY(!scene.isBuilding());
        for (int i = 0; i < 5; ++i)
            QCoreApplication::processEvents();
        QCOMPARE(built.count(), builds);
        QCOMPARE(scene.items().size(), 1);
    }

    void overviewOfABigGraph()
    {
        // A small graph paints fast enough as items: no overview.
        GraphScene small;
        small.setGraph(m_graph, m_layout);
        QVERIFY(small.overview() == nullptr);

        IrGraph g;
        GraphLayout layout;
        chainGraph(20000, g, layout);
        GraphScene scene;
        scene.setGraph(g, layout, GraphScene::Build::InSlices);
        // Drawn after the build, and shown as it is drawn: blank until then.
        const GraphOverview* overview = scene.overview();
        QVERIFY(overview);
        QVERIFY(!overview->isComplete());
        QVERIFY(overview->image().isNull());
        QSignalSpy completed(overview, &GraphOverview::completed);
        QVERIFY(completed.wait(20000));
        QVERIFY(!scene.isBuilding());
        QVERIFY(overview->isComplete());
        QVERIFY(overview->source().contains(layout.bounds)); // every box and edge
        QVERIFY(overview->scale() > 0 && overview->scale() < 0.2); // below the plain level of detail
        QCOMPARE(overview->image().width(), qCeil(overview->source().width() * overview->scale()));
        QVERIFY(qint64(overview->image().width()) * overview->image().height() <= GraphOverview::MaxPixels);

        // What the items paint at that scale, pixel for pixel.
        QImage items(overview->image().size(), QImage::Format_ARGB32_Premultiplied);
        items.fill(graphBackgroundColor());
        QPainter painter(&items);
        scene.render(&painter, QRectF(QPointF(0, 0), QSizeF(overview->source().size() * overview->scale())),
            overview->source(), Qt::IgnoreAspectRatio);
        painter.end();
        const QImage drawn = overview->image().convertToFormat(QImage::Format_ARGB32_Premultiplied);
        qint64 same = 0, inked = 0;
        for (int y = 0; y < items.height(); ++y) {
            for (int x = 0; x < items.width(); ++x) {
                same += drawn.pixel(x, y) == items.pixel(x, y);
                inked += items.pixel(x, y) != graphBackgroundColor().rgb();
            }
        }
        const qint64 all = qint64(items.width()) * items.height();
        QVERIFY2(inked > all / 20, qPrintable(QString::number(inked))); // boxes and edges, not a blank image
        QVERIFY2(same > all * 99 / 100, qPrintable(QStringLiteral("%1 of %2").arg(same).arg(all)));

        // Then halved copies for views and maps smaller still: the smallest that is fine enough, its pixels the
        // mean of the image's (the same overall colour, not a sample of it).
        const qreal quarter = overview->scale() / 4;
        QTRY_VERIFY(overview->imageFor(quarter).width() < overview->image().width());
        const QImage& halved = overview->imageFor(quarter);
        QVERIFY(halved.width() >= overview->source().width() * quarter);
        QVERIFY(halved.width() < overview->source().width() * quarter * 2 + 2);
        QCOMPARE(&overview->imageFor(overview->scale()), &overview->image());
        auto mean = [](const QImage& image) {
            double sum = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    sum += qGray(image.pixel(x, y));
            return sum / (double(image.width()) * image.height());
        };
        QVERIFY2(qAbs(mean(halved) - mean(overview->image())) < 2.0,
            qPrintable(QStringLiteral("%1 vs %2").arg(mean(halved)).arg(mean(overview->image()))));
    }

    void viewPaintsTheOverviewZoomedOut()
    {
        IrGraph g;
        GraphLayout layout;
        chainGraph(20000, g, layout);
        GraphScene scene;
        scene.setGraph(g, layout);
        QSignalSpy completed(scene.overview(), &GraphOverview::completed);
        QVERIFY(completed.wait(20000));
        GraphView view;
        view.resize(900, 600);
        view.setScene(&scene);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setZoom(1.0);
        QVERIFY(!view.paintsOverview()); // readable: the items themselves
        view.setZoom(scene.overview()->scale());
        QVERIFY(view.paintsOverview());

        // The selection stands out over the image: its box drawn at full detail, its edges highlighted.
        scene.selectNode(10005);
        const QList<QGraphicsItem*> standOut = scene.standOutItems();
        QVERIFY(standOut.contains(scene.nodeItem(10005)));
        QCOMPARE(std::count_if(standOut.begin(), standOut.end(),
                     [](QGraphicsItem* item) { return item->type() == EdgeItem::Type; }),
            2);
        view.centerOn(scene.nodeItem(10005));
        QImage shot(view.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
        view.viewport()->render(&shot);
        const QRect box = view.mapFromScene(scene.nodeItem(10005)->sceneBoundingRect())
                              .boundingRect()
                              .adjusted(-4, -4, 4, 4)
                              .intersected(shot.rect());
        auto selectionColoured = [&] { // pixels of the selection's blue around the box
            int n = 0;
            for (int y = box.top(); y <= box.bottom(); ++y)
                for (int x = box.left(); x <= box.right(); ++x) {
                    const QColor c = shot.pixelColor(x, y);
                    n += c.blue() > 150 && c.red() < 120;
                }
            return n;
        };
        QVERIFY2(selectionColoured() > 0,
            qPrintable(QStringLiteral("box %1,%2 %3x%4").arg(box.x()).arg(box.y()).arg(box.width()).arg(box.height())));
        // Without the selection the same place is the plain box of the image.
        scene.selectNode(-1);
        QVERIFY(scene.standOutItems().isEmpty());
        view.viewport()->render(&shot);
        QCOMPARE(selectionColoured(), 0);
    }

    void overviewRedrawnWhenLooksChange()
    {
        IrGraph g;
        GraphLayout layout;
        chainGraph(20000, g, layout);
        GraphScene scene;
        scene.setGraph(g, layout);
        const GraphOverview* overview = scene.overview();
        QSignalSpy completed(overview, &GraphOverview::completed);
        QVERIFY(completed.wait(20000));
        const QRectF box = scene.nodeItem(7)->sceneBoundingRect();
        const QPoint at(((box.center() - overview->source().topLeft()) * overview->scale()).toPoint());
        const QRgb before = overview->image().pixel(at);
        QCOMPARE(QColor(before), scene.nodeItem(7)->fillColor().toRgb());

        // A comparison colours the box: the old image is shown, whole, until the new one is.
        scene.setNodeStatuses({ { 7, DiffStatus::Inserted } });
        QVERIFY(overview->isComplete());
        QCOMPARE(overview->image().pixel(at), before);
        QVERIFY(completed.wait(20000));
        QCOMPARE(QColor(overview->image().pixel(at)), diffStatusFill(DiffStatus::Inserted).toRgb());

        // Replaced by a message: no overview.
        scene.showMessage(QStringLiteral("Loading"), QString());
        QVERIFY(scene.overview() == nullptr);
    }

    /// A graph too big to read whole opens at a readable zoom on its input and first ops, wherever they are: the
    /// scripted LR-ASPP, 11,600 pt wide, opened on the middle of its width, an empty stretch of a cluster.
    void firstViewShowsTheInputs_data()
    {
        QTest::addColumn<double>("inputX"); ///< where the input and the ops under it are, across a graph 12,000 wide
        QTest::addColumn<double>("otherInputX"); ///< a second input far from the first (a detection model's targets)
        QTest::addRow("right") << 10400.0 << -1.0;
        QTest::addRow("left") << 200.0 << -1.0;
        QTest::addRow("middle") << 5900.0 << -1.0;
        QTest::addRow("right edge") << 11850.0 << -1.0;
        QTest::addRow("two inputs far apart") << 10400.0 << 300.0;
    }

    void firstViewShowsTheInputs()
    {
        QFETCH(double, inputX);
        QFETCH(double, otherInputX);
        IrGraph g;
        GraphLayout layout;
        int v = addValue(g, QStringLiteral("x"), QStringLiteral("Tensor"), -1);
        g.top.inputs = { v };
        LayoutNode input;
        input.role = LayoutNode::Role::GraphInputs;
        input.title = QStringLiteral("x");
        input.box = QRectF(inputX - 30, 20, 60, 30);
        layout.nodes << input;
        // Four ops under the input, then a long way down the rest; a wide empty cluster across the middle.
        for (int i = 0; i < 8; ++i) {
            const int id = addNode(g, QStringLiteral("aten::relu"), { v }, i + 1);
            v = addValue(g, QString::number(i), QStringLiteral("Tensor"), id);
            g.nodes[id].outputs = { v };
            g.top.nodes << id;
            LayoutNode box;
            box.nodeId = id;
            box.title = g.nodes[id].kind;
            box.box = i < 4 ? QRectF(inputX - 65, 100 + i * 80, 130, 44) : QRectF(6000, 5000 + i * 3000, 130, 44);
            layout.boxOfNode.insert(id, layout.nodes.size());
            layout.nodes << box;
        }
        LayoutCluster wide;
        wide.module = QStringLiteral("backbone");
        wide.title = QStringLiteral("backbone \u00b7 IntermediateLayerGetter");
        wide.box = QRectF(3000, 400, 6000, 29000);
        layout.clusters << wide;
        layout.bounds = QRectF(0, 0, 12000, 30000);
        g.top.outputs = { v };
        if (otherInputX >= 0) {
            const int other = addValue(g, QStringLiteral("targets"), QStringLiteral("Tensor"), -1);
            g.top.inputs << other;
            LayoutNode second;
            second.role = LayoutNode::Role::GraphInputs;
            second.title = QStringLiteral("targets");
            second.box = QRectF(otherInputX - 30, 20, 60, 30);
            layout.nodes << second;
        }

        GraphScene scene;
        scene.setGraph(g, layout);
        GraphView view;
        view.setScene(&scene);
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.showGraph();
        QVERIFY2(view.zoom() >= 0.6 - 1e-9, qPrintable(QString::number(view.zoom())));
        const QRectF visible = view.mapToScene(view.viewport()->rect()).boundingRect();
        for (int i = 0; i < 5; ++i)
            QVERIFY2(visible.contains(layout.nodes[i].box),
                qPrintable(QStringLiteral("box %1 at %2,%3 outside the view %4,%5 %6x%7")
                               .arg(i)
                               .arg(layout.nodes[i].box.left())
                               .arg(layout.nodes[i].box.top())
                               .arg(visible.left())
                               .arg(visible.top())
                               .arg(visible.width())
                               .arg(visible.height())));
        // Inside the graph: no margin beyond its bounds shown for the sake of centring.
        QVERIFY(visible.left() >= scene.sceneRect().left() - 1 && visible.right() <= scene.sceneRect().right() + 1);
    }

    void emptyLayout()
    {
        GraphScene scene;
        scene.setGraph(IrGraph(), GraphLayout());
        QCOMPARE(scene.nodeCount(), 0);
        scene.selectNode(3);
        QCOMPARE(scene.selectedNodeId(), -1);
    }

private:
    IrGraph m_graph;
    GraphLayout m_layout;
};

QTEST_MAIN(TestGraphScene)
#include "tst_graphscene.moc"
