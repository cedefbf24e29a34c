#include "report/graphsvg.h"

#include <QRegularExpression>

namespace jitscope {

namespace {

QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

const char* const kStyle
    = R"(svg text { font: 10px Helvetica, Arial, sans-serif; text-anchor: middle; fill: #1f2328; } svg text.detail { fill: #4b5563; font-size: 9px; }
svg .edge { fill: none; stroke: #8c939d; stroke-width: 1; } svg .cluster rect { fill: none; stroke: #c7ccd1; stroke-dasharray: 4 3; }
svg .cluster text { text-anchor: start; fill: #6b7280; } svg .node rect { fill: #f3f4f6; stroke: #9aa1a9; }
svg .node.cat-input rect, svg .node.cat-output rect { fill: #e1e8f0; } svg .node.cat-convlinear rect { fill: #cde3fa; }
svg .node.cat-arithmetic rect { fill: #fce2cf; } svg .node.cat-shapeview rect { fill: #ece6da; }
svg .node.inserted rect { fill: {inserted.fill}; stroke: {inserted.color}; stroke-width: 2.5; }
svg .node.deleted rect { fill: {deleted.fill}; stroke: {deleted.color}; stroke-width: 2.5; }
svg .node.changed rect { fill: {changed.fill}; stroke: {changed.color}; stroke-width: 2.5; }
)";

} // namespace

QString graphSvgStyle()
{
    QString style = QString::fromUtf8(kStyle);
    for (DiffStatus status : { DiffStatus::Inserted, DiffStatus::Deleted, DiffStatus::Changed }) {
        const DiffMark& m = diffMark(status);
        style.replace(QStringLiteral("{%1.fill}").arg(QLatin1String(m.name)), rgbName(m.fill));
        style.replace(QStringLiteral("{%1.color}").arg(QLatin1String(m.name)), rgbName(m.color));
    }
    return style;
}

QString graphSvg(const GraphLayout& layout, const GraphSvgOptions& options)
{
    const QRectF b = layout.bounds.adjusted(-8, -8, 8, 8);
    const QString title = esc(options.title);
    QString s;
    if (options.standalone)
        s += QStringLiteral("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                            "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"%1\" "
                            "viewBox=\"%2 %3 %4 %5\" width=\"%4\" height=\"%5\">\n")
                 .arg(title)
                 .arg(b.x())
                 .arg(b.y())
                 .arg(b.width())
                 .arg(b.height());
    else
        s += QStringLiteral(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"%1\" viewBox=\"%2 %3 %4 %5\" "
            "width=\"%4\" style=\"max-width:100%%;height:auto\">\n")
                 .arg(title)
                 .arg(b.x())
                 .arg(b.y())
                 .arg(b.width())
                 .arg(b.height());
    s += QStringLiteral("<title>%1</title>\n").arg(title);
    if (options.standalone)
        s += QStringLiteral("<style>\n%1</style>\n").arg(graphSvgStyle());
    s += QStringLiteral("<defs><marker id=\"%1\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" "
                        "markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" "
                        "fill=\"#8c939d\"/></marker></defs>\n")
             .arg(options.arrowId);
    for (const LayoutCluster& c : layout.clusters)
        s += QStringLiteral("<g class=\"cluster\"><rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" rx=\"6\"/>"
                            "<text x=\"%5\" y=\"%6\">%7</text></g>\n")
                 .arg(c.box.x())
                 .arg(c.box.y())
                 .arg(c.box.width())
                 .arg(c.box.height())
                 .arg(c.box.x() + 6)
                 .arg(c.box.y() + 12)
                 .arg(esc(c.title));
    for (const LayoutEdge& e : layout.edges) {
        if (e.points.size() < 4)
            continue;
        QString d = QStringLiteral("M%1,%2").arg(e.points[0].x()).arg(e.points[0].y());
        for (int i = 1; i + 2 < e.points.size(); i += 3)
            d += QStringLiteral(" C%1,%2 %3,%4 %5,%6")
                     .arg(e.points[i].x())
                     .arg(e.points[i].y())
                     .arg(e.points[i + 1].x())
                     .arg(e.points[i + 1].y())
                     .arg(e.points[i + 2].x())
                     .arg(e.points[i + 2].y());
        s += QStringLiteral("<path class=\"edge\" d=\"%1\"%2/>\n")
                 .arg(d, e.hasArrow ? QStringLiteral(" marker-end=\"url(#%1)\"").arg(options.arrowId) : QString());
    }
    for (const LayoutNode& n : layout.nodes) {
        const DiffStatus m = options.marks.value(n.nodeId, DiffStatus::Unchanged);
        const QString mark
            = m == DiffStatus::Unchanged ? QString() : QLatin1Char(' ') + QString::fromLatin1(diffMark(m).name);
        const QString cls
            = QStringLiteral("node cat-%1%2")
                  .arg(opCategoryName(n.category).toLower().remove(QRegularExpression(QStringLiteral("[^a-z]"))), mark);
        s += QStringLiteral("<g class=\"%1\"><rect x=\"%2\" y=\"%3\" width=\"%4\" height=\"%5\" rx=\"5\"/>")
                 .arg(cls)
                 .arg(n.box.x())
                 .arg(n.box.y())
                 .arg(n.box.width())
                 .arg(n.box.height());
        double y = n.box.y() + 14;
        s += QStringLiteral("<text class=\"title\" x=\"%1\" y=\"%2\">%3</text>")
                 .arg(n.box.center().x())
                 .arg(y)
                 .arg(esc(n.title));
        for (const QString& detail : n.details) {
            y += 12;
            s += QStringLiteral("<text class=\"detail\" x=\"%1\" y=\"%2\">%3</text>")
                     .arg(n.box.center().x())
                     .arg(y)
                     .arg(esc(detail));
        }
        s += QStringLiteral("</g>\n");
    }
    s += QStringLiteral("</svg>\n");
    return s;
}

} // namespace jitscope
