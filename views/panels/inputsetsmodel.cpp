#include "inputsetsmodel.h"

#include <QColor>
#include <QLocale>

namespace jitscope {

namespace {
const QColor kInvalidBackground(0xff, 0xdd, 0xdd);
const QColor kInvalidText(0xa4, 0x0e, 0x26);
const QString kDefaultSet = QStringLiteral("f32[2,3]");
} // namespace

InputSetsModel::InputSetsModel(QObject* parent)
    : FlatListModel(NumColumns, parent)
{ }

InputSetsModel::Row InputSetsModel::makeRow(const QString& text)
{
    Row row;
    row.text = text;
    row.set = parseInputSet(text, &row.error);
    if (row.set)
        row.error = InputParseError();
    return row;
}

void InputSetsModel::setSets(const QVector<InputSet>& sets)
{
    QStringList texts;
    for (const InputSet& set : sets)
        texts << set.toString();
    setTexts(texts);
}

void InputSetsModel::setTexts(const QStringList& texts)
{
    beginResetModel();
    m_rows.clear();
    for (const QString& text : texts)
        m_rows.append(makeRow(text));
    endResetModel();
}

QStringList InputSetsModel::texts() const
{
    QStringList result;
    for (const Row& row : m_rows)
        result << row.text;
    return result;
}

QVector<InputSet> InputSetsModel::sets(bool* ok) const
{
    QVector<InputSet> result;
    bool all = true;
    for (const Row& row : m_rows) {
        if (row.set)
            result.append(*row.set);
        else
            all = false;
    }
    if (ok)
        *ok = all;
    return result;
}

int InputSetsModel::invalidCount() const
{
    int n = 0;
    for (const Row& row : m_rows)
        n += row.set ? 0 : 1;
    return n;
}

int InputSetsModel::firstInvalidRow() const
{
    for (int i = 0; i < m_rows.size(); ++i) {
        if (!m_rows.at(i).set)
            return i;
    }
    return -1;
}

int InputSetsModel::addSet(const QString& text)
{
    const QString initial = !text.isEmpty() ? text : m_rows.isEmpty() ? kDefaultSet : m_rows.constLast().text;
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.append(makeRow(initial));
    endInsertRows();
    Q_EMIT setsEdited();
    return row;
}

int InputSetsModel::duplicateSet(int row)
{
    if (row < 0 || row >= m_rows.size())
        return -1;
    beginInsertRows({}, row + 1, row + 1);
    const Row copy = m_rows.at(row);
    m_rows.insert(row + 1, copy);
    endInsertRows();
    Q_EMIT setsEdited();
    return row + 1;
}

bool InputSetsModel::removeSet(int row)
{
    return removeRows(row, 1);
}

int InputSetsModel::moveSet(int row, int delta)
{
    const int target = row + delta;
    if (row < 0 || row >= m_rows.size() || target < 0 || target >= m_rows.size() || delta == 0)
        return -1;
    // moveRows() takes the destination as the row to insert before, counted before the move.
    const int destination = delta > 0 ? target + 1 : target;
    return moveRows({}, row, 1, {}, destination) ? target : -1;
}

QString InputSetsModel::errorToolTip(const QString& text, const InputParseError& error)
{
    const int position = qBound(0, error.position, int(text.size()));
    return QStringLiteral("<b>%1</b> (at character %2)<pre>%3\n%4^</pre>")
        .arg(error.message.toHtmlEscaped())
        .arg(position + 1)
        .arg(text.toHtmlEscaped(), QString(position, QLatin1Char(' ')));
}

QVariant InputSetsModel::data(const QModelIndex& index, int role) const
{
    if (!isItem(index))
        return {};
    const Row& row = m_rows.at(index.row());
    const bool valid = row.set.has_value();
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == SetColumn)
            return row.text;
        if (!valid)
            return row.error.message;
        return QStringLiteral("%1 \u00b7 %2")
            .arg(index.row() == 0 ? tr("traced") : tr("check"),
                QLocale::c().formattedDataSize(row.set->byteSize(), 1, QLocale::DataSizeTraditionalFormat));
    case Qt::EditRole:
        return index.column() == SetColumn ? QVariant(row.text) : QVariant();
    case Qt::ToolTipRole:
        if (!valid)
            return errorToolTip(row.text, row.error);
        return index.row() == 0 ? tr("Traced: the trace is recorded on this input set")
                                : tr("Check input: the trace of set 1 is compared with a trace on this set");
    case Qt::BackgroundRole:
        return valid ? QVariant() : QVariant(kInvalidBackground);
    case Qt::ForegroundRole:
        if (!valid)
            return kInvalidText;
        if (index.column() == InfoColumn)
            return QColor(0x6b, 0x72, 0x80);
        break;
    case ValidRole:
        return valid;
    case ErrorRole:
        return valid ? QString() : row.error.message;
    case ErrorPositionRole:
        return valid ? -1 : row.error.position;
    case TextRole:
        return row.text;
    default:
        break;
    }
    return {};
}

