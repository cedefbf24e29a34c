// CompareWidget's two views framed together and kept in step: the first framing, zoom and pan of one side followed by
// the other, until the user takes over.

#include "comparewidget.h"
#include "comparewidget_p.h"

#include "graphscene.h"
#include "graphview.h"

#include <QEvent>
#include <QTimer>

namespace jitscope {

namespace {

constexpr double kReadableZoom = 0.6;
constexpr double kMaxFitZoom = 1.5;

} // namespace

bool CompareWidget::eventFilter(QObject* watched, QEvent* event)
{
    switch (event->type()) {
    case QEvent::Resize:
        if (m_autoFrame)
            scheduleFrame();
        break;
    case QEvent::Wheel:
    case QEvent::MouseButtonPress:
    case QEvent::KeyPress:
        // The user takes over: from now on their zoom and pan stay as they are when the window resizes.
        m_autoFrame = false;
        break;
    default:
        break;
    }
    return QWidget::eventFilter(watched, event);
}

void CompareWidget::scheduleFrame()
{
    if (m_framePending)
        return;
    m_framePending = true;
    // After the splitters have given both views their final sizes.
    QTimer::singleShot(0, this, [this] {
        m_framePending = false;
        if (m_autoFrame)
            frameBoth();
    });
}

void CompareWidget::frameBoth()
{
    FlagGuard guard(m_syncing);
    double zoom = 0;
    for (Pane* p : { &m_left, &m_right }) {
        const QRectF rect = p->view->sceneRect();
        const QSize size = p->view->viewport()->size();
        if (!p->scene->hasGraph() || rect.isEmpty() || size.width() < 10 || size.height() < 10)
            continue;
        const double fitAll = qMin(size.width() / rect.width(), size.height() / rect.height());
        const double fitWidth = size.width() / rect.width();
        const double wanted
            = fitAll >= kReadableZoom ? qMin(fitAll, kMaxFitZoom) : qBound(kReadableZoom, fitWidth, 1.0);
        zoom = zoom == 0 ? wanted : qMin(zoom, wanted);
    }
    for (Pane* p : { &m_left, &m_right }) {
        if (!p->scene->hasGraph()) {
            p->view->showMessage();
            continue;
        }
        if (zoom <= 0)
            continue;
        p->view->setZoom(zoom);
        const QRectF rect = p->view->sceneRect();
        const double visibleHeight = p->view->viewport()->height() / zoom;
        p->view->centerOn(QPointF(rect.center().x(), rect.top() + visibleHeight / 2));
    }
    // Framing must not hide the divergence being looked at.
    for (Pane* p : { &m_left, &m_right }) {
        if (p->scene->selectedNodeId() >= 0)
            p->view->centerOnNode(p->scene->selectedNodeId());
    }
}

void CompareWidget::syncViewport(Side from)
{
    Pane& source = pane(from);
    Pane& target = pane(from == Side::Left ? Side::Right : Side::Left);
    if (!source.scene->hasGraph() || !target.scene->hasGraph())
        return;
    FlagGuard guard(m_syncing);
    if (!qFuzzyCompare(source.view->zoom(), target.view->zoom()))
        target.view->setZoom(source.view->zoom());
    const QPointF centre = source.view->mapToScene(source.view->viewport()->rect().center());
    target.view->centerOn(centre);
}

} // namespace jitscope
