// A recorded Python run's queries, and which Python and bridge script a run uses.

#include "report/pythonrun.h"
#include "report/interpreters.h"
#include "report/modelinfo.h"

#include <QFileInfo>

namespace jitscope {

int PythonRun::failedCall() const
{
    if (status != QLatin1String("error"))
        return -1;
    for (const PythonCall& c : calls)
        if (!c.ok && (c.location.line == error.location.line || c.error.message == error.message))
            return c.index;
    return -1;
}

QString pythonInterpreter(const PythonOptions& options)
{
    return choosePython(options.python).path;
}

QString bridgeScript(const PythonOptions& options)
{
    if (!options.bridge.isEmpty())
        return options.bridge;
    const QString env = qEnvironmentVariable("JITSCOPE_BRIDGE");
    if (!env.isEmpty())
        return env;
    // Installed: share/jitscope/python beside bin/ (or libexec/jitscope/); the build tree: the source tree's.
    const QString dir = QFileInfo(QFileInfo(QStringLiteral("/proc/self/exe")).canonicalFilePath()).absolutePath();
    QStringList candidates { dir + QStringLiteral("/../share/jitscope/python/jitscope_bridge.py"),
        dir + QStringLiteral("/../../share/jitscope/python/jitscope_bridge.py") };
    if (runsFromBuildTree())
        candidates << QStringLiteral(JITSCOPE_SOURCE_DIR "/resources/python/jitscope_bridge.py");
    for (const QString& c : std::as_const(candidates))
        if (QFileInfo::exists(c))
            return QFileInfo(c).canonicalFilePath();
    return candidates.constLast();
}

} // namespace jitscope
