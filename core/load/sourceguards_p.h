#pragma once

// Private to core/load: checks a def's source (or an archive's code file) passes before libtorch's TorchScript front
// end sees it. refuseHostileText() and refuseHostileClassBodies() read only the text (sourcetextguards.cpp,
// no libtorch); the rest parse it (sourceguards.cpp).

#include "report/irgraph.h"

#include <QString>

#include <algorithm>

namespace torch {
namespace jit {
struct Def;
} // namespace jit
} // namespace torch

namespace jitscope {

/// An error found before libtorch saw the code, with its place.
struct LocatedError
{
    Diagnostic diagnostic;
};

/// Walks the code of one line of Python (outside string literals, up to a comment), calling
/// @p visit(index, depth) for each character with the bracket depth after it; @p depth carries the depth from line
/// to line (a bracket left open continues the statement). @p visit returns the index to go on from (its own to go
/// on with the next character).
template <typename Visit> void forEachCodeChar(const QString& line, int& depth, Visit&& visit)
{
    QChar quote;
    for (int k = 0; k < line.size(); ++k) {
        const QChar c = line[k];
        if (!quote.isNull()) {
            if (c == QLatin1Char('\\'))
                ++k;
            else if (c == quote)
                quote = QChar();
            continue;
        }
        if (c == QLatin1Char('#'))
            return;
        if (c == QLatin1Char('\'') || c == QLatin1Char('"')) {
            quote = c;
            continue;
        }
        if (c == QLatin1Char('(') || c == QLatin1Char('[') || c == QLatin1Char('{'))
            ++depth;
        else if (c == QLatin1Char(')') || c == QLatin1Char(']') || c == QLatin1Char('}'))
            depth = std::max(0, depth - 1);
        k = visit(k, depth);
    }
}

/// On the text of a def starting at @p firstLine: more than 200 nested brackets (Python's limit) or more than 1000
/// prefix operators in a row. Throws LocatedError.
void refuseHostileText(const QString& text, int firstLine, const QString& path);

/// On an archive's code file: a class-body `NAME = VALUE` without a type, which libtorch's importer crashes on, and
/// a method defined twice in one class, whose half-made class it leaks. Throws LocatedError (line 1 is the file's
/// first line).
void refuseHostileClassBodies(const QString& text, const QString& path);

/// On an archive's code file @p entry, before torch::jit::load compiles it: refuseHostileText(),
/// refuseHostileClassBodies(), then each class and def parsed as libtorch's importer parses them and measured
/// as refuseHostileTree() does. Throws LocatedError with @p entry as the file; code libtorch cannot parse is left
/// to libtorch's own error.
void refuseHostileArchiveSource(const QString& text, const QString& entry);

/// On the parsed def, before anything recursive walks it: a tree deeper than 2000 levels, and constant integer
/// arithmetic that libtorch's folding traps on (INT64_MIN // -1, INT64_MIN % -1). Throws torch::jit::ErrorReport.
void refuseHostileTree(const torch::jit::Def& def);

} // namespace jitscope
