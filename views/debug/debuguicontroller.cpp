// The debugger's GUI: its docks, menu and toolbar, a session started, stopped and restarted, and each pause shown in
// the script graph, the source, Frames, Values and the live trace.

#include "debuguicontroller.h"

#include "checkcontroller.h"
#include "debugcontroller.h"
#include "documentcontroller.h"
#include "framesmodel.h"
#include "graphpage.h"
#include "graphscene.h"
#include "graphview.h"
#include "inputsetsmodel.h"
#include "livetracetab.h"
#include "sourceview.h"
#include "valuesmodel.h"
#include "valuespanel.h"

#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>

namespace jitscope {

DebugUiController::DebugUiController(
    const Parts& parts, const DocumentController* document, CheckController* check, QObject* parent)
    : QObject(parent)
    , m_parts(parts)
    , m_document(document)
    , m_check(check)
{
    m_debugger = new DebugController(this);
    connect(m_debugger, &DebugController::paused, this, &DebugUiController::onPaused);
    connect(m_debugger, &DebugController::finished, this, &DebugUiController::onFinished);
    connect(m_debugger, &DebugController::stateChanged, this, &DebugUiController::updateActions);
    m_live = new LiveTraceTab(parts.tabs, this);
    // Debug Trace 1 Where It Fails follows the check shown.
    connect(m_check, &CheckController::finished, this, &DebugUiController::updateActions);
    connect(m_check, &CheckController::cleared, this, &DebugUiController::updateActions);
}

DebugUiController::~DebugUiController()
{
    // The sessions end at their next node; their threads are joined here, while the views are still whole.
    m_debugger->disconnect(this);
    delete m_debugger;
}

ValuesModel* DebugUiController::valuesModel() const
{
    return m_values->model();
}

QTreeView* DebugUiController::valuesView() const
{
    return m_values->view();
}

bool DebugUiController::isActive() const
{
    return m_debugger->isActive();
}

void DebugUiController::showScriptTab()
{
    m_parts.tabs->setCurrentWidget(m_parts.script);
}

void DebugUiController::reset()
{
    // A session runs the old model: end it, and forget the old file's breakpoints.
    stop();
    m_checkAfterDebug = false;
    m_breakpoints.clear();
    applyBreakpoints();
    m_framesModel->clear();
    valuesModel()->clear();
    clearMarkers();
    m_live->remove();
}

void DebugUiController::createDocks()
{
    m_framesModel = new FramesModel(this);
    m_framesView = new QTreeView;
    m_framesView->setModel(m_framesModel);
    m_framesView->setRootIsDecorated(false);
    m_framesView->setUniformRowHeights(true);
    m_framesView->setAllColumnsShowFocus(true);
    m_framesView->header()->setStretchLastSection(false);
    m_framesView->header()->setSectionResizeMode(FramesModel::FrameColumn, QHeaderView::Stretch);
    m_framesView->header()->setSectionResizeMode(FramesModel::LineColumn, QHeaderView::ResizeToContents);
    connect(m_framesView, &QTreeView::clicked, this, &DebugUiController::onFrameActivated);
    connect(m_framesView, &QTreeView::activated, this, &DebugUiController::onFrameActivated);
    m_framesDock = new QDockWidget(tr("Frames"), m_parts.window);
    m_framesDock->setObjectName(QStringLiteral("framesDock"));
    m_framesDock->setWidget(m_framesView);

    m_values = new ValuesPanel;
    m_valuesDock = new QDockWidget(tr("Values"), m_parts.window);
    m_valuesDock->setObjectName(QStringLiteral("valuesDock"));
    m_valuesDock->setWidget(m_values);

    // Frames under the model tree (which has room to spare); Values, with its many columns, under the graph and the
    // source.
    m_parts.window->setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    m_parts.window->setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
    if (auto* modelDock = m_parts.window->findChild<QDockWidget*>(QStringLiteral("modelDock"))) {
        m_parts.window->addDockWidget(Qt::LeftDockWidgetArea, m_framesDock);
        m_parts.window->splitDockWidget(modelDock, m_framesDock, Qt::Vertical);
    } else {
        m_parts.window->addDockWidget(Qt::BottomDockWidgetArea, m_framesDock);
    }
    m_parts.window->addDockWidget(Qt::BottomDockWidgetArea, m_valuesDock);
    // Shown when the first session starts.
    m_framesDock->hide();
    m_valuesDock->hide();

    connect(m_parts.source, &SourceView::breakpointToggleRequested, this, &DebugUiController::toggleBreakpoint);
    connect(
        m_parts.source, &SourceView::breakpointConditionRequested, this, &DebugUiController::editBreakpointCondition);
    connect(m_parts.source, &SourceView::runToLineRequested, this, &DebugUiController::runToLine);
    connect(m_parts.script->view(), &GraphView::nodeContextMenuRequested, this,
        &DebugUiController::onScriptNodeContextMenu);
}

void DebugUiController::createActions(QMenu* debug)
{
    auto add = [&](DebugAction which, const QString& text, const QKeySequence& key, const QString& tip, auto slot) {
        QAction* action = debug->addAction(debugIcon(which), text, this, slot);
        action->setShortcut(key);
        action->setStatusTip(tip);
        action->setToolTip(
            key.isEmpty() ? text : QStringLiteral("%1 (%2)").arg(text, key.toString(QKeySequence::NativeText)));
        m_actions.insert(int(which), action);
        return action;
    };
    using Command = DebugCommand;
    add(DebugAction::StartContinue, tr("&Start Debugging"), QKeySequence(Qt::Key_F5),
        tr("Run the function on the first input set to the next breakpoint"), [this] { command(Command::Continue); });
    add(DebugAction::StepOver, tr("Step &Over"), QKeySequence(Qt::Key_F10),
        tr("Run the node and stop at the next one of the same block (a loop or an if runs whole)"),
        [this] { command(Command::StepOver); });
    add(DebugAction::StepInto, tr("Step &Into"), QKeySequence(Qt::Key_F11),
        tr("Stop at the next node, inside loops, ifs and calls"), [this] { command(Command::StepInto); });
    add(DebugAction::StepOut, tr("Step O&ut"), QKeySequence(Qt::SHIFT | Qt::Key_F11),
        tr("Run to the end of the enclosing loop, if or call"), [this] { command(Command::StepOut); });
    add(DebugAction::NextIteration, tr("&Next Iteration"), QKeySequence(Qt::CTRL | Qt::Key_F11),
        tr("Run to the start of the next iteration of the innermost loop"),
        [this] { command(Command::NextIteration); });
    add(DebugAction::RunToCursor, tr("Run to &Cursor"), QKeySequence(Qt::CTRL | Qt::Key_F10),
        tr("Run to the selected node's line, or the source cursor's line"), [this] { runToLine(runToCursorLine()); });
    add(DebugAction::DebugTraceFailure, tr("Debug Trace 1 Where It &Fails"), QKeySequence(Qt::ALT | Qt::Key_F5),
        tr("Run trace 1 on the input set it fails on, node by node, and stop before the node that fails"),
        [this] { debugTraceFailure(); });
    debug->addSeparator();
    add(DebugAction::Restart, tr("&Restart"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5),
        tr("Stop and start again"), [this] { restart(); });
    add(DebugAction::Stop, tr("S&top Debugging"), QKeySequence(Qt::CTRL | Qt::Key_F2), tr("End the run"),
        [this] { stop(); });
    debug->addSeparator();
    add(DebugAction::ToggleBreakpoint, tr("Toggle &Breakpoint"), QKeySequence(Qt::Key_F9),
        tr("Break at the source cursor's line (or the selected node's); a click in the source gutter does the same"),
        [this] {
            if (const int line = runToCursorLine(); line > 0)
                toggleBreakpoint(line);
        });
    QAction* trace = add(DebugAction::TraceWhileDebugging, tr("&Trace While Debugging"), QKeySequence(),
        tr("Record the trace as the function runs and show it growing in the Live trace tab (from the next start)"),
        [] {});
    trace->setCheckable(true);

    m_toolBar = m_parts.window->addToolBar(tr("Debug"));
    m_toolBar->setObjectName(QStringLiteral("debugToolBar"));
    m_toolBar->setIconSize(QSize(18, 18));
    m_toolBar->setToolButtonStyle(Qt::ToolButtonIconOnly);
    for (DebugAction a :
        { DebugAction::StartContinue, DebugAction::StepOver, DebugAction::StepInto, DebugAction::StepOut,
            DebugAction::NextIteration, DebugAction::RunToCursor, DebugAction::Restart, DebugAction::Stop })
        m_toolBar->addAction(action(a));
    m_toolBar->addSeparator();
    // With its text: a toggle whose icon alone would not say what it does.
    trace->setIconText(tr("Trace"));
    auto* traceButton = new QToolButton;
    traceButton->setDefaultAction(trace);
    traceButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_toolBar->addWidget(traceButton);
    updateActions();
}

void DebugUiController::updateActions()
{
    if (m_actions.isEmpty())
        return;
    const FunctionInfo* fn
        = m_document->hasModel() ? m_document->model().function(m_document->currentFunction()) : nullptr;
    const bool canStart = fn && fn->ok;
    const DebugController::State state = m_debugger->state();
    const bool paused = state == DebugController::State::Paused;
    const bool active = m_debugger->isActive();
    const bool ready = paused || (!active && canStart);
    QAction* start = action(DebugAction::StartContinue);
    start->setText(active ? tr("&Continue") : tr("&Start Debugging"));
    start->setToolTip(QStringLiteral("%1 (F5)").arg(active ? tr("Continue") : tr("Start Debugging")));
    for (DebugAction a : { DebugAction::StartContinue, DebugAction::StepOver, DebugAction::StepInto,
             DebugAction::StepOut, DebugAction::NextIteration, DebugAction::RunToCursor })
        action(a)->setEnabled(ready);
    action(DebugAction::Restart)->setEnabled(active && (canStart || m_debugger->isReplay()));
    QAction* replay = action(DebugAction::DebugTraceFailure);
    const int failing = failingSet();
    replay->setEnabled(failing > 0 && state != DebugController::State::Stopping);
    replay->setText(failing > 0 ? tr("Debug Trace 1 Where It &Fails on Set %1").arg(failing + 1)
                                : tr("Debug Trace 1 Where It &Fails"));
    action(DebugAction::Stop)->setEnabled(active && state != DebugController::State::Stopping);
    action(DebugAction::ToggleBreakpoint)->setEnabled(canStart);
    m_parts.source->setDebugActionsEnabled(canStart);
}

void DebugUiController::command(DebugCommand command, int line)
{
    if (m_debugger->isPaused()) {
        const int target = command == DebugCommand::RunToLine ? fileLineOf(line) : 0;
        if (command == DebugCommand::RunToLine && target <= 0) {
            Q_EMIT statusMessage(
                tr("Line %1 is not in %2's file: nothing to run to").arg(line).arg(m_debugger->function()));
            return;
        }
        m_debugger->resume(command, target);
        Q_EMIT statusMessage(tr("Running %1\u2026").arg(m_debugger->function()));
        return;
    }
    if (m_debugger->isActive())
        return;
    m_hasPendingCommand = true;
    m_pendingCommand = command;
    m_pendingLine = line;
    if (!startSession())
        m_hasPendingCommand = false;
}

bool DebugUiController::startSession()
{
    const FunctionInfo* fn
        = m_document->hasModel() ? m_document->model().function(m_document->currentFunction()) : nullptr;
    if (!fn || !fn->ok) {
        Q_EMIT statusMessage(
            fn ? tr("%1 failed to compile: nothing to debug").arg(fn->name) : tr("No function to debug"));
        return false;
    }
    bool valid = false;
    const QVector<InputSet> sets = m_parts.inputSets->sets(&valid);
    if (!valid || sets.isEmpty()) {
        Q_EMIT statusMessage(valid ? tr("Add an input set in the Input Sets panel to debug %1 on it").arg(fn->name)
                                   : tr("Input set %1 is invalid: fix it to debug %2")
                                         .arg(m_parts.inputSets->firstInvalidRow() + 1)
                                         .arg(fn->name));
        return false;
    }
    const bool tracing = action(DebugAction::TraceWhileDebugging)->isChecked();
    if (tracing) {
        m_live->begin();
    } else {
        m_live->remove();
    }
    startTarget({ fn->name, sets.first(), tracing, std::nullopt },
        tr("Debugging %1 on %2\u2026").arg(fn->name, sets.first().toString()));
    return true;
}

void DebugUiController::startTarget(const DebugTarget& target, const QString& what)
{
    // A running check holds the model until it ends (an endless loop only at its timeout): stop it and run it
    // again once the session is over.
    if (m_check->isChecking()) {
        m_checkAfterDebug = true;
        m_check->cancel();
    }
    valuesModel()->resetChanges();
    valuesModel()->clear();
    m_framesModel->clear();
    clearMarkers();
    if (m_valuesDock->isHidden()) {
        m_valuesDock->show();
        m_parts.window->resizeDocks({ m_valuesDock }, { 240 }, Qt::Vertical);
    }
    if (m_framesDock->isHidden()) {
        m_framesDock->show();
        m_parts.window->resizeDocks({ m_framesDock }, { 150 }, Qt::Vertical);
    }
    // The graph with the marker: the Script tab, unless the user is following the live trace (or the replay).
    if (m_parts.tabs->currentWidget() != m_live->page() || !m_live->page())
        showScriptTab();
    m_debugger->start(m_document->engine(), m_document->engineModel(), target);
    applyBreakpoints();
    Q_EMIT statusMessage(what);
    updateActions();
}

void DebugUiController::stop()
{
    if (!m_debugger->isActive())
        return;
    m_hasPendingCommand = false;
    m_debugger->stop();
    Q_EMIT statusMessage(tr("Stopping %1\u2026").arg(m_debugger->function()));
}

void DebugUiController::restart()
{
    if (!m_debugger->isActive())
        return;
    // The old run ends on its own thread; the new one starts once it has let go of the model.
    if (m_debugger->isReplay()) {
        // The same replay from its first node.
        const DebugTarget target = m_debugger->target();
        m_live->beginReplay(m_parts.tabs->tabText(m_parts.tabs->indexOf(m_live->page())),
            m_parts.tabs->tabToolTip(m_parts.tabs->indexOf(m_live->page())));
        m_hasPendingCommand = false;
        startTarget(
            target, tr("Running trace 1 of %1 on %2 again\u2026").arg(target.function, target.inputs.toString()));
        return;
    }
    m_hasPendingCommand = true;
    m_pendingCommand = DebugCommand::StepInto;
    m_pendingLine = 0;
    if (!startSession())
        m_hasPendingCommand = false;
}

void DebugUiController::onPaused()
{
    const DebugPause& pause = m_debugger->lastPause();
    if (m_hasPendingCommand && m_debugger->pauseCount() == 1) {
        // The session stops before the first node; what the user asked for decides whether to show that.
        m_hasPendingCommand = false;
        using Command = DebugCommand;
        if (m_pendingCommand == Command::Continue && !pause.atBreakpoint && !pause.atFailure) {
            m_debugger->resume(Command::Continue);
            return;
        }
        if (m_pendingCommand == Command::RunToLine) {
            const int target = fileLineOf(m_pendingLine);
            if (target > 0 && !pause.atBreakpoint && !(pause.event.depth == 0 && pause.event.location.line == target)) {
                m_debugger->resume(Command::RunToLine, target);
                return;
            }
        }
    }
    showPause(pause);
    Q_EMIT paused();
}

void DebugUiController::showPause(const DebugPause& pause)
{
    m_framesModel->setFrames(pause.event.frames);
    valuesModel()->setValues(pause.values);
    applyMarkers();
    if (m_debugger->isTracing())
        m_live->update(pause.traceSoFar, m_document->layoutOptions(), false, m_document->engine());
    if (m_debugger->isReplay()) {
        // The trace is the same at every pause: laid out once.
        if (m_live->graph().nodes.isEmpty() && m_live->executionNode() < 0)
            m_live->update(pause.traceSoFar, m_document->layoutOptions(), true, m_document->engine());
        m_live->setExecution(pause.event.scriptNode, replayHeader(pause));
    }
    Q_EMIT statusMessage(describePause(pause));
}

QString DebugUiController::describePause(const DebugPause& pause) const
{
    const NodeEvent& e = pause.event;
    QString where;
    const int line = m_document->sourceLineFor(e.location);
    if (line > 0)
        where = tr(" at line %1").arg(line);
    else if (e.location.isValid())
        where = QStringLiteral(" at %1:%2").arg(QFileInfo(e.location.file).fileName()).arg(e.location.line);
    QStringList inside;
    for (const ExecFrame& f : e.frames) {
        if (f.kind == ExecFrame::Kind::Loop)
            inside << (f.iterations >= 0
                    ? tr("iteration %1 of %2 of the loop at line %3").arg(f.iteration + 1).arg(f.iterations).arg(f.line)
                    : tr("iteration %1 of the loop at line %2").arg(f.iteration + 1).arg(f.line));
        else if (f.kind == ExecFrame::Kind::Function && e.depth > 0 && &f != &e.frames.first())
            inside << tr("in %1").arg(f.name);
    }
    QString text = tr("Paused before %1%2").arg(e.kind, where);
    if (!inside.isEmpty())
        text += QStringLiteral(", ") + inside.join(QStringLiteral(", "));
    if (pause.atBreakpoint)
        text += tr(" \u2014 breakpoint");
    if (pause.atFailure)
        text += tr(" \u2014 trace 1 fails here on set %1: %2")
                    .arg(m_debugger->inputs().toString(), elidedText(pause.failure, 160));
    return text + tr("  (F5 continue, F10 step over, F11 step into)");
}

void DebugUiController::onFinished()
{
    const DebugPause& pause = m_debugger->lastPause();
    m_hasPendingCommand = false;
    clearMarkers();
    m_framesModel->clear();
    const bool tracing = m_debugger->isTracing();
    const bool ok = tracing ? pause.trace.ok : pause.result.ok;
    const Diagnostic error = tracing ? pause.trace.error : pause.result.error;
    const QVector<ValueSummary> outputs = tracing ? pause.trace.outputs : pause.result.outputs;
    const QString fn = m_debugger->function();
    if (m_debugger->wasStopped()) {
        valuesModel()->clear();
        Q_EMIT statusMessage(tr("Debugging %1 stopped").arg(fn));
    } else if (m_debugger->isReplay()) {
        valuesModel()->clear();
        const int line = m_document->sourceLineFor(pause.result.error.location);
        if (!ok && line > 0)
            m_parts.source->highlightLine(line);
        const QString set = m_debugger->inputs().toString();
        if (ok)
            Q_EMIT statusMessage(tr("Trace 1 of %1 ran to its end on %2").arg(fn, set));
        else
            Q_EMIT statusMessage(tr("Trace 1 of %1 failed on %2%3: %4")
                                     .arg(fn, set, line > 0 ? tr(" at line %1").arg(line) : QString(),
                                         elidedText(pause.failure.isEmpty() ? error.message : pause.failure, 200)));
        m_live->setExecution(ok ? -1 : pause.failureNode,
            ok ? tr("<b>Trace 1 on %1</b> \u00b7 ran to its end").arg(set.toHtmlEscaped()) : replayHeader(pause));
    } else if (ok) {
        QVector<NamedValue> values;
        for (int i = 0; i < outputs.size(); ++i)
            values.append({ outputs.size() == 1 ? tr("return") : tr("return %1").arg(i), outputs.at(i) });
        valuesModel()->setValues(values);
        QStringList texts;
        for (const ValueSummary& v : outputs)
            texts << v.text;
        Q_EMIT statusMessage(tr("%1 returned %2").arg(fn, texts.join(QStringLiteral(", "))));
    } else {
        valuesModel()->clear();
        const int line = m_document->sourceLineFor(error.location);
        if (line > 0)
            m_parts.source->highlightLine(line);
        Q_EMIT statusMessage(
            tr("%1 failed%2: %3")
                .arg(fn, line > 0 ? tr(" at line %1").arg(line) : QString(), elidedText(error.message, 200)));
    }
    if (tracing && m_live->page()) {
        if (pause.trace.ok)
            m_live->update(pause.trace.graph, m_document->layoutOptions(), true, m_document->engine());
        else if (!m_debugger->wasStopped())
            m_live->showFailed(error.toString().trimmed());
        else
            m_live->showStopped();
    }
    updateActions();
    Q_EMIT finished();
    if (m_checkAfterDebug) {
        m_checkAfterDebug = false;
        Q_EMIT checkWanted();
    }
}

void DebugUiController::clearMarkers()
{
    m_parts.script->scene()->setExecutionNode(-1);
    m_parts.source->setExecutionLine(0);
}

void DebugUiController::applyMarkers()
{
    applyBreakpoints();
    if (!m_debugger->isPaused()) {
        clearMarkers();
        return;
    }
    const DebugPause& pause = m_debugger->lastPause();
    const FunctionInfo* fn = m_document->model().function(m_debugger->function());
    // A replay pauses at a node of the recorded trace: the script node that recorded it gets the marker.
    int scriptNode = pause.event.scriptNode;
    if (m_debugger->isReplay())
        scriptNode = scriptNode >= 0 && scriptNode < pause.traceSoFar.nodes.size()
            ? pause.traceSoFar.node(scriptNode).originNode
            : -1;
    if (m_document->shownFunction() == m_debugger->function()) {
        const int shown = m_parts.script->scene()->displayedNode(scriptNode);
        m_parts.script->scene()->setExecutionNode(shown);
        if (shown >= 0)
            m_parts.script->view()->centerOnNode(shown);
    }
    int line = m_document->sourceLineFor(pause.event.location);
    // Inside library code (not in the source panel): the line of the call.
    if (line <= 0 && fn && scriptNode >= 0 && scriptNode < fn->graph.nodes.size())
        line = m_document->sourceLineFor(fn->graph.node(scriptNode).location);
    m_parts.source->setExecutionLine(line);
}

void DebugUiController::onFrameActivated(const QModelIndex& index)
{
    if (!index.isValid())
        return;
    const int node = index.data(FramesModel::ScriptNodeRole).toInt();
    const int line = index.data(FramesModel::LineRole).toInt();
    if (node >= 0 && m_document->shownFunction() == m_debugger->function()) {
        const int shown = m_parts.script->scene()->displayedNode(node);
        m_parts.script->scene()->selectNode(shown);
        m_parts.script->view()->centerOnNode(shown);
    }
    // The function's own frame: where execution is.
    if (line > 0 && index.data(FramesModel::KindRole).toInt() != int(ExecFrame::Kind::Function))
        m_parts.source->highlightLine(line);
}

} // namespace jitscope
