#include "divergencemodel.h"

#include "graphitems.h"
#include "report/checkreport.h"
#include "report/reportqueries.h"

#include <QColor>
#include <QFileInfo>
#include <QFont>

namespace jitscope {

namespace {

/// internalId of a divergence row; a change row's is its divergence's index + 1.
constexpr quintptr kTopLevel = 0;

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

QColor kindColor(DivergenceKind kind)
{
    switch (kind) {
    case DivergenceKind::LoopUnrolled:
        return QColor(0x1f, 0x6f, 0xc5);
    case DivergenceKind::BranchFrozen:
        return QColor(0xb2, 0x4d, 0x00);
    case DivergenceKind::NumberBaked:
    case DivergenceKind::TensorConstant:
        return QColor(0x7b, 0x3f, 0xa8);
    case DivergenceKind::ModuleState:
        return QColor(0x00, 0x7a, 0x6c);
    case DivergenceKind::Value:
        return QColor(0xc0, 0x1c, 0x28);
    case DivergenceKind::Unexplained:
        break;
    }
    return QColor(0x6b, 0x6b, 0x6b);
}

QString placeText(const SourceLocation& at)
{
    return at.isValid() ? QStringLiteral("%1:%2").arg(QFileInfo(at.file).fileName()).arg(at.line) : QString();
}

} // namespace

DivergenceModel::DivergenceModel(QObject* parent)
    : QAbstractItemModel(parent)
{ }

void DivergenceModel::setDiff(const TraceDiff& diff, const IrGraph& base, const IrGraph& other)
{
    beginResetModel();
    m_diff = diff;
    m_base = base;
    m_other = other;
    // The engine grouped the changes (groupDivergences()): a diff that comes without divergences lists none.
    m_rowInDivergence.fill(-1, m_diff.changes.size());
    for (const Divergence& d : std::as_const(m_diff.divergences))
        for (int row = 0; row < d.changes.size(); ++row)
            m_rowInDivergence[d.changes[row]] = row;
    endResetModel();
}

void DivergenceModel::clear()
{
    beginResetModel();
    m_diff = TraceDiff();
    m_base = IrGraph();
    m_other = IrGraph();
    m_rowInDivergence.clear();
    endResetModel();
}

QModelIndex DivergenceModel::divergenceIndex(int d, int column) const
{
    return d >= 0 && d < divergenceCount() ? createIndex(d, column, kTopLevel) : QModelIndex();
}

QModelIndex DivergenceModel::changeIndex(int changeIndex, int column) const
{
    if (changeIndex < 0 || changeIndex >= m_diff.changes.size())
        return {};
    const int d = m_diff.changes[changeIndex].divergence;
    const int row = m_rowInDivergence.value(changeIndex, -1);
    if (d < 0 || row < 0)
        return {};
    return createIndex(row, column, quintptr(d + 1));
}

int DivergenceModel::divergenceOf(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this)
        return -1;
    return index.internalId() == kTopLevel ? index.row() : int(index.internalId()) - 1;
}

int DivergenceModel::changeOf(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this || index.internalId() == kTopLevel)
        return -1;
    const int d = int(index.internalId()) - 1;
    return m_diff.divergences.at(d).changes.value(index.row(), -1);
}

int DivergenceModel::changeOfNode(int nodeId, bool otherSide) const
{
    if (nodeId < 0)
        return -1;
    for (int i = 0; i < m_diff.changes.size(); ++i) {
        const NodeChange& c = m_diff.changes.at(i);
        if ((otherSide ? c.otherNode : c.baseNode) == nodeId)
            return i;
    }
    return -1;
}

QModelIndex DivergenceModel::index(int row, int column, const QModelIndex& parent) const
{
    if (column < 0 || column >= NumColumns || row < 0)
        return {};
    if (!parent.isValid())
        return row < divergenceCount() ? createIndex(row, column, kTopLevel) : QModelIndex();
    if (parent.internalId() != kTopLevel || parent.row() >= divergenceCount())
        return {};
    if (row >= m_diff.divergences.at(parent.row()).changes.size())
        return {};
    return createIndex(row, column, quintptr(parent.row() + 1));
}

QModelIndex DivergenceModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || child.internalId() == kTopLevel)
        return {};
    return createIndex(int(child.internalId()) - 1, 0, kTopLevel);
}

int DivergenceModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return divergenceCount();
    if (parent.column() != 0 || parent.internalId() != kTopLevel || parent.row() >= divergenceCount())
        return 0;
    return int(m_diff.divergences.at(parent.row()).changes.size());
}

int DivergenceModel::columnCount(const QModelIndex&) const
{
    return NumColumns;
}

