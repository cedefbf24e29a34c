// The debugger's breakpoints, by line of the source panel and with their iteration conditions, Run to Line, and the
// script graph's context menu for them.

#include "debuguicontroller.h"

#include "debugcontroller.h"
#include "documentcontroller.h"
#include "graphpage.h"
#include "graphscene.h"
#include "sourceview.h"

#include <QAction>
#include <QInputDialog>
#include <QMainWindow>
#include <QMenu>

#include <limits>

namespace jitscope {

int DebugUiController::fileLineOf(int sourceLine) const
{
    // Archives: the panel shows the code/ files one after the other; the line must be in the function's file.
    const FunctionInfo* fn
        = m_document->model().function(m_debugger->isActive() ? m_debugger->function() : m_document->currentFunction());
    if (sourceLine > 0 && m_document->model().kind == ModelInfo::Kind::PythonSource)
        return sourceLine;
    return fn ? m_document->sourceMap().fileLineOf(sourceLine, fn->location) : 0;
}

void DebugUiController::setBreakpoint(int line, int iteration)
{
    if (line <= 0 || !m_document->hasModel())
        return;
    m_breakpoints.insert(line, iteration > 0 ? iteration : -1);
    applyBreakpoints();
}

void DebugUiController::removeBreakpoint(int line)
{
    m_breakpoints.remove(line);
    applyBreakpoints();
}

void DebugUiController::toggleBreakpoint(int line)
{
    if (m_breakpoints.contains(line))
        removeBreakpoint(line);
    else
        setBreakpoint(line);
}

void DebugUiController::applyBreakpoints()
{
    m_parts.source->setBreakpoints(m_breakpoints);
    QVector<DebugBreakpoint> list;
    for (auto it = m_breakpoints.cbegin(); it != m_breakpoints.cend(); ++it) {
        if (const int line = fileLineOf(it.key()); line > 0)
            list.append({ line, it.value() });
    }
    m_debugger->setBreakpoints(list);
    // The script nodes on those lines get a dot.
    QSet<int> nodes;
    if (const FunctionInfo* fn = m_document->model().function(m_document->shownFunction());
        fn && !m_breakpoints.isEmpty()) {
        for (const IrNode& node : fn->graph.nodes) {
            if (node.kind == QLatin1String("prim::Constant")
                || !m_breakpoints.contains(m_document->sourceLineFor(node.location)))
                continue;
            if (m_parts.script->scene()->nodeItem(node.id))
                nodes.insert(node.id);
        }
    }
    m_parts.script->scene()->setBreakpointNodes(nodes);
}

void DebugUiController::editBreakpointCondition(int line)
{
    if (line <= 0)
        return;
    bool ok = false;
    const int current = m_breakpoints.value(line, -1);
    const int iteration = QInputDialog::getInt(m_parts.window, tr("Break Only in Iteration"),
        tr("Break at line %1 only in this iteration (1-based) of the innermost loop;\n0 breaks in every iteration:")
            .arg(line),
        current > 0 ? current : 1, 0, std::numeric_limits<int>::max(), 1, &ok);
    if (ok)
        setBreakpoint(line, iteration);
}

int DebugUiController::runToCursorLine() const
{
    if (m_parts.source->hasFocus())
        return m_parts.source->cursorLine();
    const FunctionInfo* fn = m_document->model().function(m_document->shownFunction());
    const int node = m_parts.script->scene()->selectedNodeId();
    if (fn && node >= 0 && node < fn->graph.nodes.size()) {
        if (const int line = m_document->sourceLineFor(fn->graph.node(node).location); line > 0)
            return line;
    }
    return m_parts.source->cursorLine();
}

void DebugUiController::runToLine(int line)
{
    if (line <= 0)
        return;
    command(DebugCommand::RunToLine, line);
}

void DebugUiController::onScriptNodeContextMenu(int nodeId, const QPoint& globalPos)
{
    const FunctionInfo* fn = m_document->model().function(m_document->shownFunction());
    if (!fn || !fn->ok || nodeId < 0 || nodeId >= fn->graph.nodes.size())
        return;
    m_parts.script->scene()->selectNode(nodeId);
    const int line = m_document->sourceLineFor(fn->graph.node(nodeId).location);
    QMenu menu;
    const bool has = m_breakpoints.contains(line);
    QAction* toggle
        = menu.addAction(has ? tr("Remove Breakpoint at Line %1").arg(line) : tr("Add Breakpoint at Line %1").arg(line),
            this, [this, line] { toggleBreakpoint(line); });
    QAction* condition
        = menu.addAction(tr("Break Only in Iteration\u2026"), this, [this, line] { editBreakpointCondition(line); });
    QAction* run = menu.addAction(tr("Run to Here"), this, [this, line] { runToLine(line); });
    for (QAction* a : { toggle, condition, run })
        a->setEnabled(line > 0);
    run->setEnabled(line > 0 && (m_debugger->isPaused() || !m_debugger->isActive()));
    menu.exec(globalPos);
}

} // namespace jitscope
