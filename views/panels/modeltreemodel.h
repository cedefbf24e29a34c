#pragma once

#include "report/pythonrun.h"
#include "report/modelinfo.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QVector>

namespace jitscope {

/// The opened model as a tree: "Functions" (with compile errors as children; an archive's methods nested by module
/// path, as the graph's clusters are), "Submodules", "Parameters" and
/// "Input sets", filled from a ModelInfo value by setModel(); and once the file ran under Python (setPythonRun()),
/// first a "Python" group: the recorded torch.jit calls, the classes (instances, methods as scripting compiles
/// them, attributes, Final constants, PyTorch's scripting error) and the functions.
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
        PythonCallRole, ///< int: the PythonRun::calls index a recorded call's row shows, else -1
    };
    enum class ItemKind {
        Group,
        Function,
        CompileError,
        Submodule,
        Method,
        Parameter,
        InputSet,
        PythonCall,
        PythonClass,
        PythonMember, ///< a method, attribute or constant of a Python class
        PythonFunction,
    };

    explicit ModelTreeModel(QObject* parent = nullptr);

    void setModel(const ModelInfo& model);
    /// What the file did under Python; @p verdicts: one word per call ("diverged", "consistent", "failed", ...).
    void setPythonRun(const PythonRun& run, const QStringList& verdicts);
    void clearPythonRun();
    bool hasPythonRun() const { return m_hasPython; }
    void clear();

    /// The row of recorded call @p call under "Python", or an invalid index.
    QModelIndex indexOfCall(int call) const;
    /// The row of a function under "Functions" (an archive's: under its module's rows), or an invalid index.
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
        int call = -1; ///< PythonCall rows
        int parent = -1; ///< index into m_rows
        int rowInParent = 0;
        QVector<int> children;
    };
    int addRow(int parent, Row row);
    /// A compile or scripting error under @p parent: its first line, its line number, the whole message as tooltip.
    int addErrorRow(int parent, const Diagnostic& error, const QString& functionName = {});
    void rebuild();
    void addPythonRows();
    const Row* rowFor(const QModelIndex& index) const;

    QVector<Row> m_rows; ///< node storage; internalId() is an index into it
    QVector<int> m_topLevel;
    QHash<QString, int> m_functionRows; ///< function name -> its row under "Functions"
    ModelInfo m_model;
    bool m_hasModel = false;
    PythonRun m_python;
    QStringList m_verdicts;
    bool m_hasPython = false;
};

} // namespace jitscope
