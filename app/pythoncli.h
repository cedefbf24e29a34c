#pragma once

#include "bridge/runpython.h"

#include <QString>
#include <QTextStream>

namespace jitscope {

/// The CLI's commands on a .py file run under the system's PyTorch (`--python`): what the file's own
/// torch.jit.trace / script calls recorded. Each returns the exit status (0, 1 when a check diverged, 2 on error,
/// 3 when check --self-check found JitScope tracing differently from PyTorch)
/// and prints the user's own stdout and stderr to @p err, as running the file would. With options.request (Trace,
/// Check), trace and check report that one target on the requested sets instead of the file's own calls.
struct PythonCommand
{
    QString file;
    QString format = QStringLiteral("text"); ///< text or json; check also junit, markdown, html
    QString htmlLink; ///< check --format markdown: where the HTML report is
    int call = 0; ///< graph: the recorded call to show (1-based, in the order the file made them), 0: all
    QString function; ///< graph: the script graph of this function or `Class.method`
    /// graph: dot, svg and png drawn grouped by module as the window draws them (the hierarchical layout), each
    /// submodule's code a cluster named by its path and class.
    bool modules = false;
    /// check: also trace each recorded call's target with JitScope's own executor, where its front end compiles it,
    /// and compare with the real trace node for node (a difference is a JitScope defect: exit status 3).
    bool selfCheck = false;
    bool verbose = false; ///< check text: each divergence's node rows
    PythonOptions options;
};

int pythonTraceCommand(const PythonCommand& command, QTextStream& out, QTextStream& err);
int pythonListCommand(const PythonCommand& command, QTextStream& out, QTextStream& err);
int pythonCheckCommand(const PythonCommand& command, QTextStream& out, QTextStream& err);
/// The recorded calls' graphs (text, json, dot, svg), or one: `call` or `function`.
int pythonGraphCommand(const PythonCommand& command, QTextStream& out, QTextStream& err);
/// options.request (Mode::Run): the function run on the first set, its outputs as `run` prints them.
int pythonRunCommand(const PythonCommand& command, QTextStream& out, QTextStream& err);

} // namespace jitscope
