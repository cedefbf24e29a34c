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
#include <QInputDialog>
#include <QMainWindow>
#include <QMenu>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>

#include <limits>

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

bool DebugUiController::traceFailsOn(int set) const
{
    if (!m_check->hasReport())
        return false;
    // A recorded Python call's trace is not in the engine's model: the bridge saved it where it failed.
    if (m_check->source().isRecordedCall())
        return m_savedReplay && m_savedReplay(set).has_value();
    const CheckReport& report = m_check->report();
    if (set <= 0 || set >= report.traces.size() || set - 1 >= report.outputs.size() || !report.traces.first().ok)
        return false;
    // Trace 1 fails on the set, or raises nothing but computes other values than the script function.
    const OutputCheck& out = report.outputs.at(set - 1);
    return out.failure.isValid() || (out.values.present && out.values.error.isEmpty() && out.values.node >= 0);
}

int DebugUiController::failingSet() const
{
    const int sets = m_check->hasReport() ? int(m_check->report().traces.size()) : 0;
    // A set trace 1 raises on first, else one where it computes other values.
    int otherValues = -1;
    for (int k = 1; k < sets; ++k) {
        if (!traceFailsOn(k))
            continue;
        const bool raises = m_check->source().isRecordedCall() || m_check->report().outputs.at(k - 1).failure.isValid();
        if (raises)
            return k;
        if (otherValues < 0)
            otherValues = k;
    }
    return otherValues;
}

bool DebugUiController::debugTraceFailure(int set)
{
    if (set < 0)
        set = failingSet();
    if (!traceFailsOn(set)) {
        Q_EMIT statusMessage(!m_check->hasReport() ? tr("Run the check first: it finds where trace 1 fails")
                : m_check->source().isRecordedCall()
                ? tr("PyTorch's trace 1 was not saved for a set it fails on: nothing to run node by node")
                : tr("Trace 1 runs on every input set of the check: nothing fails to debug"));
        return false;
    }
    if (m_debugger->state() == DebugController::State::Stopping)
        return false;
    const CheckReport* report = &m_check->report();
    const InputSet& recordedOn = report->traces.first().inputs;
    const InputSet& runOn = report->traces.at(set).inputs;
    DebugTarget target { report->function, runOn, false, recordedOn };
    if (m_check->source().isRecordedCall()) {
        target = *m_savedReplay(set);
        target.function = report->function;
    } else if (const OutputCheck& out = report->outputs.at(set - 1); !out.failure.isValid()) {
        // It raises nothing there: stop before the first node whose value the script function never computes.
        target.stopBefore(report->traces.first().graph, out.values.node, out.values.message);
    }
    const QString title = tr("Trace 1 on set %1").arg(set + 1);
    m_live->beginReplay(title,
        tr("Trace 1 of %1 (recorded on %2) run on input set %3 (%4), as torch.jit.trace's check runs it")
            .arg(report->function, recordedOn.toString())
            .arg(set + 1)
            .arg(runOn.toString()));
    m_parts.tabs->setCurrentWidget(m_live->page());
    // Continue at the first pause: the session breaks before the failing node by itself.
    m_hasPendingCommand = true;
    m_pendingCommand = DebugCommand::Continue;
    m_pendingLine = 0;
    startTarget(
        target, tr("Running trace 1 of %1 on input set %2 to where it fails\u2026").arg(report->function).arg(set + 1));
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

namespace {

/// How many nodes of @p node's kind come before it in @p g: the same node in a trace saved and loaded again, where
/// constants and attribute reads are numbered differently.
int ordinalOfKind(const IrGraph& g, int node)
{
    int n = 0;
    for (int i = 0; i < node && i < g.nodes.size(); ++i)
        n += g.nodes.at(i).kind == g.nodes.at(node).kind;
    return n;
}

} // namespace

const TraceFailure* DebugUiController::checkedFailure(const DebugPause& pause) const
{
    if (pause.failureNode < 0 || !m_check->hasReport())
        return nullptr;
    const CheckReport& report = m_check->report();
    if (report.function != m_debugger->function() || report.traces.isEmpty())
        return nullptr;
    for (int k = 0; k < report.outputs.size() && k + 1 < report.traces.size(); ++k) {
        const TraceFailure& f = report.outputs.at(k).failure;
        const IrGraph& trace1 = report.traces.first().graph;
        // The same set, and the same node of the same trace (its kind and line, not only its number).
        if (report.traces.at(k + 1).inputs.toString() == m_debugger->inputs().toString() && f.isValid()
            && f.node < trace1.nodes.size() && pause.failureNode < pause.traceSoFar.nodes.size()
            && trace1.node(f.node).kind == pause.traceSoFar.node(pause.failureNode).kind
            && ordinalOfKind(trace1, f.node) == ordinalOfKind(pause.traceSoFar, pause.failureNode))
            return &f;
    }
    return nullptr;
}

QString DebugUiController::replayHeader(const DebugPause& pause) const
{
    const QString set = m_debugger->inputs().toString().toHtmlEscaped();
    const NodeEvent& e = pause.event;
    const int line = m_document->sourceLineFor(e.location);
    const QString at = line > 0 ? tr(" at line %1").arg(line) : QString();
    const QString red = QStringLiteral("#cf222e");
    if (pause.failureNode < 0)
        return tr("<b>Trace 1 on %1</b> \u00b7 runs on this set \u00b7 paused before %2%3")
            .arg(set, e.kind.toHtmlEscaped(), at);
    QString text;
    if (pause.finished || pause.atFailure) {
        const IrNode* node
            = pause.failureNode < pause.traceSoFar.nodes.size() ? &pause.traceSoFar.node(pause.failureNode) : nullptr;
        const int failLine = node ? m_document->sourceLineFor(node->location) : 0;
        text
            = tr("<b>Trace 1 on %1</b> \u00b7 <span style='color:%2'><b>%3%4 %5</b>: %6</span>")
                  .arg(set, red, node ? node->kind.toHtmlEscaped() : tr("a node"),
                      failLine > 0 ? tr(" at line %1").arg(failLine) : QString(),
                      pause.finished ? tr("failed") : tr("fails here"), elidedText(pause.failure, 240).toHtmlEscaped());
        // Where each operand came from, as the check found it (a constant trace 1 baked in, an input).
        if (const TraceFailure* f = checkedFailure(pause); f && !f->operands.isEmpty()) {
            QStringList items;
            for (const QString& op : f->operands)
                items << QStringLiteral("<li>%1</li>").arg(elidedText(op, 220).toHtmlEscaped());
            text += tr("<br>Operands:<ul style='margin:0'>%1</ul>").arg(items.join(QString()));
        }
        return text;
    }
    return tr("<b>Trace 1 on %1</b> \u00b7 paused before %2%3 \u00b7 <span style='color:%4'>fails later at node "
              "%5: %6</span> (F5 runs to it)")
        .arg(set, e.kind.toHtmlEscaped(), at, red)
        .arg(pause.failureNode)
        .arg(elidedText(pause.failure, 160).toHtmlEscaped());
}

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
