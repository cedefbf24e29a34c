#include "warningsmodel.h"

#include <QColor>
#include <QIcon>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

namespace jitscope {

namespace {

const QColor kErrorColor(0xcf, 0x22, 0x2e);
const QColor kWarningColor(0xf5, 0xb7, 0x00);

QIcon severityIcon(WarningsModel::Severity severity)
{
    // Drawn rather than taken from the style: Fusion has no small warning icons and themes differ.
    QPixmap pixmap(32, 32);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    if (severity == WarningsModel::Severity::Error) {
        p.setPen(Qt::NoPen);
        p.setBrush(kErrorColor);
        p.drawEllipse(QRectF(3, 3, 26, 26));
        p.setPen(QPen(Qt::white, 3.5, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(QPointF(11, 11), QPointF(21, 21));
        p.drawLine(QPointF(21, 11), QPointF(11, 21));
    } else {
        QPainterPath triangle;
        triangle.moveTo(16, 3);
        triangle.lineTo(30, 28);
        triangle.lineTo(2, 28);
        triangle.closeSubpath();
        p.setPen(QPen(kWarningColor.darker(140), 1.5));
        p.setBrush(kWarningColor);
        p.drawPath(triangle);
        p.setPen(QPen(QColor(0x3d, 0x29, 0x00), 3.5, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(QPointF(16, 11), QPointF(16, 19));
        p.drawPoint(QPointF(16, 24));
    }
    p.end();
    return QIcon(pixmap);
}

} // namespace

WarningsModel::WarningsModel(QObject* parent)
    : FlatListModel(NumColumns, parent)
{ }

void WarningsModel::setWarnings(const QVector<TraceWarning>& warnings, const QStringList& inputSets)
{
    beginResetModel();
    m_warnings = warnings;
    m_inputSets = inputSets;
    endResetModel();
}

void WarningsModel::clear()
{
    beginResetModel();
    m_warnings.clear();
    m_inputSets.clear();
    endResetModel();
}

int WarningsModel::count(Severity severity) const
{
    int n = 0;
    for (const TraceWarning& w : m_warnings)
        n += severityOf(w.kind) == severity ? 1 : 0;
    return n;
}

QVariant WarningsModel::data(const QModelIndex& index, int role) const
{
    if (!isItem(index))
        return {};
    const TraceWarning& w = m_warnings.at(index.row());
    const Severity severity = severityOf(w.kind);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case KindColumn:
            return warningKindName(w.kind);
        case MessageColumn:
            return w.message.simplified();
        case InputSetColumn: {
            const QString set = m_inputSets.value(w.traceIndex);
            return set.isEmpty() ? QString::number(w.traceIndex + 1)
                                 : QStringLiteral("%1 \u00b7 %2").arg(w.traceIndex + 1).arg(set);
        }
        case LineColumn:
            return w.location.line > 0 ? QVariant(w.location.line) : QVariant(QString());
        }
        break;
    case Qt::DecorationRole:
        if (index.column() == KindColumn) {
            static const QIcon error = severityIcon(Severity::Error);
            static const QIcon warning = severityIcon(Severity::Warning);
            return severity == Severity::Error ? error : warning;
        }
        break;
    case Qt::ForegroundRole:
        if (index.column() == KindColumn && severity == Severity::Error)
            return kErrorColor;
        break;
    case Qt::ToolTipRole: {
        QString tip = QStringLiteral("<b>%1</b> (input set %2)<p>%3</p>")
                          .arg(warningKindName(w.kind).toHtmlEscaped())
                          .arg(w.traceIndex + 1)
                          .arg(w.message.toHtmlEscaped());
        if (!w.suggestion.isEmpty())
            tip += QStringLiteral("<p><i>Fix:</i> %1</p>").arg(w.suggestion.toHtmlEscaped());
        return tip;
    }
    case Qt::TextAlignmentRole:
        if (index.column() == LineColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case KindRole:
        return warningKindName(w.kind);
    case SeverityRole:
        return int(severity);
    case TraceIndexRole:
        return w.traceIndex;
    case TraceNodeRole:
        return w.traceNode;
    case ScriptNodeRole:
        return w.scriptNode;
    case LineRole:
        return w.location.line;
    case SuggestionRole:
        return w.suggestion;
    default:
        break;
    }
    return {};
}

int WarningsModel::itemCount() const
{
    return int(m_warnings.size());
}

QString WarningsModel::columnTitle(int column) const
{
    switch (column) {
    case KindColumn:
        return tr("Kind");
    case MessageColumn:
        return tr("Message");
    case InputSetColumn:
        return tr("Input set");
    case LineColumn:
        return tr("Line");
    }
    return {};
}

} // namespace jitscope
