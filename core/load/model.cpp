// The classes of a model's submodules.

#include "load/model.h"
#include "load/loader_p.h"

#include <QStringList>

namespace jitscope {

QString ownerModule(const QString& function)
{
    return function.contains(QLatin1Char('.')) ? function.section(QLatin1Char('.'), 0, -2) : QString();
}

QString ownerPrefix(const QString& function)
{
    const QString owner = ownerModule(function);
    return owner.isEmpty() ? QString() : owner + QLatin1Char('.');
}

QHash<QString, QString> submoduleTypes(const ModelInfo& model, const QString& function)
{
    const QString owner = ownerModule(function);
    const QString prefix = ownerPrefix(function);
    QHash<QString, QString> types;
    for (const SubmoduleInfo& s : model.submodules) {
        if (s.path.isEmpty() || s.path == owner || !s.path.startsWith(prefix))
            continue;
        types.insert(s.path.mid(prefix.size()), s.typeName.section(QLatin1Char('.'), -1));
    }
    return types;
}

} // namespace jitscope