Qt::ItemFlags DivergenceModel::flags(const QModelIndex& index) const
{
    return index.isValid() ? Qt::ItemIsEnabled | Qt::ItemIsSelectable : Qt::NoItemFlags;
}

QVariant DivergenceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case OpColumn:
        return tr("Divergence");
    case NodeColumn:
        return tr("Module / node");
    case CauseColumn:
        return tr("Cause");
    case LineColumn:
        return tr("Line");
    }
    return {};
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

QString DivergenceModel::toolTip(const Divergence& d) const
{
    QString tip = QStringLiteral("<b>%1</b><p>%2</p>")
                      .arg(divergenceKindTitle(d.kind).toHtmlEscaped(), d.message.toHtmlEscaped());
    if (!d.scope.isEmpty())
        tip += QStringLiteral("<p>in <code>%1</code>%2</p>")
                   .arg(d.scope.toHtmlEscaped(),
                       d.scopeType.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(d.scopeType.toHtmlEscaped()));
    if (!d.stack.isEmpty()) {
        QStringList frames;
        for (const SourceLocation& f : d.stack)
            frames << placeText(f).toHtmlEscaped();
        tip += QStringLiteral("<p>%1</p>").arg(frames.join(QStringLiteral("<br>\u2190 ")));
    }
    if (!d.evidence.isEmpty()) {
        tip += QStringLiteral("<ul>");
        for (const QString& e : d.evidence)
            tip += QStringLiteral("<li>%1</li>").arg(e.toHtmlEscaped());
        tip += QStringLiteral("</ul>");
    }
    tip += tr("<p>%1 node(s) in trace %2, %3 in trace %4</p>")
               .arg(d.baseNodes.size())
               .arg(m_diff.base + 1)
               .arg(d.otherNodes.size())
               .arg(m_diff.other + 1);
    return tip;
}

QVariant DivergenceModel::divergenceData(int di, int column, int role) const
{
    const Divergence& d = m_diff.divergences.at(di);
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case OpColumn:
            // A value divergence changes no node: it stands at one node of both traces.
            if (d.changes.isEmpty() && !d.baseNodes.isEmpty())
                return divergenceKindName(d.kind);
            return QStringLiteral("%1  (%2)").arg(divergenceKindName(d.kind)).arg(d.changes.size());
        case NodeColumn:
            return d.scope.isEmpty()
                ? tr("top module")
                : d.scope + (d.scopeType.isEmpty() ? QString() : QStringLiteral(" \u00b7 ") + d.scopeType);
        case CauseColumn:
            return d.message.isEmpty() ? QStringLiteral("\u2014") : d.message;
        case LineColumn:
            return placeText(d.location);
        }
        break;
    case Qt::ToolTipRole:
        return toolTip(d);
    case Qt::ForegroundRole:
        if (column == OpColumn)
            return kindColor(d.kind);
        break;
    case Qt::FontRole:
        if (column == OpColumn) {
            QFont font;
            font.setBold(true);
            return font;
        }
        break;
    case LineRole:
        return d.location.line;
    case CauseRole:
        return d.message;
    case KindRole:
        return divergenceKindName(d.kind);
    case ChangeRole:
        return -1;
    case DivergenceRole:
        return di;
    case BaseNodeRole:
    case OtherNodeRole:
    case ScriptNodeRole:
        return -1;
    default:
        break;
    }
    return {};
}

QVariant DivergenceModel::changeData(int ci, int column, int role) const
{
    const NodeChange& c = m_diff.changes.at(ci);
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case OpColumn:
            return opText(c.op);
        case NodeColumn:
            return nodeText(c);
        case CauseColumn:
            return c.scope.isEmpty() ? QString() : c.scope;
        case LineColumn:
            return placeText(c.location);
        }
        break;
    case Qt::ToolTipRole:
        return toolTip(c);
    case Qt::DecorationRole:
        if (column == OpColumn)
            return diffStatusColor(diffStatusOf(c.op));
        break;
    case Qt::ForegroundRole:
        if (column == OpColumn)
            return diffStatusColor(diffStatusOf(c.op)).darker(115);
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
    case KindRole:
        return divergenceKindName(c.kind);
    case ChangeRole:
        return ci;
    case DivergenceRole:
        return c.divergence;
    default:
        break;
    }
    return {};
}

QVariant DivergenceModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.model() != this)
        return {};
    if (role == Qt::TextAlignmentRole && index.column() == LineColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    const int change = changeOf(index);
    if (change >= 0)
        return changeData(change, index.column(), role);
    const int d = divergenceOf(index);
    return d >= 0 && d < divergenceCount() ? divergenceData(d, index.column(), role) : QVariant();
}

} // namespace jitscope
