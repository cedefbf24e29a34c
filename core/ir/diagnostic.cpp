#include "ir/irgraph.h"

#include <QStringList>

namespace jitscope {

QString Diagnostic::toString() const
{
    if (location.line > 0)
        return QStringLiteral("%1:%2:%3: %4").arg(location.file).arg(location.line).arg(location.column).arg(message);
    return QStringLiteral("%1: %2").arg(location.file, message);
}

} // namespace jitscope
