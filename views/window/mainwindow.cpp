#include "mainwindow.h"

#include "comparewidget.h"
#include "divergencemodel.h"
#include "findbar.h"
#include "graphexport.h"
#include "graphscene.h"
#include "graphview.h"
#include "inputsetseditor.h"
#include "inputsetsmodel.h"
#include "legendbar.h"
#include "minimap.h"
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
#include "workerclient.h"

#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTreeView>
#include <QVBoxLayout>

#ifndef JITSCOPE_VERSION
#define JITSCOPE_VERSION "dev"
#endif

namespace jitscope {

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
    if (m_worker) {
        m_worker->warmUp();
        m_document->setEngine(m_worker->worker());
    }
    setWindowTitle(QStringLiteral("JitScope"));
    setAcceptDrops(true);
    setDockOptions(AnimatedDocks | AllowTabbedDocks);

    m_script = new GraphPage;
    m_tabs = new QTabWidget;
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_script, tr("Script"));
    m_compare = new CompareWidget;
    m_tabs->addTab(m_compare, tr("Compare"));
    m_tabs->setTabToolTip(m_tabs->indexOf(m_compare), tr("Two traces (or a trace and the script) side by side"));
    m_findBar = new FindBar;
    m_findBar->hide();
    auto* central = new QWidget;
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(m_tabs, 1);
    centralLayout->addWidget(m_findBar);
    setCentralWidget(central);

    createDocks();
    m_linker = new SelectionLinker({ m_tabs, m_script, m_checkView, m_compare, m_warningsModel, m_sourceView,
                                       m_inspector, m_debug->liveTrace(), m_debug->debugger() },
        m_document, m_check, this);
    createActions();

    m_statusLabel = new QLabel;
    m_statusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Ignored: a long message must be clipped, not widen the window.
    m_statusLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_busy = new QProgressBar;
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(120);
    m_busy->setMaximumHeight(14);
    m_busy->setTextVisible(false);
    m_busy->hide();
    m_zoomLabel = new QLabel;
    m_zoomLabel->setMinimumWidth(48);
    m_zoomLabel->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_zoomLabel->setText(QStringLiteral("100%"));
    statusBar()->addWidget(m_statusLabel, 1);
    for (QWidget* widget : m_checkView->statusWidgets())
        statusBar()->addPermanentWidget(widget);
    statusBar()->addPermanentWidget(m_busy);
    statusBar()->addPermanentWidget(m_zoomLabel);

    connectControllers();
    // A session file that could not be read was set aside (restoreSettings() reads it): say so, and go on without it.
    connect(m_session, &SessionStore::setAside, this,
        [this](const QString& message) { statusBar()->showMessage(message, 30000); });
    m_script->showMessage(tr("No model loaded"),
        tr("Open a TorchScript archive (.pt, .pth, .zip) or a Python file of TorchScript "
           "functions with File \u203a Open (Ctrl+O), or drop it here."));
    setStatus(tr("Ready"));
    resize(1400, 900);
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

QStringList MainWindow::supportedSuffixes()
{
    return { QStringLiteral("py"), QStringLiteral("pt"), QStringLiteral("pth"), QStringLiteral("zip") };
}

void MainWindow::setCheckStrict(bool strict)
{
    m_checkView->setStrict(strict);
}

