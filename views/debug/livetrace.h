#pragma once

#include "ir/irgraph.h"

namespace jitscope {

/// What the Live trace tab shows of a trace snapshot taken at a pause (DebugSession::Pause::traceSoFar).
///
/// Two things set such a snapshot apart from a finished trace, and this undoes them:
/// - the session summarises the live values while the tracer records, so every tensor's statistics (detach, to
///   double, isnan, isinf, isfinite, masked_select, min, max, ...) are recorded too. They are dead code that
///   torch.jit.trace's cleanup drops at the end; here they are dropped as they appear.
/// - snapshot nodes carry no provenance (originNode -1). Each gets the script node of its source line with the
///   same kind, else the first node of that line, so that selecting it selects a script node.
/// A graph with provenance and without such statistics (a finished trace) comes back unchanged.
IrGraph liveTraceGraph(const IrGraph& snapshot, const IrGraph& script);

} // namespace jitscope
