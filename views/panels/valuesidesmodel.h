#pragma once

#include "report/divergence.h"

#include <QAbstractTableModel>

namespace jitscope {

/// A value divergence's values in both runs, side by side (Divergence::values): the node's value, then its operands,
/// trace 1's in one column and the other run's (Python, the script function) in the next. Rows whose two values
/// differ are shown in bold: the node's own, and the operand that explains it.
class ValueSidesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { WhatColumn, TraceColumn, OtherColumn, ColumnCount };

    explicit ValueSidesModel(QObject* parent = nullptr);

    /// Shows @p divergence's values, found on input set @p set (0-based); an empty one clears the model.
    void setDivergence(const Divergence& divergence, int set);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVector<ValueRow> m_rows;
    QString m_otherRun;
    int m_set = 0;
};

} // namespace jitscope