void MainWindow::createDocks()
{
    m_treeModel = new ModelTreeModel(this);
    m_treeView = DocumentView::createTreeView(m_treeModel);
    auto* modelDock = addDock(tr("Model"), QStringLiteral("modelDock"), m_treeView, Qt::LeftDockWidgetArea);

    m_sourceView = new SourceView;
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
    m_warningsView = CheckView::createWarningsView(m_warningsModel);
    for (auto signal : { &QTreeView::clicked, &QTreeView::activated })
        connect(m_warningsView, signal, this, [this](const QModelIndex& index) { activateWarning(index.row()); });
    // Where trace 1 fails on a set (an output-mismatch with a failing node): debug it there.
    m_warningsView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_warningsView, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QModelIndex index = m_warningsView->indexAt(pos);
        if (!index.isValid())
            return;
        const int row = index.row();
        const int set = m_warningsModel->warning(row).traceIndex;
        QMenu menu;
        menu.addAction(tr("&Show"), this, [this, row] { activateWarning(row); });
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
    connect(m_inputSets, &InputSetsEditor::checkRequested, this, [this] { runCheck(true); });
    auto* inputDock = addDock(tr("Input Sets"), QStringLiteral("inputSetsDock"), m_inputSets, Qt::LeftDockWidgetArea);
    splitDockWidget(modelDock, inputDock, Qt::Vertical);
    resizeDocks({ modelDock, inputDock }, { 420, 330 }, Qt::Vertical);
    resizeDocks({ sourceDock, warningsDock }, { 480, 270 }, Qt::Vertical);

    m_documentView = new DocumentView(
        { m_script, m_treeModel, m_treeView, m_sourceView, m_inputSets }, m_document, m_session, this);
    m_check = new CheckController(m_document, m_inputSets->model(), this);
    m_checkView = new CheckView(
        { m_tabs, m_script, m_compare, m_warningsModel, m_warningsView, m_sourceView, m_inputSets->model() },
        m_document, m_check, this);
    m_debug = new DebugUiController(
        { this, m_tabs, m_script, m_sourceView, m_inputSets->model() }, m_document, m_check, this);
    m_debug->createDocks();

    m_inspector = new NodeInspector;
    auto* dock = addDock(tr("Inspector"), QStringLiteral("inspectorDock"), m_inspector, Qt::RightDockWidgetArea);
    tabifyDockWidget(sourceDock, dock);
    sourceDock->raise();

    m_pythonOutput = new QPlainTextEdit;
    m_pythonOutput->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_pythonOutput->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* outputDock
        = addDock(tr("Python Output"), QStringLiteral("pythonOutputDock"), m_pythonOutput, Qt::RightDockWidgetArea);
    tabifyDockWidget(warningsDock, outputDock);
    warningsDock->raise();
    m_python = new PythonController(this);
    if (m_worker)
        m_python->setEngine(m_worker->worker());
    m_pythonView = new PythonView(
        { m_pythonBar, m_pythonOutput, outputDock, m_treeModel, m_treeView, m_sourceView, m_tabs, m_compare },
        m_document, m_check, m_python, m_session, this);
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
        return target;
    });
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New Window"), this, [this] { newWindow(); })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N));
    file->addAction(tr("&Open\u2026"), this, &MainWindow::openDialog)->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::updateRecentMenu);
    updateRecentMenu();
    file->addSeparator();
    file->addAction(tr("&Export View as SVG/PNG/DOT\u2026"), this, &MainWindow::exportDialog)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* find = edit->addAction(tr("&Find Node\u2026"), this, [this] {
        updateFindTarget();
        m_findBar->activate();
    });
    find->setShortcut(QKeySequence::Find);
    QAction* findNext = edit->addAction(tr("Find &Next"), this, [this] {
        m_findBar->show();
        m_findBar->findNext();
    });
    findNext->setShortcut(QKeySequence(Qt::Key_F3));
    QAction* findPrevious = edit->addAction(tr("Find &Previous"), this, [this] {
        m_findBar->show();
        m_findBar->findPrevious();
    });
    findPrevious->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    // The zoom actions act on the graph of the current tab (in Compare, on both sides through the sync).
    auto onView = [this](void (GraphView::*slot)()) {
        return [this, slot] {
            if (GraphView* v = currentGraphView())
                (v->*slot)();
        };
    };
    QAction* zoomIn = view->addAction(tr("Zoom &In"), this, onView(&GraphView::zoomIn));
    zoomIn->setShortcuts({ QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal) });
    view->addAction(tr("Zoom &Out"), this, onView(&GraphView::zoomOut))->setShortcut(QKeySequence::ZoomOut);
    view->addAction(tr("&Fit Graph"), this, onView(&GraphView::fitGraph))
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    view->addAction(tr("&Actual Size"), this, onView(&GraphView::resetZoom))
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    view->addSeparator();
    m_foldConstantsAction = view->addAction(tr("Fold &Constants"));
    m_foldConstantsAction->setCheckable(true);
    m_foldConstantsAction->setChecked(LayoutOptions().foldConstants);
    m_showBlocksAction = view->addAction(tr("Show Loop/If &Blocks"));
    m_showBlocksAction->setCheckable(true);
    m_showBlocksAction->setChecked(LayoutOptions().showBlocks);
    connect(m_foldConstantsAction, &QAction::toggled, this, [this](bool fold) {
        m_document->setFoldConstants(fold);
        m_document->relayout();
    });
    connect(m_showBlocksAction, &QAction::toggled, this, [this](bool show) {
        m_document->setShowBlocks(show);
        m_document->relayout();
    });
    // Double-clicking a loop/if cluster or a module cluster folds it into one box; again unfolds it.
    connect(m_script->scene(), &GraphScene::foldToggleRequested, m_document, &DocumentController::toggleFold);
    m_groupByModuleAction = view->addAction(tr("&Group by Module"));
    m_groupByModuleAction->setCheckable(true);
    m_groupByModuleAction->setStatusTip(tr("Inline calls and draw each submodule's code as a cluster"));
    // The graphs change (calls inlined or not): load the file again, keeping the function and the tab. The choice
    // sticks for files of the same kind: archives open grouped (a model's forward alone is a few CallMethod boxes),
    // .py files open as written.
    connect(m_groupByModuleAction, &QAction::toggled, this, [this](bool group) {
        m_session->setGroupByModule(DocumentController::isSourceFile(m_document->currentFile()), group);
        m_document->setGroupByModule(group);
        if (!m_document->currentFile().isEmpty())
            reloadFile();
    });
    m_unfoldAllAction = view->addAction(tr("&Unfold All Modules"), this, &MainWindow::unfoldAllModules);
    m_unfoldAllAction->setStatusTip(tr("Draw the code of every folded submodule (double-click one to fold it)"));
    m_unfoldAllAction->setEnabled(false);
    QAction* legend = view->addAction(tr("Show &Legend"));
    legend->setCheckable(true);
    legend->setChecked(true);
    connect(legend, &QAction::toggled, m_script->legend(), &QWidget::setVisible);
    QAction* miniMap = view->addAction(tr("Show &Minimap"));
    miniMap->setCheckable(true);
    miniMap->setChecked(MiniMap::isEnabledEverywhere());
    miniMap->setStatusTip(tr("The whole graph small in a corner while it does not fit the view"));
    connect(miniMap, &QAction::toggled, this, &MiniMap::setEnabledEverywhere);
    m_darkAction = view->addAction(tr("&Dark Theme"));
    m_darkAction->setCheckable(true);
    connect(m_darkAction, &QAction::toggled, this, &MainWindow::setDarkTheme);
    view->addSeparator();
    QAction* showScript = view->addAction(tr("&Script Graph"), this, [this] { showView(View::Script); });
    showScript->setShortcut(QKeySequence(Qt::ALT | Qt::Key_1));
    QAction* showTrace = view->addAction(tr("&Trace Graph"), this, [this] { showView(View::Trace); });
    showTrace->setShortcut(QKeySequence(Qt::ALT | Qt::Key_2));
    QAction* showCompare = view->addAction(tr("Co&mpare Traces"), this, [this] { showView(View::Compare); });
    showCompare->setShortcut(QKeySequence(Qt::ALT | Qt::Key_3));
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());

    QMenu* model = menuBar()->addMenu(tr("&Model"));
    QAction* libraries = model->addAction(tr("Operator &Libraries\u2026"), this, &MainWindow::operatorLibrariesDialog);
    libraries->setStatusTip(tr("Shared libraries of custom operators every model loads with (torchvision's are "
                               "found in the system's Python without them)"));

    m_checkView->createActions(menuBar()->addMenu(tr("&Check")), [this] { runCheck(true); });

    m_debug->createActions(menuBar()->addMenu(tr("&Debug")));

    QMenu* python = menuBar()->addMenu(tr("&Python"));
    QAction* runPython
        = python->addAction(tr("&Run File with Python"), this, [this] { m_pythonView->runWithConsent(false); });
    runPython->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    runPython->setStatusTip(tr("Run the .py file under the system's PyTorch (in its own process) and record its "
                               "torch.jit calls"));
    QAction* stopPython = python->addAction(tr("&Stop Python"), m_python, &PythonController::cancel);
    stopPython->setEnabled(false);
    connect(m_python, &PythonController::started, stopPython, [stopPython] { stopPython->setEnabled(true); });
    connect(m_python, &PythonController::finished, stopPython, [stopPython] { stopPython->setEnabled(false); });
    connect(m_python, &PythonController::cleared, stopPython, [stopPython] { stopPython->setEnabled(false); });
    python->addAction(tr("&Forget Consent for This File"), this, [this] {
        m_session->revokePython(m_document->currentFile());
        setStatus(tr("%1 and its folder will ask again before running Python")
                      .arg(QFileInfo(m_document->currentFile()).fileName()));
    });
    auto updatePythonMenu
        = [this, runPython] { runPython->setEnabled(DocumentController::isSourceFile(m_document->currentFile())); };
    connect(m_document, &DocumentController::aboutToOpen, this, updatePythonMenu);
    updatePythonMenu();

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* aboutAction = help->addAction(tr("&About JitScope"), this, &MainWindow::about);
    aboutAction->setMenuRole(QAction::AboutRole);
}

