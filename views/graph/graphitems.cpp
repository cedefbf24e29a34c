// The boxes a graph scene draws (nodes, control-flow and module clusters, message cards), and when items paint plain.

#include "graphitems.h"
#include "graphitems_p.h"

#include <QFontDatabase>
#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QtMath>

namespace jitscope {

namespace {

constexpr qreal kNodePadding = 3;
constexpr qreal kNodeRadius = 5;
constexpr qreal kSelectedPenWidth = 3;
constexpr qreal kHalo = 5;
constexpr qreal kBadgeRadius = 7;
const QColor kExecutionColor(0xf2, 0xb7, 0x05);
const QColor kBreakpointColor(0xe5, 0x14, 0x00);
constexpr qreal kExecutionRing = 4;
constexpr qreal kExecutionArrow = 18; ///< length of the arrow left of the current node, gap included
constexpr qreal kBreakpointRadius = 5;

int g_plainPaintScopes = 0; // GUI thread only

} // namespace

PlainPaintScope::PlainPaintScope()
{
    ++g_plainPaintScopes;
}

PlainPaintScope::~PlainPaintScope()
{
    --g_plainPaintScopes;
}

bool PlainPaintScope::isActive()
{
    return g_plainPaintScopes > 0;
}

// ---------------------------------------------------------------------------------------------------------------

NodeItem::NodeItem(const LayoutNode& node, int layoutIndex, double fontSize)
    : m_nodeId(node.nodeId)
    , m_layoutIndex(layoutIndex)
    , m_role(node.role)
    , m_category(node.category)
    , m_title(node.title)
    , m_details(node.details)
    , m_fill(categoryColor(node.category))
{
    setPos(node.box.center());
    m_rect = QRectF(-node.box.width() / 2, -node.box.height() / 2, node.box.width(), node.box.height());
    m_titleFont = pixelFont(qRound(fontSize), true);
    m_detailFont = pixelFont(qRound(fontSize) - 1);
    m_tagFont = pixelFont(qMax(7, qRound(fontSize) - 1), true);
    fitFonts();

    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setCacheMode(NoCache);
    setCursor(Qt::PointingHandCursor);
    setZValue(10);
}

// Graphviz sized the box for its own font metrics; shrink ours until the text fits the box it gave us.
void NodeItem::fitFonts()
{
    const qreal availableWidth = m_rect.width() - 2 * kNodePadding;
    const int minTitle = qMax(6, m_titleFont.pixelSize() - 2);
    while (m_titleFont.pixelSize() > minTitle && TextMetrics::width(m_titleFont, m_title) > availableWidth)
        m_titleFont.setPixelSize(m_titleFont.pixelSize() - 1);

    const qreal available = m_rect.height() - 2 * kNodePadding + 2;
    for (int i = 0; i < 6; ++i) {
        const qreal needed = TextMetrics::height(m_titleFont) + m_details.size() * TextMetrics::height(m_detailFont);
        if (needed <= available || m_detailFont.pixelSize() <= 6)
            return;
        m_titleFont.setPixelSize(m_titleFont.pixelSize() - 1);
        m_detailFont.setPixelSize(m_detailFont.pixelSize() - 1);
    }
}

QRectF NodeItem::boundingRect() const
{
    // Room for the selection pen, the halo and the warning badge, and for the tag above the box.
    const qreal m = qMax(kSelectedPenWidth / 2 + 1, kHalo + 2);
    QRectF r = m_rect.adjusted(-m, -m, m + 2, m + 2);
    if (!m_warning.isEmpty())
        r = r.united(QRectF(m_rect.topRight() - QPointF(kBadgeRadius + 1, kBadgeRadius + 1),
            QSizeF(2 * kBadgeRadius + 2, 2 * kBadgeRadius + 2))
                         .translated(-2, 2));
    if (!m_tag.isEmpty()) {
        const QFontMetricsF metrics(m_tagFont);
        const qreal w = metrics.horizontalAdvance(m_tag) + 10;
        r = r.united(
            QRectF(m_rect.left() - 1, m_rect.top() - metrics.height() - kHalo - 3, w + 2, metrics.height() + 4));
    }
    if (m_current)
        r = r.united(m_rect.adjusted(
            -kExecutionRing - kExecutionArrow - 4, -kExecutionRing - 3, kExecutionRing + 3, kExecutionRing + 3));
    if (m_breakpoint)
        r = r.united(QRectF(m_rect.topLeft() - QPointF(kBreakpointRadius + 2, kBreakpointRadius + 2),
            QSizeF(2 * kBreakpointRadius + 4, 2 * kBreakpointRadius + 4)));
    return r;
}

void NodeItem::setDiffStatus(DiffStatus status)
{
    if (m_status == status)
        return;
    m_status = status;
    update();
}

void NodeItem::setDimmed(bool dimmed)
{
    if (m_dimmed == dimmed)
        return;
    m_dimmed = dimmed;
    setOpacity(dimmed ? kDimmedOpacity : 1.0);
}

void NodeItem::setLinked(bool linked, const QString& tag)
{
    const QString newTag = linked ? tag : QString();
    if (m_linked == linked && m_tag == newTag)
        return;
    prepareGeometryChange();
    m_linked = linked;
    m_tag = newTag;
    // Linked nodes must show through dimming and above their neighbours' halos.
    setZValue(m_current ? 12 : linked ? 11 : 10);
    update();
}

void NodeItem::setExecutionMarker(bool current)
{
    if (m_current == current)
        return;
    prepareGeometryChange();
    m_current = current;
    // Above its neighbours, so the ring and the arrow are never hidden.
    setZValue(current ? 12 : m_linked ? 11 : 10);
    update();
}

void NodeItem::setBreakpoint(bool breakpoint)
{
    if (m_breakpoint == breakpoint)
        return;
    prepareGeometryChange();
    m_breakpoint = breakpoint;
    update();
}

void NodeItem::setWarning(const QString& message)
{
    if (m_warning == message)
        return;
    prepareGeometryChange();
    m_warning = message;
    update();
}

QPainterPath NodeItem::shape() const
{
    QPainterPath path;
    const qreal radius = m_role == LayoutNode::Role::Node ? kNodeRadius : m_rect.height() / 2;
    path.addRoundedRect(m_rect, radius, radius);
    return path;
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const qreal lod = levelOfDetail(option, painter);
    if (lod < kPlainLevelOfDetail && ((!m_linked && !m_current && !isSelected()) || PlainPaintScope::isActive())) {
        // The whole graph small: a plain box in its category's (or its diff status's) colour.
        painter->setPen(Qt::NoPen);
        painter->setBrush(themedFill(m_status == DiffStatus::Unchanged ? m_fill : diffStatusFill(m_status)));
        painter->drawRect(m_rect);
        return;
    }
    painter->setRenderHint(QPainter::Antialiasing);
    const qreal radius = m_role == LayoutNode::Role::Node ? kNodeRadius : qMin(m_rect.height() / 2, 14.0);

    if (m_linked) {
        QColor halo = kSelectionColor;
        halo.setAlpha(70);
        painter->setPen(Qt::NoPen);
        painter->setBrush(halo);
        painter->drawRoundedRect(m_rect.adjusted(-kHalo, -kHalo, kHalo, kHalo), radius + kHalo, radius + kHalo);
    }

    if (m_current) {
        const qreal ring = kExecutionRing;
        painter->setPen(QPen(kExecutionColor, 3));
        QColor glow = kExecutionColor;
        glow.setAlpha(60);
        painter->setBrush(glow);
        painter->drawRoundedRect(m_rect.adjusted(-ring, -ring, ring, ring), radius + ring, radius + ring);
        // The instruction pointer: an arrow pointing at the box from the left.
        const qreal y = m_rect.center().y();
        const qreal tip = m_rect.left() - ring - 3;
        const qreal a = 7;
        QPainterPath arrow;
        arrow.moveTo(tip - kExecutionArrow + 4, y - a / 2.2);
        arrow.lineTo(tip - a, y - a / 2.2);
        arrow.lineTo(tip - a, y - a);
        arrow.lineTo(tip, y);
        arrow.lineTo(tip - a, y + a);
        arrow.lineTo(tip - a, y + a / 2.2);
        arrow.lineTo(tip - kExecutionArrow + 4, y + a / 2.2);
        arrow.closeSubpath();
        painter->setPen(QPen(kExecutionColor.darker(150), 1));
        painter->setBrush(kExecutionColor);
        painter->drawPath(arrow);
    }

    // A soft shadow gives the boxes some depth on the light background.
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(0, 0, 0, 22));
    painter->drawRoundedRect(m_rect.translated(1.2, 1.5), radius, radius);

