// renderGraph(): the CLI's graph --format svg|png|dot. SVG is graphSvg()'s picture of the layout, as the HTML report
// and the window's export draw it; PNG and DOT come from Graphviz's renderers.
// A graph laid out module by module is drawn where that layout put it: its DOT text with every node, cluster and
// edge positioned (pos, bb) goes through Graphviz's nop2 layout (neato -n2), which keeps them, instead of one dot
// run over the whole graph (vit_b_16 grouped by module: 23.6 s).

#include "layout/dotlayout_p.h"
#include "layout/layout.h"
#include "report/graphsvg.h"

#include <graphviz/gvc.h>

#include <cmath>
#include <functional>
#include <optional>

namespace jitscope {

namespace {

QByteArray number(double v)
{
    return QByteArray::number(v, 'f', 2);
}

void set(void* object, const char* name, const QByteArray& value)
{
    agsafeset(object, const_cast<char*>(name), const_cast<char*>(value.constData()), const_cast<char*>(""));
}

/// Graphviz's form of an edge's points: a B-spline (1 + 3n points) and the arrow's tip, "e,x,y" (the scene draws
/// a tip-less edge's arrow up to the box; Graphviz needs the tip: the spline's end gives way to it).
QVector<QPointF> splineOf(const LayoutEdge& edge, std::optional<QPointF>* tip)
{
    QVector<QPointF> points = edge.points;
    if (points.size() >= 5 && (points.size() - 2) % 3 == 0)
        *tip = points.takeLast();
    if (points.size() >= 2 && (points.size() - 1) % 3 != 0) {
        QVector<QPointF> curve { points.first() };
        for (int i = 1; i < points.size(); ++i) {
            const QPointF from = points[i - 1], to = points[i];
            curve << from + (to - from) / 3 << from + (to - from) * 2 / 3 << to;
        }
        points = curve;
    }
    if (!*tip && edge.hasArrow && points.size() >= 4) {
        const QPointF end = points.last();
        for (int i = points.size() - 2; i >= 0; --i) {
            const QPointF along = end - points[i];
            const double length = std::hypot(along.x(), along.y());
            if (length > 0.01) {
                *tip = end;
                points.last() = end - along / length * std::min(7.0, length / 2);
                break;
            }
        }
    }
    return points;
}

/// Puts @p g's nodes, clusters and edges where @p layout has them (Graphviz points, y up). What the layout did not
/// place (empty blocks' points, layout-only edges) goes.
void place(Agraph_t* g, const GraphLayout& layout)
{
    const double height = layout.bounds.bottom();
    auto point = [height](QPointF p) { return number(p.x()) + ',' + number(height - p.y()); };
    set(g, "bb", "0,0," + number(layout.bounds.right()) + ',' + number(height));
    QVector<Agnode_t*> unplaced;
    QVector<Agedge_t*> unrouted;
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
        const QString name = QString::fromUtf8(agnameof(n));
        bool ok = false;
        const int index = name.startsWith(QLatin1Char('n')) ? name.mid(1).toInt(&ok) : -1;
        if (!ok || index < 0 || index >= layout.nodes.size() || !layout.nodes[index].box.isValid()) {
            unplaced << n;
            continue;
        }
        const QRectF box = layout.nodes[index].box;
        set(n, "pos", point(box.center()));
        set(n, "width", number(box.width() / 72));
        set(n, "height", number(box.height() / 72));
        set(n, "fixedsize", "true");
        for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e)) {
            const char* id = agget(e, const_cast<char*>("id"));
            const int edgeIndex = id ? QString::fromUtf8(id).toInt(&ok) : -1;
            if (!id || !ok || edgeIndex < 0 || edgeIndex >= layout.edges.size()
                || layout.edges[edgeIndex].points.size() < 2) {
                unrouted << e;
                continue;
            }
            const LayoutEdge& edge = layout.edges[edgeIndex];
            std::optional<QPointF> tip;
            const QVector<QPointF> spline = splineOf(edge, &tip);
            QByteArray pos = tip ? "e," + point(*tip) : QByteArray();
            for (const QPointF& p : spline)
                pos += (pos.isEmpty() ? "" : " ") + point(p);
            set(e, "pos", pos);
            if (!edge.labelPos.isNull())
                set(e, "lp", point(edge.labelPos));
        }
    }
    for (Agedge_t* e : std::as_const(unrouted))
        agdeledge(g, e);
    for (Agnode_t* n : std::as_const(unplaced))
        agdelnode(g, n);
    std::function<void(Agraph_t*)> clusters = [&](Agraph_t* parent) {
        for (Agraph_t* sub = agfstsubg(parent); sub; sub = agnxtsubg(sub)) {
            const QString name = QString::fromUtf8(agnameof(sub));
            bool ok = false;
            const int index = name.startsWith(QLatin1String("cluster_")) ? name.mid(8).toInt(&ok) : -1;
            if (ok && index >= 0 && index < layout.clusters.size() && layout.clusters[index].box.isValid()) {
                const QRectF box = layout.clusters[index].box;
                set(sub, "bb", point(box.bottomLeft()) + ',' + point(box.topRight()));
            }
            clusters(sub);
        }
    };
    clusters(g);
}

} // namespace

QByteArray renderGraph(const IrGraph& graph, const LayoutOptions& options, const QString& format, QString* error,
    const GraphLayout* given, const QString& title)
{
    auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return QByteArray();
    };
    if (format == QLatin1String("svg")) {
        const GraphLayout layout = given ? *given : layoutGraph(graph, options);
        if (!layout.error.isEmpty())
            return fail(layout.error);
        GraphSvgOptions svg;
        svg.title = title;
        return graphSvg(layout, svg).toUtf8();
    }
    DotBuild build = dotBuild(graph, options, options.groupByModule);
    const bool hierarchical = build.marked && build.nodes.size() > options.hierarchicalAbove;
    GraphLayout layout;
    if (hierarchical) {
        layout = given ? *given : layoutHierarchically(build, options);
        if (!layout.error.isEmpty())
            return fail(layout.error);
    }
    build.dot.remove(QChar(1));
    build.dot.remove(QChar(2));
    if (!hierarchical && format == QLatin1String("dot"))
        return build.dot.toUtf8();

    std::lock_guard<std::mutex> lock(graphvizMutex());
    GVC_t* gvc = gvContext();
    const QByteArray text = build.dot.toUtf8();
    QByteArray out;
    QString problem;
    Agraph_t* g = nullptr;
    if (!hierarchical) {
        g = layOutDot(gvc, text, &problem);
    } else if (!(g = agmemread(text.constData()))) {
        problem = QStringLiteral("Graphviz could not parse the generated graph");
    } else {
        place(g, layout);
        // A failed run's graph is left as it is (see runGraphviz()).
        if (runGraphviz(gvc, g, "nop2", &problem) != 0)
            g = nullptr;
    }
    if (g) {
        char* data = nullptr;
        unsigned int length = 0;
        const QByteArray renderer = format.toUtf8();
        if (gvRenderData(gvc, g, renderer.constData(), &data, &length) == 0 && data)
            out = QByteArray(data, qsizetype(length));
        else
            problem = QStringLiteral("Graphviz could not render %1").arg(format.toUpper());
        if (data)
            gvFreeRenderData(data);
        gvFreeLayout(gvc, g);
        agclose(g);
    }
    gvFreeContext(gvc);
    return problem.isEmpty() ? out : fail(problem);
}

} // namespace jitscope