bool InputSetsModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || index.column() != SetColumn || role != Qt::EditRole || index.row() >= m_rows.size())
        return false;
    const QString text = value.toString().trimmed();
    if (text == m_rows.at(index.row()).text)
        return true;
    m_rows[index.row()] = makeRow(text);
    Q_EMIT dataChanged(this->index(index.row(), 0), this->index(index.row(), NumColumns - 1));
    Q_EMIT setsEdited();
    return true;
}

bool InputSetsModel::insertRows(int row, int count, const QModelIndex& parent)
{
    if (parent.isValid() || row < 0 || row > m_rows.size() || count <= 0)
        return false;
    beginInsertRows(parent, row, row + count - 1);
    for (int i = 0; i < count; ++i)
        m_rows.insert(row, makeRow(kDefaultSet));
    endInsertRows();
    // Row 0 is the traced set: its role may have moved to another row.
    Q_EMIT dataChanged(index(0, InfoColumn), index(int(m_rows.size()) - 1, InfoColumn));
    Q_EMIT setsEdited();
    return true;
}

bool InputSetsModel::removeRows(int row, int count, const QModelIndex& parent)
{
    if (parent.isValid() || row < 0 || count <= 0 || row + count > m_rows.size())
        return false;
    beginRemoveRows(parent, row, row + count - 1);
    m_rows.remove(row, count);
    endRemoveRows();
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, InfoColumn), index(0, InfoColumn));
    Q_EMIT setsEdited();
    return true;
}

bool InputSetsModel::moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
    const QModelIndex& destinationParent, int destinationChild)
{
    if (sourceParent.isValid() || destinationParent.isValid() || count <= 0 || sourceRow < 0
        || sourceRow + count > m_rows.size() || destinationChild < 0 || destinationChild > m_rows.size())
        return false;
    // Moving a block into itself or right after itself is a no-op Qt refuses.
    if (destinationChild >= sourceRow && destinationChild <= sourceRow + count)
        return false;
    if (!beginMoveRows(sourceParent, sourceRow, sourceRow + count - 1, destinationParent, destinationChild))
        return false;
    const QVector<Row> moved = m_rows.mid(sourceRow, count);
    m_rows.remove(sourceRow, count);
    const int insertAt = destinationChild > sourceRow ? destinationChild - count : destinationChild;
    for (int i = 0; i < count; ++i)
        m_rows.insert(insertAt + i, moved.at(i));
    endMoveRows();
    // The first row's role (traced/check) depends on its position.
    Q_EMIT dataChanged(index(0, InfoColumn), index(int(m_rows.size()) - 1, InfoColumn));
    Q_EMIT setsEdited();
    return true;
}

int InputSetsModel::itemCount() const
{
    return int(m_rows.size());
}

QString InputSetsModel::columnTitle(int column) const
{
    switch (column) {
    case SetColumn:
        return tr("Input set");
    case InfoColumn:
        return tr("Role \u00b7 size");
    }
    return {};
}

QVariant InputSetsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Vertical && role == Qt::DisplayRole)
        return section + 1;
    return FlatListModel::headerData(section, orientation, role);
}

Qt::ItemFlags InputSetsModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = FlatListModel::flags(index);
    if (index.isValid() && index.column() == SetColumn)
        f |= Qt::ItemIsEditable;
    return f;
}

} // namespace jitscope
