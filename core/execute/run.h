#pragma once

#include "load/model.h"
#include "report/runvalues.h"

namespace jitscope {

/// Runs the script function itself (no tracing). Thread-safe: runs of one model overlap (each runs on its own
/// copy of the module); never throws.
RunResult runFunction(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options = {});

} // namespace jitscope
