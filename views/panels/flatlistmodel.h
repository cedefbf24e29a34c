#pragma once

#include <QAbstractTableModel>
#include <QString>

namespace jitscope {

/// Base of the panels' flat lists (one row per item of a result value, a fixed set of columns): rows and columns
/// only at the root, items enabled, selectable and without children, the columns' titles in the horizontal
/// header. A subclass says how many items it holds and what its columns are called, and provides data().
class FlatListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    int rowCount(const QModelIndex& parent = {}) const final;
    int columnCount(const QModelIndex& parent = {}) const final;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

protected:
    /// @p columns is the subclass's NumColumns.
    FlatListModel(int columns, QObject* parent);

    /// The number of rows.
    virtual int itemCount() const = 0;
    /// The title of @p column in the horizontal header.
    virtual QString columnTitle(int column) const = 0;
    /// True when @p index is one of this model's cells; data() starts with it.
    bool isItem(const QModelIndex& index) const;

private:
    int m_columns = 0;
};

} // namespace jitscope
