// An edge of a graph scene: the path of Graphviz's spline, its arrow head on the target box's border, its label.

#include "graphitems.h"
#include "graphitems_p.h"

#include <QPainterPathStroker>

#include <cmath>

namespace jitscope {

namespace {

constexpr qreal kArrowLength = 8;

// Where the ray from @p from along @p dir leaves/enters @p box, or @p from when it misses.
QPointF rayHitsBox(QPointF from, QPointF dir, const QRectF& box)
{
    qreal best = -1;
    auto consider = [&](qreal t) {
        if (t <= 0)
            return;
        const QPointF p = from + dir * t;
        if (p.x() < box.left() - 0.5 || p.x() > box.right() + 0.5 || p.y() < box.top() - 0.5
            || p.y() > box.bottom() + 0.5)
            return;
        if (best < 0 || t < best)
            best = t;
    };
    if (!qFuzzyIsNull(dir.x())) {
        consider((box.left() - from.x()) / dir.x());
        consider((box.right() - from.x()) / dir.x());
    }
    if (!qFuzzyIsNull(dir.y())) {
        consider((box.top() - from.y()) / dir.y());
        consider((box.bottom() - from.y()) / dir.y());
    }
    return best < 0 ? from : from + dir * best;
}

qreal distanceToBox(QPointF p, const QRectF& box)
{
    const qreal dx = qMax(qMax(box.left() - p.x(), 0.0), p.x() - box.right());
    const qreal dy = qMax(qMax(box.top() - p.y(), 0.0), p.y() - box.bottom());
    return std::hypot(dx, dy);
}

} // namespace

EdgeItem::EdgeItem(const LayoutEdge& edge, int edgeIndex, const QRectF& targetBox, double fontSize)
    : m_edgeIndex(edgeIndex)
    , m_fromIndex(edge.fromNode)
    , m_toIndex(edge.toNode)
    , m_valueId(edge.valueId)
    , m_label(edge.label)
    , m_labelPos(edge.labelPos)
    , m_labelFont(pixelFont(qMax(7, qRound(fontSize * 0.85))))
{
    // Graphviz gives 1 + 3n Bezier control points, optionally followed by the arrow tip (its "e," point).
    const QVector<QPointF>& pts = edge.points;
    int curveCount = int(pts.size());
    bool explicitTip = false;
    if (pts.size() >= 5 && (pts.size() - 2) % 3 == 0) {
        curveCount = int(pts.size()) - 1;
        explicitTip = true;
    }
    if (curveCount > 0) {
        m_path.moveTo(pts.first());
        if (curveCount >= 4 && (curveCount - 1) % 3 == 0) {
            for (int i = 1; i + 2 < curveCount; i += 3)
                m_path.cubicTo(pts.at(i), pts.at(i + 1), pts.at(i + 2));
        } else {
            for (int i = 1; i < curveCount; ++i)
                m_path.lineTo(pts.at(i));
        }
    }

    if (edge.hasArrow && curveCount >= 2) {
        const QPointF end = pts.at(curveCount - 1);
        QPointF base = end;
        QPointF tip = end;
        QPointF dir;
        if (explicitTip) {
            tip = pts.last();
            dir = tip - base;
        }
        if (std::hypot(dir.x(), dir.y()) < 0.01) {
            // Direction at the end: from the last control point that differs from the end point.
            for (int i = curveCount - 2; i >= 0; --i) {
                dir = end - pts.at(i);
                if (std::hypot(dir.x(), dir.y()) > 0.01)
                    break;
            }
        }
        const qreal len = std::hypot(dir.x(), dir.y());
        if (len > 0.01) {
            dir /= len;
            // Without an explicit tip the spline stops where the arrow head begins: put the tip on the border.
            if (!explicitTip && targetBox.isValid()) {
                const qreal gap = distanceToBox(end, targetBox);
                if (gap > 2 && gap < 25)
                    tip = rayHitsBox(end, dir, targetBox);
            }
            if (std::hypot(tip.x() - base.x(), tip.y() - base.y()) < 3)
                base = tip - dir * kArrowLength;
            const QPointF along = tip - base;
            const qreal arrowLen = std::hypot(along.x(), along.y());
            const QPointF normal(-along.y() / arrowLen, along.x() / arrowLen);
            const qreal halfWidth = qMin(3.5, arrowLen * 0.45);
            m_arrow << tip << base + normal * halfWidth << base - normal * halfWidth;
        }
    }

    if (!m_label.isEmpty() && m_labelPos.isNull() && !m_path.isEmpty())
        m_labelPos = m_path.pointAtPercent(0.5) + QPointF(TextMetrics::width(m_labelFont, m_label) / 2 + 4, 0);

    m_bounds = m_path.boundingRect().united(m_arrow.boundingRect()).adjusted(-3, -3, 3, 3);
    if (!m_label.isEmpty())
        m_bounds = m_bounds.united(labelRect().adjusted(-2, -2, 2, 2));

    setCacheMode(NoCache);
    setZValue(5);
}

QRectF EdgeItem::labelRect() const
{
    const QSizeF size(TextMetrics::width(m_labelFont, m_label) + 2, TextMetrics::height(m_labelFont));
    return QRectF(m_labelPos - QPointF(size.width() / 2, size.height() / 2), size);
}

void EdgeItem::setHighlighted(bool highlighted)
{
    if (m_highlighted == highlighted)
        return;
    m_highlighted = highlighted;
    setZValue(highlighted ? 6 : 5);
    update();
}

void EdgeItem::setDimmed(bool dimmed)
{
    if (m_dimmed == dimmed)
        return;
    m_dimmed = dimmed;
    setOpacity(dimmed ? kDimmedOpacity : 1.0);
}

QRectF EdgeItem::boundingRect() const
{
    return m_bounds;
}

QPainterPath EdgeItem::shape() const
{
    QPainterPathStroker stroker;
    stroker.setWidth(6);
    QPainterPath hit = stroker.createStroke(m_path);
    hit.addPolygon(m_arrow);
    if (!m_label.isEmpty())
        hit.addRect(labelRect());
    return hit;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const QColor color = m_highlighted ? kSelectionColor : edgeColor();
    if ((!m_highlighted || PlainPaintScope::isActive()) && levelOfDetail(option, painter) < kPlainLevelOfDetail) {
        painter->setPen(QPen(PlainPaintScope::isActive() ? edgeColor() : color, 0));
        painter->drawPath(m_path);
        return;
    }
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(color, m_highlighted ? 2.0 : 1.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(m_path);
    if (!m_arrow.isEmpty()) {
        painter->setPen(QPen(color, 1.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        painter->setBrush(color);
        painter->drawPolygon(m_arrow);
    }
    if (!m_label.isEmpty() && levelOfDetail(option, painter) >= 0.45) {
        painter->setFont(m_labelFont);
        painter->setPen(m_highlighted ? kSelectionColor : edgeLabelColor());
        painter->drawText(labelRect(), Qt::AlignCenter, m_label);
    }
}

} // namespace jitscope
