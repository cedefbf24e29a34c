// The minimap: shown while the graph does not fit its view, the part in view outlined, a click moving the view,
// View > Show Minimap hiding every one.

#include "graphitems.h"
#include "graphscene.h"
#include "graphview.h"
#include "minimap.h"

#include <QtTest>

using namespace jitscope;

namespace {

/// A grid of @p n boxes, 40 to a column, 200 x 80 apart.
void makeGraph(int n, IrGraph& g, GraphLayout& layout)
{
    g.values.resize(1);
    g.values[0].id = 0;
    g.top.inputs = { 0 };
    g.nodes.resize(n);
    for (int i = 0; i < n; ++i) {
        g.nodes[i].id = i;
        g.nodes[i].kind = QStringLiteral("aten::relu");
        g.top.nodes << i;
        LayoutNode box;
        box.nodeId = i;
        box.title = g.nodes[i].kind;
        box.category = OpCategory::Activation;
        box.box = QRectF((i / 40) * 200.0, (i % 40) * 80.0, 130, 44);
        layout.nodes << box;
        layout.boxOfNode.insert(i, i);
    }
    layout.bounds = QRectF(0, 0, (n / 40 + 1) * 200.0, 40 * 80.0);
}

/// A scene of makeGraph(@p n) in a shown 1000 x 700 view.
struct ShownGraph
{
    explicit ShownGraph(int n)
    {
        view.setScene(&scene);
        view.resize(1000, 700);
        view.show();
        exposed = QTest::qWaitForWindowExposed(&view);
        IrGraph graph;
        GraphLayout layout;
        makeGraph(n, graph, layout);
        scene.setGraph(graph, layout);
    }
    GraphScene scene;
    GraphView view;
    bool exposed = false;
};

} // namespace

class TestMiniMap : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void bigGraphDrawnFromTheOverview()
    {
        // 9000 boxes: the scene draws its overview once; the minimap scales that down rather than painting every
        // item again (what it did, at 3.5 us an item, on every change of the scene).
        ShownGraph shown(9000);
        QVERIFY(shown.exposed);
        GraphScene& scene = shown.scene;
        GraphView& view = shown.view;
        QVERIFY(scene.overview());
        view.resetZoom();
        MiniMap* map = view.miniMap();
        QTRY_VERIFY(map->isVisible());
        QTRY_VERIFY(scene.overview()->isComplete());
        // Drawn again once the overview is whole: the boxes' colour on the background, everywhere along the map.
        const QColor boxes = categoryColor(OpCategory::Activation);
        auto inked = [&](int column) {
            const QImage shot = map->grab().toImage();
            int n = 0;
            for (int y = 2; y < shot.height() - 2; ++y) {
                const QColor c = shot.pixelColor(column, y);
                n += qAbs(c.red() - boxes.red()) + qAbs(c.green() - boxes.green()) + qAbs(c.blue() - boxes.blue()) < 60;
            }
            return n;
        };
        QTRY_VERIFY(inked(map->width() / 4) > 0);
        QVERIFY(inked(map->width() * 3 / 4) > 0);
    }

    void followsTheViewAndMovesIt()
    {
        ShownGraph shown(2000);
        QVERIFY(shown.exposed);
        GraphScene& scene = shown.scene;
        GraphView& view = shown.view;
        MiniMap* map = view.miniMap();

        // The whole graph in view: no minimap.
        view.fitGraph();
        QVERIFY(!map->isVisible());

        // At 100 % the graph is far bigger than the view: the minimap shows, in the bottom-right corner, with the
        // part in view outlined where it is (the top-left, framed as the graph's start).
        view.resetZoom();
        view.centerOn(scene.contentsRect().topLeft());
        QTRY_VERIFY(map->isVisible());
        QVERIFY(view.viewport()->geometry().contains(map->geometry()));
        QVERIFY(map->geometry().right() > view.viewport()->width() / 2);
        QVERIFY(map->geometry().bottom() > view.viewport()->height() / 2);
        QVERIFY(map->width() <= 202 && map->height() <= 152);
        // It shows the graph: boxes drawn on the background, not an empty frame.
        const QImage shot = map->grab().toImage();
        QSet<QRgb> colours;
        for (int y = 2; y < shot.height() - 2; ++y)
            for (int x = 2; x < shot.width() - 2; ++x)
                colours.insert(shot.pixel(x, y));
        QVERIFY2(colours.size() >= 3, qPrintable(QString::number(colours.size())));
        const QRectF outlined = map->visibleRect();
        QVERIFY(outlined.isValid());
        QVERIFY(outlined.left() < map->width() * 0.1);
        QVERIFY(outlined.top() < map->height() * 0.1);
        QVERIFY(outlined.width() < map->width() / 2);

        // A click near the minimap's bottom-right corner brings that part of the graph into view.
        const QPoint target(map->width() - 6, map->height() - 6);
        const QPointF scenePoint = map->toScene(target);
        QTest::mouseClick(map, Qt::LeftButton, {}, target);
        const QPointF centre = view.mapToScene(view.viewport()->rect().center());
        QVERIFY(view.mapToScene(view.viewport()->rect()).boundingRect().contains(scenePoint));
        QVERIFY(centre.x() > scene.contentsRect().center().x());
        QVERIFY(centre.y() > scene.contentsRect().center().y());
        QVERIFY(map->visibleRect().right() > map->width() * 0.8);

        // View > Show Minimap off: hidden everywhere, and back on.
        MiniMap::setEnabledEverywhere(false);
        QVERIFY(!map->isVisible());
        MiniMap::setEnabledEverywhere(true);
        QVERIFY(map->isVisible());

        // A long thin chain is stretched across: still a map one can aim at.
        IrGraph chain;
        GraphLayout chainLayout;
        makeGraph(40, chain, chainLayout);
        for (int i = 0; i < chainLayout.nodes.size(); ++i)
            chainLayout.nodes[i].box = QRectF(0, i * 800.0, 130, 44);
        chainLayout.bounds = QRectF(0, 0, 130, 40 * 800.0);
        scene.setGraph(chain, chainLayout);
        view.resetZoom();
        QTRY_VERIFY(map->isVisible());
        QVERIFY2(map->width() >= 48, qPrintable(QString::number(map->width())));
        QVERIFY(map->height() <= 152);

        // A message instead of a graph: no minimap.
        scene.showMessage(QStringLiteral("Loading"), QString());
        view.showMessage();
        QVERIFY(!map->isVisible());
    }
};

QTEST_MAIN(TestMiniMap)
#include "tst_minimap.moc"
