#pragma once

// Private to core/load: the pickles of a TorchScript archive (data.pkl, constants.pkl, *.debug_pkl) checked before
// torch::jit::load unpickles them. libtorch's unpickler trusts its input: a stack underflow corrupts the heap, a
// value nested 300,000 deep overflows the stack when it is destroyed. No libtorch here, so it can be fuzzed alone.

#include <cstddef>
#include <string>

namespace jitscope {

/// What checkPickle() found wrong, and where.
struct PickleProblem
{
    bool ok = true;
    size_t offset = 0; ///< byte offset of the offending opcode in the pickle
    std::string message;
};

/// The nesting depth checkPickle() allows by default (Python's own recursion limit).
constexpr int kMaxPickleDepth = 1000;

/// Scans @p size bytes of a pickle as libtorch's unpickler would run them, without building anything: only the
/// opcodes torch writes (protocol 2, plus the few byte and unicode forms the unpickler reads), each argument within
/// the data, no stack underflow, MARKs matched, memo references to entries that exist, no container referring to
/// itself, values nested at most @p maxDepth deep, and a STOP. Linear in @p size.
PickleProblem checkPickle(const char* data, size_t size, int maxDepth = kMaxPickleDepth);

} // namespace jitscope
