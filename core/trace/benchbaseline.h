#pragma once

// For bench/bench_trace only: the baseline JitScope's tracing is measured against.

#include "trace/trace.h"

namespace jitscope {

/// libtorch's own interpreter (GraphExecutor) run under its C++ tracer, the way a C++ program would trace. Bakes
/// sizes where Python records them; see traceFunction for the real thing.
TraceResult traceWithLibtorchInterpreter(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options = {});

} // namespace jitscope
