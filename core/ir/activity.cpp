#include "ir/activity.h"

#include <atomic>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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
std::atomic<int> g_testCrash { 0 };

enum TestCrash { None, Segv, Fpe, Abort, Stack };

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
    if (const int kind = g_testCrash.load(std::memory_order_relaxed); kind != None) [[unlikely]]
        crashNow(kind);
}

void clearOperator()
{
    g_op.store(nullptr, std::memory_order_relaxed);
}

size_t formatCrash(char* buffer, size_t size, const char* program, int signal)
{
    if (size == 0)
        return 0;
    size_t pos = 0;
    put(buffer, size, pos, program);
    put(buffer, size, pos, ": error: ");
    const char* op = g_op.load(std::memory_order_relaxed);
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
    put(buffer, size, pos, "crashed (");
    put(buffer, size, pos, signalName(signal));
    put(buffer, size, pos, ")");
    if (op) {
        put(buffer, size, pos, " while running ");
        put(buffer, size, pos, op);
        if (g_phase[0]) {
            put(buffer, size, pos, " (");
            put(buffer, size, pos, g_phase);
            put(buffer, size, pos, ")");
        }
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
