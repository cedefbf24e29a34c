#include "divergencemodel.h"

#include "comparison.h"
#include "graphitems.h"

#include <QColor>
#include <QFont>

namespace jitscope {

namespace {

DiffStatus statusOf(NodeChange::Op op)
{
    switch (op) {
    case NodeChange::Op::Insert:
        return DiffStatus::Inserted;
    case NodeChange::Op::Delete:
        return DiffStatus::Deleted;
    case NodeChange::Op::Change:
        break;
    }
    return DiffStatus::Changed;
}

QString opText(NodeChange::Op op)
{
    switch (op) {
    case NodeChange::Op::Insert:
        return QStringLiteral("+ inserted");
    case NodeChange::Op::Delete:
        return QStringLiteral("\u2212 deleted");
    case NodeChange::Op::Change:
        break;
    }
    return QStringLiteral("~ changed");
}

bool validNode(const IrGraph& graph, int id)
{
    return id >= 0 && id < graph.nodes.size();
}

} // namespace

DivergenceModel::DivergenceModel(QObject* parent)
    : FlatListModel(NumColumns, parent)
{ }

void DivergenceModel::setDiff(const TraceDiff& diff, const IrGraph& base, const IrGraph& other)
{
    beginResetModel();
    m_diff = diff;
    m_base = base;
    m_other = other;
    endResetModel();
}

void DivergenceModel::clear()
{
    beginResetModel();
    m_diff = TraceDiff();
    m_base = IrGraph();
    m_other = IrGraph();
    endResetModel();
}

int DivergenceModel::rowOfNode(int nodeId, bool otherSide) const
{
    if (nodeId < 0)
        return -1;
    for (int row = 0; row < m_diff.changes.size(); ++row) {
        const NodeChange& c = m_diff.changes.at(row);
        if ((otherSide ? c.otherNode : c.baseNode) == nodeId)
            return row;
    }
    return -1;
}

QString DivergenceModel::nodeText(const NodeChange& c) const
{
    const QString baseKind = validNode(m_base, c.baseNode) ? m_base.node(c.baseNode).kind : QString();
    const QString otherKind = validNode(m_other, c.otherNode) ? m_other.node(c.otherNode).kind : QString();
    if (c.op == NodeChange::Op::Change && baseKind != otherKind)
        return baseKind + QStringLiteral(" \u2192 ") + otherKind;
    const QString kind = otherKind.isEmpty() ? baseKind : otherKind;
    const QString label = c.otherNode >= 0 ? nodeLabel(m_other, c.otherNode) : nodeLabel(m_base, c.baseNode);
    return label.isEmpty() || label == kind ? kind : QStringLiteral("%1  %2").arg(kind, label);
}

QString DivergenceModel::toolTip(const NodeChange& c) const
{
    QString tip = QStringLiteral("<b>%1</b>").arg(opText(c.op).toHtmlEscaped());
    if (!c.cause.isEmpty())
        tip += QStringLiteral("<p>%1</p>").arg(c.cause.toHtmlEscaped());
    auto line = [](const IrGraph& graph, int id) {
        return QStringLiteral("<pre style='white-space:pre-wrap'>%1</pre>").arg(graph.nodeLine(id).toHtmlEscaped());
    };
    if (validNode(m_base, c.baseNode))
        tip += QStringLiteral("<i>trace %1:</i>").arg(m_diff.base + 1) + line(m_base, c.baseNode);
    if (validNode(m_other, c.otherNode))
        tip += QStringLiteral("<i>trace %1:</i>").arg(m_diff.other + 1) + line(m_other, c.otherNode);
    return tip;
}

QVariant DivergenceModel::data(const QModelIndex& index, int role) const
{
    if (!isItem(index))
        return {};
    const NodeChange& c = m_diff.changes.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case OpColumn:
            return opText(c.op);
        case NodeColumn:
            return nodeText(c);
        case CauseColumn:
            return c.cause.isEmpty() ? QStringLiteral("\u2014") : c.cause;
        case LineColumn:
            return c.location.line > 0 ? QVariant(c.location.line) : QVariant(QString());
        }
        break;
    case Qt::ToolTipRole:
        return toolTip(c);
    case Qt::DecorationRole:
        if (index.column() == OpColumn)
            return diffStatusColor(statusOf(c.op));
        break;
    case Qt::ForegroundRole:
        if (index.column() == OpColumn)
            return diffStatusColor(statusOf(c.op)).darker(115);
        break;
    case Qt::FontRole:
        if (index.column() == OpColumn) {
            QFont font;
            font.setBold(true);
            return font;
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == LineColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case OpRole:
        return int(c.op);
    case BaseNodeRole:
        return c.baseNode;
    case OtherNodeRole:
        return c.otherNode;
    case ScriptNodeRole:
        return c.scriptNode;
    case LineRole:
        return c.location.line;
    case CauseRole:
        return c.cause;
    default:
        break;
    }
    return {};
}

int DivergenceModel::itemCount() const
{
    return int(m_diff.changes.size());
}

QString DivergenceModel::columnTitle(int column) const
{
    switch (column) {
    case OpColumn:
        return tr("Change");
    case NodeColumn:
        return tr("Node");
    case CauseColumn:
        return tr("Cause");
    case LineColumn:
        return tr("Line");
    }
    return {};
}

} // namespace jitscope
