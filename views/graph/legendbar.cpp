#include "legendbar.h"

#include "graphitems.h"
#include "graphscene.h"

#include <QPainter>
#include <QResizeEvent>

namespace jitscope {

namespace {
constexpr int kMargin = 8;
constexpr int kSwatch = 11;
constexpr int kSwatchGap = 5;
constexpr int kEntryGap = 16;
} // namespace

LegendBar::LegendBar(QWidget* parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    setFixedHeight(0);
}

// Box layouts honour height-for-width only partly inside stacked widgets; a fixed height that follows the width
// always works.
void LegendBar::fitHeight()
{
    const int h = heightForWidth(width());
    if (h != height())
        setFixedHeight(h);
}

void LegendBar::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitHeight();
}

void LegendBar::setScene(GraphScene* scene)
{
    if (m_scene)
        disconnect(m_scene, nullptr, this, nullptr);
    m_scene = scene;
    if (scene)
        connect(scene, &GraphScene::contentsReplaced, this, [this] { setCategories(m_scene->categories()); });
    setCategories(scene ? scene->categories() : QVector<OpCategory>());
}

void LegendBar::setCategories(const QVector<OpCategory>& categories)
{
    if (categories == m_categories)
        return;
    m_categories = categories;
    fitHeight();
    update();
}

int LegendBar::rowHeight() const
{
    return qMax(kSwatch + 6, fontMetrics().height() + 4);
}

int LegendBar::entryWidth(OpCategory category) const
{
    return kSwatch + kSwatchGap + fontMetrics().horizontalAdvance(opCategoryName(category));
}

QVector<QPoint> LegendBar::entryPositions(int width) const
{
    QVector<QPoint> positions;
    int x = kMargin;
    int y = kMargin / 2;
    for (OpCategory c : m_categories) {
        const int w = entryWidth(c);
        if (x > kMargin && x + w > width - kMargin) {
            x = kMargin;
            y += rowHeight();
        }
        positions.append(QPoint(x, y));
        x += w + kEntryGap;
    }
    return positions;
}

int LegendBar::heightForWidth(int width) const
{
    if (m_categories.isEmpty())
        return 0;
    return entryPositions(width).constLast().y() + rowHeight() + kMargin / 2;
}

QSize LegendBar::sizeHint() const
{
    int width = kMargin;
    for (OpCategory c : m_categories)
        width += entryWidth(c) + kEntryGap;
    return QSize(width, m_categories.isEmpty() ? 0 : rowHeight() + kMargin);
}

QSize LegendBar::minimumSizeHint() const
{
    return QSize(0, 0);
}

void LegendBar::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), QColor(0xf3, 0xf4, 0xf6));
    painter.setPen(QColor(0xd0, 0xd7, 0xde));
    painter.drawLine(rect().topLeft(), rect().topRight());
    painter.setRenderHint(QPainter::Antialiasing);
    const QVector<QPoint> positions = entryPositions(width());
    for (int i = 0; i < m_categories.size(); ++i) {
        const OpCategory c = m_categories.at(i);
        const QPoint at = positions.at(i);
        const QColor fill = categoryColor(c);
        const QRectF swatch(at.x(), at.y() + (rowHeight() - kSwatch) / 2.0, kSwatch, kSwatch);
        painter.setPen(fill.darker(150));
        painter.setBrush(fill);
        painter.drawRoundedRect(swatch, 3, 3);
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRect(at.x() + kSwatch + kSwatchGap, at.y(), entryWidth(c), rowHeight()),
            Qt::AlignLeft | Qt::AlignVCenter, opCategoryName(c));
    }
}

} // namespace jitscope
