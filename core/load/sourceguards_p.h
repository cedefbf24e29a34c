#pragma once

// Private to core/load: checks a def's source passes before libtorch's TorchScript front end sees it.

#include "ir/irgraph.h"

#include <QString>

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

/// On the text of a def starting at @p firstLine: more than 200 nested brackets (Python's limit) or more than 1000
/// prefix operators in a row. Throws LocatedError.
void refuseHostileText(const QString& text, int firstLine, const QString& path);

/// On the parsed def, before anything recursive walks it: a tree deeper than 2000 levels, and constant integer
/// arithmetic that libtorch's folding traps on (INT64_MIN // -1, INT64_MIN % -1). Throws torch::jit::ErrorReport.
void refuseHostileTree(const torch::jit::Def& def);

} // namespace jitscope
