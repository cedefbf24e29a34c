#include "selectionlinker.h"

#include "checkcontroller.h"
#include "checkview.h"
#include "comparewidget.h"
#include "comparison.h"
#include "debugcontroller.h"
#include "divergencemodel.h"
#include "documentcontroller.h"
#include "graphpage.h"
#include "graphscene.h"
#include "graphview.h"
#include "livetracetab.h"
#include "nodeinspector.h"
#include "report/reportqueries.h"
#include "sourceview.h"
#include "warningsmodel.h"

#include <QFileInfo>
#include <QTabWidget>

#include <algorithm>

namespace jitscope {

SelectionLinker::SelectionLinker(
    const Parts& parts, const DocumentController* document, const CheckController* check, QObject* parent)
    : QObject(parent)
    , m_parts(parts)
    , m_document(document)
    , m_check(check)
{
    connect(parts.script->scene(), &GraphScene::nodeSelected, this, &SelectionLinker::onScriptNodeSelected);
    connect(parts.traces, &CheckView::traceNodeSelected, this, &SelectionLinker::onTraceNodeSelected);
    connect(parts.traces, &CheckView::exportNodeSelected, this, &SelectionLinker::onExportNodeSelected);
    connect(parts.compare, &CompareWidget::nodeSelected, this, &SelectionLinker::onCompareNodeSelected);
    connect(parts.compare, &CompareWidget::changeSelected, this, &SelectionLinker::onChangeSelected);
    connect(parts.compare, &CompareWidget::divergenceSelected, this, &SelectionLinker::onDivergenceSelected);
    connect(parts.live, &LiveTraceTab::nodeSelected, this, &SelectionLinker::onLiveTraceNodeSelected);
    // A script node selected meanwhile: mark what it recorded in the new trace too.
    connect(parts.live, &LiveTraceTab::graphReplaced, this, &SelectionLinker::relink);
    connect(parts.inspector, &NodeInspector::scriptNodeClicked, this, &SelectionLinker::onInspectorScriptNode);
    connect(parts.inspector, &NodeInspector::traceNodeClicked, this, &SelectionLinker::onInspectorTraceNode);
}

void SelectionLinker::relink()
{
    if (m_parts.script->scene()->selectedNodeId() >= 0)
        linkScriptNode(m_parts.script->scene()->selectedNodeId());
}

void SelectionLinker::onLiveTraceNodeSelected(int nodeId)
{
    if (m_linking || nodeId < 0 || nodeId >= m_parts.live->graph().nodes.size())
        return;
    const FunctionInfo* fn = m_document->model().function(m_parts.debugger->function());
    const IrNode& node = m_parts.live->graph().node(nodeId);
    const bool guard = m_linking;
    m_linking = true;
    const int origin = m_parts.script->scene()->displayedNode(node.originNode);
    m_parts.script->scene()->selectNode(origin);
    if (origin >= 0)
        m_parts.script->view()->centerOnNode(origin);
    const SourceLocation location = fn && node.originNode >= 0 && node.originNode < fn->graph.nodes.size()
        ? fn->graph.node(node.originNode).location
        : node.location;
    const int line = m_document->sourceLineFor(location);
    m_parts.source->highlightLine(line);
    QString text = tr("Live trace \u00b7 %1").arg(node.kind);
    QStringList where;
    if (line > 0)
        where << tr("line %1").arg(line);
    if (const QString iteration = iterationLabel(node); !iteration.isEmpty())
        where << iteration;
    if (!where.isEmpty())
        text += QStringLiteral(" (%1)").arg(where.join(QStringLiteral(", ")));
    text += QStringLiteral(": ") + elidedText(m_parts.live->graph().nodeLine(nodeId, false), 160);
    Q_EMIT statusMessage(text);
    m_linking = guard;
}

QString SelectionLinker::linkScriptNode(int nodeId)
{
    QStringList parts;
    bool recorded = false;
    for (int k = 0; k < m_parts.traces->traceCount(); ++k) {
        GraphScene* scene = m_parts.traces->tracePage(k)->scene();
        QHash<int, QString> tags;
        if (nodeId >= 0 && m_check->hasReport() && k < m_check->report().traces.size()
            && m_check->report().traces.at(k).ok) {
            const IrGraph& trace = m_check->report().traces.at(k).graph;
            for (const LinkedNode& linked : traceNodesOf(trace, m_check->report().script, nodeId)) {
                const int shown = scene->displayedNode(linked.node);
                if (shown < 0 || tags.contains(shown))
                    continue;
                tags.insert(shown, linked.iteration);
                if (k == m_activeTrace) {
                    recorded = true;
                    const QString label = nodeLabel(trace, shown);
                    parts << (linked.iteration.isEmpty() ? label : linked.iteration + QStringLiteral(": ") + label);
                }
            }
        }
        scene->setLinkedNodes(tags);
    }
    if (m_parts.live->page()) {
        const FunctionInfo* fn = m_document->model().function(m_parts.debugger->function());
        QHash<int, QString> tags;
        if (nodeId >= 0 && fn && m_parts.live->graph().nodes.size() > 0) {
            for (const LinkedNode& linked : traceNodesOf(m_parts.live->graph(), fn->graph, nodeId)) {
                const int shown = m_parts.live->page()->scene()->displayedNode(linked.node);
                if (shown >= 0 && !tags.contains(shown))
                    tags.insert(shown, linked.iteration);
            }
        }
        m_parts.live->page()->scene()->setLinkedNodes(tags);
    }
    if (nodeId < 0 || !m_check->hasReport() || (m_parts.traces->traceCount() == 0))
        return {};
    if (!recorded)
        return tr("trace %1 recorded no node for it").arg(m_activeTrace + 1);
    return tr("trace %1: %2").arg(m_activeTrace + 1).arg(parts.join(QLatin1String(", ")));
}

QString SelectionLinker::describeTraceNode(int trace, int nodeId) const
{
    const IrGraph& graph = m_check->report().traces.at(trace).graph;
    const IrNode& node = graph.node(nodeId);
    QStringList where;
    const SourceLocation location = node.originNode >= 0 && node.originNode < m_check->report().script.nodes.size()
        ? m_check->report().script.node(node.originNode).location
        : node.location;
    const int line = m_document->sourceLineFor(location);
    if (line > 0)
        where << tr("line %1").arg(line);
    const QString iteration = iterationLabel(node);
    if (!iteration.isEmpty())
        where << iteration;
    QString text = tr("Trace %1 \u00b7 %2").arg(trace + 1).arg(node.kind);
    if (!where.isEmpty())
        text += QStringLiteral(" (%1)").arg(where.join(QLatin1String(", ")));
    text += QStringLiteral(": ") + elidedText(graph.nodeLine(nodeId, false), 160);
    if (node.originNode >= 0 && node.originNode < m_check->report().script.nodes.size())
        text += tr("  \u2190 script %1").arg(m_check->report().script.node(node.originNode).kind);
    return text;
}

void SelectionLinker::onTraceNodeSelected(int trace, int nodeId)
{
    if (m_linking || !m_check->hasReport() || trace >= m_check->report().traces.size())
        return;
    m_activeTrace = trace;
    const IrGraph& graph = m_check->report().traces.at(trace).graph;
    if (nodeId < 0 || nodeId >= graph.nodes.size())
        return;
    const bool guard = m_linking;
    m_linking = true;
    for (int k = 0; k < m_parts.traces->traceCount(); ++k)
        m_parts.traces->tracePage(k)->scene()->setLinkedNodes({});
    const IrNode& node = graph.node(nodeId);
    // The script node that recorded it, selected in the Script tab so that switching tabs shows it.
    const int origin = m_parts.script->scene()->displayedNode(node.originNode);
    m_parts.script->scene()->selectNode(origin);
    if (origin >= 0)
        m_parts.script->view()->centerOnNode(origin);
    const SourceLocation location = node.originNode >= 0 && node.originNode < m_check->report().script.nodes.size()
        ? m_check->report().script.node(node.originNode).location
        : node.location;
    m_parts.source->highlightLine(m_document->sourceLineFor(location));
    Q_EMIT statusMessage(describeTraceNode(trace, nodeId));
    m_parts.inspector->showTraceNode(trace, graph, nodeId, &m_check->report().script);
    m_linking = guard;
}

/// A node of the exported program: its source line (stack_trace's innermost frame) in the Source panel.
void SelectionLinker::onExportNodeSelected(int nodeId)
{
    if (m_linking || !m_check->hasReport())
        return;
    const IrGraph& graph = m_check->report().exported.graph;
    if (nodeId < 0 || nodeId >= graph.nodes.size())
        return;
    const IrNode& node = graph.node(nodeId);
    // The innermost frame in the open file: stack_trace's innermost may be a library's (torch.nn's forward).
    int line = m_document->sourceLineFor(node.location);
    for (int k = 0; line <= 0 && k < node.stack.size(); ++k)
        line = m_document->sourceLineFor(node.stack[k]);
    m_parts.source->highlightLine(line);
    QString text = tr("Export node %1").arg(node.kind);
    if (!node.modulePath.isEmpty())
        text += tr(" in %1").arg(node.modulePath);
    if (node.location.isValid())
        text += tr(" (line %1)").arg(node.location.line);
    Q_EMIT statusMessage(text + QStringLiteral(": ") + elidedText(graph.nodeLine(nodeId, false), 160));
}

void SelectionLinker::onCompareNodeSelected(int graph, int nodeId)
{
    if (m_linking || nodeId < 0)
        return;
    if (graph >= 0 && graph == m_parts.compare->exportGraph()) {
        onExportNodeSelected(nodeId);
        return;
    }
    if (graph == Comparison::Script) {
        // The full script selection: source line, status and the trace tabs' linked nodes.
        m_parts.script->scene()->selectNode(m_parts.script->scene()->displayedNode(nodeId));
        return;
    }
    onTraceNodeSelected(graph, nodeId);
}

void SelectionLinker::onChangeSelected(int changeIndex)
{
    DivergenceModel* model = m_parts.compare->divergenceModel();
    if (changeIndex < 0 || changeIndex >= model->changeCount())
        return;
    const NodeChange& change = model->change(changeIndex);
    m_parts.source->highlightLine(m_document->sourceLineFor(change.location));
    const bool guard = m_linking;
    m_linking = true;
    m_parts.script->scene()->selectNode(m_parts.script->scene()->displayedNode(change.scriptNode));
    m_linking = guard;
    const QModelIndex index = model->changeIndex(changeIndex, DivergenceModel::NodeColumn);
    QString text = tr("Divergence %1 of %2, node %3 of %4: %5 %6")
                       .arg(change.divergence + 1)
                       .arg(model->divergenceCount())
                       .arg(index.row() + 1)
                       .arg(model->rowCount(index.parent()))
                       .arg(model->changeIndex(changeIndex, DivergenceModel::OpColumn).data().toString(),
                           index.data().toString());
    if (!change.cause.isEmpty())
        text += QStringLiteral(" \u2014 ") + change.cause;
    Q_EMIT statusMessage(text);
}

void SelectionLinker::onDivergenceSelected(int d)
{
    DivergenceModel* model = m_parts.compare->divergenceModel();
    if (d < 0 || d >= model->divergenceCount())
        return;
    const Divergence& divergence = model->divergence(d);
    // Its line, or where its stack leaves the user's file (a torchvision line is reached from one of theirs).
    int line = m_document->sourceLineFor(divergence.location);
    for (int f = 0; line <= 0 && f < divergence.stack.size(); ++f)
        line = m_document->sourceLineFor(divergence.stack[f]);
    m_parts.source->highlightLine(line);
    QString text = tr("Divergence %1 of %2 [%3]: %4")
                       .arg(d + 1)
                       .arg(model->divergenceCount())
                       .arg(divergenceKindName(divergence.kind), divergence.message);
    if (!divergence.scope.isEmpty())
        text += tr(" \u2014 in %1").arg(divergence.scope);
    if (divergence.location.isValid() && m_document->sourceLineFor(divergence.location) <= 0)
        text += tr(" (%1:%2)").arg(QFileInfo(divergence.location.file).fileName()).arg(divergence.location.line);
    Q_EMIT statusMessage(text);
}

void SelectionLinker::activateWarning(int row)
{
    if (row < 0 || row >= m_parts.warnings->rowCount())
        return;
    const TraceWarning w = m_parts.warnings->warning(row);
    const int line = m_document->sourceLineFor(w.location);
    const bool traceUsable = m_check->hasReport() && w.traceIndex >= 0 && w.traceIndex < m_parts.traces->traceCount()
        && m_check->report().traces.at(w.traceIndex).ok;

    if (w.kind == WarningKind::OutputMismatch && w.traceIndex > 0 && m_parts.compare->hasReport()) {
        // Trace 1 computes something else on this set: the divergences between the two traces say why.
        m_parts.tabs->setCurrentWidget(m_parts.compare);
        m_parts.compare->setPair(0, w.traceIndex);
        if (m_parts.compare->divergenceModel()->divergenceCount() > 0)
            m_parts.compare->selectDivergence(0);
    } else if (traceUsable && w.traceNode >= 0) {
        GraphPage* page = m_parts.traces->tracePage(w.traceIndex);
        m_parts.tabs->setCurrentWidget(page);
        const int shown = page->scene()->displayedNode(w.traceNode);
        page->scene()->selectNode(shown);
        page->view()->centerOnNode(shown);
    } else if (w.scriptNode >= 0) {
        // No trace node of its own (a loop, a branch): the nodes its script node recorded in that trace.
        if (traceUsable) {
            m_activeTrace = w.traceIndex;
            m_parts.tabs->setCurrentWidget(m_parts.traces->tracePage(w.traceIndex));
        }
        m_parts.script->scene()->selectNode(m_parts.script->scene()->displayedNode(w.scriptNode));
        if (traceUsable) {
            const QList<int> linked = m_parts.traces->tracePage(w.traceIndex)->scene()->linkedNodes();
            if (!linked.isEmpty())
                m_parts.traces->tracePage(w.traceIndex)
                    ->view()
                    ->centerOnNode(*std::min_element(linked.begin(), linked.end()));
        }
    } else if (traceUsable) {
        m_parts.tabs->setCurrentWidget(m_parts.traces->tracePage(w.traceIndex));
    }
    if (line > 0)
        m_parts.source->highlightLine(line);
}

void SelectionLinker::onScriptNodeSelected(int nodeId)
{
    // A script node selected because a trace node was: that handler describes the selection.
    if (m_linking)
        return;
    const QString listing = linkScriptNode(nodeId);
    const FunctionInfo* fn = m_document->model().function(m_document->currentFunction());
    if (!fn || nodeId < 0 || nodeId >= fn->graph.nodes.size()) {
        m_parts.source->highlightLine(0);
        m_parts.inspector->clearNode();
        return;
    }
    QVector<const IrGraph*> traces;
    if (m_check->hasReport()) {
        for (const auto& t : m_check->report().traces)
            traces.append(t.ok ? &t.graph : nullptr);
    }
    m_parts.inspector->showScriptNode(fn->graph, nodeId, traces);
    const IrNode& node = fn->graph.node(nodeId);
    const int line = m_document->sourceLineFor(node.location);
    m_parts.source->highlightLine(line);
    QString where;
    if (node.location.isValid())
        where = line > 0
            ? tr("line %1").arg(line)
            : QStringLiteral("%1:%2").arg(QFileInfo(node.location.file).fileName()).arg(node.location.line);
    QString text = node.kind;
    if (!where.isEmpty())
        text += QStringLiteral(" (%1)").arg(where);
    text += QStringLiteral(": ") + elidedText(fn->graph.nodeLine(nodeId, false), listing.isEmpty() ? 220 : 120);
    if (!listing.isEmpty())
        text += QStringLiteral("  \u2014  ") + listing;
    Q_EMIT statusMessage(text);
}

void SelectionLinker::onInspectorScriptNode(int nodeId)
{
    const int shown = m_parts.script->scene()->displayedNode(nodeId);
    if (shown < 0)
        return;
    m_parts.tabs->setCurrentWidget(m_parts.script);
    // Selecting a trace node selects its script node quietly: describe it now, as a click would.
    const bool alreadySelected = m_parts.script->scene()->selectedNodeId() == shown;
    m_parts.script->scene()->selectNode(shown);
    if (alreadySelected)
        onScriptNodeSelected(shown);
    m_parts.script->view()->centerOnNode(shown);
}

void SelectionLinker::onInspectorTraceNode(int trace, int nodeId)
{
    if (trace < 0 || trace >= m_parts.traces->traceCount())
        return;
    GraphPage* page = m_parts.traces->tracePage(trace);
    const int shown = page->scene()->displayedNode(nodeId);
    if (shown < 0)
        return;
    m_parts.tabs->setCurrentWidget(page);
    const bool alreadySelected = page->scene()->selectedNodeId() == shown;
    page->scene()->selectNode(shown);
    if (alreadySelected)
        onTraceNodeSelected(trace, shown);
    page->view()->centerOnNode(shown);
}

} // namespace jitscope
