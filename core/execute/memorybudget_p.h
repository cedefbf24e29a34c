#pragma once

// Private to core/execute: one memory budget for everything a run allocates (--max-memory): its inputs, the tensors
// its operators make, and what grows besides (the trace libtorch's tracer records). Torch-free header.

#include <QtGlobal>

#include <cstddef>
#include <string>

namespace jitscope {

/// While alive, CPU tensor allocations that would bring what the run holds past @p bytes fail (a c10::Error
/// libtorch reports at the operator that asked), and check() refuses a resident set grown by more than @p bytes.
/// One process, one budget: budgets alive at the same time (nested, or overlapping runs on other threads) share
/// the first one's limit and base until the last ends.
class MemoryBudget
{
public:
    explicit MemoryBudget(qint64 bytes);
    ~MemoryBudget();
    MemoryBudget(const MemoryBudget&) = delete;
    MemoryBudget& operator=(const MemoryBudget&) = delete;

    /// Every 1024th call, the process's resident memory against the budget: an empty string while within it,
    /// else what to say (the trace and everything else a run grows, which the allocator does not see).
    static std::string check();
};

} // namespace jitscope
