#pragma once

// The window's Run Again without `import torch`: one Python server per interpreter and bridge kept warm
// (`jitscope_bridge.py --serve`, resources/python/jitscope_bridge_serve.py), each run a fork of it.

#include "report/pythonrun.h"

#include <optional>

namespace jitscope {

/// Runs the bridge on @p arguments (what follows the bridge script on a cold run's command line) in a fork of the
/// warm server of @p python and @p bridge, with what runPythonChild() promises of a cold run: the same record, the
/// output capped, progress, cancel and timeout, the run's process group killed. The server is started when there is
/// none (this run waits for its `import torch`), and replaced when it died, hung, or its interpreter, bridge files or
/// environment changed. Nothing when the warm path cannot take the run (the server cannot start: this Python has no
/// torch, or fork is missing; the server is busy with another run): run it cold then; nothing of the file ran.
std::optional<PythonChild> runWarmPython(const QString& python, const QString& bridge, const QStringList& arguments,
    const QString& folder, const PythonOptions& options);

/// The process ids of this process's warm servers that are alive and ready for a run (a server imports what its
/// last run imported before it is).
QVector<qint64> warmPythonServers();

/// Ends this process's idle warm servers and waits (at most 3 s) until they have ended.
void endWarmPythonServers();

} // namespace jitscope