    const bool marked = m_status != DiffStatus::Unchanged;
    const QColor base = themedFill(marked ? diffStatusFill(m_status) : m_fill);
    QColor fill = m_hovered ? base.lighter(104) : base;
    QPen pen(base.darker(m_hovered ? 190 : 145), m_hovered ? 1.6 : 1.0);
    if (marked)
        pen = QPen(diffStatusColor(m_status), 2.2, m_status == DiffStatus::Deleted ? Qt::DashLine : Qt::SolidLine);
    if (isSelected())
        pen = QPen(kSelectionColor, kSelectedPenWidth);
    else if (m_linked)
        pen = QPen(kSelectionColor, 1.8);
    painter->setPen(pen);
    painter->setBrush(fill);
    painter->drawRoundedRect(m_rect, radius, radius);

    if (!m_tag.isEmpty() && lod >= 0.3) {
        const QFontMetricsF metrics(m_tagFont);
        const QRectF tag(m_rect.left(), m_rect.top() - metrics.height() - kHalo - 2,
            metrics.horizontalAdvance(m_tag) + 10, metrics.height() + 2);
        painter->setPen(Qt::NoPen);
        painter->setBrush(kSelectionColor);
        painter->drawRoundedRect(tag, tag.height() / 2, tag.height() / 2);
        painter->setPen(Qt::white);
        painter->setFont(m_tagFont);
        painter->drawText(tag, Qt::AlignCenter, m_tag);
    }
    if (m_breakpoint) {
        painter->setPen(QPen(kBreakpointColor.darker(130), 1));
        painter->setBrush(kBreakpointColor);
        painter->drawEllipse(m_rect.topLeft() + QPointF(2, 2), kBreakpointRadius, kBreakpointRadius);
    }
    if (!m_warning.isEmpty()) {
        const QPointF c = m_rect.topRight() + QPointF(-2, 2);
        QPainterPath triangle;
        triangle.moveTo(c + QPointF(0, -kBadgeRadius));
        triangle.lineTo(c + QPointF(kBadgeRadius, kBadgeRadius * 0.75));
        triangle.lineTo(c + QPointF(-kBadgeRadius, kBadgeRadius * 0.75));
        triangle.closeSubpath();
        painter->setPen(QPen(QColor(0x9a, 0x67, 0x00), 1));
        painter->setBrush(QColor(0xf5, 0xb7, 0x00));
        painter->drawPath(triangle);
        painter->setPen(QPen(QColor(0x3d, 0x29, 0x00), 1.6, Qt::SolidLine, Qt::RoundCap));
        painter->drawLine(c + QPointF(0, -kBadgeRadius * 0.45), c + QPointF(0, kBadgeRadius * 0.2));
        painter->drawPoint(c + QPointF(0, kBadgeRadius * 0.5));
    }

