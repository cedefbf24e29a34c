#pragma once

#include <QMouseEvent>
#include <QPixmap>
#include <QWidget>

class QTimer;

namespace jitscope {

class GraphScene;
class GraphView;

/// The whole graph small in a corner of its view, with the part in view outlined: a click or a drag there moves
/// the view. Shown while the graph is bigger than the view; drawn from the scene at its plain level of detail and
/// redrawn when the scene's contents or colours change (debounced), not on every scroll.
class MiniMap : public QWidget
{
    Q_OBJECT
public:
    explicit MiniMap(GraphView* view);

    /// Every view's minimap (View > Show Minimap); on by default.
    static void setEnabledEverywhere(bool enabled);
    static bool isEnabledEverywhere();

    /// The scene rectangle in view, in the minimap's coordinates.
    QRectF visibleRect() const;
    /// The scene point a minimap point stands for.
    QPointF toScene(const QPointF& point) const;
    /// Shows or hides the minimap for the view's current framing and places it in the view's bottom-right corner.
    void updatePlacement();
    /// Draws the scene again (after its contents changed), soon.
    void scheduleRender();

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override { event->accept(); }

private:
    void render();
    void moveViewTo(const QPointF& point);
    QRectF mapArea() const;
    static QSizeF scaleFor(const QRectF& contents);

    GraphView* m_view = nullptr;
    GraphScene* m_scene = nullptr; ///< the view's scene the connections are for
    QTimer* m_renderTimer = nullptr;
    QPixmap m_pixmap;
    QRectF m_source; ///< the scene rectangle the pixmap shows
};

} // namespace jitscope
