#include "ir/torcherror_p.h"

#include <QRegularExpression>
#include <QStringList>

#include <algorithm>

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

Diagnostic diagnosticFromTorchError(const std::string& what, const QString& fallbackFile)
{
    Diagnostic d;
    d.location.file = fallbackFile;
    const QString text = QString::fromStdString(what);
    const QStringList lines = text.split(QLatin1Char('\n'));
    static const QRegularExpression fileLine(QStringLiteral("^\\s*File \"(.*)\", line (\\d+)"));
    QStringList message;
    int fileLineIdx = -1;
    for (int i = 0; i < lines.size(); ++i) {
        auto m = fileLine.match(lines[i]);
        if (m.hasMatch()) {
            d.location.file = m.captured(1);
            d.location.line = m.captured(2).toInt();
            fileLineIdx = i;
            break;
        }
        message << lines[i];
    }
    if (fileLineIdx >= 0) {
        // The caret line follows the code lines: its first '~' sits under the error's column.
        for (int i = fileLineIdx + 1; i < lines.size(); ++i) {
            if (lines[i].contains(QLatin1String("<--- HERE"))) {
                d.location.column = std::max(0, int(lines[i].indexOf(QLatin1Char('~'))));
                break;
            }
        }
    }
    QString msg = message.join(QLatin1Char(' ')).simplified();
    if (msg.endsWith(QLatin1Char(':')))
        msg.chop(1);
    // c10::Error appends a C++ backtrace ("Exception raised from ..."); users never want it.
    const int bt = msg.indexOf(QLatin1String("Exception raised from"));
    if (bt > 0)
        msg = msg.left(bt).trimmed();
    d.message = msg.isEmpty() ? QStringLiteral("compilation failed") : msg;
    return d;
}

} // namespace jitscope
