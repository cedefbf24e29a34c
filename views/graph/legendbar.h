#pragma once

#include "report/graphlayout.h"

#include <QVector>
#include <QWidget>

namespace jitscope {

class GraphScene;

/// A key to the node colours of a GraphScene: one swatch per op category shown, wrapped into as many rows as
/// the width needs. Lives beside the view rather than over it so it never hides part of the graph.
class LegendBar : public QWidget
{
    Q_OBJECT
public:
    explicit LegendBar(QWidget* parent = nullptr);

    /// Follows @p scene's contents from now on.
    void setScene(GraphScene* scene);
    void setCategories(const QVector<OpCategory>& categories);
    QVector<OpCategory> categories() const { return m_categories; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    /// Height of the bar when it is @p width wide.
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    /// Top-left corners of each entry when laid out in @p width.
    QVector<QPoint> entryPositions(int width) const;
    int entryWidth(OpCategory category) const;
    int rowHeight() const;
    void fitHeight();

    GraphScene* m_scene = nullptr;
    QVector<OpCategory> m_categories;
};

} // namespace jitscope
