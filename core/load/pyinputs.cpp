// The input sets a .py file writes as `inputs = ...` / `check_inputs = ...`: a tiny evaluator for their literal
// expressions (torch.rand(3, 4), tuples, lists, numbers), parseInputsExpression().

#include "load/pysource.h"

#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace jitscope {

namespace {

struct PyObj
{
    enum class Kind { Int, Float, Bool, None, Str, Name, Tuple, List, Tensor } kind = Kind::None;
    double number = 0;
    QString text; ///< Str or Name (dotted)
    QVector<PyObj> items;
    InputValue tensor;
};

class ExprParser
{
public:
    ExprParser(const QString& s)
        : m_s(s)
    { }

    std::optional<PyObj> parseAll(InputParseError* error)
    {
        auto v = parseExpr();
        skipSpace();
        if (v && m_pos < m_s.size())
            setError(QStringLiteral("unexpected '%1'").arg(m_s[m_pos]));
        if (!m_error.message.isEmpty()) {
            if (error)
                *error = m_error;
            return std::nullopt;
        }
        return v;
    }

private:
    void skipSpace()
    {
        while (m_pos < m_s.size()) {
            if (m_s[m_pos].isSpace() || m_s[m_pos] == QLatin1Char('\\')) {
                ++m_pos;
            } else if (m_s[m_pos] == QLatin1Char('#')) {
                while (m_pos < m_s.size() && m_s[m_pos] != QLatin1Char('\n'))
                    ++m_pos;
            } else {
                break;
            }
        }
    }
    bool accept(QChar c)
    {
        skipSpace();
        if (m_pos < m_s.size() && m_s[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    void setError(const QString& msg, int pos = -1)
    {
        if (m_error.message.isEmpty())
            m_error = { msg, pos < 0 ? m_pos : pos };
    }

    std::optional<PyObj> parseSequence(QChar close, PyObj::Kind kind)
    {
        PyObj seq;
        seq.kind = kind;
        bool sawComma = false;
        while (!accept(close)) {
            auto item = parseExpr();
            if (!item)
                return std::nullopt;
            seq.items.push_back(*item);
            if (accept(QLatin1Char(','))) {
                sawComma = true;
                continue;
            }
            if (!accept(close)) {
                setError(QStringLiteral("expected ',' or '%1'").arg(close));
                return std::nullopt;
            }
            break;
        }
        if (kind == PyObj::Kind::Tuple && seq.items.size() == 1 && !sawComma)
            return seq.items.first(); // parenthesised expression, not a tuple
        return seq;
    }

    std::optional<PyObj> parseExpr()
    {
        skipSpace();
        if (m_pos >= m_s.size()) {
            setError(QStringLiteral("unexpected end of expression"));
            return std::nullopt;
        }
        const int start = m_pos;
        const QChar c = m_s[m_pos];
        if (c == QLatin1Char('(')) {
            ++m_pos;
            return parseSequence(QLatin1Char(')'), PyObj::Kind::Tuple);
        }
        if (c == QLatin1Char('[')) {
            ++m_pos;
            return parseSequence(QLatin1Char(']'), PyObj::Kind::List);
        }
        if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            const int end = m_s.indexOf(c, m_pos + 1);
            if (end < 0) {
                setError(QStringLiteral("unterminated string"));
                return std::nullopt;
            }
            PyObj s;
            s.kind = PyObj::Kind::Str;
            s.text = m_s.mid(m_pos + 1, end - m_pos - 1);
            m_pos = end + 1;
            return s;
        }
        if (c.isDigit() || c == QLatin1Char('-') || c == QLatin1Char('+') || c == QLatin1Char('.')) {
            static const QRegularExpression num(
                QStringLiteral("[-+]?\\s*(\\d[\\d_]*\\.?[\\d_]*([eE][-+]?\\d+)?|\\.\\d+([eE][-+]?\\d+)?)"));
            auto m
                = num.match(m_s, m_pos, QRegularExpression::NormalMatch, QRegularExpression::AnchorAtOffsetMatchOption);
            if (!m.hasMatch()) {
                setError(QStringLiteral("expected a number"));
                return std::nullopt;
            }
            QString t = m.captured(0);
            t.remove(QLatin1Char('_')).remove(QLatin1Char(' '));
            m_pos = m.capturedEnd();
            PyObj n;
            const bool isFloat
                = t.contains(QLatin1Char('.')) || t.contains(QLatin1Char('e')) || t.contains(QLatin1Char('E'));
            n.kind = isFloat ? PyObj::Kind::Float : PyObj::Kind::Int;
            n.number = t.toDouble();
            // TorchScript's ints are 64-bit (found by tests/fuzz: a 96-digit dimension converted to qint64).
            if (!isFloat && !(n.number < 9223372036854775808.0)) {
                m_pos = m.capturedStart();
                setError(QStringLiteral("integer %1 does not fit in a 64-bit int").arg(t.left(40)));
                return std::nullopt;
            }
            return n;
        }
        if (c.isLetter() || c == QLatin1Char('_')) {
            static const QRegularExpression ident(
                QStringLiteral("[A-Za-z_][A-Za-z0-9_]*(\\s*\\.\\s*[A-Za-z_][A-Za-z0-9_]*)*"));
            auto m = ident.match(
                m_s, m_pos, QRegularExpression::NormalMatch, QRegularExpression::AnchorAtOffsetMatchOption);
            QString name = m.captured(0);
            name.remove(QLatin1Char(' '));
            m_pos = m.capturedEnd();
            if (name == QLatin1String("True") || name == QLatin1String("False")) {
                PyObj b;
                b.kind = PyObj::Kind::Bool;
                b.number = name == QLatin1String("True");
                return b;
            }
            if (name == QLatin1String("None"))
                return PyObj {};
            if (accept(QLatin1Char('(')))
                return parseCall(name, start);
            PyObj n;
            n.kind = PyObj::Kind::Name;
            n.text = name;
            return n;
        }
        setError(QStringLiteral("unexpected '%1'").arg(c));
        return std::nullopt;
    }

    std::optional<PyObj> parseCall(const QString& name, int start)
    {
        QVector<PyObj> args;
        QHash<QString, PyObj> kwargs;
        while (!accept(QLatin1Char(')'))) {
            skipSpace();
            static const QRegularExpression kw(QStringLiteral("([A-Za-z_][A-Za-z0-9_]*)\\s*=(?!=)"));
            auto m
                = kw.match(m_s, m_pos, QRegularExpression::NormalMatch, QRegularExpression::AnchorAtOffsetMatchOption);
            QString key;
            if (m.hasMatch()) {
                key = m.captured(1);
                m_pos = m.capturedEnd();
            }
            auto v = parseExpr();
            if (!v)
                return std::nullopt;
            if (key.isEmpty())
                args.push_back(*v);
            else
                kwargs.insert(key, *v);
            if (!accept(QLatin1Char(','))) {
                if (!accept(QLatin1Char(')'))) {
                    setError(QStringLiteral("expected ',' or ')'"));
                    return std::nullopt;
                }
                break;
            }
        }
        return makeTensor(name, args, kwargs, start);
    }

    static bool toShape(const QVector<PyObj>& args, QVector<qint64>& shape)
    {
        QVector<PyObj> dims = args;
        if (args.size() == 1 && (args[0].kind == PyObj::Kind::Tuple || args[0].kind == PyObj::Kind::List))
            dims = args[0].items;
        for (const PyObj& d : dims) {
            if (d.kind != PyObj::Kind::Int || d.number < 0)
                return false;
            shape.push_back(qint64(d.number));
        }
        return true;
    }

    static bool flatten(
        const PyObj& o, QVector<qint64>& shape, int depth, QVector<double>& values, bool& anyFloat, bool& allBool)
    {
        if (o.kind == PyObj::Kind::List || o.kind == PyObj::Kind::Tuple) {
            if (shape.size() == depth)
                shape.push_back(o.items.size());
            else if (shape[depth] != o.items.size())
                return false;
            for (const PyObj& i : o.items)
                if (!flatten(i, shape, depth + 1, values, anyFloat, allBool))
                    return false;
            return true;
        }
        if (o.kind != PyObj::Kind::Int && o.kind != PyObj::Kind::Float && o.kind != PyObj::Kind::Bool)
            return false;
        if (shape.size() != depth)
            return false;
        anyFloat |= o.kind == PyObj::Kind::Float;
        allBool &= o.kind == PyObj::Kind::Bool;
        values.push_back(o.number);
        return true;
    }

    std::optional<PyObj> makeTensor(
        const QString& name, QVector<PyObj> args, const QHash<QString, PyObj>& kwargs, int start)
    {
        const QString fn = name.startsWith(QLatin1String("torch.")) ? name.mid(6) : name;
        PyObj out;
        out.kind = PyObj::Kind::Tensor;
        InputValue& t = out.tensor;
        t.kind = InputValue::Kind::Tensor;
        QString dtype;
        if (kwargs.contains(QStringLiteral("dtype"))) {
            dtype = canonicalDtype(kwargs.value(QStringLiteral("dtype")).text);
            if (dtype.isEmpty()) {
                setError(QStringLiteral("unknown dtype '%1'").arg(kwargs.value(QStringLiteral("dtype")).text), start);
                return std::nullopt;
            }
        }
        static const QHash<QString, InputValue::Fill> fills = {
            { QStringLiteral("rand"), InputValue::Fill::Rand },
            { QStringLiteral("randn"), InputValue::Fill::Randn },
            { QStringLiteral("zeros"), InputValue::Fill::Zeros },
            { QStringLiteral("ones"), InputValue::Fill::Ones },
            { QStringLiteral("empty"), InputValue::Fill::Zeros },
        };
        if (fills.contains(fn)) {
            if (!toShape(args, t.shape)) {
                setError(QStringLiteral("torch.%1 needs literal non-negative integer sizes").arg(fn), start);
                return std::nullopt;
            }
            t.fill = fills.value(fn);
            t.dtype = dtype.isEmpty() ? QStringLiteral("f32") : dtype;
            return out;
        }
        if (fn == QLatin1String("full")) {
            if (args.size() != 2 || !toShape({ args[0] }, t.shape)
                || (args[1].kind != PyObj::Kind::Int && args[1].kind != PyObj::Kind::Float
                    && args[1].kind != PyObj::Kind::Bool)) {
                setError(QStringLiteral("torch.full needs (size, fill_value) literals"), start);
                return std::nullopt;
            }
            t.fill = InputValue::Fill::Full;
            t.fillValue = args[1].number;
            t.dtype = !dtype.isEmpty()               ? dtype
                : args[1].kind == PyObj::Kind::Float ? QStringLiteral("f32")
                : args[1].kind == PyObj::Kind::Bool  ? QStringLiteral("bool")
                                                     : QStringLiteral("i64");
            return out;
        }
        if (fn == QLatin1String("arange")) {
            bool anyFloat = false;
            for (const PyObj& a : args) {
                if (a.kind != PyObj::Kind::Int && a.kind != PyObj::Kind::Float) {
                    setError(QStringLiteral("torch.arange needs literal numbers"), start);
                    return std::nullopt;
                }
                anyFloat |= a.kind == PyObj::Kind::Float;
            }
            if (args.isEmpty() || args.size() > 3) {
                setError(QStringLiteral("torch.arange takes 1 to 3 numbers"), start);
                return std::nullopt;
            }
            const double begin = args.size() > 1 ? args[0].number : 0;
            const double end = args.size() > 1 ? args[1].number : args[0].number;
            const double step = args.size() > 2 ? args[2].number : 1;
            if (step == 0 || (end - begin) / step > 1e8) {
                setError(QStringLiteral("torch.arange range is empty or too large"), start);
                return std::nullopt;
            }
            t.dtype = !dtype.isEmpty() ? dtype : anyFloat ? QStringLiteral("f32") : QStringLiteral("i64");
            const qint64 n = std::max<qint64>(0, qint64(std::ceil((end - begin) / step)));
            t.shape = { n };
            if (begin == 0 && step == 1) {
                t.fill = InputValue::Fill::Arange;
            } else {
                t.fill = InputValue::Fill::Values;
                for (qint64 i = 0; i < n; ++i)
                    t.values.push_back(begin + double(i) * step);
            }
            return out;
        }
        if (fn == QLatin1String("tensor") || fn == QLatin1String("as_tensor")) {
            if (args.size() != 1) {
                setError(QStringLiteral("torch.tensor needs one literal argument"), start);
                return std::nullopt;
            }
            bool anyFloat = false, allBool = true;
            if (!flatten(args[0], t.shape, 0, t.values, anyFloat, allBool)) {
                setError(QStringLiteral("torch.tensor needs a rectangular nested list of numbers"), start);
                return std::nullopt;
            }
            t.fill = InputValue::Fill::Values;
            t.dtype = !dtype.isEmpty()           ? dtype
                : allBool && !t.values.isEmpty() ? QStringLiteral("bool")
                : anyFloat                       ? QStringLiteral("f32")
                                                 : QStringLiteral("i64");
            return out;
        }
        setError(QStringLiteral("unsupported call '%1' in an input set (use torch.rand/randn/zeros/ones/full/"
                                "tensor/arange with literal arguments)")
                     .arg(name),
            start);
        return std::nullopt;
    }

    const QString& m_s;
    int m_pos = 0;
    InputParseError m_error;
};

std::optional<InputValue> toInputValue(const PyObj& o, QString* why)
{
    InputValue v;
    switch (o.kind) {
    case PyObj::Kind::Tensor:
        return o.tensor;
    case PyObj::Kind::Int:
        return InputValue::integer(qint64(o.number));
    case PyObj::Kind::Float:
        return InputValue::real(o.number);
    case PyObj::Kind::Bool:
        return InputValue::boolean(o.number != 0);
    case PyObj::Kind::None:
        return v;
    case PyObj::Kind::Tuple:
    case PyObj::Kind::List:
        v.kind = o.kind == PyObj::Kind::Tuple ? InputValue::Kind::Tuple : InputValue::Kind::List;
        for (const PyObj& i : o.items) {
            auto item = toInputValue(i, why);
            if (!item)
                return std::nullopt;
            v.items.push_back(*item);
        }
        return v;
    case PyObj::Kind::Str:
        *why = QStringLiteral("string arguments are not supported in input sets");
        return std::nullopt;
    case PyObj::Kind::Name:
        *why = QStringLiteral("'%1' is not a literal").arg(o.text);
        return std::nullopt;
    }
    return std::nullopt;
}

std::optional<InputSet> toInputSet(const PyObj& o, QString* why)
{
    InputSet set;
    if (o.kind == PyObj::Kind::Tuple) {
        for (const PyObj& i : o.items) {
            auto v = toInputValue(i, why);
            if (!v)
                return std::nullopt;
            set.args.push_back(*v);
        }
    } else {
        auto v = toInputValue(o, why);
        if (!v)
            return std::nullopt;
        set.args.push_back(*v);
    }
    return set;
}

} // namespace

std::optional<QVector<InputSet>> parseInputsExpression(const QString& expr, bool isCheckInputs, InputParseError* error)
{
    ExprParser parser(expr);
    auto obj = parser.parseAll(error);
    if (!obj)
        return std::nullopt;
    QVector<InputSet> sets;
    QString why;
    if (isCheckInputs) {
        if (obj->kind != PyObj::Kind::List && obj->kind != PyObj::Kind::Tuple) {
            if (error)
                *error = { QStringLiteral("check_inputs must be a list of input tuples"), 0 };
            return std::nullopt;
        }
        for (const PyObj& item : obj->items) {
            auto set = toInputSet(item, &why);
            if (!set) {
                if (error)
                    *error = { why, 0 };
                return std::nullopt;
            }
            sets.push_back(*set);
        }
    } else {
        auto set = toInputSet(*obj, &why);
        if (!set) {
            if (error)
                *error = { why, 0 };
            return std::nullopt;
        }
        sets.push_back(*set);
    }
    return sets;
}

} // namespace jitscope
