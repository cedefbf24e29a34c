#pragma once

#include <QStringList>
#include <QTextStream>

namespace jitscope {

/// Exit codes of jitscope-cli.
enum ExitCode { ExitOk = 0, ExitDiverged = 1, ExitError = 2, ExitDefect = 3 };

/// Runs jitscope-cli with its arguments (without the program name). Normal output goes to `out`,
/// errors to `err` as one line "jitscope-cli: error: FILE:LINE:COL: message".
int runCli(const QStringList& arguments, QTextStream& out, QTextStream& err);

} // namespace jitscope
