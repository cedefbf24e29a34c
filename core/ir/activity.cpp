#include "ir/activity.h"

#include <atomic>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace jitscope::activity {

namespace {

// Written by the pipeline, read by a signal handler: plain buffers, each always NUL-terminated (snprintf writes the
// terminator last; a handler that interrupts a write reads a prefix of the old or the new text, never past the end).
char g_file[1024];
char g_phase[256];
std::atomic<int> g_phaseLine { 0 };
std::atomic<const char*> g_op { nullptr };
std::atomic<const char*> g_opFile { nullptr };
std::atomic<int> g_opLine { 0 };
std::atomic<const char*> g_lastOp { nullptr }; ///< the operator that ran last (set with g_op, kept by clearOperator)
std::atomic<int> g_testCrash { 0 };
std::atomic<long long> g_deadlineNs { 0 }; ///< steady clock; 0: none
std::atomic<unsigned long long> g_opCalls { 0 };
// The armed fault (armFault()): its kind, operator and which call of it.
std::atomic<int> g_faultKind { 0 };
char g_faultOp[128];
std::atomic<int> g_faultCountdown { 0 };
std::atomic<int> g_timeoutMs { 0 };

long long nowNs()
{
    timespec ts {};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

enum TestCrash { None, Segv, Fpe, Abort, Stack, Hang, Oom };

/// The process's virtual memory size (the first field of /proc/self/statm, in pages).
unsigned long long mappedBytes()
{
    unsigned long long pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%llu", &pages) != 1)
            pages = 0;
        std::fclose(f);
    }
    return pages * (unsigned long long)::sysconf(_SC_PAGESIZE);
}

/// Recurses until the stack overflows (as libtorch's recursive parser did on deep nesting).
int overflowStack(volatile int depth)
{
    volatile char frame[4096];
    frame[0] = char(depth);
    return overflowStack(depth + 1) + frame[0];
}

void crashNow(int kind)
{
    g_testCrash = None;
    if (kind == Segv) {
        volatile int* volatile p = nullptr;
        *p = 1;
    } else if (kind == Stack) {
        g_opLine = overflowStack(0);
    } else if (kind == Fpe) {
        volatile int zero = 0;
        volatile int one = 1;
        g_opLine = one / zero;
    } else if (kind == Hang) {
        while (true)
            ::pause();
    } else if (kind == Oom) {
        // A limit close above what the process maps now, so that the test is quick and spares the machine; then
        // pages touched until an allocation fails, and the end the kernel's OOM killer gives (SIGKILL).
        rlimit limit {};
        ::getrlimit(RLIMIT_AS, &limit);
        limit.rlim_cur = rlim_t(mappedBytes() + (256ull << 20));
        ::setrlimit(RLIMIT_AS, &limit);
        const size_t chunk = 16u << 20;
        static void* volatile held = nullptr;
        while (void* p = std::malloc(chunk)) {
            std::memset(p, 1, chunk);
            held = p;
        }
        // Memory that grows for a while before the kill, as a real one does: the model worker's heartbeat says
        // where it was in the meantime.
        ::usleep(500 * 1000);
        ::kill(::getpid(), SIGKILL);
    } else {
        std::abort();
    }
}

/// Appends @p s to the buffer at @p pos (truncating), async-signal-safe.
void put(char* buffer, size_t size, size_t& pos, const char* s)
{
    while (s && *s && pos + 1 < size)
        buffer[pos++] = *s++;
}

void putNumber(char* buffer, size_t size, size_t& pos, int value)
{
    char digits[16];
    int n = 0;
    unsigned v = value < 0 ? 0u : unsigned(value);
    do {
        digits[n++] = char('0' + v % 10);
        v /= 10;
    } while (v && n < 15);
    while (n > 0 && pos + 1 < size)
        buffer[pos++] = digits[--n];
}

const char* signalName(int signal)
{
    switch (signal) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGABRT:
        return "SIGABRT";
    case SIGFPE:
        return "SIGFPE";
    case SIGBUS:
        return "SIGBUS";
    case SIGILL:
        return "SIGILL";
    default:
        return "a fatal signal";
    }
}

} // namespace

void setFile(const char* path)
{
    std::snprintf(g_file, sizeof g_file, "%s", path ? path : "");
}

void setPhase(int line, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    std::vsnprintf(g_phase, sizeof g_phase, format, args);
    va_end(args);
    g_phaseLine = line;
}

void setOperator(const char* op, const char* file, int line)
{
    g_opLine.store(line, std::memory_order_relaxed);
    g_opFile.store(file, std::memory_order_relaxed);
    g_op.store(op, std::memory_order_relaxed);
    g_lastOp.store(op, std::memory_order_relaxed);
    g_opCalls.fetch_add(1, std::memory_order_relaxed);
    if (const int fault = g_faultKind.load(std::memory_order_relaxed); fault != None) [[unlikely]] {
        if (op && std::strcmp(op, g_faultOp) == 0 && g_faultCountdown.fetch_sub(1) == 1) {
            g_faultKind = None;
            crashNow(fault);
        }
    }
    if (const int kind = g_testCrash.load(std::memory_order_relaxed); kind != None) [[unlikely]]
        crashNow(kind);
}

void clearOperator()
{
    g_op.store(nullptr, std::memory_order_relaxed);
}

long long setDeadline(int timeoutMs)
{
    const long long previous = g_deadlineNs.load();
    g_timeoutMs = timeoutMs;
    g_deadlineNs = timeoutMs > 0 ? nowNs() + (long long)timeoutMs * 1000000LL : 0;
    return previous;
}

void restoreDeadline(long long previous)
{
    g_deadlineNs = previous;
}

