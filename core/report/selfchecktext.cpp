// selfCheckText(): the line the CLI and the window show for what a self-check found (selfcheckcalls.cpp, which
// traces, is in core/bridge).

#include "report/selfcheck.h"

namespace jitscope {

QString selfCheckText(const SelfCheck& s)
{
    if (s.status == QLatin1String("agrees"))
        return QStringLiteral("JitScope's own trace equals PyTorch's node for node on %1 set(s)").arg(s.sets);
    if (s.status == QLatin1String("skipped"))
        return QStringLiteral("not compared: %1").arg(s.reason);
    return QStringLiteral("JitScope defect: its own trace differs from PyTorch's on %1; the first differing %2:\n"
                          "      JitScope: %3\n      PyTorch:  %4")
        .arg(s.reason, s.inputs ? QStringLiteral("line of the graph's inputs") : QStringLiteral("node"))
        .arg(s.jitscope, s.pytorch);
}

} // namespace jitscope
