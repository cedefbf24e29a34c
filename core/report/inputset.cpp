#include "report/inputset.h"

#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <limits>

namespace jitscope {

InputValue InputValue::tensor(const QString& dtype, QVector<qint64> shape, Fill fill)
{
    InputValue v;
    v.kind = Kind::Tensor;
    v.dtype = dtype;
    v.shape = std::move(shape);
    v.fill = fill;
    return v;
}

InputValue InputValue::integer(qint64 x)
{
    InputValue v;
    v.kind = Kind::Int;
    v.intValue = x;
    return v;
}

InputValue InputValue::real(double x)
{
    InputValue v;
    v.kind = Kind::Float;
    v.floatValue = x;
    return v;
}

InputValue InputValue::boolean(bool x)
{
    InputValue v;
    v.kind = Kind::Bool;
    v.boolValue = x;
    return v;
}

namespace {

QString numberText(double x)
{
    if (std::isinf(x))
        return x > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    if (std::isnan(x))
        return QStringLiteral("nan");
    QString s = QString::number(x, 'g', 17);
    // Shortest text that reads back to the same double.
    for (int p = 1; p <= 17; ++p) {
        const QString t = QString::number(x, 'g', p);
        if (t.toDouble() == x) {
            s = t;
            break;
        }
    }
    return s;
}

QString floatText(double x)
{
    QString s = numberText(x);
    if (!s.contains(QLatin1Char('.')) && !s.contains(QLatin1Char('e')) && !s.contains(QLatin1String("inf"))
        && !s.contains(QLatin1String("nan")))
        s += QStringLiteral(".0");
    return s;
}

} // namespace

QString InputValue::toString() const
{
    switch (kind) {
    case Kind::Tensor: {
        QStringList dims;
        for (qint64 d : shape)
            dims << QString::number(d);
        QString s = dtype + QLatin1Char('[') + dims.join(QLatin1Char(',')) + QLatin1Char(']');
        switch (fill) {
        case Fill::Rand:
            break;
        case Fill::Randn:
        case Fill::Zeros:
        case Fill::Ones:
        case Fill::Arange:
            s += QLatin1Char('=') + toText(fill);
            break;
        case Fill::Full:
            s += QLatin1Char('=') + toText(fill) + QLatin1Char(':') + numberText(fillValue);
            break;
        case Fill::Values: {
            QStringList vals;
            for (double x : values)
                vals << numberText(x);
            s += QLatin1Char('=') + toText(fill) + QLatin1Char(':') + vals.join(QLatin1Char(','));
            break;
        }
        }
        return s;
    }
    case Kind::Int:
        return QString::number(intValue);
    case Kind::Float:
        return floatText(floatValue);
    case Kind::Bool:
        return boolValue ? QStringLiteral("true") : QStringLiteral("false");
    case Kind::None:
        return QStringLiteral("none");
    case Kind::Tuple:
    case Kind::List: {
        QStringList parts;
        for (const InputValue& i : items)
            parts << i.toString();
        if (kind == Kind::Tuple)
            return QLatin1Char('(') + parts.join(QLatin1Char(','))
                + (items.size() == 1 ? QStringLiteral(",)") : QStringLiteral(")"));
        return QLatin1Char('[') + parts.join(QLatin1Char(',')) + QLatin1Char(']');
    }
    case Kind::Dict: {
        QStringList parts;
        static const QRegularExpression name(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
        for (int i = 0; i < items.size(); ++i) {
            const QString key = keys.value(i);
            parts << (name.match(key).hasMatch() ? key : QLatin1Char('\'') + key + QLatin1Char('\''))
                    + QStringLiteral(": ") + items[i].toString();
        }
        return QLatin1Char('{') + parts.join(QStringLiteral(", ")) + QLatin1Char('}');
    }
    }
    return {};
}

bool InputValue::containsDict() const
{
    return kind == Kind::Dict
        || std::any_of(items.cbegin(), items.cend(), [](const InputValue& i) { return i.containsDict(); });
}

bool InputSet::hasSequenceArgument() const
{
    return std::any_of(args.cbegin(), args.cend(),
        [](const InputValue& a) { return a.kind == InputValue::Kind::Tuple || a.kind == InputValue::Kind::List; });
}

bool InputSet::containsDict() const
{
    return std::any_of(args.cbegin(), args.cend(), [](const InputValue& a) { return a.containsDict(); });
}

qint64 InputValue::byteSize() const
{
    if (kind == Kind::Tensor) {
        // Saturating: a zero dimension makes the tensor empty whatever the others say (doubles would give
        // 0 * inf = nan for bool[0,9223372036854775807,9223372036854775807]).
        constexpr qint64 kMax = std::numeric_limits<qint64>::max();
        if (std::any_of(shape.cbegin(), shape.cend(), [](qint64 d) { return d <= 0; }))
            return 0;
        qint64 n = dtypeElementSize(dtype);
        for (qint64 d : shape)
            n = n > kMax / d ? kMax : n * d;
        return n;
    }
    qint64 total = 0;
    for (const InputValue& i : items) {
        const qint64 b = i.byteSize();
        total = (b > std::numeric_limits<qint64>::max() - total) ? std::numeric_limits<qint64>::max() : total + b;
    }
    return total;
}

QString InputSet::toString() const
{
    QStringList parts;
    for (const InputValue& a : args)
        parts << a.toString();
    return parts.join(QStringLiteral("; "));
}

QString toText(InputValue::Fill fill)
{
    switch (fill) {
    case InputValue::Fill::Rand:
        return QStringLiteral("rand");
    case InputValue::Fill::Randn:
        return QStringLiteral("randn");
    case InputValue::Fill::Zeros:
        return QStringLiteral("zeros");
    case InputValue::Fill::Ones:
        return QStringLiteral("ones");
    case InputValue::Fill::Arange:
        return QStringLiteral("arange");
    case InputValue::Fill::Full:
        return QStringLiteral("full");
    case InputValue::Fill::Values:
        return QStringLiteral("values");
    }
    return {};
}

std::optional<InputValue::Fill> fillFromText(const QString& name)
{
    for (auto fill : { InputValue::Fill::Rand, InputValue::Fill::Randn, InputValue::Fill::Zeros, InputValue::Fill::Ones,
             InputValue::Fill::Arange, InputValue::Fill::Full, InputValue::Fill::Values })
        if (toText(fill) == name)
            return fill;
    return std::nullopt;
}

QString toText(InputValue::Kind kind)
{
    switch (kind) {
    case InputValue::Kind::Tensor:
        return QStringLiteral("tensor");
    case InputValue::Kind::Int:
        return QStringLiteral("int");
    case InputValue::Kind::Float:
        return QStringLiteral("float");
    case InputValue::Kind::Bool:
        return QStringLiteral("bool");
    case InputValue::Kind::None:
        return QStringLiteral("none");
    case InputValue::Kind::Tuple:
        return QStringLiteral("tuple");
    case InputValue::Kind::List:
        return QStringLiteral("list");
    case InputValue::Kind::Dict:
        return QStringLiteral("dict");
    }
    return {};
}

qint64 InputSet::byteSize() const
{
    InputValue all;
    all.kind = InputValue::Kind::Tuple;
    all.items = args;
    return all.byteSize();
}

namespace {

class SetParser
{
public:
    explicit SetParser(const QString& s)
        : m_s(s)
    { }

    std::optional<InputSet> parse(InputParseError* error)
    {
        InputSet set;
        skip();
        if (atEnd()) {
            fail(QStringLiteral("empty input set"));
        } else {
            while (m_error.message.isEmpty()) {
                auto v = value();
                if (!v)
                    break;
                set.args.push_back(*v);
                skip();
                if (atEnd())
                    break;
                if (peek() != QLatin1Char(';')) {
                    fail(QStringLiteral("expected ';' between arguments"));
                    break;
                }
                ++m_pos;
            }
        }
        if (!m_error.message.isEmpty()) {
            if (error)
                *error = m_error;
            return std::nullopt;
        }
        return set;
    }

private:
    static constexpr int kMaxNesting = 200;
    int m_depth = 0;

    bool atEnd() const { return m_pos >= m_s.size(); }
    QChar peek() const { return atEnd() ? QChar() : m_s[m_pos]; }
    void skip()
    {
        while (!atEnd() && m_s[m_pos].isSpace())
            ++m_pos;
    }
    void fail(const QString& msg, int pos = -1)
    {
        if (m_error.message.isEmpty())
            m_error = { msg, pos < 0 ? m_pos : pos };
    }
    QString word()
    {
        const int start = m_pos;
        while (!atEnd() && (m_s[m_pos].isLetterOrNumber() || m_s[m_pos] == QLatin1Char('_')))
            ++m_pos;
        return m_s.mid(start, m_pos - start);
    }
    std::optional<double> number()
    {
        const int start = m_pos;
        if (!atEnd() && (peek() == QLatin1Char('-') || peek() == QLatin1Char('+')))
            ++m_pos;
        while (!atEnd()
            && (m_s[m_pos].isDigit() || m_s[m_pos] == QLatin1Char('.') || m_s[m_pos] == QLatin1Char('e')
                || m_s[m_pos] == QLatin1Char('E')
                || ((m_s[m_pos] == QLatin1Char('-') || m_s[m_pos] == QLatin1Char('+'))
                    && (m_s[m_pos - 1] == QLatin1Char('e') || m_s[m_pos - 1] == QLatin1Char('E')))))
            ++m_pos;
        const QString t = m_s.mid(start, m_pos - start);
        if (t == QLatin1String("inf") || t == QLatin1String("-inf") || t == QLatin1String("nan"))
            return t.startsWith(QLatin1Char('-')) ? -INFINITY : t == QLatin1String("nan") ? NAN : INFINITY;
        bool ok = false;
        const double d = t.toDouble(&ok);
        if (!ok) {
            fail(QStringLiteral("expected a number"), start);
            return std::nullopt;
        }
        return d;
    }

    /// A dict's key: a name, or a string in single or double quotes.
    std::optional<QString> key()
    {
        skip();
        const QChar c = peek();
        if (c == QLatin1Char('\'') || c == QLatin1Char('"')) {
            const int start = m_pos;
            const int end = m_s.indexOf(c, m_pos + 1);
            if (end < 0) {
                fail(QStringLiteral("missing closing %1").arg(c), start);
                return std::nullopt;
            }
            m_pos = end + 1;
            return m_s.mid(start + 1, end - start - 1);
        }
        if (!c.isLetter() && c != QLatin1Char('_')) {
            fail(QStringLiteral("expected a key (a name or a quoted string)"));
            return std::nullopt;
        }
        return word();
    }

    std::optional<InputValue> dict()
    {
        if (m_depth >= kMaxNesting) {
            fail(QStringLiteral("too many nested parentheses (at most %1 levels)").arg(kMaxNesting));
            return std::nullopt;
        }
        Level level(m_depth);
        InputValue v;
        v.kind = InputValue::Kind::Dict;
        ++m_pos; // '{'
        skip();
        if (peek() == QLatin1Char('}')) {
            ++m_pos;
            return v;
        }
        while (true) {
            skip();
            const int keyStart = m_pos;
            auto k = key();
            if (!k)
                return std::nullopt;
            if (v.keys.contains(*k)) {
                fail(QStringLiteral("key '%1' given twice").arg(*k), keyStart);
                return std::nullopt;
            }
            skip();
            if (peek() != QLatin1Char(':')) {
                fail(QStringLiteral("expected ':' after the key"));
                return std::nullopt;
            }
            ++m_pos;
            auto item = value();
            if (!item)
                return std::nullopt;
            v.keys << *k;
            v.items.push_back(*item);
            skip();
            if (peek() == QLatin1Char(',')) {
                ++m_pos;
                skip();
                if (peek() == QLatin1Char('}')) {
                    ++m_pos;
                    return v;
                }
                continue;
            }
            if (peek() == QLatin1Char('}')) {
                ++m_pos;
                return v;
            }
            fail(atEnd() ? QStringLiteral("missing '}'") : QStringLiteral("expected ',' or '}'"));
            return std::nullopt;
        }
    }

    struct Level
    {
        int& depth;
        explicit Level(int& d)
            : depth(++d)
        { }
        ~Level() { --depth; }
    };

    std::optional<InputValue> sequence(QChar close, InputValue::Kind kind)
    {
        // Python's tokenizer refuses more than 200 open brackets; so does this recursive parser, before the
        // stack runs out.
        if (m_depth >= kMaxNesting) {
            fail(QStringLiteral("too many nested parentheses (at most %1 levels)").arg(kMaxNesting));
            return std::nullopt;
        }
        Level level(m_depth);
        InputValue v;
        v.kind = kind;
        ++m_pos;
        skip();
        if (peek() == close) {
            ++m_pos;
            return v;
        }
        while (true) {
            auto item = value();
            if (!item)
                return std::nullopt;
            v.items.push_back(*item);
            skip();
            if (peek() == QLatin1Char(',')) {
                ++m_pos;
                skip();
                if (peek() == close) {
                    ++m_pos;
                    return v;
                }
                continue;
            }
            if (peek() == close) {
                ++m_pos;
                return v;
            }
            fail(atEnd() ? QStringLiteral("missing '%1'").arg(close)
                         : QStringLiteral("expected ',' or '%1'").arg(close));
            return std::nullopt;
        }
    }

    std::optional<InputValue> value()
    {
        skip();
        if (atEnd()) {
            fail(QStringLiteral("expected a value"));
            return std::nullopt;
        }
        const QChar c = peek();
        if (c == QLatin1Char('('))
            return sequence(QLatin1Char(')'), InputValue::Kind::Tuple);
        if (c == QLatin1Char('['))
            return sequence(QLatin1Char(']'), InputValue::Kind::List);
        if (c == QLatin1Char('{'))
            return dict();
        if (c.isDigit() || c == QLatin1Char('-') || c == QLatin1Char('+') || c == QLatin1Char('.')) {
            const int start = m_pos;
            auto d = number();
            if (!d)
                return std::nullopt;
            const QString t = m_s.mid(start, m_pos - start);
            if (!t.contains(QLatin1Char('.')) && !t.contains(QLatin1Char('e')) && !t.contains(QLatin1Char('E'))
                && std::isfinite(*d)) {
                bool ok = false;
                const qint64 i = t.toLongLong(&ok);
                if (!ok) {
                    fail(QStringLiteral("integer out of range"), start);
                    return std::nullopt;
                }
                return InputValue::integer(i);
            }
            return InputValue::real(*d);
        }
        if (!c.isLetter()) {
            fail(QStringLiteral("unexpected '%1'").arg(c));
            return std::nullopt;
        }
        const int start = m_pos;
        const QString w = word();
        if (w == QLatin1String("true") || w == QLatin1String("True"))
            return InputValue::boolean(true);
        if (w == QLatin1String("false") || w == QLatin1String("False"))
            return InputValue::boolean(false);
        if (w == QLatin1String("none") || w == QLatin1String("None"))
            return InputValue {};
        if (w == QLatin1String("inf") || w == QLatin1String("nan"))
            return InputValue::real(w == QLatin1String("inf") ? INFINITY : NAN);
        const QString dtype = canonicalDtype(w);
        if (dtype.isEmpty()) {
            fail(QStringLiteral("unknown dtype '%1' (use %2)").arg(w, dtypeShortNames()), start);
            return std::nullopt;
        }
        skip();
        if (peek() != QLatin1Char('[')) {
            fail(QStringLiteral("expected '[' after dtype"));
            return std::nullopt;
        }
        ++m_pos;
        InputValue t = InputValue::tensor(dtype, {});
        skip();
        if (peek() != QLatin1Char(']')) {
            while (true) {
                skip();
                const int dimStart = m_pos;
                while (!atEnd() && m_s[m_pos].isDigit())
                    ++m_pos;
                if (dimStart == m_pos) {
                    fail(peek() == QLatin1Char('-') ? QStringLiteral("negative dimension")
                                                    : QStringLiteral("expected a dimension"));
                    return std::nullopt;
                }
                bool ok = false;
                const qint64 d = m_s.mid(dimStart, m_pos - dimStart).toLongLong(&ok);
                if (!ok) {
                    fail(QStringLiteral("dimension too large"), dimStart);
                    return std::nullopt;
                }
                t.shape.push_back(d);
                skip();
                if (peek() == QLatin1Char(',')) {
                    ++m_pos;
                    continue;
                }
                if (peek() == QLatin1Char(']'))
                    break;
                fail(atEnd() ? QStringLiteral("missing ']'") : QStringLiteral("expected ',' or ']'"));
                return std::nullopt;
            }
        }
        ++m_pos; // ']'
        skip();
        if (peek() == QLatin1Char('=')) {
            ++m_pos;
            skip();
            const int fillStart = m_pos;
            const QString fill = word();
            const std::optional<InputValue::Fill> parsed = fillFromText(fill);
            if (!parsed) {
                fail(QStringLiteral("unknown fill '%1' (use rand, randn, zeros, ones, arange, full:V)").arg(fill),
                    fillStart);
                return std::nullopt;
            }
            t.fill = *parsed;
            if (t.fill == InputValue::Fill::Full || t.fill == InputValue::Fill::Values) {
                if (peek() != QLatin1Char(':')) {
                    fail(QStringLiteral("expected ':' and a value after '%1'").arg(fill));
                    return std::nullopt;
                }
                ++m_pos;
                // Counted without overflow (found by tests/fuzz: 33 dimensions of 2 to 4143 pass 2^63).
                qint64 n = 1;
                bool overflow = false;
                for (qint64 d : t.shape)
                    overflow = overflow || __builtin_mul_overflow(n, d, &n);
                // Inside a list, tuple or dict a ',' also separates items: the values stop at the count the shape
                // holds (`[i64[2]=values:1,2, 3]` is a tensor and 3). At the top level they run to the last ',' so
                // that one too many is named as such.
                const bool bounded = m_depth > 0 && !overflow;
                while (true) {
                    skip();
                    auto d = number();
                    if (!d)
                        return std::nullopt;
                    if (t.fill == InputValue::Fill::Full) {
                        t.fillValue = *d;
                        break;
                    }
                    t.values.push_back(*d);
                    if (bounded && qint64(t.values.size()) >= n)
                        break;
                    const int afterNumber = m_pos;
                    skip();
                    if (peek() != QLatin1Char(',')) {
                        m_pos = afterNumber;
                        break;
                    }
                    ++m_pos;
                }
                if (t.fill == InputValue::Fill::Values) {
                    if (overflow || n != t.values.size()) {
                        fail(QStringLiteral("%1 values given for a shape of %2 elements")
                                 .arg(t.values.size())
                                 .arg(overflow ? QStringLiteral("more than 2^63") : QString::number(n)),
                            fillStart);
                        return std::nullopt;
                    }
                }
            }
        }
        return t;
    }

    const QString& m_s;
    int m_pos = 0;
    InputParseError m_error;
};

} // namespace

std::optional<InputSet> parseInputSet(const QString& text, InputParseError* error)
{
    return SetParser(text).parse(error);
}

} // namespace jitscope
