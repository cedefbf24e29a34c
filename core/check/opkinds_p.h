#pragma once

// Private to check/: kinds of ops the check reasons about, one list each for every part of it.

#include <QSet>
#include <QString>

namespace jitscope {

/// Ops that draw random numbers (dropout in train mode among them): a trace of them computes other values each run.
const QSet<QString>& nondeterministicKinds();

/// Ops whose result is their first operand seen another way (select, slice, view, ...): what an in-place op on the
/// result writes into.
const QSet<QString>& viewKinds();

} // namespace jitscope
