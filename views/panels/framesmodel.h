#pragma once

#include "report/runvalues.h"
#include "flatlistmodel.h"

#include <QVector>

namespace jitscope {

/// Where a paused debug session stands, one row per ExecFrame, outermost first: the function, then each enclosing
/// loop iteration ("loop at line 6 — iteration 2 of 3") and branch ("if at line 9 — then"). The last row is the
/// innermost frame. Filled from a pause's frames by setFrames().
class FramesModel : public FlatListModel
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

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    int itemCount() const override;
    QString columnTitle(int column) const override;

private:
    QVector<ExecFrame> m_frames;
};

} // namespace jitscope
