// Graphviz's side of the layout: dot runs (one for a small graph, one per module cluster for a big one in
// hierarchicallayout.cpp) read back into a GraphLayout, the one mutex every Graphviz call goes through, and the
// operator name a crash line and the model worker's fault hook know a dot run by.

#include "layout/dotlayout_p.h"
#include "layout/layout.h"

#include "ir/activity.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <QRegularExpression>
#include <QStringList>

#include <cstring>
#include <mutex>

namespace jitscope {

std::mutex& graphvizMutex()
{
    static std::mutex m;
    return m;
}

namespace {

/// What Graphviz reported during the dot run in progress (under graphvizMutex()).
QByteArray g_graphvizMessages;

int collectMessage(char* message)
{
    if (g_graphvizMessages.size() < 4096)
        g_graphvizMessages += message;
    return 0;
}

/// Edge labels as xlabels: placed after ranking instead of ranked as nodes of their own.
QByteArray withExternalEdgeLabels(const QByteArray& dot)
{
    static const QRegularExpression edgeLabel(QStringLiteral("(\\[id=\"[0-9]+\"), label=\""));
    QString text = QString::fromUtf8(dot);
    text.replace(edgeLabel, QStringLiteral("\\1, xlabel=\""));
    const qsizetype end = text.lastIndexOf(QLatin1Char('}'));
    if (end >= 0)
        text.insert(end, QStringLiteral("  graph [forcelabels=true];\n"));
    return text.toUtf8();
}

} // namespace

int runGraphviz(GVC_t* gvc, Agraph_t* g, const char* engine, QString* error)
{
    g_graphvizMessages.clear();
    agreseterrors();
    const agusererrf previous = agseterrf(collectMessage);
    activity::setOperator(std::strcmp(engine, "dot") == 0 ? "graphviz::dot" : "graphviz::layout", nullptr, 0);
    int status = gvLayout(gvc, g, engine);
    activity::clearOperator();
    agseterrf(previous);
    // Graphviz 2.42 goes on after "trouble in init_rank" and returns 0 with a layout that gvFreeLayout() frees twice.
    if (status == 0 && agerrors() >= AGERR)
        status = -1;
    if (status != 0 && error) {
        QStringList errors;
        for (const QByteArray& line : g_graphvizMessages.split('\n'))
            if (line.startsWith("Error: "))
                errors << QString::fromUtf8(line.mid(7)).trimmed();
        *error = QStringLiteral("Graphviz layout failed")
            + (errors.isEmpty() ? QString() : QStringLiteral(": ") + errors.join(QStringLiteral("; ")));
    }
    return status;
}

Agraph_t* layOutDot(GVC_t* gvc, const QByteArray& dot, QString* error)
{
    // With clusters, labelled edges go as xlabels from the start: a run that fails to rank them leaves the heap
    // corrupt now and then even when its graph is never freed, so it must not happen in the first place.
    const bool clusters = dot.contains("subgraph cluster_") || dot.contains("subgraph \x01cluster_");
    const QVector<bool> attempts = clusters ? QVector<bool> { true } : QVector<bool> { false, true };
    for (const bool external : attempts) {
        const QByteArray text = external ? withExternalEdgeLabels(dot) : dot;
        Agraph_t* g = agmemread(text.constData());
        if (!g) {
            *error = QStringLiteral("Graphviz could not parse the generated graph");
            return nullptr;
        }
        if (runGraphviz(gvc, g, "dot", error) == 0)
            return g;
        // Left as it is: freeing what a failed run left behind frees memory twice (2.42); a leak does not hurt.
    }
    return nullptr;
}

const textlabel_t* edgeLabel(Agedge_t* e)
{
    if (ED_label(e))
        return ED_label(e);
    return ED_xlabel(e) && ED_xlabel(e)->set ? ED_xlabel(e) : nullptr;
}

void readClusters(Agraph_t* g, double height, QVector<LayoutCluster>& clusters)
{
    for (Agraph_t* sub = agfstsubg(g); sub; sub = agnxtsubg(sub)) {
        const QString name = QString::fromUtf8(agnameof(sub));
        if (name.startsWith(QLatin1String("cluster_"))) {
            bool ok = false;
            const int index = name.mid(8).toInt(&ok);
            if (ok && index >= 0 && index < clusters.size()) {
                const boxf bb = GD_bb(sub);
                clusters[index].box = QRectF(bb.LL.x, height - bb.UR.y, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
            }
        }
        readClusters(sub, height, clusters);
    }
}

GraphLayout layoutGraph(const IrGraph& graph, const LayoutOptions& options)
{
    DotBuild build = dotBuild(graph, options, options.groupByModule);
    if (build.marked) {
        if (build.nodes.size() > options.hierarchicalAbove)
            return layoutHierarchically(build, options);
        build.dot.remove(QChar(1));
        build.dot.remove(QChar(2));
    }
    GraphLayout layout;
    layout.nodes = build.nodes;
    layout.edges = build.edges;
    layout.clusters = build.clusters;
    layout.boxOfNode = build.boxOfNode;

    std::lock_guard<std::mutex> lock(graphvizMutex());
    GVC_t* gvc = gvContext();
    Agraph_t* g = layOutDot(gvc, build.dot.toUtf8(), &layout.error);
    if (!g) {
        gvFreeContext(gvc);
        return layout;
    }
    layout.stats.dotRuns = 1;
    const boxf bb = GD_bb(g);
    const double height = bb.UR.y;
    layout.bounds = QRectF(bb.LL.x, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
        const QString name = QString::fromUtf8(agnameof(n));
        if (!name.startsWith(QLatin1Char('n')))
            continue;
        bool ok = false;
        const int index = name.mid(1).toInt(&ok);
        if (!ok || index < 0 || index >= layout.nodes.size())
            continue;
        const pointf c = ND_coord(n);
        const double w = ND_width(n) * 72.0, h = ND_height(n) * 72.0;
        layout.nodes[index].box = QRectF(c.x - w / 2, height - c.y - h / 2, w, h);
        for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e)) {
            const int id = QString::fromUtf8(agget(e, const_cast<char*>("id"))).toInt(&ok);
            if (!ok || id < 0 || id >= layout.edges.size() || !ED_spl(e))
                continue;
            LayoutEdge& edge = layout.edges[id];
            const splines* spl = ED_spl(e);
            for (int bi = 0; bi < spl->size; ++bi) {
                const bezier& bz = spl->list[bi];
                for (size_t pi = 0; pi < bz.size; ++pi)
                    edge.points.push_back(QPointF(bz.list[pi].x, height - bz.list[pi].y));
                if (bz.eflag)
                    edge.points.push_back(QPointF(bz.ep.x, height - bz.ep.y));
            }
            if (const textlabel_t* label = edgeLabel(e))
                edge.labelPos = QPointF(label->pos.x, height - label->pos.y);
        }
    }
    readClusters(g, height, layout.clusters);
    gvFreeLayout(gvc, g);
    agclose(g);
    gvFreeContext(gvc);
    return layout;
}

QByteArray renderDotToSvg(const QString& dot, QString* error)
{
    std::lock_guard<std::mutex> lock(graphvizMutex());
    GVC_t* gvc = gvContext();
    QString problem;
    Agraph_t* g = layOutDot(gvc, dot.toUtf8(), &problem);
    QByteArray svg;
    if (!g) {
        if (error)
            *error = problem;
    } else {
        char* data = nullptr;
        unsigned int length = 0;
        if (gvRenderData(gvc, g, "svg", &data, &length) == 0 && data)
            svg = QByteArray(data, qsizetype(length));
        else if (error)
            *error = QStringLiteral("Graphviz could not render SVG");
        if (data)
            gvFreeRenderData(data);
        gvFreeLayout(gvc, g);
        agclose(g);
    }
    gvFreeContext(gvc);
    return svg;
}

QString graphvizVersion()
{
    std::lock_guard<std::mutex> lock(graphvizMutex());
    GVC_t* gvc = gvContext();
    const QString v = QString::fromUtf8(gvcVersion(gvc));
    gvFreeContext(gvc);
    return v;
}

} // namespace jitscope
