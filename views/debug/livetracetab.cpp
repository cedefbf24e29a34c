#include "livetracetab.h"

#include "debugicons.h"
#include "graphitems.h"
#include "graphpage.h"
#include "graphscene.h"
#include "graphview.h"

#include <QLabel>
#include <QTabWidget>

namespace jitscope {

/// What a live trace layout job hands back to the GUI thread.
struct LiveTraceJob
{
    bool final = false;
    IrGraph graph;
    GraphLayout layout;
};

namespace {

/// Keys that survive between snapshots of a growing trace: what recorded the node, in which iteration, and how
/// many such nodes came before it.
QStringList liveNodeKeys(const IrGraph& graph)
{
    QHash<QString, int> seen;
    QStringList keys;
    for (const IrNode& node : graph.nodes) {
        QString key = node.kind + QLatin1Char('@') + QString::number(node.originNode);
        for (const LoopFrame& f : node.loopPath)
            key += QStringLiteral("/%1:%2").arg(f.loopNode).arg(f.iteration);
        keys << key + QLatin1Char('#') + QString::number(seen[key]++);
    }
    return keys;
}

} // namespace

LiveTraceTab::LiveTraceTab(QTabWidget* tabs, QObject* parent)
    : QObject(parent)
    , m_tabs(tabs)
    , m_jobs(new JobTracker<LiveTraceJob>(this))
{ }

void LiveTraceTab::begin()
{
    m_replay = false;
    m_execution = -1;
    m_header.clear();
    if (!m_page) {
        m_page = new GraphPage;
        m_label = new QLabel;
        m_label->setContentsMargins(8, 3, 8, 3);
        m_label->setTextFormat(Qt::RichText);
        m_page->setHeader(m_label);
        connect(m_page->scene(), &GraphScene::nodeSelected, this, &LiveTraceTab::nodeSelected);
        Q_EMIT pageAdded(m_page);
        const int index = m_tabs->insertTab(1, m_page, debugIcon(DebugAction::TraceWhileDebugging), tr("Live trace"));
        m_tabs->setTabToolTip(index, tr("The trace recorded so far by the debug session"));
    }
    const int index = m_tabs->indexOf(m_page);
    m_tabs->setTabText(index, tr("Live trace"));
    m_tabs->setTabToolTip(index, tr("The trace recorded so far by the debug session"));
    m_shown = IrGraph();
    m_keys.clear();
    m_framed = false;
    m_jobs->invalidate();
    m_label->setText(tr("Starting\u2026"));
    m_page->showMessage(tr("Nothing recorded yet"), tr("The trace grows here as the function runs."));
}

void LiveTraceTab::beginReplay(const QString& title, const QString& toolTip)
{
    begin();
    m_replay = true;
    const int index = m_tabs->indexOf(m_page);
    m_tabs->setTabText(index, title);
    m_tabs->setTabToolTip(index, toolTip);
    m_header = tr("<b>%1</b> \u00b7 recording trace 1 and running it\u2026").arg(title.toHtmlEscaped());
    m_label->setText(m_header);
    m_page->showMessage(tr("Recording trace 1\u2026"), toolTip);
}

void LiveTraceTab::setExecution(int node, const QString& header)
{
    m_execution = node;
    m_header = header;
    if (!m_page)
        return;
    m_label->setText(header);
    if (m_shown.nodes.isEmpty())
        return; // marked once laid out
    GraphScene* scene = m_page->scene();
    const int shown = node >= 0 ? scene->displayedNode(node) : -1;
    scene->setExecutionNode(shown);
    if (shown >= 0)
        m_page->view()->centerOnNode(shown);
}

QString LiveTraceTab::headerText() const
{
    return m_label ? m_label->text() : QString();
}

void LiveTraceTab::remove()
{
    m_replay = false;
    m_execution = -1;
    if (!m_page)
        return;
    m_jobs->invalidate();
    m_page->scene()->disconnect(this);
    m_page->view()->disconnect();
    m_tabs->removeTab(m_tabs->indexOf(m_page));
    m_page->deleteLater();
    m_page = nullptr;
    m_label = nullptr;
    m_shown = IrGraph();
    m_keys.clear();
}

void LiveTraceTab::update(
    const IrGraph& snapshot, const LayoutOptions& options, bool final, const ModelEngineRef& engine)
{
    if (!m_page)
        return;
    m_jobs->start(
        // Pause::traceSoFar carries each node's script node and loop iterations, as a finished trace does.
        [snapshot, options, final, engine](JobControl&) {
            LiveTraceJob job;
            job.final = final;
            job.graph = snapshot;
            job.layout = engine->layout(job.graph, options, QStringLiteral("the live trace"));
            return job;
        },
        [this](LiveTraceJob& job) {
            if (m_page)
                onLaidOut(job);
        });
}

void LiveTraceTab::showFailed(const QString& error)
{
    if (!m_page)
        return;
    m_jobs->invalidate();
    m_page->showMessage(tr("Tracing failed"), error, true);
    m_label->setText(tr("Tracing failed"));
}

void LiveTraceTab::showStopped()
{
    if (m_label)
        m_label->setText(tr("Stopped: the trace stays as it was at the last pause"));
}

void LiveTraceTab::onLaidOut(const LiveTraceJob& job)
{
    const GraphLayout& layout = job.layout;
    const IrGraph& graph = job.graph;
    const bool final = job.final;

    const QStringList keys = liveNodeKeys(graph);
    QHash<int, DiffStatus> fresh;
    int newest = -1;
    int recorded = 0;
    QHash<QString, int> previous = m_keys;
    for (int i = 0; i < graph.nodes.size(); ++i) {
        const IrNode& node = graph.nodes.at(i);
        if (node.kind == QLatin1String("prim::Constant"))
            continue;
        ++recorded;
        if (!previous.contains(keys.at(i)) && !final) {
            const int shown = layout.indexOfNode(node.id) >= 0 ? node.id : -1;
            if (shown >= 0) {
                fresh.insert(shown, DiffStatus::Inserted);
                newest = qMax(newest, shown);
            }
        }
    }
    m_keys.clear();
    for (const QString& key : keys)
        m_keys.insert(key, 1);
    m_shown = graph;

    if (!layout.error.isEmpty()) {
        m_page->showMessage(tr("Graphviz could not lay out the trace"), layout.error, true);
    } else if (layout.nodes.isEmpty() || (graph.nodes.isEmpty() && graph.top.inputs.isEmpty())) {
        m_page->showMessage(tr("Nothing recorded yet"), tr("The trace grows here as the function runs."));
    } else {
        m_page->scene()->setGraph(graph, layout);
        if (m_replay) {
            // One trace, laid out once: the paused node marked, the header saying where and why.
            m_framed = true;
            setExecution(m_execution, m_header);
            Q_EMIT graphReplaced();
            Q_EMIT shown();
            return;
        }
        m_page->scene()->setNodeStatuses(fresh);
        if (!m_framed || final) {
            m_page->view()->showGraph();
            m_framed = true;
        } else if (newest >= 0) {
            m_page->view()->centerOnNode(newest);
        }
        Q_EMIT graphReplaced();
    }
    if (final)
        m_label->setText(
            tr("<b>Trace complete</b> \u00b7 %1 nodes, after torch.jit.trace's cleanup passes").arg(recorded));
    else
        m_label->setText(
            tr("<b>Live trace</b> \u00b7 %1 nodes recorded \u00b7 <span style='color:%3'>%2 new since the last "
               "pause</span>")
                .arg(recorded)
                .arg(fresh.size())
                .arg(diffStatusColor(DiffStatus::Inserted).name()));
    Q_EMIT shown();
}

} // namespace jitscope