void MainWindow::connectControllers()
{
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        updateFindTarget();
        if (const int trace = m_checkView->traceOfPage(m_tabs->widget(index)); trace >= 0)
            m_linker->setActiveTrace(trace);
        if (GraphView* view = currentGraphView())
            m_zoomLabel->setText(QStringLiteral("%1%").arg(qRound(view->zoom() * 100)));
    });
    connect(m_tabs->tabBar(), &QTabBar::tabBarClicked, this, [this] { m_userChoseTab = true; });
    for (GraphView* view :
        { m_script->view(), m_compare->view(CompareWidget::Side::Left), m_compare->view(CompareWidget::Side::Right) })
        followZoom(view);
    auto followPage = [this](GraphPage* page) { followZoom(page->view()); };
    connect(m_checkView, &CheckView::pageAdded, this, followPage);
    connect(m_debug->liveTrace(), &LiveTraceTab::pageAdded, this, followPage);

    JobTrackerBase* documentJobs = m_document->jobs();
    connect(documentJobs, &JobTrackerBase::busyChanged, m_busy, &QWidget::setVisible);
    connect(documentJobs, &JobTrackerBase::jobFinished, this, &MainWindow::maybeEmitIdle);
    connect(m_check->jobs(), &JobTrackerBase::jobFinished, this, &MainWindow::maybeEmitIdle);
    connect(m_python->jobs(), &JobTrackerBase::jobFinished, this, &MainWindow::maybeEmitIdle);
    connect(m_python->selfCheckJobs(), &JobTrackerBase::jobFinished, this, &MainWindow::maybeEmitIdle);
    connect(m_pythonView, &PythonView::statusMessage, this, &MainWindow::setStatus);
    connect(m_document, &DocumentController::aboutToOpen, this, &MainWindow::onAboutToOpen);
    connect(m_document, &DocumentController::aboutToReload, this, [this] {
        m_restoreView = currentView();
        m_restoreTrace = m_linker->activeTrace();
        m_restoreTabPending = m_restoreView != View::Script;
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

void MainWindow::followZoom(GraphView* view)
{
    connect(view, &GraphView::zoomChanged, this, [this, view](double zoom) {
        if (currentGraphView() == view)
            m_zoomLabel->setText(QStringLiteral("%1%").arg(qRound(zoom * 100)));
    });
}

void MainWindow::restoreSettings()
{
    m_session->setPersistent(true);
    m_document->setOperatorLibraries(m_session->operatorLibraries() + m_runOperatorLibraries);
    restoreGeometry(m_session->windowGeometry());
    restoreState(m_session->windowState());
    setDarkTheme(m_session->darkTheme());
    updateRecentMenu();
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
        reloadFile();
}

QStringList MainWindow::operatorLibraries() const
{
    return m_session->operatorLibraries();
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
    if (!m_document->isReloading()) {
        m_restoreTabPending = false;
        const QSignalBlocker block(m_groupByModuleAction);
        m_groupByModuleAction->setChecked(m_session->groupByModule(DocumentController::isSourceFile(absolute)));
    }
    m_document->setGroupByModule(m_groupByModuleAction->isChecked());
    m_check->clearCache();
    m_userChoseTab = false;
    m_startViewPending = true;
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
    // A new function starts on its script graph; a relayout of the same one keeps the tab the user is on.
    if (newFunction && !m_userChoseTab)
        m_tabs->setCurrentWidget(m_script);
    m_unfoldAllAction->setEnabled(!m_document->foldedModules().isEmpty());
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
    PythonOptions options = m_python->options();
    options.python = python;
    m_python->setOptions(options);
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
    applyStartView();
}

GraphScene* MainWindow::traceScene(int trace) const
{
    GraphPage* page = m_checkView->tracePage(trace);
    return page ? page->scene() : nullptr;
}

GraphView* MainWindow::traceView(int trace) const
{
    GraphPage* page = m_checkView->tracePage(trace);
    return page ? page->view() : nullptr;
}

// ---------------------------------------------------------------------------------------------------------------
// The tabs

GraphView* MainWindow::currentGraphView() const
{
    QWidget* page = m_tabs->currentWidget();
    if (page == m_compare)
        return m_compare->view(CompareWidget::Side::Right);
    if (auto* graphPage = qobject_cast<GraphPage*>(page))
        return graphPage->view();
    return m_script->view();
}

GraphScene* MainWindow::currentGraphScene() const
{
    GraphView* view = currentGraphView();
    return view ? view->graphScene() : m_script->scene();
}

void MainWindow::showView(View view)
{
    GraphPage* live = m_debug->liveTrace()->page();
    switch (view) {
    case View::Script:
        m_tabs->setCurrentWidget(m_script);
        break;
    case View::Trace:
        if (m_checkView->traceCount() > 0)
            m_tabs->setCurrentWidget(m_checkView->tracePage(0));
        break;
    case View::Compare:
        m_tabs->setCurrentWidget(m_compare);
        break;
    case View::LiveTrace:
        if (live)
            m_tabs->setCurrentWidget(live);
        break;
    }
}

MainWindow::View MainWindow::currentView() const
{
    QWidget* page = m_tabs->currentWidget();
    if (page == m_compare)
        return View::Compare;
    if (GraphPage* live = m_debug->liveTrace()->page(); live && page == live)
        return View::LiveTrace;
    return page == m_script ? View::Script : View::Trace;
}

void MainWindow::setStartView(View view)
{
    m_hasStartView = true;
    m_startView = view;
    m_startViewPending = true;
}

void MainWindow::applyStartView()
{
    if (!m_startViewPending)
        return;
    m_startViewPending = false;
    if (std::exchange(m_restoreTabPending, false)) {
        // A reload: back to the tab the user was on.
        if (m_restoreView == View::Trace && m_restoreTrace < m_checkView->traceCount())
            m_tabs->setCurrentWidget(m_checkView->tracePage(m_restoreTrace));
        else
            showView(m_restoreView);
        return;
    }
    if (m_userChoseTab)
        return;
    const CheckReport& report = m_check->report();
    if (m_hasStartView)
        showView(m_startView);
    else if (report.ok && !report.consistent && report.traces.size() > 1)
        showView(View::Compare); // what a user opening a file whose check diverges wants to see first
    // Opening on the comparison: start at the first divergence, so its cause is in the status bar and its line
    // is marked.
    if (currentView() == View::Compare && m_compare->divergenceModel()->divergenceCount() > 0)
        m_compare->selectDivergence(0);
}

// ---------------------------------------------------------------------------------------------------------------
// Input sets, the model tree, the status bar

void MainWindow::setStatus(const QString& text)
{
    m_statusLabel->setText(text);
    m_statusLabel->setToolTip(text);
}

QString MainWindow::statusText() const
{
    return m_statusLabel->text();
}

// ---------------------------------------------------------------------------------------------------------------
// Files, export, about, theme

void MainWindow::openDialog()
{
    QString dir;
    if (!currentFile().isEmpty())
        dir = QFileInfo(currentFile()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Model"), dir,
        tr("TorchScript models (*.py *.pt *.pth *.zip);;Python files (*.py);;TorchScript archives (*.pt *.pth *.zip);;"
           "All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = m_session->recentFiles();
    for (const QString& path : files) {
        QAction* action = m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); });
        action->setToolTip(path);
        action->setStatusTip(path);
    }
    if (files.isEmpty()) {
        m_recentMenu->addAction(tr("No recent files"))->setEnabled(false);
        return;
    }
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(tr("Clear Menu"), m_session, &SessionStore::clearRecentFiles);
}

bool MainWindow::exportView(const QString& path, QString* error)
{
    const QString function = currentFunction();
    return exportGraph(currentGraphScene(), path, m_document->layoutOptions(),
        function.isEmpty() ? QStringLiteral("JitScope") : function,
        tr("Exported by JitScope from %1").arg(currentFile()), error);
}

void MainWindow::exportDialog()
{
    QString suggestion
        = currentFile().isEmpty() ? QStringLiteral("graph") : QFileInfo(currentFile()).completeBaseName();
    if (!currentFunction().isEmpty())
        suggestion += QLatin1Char('-') + currentFunction();
    QString selectedFilter;
    QString path = QFileDialog::getSaveFileName(this, tr("Export View"), suggestion + QStringLiteral(".svg"),
        tr("SVG image (*.svg);;PNG image (*.png);;Graphviz DOT (*.dot)"), &selectedFilter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += selectedFilter.contains(QLatin1String("png")) ? QStringLiteral(".png")
            : selectedFilter.contains(QLatin1String("dot"))   ? QStringLiteral(".dot")
                                                              : QStringLiteral(".svg");
    QString error;
    if (exportView(path, &error))
        setStatus(tr("Exported %1").arg(path));
    else
        QMessageBox::warning(this, tr("Export failed"), error);
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About JitScope"),
        tr("<h3>JitScope %1</h3>"
           "<p>A debugger for PyTorch TorchScript graphs.</p>"
           "<table>"
           "<tr><td>Qt</td><td>%2</td></tr>"
           "<tr><td>libtorch</td><td>%3</td></tr>"
           "<tr><td>Graphviz</td><td>%4</td></tr>"
           "</table>")
            .arg(QStringLiteral(JITSCOPE_VERSION), QString::fromLatin1(qVersion()),
                m_worker ? m_worker->libtorchVersion() : tr("in process"),
                m_worker ? m_worker->graphvizVersion() : tr("in process")));
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

void MainWindow::updateFindTarget()
{
    m_findBar->setTarget(currentGraphScene(), currentGraphView());
}

void MainWindow::setGroupByModule(bool group)
{
    m_groupByModuleAction->setChecked(group);
}

bool MainWindow::groupsByModule() const
{
    return m_groupByModuleAction->isChecked();
}

void MainWindow::setDarkTheme(bool dark)
{
    if (m_darkAction->isChecked() != dark) {
        m_darkAction->setChecked(dark); // comes back here through toggled()
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
