#pragma once

#include "report/pythonrun.h"

namespace jitscope {

/// Runs the bridge on @p path in a child process that writes its record into @p folder, and says how the child
/// ended (readPythonRun() reads the rest). Blocks until it ends, honouring options.cancel and timeoutMs within
/// 50 ms; kills what the file started with it. Running the file runs its code: call it only after the user
/// consented. The model worker's part of ModelEngine::runPython().
PythonChild runPythonChild(const QString& path, const PythonOptions& options, const QString& folder);

/// Runs @p path under the system's PyTorch and records what it did, in a temporary folder the run owns
/// (runPythonChild(), then readPythonRun()). Never throws.
PythonRun runPythonFile(const QString& path, const PythonOptions& options = {});

} // namespace jitscope
