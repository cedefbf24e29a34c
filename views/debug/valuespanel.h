#pragma once

#include <QSplitter>
#include <QStringList>

class QLabel;
class QModelIndex;
class QTreeView;

namespace jitscope {

class ValuesModel;

/// The Values dock: the live variables of the paused debug session, and beside them the value picked (a tensor's
/// statistics and a heat map of a 2-D slice). Each pause resets the model; the value of the same name stays current
/// and its row expanded, as debuggers do.
class ValuesPanel : public QSplitter
{
    Q_OBJECT
public:
    explicit ValuesPanel(QWidget* parent = nullptr);

    ValuesModel* model() const { return m_valuesModel; }
    QTreeView* view() const { return m_valuesView; }

private:
    void onValueCurrentChanged(const QModelIndex& index);

    ValuesModel* m_valuesModel = nullptr;
    QTreeView* m_valuesView = nullptr;
    QLabel* m_heatMapLabel = nullptr;
    QLabel* m_valueDetailLabel = nullptr;
    QStringList m_expandedValues; ///< names of the Values rows expanded before the last pause
    QString m_currentValue; ///< the Values row the user made current last
    bool m_pickingValue = false; ///< the panel, not the user, is making a Values row current
};

} // namespace jitscope