    if (lod < 0.25)
        return;

    const QFontMetricsF titleMetrics(m_titleFont);
    const QFontMetricsF detailMetrics(m_detailFont);
    const bool showDetails = lod >= 0.45;
    const int detailCount = showDetails ? m_details.size() : 0;
    const qreal textWidth = m_rect.width() - 2 * kNodePadding;
    const qreal total = titleMetrics.height() + detailCount * detailMetrics.height();
    qreal y = m_rect.center().y() - total / 2;

    painter->setPen(textColor());
    painter->setFont(m_titleFont);
    QRectF line(m_rect.left() + kNodePadding, y, textWidth, titleMetrics.height());
    painter->drawText(line, Qt::AlignCenter, titleMetrics.elidedText(m_title, Qt::ElideMiddle, textWidth));
    y += titleMetrics.height();

    painter->setPen(detailColor());
    painter->setFont(m_detailFont);
    for (int i = 0; i < detailCount; ++i) {
        line = QRectF(m_rect.left() + kNodePadding, y, textWidth, detailMetrics.height());
        painter->drawText(line, Qt::AlignCenter, detailMetrics.elidedText(m_details.at(i), Qt::ElideRight, textWidth));
        y += detailMetrics.height();
    }
}

void NodeItem::hoverEnterEvent(QGraphicsSceneHoverEvent* event)
{
    m_hovered = true;
    update();
    QGraphicsItem::hoverEnterEvent(event);
}

void NodeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent* event)
{
    m_hovered = false;
    update();
    QGraphicsItem::hoverLeaveEvent(event);
}

// ---------------------------------------------------------------------------------------------------------------

ClusterItem::ClusterItem(const LayoutCluster& cluster, int clusterIndex, Kind kind, int depth, double fontSize)
    : m_clusterIndex(clusterIndex)
    , m_parentCluster(cluster.parentCluster)
    , m_nodeId(cluster.nodeId)
    , m_blockIndex(cluster.blockIndex)
    , m_depth(depth)
    , m_kind(kind)
    , m_title(cluster.title)
    , m_rect(cluster.box)
    , m_font(pixelFont(qRound(fontSize), true))
{
    setCacheMode(NoCache);
    // Outer blocks below inner ones, all below edges and nodes.
    setZValue(-100 + depth);
}

QRectF ClusterItem::boundingRect() const
{
    return m_rect.adjusted(-1, -1, 1, 1);
}

void ClusterItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    QColor base;
    switch (m_kind) {
    case Kind::Loop:
        base = QColor(0x63, 0x66, 0xf1);
        break;
    case Kind::If:
        base = QColor(0xd9, 0x77, 0x06);
        break;
    case Kind::Block:
        base = QColor(0x6b, 0x72, 0x80);
        break;
    case Kind::Module:
        base = QColor(0x0d, 0x94, 0x88);
        break;
    }
    // Module clusters are submodules' code, not control flow: teal, heavier and with a tinted body.
    const bool module = m_kind == Kind::Module;
    QColor fill = base;
    fill.setAlpha(module ? 24 : 16);
    QColor border = base;
    border.setAlpha(module ? 200 : 140);
    if (levelOfDetail(option, painter) < kPlainLevelOfDetail) {
        // The whole graph small: a plain frame. A dashed pen of a cluster thousands of units tall is thousands
        // of dashes, most of the paint of a big model fitted to the view.
        painter->setPen(QPen(border, 0));
        painter->setBrush(fill);
        painter->drawRect(m_rect);
        return;
    }
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(
        border, module ? 2.0 : 1.2, m_kind == Kind::If ? Qt::DashLine : (module ? Qt::DashDotLine : Qt::SolidLine)));
    painter->setBrush(fill);
    painter->drawRoundedRect(m_rect, 8, 8);

    if (m_title.isEmpty() || levelOfDetail(option, painter) < 0.3)
        return;
    const QFontMetricsF metrics(m_font);
    const qreal barHeight = metrics.height() + 4;
    QPainterPath bar;
    bar.addRoundedRect(QRectF(m_rect.left(), m_rect.top(), m_rect.width(), barHeight + 8), 8, 8);
    QPainterPath clip;
    clip.addRect(QRectF(m_rect.left(), m_rect.top(), m_rect.width(), barHeight));
    QColor barFill = base;
    barFill.setAlpha(38);
    painter->setPen(Qt::NoPen);
    painter->setBrush(barFill);
    painter->drawPath(bar.intersected(clip));

    QColor titleColor = isDarkGraphTheme() ? base.lighter(150) : base.darker(150);
    painter->setPen(titleColor);
    painter->setFont(m_font);
    const QRectF textRect(m_rect.left() + 8, m_rect.top() + 2, m_rect.width() - 16, metrics.height());
    painter->drawText(
        textRect, Qt::AlignLeft | Qt::AlignVCenter, metrics.elidedText(m_title, Qt::ElideRight, textRect.width()));
}

