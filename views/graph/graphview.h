#pragma once

#include <QGraphicsView>

namespace jitscope {

class GraphScene;
class MiniMap;

/// A view on a GraphScene: Ctrl+wheel zooms about the cursor, the wheel scrolls, dragging the background pans
/// and a click still selects. Ctrl+plus/minus zoom, Ctrl+0 fits the graph.
class GraphView : public QGraphicsView
{
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);

    GraphScene* graphScene() const;

    /// Current scale factor (1 = one scene unit per pixel).
    double zoom() const;

    static constexpr double MinZoom = 0.05;
    static constexpr double MaxZoom = 8.0;

    /// Zooms by @p factor, keeping the scene point under @p viewportAnchor fixed (the centre when null).
    void zoomBy(double factor, QPoint viewportAnchor = QPoint());
    /// Sets the scale factor (clamped to MinZoom..MaxZoom) about the view's centre.
    void setZoom(double zoom);

    /// After showGraph(), fitGraph() or showMessage() the view keeps that framing when it is resized (and when a
    /// hidden tab is first shown) until the user zooms, scrolls or pans. On by default.
    void setRefitOnResize(bool refit);
    /// The whole graph small in the bottom-right corner while it does not fit the view.
    MiniMap* miniMap() const { return m_miniMap; }
    bool isAutoFramed() const { return m_refit != Refit::None; }
    /// Zoomed out over a big graph, the view paints its scene's overview image (GraphOverview) and, over it,
    /// the items that stand out, rather than every item.
    bool paintsOverview() const;

public Q_SLOTS:
    void zoomIn();
    void zoomOut();
    void resetZoom();
    /// Shows the whole graph (never magnified above 1.5x).
    void fitGraph();
    /// How a freshly laid-out graph is first shown: whole when that stays readable, else at a readable scale
    /// with the top of the graph (its inputs) in view.
    void showGraph();
    /// Shows a message card at no more than 100% so its text stays the size of the UI's.
    void showMessage();
    void centerOnNode(int nodeId);

Q_SIGNALS:
    void zoomChanged(double zoom);
    /// A context menu was asked for on the node @p nodeId (the view's scene's IrGraph node id).
    void nodeContextMenuRequested(int nodeId, const QPoint& globalPos);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    // File drops are for the main window, not for the scene.
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    enum class Refit { None, Graph, Fit, Message };
    void applyZoom(double zoom);
    void frame(Refit how);

    MiniMap* m_miniMap = nullptr;
    Refit m_refit = Refit::None;
    bool m_refitOnResize = true;
};

} // namespace jitscope
