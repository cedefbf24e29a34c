// The GUI thread's share of showing a big graph: GraphScene::setGraph() on a laid-out graph of N boxes and the first
// paint of its view, zoomed to fit (the whole graph small) and at 100 %, against the 50 ms a frame may take; built at
// once (the baseline) and in slices (GraphScene::Build::InSlices, as GraphPage builds a big graph).
// The layout is made up (a grid of boxes with straight edges between neighbours): Graphviz runs off the GUI thread
// and is measured by bench_paint.
//
//   bench_scene [N ...]      box counts (default 1000 3000 12000)
//
// Prints one line per figure: "<what>  <ms> ms  (target <= 50 ms)  ok|OVER". Exits 0 either way.
#include "graphscene.h"
#include "graphview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QTest>

#include <algorithm>
#include <cstdio>

using namespace jitscope;

namespace {

void report(const QString& what, qint64 ms, qint64 target)
{
    std::printf("%-64s %6lld ms  (target <= %lld ms)  %s\n", qPrintable(what), static_cast<long long>(ms),
        static_cast<long long>(target), ms <= target ? "ok" : "OVER");
    std::fflush(stdout);
}

/// A chain of @p n ops in rows of 40, each with a folded constant's detail line and a shape label on its edge.
void makeGraph(int n, IrGraph& g, GraphLayout& layout)
{
    const char* kinds[] = { "aten::conv2d", "aten::relu", "aten::add", "aten::layer_norm", "aten::linear" };
    g.values.resize(n + 1);
    for (int v = 0; v <= n; ++v) {
        g.values[v].id = v;
        g.values[v].name = QString::number(v);
        g.values[v].type = QStringLiteral("Float(1, 64, 56, 56)");
        g.values[v].producer = v - 1;
    }
    g.top.inputs = { 0 };
    g.nodes.resize(n);
    for (int i = 0; i < n; ++i) {
        IrNode& node = g.nodes[i];
        node.id = i;
        node.kind = QLatin1String(kinds[i % 5]);
        node.inputs = { i };
        node.outputs = { i + 1 };
        g.top.nodes << i;
        LayoutNode box;
        box.nodeId = i;
        box.title = node.kind;
        box.details = { QStringLiteral("alpha=1"), QStringLiteral("stride=[1, 1]") };
        box.category = opCategory(node.kind);
        const int col = i / 40, row = i % 40;
        box.box = QRectF(col * 200.0, row * 80.0, 130, 44);
        layout.nodes << box;
        layout.boxOfNode.insert(i, i);
        if (i > 0 && row > 0) {
            LayoutEdge e;
            e.fromNode = i - 1;
            e.toNode = i;
            e.valueId = i;
            e.label = QStringLiteral("[1,64,56,56]");
            const QPointF a = layout.nodes[i - 1].box.center() + QPointF(0, 22);
            const QPointF b = box.box.center() - QPointF(0, 22);
            e.points = { a, a + (b - a) / 3, a + 2 * (b - a) / 3, b };
            e.labelPos = (a + b) / 2 + QPointF(30, 0);
            layout.edges << e;
        }
    }
    g.top.outputs = { n };
    layout.bounds = QRectF(0, 0, (n / 40 + 1) * 200.0, 40 * 80.0);
}

qint64 paintMs(GraphView& view)
{
    QImage image(view.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
    QElapsedTimer t;
    t.start();
    view.viewport()->render(&image); // through GraphView::paintEvent(), as the window paints
    return t.elapsed();
}

} // namespace

int main(int argc, char** argv)
{
    qputenv(
        "QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    QList<int> counts;
    for (const QString& a : app.arguments().mid(1))
        counts << a.toInt();
    if (counts.isEmpty())
        counts = { 1000, 3000, 12000 };
    for (int n : counts) {
        IrGraph graph;
        GraphLayout layout;
        makeGraph(n, graph, layout);
        GraphScene sceneObject;
        GraphView view;
        view.setScene(&sceneObject);
        view.resize(1100, 800);
        view.show();
        QTest::qWaitForWindowExposed(&view);
        auto* scene = view.graphScene();
        QElapsedTimer t;
        t.start();
        scene->setGraph(graph, layout);
        report(QStringLiteral("setGraph at once, %1 boxes (the baseline)").arg(n), t.elapsed(), 50);
        scene->clearContents();
        // As the window shows a big graph: a first slice in setGraph(), the rest from the event loop, painting
        // in between; each event loop pass timed.
        QElapsedTimer all;
        all.start();
        t.restart();
        scene->setGraph(graph, layout, GraphScene::Build::InSlices);
        qint64 longest = t.elapsed();
        int slices = 1;
        while (scene->isBuilding()) {
            t.restart();
            QApplication::processEvents();
            longest = std::max(longest, t.elapsed());
            ++slices;
        }
        const qint64 whole = all.elapsed();
        report(QStringLiteral("setGraph in slices, %1 boxes: the longest slice (%2 passes, %3 ms in all)")
                   .arg(n)
                   .arg(slices)
                   .arg(whole),
            longest, 50);
        // A graph of over GraphOverview::MinItems items is also drawn once into an image, from the event loop.
        if (scene->overview()) {
            QElapsedTimer drawing;
            drawing.start();
            qint64 longestPass = 0;
            int passes = 0;
            while (!scene->overview()->isFinished()) {
                t.restart();
                QApplication::processEvents();
                longestPass = std::max(longestPass, t.elapsed());
                ++passes;
            }
            report(QStringLiteral("overview image, %1 boxes: the longest pass (%2 passes, %3 ms in all)")
                       .arg(n)
                       .arg(passes)
                       .arg(drawing.elapsed()),
                longestPass, 50);
        }
        QApplication::processEvents();
        view.fitGraph();
        report(QStringLiteral("first paint fitted to the view, %1 boxes%2")
                   .arg(n)
                   .arg(view.paintsOverview() ? QStringLiteral(" (the overview)") : QString()),
            paintMs(view), 50);
        view.resetZoom();
        report(QStringLiteral("first paint at 100%, %1 boxes").arg(n), paintMs(view), 50);
        t.restart();
        scene->clearContents();
        report(QStringLiteral("clearing %1 boxes").arg(n), t.elapsed(), 50);
    }
    return 0;
}
