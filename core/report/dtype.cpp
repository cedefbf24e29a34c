#include "report/dtype.h"

namespace jitscope {

const QVector<DtypeInfo>& dtypes()
{
    // scalarType: c10::ScalarType's values (c10/core/ScalarType.h), which torch files static_assert.
    static const QVector<DtypeInfo> table = {
        { QStringLiteral("f32"), QStringLiteral("float32"), { QStringLiteral("float") }, QStringLiteral("Float"), 4,
            6 },
        { QStringLiteral("f64"), QStringLiteral("float64"), { QStringLiteral("double") }, QStringLiteral("Double"), 8,
            7 },
        { QStringLiteral("f16"), QStringLiteral("float16"), { QStringLiteral("half") }, QStringLiteral("Half"), 2, 5 },
        { QStringLiteral("bf16"), QStringLiteral("bfloat16"), {}, QStringLiteral("BFloat16"), 2, 15 },
        { QStringLiteral("i64"), QStringLiteral("int64"), { QStringLiteral("long") }, QStringLiteral("Long"), 8, 4 },
        { QStringLiteral("i32"), QStringLiteral("int32"), { QStringLiteral("int") }, QStringLiteral("Int"), 4, 3 },
        { QStringLiteral("i16"), QStringLiteral("int16"), { QStringLiteral("short") }, QStringLiteral("Short"), 2, 2 },
        { QStringLiteral("i8"), QStringLiteral("int8"), {}, QStringLiteral("Char"), 1, 1 },
        { QStringLiteral("u8"), QStringLiteral("uint8"), {}, QStringLiteral("Byte"), 1, 0 },
        { QStringLiteral("bool"), QStringLiteral("bool"), {}, QStringLiteral("Bool"), 1, 11 },
    };
    return table;
}

const DtypeInfo* findDtype(const QString& spelling)
{
    QString n = spelling.trimmed();
    if (n.startsWith(QLatin1String("torch.")))
        n = n.mid(6);
    for (const DtypeInfo& d : dtypes())
        if (d.name == n)
            return &d;
    return dtypeFromTorchName(n);
}

const DtypeInfo* dtypeFromTorchName(const QString& name)
{
    for (const DtypeInfo& d : dtypes())
        if (d.torchName == name || d.aliases.contains(name))
            return &d;
    return nullptr;
}

const DtypeInfo* dtypeFromIrName(const QString& irName)
{
    for (const DtypeInfo& d : dtypes())
        if (d.irName == irName)
            return &d;
    return nullptr;
}

QString dtypeShortNames()
{
    QStringList names;
    for (const DtypeInfo& d : dtypes())
        names << d.name;
    return names.join(QLatin1Char(' '));
}

int dtypeElementSize(const QString& dtype)
{
    for (const DtypeInfo& d : dtypes())
        if (d.name == dtype)
            return d.elementSize;
    return 0;
}

QString canonicalDtype(const QString& name)
{
    const DtypeInfo* d = findDtype(name);
    return d ? d->name : QString();
}

} // namespace jitscope
