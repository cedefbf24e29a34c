#pragma once

#include "load/model.h"

#include <QAbstractItemModel>
#include <QVector>

namespace jitscope {

/// The opened model as a tree: "Functions" (with compile errors as children), "Submodules", "Parameters" and
/// "Input sets". Filled from a ModelInfo value by setModel().
class ModelTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Columns { NameColumn, DetailsColumn, NumColumns };
    enum Roles {
        FunctionNameRole = Qt::UserRole, ///< QString: the function a row shows or refers to, else empty
        SourceLineRole, ///< int: 1-based line in the model's source, 0 when unknown
        ItemKindRole, ///< int: an ItemKind
        IsErrorRole, ///< bool: a compile error row, or a function that failed to compile
    };
    enum class ItemKind { Group, Function, CompileError, Submodule, Method, Parameter, InputSet };

    explicit ModelTreeModel(QObject* parent = nullptr);

    void setModel(const ModelInfo& model);
    void clear();

    /// The row of a function under "Functions", or an invalid index.
    QModelIndex indexOfFunction(const QString& name) const;
    /// The top-level group row of @p kind (Function, Submodule, Parameter or InputSet).
    QModelIndex groupIndex(ItemKind kind) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    struct Row
    {
        ItemKind kind = ItemKind::Group;
        ItemKind groupOf = ItemKind::Group; ///< for groups: the kind of their children
        QString name;
        QString details;
        QString toolTip;
        QString functionName;
        int line = 0;
        bool error = false;
        int parent = -1; ///< index into m_rows
        int rowInParent = 0;
        QVector<int> children;
    };
    int addRow(int parent, Row row);
    const Row* rowFor(const QModelIndex& index) const;

    QVector<Row> m_rows; ///< node storage; internalId() is an index into it
    QVector<int> m_topLevel;
};

} // namespace jitscope
