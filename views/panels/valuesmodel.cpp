#include "valuesmodel.h"

#include <QColor>
#include <QFont>

#include <algorithm>
#include <cmath>

namespace jitscope {

namespace {

constexpr int kElementsPerRow = 8;
constexpr int kValuePreviewElements = 4;
const QColor kChangedBackground(0xff, 0xed, 0xb5);
const QColor kBadCountColor(0xcf, 0x22, 0x2e);
const QColor kElementColor(0x4b, 0x55, 0x63);

qint64 elementCount(const ValueSummary& v)
{
    qint64 n = 1;
    for (qint64 d : v.shape)
        n *= d;
    return n;
}

/// Everything a pause shows of a value, to tell whether it changed since the last pause.
QString signature(const ValueSummary& v)
{
    QString s = v.kind + QLatin1Char('|') + v.dtype + QLatin1Char('|') + shapeText(v.shape) + QLatin1Char('|') + v.text
        + QLatin1Char('|') + QString::number(v.sum, 'g', 17) + QLatin1Char('|') + QString::number(v.nanCount)
        + QLatin1Char('|') + QString::number(v.infCount);
    for (double p : v.preview)
        s += QLatin1Char(',') + QString::number(p, 'g', 17);
    for (const ValueSummary& item : v.items)
        s += QLatin1Char('(') + signature(item) + QLatin1Char(')');
    return s;
}

QRgb lerp(QRgb a, QRgb b, double t)
{
    return qRgb(int(qRed(a) + (qRed(b) - qRed(a)) * t), int(qGreen(a) + (qGreen(b) - qGreen(a)) * t),
        int(qBlue(a) + (qBlue(b) - qBlue(a)) * t));
}

QRgb ramp(const QVector<QRgb>& stops, double t)
{
    t = qBound(0.0, t, 1.0) * (stops.size() - 1);
    const int i = qMin(int(t), int(stops.size()) - 2);
    return lerp(stops.at(i), stops.at(i + 1), t - i);
}

} // namespace

ValuesModel::ValuesModel(QObject* parent)
    : QAbstractItemModel(parent)
{ }

QString ValuesModel::number(double value)
{
    if (std::isnan(value))
        return QStringLiteral("nan");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(value, 'g', 4);
}

void ValuesModel::setValues(const QVector<NamedValue>& values)
{
    beginResetModel();
    m_values = values;
    m_items.clear();
    m_topLevel.clear();
    QHash<QString, QString> signatures;
    for (int i = 0; i < m_values.size(); ++i) {
        const NamedValue& v = m_values.at(i);
        const int item = addItem(-1, v.name, &v.value);
        const QString sig = signature(v.value);
        m_items[item].changed = m_markChanges && m_previous.value(v.name) != sig;
        signatures.insert(v.name, sig);
    }
    m_previous = signatures;
    m_markChanges = true;
    endResetModel();
}

void ValuesModel::resetChanges()
{
    m_markChanges = false;
    m_previous.clear();
}

void ValuesModel::clear()
{
    beginResetModel();
    m_values.clear();
    m_items.clear();
    m_topLevel.clear();
    endResetModel();
}

int ValuesModel::addItem(int parent, const QString& name, const ValueSummary* value)
{
    Item item;
    item.parent = parent;
    item.name = name;
    item.value = value;
    const int id = int(m_items.size());
    QVector<int>& siblings = parent < 0 ? m_topLevel : m_items[parent].children;
    item.row = int(siblings.size());
    siblings.append(id);
    m_items.append(item);
    addChildren(id);
    return id;
}

void ValuesModel::addChildren(int id)
{
    const ValueSummary* v = m_items.at(id).value;
    if (!v)
        return;
    if (v->kind == QLatin1String("tuple") || v->kind == QLatin1String("list")) {
        for (int i = 0; i < v->items.size(); ++i)
            addItem(id, QStringLiteral("[%1]").arg(i), &v->items.at(i));
        return;
    }
    if (v->kind != QLatin1String("tensor") || v->shape.isEmpty() || v->preview.isEmpty())
        return;
    // Runs of the last dimension, at most kElementsPerRow long, labelled with their index ("[0, 1, 0:5]").
    const qint64 last = qMax<qint64>(1, v->shape.last());
    const int shown = int(v->preview.size());
    for (int f = 0; f < shown;) {
        const qint64 column = f % last;
        const int length = int(std::min({ last - column, qint64(kElementsPerRow), qint64(shown - f) }));
        QStringList index;
        qint64 rest = f / last;
        for (int d = int(v->shape.size()) - 2; d >= 0; --d) {
            const qint64 size = qMax<qint64>(1, v->shape.at(d));
            index.prepend(QString::number(rest % size));
            rest /= size;
        }
        index << (column == 0 && length == last ? QStringLiteral(":")
                                                : QStringLiteral("%1:%2").arg(column).arg(column + length));
        QStringList numbers;
        for (int k = 0; k < length; ++k)
            numbers << number(v->preview.at(f + k));
        Item item;
        item.parent = id;
        item.name = QLatin1Char('[') + index.join(QStringLiteral(", ")) + QLatin1Char(']');
        item.value = v;
        item.elements = true;
        item.elementsText = numbers.join(QStringLiteral("  "));
        item.row = int(m_items[id].children.size());
        m_items[id].children.append(int(m_items.size()));
        m_items.append(item);
        f += length;
    }
    const qint64 total = elementCount(*v);
    if (total > shown) {
        Item item;
        item.parent = id;
        item.name = QStringLiteral("\u2026");
        item.value = v;
        item.elements = true;
        item.elementsText = tr("%1 more elements (the first %2 are shown)").arg(total - shown).arg(shown);
        item.row = int(m_items[id].children.size());
        m_items[id].children.append(int(m_items.size()));
        m_items.append(item);
    }
}

int ValuesModel::rowOfName(const QString& name) const
{
    for (int row = 0; row < m_topLevel.size(); ++row) {
        if (m_items.at(m_topLevel.at(row)).name == name)
            return row;
    }
    return -1;
}

const ValueSummary* ValuesModel::summary(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    return m_items.at(int(index.internalId())).value;
}

QImage ValuesModel::heatMap(const ValueSummary& value)
{
    const int rows = value.sliceRows;
    const int columns = value.sliceColumns;
    if (rows <= 0 || columns <= 0 || value.slice.size() < qint64(rows) * columns)
        return {};
    double lo = 0, hi = 0;
    bool any = false;
    for (float f : value.slice) {
        if (!std::isfinite(f))
            continue;
        lo = any ? qMin(lo, double(f)) : f;
        hi = any ? qMax(hi, double(f)) : f;
        any = true;
    }
    const bool diverging = lo < 0 && hi > 0;
    const double scale = diverging ? qMax(-lo, hi) : hi - lo;
    static const QVector<QRgb> sequential = { qRgb(0x44, 0x01, 0x54), qRgb(0x3b, 0x52, 0x8b), qRgb(0x21, 0x90, 0x8d),
        qRgb(0x5d, 0xc8, 0x63), qRgb(0xfd, 0xe7, 0x25) };
    static const QVector<QRgb> twoSided = { qRgb(0x21, 0x66, 0xac), qRgb(0xf7, 0xf7, 0xf7), qRgb(0xb2, 0x18, 0x2b) };
    QImage image(columns, rows, QImage::Format_RGB32);
    for (int r = 0; r < rows; ++r) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(r));
        for (int c = 0; c < columns; ++c) {
            const float f = value.slice.at(r * columns + c);
            if (std::isnan(f))
                line[c] = qRgb(0xff, 0x00, 0xff);
            else if (std::isinf(f))
                line[c] = qRgb(0, 0, 0);
            else if (scale <= 0)
                line[c] = ramp(sequential, 0.5);
            else if (diverging)
                line[c] = ramp(twoSided, 0.5 + f / (2 * scale));
            else
                line[c] = ramp(sequential, (f - lo) / scale);
        }
    }
    return image;
}

