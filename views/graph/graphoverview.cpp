#include "graphoverview.h"

#include "graphitems.h"

#include <QElapsedTimer>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>
#include <utility>

namespace jitscope {

namespace {

constexpr int kSliceMs = 8;

/// Below the plain level of detail (graphitems.cpp), with a margin: every item draws its plain form.
constexpr qreal kMaxScale = 0.18;

} // namespace

GraphOverview::GraphOverview(
    const QList<ClusterItem*>& clusters, const QList<EdgeItem*>& edges, const QList<NodeItem*>& nodes, QObject* parent)
    : QObject(parent)
    , m_clusters(clusters)
    , m_edges(edges)
    , m_nodes(nodes)
{
    m_timer.setInterval(0);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        if (!drawSlice(kSliceMs))
            m_timer.stop();
    });
}

qreal GraphOverview::scaleFor(const QRectF& bounds)
{
    if (!bounds.isValid())
        return 0;
    const qreal byArea = std::sqrt(qreal(MaxPixels) / (bounds.width() * bounds.height()));
    const qreal bySide = MaxSide / std::max(bounds.width(), bounds.height());
    return std::min({ kMaxScale, byArea, bySide });
}

bool GraphOverview::start(const QRectF& source, const QColor& background, int clusters, int edges, int nodes)
{
    clear();
    if (clusters + edges + nodes < MinItems || !source.isValid())
        return false;
    m_source = source;
    m_background = background;
    m_scale = scaleFor(source);
    m_totalClusters = clusters;
    m_totalEdges = edges;
    m_totalNodes = nodes;
    m_first = true;
    m_active = true;
    begin();
    return true;
}

void GraphOverview::redraw(const QColor& background)
{
    if (!isActive())
        return;
    if (background.isValid())
        m_background = background;
    begin();
}

void GraphOverview::begin()
{
    m_drawing = QImage(); // made by the first slice
    m_clusterOrder.clear();
    m_phase = Clusters;
    m_next = 0;
    if (m_first)
        m_complete = false;
    m_timer.start();
}

void GraphOverview::clear()
{
    m_timer.stop();
    m_shown = QImage();
    m_halves.clear();
    m_halving = QImage();
    m_drawing = QImage();
    m_first = false;
    m_active = false;
    m_clusterOrder.clear();
    m_complete = false;
    m_phase = Clusters;
    m_next = 0;
}

bool GraphOverview::drawSlice(int budgetMs)
{
    if (m_phase == Halves) {
        // The image is whole: its halved copies, then done.
        QElapsedTimer clock;
        clock.start();
        if (halveSlice(clock, budgetMs))
            return true;
        m_phase = Done;
        Q_EMIT updated();
        return false;
    }
    if (!m_active || m_phase == Done)
        return false;
    // Not before the scene has made every item: its slices come first, and a pass of the event loop does one of
    // theirs or one of these, not both.
    if (m_clusters.size() < m_totalClusters || m_edges.size() < m_totalEdges || m_nodes.size() < m_totalNodes)
        return true;
    if (m_drawing.isNull()) {
        // A slice of its own: a big image takes some milliseconds to fill.
        const QSize size(
            std::max(1, qCeil(m_source.width() * m_scale)), std::max(1, qCeil(m_source.height() * m_scale)));
        m_drawing = QImage(size, QImage::Format_ARGB32_Premultiplied);
        m_drawing.fill(m_background);
        return true;
    }
    // A redraw before the last one finished starts over on its own image (begin()).
    QElapsedTimer clock;
    clock.start();
    QPainter painter(&m_drawing);
    QTransform base;
    base.scale(m_scale, m_scale);
    base.translate(-m_source.x(), -m_source.y());
    const PlainPaintScope plain;
    QStyleOptionGraphicsItem option;
    int drawn = 0;
    auto draw = [&](QGraphicsItem* item) {
        if (!item->isVisible())
            return;
        painter.setWorldTransform(item->sceneTransform() * base);
        painter.setOpacity(item->effectiveOpacity());
        option.exposedRect = item->boundingRect();
        item->paint(&painter, &option, nullptr);
    };
    auto spent = [&] { return budgetMs >= 0 && ++drawn % 32 == 0 && clock.elapsed() >= budgetMs; };
    // In stacking order: clusters (outer ones first), edges, boxes.
    while (m_phase < Halves) {
        if (m_phase == Clusters && m_clusterOrder.isEmpty() && !m_clusters.isEmpty()) {
            m_clusterOrder = m_clusters;
            std::stable_sort(m_clusterOrder.begin(), m_clusterOrder.end(),
                [](const ClusterItem* a, const ClusterItem* b) { return a->zValue() < b->zValue(); });
        }
        const int count = m_phase == Clusters ? m_clusterOrder.size()
            : m_phase == Edges                ? m_edges.size()
                                              : m_nodes.size();
        for (; m_next < count; ++m_next) {
            if (spent())
                break;
            if (m_phase == Clusters)
                draw(m_clusterOrder.at(m_next));
            else if (m_phase == Edges)
                draw(m_edges.at(m_next));
            else
                draw(m_nodes.at(m_next));
        }
        if (m_next < count)
            break;
        m_phase = Phase(m_phase + 1);
        m_next = 0;
    }
    painter.end();
    if (m_phase == Halves && !m_drawing.isNull()) {
        m_complete = true;
        m_shown = std::exchange(m_drawing, QImage());
        m_halves.clear();
        m_halving = QImage();
        m_halvingRow = 0;
        m_first = false;
        Q_EMIT updated();
        Q_EMIT completed();
        return true;
    }
    // The first image shows as it is drawn; a redrawn one only once it is whole.
    if (m_first && drawn > 0)
        Q_EMIT updated();
    return true;
}

