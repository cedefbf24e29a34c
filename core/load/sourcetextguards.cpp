// The guards that read only the text (no libtorch, so they can be fuzzed alone): bracket nesting and prefix-operator
// runs that overflow the stack of libtorch's recursive parser, and class-body lines its archive importer crashes on
// or leaks over.

#include "load/sourceguards_p.h"

#include <QRegularExpression>
#include <QSet>
#include <QStringList>

#include <algorithm>

namespace jitscope {

namespace {

/// Python's tokenizer refuses more than 200 open brackets ("too many nested parentheses"); TorchScript's recursive
/// parser and compiler overflow the stack at a few thousand. Checked on the text before it reaches them.
void refuseDeepNestingImpl(const QString& text, int firstLine, const QString& path)
{
    constexpr int maxLevel = 200;
    int depth = 0, line = firstLine, column = 0;
    QChar quote;
    bool triple = false;
    for (int i = 0; i < text.size(); ++i, ++column) {
        const QChar c = text[i];
        if (c == QLatin1Char('\n')) {
            ++line;
            column = -1;
            if (!triple)
                quote = QChar();
            continue;
        }
        if (!quote.isNull()) {
            if (c == QLatin1Char('\\'))
                ++i, ++column;
            else if (c == quote && (!triple || text.mid(i, 3) == QString(3, quote))) {
                if (triple)
                    i += 2, column += 2;
                quote = QChar();
            }
            continue;
        }
        if (c == QLatin1Char('#')) {
            while (i + 1 < text.size() && text[i + 1] != QLatin1Char('\n'))
                ++i;
            continue;
        }
        if (c == QLatin1Char('\'') || c == QLatin1Char('"')) {
            quote = c;
            triple = text.mid(i, 3) == QString(3, c);
            if (triple)
                i += 2, column += 2;
        } else if (c == QLatin1Char('(') || c == QLatin1Char('[') || c == QLatin1Char('{')) {
            if (++depth > maxLevel)
                throw LocatedError { Diagnostic {
                    QStringLiteral("too many nested parentheses (Python allows %1 levels)").arg(maxLevel),
                    SourceLocation { path, line, column } } };
        } else if (c == QLatin1Char(')') || c == QLatin1Char(']') || c == QLatin1Char('}')) {
            depth = std::max(0, depth - 1);
        }
    }
}

/// A long run of prefix operators (`not not not ... x`, `- - - x`) recurses in TorchScript's parser itself, before
/// a tree exists to measure. Counted on the text.
void refuseUnaryRunsImpl(const QString& text, int firstLine, const QString& path)
{
    constexpr int maxRun = 1000;
    static const QRegularExpression unary(QStringLiteral(R"((?:(?:\bnot\b|[-+~])\s*){1001})"));
    const auto m = unary.match(text);
    if (!m.hasMatch())
        return;
    const int start = m.capturedStart();
    const int line = firstLine + int(text.left(start).count(QLatin1Char('\n')));
    const int column = start - (text.lastIndexOf(QLatin1Char('\n'), start) + 1);
    throw LocatedError { Diagnostic {
        QStringLiteral("more than %1 prefix operators in a row (Python refuses it too)").arg(maxRun),
        SourceLocation { path, line, column } } };
}

/// A class body's `NAME = VALUE` without a type: libtorch's archive importer takes it for a constant
/// (`NAME : Final[T] = VALUE`) and reads its missing type annotation (SIGSEGV). What torch.jit.save writes there is
/// `NAME : TYPE` for attributes and dunder lists (`__parameters__ = [...]`, `__buffers__ = [...]`).
/// And a method defined twice in one class body: libtorch's CompilationUnit refuses the second ("method already
/// defined") after it made the class's first methods, and leaks them (found by fuzz_archive, LeakSanitizer). What
/// torch.jit.save writes defines each method once.
void refuseHostileClassBodiesImpl(const QString& text, const QString& path)
{
    static const QRegularExpression assignment(QStringLiteral(R"(^([ \t]*)([A-Za-z_][A-Za-z0-9_]*)[ \t]*=(?!=))"));
    static const QRegularExpression classLine(QStringLiteral(R"(^([ \t]*)class[ \t]+([A-Za-z_][A-Za-z0-9_]*))"));
    static const QRegularExpression defLine(QStringLiteral(R"(^[ \t]*def[ \t]+([A-Za-z_][A-Za-z0-9_]*))"));
    QString className;
    QSet<QString> methods;
    const QStringList lines = text.split(QLatin1Char('\n'));
    int classIndent = -1, bodyIndent = -1, depth = 0;
    for (int i = 0; i < lines.size(); ++i) {
        const QString& line = lines[i];
        const int depthAtStart = depth;
        forEachCodeChar(line, depth, [](int k, int) { return k; });
        const QString trimmed = line.trimmed();
        if (depthAtStart > 0 || trimmed.isEmpty() || trimmed.startsWith(QLatin1Char('#')))
            continue;
        int indent = 0;
        while (indent < line.size() && (line[indent] == QLatin1Char(' ') || line[indent] == QLatin1Char('\t')))
            ++indent;
        if (classIndent >= 0 && indent > classIndent) {
            if (bodyIndent < 0)
                bodyIndent = indent;
            if (indent != bodyIndent)
                continue;
            if (const auto def = defLine.match(line); def.hasMatch()) {
                if (methods.contains(def.captured(1)))
                    throw LocatedError { Diagnostic {
                        QStringLiteral("method `%1` defined twice in class `%2` (libtorch's importer refuses the "
                                       "second and leaks the first)")
                            .arg(def.captured(1), className),
                        SourceLocation { path, i + 1, indent } } };
                methods.insert(def.captured(1));
                continue;
            }
            const auto m = assignment.match(line);
            const QString name = m.captured(2);
            // The only untyped assignments libtorch 1.13's importer reads (import_source.cpp, importClass); any
            // other one, `__x__` included, is taken for a constant whose missing type it dereferences.
            static const QStringList known
                = { QStringLiteral("__parameters__"), QStringLiteral("__buffers__"), QStringLiteral("__annotations__"),
                      QStringLiteral("__forward_hooks__"), QStringLiteral("__forward_pre_hooks__") };
            if (m.hasMatch() && !known.contains(name))
                throw LocatedError { Diagnostic {
                    QStringLiteral("class attribute `%1` assigned without a type (libtorch's importer crashes on it): "
                                   "an attribute is declared `%1 : TYPE`, a constant `%1 : Final[TYPE] = VALUE`")
                        .arg(name),
                    SourceLocation { path, i + 1, indent } } };
            continue;
        }
        classIndent = -1;
        if (const auto m = classLine.match(line); m.hasMatch()) {
            classIndent = indent;
            bodyIndent = -1;
            className = m.captured(2);
            methods.clear();
        }
    }
}

} // namespace

void refuseHostileText(const QString& text, int firstLine, const QString& path)
{
    refuseDeepNestingImpl(text, firstLine, path);
    refuseUnaryRunsImpl(text, firstLine, path);
}

void refuseHostileClassBodies(const QString& text, const QString& path)
{
    refuseHostileClassBodiesImpl(text, path);
}

} // namespace jitscope
