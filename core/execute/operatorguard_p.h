#pragma once

// Private to core/execute: what surrounds every operator call of the interpreter (interpreter.cpp's callOperation):
// the operator named in the process's activity (ir/activity.h, for the CLI's crash line) and the integer cases
// libtorch's kernels trap on (SIGFPE) refused with an error at the node's line instead.

#include <vector>

namespace c10 {
struct IValue;
} // namespace c10

namespace torch {
namespace jit {
struct Node;
} // namespace jit
} // namespace torch

namespace jitscope {

/// For the lifetime of one operator call of @p n on its inputs @p stack. Throws NodeError at the user's line (a
/// builtin's call site for the code of builtins), before the
/// kernel runs, for INT64_MIN (or INT32_MIN in an int32 tensor) divided by -1: `//`, `%`, torch.div with
/// rounding_mode 'floor' or 'trunc', fmod, remainder, divmod, on tensors or ints; and when the run has outgrown its
/// memory budget (MemoryBudget::check()).
class OperatorGuard
{
public:
    OperatorGuard(const torch::jit::Node* n, const std::vector<c10::IValue>& stack);
    ~OperatorGuard();
    OperatorGuard(const OperatorGuard&) = delete;
    OperatorGuard& operator=(const OperatorGuard&) = delete;
};

/// For the lifetime of one run of the interpreter: its --timeout as the process's deadline (ir/activity.h), which
/// the CLI's watchdog enforces when the run's own check cannot end it in time (a kernel that runs long, or freeing
/// a trace of millions of nodes after the timeout).
class RunWatch
{
public:
    explicit RunWatch(int timeoutMs);
    ~RunWatch();
    RunWatch(const RunWatch&) = delete;
    RunWatch& operator=(const RunWatch&) = delete;

private:
    long long m_previous;
};

} // namespace jitscope