QModelIndex ValuesModel::index(int row, int column, const QModelIndex& parent) const
{
    if (column < 0 || column >= NumColumns || row < 0)
        return {};
    const QVector<int>& rows = parent.isValid() ? m_items.at(int(parent.internalId())).children : m_topLevel;
    if (parent.isValid() && parent.column() != 0)
        return {};
    if (row >= rows.size())
        return {};
    return createIndex(row, column, quintptr(rows.at(row)));
}

QModelIndex ValuesModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const int parent = m_items.at(int(child.internalId())).parent;
    if (parent < 0)
        return {};
    return createIndex(m_items.at(parent).row, 0, quintptr(parent));
}

int ValuesModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return int(m_topLevel.size());
    if (parent.column() != 0)
        return 0;
    return int(m_items.at(int(parent.internalId())).children.size());
}

int ValuesModel::columnCount(const QModelIndex&) const
{
    return NumColumns;
}

bool ValuesModel::hasChildren(const QModelIndex& parent) const
{
    return rowCount(parent) > 0;
}

QVariant ValuesModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    const Item& item = m_items.at(int(index.internalId()));
    const ValueSummary& v = *item.value;
    const bool tensor = v.kind == QLatin1String("tensor");
    switch (role) {
    case NameRole:
        return item.name;
    case KindRole:
        return item.elements ? QString() : v.kind;
    case ShapeRole: {
        QVariantList shape;
        for (qint64 d : v.shape)
            shape << d;
        return shape;
    }
    case SumRole:
        return v.sum;
    case ChangedRole:
        return item.changed;
    case HeatMapRole:
        return tensor && !item.elements ? heatMap(v) : QImage();
    case PreviewRole: {
        QVariantList preview;
        for (double p : v.preview)
            preview << p;
        return preview;
    }
    case ElementRowRole:
        return item.elements;
    case Qt::BackgroundRole:
        if (item.changed)
            return kChangedBackground;
        break;
    case Qt::FontRole:
        if (item.changed && index.column() == NameColumn) {
            QFont font;
            font.setBold(true);
            return font;
        }
        break;
    default:
        break;
    }
    if (item.elements) {
        if (role == Qt::DisplayRole && index.column() == NameColumn)
            return item.name;
        if (role == Qt::DisplayRole && index.column() == ValueColumn)
            return item.elementsText;
        if (role == Qt::ForegroundRole)
            return kElementColor;
        if (role == Qt::ToolTipRole)
            return item.elementsText;
        return {};
    }
    if (role == Qt::DisplayRole && index.column() == NameColumn)
        return item.name;
    return valueData(item, index.column(), role);
}

