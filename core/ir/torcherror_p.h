#pragma once

// Private to core: turning libtorch's exception texts into what users read.

#include "report/irgraph.h"

#include <QString>

#include <string>

namespace jitscope {

/// The line of a libtorch exception's what() that says what went wrong: c10 backtraces ("Exception raised
/// from ...") dropped, and for TorchScript runtime errors the "...Error: message" line after the quoted stack.
QString torchErrorMessage(const char* what);

/// A libtorch compile error ("msg:\n  File "f", line N\n<code>\n   ~~~ <--- HERE") as a Diagnostic at the place
/// it names; in @p fallbackFile, without a line, when it names none.
Diagnostic diagnosticFromTorchError(const std::string& what, const QString& fallbackFile);

} // namespace jitscope
