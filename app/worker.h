#pragma once

namespace jitscope {

/// The model worker's loop (jitscope-worker, started by the window): requests on stdin, answers and a heartbeat on
/// stdout (protocol/protocol.h). Returns when the window closes stdin; arms $JITSCOPE_WORKER_FAULT first (tests).
int runWorker();

} // namespace jitscope
