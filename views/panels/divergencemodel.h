#pragma once

#include "diff/tracediff.h"
#include "flatlistmodel.h"

#include <QVector>

namespace jitscope {

/// The changes between the two graphs of a comparison, one row per NodeChange: what happened (inserted, deleted,
/// changed), the node, why and where. Filled from a TraceDiff value by setDiff().
class DivergenceModel : public FlatListModel
{
    Q_OBJECT
public:
    enum Columns { OpColumn, NodeColumn, CauseColumn, LineColumn, NumColumns };
    enum Roles {
        OpRole = Qt::UserRole, ///< int: a NodeChange::Op
        BaseNodeRole, ///< int: node id in the base (left) graph, -1 for inserts
        OtherNodeRole, ///< int: node id in the other (right) graph, -1 for deletes
        ScriptNodeRole, ///< int: the script node that recorded it, -1 if unknown
        LineRole, ///< int: 1-based source line, 0 if unknown
        CauseRole, ///< QString: why the graphs differ here
    };

    explicit DivergenceModel(QObject* parent = nullptr);

    /// @p base and @p other are the graphs @p diff refers to (for node kinds and tooltips).
    void setDiff(const TraceDiff& diff, const IrGraph& base, const IrGraph& other);
    void clear();
    const TraceDiff& diff() const { return m_diff; }
    const NodeChange& change(int row) const { return m_diff.changes.at(row); }
    /// The first row whose change involves @p nodeId on the base (left) or other (right) side, or -1.
    int rowOfNode(int nodeId, bool otherSide) const;

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    int itemCount() const override;
    QString columnTitle(int column) const override;

private:
    QString nodeText(const NodeChange& change) const;
    QString toolTip(const NodeChange& change) const;

    TraceDiff m_diff;
    IrGraph m_base;
    IrGraph m_other;
};

} // namespace jitscope
