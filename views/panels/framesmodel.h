#pragma once

#include "execute/run.h"

#include <QAbstractItemModel>
#include <QVector>

namespace jitscope {

/// Where a paused debug session stands, one row per ExecFrame, outermost first: the function, then each enclosing
/// loop iteration ("loop at line 6 — iteration 2 of 3") and branch ("if at line 9 — then"). The last row is the
/// innermost frame. Filled from a pause's frames by setFrames().
class FramesModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Columns { FrameColumn, LineColumn, NumColumns };
    enum Roles {
        KindRole = Qt::UserRole, ///< int: an ExecFrame::Kind
        LineRole, ///< int: 1-based source line of the loop, branch or call; 0 if none
        ScriptNodeRole, ///< int: the loop or if node in the script graph, -1 if none
        IterationRole, ///< int: loops: 1-based iteration; else -1
        IterationsRole, ///< qint64: loops: the trip count, -1 when unknown
        BranchRole, ///< int: ifs: 0 then, 1 else; else -1
        InnermostRole, ///< bool: the frame execution is in
    };

    explicit FramesModel(QObject* parent = nullptr);

    void setFrames(const QVector<ExecFrame>& frames);
    void clear();
    const QVector<ExecFrame>& frames() const { return m_frames; }
    /// "loop_in_traced_fn", "loop at line 6 — iteration 2 of 3", "if at line 9 — then".
    static QString describe(const ExecFrame& frame);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    QVector<ExecFrame> m_frames;
};

} // namespace jitscope
