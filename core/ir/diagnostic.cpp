#include "ir/irgraph.h"
#include "ir/torcherror_p.h"

#include <QStringList>

namespace jitscope {

QString torchErrorMessage(const char* what)
{
    QString s = QString::fromUtf8(what);
    const int bt = s.indexOf(QLatin1String("Exception raised from"));
    if (bt > 0)
        s = s.left(bt);
    s = s.trimmed();
    // TorchScript runtime errors quote the interpreter's stack first; the "...Error: " line holds the message.
    const QStringList lines = s.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const QString& l : lines)
        if (l.startsWith(QLatin1String("RuntimeError: ")) || l.contains(QLatin1String("Error: ")))
            return l.trimmed();
    return lines.isEmpty() ? QString() : lines.first().trimmed();
}

QString Diagnostic::toString() const
{
    if (location.line > 0)
        return QStringLiteral("%1:%2:%3: %4").arg(location.file).arg(location.line).arg(location.column).arg(message);
    return QStringLiteral("%1: %2").arg(location.file, message);
}

} // namespace jitscope
