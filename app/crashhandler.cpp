#include "crashhandler.h"

#include "ir/activity.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <thread>
#include <unistd.h>

namespace jitscope {

namespace {

const char* g_program = "jitscope";
char g_line[2048];

void onFatalSignal(int signal)
{
    // Only async-signal-safe calls from here on: the heap or libtorch may be what broke.
    const size_t n = activity::formatCrash(g_line, sizeof g_line, g_program, signal);
    size_t written = 0;
    while (written < n) {
        const ssize_t w = ::write(STDERR_FILENO, g_line + written, n - written);
        if (w <= 0)
            break;
        written += size_t(w);
    }
    ::_exit(2);
}

/// Ends the process when a run passes its --timeout by more than 100 ms: the run's own check stops it at the next
/// node, but a kernel can run long, and freeing the trace it recorded can take seconds.
void watchdog()
{
    static char line[2048];
    while (true) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (!activity::deadlinePassed(100))
            continue;
        const size_t n = activity::formatTimeout(line, sizeof line, g_program);
        size_t written = 0;
        while (written < n) {
            const ssize_t w = ::write(STDERR_FILENO, line + written, n - written);
            if (w <= 0)
                break;
            written += size_t(w);
        }
        ::_exit(2);
    }
}

} // namespace

void installCrashHandler(const char* program)
{
    g_program = program;
    // A stack overflow (deep recursion in libtorch) leaves no stack to run the handler on.
    static char alternateStack[64 * 1024];
    stack_t ss {};
    ss.ss_sp = alternateStack;
    ss.ss_size = sizeof alternateStack;
    ::sigaltstack(&ss, nullptr);
    struct sigaction action
    {
    };
    action.sa_handler = onFatalSignal;
    action.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    for (int s : { SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL })
        ::sigaction(s, &action, nullptr);
    activity::armTestCrash(std::getenv("JITSCOPE_TEST_CRASH"));
    std::thread(watchdog).detach();
}

} // namespace jitscope
