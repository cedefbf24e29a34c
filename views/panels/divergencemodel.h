#pragma once

#include "report/divergence.h"

#include <QAbstractItemModel>
#include <QVector>

namespace jitscope {

/// The differences between the two graphs of a comparison as a tree: one top-level row per Divergence (its kind,
/// module, message and line), its node changes as children (inserted, deleted or changed, the node, its line).
/// Filled from a TraceDiff value by setDiff().
class DivergenceModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Columns { OpColumn, NodeColumn, CauseColumn, LineColumn, NumColumns };
    enum Roles {
        OpRole = Qt::UserRole, ///< int: a NodeChange::Op (change rows)
        BaseNodeRole, ///< int: node id in the base (left) graph, -1 for inserts and divergence rows
        OtherNodeRole, ///< int: node id in the other (right) graph, -1 for deletes and divergence rows
        ScriptNodeRole, ///< int: the script node that recorded it, -1 if unknown
        LineRole, ///< int: 1-based source line, 0 if unknown
        CauseRole, ///< QString: why the graphs differ here
        KindRole, ///< QString: the divergence's kind name ("loop-unrolled"), on both kinds of rows
        ChangeRole, ///< int: the TraceDiff::changes index of a change row, -1 on a divergence row
        DivergenceRole, ///< int: the TraceDiff::divergences index of the row or of its parent
    };

    explicit DivergenceModel(QObject* parent = nullptr);

    /// @p base and @p other are the graphs @p diff refers to (for node kinds and tooltips).
    void setDiff(const TraceDiff& diff, const IrGraph& base, const IrGraph& other);
    void clear();
    const TraceDiff& diff() const { return m_diff; }
    int divergenceCount() const { return int(m_diff.divergences.size()); }
    int changeCount() const { return int(m_diff.changes.size()); }
    const Divergence& divergence(int d) const { return m_diff.divergences.at(d); }
    const NodeChange& change(int changeIndex) const { return m_diff.changes.at(changeIndex); }
    /// The row of divergence @p d, the row of change @p changeIndex (under its divergence).
    QModelIndex divergenceIndex(int d, int column = 0) const;
    QModelIndex changeIndex(int changeIndex, int column = 0) const;
    /// The divergence and change an index stands for (-1 for none).
    int divergenceOf(const QModelIndex& index) const;
    int changeOf(const QModelIndex& index) const;
    /// The first change involving @p nodeId on the base (left) or other (right) side, or -1.
    int changeOfNode(int nodeId, bool otherSide) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    QVariant divergenceData(int d, int column, int role) const;
    QVariant changeData(int changeIndex, int column, int role) const;
    QString nodeText(const NodeChange& change) const;
    QString toolTip(const NodeChange& change) const;
    QString toolTip(const Divergence& divergence) const;

    TraceDiff m_diff;
    IrGraph m_base;
    IrGraph m_other;
    QVector<int> m_rowInDivergence; ///< per change, its row under its divergence
};

} // namespace jitscope
