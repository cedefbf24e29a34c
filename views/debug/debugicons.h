#pragma once

#include <QIcon>

namespace jitscope {

/// The Debug menu's actions.
enum class DebugAction {
    StartContinue,
    StepOver,
    StepInto,
    StepOut,
    NextIteration,
    RunToCursor,
    Restart,
    Stop,
    TraceWhileDebugging,
    ToggleBreakpoint,
    DebugTraceFailure, ///< run trace 1 on the input set it fails on, to the failing node
};

/// The Debug actions' icons, drawn so that they look the same under every style: blue arrows for stepping, green
/// for running, red for stopping.
QIcon debugIcon(DebugAction action);

} // namespace jitscope
