#include "valuesidesmodel.h"

#include <QFont>

namespace jitscope {

ValueSidesModel::ValueSidesModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void ValueSidesModel::setDivergence(const Divergence& divergence, int set)
{
    beginResetModel();
    m_rows = divergence.values;
    m_otherRun = divergence.otherRun;
    m_set = set;
    endResetModel();
    Q_EMIT headerDataChanged(Qt::Horizontal, TraceColumn, OtherColumn);
}

void ValueSidesModel::clear()
{
    setDivergence(Divergence(), 0);
}

int ValueSidesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ValueSidesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ValueSidesModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const ValueRow& row = m_rows.at(index.row());
    const bool differ = !row.other.isEmpty() && row.trace != row.other;
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        switch (index.column()) {
        case WhatColumn: return row.what;
        case TraceColumn: return row.trace;
        case OtherColumn:
            if (!row.other.isEmpty())
                return row.other;
            // The node's own value: the other run has none there; an operand: nothing of the other run's to set
            // beside it.
            return index.row() == 0 ? tr("(no such value)") : QStringLiteral("\u2014");
        default: return {};
        }
    case Qt::FontRole:
        if (differ) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::UserRole: // the two values differ
        return differ;
    default: return {};
    }
}

QVariant ValueSidesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case WhatColumn: return tr("Value");
    case TraceColumn: return tr("Trace 1 on set %1").arg(m_set + 1);
    case OtherColumn:
        return m_otherRun.isEmpty() ? tr("Other run") : tr("%1 on set %2").arg(m_otherRun, QString::number(m_set + 1));
    default: return {};
    }
}

} // namespace jitscope
