#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

namespace jitscope {

/// One tensor dtype an input set can make, and each name it goes by.
struct DtypeInfo
{
    QString name; ///< canonical short name, as the SET syntax writes it: "f32"
    QString torchName; ///< Python's torch.float32 without "torch.": "float32"
    QStringList aliases; ///< torch's other names for it, also accepted by the SET syntax: "float"
    QString irName; ///< the scalar type as libtorch's IR and c10::toString() print it: "Float"
    int elementSize = 0; ///< bytes per element
    int scalarType = 0; ///< the c10::ScalarType's value (core's torch files check it with static_assert)
};

/// Every dtype of the SET syntax, in the order error messages list them: f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool.
const QVector<DtypeInfo>& dtypes();
/// The dtype with any of its spellings (short name, torch name, alias; "torch." prefix and blanks allowed), or
/// nullptr.
const DtypeInfo* findDtype(const QString& spelling);
/// The dtype torch calls @p name (torch.float32 or torch.float without "torch."; not the short name), or nullptr.
const DtypeInfo* dtypeFromTorchName(const QString& name);
/// The dtype of an IR scalar type ("Float", "Long", as TensorInfo::dtype holds it), or nullptr.
const DtypeInfo* dtypeFromIrName(const QString& irName);
/// "f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool": the short names, for messages.
QString dtypeShortNames();

/// Size in bytes of one element of a dtype in canonical short form, 0 if unknown.
int dtypeElementSize(const QString& dtype);
/// Maps a dtype spelling (f32, float, float32, torch.float32, long, ...) to the canonical short name, or empty.
QString canonicalDtype(const QString& name);

} // namespace jitscope