// ---------------------------------------------------------------------------------------------------------------

MessageItem::MessageItem(const QString& title, const QString& text, Kind kind)
    : m_kind(kind)
    , m_title(title)
    , m_text(text)
    , m_titleFont(pixelFont(17, true))
{
    if (kind == Kind::Error) {
        m_textFont = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        m_textFont.setPixelSize(13);
    } else {
        m_textFont = pixelFont(14);
    }
    constexpr qreal padding = 20;
    constexpr qreal maxWidth = 520;
    const QFontMetricsF titleMetrics(m_titleFont);
    const QFontMetricsF textMetrics(m_textFont);
    const QRectF textBounds = m_text.isEmpty()
        ? QRectF()
        : textMetrics.boundingRect(QRectF(0, 0, maxWidth, 1e6), Qt::TextWordWrap | Qt::AlignLeft, m_text);
    const qreal width = qMax(qMin(maxWidth, titleMetrics.horizontalAdvance(m_title)), textBounds.width()) + 1;
    const qreal titleHeight = titleMetrics.height();
    const qreal gap = m_text.isEmpty() ? 0 : 10;
    m_rect = QRectF(0, 0, width + 2 * padding + 6, titleHeight + gap + textBounds.height() + 2 * padding);
    m_textRect = QRectF(padding + 6, padding + titleHeight + gap, width, textBounds.height());
}

QRectF MessageItem::boundingRect() const
{
    return m_rect.adjusted(-1, -1, 3, 3);
}

void MessageItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    const bool error = m_kind == Kind::Error;
    const QColor accent = error ? QColor(0xcf, 0x22, 0x2e) : kSelectionColor;
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(0, 0, 0, 18));
    painter->drawRoundedRect(m_rect.translated(1.5, 2), 8, 8);
    painter->setPen(QPen(error ? QColor(0xf1, 0xae, 0xb5) : QColor(0xd0, 0xd7, 0xde), 1));
    painter->setBrush(themedFill(error ? QColor(0xff, 0xf6, 0xf6) : QColor(Qt::white)));
    painter->drawRoundedRect(m_rect, 8, 8);

    QPainterPath card;
    card.addRoundedRect(m_rect, 8, 8);
    QPainterPath stripe;
    stripe.addRect(QRectF(m_rect.left(), m_rect.top(), 6, m_rect.height()));
    painter->setPen(Qt::NoPen);
    painter->setBrush(accent);
    painter->drawPath(card.intersected(stripe));

    const qreal padding = 20;
    painter->setPen(error ? accent.darker(120) : textColor());
    painter->setFont(m_titleFont);
    painter->drawText(
        QRectF(padding + 6, padding, m_rect.width() - 2 * padding - 6, QFontMetricsF(m_titleFont).height()),
        Qt::AlignLeft | Qt::AlignVCenter, m_title);
    if (!m_text.isEmpty()) {
        painter->setPen(textColor());
        painter->setFont(m_textFont);
        painter->drawText(m_textRect, Qt::TextWordWrap | Qt::AlignLeft, m_text);
    }
}

} // namespace jitscope
