#include "model.h"

namespace jitscope {

QString Diagnostic::toString() const
{
    if (location.line > 0)
        return QStringLiteral("%1:%2:%3: %4").arg(location.file).arg(location.line).arg(location.column).arg(message);
    return QStringLiteral("%1: %2").arg(location.file, message);
}

const FunctionInfo* ModelInfo::function(const QString& name) const
{
    for (const FunctionInfo& f : functions)
        if (f.name == name)
            return &f;
    return nullptr;
}

const FunctionInfo* ModelInfo::defaultFunction() const
{
    if (const FunctionInfo* f = function(QStringLiteral("forward")))
        return f;
    if (functions.size() == 1)
        return &functions.first();
    return nullptr;
}

} // namespace jitscope