QVariant ValuesModel::valueData(const Item& item, int column, int role) const
{
    const ValueSummary& v = *item.value;
    const bool tensor = v.kind == QLatin1String("tensor");
    const bool stats = tensor && !v.preview.isEmpty();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case ValueColumn: {
            if (!tensor)
                return v.text;
            if (v.preview.isEmpty())
                return v.text;
            if (v.shape.isEmpty())
                return number(v.preview.first());
            QStringList numbers;
            for (int i = 0; i < qMin(kValuePreviewElements, int(v.preview.size())); ++i)
                numbers << number(v.preview.at(i));
            if (elementCount(v) > kValuePreviewElements)
                numbers << QStringLiteral("\u2026");
            return QLatin1Char('[') + numbers.join(QStringLiteral(", ")) + QLatin1Char(']');
        }
        case TypeColumn:
            return v.kind;
        case ShapeColumn:
            return tensor ? shapeText(v.shape) : QString();
        case DTypeColumn:
            return v.dtype;
        case DeviceColumn:
            return v.device;
        case MinColumn:
            return stats ? number(v.min) : QString();
        case MaxColumn:
            return stats ? number(v.max) : QString();
        case MeanColumn:
            return stats ? number(v.mean) : QString();
        case StdColumn:
            return stats ? number(v.std) : QString();
        case NanColumn:
            return stats ? QString::number(v.nanCount) : QString();
        case InfColumn:
            return stats ? QString::number(v.infCount) : QString();
        }
        break;
    case Qt::ForegroundRole:
        if ((column == NanColumn && v.nanCount > 0) || (column == InfColumn && v.infCount > 0))
            return kBadCountColor;
        break;
    case Qt::TextAlignmentRole:
        if (column >= MinColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole: {
        if (!tensor)
            return QStringLiteral("%1 = %2").arg(item.name, v.text);
        QString tip = QStringLiteral("<b>%1</b>: %2 %3 on %4")
                          .arg(item.name.toHtmlEscaped(), v.dtype, shapeText(v.shape), v.device);
        if (stats) {
            tip += QStringLiteral("<br/>min %1 \u00b7 max %2 \u00b7 mean %3 \u00b7 std %4 \u00b7 sum %5")
                       .arg(number(v.min), number(v.max), number(v.mean), number(v.std), number(v.sum));
            if (v.nanCount > 0 || v.infCount > 0)
                tip += QStringLiteral("<br/><span style='color:#cf222e'>%1 NaN, %2 Inf</span>")
                           .arg(v.nanCount)
                           .arg(v.infCount);
        }
        return tip;
    }
    default:
        break;
    }
    return {};
}

QVariant ValuesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Name");
    case ValueColumn:
        return tr("Value");
    case TypeColumn:
        return tr("Type");
    case ShapeColumn:
        return tr("Shape");
    case DTypeColumn:
        return tr("Dtype");
    case DeviceColumn:
        return tr("Device");
    case MinColumn:
        return tr("Min");
    case MaxColumn:
        return tr("Max");
    case MeanColumn:
        return tr("Mean");
    case StdColumn:
        return tr("Std");
    case NanColumn:
        return tr("NaN");
    case InfColumn:
        return tr("Inf");
    }
    return {};
}

Qt::ItemFlags ValuesModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (rowCount(index.siblingAtColumn(0)) == 0)
        f |= Qt::ItemNeverHasChildren;
    return f;
}

} // namespace jitscope
