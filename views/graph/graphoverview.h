#pragma once

#include <QElapsedTimer>
#include <QImage>
#include <QList>
#include <QObject>
#include <QRectF>
#include <QTimer>

class QGraphicsItem;

namespace jitscope {

class ClusterItem;
class EdgeItem;
class NodeItem;

/// The whole of a big graph drawn once into an image, so that a view zoomed out over thousands of boxes paints one
/// image instead of every item: painting an item costs the view about 3.5 us whatever its size on screen, 120 ms
/// for ViT-H/14's 33,000 items fitted to the window, on every frame of a zoom or a scroll.
///
/// The image is drawn from the event loop in slices of a few milliseconds once the scene has made its items
/// (clusters, then edges, then boxes: their stacking order), each item as it paints itself below the plain level
/// of detail; then halved copies. Views show it as it is drawn. When the items' looks change (diff
/// colours, dimming, the theme) it is drawn again into a new image while the last one is still shown. Items that
/// stand out (the selection, linked boxes, the execution marker) are painted by the view on top of it, at their
/// full detail.
class GraphOverview : public QObject
{
    Q_OBJECT
public:
    /// Graphs of fewer items paint fast enough as items: no overview.
    static constexpr int MinItems = 8000;
    /// The image's size: at most this many pixels, at most this long on either side.
    static constexpr qint64 MaxPixels = 12'000'000;
    static constexpr int MaxSide = 16384;

    /// Draws from @p clusters, @p edges and @p nodes (a scene's lists, which grow while the scene is built, up to
    /// the totals given to start()).
    GraphOverview(const QList<ClusterItem*>& clusters, const QList<EdgeItem*>& edges, const QList<NodeItem*>& nodes,
        QObject* parent = nullptr);

    /// Starts drawing @p source (the graph's bounds) on @p background, for @p clusters, @p edges and @p nodes
    /// items in all; false (and no image) when there are too few of them to need one.
    bool start(const QRectF& source, const QColor& background, int clusters, int edges, int nodes);
    /// Draws the same items again into a new image (their looks changed), on @p background when it is valid; the
    /// current image is shown until then.
    void redraw(const QColor& background = QColor());
    /// Drops the image (the items are going away).
    void clear();

    /// The graph has an overview, drawn or being drawn.
    bool isActive() const { return m_active; }
    /// Every item is in the image shown.
    bool isComplete() const { return m_complete; }
    /// Complete, with its halved copies made: nothing left to draw.
    bool isFinished() const { return m_complete && m_phase == Done; }
    /// The image shown (null until the first is begun), and the scene rectangle it covers.
    const QImage& image() const { return m_first ? m_drawing : m_shown; }
    /// The smallest of the image and its halved copies (made once it is whole) that still has @p
    /// devicePixelsPerUnit pixels per scene unit: what a view or a map that small draws, so that scaling it down
    /// averages a few pixels rather than skipping most (a grid of boxes would come out as a coarser grid).
    const QImage& imageFor(qreal devicePixelsPerUnit) const;
    QRectF source() const { return m_source; }
    /// Image pixels per scene unit.
    qreal scale() const { return m_scale; }
    /// A view showing @p devicePixelsPerUnit device pixels per scene unit paints this image, not the items: the
    /// graph has an overview whose image has at least that resolution. Blank while the scene is built, then drawn
    /// as it is drawn: never a frame that visits every item.
    bool covers(qreal devicePixelsPerUnit) const { return m_active && devicePixelsPerUnit <= m_scale * 1.0001; }
    /// The scale the image is drawn at for a graph of @p bounds.
    static qreal scaleFor(const QRectF& bounds);

    /// Draws the next slice now (tests; the event loop does it otherwise); false when nothing is left to draw.
    bool drawSlice(int budgetMs);

Q_SIGNALS:
    /// More of the image was drawn (the first image), or a new image replaced the shown one.
    void updated();
    /// Every item has been drawn.
    void completed();

private:
    /// What the next slice does: draw clusters, edges or boxes (their stacking order), halve the image, nothing.
    enum Phase { Clusters, Edges, Nodes, Halves, Done };

    void begin();
    /// Makes rows of the next halved copy until @p clock passes @p budgetMs; false when none is left to make.
    bool halveSlice(const QElapsedTimer& clock, int budgetMs);

    const QList<ClusterItem*>& m_clusters;
    const QList<EdgeItem*>& m_edges;
    const QList<NodeItem*>& m_nodes;
    QImage m_shown; ///< the last complete image
    QList<QImage> m_halves; ///< m_shown halved, halved again...: made after it, in slices
    QImage m_halving; ///< the next of m_halves, being made
    int m_halvingRow = 0;
    QImage m_drawing; ///< being drawn (never shares its pixels with m_shown: a painter on it would copy them)
    bool m_first = false; ///< m_drawing is the first image, shown as it is drawn
    bool m_active = false;
    QRectF m_source;
    QColor m_background;
    qreal m_scale = 0;
    int m_totalClusters = 0, m_totalEdges = 0, m_totalNodes = 0;
    QList<ClusterItem*> m_clusterOrder; ///< clusters by depth, once all are made
    Phase m_phase = Clusters;
    int m_next = 0; ///< next item of the phase
    bool m_complete = false;
    QTimer m_timer;
};

} // namespace jitscope
