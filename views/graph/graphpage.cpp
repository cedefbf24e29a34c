#include "graphpage.h"

#include "graphscene.h"
#include "graphview.h"
#include "report/graphlayout.h"
#include "legendbar.h"

#include <QHBoxLayout>
#include <QPushButton>
#include <QVBoxLayout>

namespace jitscope {

namespace {

/// Above this many boxes the scene is built in slices (bench_scene: 3,000 boxes take about 17 ms at once).
constexpr int kSlicedAbove = 2000;

} // namespace

GraphPage::GraphPage(Legend legend, QWidget* parent)
    : QWidget(parent)
{
    m_scene = new GraphScene(this);
    m_view = new GraphView;
    m_view->setScene(m_scene);
    auto* box = new QVBoxLayout(this);
    box->setContentsMargins(0, 0, 0, 0);
    box->setSpacing(0);
    box->addWidget(m_view, 1);
    m_actionBar = new QWidget;
    auto* actionRow = new QHBoxLayout(m_actionBar);
    actionRow->setContentsMargins(6, 6, 6, 6);
    m_action = new QPushButton;
    actionRow->addStretch(1);
    actionRow->addWidget(m_action);
    actionRow->addStretch(1);
    m_actionBar->hide();
    connect(m_action, &QPushButton::clicked, this, &GraphPage::actionTriggered);
    box->addWidget(m_actionBar);
    if (legend == Legend::Shown) {
        m_legend = new LegendBar;
        m_legend->setScene(m_scene);
        box->addWidget(m_legend);
    }
}

void GraphPage::setHeader(QWidget* header)
{
    static_cast<QVBoxLayout*>(layout())->insertWidget(0, header);
}

void GraphPage::showMessage(const QString& title, const QString& text, bool isError, const QString& action)
{
    m_action->setText(action);
    m_actionBar->setVisible(!action.isEmpty());
    m_scene->showMessage(title, text, isError);
    if (m_frame)
        m_view->showMessage();
}

GraphPage::Shown GraphPage::showLayout(const IrGraph& graph, const GraphLayout& layout, const QString& what,
    const QString& emptyTitle, const QString& emptyText)
{
    if (!layout.error.isEmpty()) {
        showMessage(tr("Graphviz could not lay out %1").arg(what), layout.error, true);
        return Shown::LayoutError;
    }
    if (layout.nodes.isEmpty()) {
        showMessage(emptyTitle, emptyText);
        return Shown::Empty;
    }
    m_actionBar->hide();
    m_action->setText(QString());
    // A big graph's items are made in slices of a few ms: the window stays responsive while they are.
    m_scene->setGraph(
        graph, layout, layout.nodes.size() > kSlicedAbove ? GraphScene::Build::InSlices : GraphScene::Build::AtOnce);
    if (m_frame)
        m_view->showGraph();
    return Shown::Graph;
}

QString GraphPage::messageAction() const
{
    return m_action->text();
}

void GraphPage::triggerAction()
{
    if (!m_action->text().isEmpty())
        m_action->click();
}

} // namespace jitscope
