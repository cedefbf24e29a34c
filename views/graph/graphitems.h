#pragma once

#include "report/graphlayout.h"
#include "report/marks.h"

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QPainterPath>
#include <QStringList>

namespace jitscope {

/// Fill colour of a node box of the given category (a light palette; borders are derived from it).
QColor categoryColor(OpCategory category);
/// Graph colours for a dark background (scene background, node fills and text, edges); light by default.
/// Scenes repaint with GraphScene::applyTheme().
void setDarkGraphTheme(bool dark);
bool isDarkGraphTheme();
QColor graphBackgroundColor();

/// Strong colour of a diff status (borders, badges, legend swatches) in the graph theme, from the one table of marks
/// (report/marks.h); invalid for Unchanged.
QColor diffStatusColor(DiffStatus status);
/// Light fill of a node box with that status; invalid for Unchanged.
QColor diffStatusFill(DiffStatus status);
QString diffStatusName(DiffStatus status);

/// While one exists, every item paints its plain form (a filled box, a hairline, a frame) whatever its state: what
/// GraphOverview draws, with the items that stand out painted over it by the view.
class PlainPaintScope
{
public:
    PlainPaintScope();
    ~PlainPaintScope();
    PlainPaintScope(const PlainPaintScope&) = delete;
    PlainPaintScope& operator=(const PlainPaintScope&) = delete;
    static bool isActive();
};

/// A laid-out graph node or graph input/output terminal: a rounded box with the op kind in bold and the
/// folded constants/attributes below it. Stores the IrGraph node id, never a pointer into core.
class NodeItem : public QGraphicsItem
{
public:
    enum { Type = QGraphicsItem::UserType + 1 };

    /// @p layoutIndex is the index into GraphLayout::nodes; @p fontSize the layout's font size in scene units.
    NodeItem(const LayoutNode& node, int layoutIndex, double fontSize = 10);

    int type() const override { return Type; }
    int nodeId() const { return m_nodeId; }
    int layoutIndex() const { return m_layoutIndex; }
    LayoutNode::Role role() const { return m_role; }
    OpCategory category() const { return m_category; }
    QString title() const { return m_title; }
    QColor fillColor() const { return m_fill; }
    bool isHovered() const { return m_hovered; }

    /// Colours the box as inserted, deleted or changed in a comparison.
    void setDiffStatus(DiffStatus status);
    DiffStatus diffStatus() const { return m_status; }
    /// Drawn faded, for unchanged nodes of a comparison that should step back.
    void setDimmed(bool dimmed);
    bool isDimmed() const { return m_dimmed; }
    /// A halo for nodes linked to the selection elsewhere (the trace nodes a script node recorded), with an
    /// optional tag above the box ("iteration 2").
    void setLinked(bool linked, const QString& tag = QString());
    bool isLinked() const { return m_linked; }
    QString linkTag() const { return m_tag; }
    /// A warning badge in the top-right corner; empty removes it.
    void setWarning(const QString& message);
    QString warning() const { return m_warning; }
    /// The debugger's marker: execution is paused before this node (an amber ring and an arrow at the left).
    void setExecutionMarker(bool current);
    bool hasExecutionMarker() const { return m_current; }
    /// A red dot on the top-left corner: a breakpoint is set on the node's line.
    void setBreakpoint(bool breakpoint);
    bool hasBreakpoint() const { return m_breakpoint; }

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    void fitFonts();

    int m_nodeId = -1;
    int m_layoutIndex = -1;
    LayoutNode::Role m_role = LayoutNode::Role::Node;
    OpCategory m_category = OpCategory::Other;
    QString m_title;
    QStringList m_details;
    QRectF m_rect; ///< box in item coordinates, centred on the item's position
    QColor m_fill;
    QFont m_titleFont;
    QFont m_detailFont;
    QFont m_tagFont;
    bool m_hovered = false;
    DiffStatus m_status = DiffStatus::Unchanged;
    bool m_dimmed = false;
    bool m_linked = false;
    QString m_tag;
    QString m_warning;
    bool m_current = false;
    bool m_breakpoint = false;
};

/// An edge drawn from Graphviz's cubic Bezier control points, with an arrow head at the target box and an
/// optional label (tensor shape or value name).
class EdgeItem : public QGraphicsItem
{
public:
    enum { Type = QGraphicsItem::UserType + 2 };

    /// @p targetBox is the scene rectangle of the target node, used to put the arrow tip on its border.
    EdgeItem(const LayoutEdge& edge, int edgeIndex, const QRectF& targetBox, double fontSize = 10);

    int type() const override { return Type; }
    int edgeIndex() const { return m_edgeIndex; }
    int fromIndex() const { return m_fromIndex; }
    int toIndex() const { return m_toIndex; }
    int valueId() const { return m_valueId; }
    QString label() const { return m_label; }
    QPainterPath path() const { return m_path; }

    /// Drawn in the selection colour while one of its end nodes is selected.
    void setHighlighted(bool highlighted);
    bool isHighlighted() const { return m_highlighted; }
    void setDimmed(bool dimmed);
    bool isDimmed() const { return m_dimmed; }

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QRectF labelRect() const;

    int m_edgeIndex = -1;
    int m_fromIndex = -1;
    int m_toIndex = -1;
    int m_valueId = -1;
    QString m_label;
    QPointF m_labelPos;
    QFont m_labelFont;
    QPainterPath m_path;
    QPolygonF m_arrow;
    QRectF m_bounds;
    bool m_highlighted = false;
    bool m_dimmed = false;
};

/// The body of a prim::Loop or prim::If block: a translucent rounded rectangle with a title bar, drawn below
/// the nodes. Nested blocks are separate items that refer to their parent by cluster index.
class ClusterItem : public QGraphicsItem
{
public:
    enum { Type = QGraphicsItem::UserType + 3 };
    enum class Kind { Loop, If, Block, Module };

    ClusterItem(const LayoutCluster& cluster, int clusterIndex, Kind kind, int depth, double fontSize = 10);

    int type() const override { return Type; }
    int clusterIndex() const { return m_clusterIndex; }
    int parentCluster() const { return m_parentCluster; }
    int nodeId() const { return m_nodeId; }
    int blockIndex() const { return m_blockIndex; }
    int depth() const { return m_depth; }
    Kind kind() const { return m_kind; }
    QString title() const { return m_title; }
    QRectF rect() const { return m_rect; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    int m_clusterIndex = -1;
    int m_parentCluster = -1;
    int m_nodeId = -1;
    int m_blockIndex = 0;
    int m_depth = 0;
    Kind m_kind = Kind::Block;
    QString m_title;
    QRectF m_rect;
    QFont m_font;
};

/// A card with a title and a body text, shown instead of a graph (welcome text, load or compile errors).
class MessageItem : public QGraphicsItem
{
public:
    enum { Type = QGraphicsItem::UserType + 4 };
    enum class Kind { Info, Error };

    MessageItem(const QString& title, const QString& text, Kind kind);

    int type() const override { return Type; }
    Kind kind() const { return m_kind; }
    QString title() const { return m_title; }
    QString text() const { return m_text; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    Kind m_kind;
    QString m_title;
    QString m_text;
    QFont m_titleFont;
    QFont m_textFont;
    QRectF m_rect;
    QRectF m_textRect;
};

} // namespace jitscope
