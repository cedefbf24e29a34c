#include "nodeinspector.h"

#include <QFileInfo>

namespace jitscope {

namespace {

QString esc(const QString& text)
{
    return text.toHtmlEscaped();
}

QString valueText(const IrGraph& graph, int valueId)
{
    if (valueId < 0 || valueId >= graph.values.size())
        return QStringLiteral("?");
    const IrValue& v = graph.value(valueId);
    QString text = QStringLiteral("<code>%") + esc(v.name) + QStringLiteral("</code>");
    if (!v.type.isEmpty())
        text += QStringLiteral(" : ") + esc(v.type);
    // Trace types already spell out dtype and sizes.
    if (v.tensor && !v.type.contains(QLatin1Char('('))) {
        QStringList parts;
        if (!v.tensor->dtype.isEmpty())
            parts << esc(v.tensor->dtype);
        if (v.tensor->sizes)
            parts << shapeText(*v.tensor->sizes);
        if (!v.tensor->device.isEmpty())
            parts << esc(v.tensor->device);
        if (!parts.isEmpty())
            text += QStringLiteral(" <i>(") + parts.join(QLatin1Char(' ')) + QStringLiteral(")</i>");
    }
    // An exported program's placeholder: what the signature makes of it ("parameter block.lin.weight").
    if (!v.role.isEmpty())
        text += QStringLiteral(" \u2014 ") + esc(v.role)
            + (v.roleTarget.isEmpty() ? QString()
                                      : QStringLiteral(" <code>") + esc(v.roleTarget) + QStringLiteral("</code>"));
    return text;
}

QString iterationsText(const IrNode& node)
{
    QStringList parts;
    for (const LoopFrame& f : node.loopPath)
        parts << QStringLiteral("iteration %1").arg(f.iteration + 1);
    return parts.join(QLatin1String(" / "));
}

} // namespace

NodeInspector::NodeInspector(QWidget* parent)
    : QTextBrowser(parent)
{
    setOpenLinks(false);
    setOpenExternalLinks(false);
    connect(this, &QTextBrowser::anchorClicked, this, &NodeInspector::activateLink);
    clearNode();
}

void NodeInspector::clearNode()
{
    m_kind.clear();
    m_links.clear();
    setHtml(QStringLiteral("<p><i>%1</i></p>").arg(esc(tr("Select a node to inspect it."))));
}

QString NodeInspector::link(const QString& href, const QString& text)
{
    m_links.append(QUrl(href));
    return QStringLiteral("<a href=\"%1\">%2</a>").arg(href, text);
}

QString NodeInspector::nodeDetails(const IrGraph& graph, const IrNode& node) const
{
    QString html;
    if (!node.schema.isEmpty())
        html += QStringLiteral("<p><b>%1</b><br><code>%2</code></p>").arg(tr("Schema"), esc(node.schema));
    auto values = [&](const QString& title, const QVector<int>& ids) {
        if (ids.isEmpty())
            return;
        html += QStringLiteral("<p><b>%1</b></p><ol style=\"margin-top:0\">").arg(title);
        for (int id : ids)
            html += QStringLiteral("<li>") + valueText(graph, id) + QStringLiteral("</li>");
        html += QStringLiteral("</ol>");
    };
    values(tr("Inputs"), node.inputs);
    values(tr("Outputs"), node.outputs);
    if (!node.attributes.isEmpty()) {
        html += QStringLiteral("<p><b>%1</b></p><ul style=\"margin-top:0\">").arg(tr("Attributes"));
        for (const IrAttribute& a : node.attributes)
            html += QStringLiteral("<li><code>%1</code> = <code>%2</code></li>").arg(esc(a.name), esc(a.value));
        html += QStringLiteral("</ul>");
    }
    if (node.location.isValid())
        html += QStringLiteral("<p><b>%1</b> %2 line %3, column %4</p>")
                    .arg(tr("Source"), esc(QFileInfo(node.location.file).fileName()))
                    .arg(node.location.line)
                    .arg(node.location.column);
    html += QStringLiteral("<p><b>%1</b> %2</p>")
                .arg(tr("Module"),
                    node.modulePath.isEmpty() ? tr("<i>top module</i>")
                                              : QStringLiteral("<code>%1</code>").arg(esc(node.modulePath)));
    if (!node.scope.isEmpty())
        html += QStringLiteral("<p><b>%1</b> <code>%2</code></p>").arg(tr("Scope"), esc(node.scope));
    return html;
}

void NodeInspector::showScriptNode(const IrGraph& script, int nodeId, const QVector<const IrGraph*>& traces)
{
    if (nodeId < 0 || nodeId >= script.nodes.size()) {
        clearNode();
        return;
    }
    m_links.clear();
    const IrNode& node = script.node(nodeId);
    m_kind = node.kind;
    QString html = QStringLiteral("<h3>%1</h3><p><i>%2</i></p>").arg(esc(node.kind), tr("Script node %1").arg(nodeId));
    html += nodeDetails(script, node);
    QString recorded;
    for (int k = 0; k < traces.size(); ++k) {
        if (!traces.at(k))
            continue;
        QStringList items;
        for (const IrNode& t : traces.at(k)->nodes) {
            if (t.originNode != nodeId)
                continue;
            QString text = esc(t.kind);
            const QString iterations = iterationsText(t);
            if (!iterations.isEmpty())
                text += QStringLiteral(" (") + iterations + QLatin1Char(')');
            items << link(QStringLiteral("trace:%1:%2").arg(k).arg(t.id), text);
        }
        recorded += QStringLiteral("<li>%1: %2</li>")
                        .arg(tr("Trace %1").arg(k + 1),
                            items.isEmpty() ? tr("<i>nothing</i>") : items.join(QLatin1String(", ")));
    }
    if (!recorded.isEmpty())
        html += QStringLiteral("<p><b>%1</b></p><ul style=\"margin-top:0\">%2</ul>").arg(tr("Recorded"), recorded);
    setHtml(html);
}

void NodeInspector::showTraceNode(int trace, const IrGraph& graph, int nodeId, const IrGraph* script)
{
    if (nodeId < 0 || nodeId >= graph.nodes.size()) {
        clearNode();
        return;
    }
    m_links.clear();
    const IrNode& node = graph.node(nodeId);
    m_kind = node.kind;
    QString html = QStringLiteral("<h3>%1</h3><p><i>%2</i></p>")
                       .arg(esc(node.kind), tr("Trace %1, node %2").arg(trace + 1).arg(nodeId));
    if (script && node.originNode >= 0 && node.originNode < script->nodes.size()) {
        const IrNode& origin = script->node(node.originNode);
        QString text = esc(origin.kind);
        if (origin.location.isValid())
            text += tr(" (line %1)").arg(origin.location.line);
        html += QStringLiteral("<p><b>%1</b> %2")
                    .arg(tr("Script node"), link(QStringLiteral("script:%1").arg(node.originNode), text));
        const QString iterations = iterationsText(node);
        if (!iterations.isEmpty())
            html += QStringLiteral(", ") + iterations;
        html += QStringLiteral("</p>");
    }
    html += nodeDetails(graph, node);
    setHtml(html);
}

void NodeInspector::activateLink(const QUrl& link)
{
    const QStringList parts = link.toString().split(QLatin1Char(':'));
    if (parts.size() == 2 && parts.at(0) == QLatin1String("script"))
        Q_EMIT scriptNodeClicked(parts.at(1).toInt());
    else if (parts.size() == 3 && parts.at(0) == QLatin1String("trace"))
        Q_EMIT traceNodeClicked(parts.at(1).toInt(), parts.at(2).toInt());
}

} // namespace jitscope
