#include "framesmodel.h"

#include <QFont>

namespace jitscope {

FramesModel::FramesModel(QObject* parent)
    : FlatListModel(NumColumns, parent)
{ }

void FramesModel::setFrames(const QVector<ExecFrame>& frames)
{
    beginResetModel();
    m_frames = frames;
    endResetModel();
}

void FramesModel::clear()
{
    beginResetModel();
    m_frames.clear();
    endResetModel();
}

QString FramesModel::describe(const ExecFrame& frame)
{
    switch (frame.kind) {
    case ExecFrame::Kind::Function:
        return frame.line > 0 ? tr("%1 (called at line %2)").arg(frame.name).arg(frame.line) : frame.name;
    case ExecFrame::Kind::Loop: {
        const QString iteration = frame.iterations >= 0
            ? tr("iteration %1 of %2").arg(frame.iteration + 1).arg(frame.iterations)
            : tr("iteration %1").arg(frame.iteration + 1);
        return tr("loop at line %1 \u2014 %2").arg(frame.line).arg(iteration);
    }
    case ExecFrame::Kind::Branch:
        return tr("if at line %1 \u2014 %2").arg(frame.line).arg(frame.branch == 1 ? tr("else") : tr("then"));
    }
    return frame.name;
}

QVariant FramesModel::data(const QModelIndex& index, int role) const
{
    if (!isItem(index))
        return {};
    const ExecFrame& f = m_frames.at(index.row());
    const bool innermost = index.row() == m_frames.size() - 1;
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == FrameColumn)
            return describe(f);
        if (index.column() == LineColumn)
            return f.line > 0 ? QVariant(f.line) : QVariant(QString());
        break;
    case Qt::ToolTipRole:
        return describe(f);
    case Qt::FontRole:
        if (innermost) {
            QFont font;
            font.setBold(true);
            return font;
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == LineColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case KindRole:
        return int(f.kind);
    case LineRole:
        return f.line;
    case ScriptNodeRole:
        return f.scriptNode;
    case IterationRole:
        return f.kind == ExecFrame::Kind::Loop ? f.iteration + 1 : -1;
    case IterationsRole:
        return f.kind == ExecFrame::Kind::Loop ? f.iterations : qint64(-1);
    case BranchRole:
        return f.kind == ExecFrame::Kind::Branch ? f.branch : -1;
    case InnermostRole:
        return innermost;
    default:
        break;
    }
    return {};
}

int FramesModel::itemCount() const
{
    return int(m_frames.size());
}

QString FramesModel::columnTitle(int column) const
{
    switch (column) {
    case FrameColumn:
        return tr("Frame");
    case LineColumn:
        return tr("Line");
    }
    return {};
}

} // namespace jitscope
