#include "graphtabs.h"

#include "checkcontroller.h"
#include "checkview.h"
#include "comparewidget.h"
#include "divergencemodel.h"
#include "findbar.h"
#include "graphpage.h"
#include "graphscene.h"
#include "graphview.h"
#include "livetracetab.h"
#include "selectionlinker.h"

#include <QLabel>
#include <QTabBar>
#include <QTabWidget>

#include <utility>

namespace jitscope {

GraphTabs::GraphTabs(const Parts& parts, const CheckController* check, SelectionLinker* linker, QObject* parent)
    : QObject(parent)
    , m_parts(parts)
    , m_check(check)
    , m_linker(linker)
{
    connect(m_parts.tabs, &QTabWidget::currentChanged, this, [this](int index) {
        updateFindTarget();
        if (const int trace = m_parts.checkView->traceOfPage(m_parts.tabs->widget(index)); trace >= 0)
            m_linker->setActiveTrace(trace);
        if (GraphView* view = currentGraphView())
            m_parts.zoomLabel->setText(QStringLiteral("%1%").arg(qRound(view->zoom() * 100)));
    });
    connect(m_parts.tabs->tabBar(), &QTabBar::tabBarClicked, this, [this] { m_userChoseTab = true; });
    for (GraphView* view : { m_parts.script->view(), m_parts.compare->view(CompareWidget::Side::Left),
             m_parts.compare->view(CompareWidget::Side::Right) })
        followZoom(view);
    auto followPage = [this](GraphPage* page) { followZoom(page->view()); };
    connect(m_parts.checkView, &CheckView::pageAdded, this, followPage);
    connect(m_parts.liveTrace, &LiveTraceTab::pageAdded, this, followPage);
}

void GraphTabs::followZoom(GraphView* view)
{
    connect(view, &GraphView::zoomChanged, this, [this, view](double zoom) {
        if (currentGraphView() == view)
            m_parts.zoomLabel->setText(QStringLiteral("%1%").arg(qRound(zoom * 100)));
    });
}

GraphView* GraphTabs::currentGraphView() const
{
    QWidget* page = m_parts.tabs->currentWidget();
    if (page == m_parts.compare)
        return m_parts.compare->view(CompareWidget::Side::Right);
    if (auto* graphPage = qobject_cast<GraphPage*>(page))
        return graphPage->view();
    return m_parts.script->view();
}

GraphScene* GraphTabs::currentGraphScene() const
{
    GraphView* view = currentGraphView();
    return view ? view->graphScene() : m_parts.script->scene();
}

void GraphTabs::updateFindTarget()
{
    m_parts.findBar->setTarget(currentGraphScene(), currentGraphView());
}

void GraphTabs::showView(View view)
{
    GraphPage* live = m_parts.liveTrace->page();
    switch (view) {
    case View::Script:
        m_parts.tabs->setCurrentWidget(m_parts.script);
        break;
    case View::Trace:
        if (m_parts.checkView->traceCount() > 0)
            m_parts.tabs->setCurrentWidget(m_parts.checkView->tracePage(0));
        break;
    case View::Compare:
        m_parts.tabs->setCurrentWidget(m_parts.compare);
        break;
    case View::LiveTrace:
        if (live)
            m_parts.tabs->setCurrentWidget(live);
        break;
    case View::Export:
        if (m_parts.checkView->exportPage())
            m_parts.tabs->setCurrentWidget(m_parts.checkView->exportPage());
        break;
    case View::CompareExport:
        if (m_parts.compare->exportGraph() >= 0) {
            m_parts.tabs->setCurrentWidget(m_parts.compare);
            m_parts.compare->setPair(0, m_parts.compare->exportGraph());
        }
        break;
    }
}

GraphTabs::View GraphTabs::currentView() const
{
    QWidget* page = m_parts.tabs->currentWidget();
    if (page == m_parts.compare)
        return m_parts.compare->exportGraph() >= 0
                && m_parts.compare->comparison().right == m_parts.compare->exportGraph()
            ? View::CompareExport
            : View::Compare;
    if (page && page == m_parts.checkView->exportPage())
        return View::Export;
    if (GraphPage* live = m_parts.liveTrace->page(); live && page == live)
        return View::LiveTrace;
    return page == m_parts.script ? View::Script : View::Trace;
}

void GraphTabs::setStartView(View view)
{
    m_hasStartView = true;
    m_startView = view;
    m_startViewPending = true;
}

void GraphTabs::fileOpening(bool reloading)
{
    if (!reloading)
        m_restoreTabPending = false;
    m_userChoseTab = false;
    m_startViewPending = true;
}

void GraphTabs::rememberTab()
{
    m_restoreView = currentView();
    m_restoreTrace = m_linker->activeTrace();
    m_restoreTabPending = m_restoreView != View::Script;
}

void GraphTabs::functionShown(bool newFunction)
{
    // A new function starts on its script graph; a relayout of the same one keeps the tab the user is on.
    if (newFunction && !m_userChoseTab)
        m_parts.tabs->setCurrentWidget(m_parts.script);
}

void GraphTabs::checkShown()
{
    if (!m_startViewPending)
        return;
    m_startViewPending = false;
    if (std::exchange(m_restoreTabPending, false)) {
        // A reload: back to the tab the user was on.
        if (m_restoreView == View::Trace && m_restoreTrace < m_parts.checkView->traceCount())
            m_parts.tabs->setCurrentWidget(m_parts.checkView->tracePage(m_restoreTrace));
        else
            showView(m_restoreView);
        return;
    }
    if (m_userChoseTab)
        return;
    const CheckReport& report = m_check->report();
    if (m_hasStartView)
        showView(m_startView);
    else if (report.ok && !report.consistent && report.traces.size() > 1)
        showView(View::Compare); // what a user opening a file whose check diverges wants to see first
    // Opening on the comparison: start at the first divergence, so its cause is in the status bar and its line
    // is marked.
    if (currentView() == View::Compare && m_parts.compare->divergenceModel()->divergenceCount() > 0)
        m_parts.compare->selectDivergence(0);
}

} // namespace jitscope
