// The memory budget: libtorch's CPU allocator replaced (c10::SetCPUAllocator, above the default's priority) by one
// that counts the bytes it hands out and refuses past the budget, plus a periodic look at the resident set for what
// grows outside tensors. Allocations are libtorch's default allocator's with a 64-byte header holding the size.

#include "execute/memorybudget_p.h"

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstdlib>
#include <fcntl.h>
#include <mutex>
#include <unistd.h>

namespace jitscope {

namespace {

constexpr size_t kHeader = 64; // c10's alignment of CPU memory: the data stays aligned

std::atomic<qint64> g_live { 0 }; ///< bytes handed out by the counting allocator, not yet freed
std::atomic<qint64> g_limit { 0 }; ///< 0: no budget
std::atomic<qint64> g_base { 0 }; ///< g_live when the budget started
std::atomic<qint64> g_residentBase { 0 };
std::atomic<unsigned> g_checks { 0 };

c10::Allocator* g_default = nullptr;

qint64 residentBytes()
{
    static const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    char text[128];
    const ssize_t n = fd < 0 ? -1 : ::pread(fd, text, sizeof text - 1, 0);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    // "size resident shared ...", in pages.
    const char* p = text;
    while (*p && *p != ' ')
        ++p;
    return qint64(std::strtoll(p, nullptr, 10)) * qint64(::sysconf(_SC_PAGESIZE));
}

void countedDelete(void* data)
{
    if (!data)
        return;
    char* base = static_cast<char*>(data) - kHeader;
    g_live.fetch_sub(*reinterpret_cast<qint64*>(base), std::memory_order_relaxed);
    g_default->raw_deleter()(base);
}

struct CountingAllocator final : c10::Allocator
{
    c10::DataPtr allocate(size_t n) override
    {
        if (n == 0)
            return { nullptr, nullptr, &countedDelete, c10::Device(c10::DeviceType::CPU) };
        const qint64 limit = g_limit.load(std::memory_order_relaxed);
        if (limit > 0) {
            const qint64 used = g_live.load(std::memory_order_relaxed) - g_base.load(std::memory_order_relaxed);
            if (qint64(n) > limit - used)
                TORCH_CHECK(false, "out of the memory budget of ", limit >> 20,
                    " MiB (--max-memory): this tensor needs ", qint64(n) >> 20, " MiB, the run holds ", used >> 20,
                    " MiB");
        }
        char* base = static_cast<char*>(g_default->raw_allocate(n + kHeader));
        *reinterpret_cast<qint64*>(base) = qint64(n);
        g_live.fetch_add(qint64(n), std::memory_order_relaxed);
        void* data = base + kHeader;
        return { data, data, &countedDelete, c10::Device(c10::DeviceType::CPU) };
    }

    c10::DeleterFnPtr raw_deleter() const override { return &countedDelete; }

    void copy_data(void* dest, const void* src, std::size_t count) const override
    {
        default_copy_data(dest, src, count);
    }
};

void installOnce()
{
    static std::once_flag once;
    std::call_once(once, [] {
        g_default = c10::GetDefaultCPUAllocator();
        static CountingAllocator counting;
        c10::SetCPUAllocator(&counting, /*priority=*/1);
    });
}

} // namespace

// Runs of the GUI overlap (a check and a debug session, on their own threads) and end in any order: the first
// budget to start sets the limit and the base, the last to end clears them.
std::mutex g_budgetsMutex;
int g_budgets = 0;

MemoryBudget::MemoryBudget(qint64 bytes)
{
    installOnce();
    const std::lock_guard<std::mutex> lock(g_budgetsMutex);
    if (g_budgets++ == 0) {
        g_base = g_live.load();
        g_residentBase = residentBytes();
        g_limit = bytes > 0 ? bytes : 0;
    }
}

MemoryBudget::~MemoryBudget()
{
    const std::lock_guard<std::mutex> lock(g_budgetsMutex);
    if (--g_budgets == 0)
        g_limit = 0;
}

std::string MemoryBudget::check()
{
    const qint64 limit = g_limit.load(std::memory_order_relaxed);
    if (limit <= 0 || (g_checks.fetch_add(1, std::memory_order_relaxed) & 1023) != 1023)
        return {};
    const qint64 grown = residentBytes() - g_residentBase.load(std::memory_order_relaxed);
    if (grown <= limit)
        return {};
    return "out of the memory budget of " + std::to_string(limit >> 20) + " MiB (--max-memory): the run has grown by "
        + std::to_string(grown >> 20) + " MiB (tensors, and the trace it records)";
}

} // namespace jitscope
