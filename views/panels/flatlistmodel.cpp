#include "flatlistmodel.h"

namespace jitscope {

FlatListModel::FlatListModel(int columns, QObject* parent)
    : QAbstractTableModel(parent)
    , m_columns(columns)
{ }

int FlatListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : itemCount();
}

int FlatListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_columns;
}

QVariant FlatListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section < 0 || section >= m_columns)
        return {};
    return columnTitle(section);
}

Qt::ItemFlags FlatListModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
}

bool FlatListModel::isItem(const QModelIndex& index) const
{
    return index.isValid() && index.model() == this && index.row() < itemCount() && index.column() < m_columns;
}

} // namespace jitscope
