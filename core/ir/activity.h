#pragma once

// What the pipeline is doing right now, kept in fixed buffers so that a fatal-signal handler can say it with
// write(2) alone ("FILE:LINE: crashed (SIGFPE) while running aten::floor_divide"). Updating it is cheap: the phase
// and file are formatted with snprintf when they change (a few times per command), the operator is two stores per
// operator call. One activity per process: the CLI runs one thing at a time.

#include <cstddef>

namespace jitscope::activity {

/// The file being worked on; nullptr or "" forgets it.
void setFile(const char* path);
/// What is being done, as a phrase after "while" ("loading", "compiling `def f`", "tracing input set 2"), and the
/// line it is at (0: none). printf-style.
void setPhase(int line, const char* format, ...) __attribute__((format(printf, 2, 3)));
/// The operator running (its qualified name, a string that outlives the call, e.g. a Symbol's toQualString()), the
/// file and line it is at (@p file: a string that stays valid until the next call; nullptr: the setFile() file);
/// cleared with clearOperator(). Calls the test crash when one is armed.
void setOperator(const char* op, const char* file, int line);
void clearOperator();

/// The run in progress must end within @p timeoutMs from now (0: no limit). Returns the previous deadline, for
/// restoreDeadline() when the run ends (runs may nest).
long long setDeadline(int timeoutMs);
void restoreDeadline(long long previous);
/// True once the deadline has passed by more than @p graceMs (a watchdog's question: the run's own timeout check
/// should have ended the process by then).
bool deadlinePassed(int graceMs);

/// Formats "PROGRAM: error: FILE:LINE: crashed (SIGNAME) while WHAT\n" into @p buffer from the current activity,
/// with no allocation, lock or stdio: callable from a signal handler. Returns the length (at most @p size - 1).
size_t formatCrash(char* buffer, size_t size, const char* program, int signal);

/// Formats "PROGRAM: error: FILE:LINE: did not finish within S s; stopped while running OP (PHASE)\n" (between
/// operators: "stopped while PHASE, after OP", at the last operator's line), as formatCrash() does.
size_t formatTimeout(char* buffer, size_t size, const char* program);

/// Formats "FILE:LINE: while running OP (PHASE)" (or "while PHASE") from the current activity, without a program
/// name: what the model worker's heartbeat tells the window. Returns the length.
size_t formatActivity(char* buffer, size_t size);
/// Operator calls so far in the process (setOperator() calls), and whether one is running: a watcher that sees the
/// count stand still while an operator runs knows how long it has been running.
unsigned long long operatorCalls();
bool operatorRunning();

/// For tests of the model worker only ($JITSCOPE_WORKER_FAULT): "KIND@OP" or "KIND@OP#N" makes the N-th (default
/// first) setOperator() of operator OP (e.g. aten::mul) abort ("abort"), write through a null pointer ("segv"),
/// never return ("hang") or allocate without bound until the address space limit it sets stops it, then end the
/// process with SIGKILL as the kernel's OOM killer would ("oom"). Returns false (nothing armed) on a malformed spec.
bool armFault(const char* spec);

/// For tests of the crash handler only: the next setOperator() crashes for real ("segv": a null write, "fpe": an
/// integer division by zero, "abort": abort(), "stack": a stack overflow). Anything else disarms it.
void armTestCrash(const char* kind);

} // namespace jitscope::activity
