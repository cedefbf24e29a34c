#include "graphview.h"

#include "graphitems.h"
#include "graphscene.h"
#include "minimap.h"

#include <QContextMenuEvent>
#include <QDragEnterEvent>
#include <QDragMoveEvent>
#include <QDropEvent>
#include <QKeyEvent>
#include <QMimeData>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollBar>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>
#include <QtMath>

namespace jitscope {

namespace {
constexpr double kZoomStep = 1.25;
constexpr double kMaxFitZoom = 1.5;
constexpr double kReadableZoom = 0.6;
/// Room above the graph's inputs when the first view starts there.
constexpr double kSceneMarginInView = 24;
} // namespace

GraphView::GraphView(QWidget* parent)
    : QGraphicsView(parent)
{
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    setDragMode(ScrollHandDrag);
    setTransformationAnchor(AnchorViewCenter);
    setResizeAnchor(AnchorViewCenter);
    setViewportUpdateMode(SmartViewportUpdate);
    setFrameShape(QFrame::NoFrame);
    setBackgroundBrush(graphBackgroundColor());
    setFocusPolicy(Qt::StrongFocus);
    m_miniMap = new MiniMap(this);
}

GraphScene* GraphView::graphScene() const
{
    return qobject_cast<GraphScene*>(scene());
}

double GraphView::zoom() const
{
    return transform().m11();
}

void GraphView::setZoom(double zoom)
{
    m_refit = Refit::None;
    applyZoom(zoom);
}

void GraphView::setRefitOnResize(bool refit)
{
    m_refitOnResize = refit;
    if (!refit)
        m_refit = Refit::None;
}

void GraphView::applyZoom(double zoom)
{
    zoom = qBound(MinZoom, zoom, MaxZoom);
    if (qFuzzyCompare(zoom, this->zoom()))
        return;
    setTransform(QTransform::fromScale(zoom, zoom));
    Q_EMIT zoomChanged(zoom);
}

void GraphView::zoomBy(double factor, QPoint viewportAnchor)
{
    m_refit = Refit::None;
    const double target = qBound(MinZoom, zoom() * factor, MaxZoom);
    if (viewportAnchor.isNull()) {
        applyZoom(target);
        return;
    }
    const QPointF before = mapToScene(viewportAnchor);
    applyZoom(target);
    // Move the scroll bars so the anchored scene point is back under the cursor.
    const QPointF after = mapFromScene(before);
    const QPointF delta = after - QPointF(viewportAnchor);
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() + qRound(delta.x()));
    verticalScrollBar()->setValue(verticalScrollBar()->value() + qRound(delta.y()));
}

void GraphView::zoomIn()
{
    zoomBy(kZoomStep);
}

void GraphView::zoomOut()
{
    zoomBy(1 / kZoomStep);
}

void GraphView::resetZoom()
{
    setZoom(1.0);
}

// The scene rect holds the graph plus a margin: fitting it exactly leaves no scroll bars.
static QRectF framedRect(const QGraphicsView* view)
{
    return view->sceneRect();
}

void GraphView::fitGraph()
{
    frame(Refit::Fit);
}

void GraphView::showGraph()
{
    frame(Refit::Graph);
}

void GraphView::showMessage()
{
    frame(Refit::Message);
}

void GraphView::frame(Refit how)
{
    // Whatever the framing comes to, the minimap follows (shown when the graph does not fit).
    struct PlaceMiniMap
    {
        MiniMap* map;
        ~PlaceMiniMap() { map->updatePlacement(); }
    } place { m_miniMap };
    m_refit = m_refitOnResize ? how : Refit::None;
    const QRectF rect = framedRect(this);
    if (rect.isEmpty() || viewport()->width() < 10 || viewport()->height() < 10)
        return;
    const double fitAll = qMin(viewport()->width() / rect.width(), viewport()->height() / rect.height());
    if (how == Refit::Message) {
        applyZoom(qMin(fitAll, 1.0));
        centerOn(rect.center());
        return;
    }
    if (how == Refit::Fit || fitAll >= kReadableZoom) {
        applyZoom(qMin(fitAll, kMaxFitZoom));
        centerOn(rect.center());
        return;
    }
    // Too big to read when shown whole: fit the width if that is readable, and start at the top, where the graph's
    // inputs are (a graph wider than the view: at its inputs, not at the middle of its width, which may be the
    // empty inside of a wide cluster).
    const double fitWidth = viewport()->width() / rect.width();
    const double zoom = qBound(kReadableZoom, fitWidth, 1.0);
    applyZoom(zoom);
    const double visibleWidth = viewport()->width() / zoom;
    const double visibleHeight = viewport()->height() / zoom;
    const GraphScene* scene = graphScene();
    QRectF start = scene ? scene->startRect() : QRectF();
    // The inputs and first ops; else the inputs (far apart: a detection model's images and targets); else the first.
    if (!start.isNull() && start.width() > visibleWidth)
        start = scene->inputsRect();
    if (!start.isNull() && start.width() > visibleWidth)
        start = scene->firstInputRect();
    double x = rect.center().x();
    double top = rect.top();
    if (!start.isNull() && visibleWidth < rect.width()) {
        x = qBound(rect.left() + visibleWidth / 2, start.center().x(), rect.right() - visibleWidth / 2);
        top = qBound(rect.top(), start.top() - kSceneMarginInView, qMax(rect.top(), rect.bottom() - visibleHeight));
    }
    centerOn(QPointF(x, top + visibleHeight / 2));
}

