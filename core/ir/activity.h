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

/// For tests of the crash handler only: the next setOperator() crashes for real ("segv": a null write, "fpe": an
/// integer division by zero, "abort": abort(), "stack": a stack overflow). Anything else disarms it.
void armTestCrash(const char* kind);

} // namespace jitscope::activity
