#include "mainwindow.h"

#include "comparewidget.h"
#include "findbar.h"
#include "graphexport.h"
#include "graphscene.h"
#include "graphview.h"
#include "inputsetseditor.h"
#include "inputsetsmodel.h"
#include "interpreterdialog.h"
#include "modeltreemodel.h"
#include "nodeinspector.h"
#include "operatorlibrariesdialog.h"
#include "pythonbar.h"
#include "pythoncontroller.h"
#include "pythonview.h"
#include "sessionstore.h"
#include "sourceview.h"
#include "theme.h"
#include "warningsmodel.h"
#include "windowmenus.h"
#include "workerclient.h"

#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QStatusBar>
#include <QTabWidget>
#include <QTreeView>
#include <QVBoxLayout>

namespace jitscope {

namespace {

/// The files a drop onto the window opens.
const QStringList& supportedSuffixes()
{
    static const QStringList suffixes = { QStringLiteral("py"), QStringLiteral("pt"), QStringLiteral("pth"),
        QStringLiteral("zip"), QStringLiteral("pt2") };
    return suffixes;
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : MainWindow(nullptr, parent)
{ }

MainWindow::MainWindow(WorkerClient* worker, QWidget* parent)
    : QMainWindow(parent)
    , m_session(new SessionStore(this))
    , m_document(new DocumentController(this))
{
    // Loading, checking, debugging and layout run in the model worker: a crash in libtorch or Graphviz ends it, not
    // the window, whose process loads neither. Without the worker program (a partial build) they run in this
    // process where a program links the in-process engine (tests); else the worker's start error says why.
    if (worker) {
        m_worker = worker;
        m_worker->setParent(this);
    } else if (QFileInfo(WorkerClient::workerProgram()).isExecutable() || !ModelEngine::inProcess()) {
        m_worker = new WorkerClient(this);
    }
    m_session->setObjectName(QStringLiteral("sessionStore"));
    m_document->setObjectName(QStringLiteral("documentController"));
    if (m_worker) {
        m_worker->setObjectName(QStringLiteral("workerClient"));
        m_worker->warmUp();
        m_document->setEngine(m_worker->worker());
    }
    setWindowTitle(QStringLiteral("JitScope"));
    setAcceptDrops(true);
    setDockOptions(AnimatedDocks | AllowTabbedDocks);

    createCentralWidget();
    createDocks();
    m_linker = new SelectionLinker({ m_tabs, m_script, m_checkView, m_compare, m_warningsModel, m_sourceView,
                                       m_inspector, m_debug->liveTrace(), m_debug->debugger() },
        m_document, m_check, this);
    m_linker->setObjectName(QStringLiteral("selectionLinker"));
    // Double-clicking a loop/if cluster or a module cluster folds it into one box; again unfolds it.
    connect(m_script->scene(), &GraphScene::foldToggleRequested, m_document, &DocumentController::toggleFold);
    m_zoomLabel = new QLabel;
    m_graphTabs = new GraphTabs(
        { m_tabs, m_script, m_compare, m_checkView, m_debug->liveTrace(), m_findBar, m_zoomLabel }, m_check, m_linker,
        this);
    m_menus = new WindowMenus(
        { this, m_graphTabs, m_script, m_findBar, m_checkView, m_debug, m_python, m_pythonView, m_worker }, m_document,
        m_session, this);
    createStatusBar();
    connectControllers();
    // A session file that could not be read was set aside (restoreSettings() reads it): say so, and go on without it.
    connect(m_session, &SessionStore::setAside, this,
        [this](const QString& message) { statusBar()->showMessage(message, 30000); });
    m_script->showMessage(tr("No model loaded"),
        tr("Open a TorchScript archive (.pt, .pth, .zip), a Python file of TorchScript "
           "functions or a torch.export program (.pt2) with File \u203a Open (Ctrl+O), or drop it here."));
    setStatus(tr("Ready"));
    resize(1400, 900);
}

void MainWindow::createCentralWidget()
{
    m_script = new GraphPage;
    m_script->setObjectName(QStringLiteral("scriptPage"));
    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("graphTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_script, tr("Script"));
    m_compare = new CompareWidget;
    m_compare->setObjectName(QStringLiteral("compareWidget"));
    m_tabs->addTab(m_compare, tr("Compare"));
    m_tabs->setTabToolTip(m_tabs->indexOf(m_compare), tr("Two traces (or a trace and the script) side by side"));
    m_findBar = new FindBar;
    m_findBar->setObjectName(QStringLiteral("findBar"));
    m_findBar->hide();
    auto* central = new QWidget;
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(m_tabs, 1);
    centralLayout->addWidget(m_findBar);
    setCentralWidget(central);
}

void MainWindow::createStatusBar()
{
    m_statusLabel = new QLabel;
    m_statusLabel->setObjectName(QStringLiteral("statusLabel"));
    m_statusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Ignored: a long message must be clipped, not widen the window.
    m_statusLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_busy = new QProgressBar;
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(120);
    m_busy->setMaximumHeight(14);
    m_busy->setTextVisible(false);
    m_busy->hide();
    m_zoomLabel->setMinimumWidth(48);
    m_zoomLabel->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_zoomLabel->setText(QStringLiteral("100%"));
    statusBar()->addWidget(m_statusLabel, 1);
    for (QWidget* widget : m_checkView->statusWidgets())
        statusBar()->addPermanentWidget(widget);
    statusBar()->addPermanentWidget(m_busy);
    statusBar()->addPermanentWidget(m_zoomLabel);
}

MainWindow* MainWindow::newWindow(const QString& path)
{
    WorkerClient* worker = nullptr;
    if (m_worker) {
        worker = new WorkerClient;
        worker->setStallTimeout(m_worker->stallTimeout());
        // This window's spare becomes the new one's worker; this window starts another spare.
        worker->takeSpareOfAnotherClient();
    }
    auto* window = new MainWindow(worker);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->resize(size());
    window->move(pos() + QPoint(32, 32));
    window->show();
    if (!path.isEmpty())
        window->openFile(path);
    return window;
}

MainWindow::~MainWindow()
{
    // The sessions end at their next node; their threads are joined here, while the window is still whole.
    delete m_linker;
    delete m_debug;
}

QDockWidget* MainWindow::addDock(const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);
    dock->setWidget(widget);
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::setCheckStrict(bool strict)
{
    m_checkView->setStrict(strict);
}

void MainWindow::createDocks()
{
    m_treeModel = new ModelTreeModel(this);
    m_treeModel->setObjectName(QStringLiteral("modelTreeModel"));
    m_treeView = DocumentView::createTreeView(m_treeModel);
    m_treeView->setObjectName(QStringLiteral("modelTreeView"));
    auto* modelDock = addDock(tr("Model"), QStringLiteral("modelDock"), m_treeView, Qt::LeftDockWidgetArea);

    m_sourceView = new SourceView;
    m_sourceView->setObjectName(QStringLiteral("sourceView"));
    m_sourceView->setAcceptDrops(false);
    m_pythonBar = new PythonBar;
    auto* sourcePanel = new QWidget;
    auto* sourceLayout = new QVBoxLayout(sourcePanel);
    sourceLayout->setContentsMargins(0, 0, 0, 0);
    sourceLayout->setSpacing(0);
    sourceLayout->addWidget(m_pythonBar);
    sourceLayout->addWidget(m_sourceView, 1);
    auto* sourceDock = addDock(tr("Source"), QStringLiteral("sourceDock"), sourcePanel, Qt::RightDockWidgetArea);

    resizeDocks({ modelDock, sourceDock }, { 280, 420 }, Qt::Horizontal);

    m_warningsModel = new WarningsModel(this);
    m_warningsModel->setObjectName(QStringLiteral("warningsModel"));
    m_warningsView = CheckView::createWarningsView(m_warningsModel);
    m_warningsView->setObjectName(QStringLiteral("warningsView"));
    for (auto signal : { &QTreeView::clicked, &QTreeView::activated })
        connect(m_warningsView, signal, this,
            [this](const QModelIndex& index) { m_linker->activateWarning(index.row()); });
    // Where trace 1 fails on a set (an output-mismatch with a failing node): debug it there.
    m_warningsView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_warningsView, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QModelIndex index = m_warningsView->indexAt(pos);
        if (!index.isValid())
            return;
        const int row = index.row();
        const int set = m_warningsModel->warning(row).traceIndex;
        QMenu menu;
        menu.addAction(tr("&Show"), this, [this, row] { m_linker->activateWarning(row); });
        if (m_warningsModel->warning(row).kind == WarningKind::OutputMismatch && m_debug->traceFailsOn(set))
            menu.addAction(debugIcon(DebugAction::DebugTraceFailure),
                tr("&Debug Trace 1 Where It Fails on Set %1").arg(set + 1), this,
                [this, set] { m_debug->debugTraceFailure(set); });
        menu.exec(m_warningsView->viewport()->mapToGlobal(pos));
    });
    auto* warningsDock
        = addDock(tr("Warnings"), QStringLiteral("warningsDock"), m_warningsView, Qt::RightDockWidgetArea);
    splitDockWidget(sourceDock, warningsDock, Qt::Vertical);

    m_inputSets = new InputSetsEditor;
    m_inputSets->setObjectName(QStringLiteral("inputSetsEditor"));
    connect(m_inputSets, &InputSetsEditor::checkRequested, this, [this] { runCheck(true); });
    auto* inputDock = addDock(tr("Input Sets"), QStringLiteral("inputSetsDock"), m_inputSets, Qt::LeftDockWidgetArea);
    splitDockWidget(modelDock, inputDock, Qt::Vertical);
    resizeDocks({ modelDock, inputDock }, { 420, 330 }, Qt::Vertical);
    resizeDocks({ sourceDock, warningsDock }, { 480, 270 }, Qt::Vertical);

    m_documentView = new DocumentView(
        { m_script, m_treeModel, m_treeView, m_sourceView, m_inputSets }, m_document, m_session, this);
    m_check = new CheckController(m_document, m_inputSets->model(), this);
    m_check->setObjectName(QStringLiteral("checkController"));
    m_checkView = new CheckView(
        { m_tabs, m_script, m_compare, m_warningsModel, m_warningsView, m_sourceView, m_inputSets->model() },
        m_document, m_check, this);
    m_checkView->setObjectName(QStringLiteral("checkView"));
    m_debug = new DebugUiController(
        { this, m_tabs, m_script, m_sourceView, m_inputSets->model() }, m_document, m_check, this);
    m_debug->setObjectName(QStringLiteral("debugUiController"));
    m_debug->createDocks();

    m_inspector = new NodeInspector;
    m_inspector->setObjectName(QStringLiteral("nodeInspector"));
    auto* dock = addDock(tr("Inspector"), QStringLiteral("inspectorDock"), m_inspector, Qt::RightDockWidgetArea);
    tabifyDockWidget(sourceDock, dock);
    sourceDock->raise();

    m_pythonOutput = new QPlainTextEdit;
    m_pythonOutput->setObjectName(QStringLiteral("pythonOutput"));
    m_pythonOutput->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_pythonOutput->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* outputDock
        = addDock(tr("Python Output"), QStringLiteral("pythonOutputDock"), m_pythonOutput, Qt::RightDockWidgetArea);
    tabifyDockWidget(warningsDock, outputDock);
    warningsDock->raise();
    m_python = new PythonController(this);
    m_python->setObjectName(QStringLiteral("pythonController"));
    if (m_worker)
        m_python->setEngine(m_worker->worker());
    m_pythonView = new PythonView(
        { m_pythonBar, m_pythonOutput, outputDock, m_treeModel, m_treeView, m_sourceView, m_tabs, m_compare },
        m_document, m_check, m_python, m_session, this);
    m_pythonView->setObjectName(QStringLiteral("pythonView"));
    // A recorded Python call's check: trace 1 as PyTorch recorded it, saved by the bridge where it fails on a set.
    m_debug->setSavedReplay([this](int set) -> std::optional<DebugTarget> {
        const int call = m_pythonView->shownCall();
        if (call < 0 || !m_python->hasResult() || call >= m_python->result().run.calls.size())
            return std::nullopt;
        const PythonRun& run = m_python->result().run;
        const PythonCall& c = run.calls.at(call);
        if (set <= 0 || set >= c.traces.size() || c.traces.at(set).replayArchive.isEmpty())
            return std::nullopt;
        const PythonTrace& t = c.traces.at(set);
        DebugTarget target;
        target.function = c.target;
        target.inputs = parseInputSet(t.inputs).value_or(InputSet());
        target.archive = QDir(run.folder).filePath(t.replayArchive);
        target.method = t.replayMethod.isEmpty() ? QStringLiteral("forward") : t.replayMethod;
        target.inputsFile = QDir(run.folder).filePath(t.replayInputs);
        // Trace 1 raises nothing on this set but computes other values: stop before the first node whose value
        // Python never computes.
        if (t.values.present)
            target.stopBefore(c.traces.first().graph, t.values.node, t.values.message);
        return target;
    });
}

void MainWindow::connectControllers()
{
    JobTrackerBase* documentJobs = m_document->jobs();
    connect(documentJobs, &JobTrackerBase::busyChanged, m_busy, &QWidget::setVisible);
    connect(documentJobs, &JobTrackerBase::jobFinished, this, &MainWindow::maybeEmitIdle);
    connect(m_check->jobs(), &JobTrackerBase::jobFinished, this, &MainWindow::maybeEmitIdle);
    connect(m_python->jobs(), &JobTrackerBase::jobFinished, this, &MainWindow::maybeEmitIdle);
    connect(m_python->selfCheckJobs(), &JobTrackerBase::jobFinished, this, &MainWindow::maybeEmitIdle);
    connect(m_pythonView, &PythonView::statusMessage, this, &MainWindow::setStatus);
    connect(m_menus, &WindowMenus::statusMessage, this, &MainWindow::setStatus);
    connect(m_document, &DocumentController::aboutToOpen, this, &MainWindow::onAboutToOpen);
    connect(m_document, &DocumentController::aboutToReload, this, [this] {
        m_graphTabs->rememberTab();
        // Reloading (the file changed on disk, Group by Module) keeps the sets the user edited, saved or not.
        if (m_inputSets->isEdited() && !m_documentView->hasInitialInputSets())
            m_documentView->setInitialInputSets(m_inputSets->model()->texts());
    });
    connect(m_document, &DocumentController::loaded, this, &MainWindow::onLoaded);
    connect(m_document, &DocumentController::currentFunctionChanged, this, [this](const QString& name) {
        if (m_debug->isActive() && m_debug->debugger()->function() != name)
            m_debug->stop();
        m_debug->updateActions();
    });
    connect(m_document, &DocumentController::functionSwitched, this,
        [this](const QString& name) { resetCheck(tr("Laying out %1\u2026").arg(name)); });
    connect(m_documentView, &DocumentView::functionShown, this, &MainWindow::onFunctionShown);
    connect(m_documentView, &DocumentView::checkResetWanted, this, &MainWindow::resetCheck);
    connect(m_documentView, &DocumentView::checkWanted, this, &MainWindow::runCheck);
    connect(m_documentView, &DocumentView::statusMessage, this, &MainWindow::setStatus);

    connect(m_check, &CheckController::statusMessage, this, &MainWindow::setStatus);
    if (m_worker)
        connect(m_worker, &WorkerClient::workerStopped, this,
            [this](const QString& message) { setStatus(message + tr("; a new model worker was started")); });
    connect(m_checkView, &CheckView::shown, this, &MainWindow::onCheckShown);

    connect(m_debug, &DebugUiController::paused, this, &MainWindow::debugPaused);
    connect(m_debug, &DebugUiController::finished, this, &MainWindow::debugFinished);
    connect(m_debug, &DebugUiController::checkWanted, this, [this] { runCheck(false); });
    connect(m_debug, &DebugUiController::statusMessage, this, &MainWindow::setStatus);
    connect(m_debug->liveTrace(), &LiveTraceTab::shown, this, &MainWindow::liveTraceShown);
    connect(m_linker, &SelectionLinker::statusMessage, this, &MainWindow::setStatus);
}

void MainWindow::restoreSettings()
{
    m_session->setPersistent(true);
    m_document->setOperatorLibraries(m_session->operatorLibraries() + m_runOperatorLibraries);
    restoreGeometry(m_session->windowGeometry());
    restoreState(m_session->windowState());
    setDarkTheme(m_session->darkTheme());
    m_menus->updateRecentMenu();
}

void MainWindow::setRunOperatorLibraries(const QStringList& libraries)
{
    m_runOperatorLibraries.clear();
    for (const QString& lib : libraries)
        m_runOperatorLibraries << QFileInfo(lib).absoluteFilePath();
    m_document->setOperatorLibraries(m_session->operatorLibraries() + m_runOperatorLibraries);
}

void MainWindow::setOperatorLibraries(const QStringList& libraries)
{
    if (libraries == m_session->operatorLibraries())
        return;
    m_session->setOperatorLibraries(libraries);
    m_document->setOperatorLibraries(libraries + m_runOperatorLibraries);
    if (!m_document->currentFile().isEmpty())
        m_document->reload();
}

void MainWindow::operatorLibrariesDialog()
{
    OperatorLibrariesDialog dialog(m_session->operatorLibraries(), m_runOperatorLibraries, this);
    if (dialog.exec() == QDialog::Accepted)
        setOperatorLibraries(dialog.libraries());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    m_session->saveWindow(saveGeometry(), saveState());
    QMainWindow::closeEvent(event);
}

bool MainWindow::isIdle() const
{
    return m_document->isIdle() && !m_check->isChecking() && !m_python->isRunning() && !m_python->isSelfChecking();
}

void MainWindow::maybeEmitIdle()
{
    if (isIdle())
        Q_EMIT idle();
}

// ---------------------------------------------------------------------------------------------------------------
// The document

void MainWindow::onAboutToOpen(const QString& absolute)
{
    m_debug->reset();
    applyPythonInterpreter(absolute);
    QAction* groupByModule = m_menus->groupByModuleAction();
    if (!m_document->isReloading()) {
        const QSignalBlocker block(groupByModule);
        groupByModule->setChecked(m_session->groupByModule(DocumentController::isSourceFile(absolute)));
    }
    m_document->setGroupByModule(groupByModule->isChecked());
    m_check->clearCache();
    m_graphTabs->fileOpening(m_document->isReloading());
    const QString fileName = QFileInfo(absolute).fileName();
    resetCheck(tr("Loading %1\u2026").arg(fileName));
    setWindowTitle(tr("%1 \u2014 JitScope").arg(fileName));
    m_documentView->prepareOpen(absolute);
    m_session->addRecentFile(absolute);
}

void MainWindow::onLoaded(const DocumentJob& r)
{
    m_documentView->showLoaded(r);
    if (r.load.ok)
        m_debug->updateActions();
    Q_EMIT fileLoaded(r.load.ok);
    if (m_document->isReloading())
        Q_EMIT fileReloaded();
}

void MainWindow::onFunctionShown(const QString& name, bool newFunction)
{
    Q_UNUSED(name);
    m_graphTabs->functionShown(newFunction);
    m_menus->unfoldAllAction()->setEnabled(!m_document->foldedModules().isEmpty());
    m_debug->applyMarkers();
    m_debug->updateActions();
    runCheck(false);
}

// ---------------------------------------------------------------------------------------------------------------
// The check

void MainWindow::runCheck(bool force)
{
    // A paused session holds the model: a check would wait for it. One the user asks for ends the session; one
    // that comes with a relayout waits for the session to end.
    if (m_debug->isActive()) {
        if (!force) {
            m_debug->deferCheck();
            return;
        }
        m_debug->dropDeferredCheck();
        m_debug->stop();
    }
    if (force && m_pythonView->shownCall() >= 0) {
        // Run Check on a recorded call of a file the built-in compiler cannot check: run the file again.
        const FunctionInfo* fn = m_document->model().function(m_document->currentFunction());
        if (!m_document->hasModel() || !fn || !fn->ok) {
            m_pythonView->runWithConsent(false);
            return;
        }
        m_pythonView->forgetShownCall();
    }
    m_check->run(force);
}

void MainWindow::setPythonAllowed(bool allowed)
{
    m_pythonView->setAlwaysAllowed(allowed);
}

void MainWindow::setPythonInterpreter(const QString& python)
{
    m_commandLinePython = python;
    applyPythonInterpreter(m_document->currentFile());
}

void MainWindow::applyPythonInterpreter(const QString& file)
{
    PythonOptions options = m_python->options();
    options.python = m_commandLinePython.isEmpty() && !file.isEmpty()
        ? m_session->pythonInterpreter(QFileInfo(file).absolutePath())
        : m_commandLinePython;
    m_python->setOptions(options);
}

void MainWindow::setFolderPythonInterpreter(const QString& python)
{
    const QString file = m_document->currentFile();
    if (file.isEmpty())
        return;
    m_session->setPythonInterpreter(QFileInfo(file).absolutePath(), python);
    m_commandLinePython.clear(); // the user's choice in the window wins over the command line's from now on
    applyPythonInterpreter(file);
    setStatus(tr("Python files of %1 run with %2")
                  .arg(QFileInfo(file).absolutePath(), interpreterText(choosePython(m_python->options().python))));
}

void MainWindow::pythonInterpreterDialog()
{
    const QString file = m_document->currentFile();
    const QString folder = file.isEmpty() ? QDir::currentPath() : QFileInfo(file).absolutePath();
    InterpreterDialog dialog(m_python->options().python, folder, this);
    if (dialog.exec() == QDialog::Accepted)
        setFolderPythonInterpreter(dialog.interpreter());
}

void MainWindow::onCheckShown(const CheckJobResult& r)
{
    if (r.canceled) {
        if (m_debug->isCheckDeferred()) {
            resetCheck(tr("Check paused for debugging"), tr("It runs again when the debug session ends."));
        } else {
            resetCheck(tr("Check canceled"), tr("Run it again with Check \u203a Run Check (Ctrl+R)."));
            setStatus(tr("Check of %1 canceled").arg(r.function));
        }
        Q_EMIT checkFinished();
        return;
    }
    Q_EMIT checkFinished();
    m_graphTabs->checkShown();
}

// ---------------------------------------------------------------------------------------------------------------
// The status bar, export, drops, the theme

void MainWindow::setStatus(const QString& text)
{
    m_statusLabel->setText(text);
    m_statusLabel->setToolTip(text);
}

QString MainWindow::statusText() const
{
    return m_statusLabel->text();
}

bool MainWindow::exportView(const QString& path, QString* error)
{
    const QString function = currentFunction();
    return exportGraph(m_graphTabs->currentGraphScene(), path, m_document->layoutOptions(),
        function.isEmpty() ? QStringLiteral("JitScope") : function, error);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile()
        && supportedSuffixes().contains(QFileInfo(urls.first().toLocalFile()).suffix().toLower())) {
        event->acceptProposedAction();
        return;
    }
    event->ignore();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return;
    event->acceptProposedAction();
    openFile(urls.first().toLocalFile());
}

void MainWindow::setDarkTheme(bool dark)
{
    if (QAction* action = m_menus->darkThemeAction(); action->isChecked() != dark) {
        action->setChecked(dark); // comes back here through toggled()
        return;
    }
    if (applyDarkTheme(dark, this))
        m_session->setDarkTheme(dark);
}

// ---------------------------------------------------------------------------------------------------------------
// The debugger

GraphScene* MainWindow::liveTraceScene() const
{
    GraphPage* page = m_debug->liveTrace()->page();
    return page ? page->scene() : nullptr;
}

} // namespace jitscope
