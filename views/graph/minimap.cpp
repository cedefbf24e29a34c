#include "minimap.h"

#include "graphitems.h"
#include "graphscene.h"
#include "graphview.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPointer>
#include <QScrollBar>
#include <QSet>
#include <QTimer>

#include <algorithm>

namespace jitscope {

namespace {

constexpr int kMaxWidth = 200;
constexpr int kMaxHeight = 150;
constexpr int kMargin = 10;
constexpr qreal kMinSide = 48;

bool g_enabled = true;

QSet<MiniMap*>& allMaps()
{
    static QSet<MiniMap*> maps;
    return maps;
}

} // namespace

MiniMap::MiniMap(GraphView* view)
    : QWidget(view)
    , m_view(view)
    , m_renderTimer(new QTimer(this))
{
    setObjectName(QStringLiteral("miniMap"));
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("The whole graph: click or drag to move the view"));
    m_renderTimer->setSingleShot(true);
    m_renderTimer->setInterval(120);
    connect(m_renderTimer, &QTimer::timeout, this, &MiniMap::render);
    allMaps().insert(this);
    connect(this, &QObject::destroyed, this, [this] { allMaps().remove(this); });
    auto place = [this] { updatePlacement(); };
    connect(view->horizontalScrollBar(), &QScrollBar::valueChanged, this, place);
    connect(view->verticalScrollBar(), &QScrollBar::valueChanged, this, place);
    connect(view, &GraphView::zoomChanged, this, place);
    hide();
}

void MiniMap::setEnabledEverywhere(bool enabled)
{
    g_enabled = enabled;
    for (MiniMap* map : std::as_const(allMaps()))
        map->updatePlacement();
}

bool MiniMap::isEnabledEverywhere()
{
    return g_enabled;
}

void MiniMap::scheduleRender()
{
    m_renderTimer->start();
}

void MiniMap::updatePlacement()
{
    GraphScene* scene = m_view->graphScene();
    if (scene != m_scene) {
        if (m_scene)
            m_scene->disconnect(this);
        m_scene = scene;
        m_source = QRectF();
        if (scene) {
            connect(scene, &GraphScene::overviewUpdated, this, [this] {
                if (!isVisible())
                    m_source = QRectF(); // drawn again when shown
                else if (m_scene && m_scene->overview() && m_scene->overview()->isFinished())
                    render(); // a small copy scaled down: cheap, and the map is whole at once
                else
                    scheduleRender();
            });
            connect(scene, &GraphScene::contentsReplaced, this, [this] {
                m_source = QRectF();
                updatePlacement();
            });
            // Colours change after the contents (a comparison's statuses, dimming, the theme): draw again, once.
            connect(scene, &QGraphicsScene::changed, this, [this] {
                if (isVisible())
                    scheduleRender();
            });
        }
    }
    const QRectF contents = scene ? scene->contentsRect() : QRectF();
    const QRectF inView = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
    // Only a graph that does not fit: a map of what is all in view anyway says nothing.
    const bool wanted = g_enabled && scene && scene->hasGraph() && contents.isValid()
        && !inView.adjusted(-2, -2, 2, 2).contains(contents) && m_view->viewport()->width() > 3 * kMaxWidth
        && m_view->viewport()->height() > 2 * kMaxHeight;
    if (!wanted) {
        hide();
        return;
    }
    const QSizeF scale = scaleFor(contents);
    const QSize size(qRound(contents.width() * scale.width()) + 2, qRound(contents.height() * scale.height()) + 2);
    const QRect viewport = m_view->viewport()->geometry();
    setGeometry(QRect(viewport.bottomRight() - QPoint(size.width() + kMargin, size.height() + kMargin), size));
    show();
    raise();
    if (m_source != contents || m_pixmap.isNull() || m_pixmap.deviceIndependentSize() != mapArea().size())
        render();
    update();
}

QSizeF MiniMap::scaleFor(const QRectF& contents)
{
    // One scale for both directions, except that a long thin graph (a chain of a thousand ops) is stretched across
    // to at least kMinSide pixels: drawn true to its shape it would be a line nobody can aim at.
    const qreal scale = qMin(kMaxWidth / contents.width(), kMaxHeight / contents.height());
    const qreal sx = qMax(scale, qMin(kMaxWidth / contents.width(), kMinSide / contents.width()));
    const qreal sy = qMax(scale, qMin(kMaxHeight / contents.height(), kMinSide / contents.height()));
    return QSizeF(sx, sy);
}

