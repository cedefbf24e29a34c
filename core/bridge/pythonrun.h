#pragma once

#include "report/pythonrun.h"

namespace jitscope {

/// Runs @p path under the system's PyTorch and records what it did. Never throws; blocks until the child ends
/// (honouring options.cancel and timeoutMs within 50 ms). Running the file runs its code: call it only after the
/// user consented.
PythonRun runPythonFile(const QString& path, const PythonOptions& options = {});

/// Parses the bridge's result.json (protocol 1) into @p run. False with @p error on malformed input.
bool parsePythonRecord(const QByteArray& json, PythonRun& run, QString* error = nullptr);

/// Reads a finished run back from its record (result.json in @p folder, PythonRun::folder) into @p run: what the
/// model worker does with a run the window made. False with @p error ("the run's record could not be read: ...").
bool readPythonRecord(const QString& folder, PythonRun& run, QString* error);

} // namespace jitscope