bool GraphOverview::halveSlice(const QElapsedTimer& clock, int budgetMs)
{
    constexpr int kSmallest = 128; // no halving below this on the longer side
    for (;;) {
        const QImage& from = m_halves.isEmpty() ? m_shown : m_halves.constLast();
        if (m_halving.isNull()) {
            if (std::max(from.width(), from.height()) <= kSmallest)
                return false;
            m_halving = QImage(std::max(1, from.width() / 2), std::max(1, from.height() / 2), from.format());
            m_halvingRow = 0;
        }
        // Each pixel the mean of four: premultiplied channels average as they are.
        const int w = m_halving.width(), h = m_halving.height();
        for (; m_halvingRow < h; ++m_halvingRow) {
            if (budgetMs >= 0 && m_halvingRow % 16 == 0 && clock.elapsed() >= budgetMs)
                return true;
            const int y0 = std::min(2 * m_halvingRow, from.height() - 1), y1 = std::min(y0 + 1, from.height() - 1);
            const auto* a = reinterpret_cast<const QRgb*>(from.constScanLine(y0));
            const auto* b = reinterpret_cast<const QRgb*>(from.constScanLine(y1));
            auto* out = reinterpret_cast<QRgb*>(m_halving.scanLine(m_halvingRow));
            for (int x = 0; x < w; ++x) {
                const int x0 = std::min(2 * x, from.width() - 1), x1 = std::min(x0 + 1, from.width() - 1);
                const QRgb p[4] = { a[x0], a[x1], b[x0], b[x1] };
                quint32 sum[4] = { 0, 0, 0, 0 };
                for (const QRgb v : p) {
                    sum[0] += qAlpha(v);
                    sum[1] += qRed(v);
                    sum[2] += qGreen(v);
                    sum[3] += qBlue(v);
                }
                out[x] = qRgba((sum[1] + 2) / 4, (sum[2] + 2) / 4, (sum[3] + 2) / 4, (sum[0] + 2) / 4);
            }
        }
        m_halves.append(std::exchange(m_halving, QImage()));
    }
}

const QImage& GraphOverview::imageFor(qreal devicePixelsPerUnit) const
{
    if (m_first || m_source.width() <= 0)
        return image();
    const QImage* best = &m_shown;
    for (const QImage& half : m_halves) {
        if (half.width() / m_source.width() < devicePixelsPerUnit
            || half.height() / m_source.height() < devicePixelsPerUnit)
            break;
        best = &half;
    }
    return *best;
}

} // namespace jitscope