void GraphView::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    if (m_refit != Refit::None)
        frame(m_refit);
    m_miniMap->updatePlacement();
}

bool GraphView::paintsOverview() const
{
    const GraphScene* scene = graphScene();
    const GraphOverview* overview = scene ? scene->overview() : nullptr;
    return overview && overview->covers(zoom() * devicePixelRatioF());
}

void GraphView::paintEvent(QPaintEvent* event)
{
    // Zoomed out over a big graph, one image instead of every item: the picture is the same (items below the
    // plain level of detail), its cost that of the pixels.
    if (!paintsOverview()) {
        QGraphicsView::paintEvent(event);
        return;
    }
    GraphScene* scene = graphScene();
    const GraphOverview* overview = scene->overview();
    QPainter painter(viewport());
    painter.setClipRegion(event->region());
    painter.fillRect(event->rect(), scene->backgroundBrush());
    const QTransform toView = viewportTransform();
    painter.setTransform(toView);
    painter.setRenderHint(QPainter::SmoothPixmapTransform);
    const QImage& image = overview->imageFor(zoom() * devicePixelRatioF());
    if (!image.isNull()) // blank until the scene has made its items
        painter.drawImage(overview->source(), image);
    const QRectF exposed = mapToScene(event->rect()).boundingRect();
    QStyleOptionGraphicsItem option;
    for (QGraphicsItem* item : scene->standOutItems()) {
        if (!item->isVisible() || !item->sceneBoundingRect().intersects(exposed))
            continue;
        painter.setTransform(item->sceneTransform() * toView);
        painter.setOpacity(item->effectiveOpacity());
        option.state = item->isSelected() ? QStyle::State_Selected : QStyle::State_None;
        option.exposedRect = item->boundingRect();
        item->paint(&painter, &option, viewport());
    }
}

void GraphView::mousePressEvent(QMouseEvent* event)
{
    // A press may start a pan: the user takes over the framing.
    m_refit = Refit::None;
    QGraphicsView::mousePressEvent(event);
}

void GraphView::centerOnNode(int nodeId)
{
    GraphScene* graph = graphScene();
    NodeItem* item = graph ? graph->nodeItem(nodeId) : nullptr;
    if (!item)
        return;
    m_refit = Refit::None;
    const QRectF box = item->sceneBoundingRect();
    const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    if (!visible.contains(box))
        centerOn(item);
}

void GraphView::contextMenuEvent(QContextMenuEvent* event)
{
    for (QGraphicsItem* item : items(event->pos())) {
        if (item->type() != NodeItem::Type)
            continue;
        const int id = static_cast<NodeItem*>(item)->nodeId();
        if (id < 0)
            break;
        Q_EMIT nodeContextMenuRequested(id, event->globalPos());
        event->accept();
        return;
    }
    QGraphicsView::contextMenuEvent(event);
}

void GraphView::wheelEvent(QWheelEvent* event)
{
    m_refit = Refit::None;
    if (event->modifiers() & Qt::ControlModifier) {
        const QPoint delta = event->angleDelta();
        const int steps = delta.y() != 0 ? delta.y() : delta.x();
        if (steps != 0)
            zoomBy(qPow(1.0015, steps), event->position().toPoint());
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

void GraphView::keyPressEvent(QKeyEvent* event)
{
    // Reached only when no action owns these shortcuts (the view used outside the main window).
    if (event->modifiers() & Qt::ControlModifier) {
        switch (event->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            zoomIn();
            event->accept();
            return;
        case Qt::Key_Minus:
            zoomOut();
            event->accept();
            return;
        case Qt::Key_0:
            fitGraph();
            event->accept();
            return;
        default:
            break;
        }
    }
    QGraphicsView::keyPressEvent(event);
}

void GraphView::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls()) {
        event->ignore();
        return;
    }
    QGraphicsView::dragEnterEvent(event);
}

void GraphView::dragMoveEvent(QDragMoveEvent* event)
{
    if (event->mimeData()->hasUrls()) {
        event->ignore();
        return;
    }
    QGraphicsView::dragMoveEvent(event);
}

void GraphView::dropEvent(QDropEvent* event)
{
    if (event->mimeData()->hasUrls()) {
        event->ignore();
        return;
    }
    QGraphicsView::dropEvent(event);
}

} // namespace jitscope
