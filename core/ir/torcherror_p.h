#pragma once

// Private to core: turning libtorch's exception texts into one line for users.

#include <QString>

namespace jitscope {

/// The line of a libtorch exception's what() that says what went wrong: c10 backtraces ("Exception raised
/// from ...") dropped, and for TorchScript runtime errors the "...Error: message" line after the quoted stack.
QString torchErrorMessage(const char* what);

} // namespace jitscope