QRectF MiniMap::mapArea() const
{
    return QRectF(rect()).adjusted(1, 1, -1, -1);
}

void MiniMap::render()
{
    GraphScene* scene = m_view->graphScene();
    if (!scene || !scene->hasGraph() || !isVisible()) {
        m_source = QRectF(); // drawn when shown
        return;
    }
    m_source = scene->contentsRect();
    const qreal dpr = devicePixelRatioF();
    QPixmap pixmap((mapArea().size() * dpr).toSize());
    pixmap.setDevicePixelRatio(dpr);
    pixmap.fill(graphBackgroundColor());
    QPainter painter(&pixmap);
    const QRectF target(QPointF(0, 0), mapArea().size());
    if (const GraphOverview* overview = scene->overview(); overview && overview->image().isNull()) {
        // Not drawn yet: the background until it is.
    } else if (overview) {
        // A big graph is drawn once already, as the items would draw themselves at this scale: scale down its
        // smallest copy that is still at least this fine, averaging pixels (a grid of boxes stays that grid).
        const QSizeF scale = scaleFor(m_source);
        const QImage& image = overview->imageFor(std::max(scale.width(), scale.height()) * dpr);
        const qreal s = image.width() / overview->source().width();
        const QRect from = QRectF((m_source.topLeft() - overview->source().topLeft()) * s, m_source.size() * s)
                               .toAlignedRect()
                               .intersected(image.rect());
        if (overview->isFinished()) {
            painter.drawImage(target,
                (from == image.rect() ? image : image.copy(from))
                    .scaled((target.size() * dpr).toSize(), Qt::IgnoreAspectRatio, Qt::SmoothTransformation));
        } else {
            // Still being drawn, without its small copies: sampled, a pass over the map's pixels and not over a
            // 12-megapixel image; drawn again, averaged, once it is finished.
            painter.drawImage(target, image, from);
        }
    } else {
        // At this scale every box is below the plain level of detail: a few milliseconds for a graph too small to
        // have an overview.
        scene->render(&painter, target, m_source, Qt::IgnoreAspectRatio);
    }
    painter.end();
    m_pixmap = pixmap;
    update();
}

QRectF MiniMap::visibleRect() const
{
    if (!m_source.isValid())
        return {};
    const QRectF area = mapArea();
    const qreal sx = area.width() / m_source.width(), sy = area.height() / m_source.height();
    const QRectF inView = m_view->mapToScene(m_view->viewport()->rect()).boundingRect().intersected(m_source);
    const QPointF offset = inView.topLeft() - m_source.topLeft();
    return QRectF(
        area.left() + offset.x() * sx, area.top() + offset.y() * sy, inView.width() * sx, inView.height() * sy);
}

QPointF MiniMap::toScene(const QPointF& point) const
{
    const QRectF area = mapArea();
    const QPointF p = point - area.topLeft();
    return m_source.topLeft()
        + QPointF(p.x() * m_source.width() / area.width(), p.y() * m_source.height() / area.height());
}

void MiniMap::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const bool dark = isDarkGraphTheme();
    p.fillRect(rect(), graphBackgroundColor());
    p.drawPixmap(mapArea().topLeft(), m_pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    const QColor accent(0x1f, 0x6f, 0xeb);
    QColor fill = accent;
    fill.setAlpha(40);
    p.setPen(QPen(accent, 1.5));
    p.setBrush(fill);
    p.drawRect(visibleRect());
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(dark ? QColor(0x55, 0x5d, 0x68) : QColor(0xb0, 0xb6, 0xbe), 1));
    p.drawRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5));
}

void MiniMap::moveViewTo(const QPointF& point)
{
    if (!m_source.isValid())
        return;
    m_view->centerOn(toScene(point));
    update();
}

void MiniMap::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton)
        moveViewTo(event->position());
}

void MiniMap::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton)
        moveViewTo(event->position());
}

} // namespace jitscope
