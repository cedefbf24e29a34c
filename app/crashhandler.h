#pragma once

namespace jitscope {

/// Makes a fatal signal (SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL) end the process with exit status 2 and one line
/// on stderr, "PROGRAM: error: FILE:LINE: crashed (SIGFPE) while running aten::floor_divide", built from
/// ir/activity.h with write(2) alone, on an alternate stack (a stack overflow is one of the crashes). Also arms
/// Starts the watchdog that ends a run that passed its --timeout by 100 ms (exit 2, one line). Arms
/// activity::armTestCrash() from $JITSCOPE_TEST_CRASH (segv, fpe, abort, stack), for the tests of this handler.
void installCrashHandler(const char* program);

} // namespace jitscope
