#pragma once

#include "report/runvalues.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QImage>
#include <QVector>

namespace jitscope {

/// The live values of a paused debug session, one top-level row per named value: its short value, type, shape,
/// dtype, device, statistics and NaN/Inf counts. Values that changed since the previous pause (or appeared) are
/// highlighted. A tensor row expands to the first elements, a row per run of its last dimension; tuples and
/// lists expand to their items. Filled from a pause's values by setValues().
class ValuesModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Columns {
        NameColumn,
        ValueColumn,
        TypeColumn,
        ShapeColumn,
        DTypeColumn,
        DeviceColumn,
        MinColumn,
        MaxColumn,
        MeanColumn,
        StdColumn,
        NanColumn,
        InfColumn,
        NumColumns
    };
    enum Roles {
        NameRole = Qt::UserRole, ///< QString: the variable (top-level rows), item or element range
        KindRole, ///< QString: ValueSummary::kind ("tensor", "int", ...); empty for element rows
        ShapeRole, ///< QVariantList of qint64
        SumRole, ///< double: tensors: the sum of the elements
        ChangedRole, ///< bool: differs from the previous pause's value, or is new
        HeatMapRole, ///< QImage: tensors with a 2-D slice, coloured by value; null otherwise
        PreviewRole, ///< QVariantList of double: tensors: the first elements
        ElementRowRole, ///< bool: a row of a tensor's elements rather than a value
    };

    explicit ValuesModel(QObject* parent = nullptr);

    /// Shows @p values; those whose summary differs from the value of the same name last shown are marked changed,
    /// unless resetChanges() was called since.
    void setValues(const QVector<NamedValue>& values);
    /// The next setValues() marks nothing as changed (a new session).
    void resetChanges();
    void clear();
    const QVector<NamedValue>& values() const { return m_values; }
    /// The top-level row of the value named @p name, or -1.
    int rowOfName(const QString& name) const;
    /// The summary shown at @p index (for element rows, the tensor's), or nullptr.
    const ValueSummary* summary(const QModelIndex& index) const;

    /// A picture of @p value's 2-D slice: one pixel per element, diverging blue-white-red around zero when the
    /// values have both signs, else a dark-to-light ramp; NaN magenta, infinities black. Null without a slice.
    static QImage heatMap(const ValueSummary& value);
    /// A number as the views print it (4 significant digits, "nan", "inf").
    static QString number(double value);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    struct Item
    {
        int parent = -1; ///< index into m_items, -1 for top-level rows
        int row = 0;
        QString name;
        const ValueSummary* value = nullptr; ///< points into m_values (stable until the next reset)
        bool elements = false; ///< an element row of the parent tensor
        QString elementsText;
        QVector<int> children;
        bool changed = false;
    };
    int addItem(int parent, const QString& name, const ValueSummary* value);
    void addChildren(int item);
    QVariant valueData(const Item& item, int column, int role) const;

    QVector<NamedValue> m_values;
    QVector<Item> m_items;
    QVector<int> m_topLevel;
    QHash<QString, QString> m_previous; ///< name -> signature of the value last shown
    bool m_markChanges = false;
};

} // namespace jitscope
