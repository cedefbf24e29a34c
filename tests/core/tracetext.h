#pragma once

// Comparing JitScope's trace graphs with PyTorch's printed ones (tst_traces, tst_differential).

#include "report/irgraph.h"

#include <QRegularExpression>
#include <QString>

namespace jitscope::test {

/// Trace graph text without the parts Python and C++ legitimately print differently (mangled class names, module
/// scopes, value names, source comments).
inline QString comparableTrace(const QString& dump)
{
    QString text = dump;
    static const QRegularExpression mangle(QStringLiteral("___torch_mangle_\\d+\\."));
    text.remove(mangle);
    static const QRegularExpression scope(QStringLiteral(", scope: [^\\n#]*"));
    text.replace(scope, QStringLiteral(" ")); // the space before a "# file:line:col" comment stays
    return canonicalizeDump(text);
}

} // namespace jitscope::test
