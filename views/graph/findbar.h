#pragma once

#include <QList>
#include <QPointer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QToolButton;

namespace jitscope {

class GraphScene;
class GraphView;

/// The find bar under the graph tabs (Ctrl+F): searches the shown graph's node kinds, output value names and
/// source lines ("line 7" or "7"). Enter or F3 selects and centres the next hit, Shift+Enter the previous one,
/// Esc closes the bar.
class FindBar : public QWidget
{
    Q_OBJECT
public:
    explicit FindBar(QWidget* parent = nullptr);

    /// The displayed nodes of @p scene matching @p query, in graph order; a folded node counts as the node that
    /// shows it.
    static QList<int> findNodes(const GraphScene* scene, const QString& query);

    /// Searches @p scene (shown by @p view) from now on; the hits are recomputed.
    void setTarget(GraphScene* scene, GraphView* view);
    GraphScene* scene() const { return m_scene; }
    void setQuery(const QString& query);
    QString query() const;
    QList<int> hits() const { return m_hits; }
    /// Index into hits() of the node last selected, -1 before the first.
    int currentHit() const { return m_current; }
    QString countText() const;
    QLineEdit* lineEdit() const { return m_edit; }

public Q_SLOTS:
    /// Shows the bar with its text selected and focused.
    void activate();
    void findNext();
    void findPrevious();
    void refresh();

Q_SIGNALS:
    void hitsChanged();

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    void goTo(int index);
    void updateCount();

    QLineEdit* m_edit = nullptr;
    QLabel* m_count = nullptr;
    QPointer<GraphScene> m_scene;
    QPointer<GraphView> m_view;
    QMetaObject::Connection m_sceneConnection;
    QList<int> m_hits;
    int m_current = -1;
};

} // namespace jitscope