bool deadlinePassed(int graceMs)
{
    const long long deadline = g_deadlineNs.load();
    return deadline != 0 && nowNs() > deadline + (long long)graceMs * 1000000LL;
}

namespace {

/// "PROGRAM: error: FILE:LINE: " for the current place, then @p what, then what was running. With @p lastOperator,
/// between operators the place is the last operator's.
size_t formatEvent(
    char* buffer, size_t size, const char* program, const char* what, const char* detail, bool lastOperator)
{
    if (size == 0)
        return 0;
    size_t pos = 0;
    if (program) {
        put(buffer, size, pos, program);
        put(buffer, size, pos, ": error: ");
    }
    const char* running = g_op.load(std::memory_order_relaxed);
    const char* last = lastOperator && !running ? g_lastOp.load(std::memory_order_relaxed) : nullptr;
    const char* op = running ? running : last;
    const int line = op ? g_opLine.load(std::memory_order_relaxed) : g_phaseLine.load(std::memory_order_relaxed);
    const char* opFile = op ? g_opFile.load(std::memory_order_relaxed) : nullptr;
    const char* file = opFile && opFile[0] ? opFile : g_file;
    if (file[0]) {
        put(buffer, size, pos, file);
        if (line > 0) {
            put(buffer, size, pos, ":");
            putNumber(buffer, size, pos, line);
        }
        put(buffer, size, pos, ": ");
    }
    put(buffer, size, pos, what);
    put(buffer, size, pos, detail);
    if (running) {
        put(buffer, size, pos, " while running ");
        put(buffer, size, pos, op);
        if (g_phase[0]) {
            put(buffer, size, pos, " (");
            put(buffer, size, pos, g_phase);
            put(buffer, size, pos, ")");
        }
    } else if (last) {
        if (g_phase[0]) {
            put(buffer, size, pos, " while ");
            put(buffer, size, pos, g_phase);
        }
        put(buffer, size, pos, ", after ");
        put(buffer, size, pos, last);
    } else if (g_phase[0]) {
        put(buffer, size, pos, " while ");
        put(buffer, size, pos, g_phase);
    }
    put(buffer, size, pos, "\n");
    if (pos + 1 == size)
        buffer[pos - 1] = '\n';
    buffer[pos] = '\0';
    return pos;
}

} // namespace

size_t formatCrash(char* buffer, size_t size, const char* program, int signal)
{
    char what[48];
    size_t pos = 0;
    put(what, sizeof what, pos, "crashed (");
    put(what, sizeof what, pos, signalName(signal));
    put(what, sizeof what, pos, ")");
    what[pos] = '\0';
    return formatEvent(buffer, size, program, what, "", false);
}

size_t formatTimeout(char* buffer, size_t size, const char* program)
{
    // "did not finish within 2.5 s; stopped": the seconds with up to three decimals, as the interpreter says them.
    char seconds[48];
    size_t pos = 0;
    const int ms = g_timeoutMs.load();
    putNumber(seconds, sizeof seconds, pos, ms / 1000);
    if (ms % 1000) {
        char frac[4] = { char('0' + ms % 1000 / 100), char('0' + ms % 100 / 10), char('0' + ms % 10), 0 };
        for (int i = 2; i > 0 && frac[i] == '0'; --i)
            frac[i] = 0;
        put(seconds, sizeof seconds, pos, ".");
        put(seconds, sizeof seconds, pos, frac);
    }
    put(seconds, sizeof seconds, pos, " s; stopped");
    seconds[pos] = '\0';
    return formatEvent(buffer, size, program, "did not finish within ", seconds, true);
}

size_t formatActivity(char* buffer, size_t size)
{
    const size_t n = formatEvent(buffer, size, nullptr, "", "", true);
    // No event to name: "FILE:LINE:  while" loses the blank an event's words would have taken, and the newline.
    size_t out = 0;
    for (size_t i = 0; i < n; ++i) {
        if (buffer[i] == '\n' || (buffer[i] == ' ' && out > 0 && buffer[out - 1] == ' '))
            continue;
        buffer[out++] = buffer[i];
    }
    if (size > 0)
        buffer[out < size ? out : size - 1] = '\0';
    return out;
}

unsigned long long operatorCalls()
{
    return g_opCalls.load(std::memory_order_relaxed);
}

bool operatorRunning()
{
    return g_op.load(std::memory_order_relaxed) != nullptr;
}

bool armFault(const char* spec)
{
    g_faultKind = None;
    if (!spec)
        return false;
    const char* at = std::strchr(spec, '@');
    if (!at)
        return false;
    const std::string kind(spec, at);
    const int k = kind == "abort" ? Abort : kind == "segv" ? Segv : kind == "hang" ? Hang : kind == "oom" ? Oom : None;
    std::string op(at + 1);
    int nth = 1;
    if (const size_t hash = op.find('#'); hash != std::string::npos) {
        char* end = nullptr;
        const long n = std::strtol(op.c_str() + hash + 1, &end, 10);
        if (!end || *end || n < 1 || n > 1000000)
            return false;
        nth = int(n);
        op.resize(hash);
    }
    if (k == None || op.empty() || op.size() >= sizeof g_faultOp)
        return false;
    std::snprintf(g_faultOp, sizeof g_faultOp, "%s", op.c_str());
    g_faultCountdown = nth;
    g_faultKind = k;
    return true;
}

void armTestCrash(const char* kind)
{
    const int k = !kind                   ? None
        : std::strcmp(kind, "segv") == 0  ? Segv
        : std::strcmp(kind, "fpe") == 0   ? Fpe
        : std::strcmp(kind, "abort") == 0 ? Abort
        : std::strcmp(kind, "stack") == 0 ? Stack
                                          : None;
    g_testCrash = k;
}

} // namespace jitscope::activity
