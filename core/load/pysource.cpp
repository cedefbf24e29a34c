#include "load/pysource.h"
#include "load/sourceguards_p.h"

#include <QRegularExpression>

#include <cmath>

namespace jitscope {

bool PyDef::isIgnored() const
{
    for (const QString& d : decorators) {
        const QString base = d.section(QLatin1Char('('), 0, 0).trimmed();
        if (base.endsWith(QLatin1String("jit.ignore")) || base.endsWith(QLatin1String("jit.unused"))
            || base == QLatin1String("ignore") || base == QLatin1String("unused"))
            return true;
    }
    return false;
}

const PyDef* PyFileScan::def(const QString& name) const
{
    for (const PyDef& d : defs)
        if (d.name == name)
            return &d;
    return nullptr;
}

namespace {

/// Python's frontend turns f"a{x}b" into "a{}b".format(x); libtorch's C++ lexer has no f-strings, so the
/// same rewrite is done on the text (within its line, so line numbers stay). Conversions (!r) and format
/// specs (:3d) are left alone: TorchScript rejects them too.
QString rewriteFStrings(const QString& line)
{
    QString out;
    int i = 0;
    while (i < line.size()) {
        const QChar c = line[i];
        if (c == QLatin1Char('#'))
            return out + line.mid(i);
        const bool prefix = (c == QLatin1Char('f') || c == QLatin1Char('F')) && i + 1 < line.size()
            && (line[i + 1] == QLatin1Char('"') || line[i + 1] == QLatin1Char('\''))
            && (i == 0 || !(line[i - 1].isLetterOrNumber() || line[i - 1] == QLatin1Char('_')));
        if (c == QLatin1Char('"') || c == QLatin1Char('\'') || prefix) {
            const int start = i;
            const QChar quote = prefix ? line[i + 1] : c;
            int j = prefix ? i + 2 : i + 1;
            QString literal;
            QStringList args;
            bool ok = true;
            while (j < line.size() && line[j] != quote) {
                if (line[j] == QLatin1Char('\\') && j + 1 < line.size()) {
                    literal += line.mid(j, 2);
                    j += 2;
                    continue;
                }
                if (prefix && line[j] == QLatin1Char('{')) {
                    if (j + 1 < line.size() && line[j + 1] == QLatin1Char('{')) {
                        literal += QStringLiteral("{{");
                        j += 2;
                        continue;
                    }
                    int depth = 1, k = j + 1;
                    while (k < line.size() && depth > 0) {
                        if (line[k] == QLatin1Char('{') || line[k] == QLatin1Char('(') || line[k] == QLatin1Char('['))
                            ++depth;
                        else if (line[k] == QLatin1Char('}') || line[k] == QLatin1Char(')')
                            || line[k] == QLatin1Char(']'))
                            --depth;
                        else if (depth == 1 && (line[k] == QLatin1Char('!') || line[k] == QLatin1Char(':'))
                            && !(line[k] == QLatin1Char('!') && k + 1 < line.size() && line[k + 1] == QLatin1Char('=')))
                            ok = false;
                        else if (line[k] == quote)
                            ok = false;
                        ++k;
                    }
                    if (depth != 0)
                        ok = false;
                    args << line.mid(j + 1, k - j - 2).trimmed();
                    literal += QStringLiteral("{}");
                    j = k;
                    continue;
                }
                literal += line[j];
                ++j;
            }
            if (j >= line.size() || !prefix || !ok) {
                // A plain string, an unterminated one or an f-string TorchScript rejects: keep the text.
                const int end = std::min<int>(j + 1, line.size());
                out += line.mid(start, end - start);
                i = end;
                continue;
            }
            out += quote + literal + quote + QStringLiteral(".format(") + args.join(QStringLiteral(", "))
                + QLatin1Char(')');
            i = j + 1;
            continue;
        }
        out += c;
        ++i;
    }
    return out;
}

/// Python's frontend takes a comprehension's tuple target (`[a * b for a, b in zip(xs, ys)]`); libtorch's C++ parser
/// takes it parenthesized only. `for a, b in` becomes `for(a, b)in`: the same length, so every column stays.
/// @p depth is the bracket depth before the line (a comprehension is inside brackets; a for statement is not).
QString parenthesizeComprehensionTargets(const QString& line, int& depth)
{
    // Each name of the target may be a parenthesized tuple of names itself: `for i, (a, b) in enumerate(zip(...))`.
    static const QRegularExpression target(QStringLiteral(
        "\\bfor(\\s)((?:[A-Za-z_]\\w*|\\(\\s*[A-Za-z_]\\w*(?:\\s*,\\s*[A-Za-z_]\\w*)*\\s*\\))"
        "(?:\\s*,\\s*(?:[A-Za-z_]\\w*|\\(\\s*[A-Za-z_]\\w*(?:\\s*,\\s*[A-Za-z_]\\w*)*\\s*\\)))+\\s*?)(\\s)in\\b"));
    QString out = line;
    forEachCodeChar(line, depth, [&](int i, int depthHere) {
        if (depthHere == 0 || line[i] != QLatin1Char('f') || line.mid(i, 3) != QLatin1String("for"))
            return i;
        const auto m
            = target.match(line, i, QRegularExpression::NormalMatch, QRegularExpression::AnchorAtOffsetMatchOption);
        if (!m.hasMatch())
            return i;
        out[m.capturedStart(1)] = QLatin1Char('(');
        out[m.capturedStart(3)] = QLatin1Char(')');
        return int(m.capturedEnd(0)) - 1;
    });
    return out;
}

} // namespace

QString PyFileScan::defSource(const PyDef& def) const
{
    QStringList body;
    int depth = 0;
    const bool typingModule = aliases.value(QStringLiteral("typing")) == QLatin1String("typing");
    for (int line = def.defLine; line <= def.lastLine && line <= lines.size(); ++line) {
        QString text = lines.at(line - 1);
        // `typing.List[int]` is spelled `List[int]` for libtorch's type parser; spaces keep every column.
        if (typingModule && text.contains(QLatin1String("typing.")))
            text.replace(QLatin1String("typing."), QStringLiteral("       "));
        if (text.contains(QLatin1String("f\"")) || text.contains(QLatin1String("f'"))
            || text.contains(QLatin1String("F\"")) || text.contains(QLatin1String("F'")))
            text = rewriteFStrings(text);
        text = parenthesizeComprehensionTargets(text, depth);
        body << text;
    }
    return body.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

namespace {

struct Statement
{
    int firstLine = 0; ///< 1-based
    int lastLine = 0;
    QString text; ///< lines joined with '\n'
};

bool isBlankOrComment(const QString& line)
{
    for (QChar c : line) {
        if (c == QLatin1Char('#'))
            return true;
        if (!c.isSpace())
            return false;
    }
    return true;
}

/// Splits source into top-level statements, honouring strings, brackets and continuations.
QVector<Statement> splitStatements(const QStringList& lines, Diagnostic* error)
{
    QVector<Statement> statements;
    int depth = 0;
    QChar quote;
    bool triple = false;
    bool continuation = false;
    int openLine = 0, openCol = 0; // where the pending string or bracket opened
    QVector<QPair<int, int>> bracketStack;
    for (int li = 0; li < lines.size(); ++li) {
        const QString& line = lines[li];
        const bool inside = depth > 0 || !quote.isNull() || continuation;
        if (!inside && !isBlankOrComment(line)) {
            if (!line.at(0).isSpace()) {
                statements.push_back({ li + 1, li + 1, {} });
            } else if (statements.isEmpty()) {
                error->message = QStringLiteral("unexpected indent");
                error->location.line = li + 1;
                error->location.column = 0;
                return {};
            }
        }
        if (!statements.isEmpty() && !isBlankOrComment(line))
            statements.last().lastLine = li + 1;
        continuation = false;
        for (int i = 0; i < line.size(); ++i) {
            const QChar c = line[i];
            if (!quote.isNull()) {
                if (c == QLatin1Char('\\')) {
                    ++i;
                    continue;
                }
                if (c == quote) {
                    if (!triple)
                        quote = QChar();
                    else if (line.mid(i, 3) == QString(3, quote)) {
                        quote = QChar();
                        i += 2;
                    }
                }
                continue;
            }
            if (c == QLatin1Char('#'))
                break;
            if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
                quote = c;
                triple = line.mid(i, 3) == QString(3, c);
                openLine = li + 1;
                openCol = i;
                if (triple)
                    i += 2;
                continue;
            }
            if (c == QLatin1Char('(') || c == QLatin1Char('[') || c == QLatin1Char('{')) {
                ++depth;
                bracketStack.push_back({ li + 1, i });
            } else if (c == QLatin1Char(')') || c == QLatin1Char(']') || c == QLatin1Char('}')) {
                if (depth == 0) {
                    error->message = QStringLiteral("unmatched '%1'").arg(c);
                    error->location.line = li + 1;
                    error->location.column = i;
                    return {};
                }
                --depth;
                bracketStack.pop_back();
            } else if (c == QLatin1Char('\\') && i == line.size() - 1) {
                continuation = true;
            }
        }
        if (!quote.isNull() && !triple) {
            error->message = QStringLiteral("unterminated string literal");
            error->location.line = openLine;
            error->location.column = openCol;
            return {};
        }
    }
    if (!quote.isNull()) {
        error->message = QStringLiteral("unterminated triple-quoted string literal");
        error->location.line = openLine;
        error->location.column = openCol;
        return {};
    }
    if (depth > 0) {
        error->message = QStringLiteral("'%1' was never closed")
                             .arg(lines[bracketStack.last().first - 1].at(bracketStack.last().second));
        error->location.line = bracketStack.last().first;
        error->location.column = bracketStack.last().second;
        return {};
    }
    for (Statement& s : statements) {
        QStringList text;
        for (int l = s.firstLine; l <= s.lastLine; ++l)
            text << lines[l - 1];
        s.text = text.join(QLatin1Char('\n'));
    }
    return statements;
}

void readImport(const QString& text, QHash<QString, QString>& aliases)
{
    QString t = text;
    t.remove(QLatin1Char('(')).remove(QLatin1Char(')')).replace(QLatin1String("\\\n"), QLatin1String(" "));
    t.replace(QLatin1Char('\n'), QLatin1Char(' '));
    const int hash = t.indexOf(QLatin1Char('#'));
    if (hash >= 0)
        t = t.left(hash);
    t = t.simplified();
    if (t.startsWith(QLatin1String("import "))) {
        for (QString part : t.mid(7).split(QLatin1Char(','))) {
            const QStringList words = part.simplified().split(QLatin1Char(' '));
            if (words.size() == 3 && words[1] == QLatin1String("as"))
                aliases.insert(words[2], words[0]);
            else if (words.size() == 1 && !words[0].isEmpty())
                aliases.insert(words[0].section(QLatin1Char('.'), 0, 0), words[0].section(QLatin1Char('.'), 0, 0));
        }
    } else if (t.startsWith(QLatin1String("from "))) {
        const int imp = t.indexOf(QLatin1String(" import "));
        if (imp < 0)
            return;
        const QString module = t.mid(5, imp - 5).trimmed();
        for (QString part : t.mid(imp + 8).split(QLatin1Char(','))) {
            const QStringList words = part.simplified().split(QLatin1Char(' '));
            if (words.size() == 3 && words[1] == QLatin1String("as"))
                aliases.insert(words[2], module + QLatin1Char('.') + words[0]);
            else if (words.size() == 1 && !words[0].isEmpty() && words[0] != QLatin1String("*"))
                aliases.insert(words[0], module + QLatin1Char('.') + words[0]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// A tiny evaluator for the literal expressions of `inputs = ...` / `check_inputs = ...`.

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

PyFileScan scanPythonSource(const QString& source, const QString& fileName)
{
    PyFileScan scan;
    QString text = source;
    text.replace(QLatin1String("\r\n"), QLatin1String("\n")).replace(QLatin1Char('\r'), QLatin1Char('\n'));
    scan.lines = text.split(QLatin1Char('\n'));
    scan.syntaxError.location.file = fileName;
    const QVector<Statement> statements = splitStatements(scan.lines, &scan.syntaxError);
    if (scan.syntaxError.location.line > 0)
        return scan;

    static const QRegularExpression defRe(QStringLiteral("^(async\\s+)?def\\s+([A-Za-z_][A-Za-z0-9_]*)\\s*\\("));
    static const QRegularExpression classRe(QStringLiteral("^class\\s+([A-Za-z_][A-Za-z0-9_]*)"));
    static const QRegularExpression assignRe(QStringLiteral("^(inputs|check_inputs)\\s*(:[^=]*)?=(?!=)"));
    static const QRegularExpression globalRe(QStringLiteral("^([A-Za-z_][A-Za-z0-9_]*)\\s*(:[^=]*)?=(?!=)\\s*(.*)$"),
        QRegularExpression::DotMatchesEverythingOption);
    QStringList pendingDecorators;
    int pendingFirstLine = 0;
    QVector<InputSet> inputs, checkInputs;
    for (const Statement& s : statements) {
        if (s.text.startsWith(QLatin1Char('@'))) {
            if (pendingDecorators.isEmpty())
                pendingFirstLine = s.firstLine;
            pendingDecorators << s.text.mid(1).simplified();
            continue;
        }
        if (auto m = defRe.match(s.text); m.hasMatch()) {
            PyDef def;
            def.name = m.captured(2);
            def.defLine = s.firstLine;
            def.firstLine = pendingDecorators.isEmpty() ? s.firstLine : pendingFirstLine;
            def.lastLine = s.lastLine;
            def.decorators = pendingDecorators;
            // A later def of the same name replaces the earlier one, as in Python.
            for (int i = 0; i < scan.defs.size(); ++i)
                if (scan.defs[i].name == def.name)
                    scan.defs.remove(i--);
            scan.defs.push_back(def);
        } else if (auto m = classRe.match(s.text); m.hasMatch()) {
            PyDef cls;
            cls.name = m.captured(1);
            cls.defLine = s.firstLine;
            cls.firstLine = pendingDecorators.isEmpty() ? s.firstLine : pendingFirstLine;
            cls.lastLine = s.lastLine;
            cls.decorators = pendingDecorators;
            scan.classes.push_back(cls);
        } else if (s.text.startsWith(QLatin1String("import ")) || s.text.startsWith(QLatin1String("from "))) {
            readImport(s.text, scan.aliases);
        } else if (auto m = assignRe.match(s.text); m.hasMatch()) {
            const bool isCheck = m.captured(1) == QLatin1String("check_inputs");
            const QString expr = s.text.mid(m.capturedEnd());
            InputParseError err;
            auto sets = parseInputsExpression(expr, isCheck, &err);
            if (!sets) {
                // Map the offset within the expression back to a line and column of the file.
                const int offset = m.capturedEnd() + std::clamp(err.position, 0, int(expr.size()));
                const QString before = s.text.left(offset);
                const int line = s.firstLine + int(before.count(QLatin1Char('\n')));
                const int col = offset - (before.lastIndexOf(QLatin1Char('\n')) + 1);
                scan.problems.push_back(
                    { QStringLiteral("%1 ignored: %2").arg(m.captured(1), err.message), { fileName, line, col } });
            } else {
                for (InputSet& set : *sets)
                    set.line = s.firstLine;
                (isCheck ? checkInputs : inputs) = *sets;
            }
        } else if (auto m = globalRe.match(s.text); m.hasMatch()) {
            const QString value = m.captured(3).trimmed();
            static const QRegularExpression intRe(QStringLiteral("^-?\\d+$"));
            static const QRegularExpression floatRe(QStringLiteral("^-?(\\d+\\.\\d*|\\.\\d+|\\d+)([eE][-+]?\\d+)?$"));
            QString type = QStringLiteral("object");
            if (intRe.match(value).hasMatch())
                type = QStringLiteral("int");
            else if (floatRe.match(value).hasMatch())
                type = QStringLiteral("float");
            else if (value == QLatin1String("True") || value == QLatin1String("False"))
                type = QStringLiteral("bool");
            else if (value.startsWith(QLatin1Char('"')) || value.startsWith(QLatin1Char('\'')))
                type = QStringLiteral("str");
            else if (value.startsWith(QLatin1Char('(')))
                type = QStringLiteral("tuple");
            else if (value.startsWith(QLatin1Char('[')))
                type = QStringLiteral("list");
            scan.globals.insert(m.captured(1), type);
        }
        pendingDecorators.clear();
    }
    scan.inputSets = inputs + checkInputs;
    return scan;
}

} // namespace jitscope
