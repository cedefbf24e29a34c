#pragma once

#include "report/dtype.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace jitscope {

/// One argument of an input set: a tensor to create, a scalar, or a tuple/list/dict of those.
struct InputValue
{
    enum class Kind { Tensor, Int, Float, Bool, None, Tuple, List, Dict };
    enum class Fill { Rand, Randn, Zeros, Ones, Arange, Full, Values };

    Kind kind = Kind::None;
    // Tensor
    QString dtype = QStringLiteral("f32"); ///< canonical short name: f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool
    QVector<qint64> shape;
    Fill fill = Fill::Rand;
    double fillValue = 0; ///< for Fill::Full
    QVector<double> values; ///< for Fill::Values, row-major
    // Scalars
    qint64 intValue = 0;
    double floatValue = 0;
    bool boolValue = false;
    // Tuple, List, Dict
    QVector<InputValue> items;
    QStringList keys; ///< Dict: the key of each item, in the order written

    static InputValue tensor(const QString& dtype, QVector<qint64> shape, Fill fill = Fill::Rand);
    static InputValue integer(qint64 v);
    static InputValue real(double v);
    static InputValue boolean(bool v);

    /// The value in the CLI's SET syntax, e.g. "f32[3,4,5]", "(i64[2]=zeros,3)" or "{image: f32[3,8,8], height: 8}".
    QString toString() const;
    /// Whether this value is or holds a dict (JitScope's executor takes none; the Python bridge does).
    bool containsDict() const;
    /// Bytes the tensors of this value take once created.
    qint64 byteSize() const;
};

/// The arguments of one call, in order.
struct InputSet
{
    QVector<InputValue> args;
    int line = 0; ///< where the set was written in a .py file, 0 otherwise

    /// Arguments separated by "; " in the SET syntax.
    QString toString() const;
    bool containsDict() const;
    /// An argument is a tuple or a list: a parameter without annotation then takes the set's types (what
    /// torch.jit.trace accepts), not Tensor.
    bool hasSequenceArgument() const;
    qint64 byteSize() const;
};

struct InputParseError
{
    QString message;
    int position = 0; ///< 0-based index of the offending character
};

/// Parses the SET syntax: arguments separated by ';'; a tensor is DTYPE[d0,d1,...] with an optional
/// "=FILL" (rand, randn, zeros, ones, arange, full:V); scalars (3, 2.5, true, none); tuples (...), lists [...]
/// and dicts {key: value, ...} of these (keys are names or quoted strings), nested at most 200 levels deep.
std::optional<InputSet> parseInputSet(const QString& text, InputParseError* error = nullptr);

/// The SET syntax's name of a fill: "rand", "randn", "zeros", "ones", "arange", "full", "values".
QString toText(InputValue::Fill fill);
/// The fill the SET syntax names @p name ("randn"), or nullopt.
std::optional<InputValue::Fill> fillFromText(const QString& name);
/// "tensor", "int", "float", "bool", "none", "tuple", "list", "dict".
QString toText(InputValue::Kind kind);

} // namespace jitscope
