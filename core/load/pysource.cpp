// The first, lexical pass over a .py file (no libtorch): its statements, defs, classes, imports, globals and input
// sets (scanPythonSource()), and a def's text as libtorch's parser reads it (defSource()).

#include "load/pysource.h"
#include "load/sourceguards_p.h"

#include <QRegularExpression>

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

} // namespace

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
