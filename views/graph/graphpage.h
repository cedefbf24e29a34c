#pragma once

#include <QWidget>

class QPushButton;

namespace jitscope {

class GraphScene;
class GraphView;
class LegendBar;
struct GraphLayout;
struct IrGraph;

/// One graph on screen: a GraphView on its GraphScene, an optional header above (the live trace's line, the compare
/// panes' graph pickers) and the legend below, and the states between a graph and none: a message, an error, an
/// empty graph. The Script tab, each trace tab, the Live trace tab and both sides of Compare are one each.
class GraphPage : public QWidget
{
    Q_OBJECT
public:
    enum class Legend { Shown, None };
    explicit GraphPage(Legend legend = Legend::Shown, QWidget* parent = nullptr);

    GraphScene* scene() const { return m_scene; }
    GraphView* view() const { return m_view; }
    LegendBar* legend() const { return m_legend; }
    /// Puts @p header above the graph (the page takes it).
    void setHeader(QWidget* header);
    /// Frames the graph or message it shows; off for pages whose framing someone else does (Compare's panes).
    void setFramesContents(bool frame) { m_frame = frame; }

    /// A message instead of a graph: "Loading…", a compile error (@p isError: drawn as an error). With @p action, a
    /// button under the graph's place offers it (actionTriggered()) until the page shows something else.
    void showMessage(
        const QString& title, const QString& text = QString(), bool isError = false, const QString& action = QString());
    /// The action the message offers, empty when none.
    QString messageAction() const;
    /// Presses the action button (as a user would).
    void triggerAction();
    /// What showLayout() showed.
    enum class Shown { Graph, LayoutError, Empty };
    /// Shows @p graph laid out as @p layout; when Graphviz failed (layout.error), "Graphviz could not lay out
    /// @p what" with its error; when the layout has no boxes, @p emptyTitle and @p emptyText.
    Shown showLayout(const IrGraph& graph, const GraphLayout& layout, const QString& what, const QString& emptyTitle,
        const QString& emptyText = QString());

Q_SIGNALS:
    /// The button of showMessage()'s action was pressed.
    void actionTriggered();

private:
    QWidget* m_actionBar = nullptr;
    QPushButton* m_action = nullptr;
    GraphScene* m_scene = nullptr;
    GraphView* m_view = nullptr;
    LegendBar* m_legend = nullptr;
    bool m_frame = true;
};

} // namespace jitscope
