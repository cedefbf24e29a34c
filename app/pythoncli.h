#pragma once

#include "bridge/pythonrun.h"

#include <QString>
#include <QTextStream>

namespace jitscope {

/// The CLI's commands on a .py file run under the system's PyTorch (`--python`): what the file's own
/// torch.jit.trace / script calls recorded. Each returns the exit status (0, 1 when a check diverged, 2 on error)
/// and prints the user's own stdout and stderr to @p err, as running the file would.
struct PythonCommand
{
    QString file;
    QString format = QStringLiteral("text"); ///< text or json; check also junit, markdown, html
    QString htmlLink; ///< check --format markdown: where the HTML report is
    PythonOptions options;
};

int pythonTraceCommand(const PythonCommand& command, QTextStream& out, QTextStream& err);
int pythonListCommand(const PythonCommand& command, QTextStream& out, QTextStream& err);
int pythonCheckCommand(const PythonCommand& command, QTextStream& out, QTextStream& err);

} // namespace jitscope
