#include "mainwindow.h"

#include "comparewidget.h"
#include "comparison.h"
#include "debugcontroller.h"
#include "divergencemodel.h"
#include "findbar.h"
#include "framesmodel.h"
#include "graphitems.h"
#include "graphscene.h"
#include "graphview.h"
#include "inputsetseditor.h"
#include "inputsetsmodel.h"
#include "legendbar.h"
#include "modeltreemodel.h"
#include "nodeinspector.h"
#include "sourceview.h"
#include "valuesmodel.h"
#include "warningsmodel.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QImage>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QProgressBar>
#include <QPromise>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QSvgGenerator>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <limits>
#include <optional>

#ifndef JITSCOPE_VERSION
#define JITSCOPE_VERSION "dev"
#endif

namespace jitscope {

/// What a load or layout job hands back to the GUI thread.
struct GuiJobResult
{
    enum class Kind { Load, Layout };
    Kind kind = Kind::Load;
    int generation = 0;
    QString path;
    LoadResult load; ///< Kind::Load
    QString failedSource; ///< a .py file's text when it failed to load, to show the error in context
    QString functionName;
    QString functionError; ///< the requested function does not exist
    QString layoutKey;
    bool hasLayout = false;
    GraphLayout layout;
    int nodeCount = 0;
    qint64 loadMs = 0;
    qint64 layoutMs = 0;
    std::optional<FunctionInfo> inlined; ///< Kind::Layout: the function, inlined for Group by Module on the way
    QStringList overviewFolds; ///< a big model's submodules folded for its first layout (overviewFolds())
    std::optional<InputSuggestion> suggestion; ///< Kind::Load: a set for a file that records none
};

/// What a check job hands back to the GUI thread: the report and a layout per trace.
struct CheckJobResult
{
    int generation = 0;
    QString function;
    QString setsKey;
    QString layoutKey;
    CheckReport report;
    QVector<GraphLayout> layouts; ///< one per trace (empty for failed traces)
    bool canceled = false;
    qint64 checkMs = 0;
    qint64 layoutMs = 0;
};

namespace {

constexpr int kMaxRecentFiles = 10;
constexpr int kCheckTimeoutMs = 60 * 1000;
const char kSessionFile[] = "sessions.json";
const char kRecentFilesKey[] = "recentFiles";
const char kGeometryKey[] = "mainWindow/geometry";
const char kStateKey[] = "mainWindow/state";
const char kDarkThemeKey[] = "view/darkTheme";
const char kGroupArchivesKey[] = "view/groupArchivesByModule";
const char kGroupSourcesKey[] = "view/groupSourcesByModule";

bool isSourceFile(const QString& path)
{
    return path.endsWith(QLatin1String(".py"), Qt::CaseInsensitive);
}

/// What a layout depends on, for the layout cache: "|foldConstants showBlocks groupByModule|nodes|modules".
QString optionsKey(const LayoutOptions& options)
{
    QStringList nodes;
    for (int id : options.foldedNodes)
        nodes << QString::number(id);
    return QStringLiteral("|%1%2%3|%4|%5")
        .arg(int(options.foldConstants))
        .arg(int(options.showBlocks))
        .arg(int(options.groupByModule))
        .arg(nodes.join(QLatin1Char(',')), options.foldedModules.join(QLatin1Char(',')));
}

/// A big model grouped by module opens as an overview: its submodules folded (TensorBoard collapses name scopes).
/// Sets the folds in @p options and @p r when it applies.
void foldForOverview(const IrGraph& graph, LayoutOptions& options, GuiJobResult& r, QPoint limits)
{
    if (!options.groupByModule || !options.foldedModules.isEmpty())
        return;
    r.overviewFolds = overviewFolds(graph, options, limits.x(), limits.y());
    options.foldedModules = r.overviewFolds;
}

QSettings settings()
{
    return QSettings(QStringLiteral("JitScope"), QStringLiteral("JitScope"));
}

/// The function opened when none is named: "forward" or the only one, else the first that compiled.
const FunctionInfo* pickFunction(const ModelInfo& model)
{
    return model.openingFunction();
}

QString elided(QString text, int max)
{
    text = text.simplified();
    if (text.size() > max)
        text = text.left(max - 1) + QChar(0x2026);
    return text;
}

// Input sets edited in the GUI are kept per model file in one JSON object: { "/abs/model.py": ["f32[3]", ...] }.
QString sessionPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QLatin1Char('/')
        + QLatin1String(kSessionFile);
}

QJsonObject readSessions()
{
    QFile file(sessionPath());
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

std::optional<QStringList> sessionInputSets(const QString& modelPath)
{
    const QJsonValue value = readSessions().value(modelPath);
    if (!value.isArray())
        return std::nullopt;
    QStringList texts;
    for (const QJsonValue& v : value.toArray())
        texts << v.toString();
    return texts;
}

/// Saves @p texts for @p modelPath, or forgets them when unset; atomically, so a crash never leaves half a file.
bool saveSessionInputSets(const QString& modelPath, const std::optional<QStringList>& texts)
{
    QJsonObject sessions = readSessions();
    if (texts)
        sessions.insert(modelPath, QJsonArray::fromStringList(*texts));
    else
        sessions.remove(modelPath);
    QDir().mkpath(QFileInfo(sessionPath()).absolutePath());
    QSaveFile file(sessionPath());
    if (!file.open(QIODevice::WriteOnly))
        return false;
    file.write(QJsonDocument(sessions).toJson());
    return file.commit();
}

QIcon dotIcon(const QColor& color)
{
    QPixmap pixmap(16, 16);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(color.darker(130));
    p.setBrush(color);
    p.drawEllipse(QRectF(3.5, 3.5, 9, 9));
    p.end();
    return QIcon(pixmap);
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("JitScope"));
    setAcceptDrops(true);
    setDockOptions(AnimatedDocks | AllowTabbedDocks);

    m_scriptScene = new GraphScene(this);
    m_scriptView = new GraphView;
    m_scriptView->setScene(m_scriptScene);
    m_tabs = new QTabWidget;
    m_tabs->setDocumentMode(true);
    m_legend = new LegendBar;
    m_legend->setScene(m_scriptScene);
    auto* scriptPage = new QWidget;
    auto* scriptLayout = new QVBoxLayout(scriptPage);
    scriptLayout->setContentsMargins(0, 0, 0, 0);
    scriptLayout->setSpacing(0);
    scriptLayout->addWidget(m_scriptView, 1);
    scriptLayout->addWidget(m_legend);
    m_tabs->addTab(scriptPage, tr("Script"));
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
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateFindTarget);

    // Editors often save by replacing the file, which drops it from the watch: its directory is watched too.
    m_fileWatcher = new QFileSystemWatcher(this);
    m_reloadTimer = new QTimer(this);
    m_reloadTimer->setSingleShot(true);
    m_reloadTimer->setInterval(300);
    connect(m_fileWatcher, &QFileSystemWatcher::fileChanged, this, [this] { onWatchedPathChanged(true); });
    connect(m_fileWatcher, &QFileSystemWatcher::directoryChanged, this, [this] { onWatchedPathChanged(false); });
    connect(m_reloadTimer, &QTimer::timeout, this, [this] {
        if (QFileInfo::exists(m_currentFile))
            reloadFile();
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onCurrentTabChanged);
    connect(m_tabs->tabBar(), &QTabBar::tabBarClicked, this, [this] { m_userChoseTab = true; });
    connect(m_compare, &CompareWidget::nodeSelected, this, &MainWindow::onCompareNodeSelected);
    connect(m_compare, &CompareWidget::changeSelected, this, &MainWindow::onChangeSelected);
    for (CompareWidget::Side side : { CompareWidget::Side::Left, CompareWidget::Side::Right }) {
        connect(m_compare->view(side), &GraphView::zoomChanged, this, [this](double zoom) {
            if (currentGraphView() == sender())
                m_zoomLabel->setText(QStringLiteral("%1%").arg(qRound(zoom * 100)));
        });
    }

    createDocks();
    createCheckDocks();
    createDebugDocks();
    createInspectorDock();
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
    m_checkLabel = new QLabel;
    m_checkLabel->hide();
    m_checkProgress = new QProgressBar;
    m_checkProgress->setMaximumWidth(120);
    m_checkProgress->setMaximumHeight(14);
    m_checkProgress->setTextVisible(false);
    m_checkProgress->hide();
    m_checkCancelButton = new QToolButton;
    m_checkCancelButton->setText(tr("Cancel"));
    m_checkCancelButton->setToolTip(tr("Stop the check"));
    m_checkCancelButton->setAutoRaise(true);
    m_checkCancelButton->hide();
    connect(m_checkCancelButton, &QToolButton::clicked, this, &MainWindow::cancelCheck);
    m_verdictLabel = new QLabel;
    m_verdictLabel->setTextFormat(Qt::RichText);
    m_verdictLabel->setContentsMargins(6, 0, 6, 0);
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_checkLabel);
    statusBar()->addPermanentWidget(m_checkProgress);
    statusBar()->addPermanentWidget(m_checkCancelButton);
    statusBar()->addPermanentWidget(m_verdictLabel);
    statusBar()->addPermanentWidget(m_busy);
    statusBar()->addPermanentWidget(m_zoomLabel);
    connect(m_scriptView, &GraphView::zoomChanged, this, [this](double zoom) {
        if (currentGraphView() == m_scriptView)
            m_zoomLabel->setText(QStringLiteral("%1%").arg(qRound(zoom * 100)));
    });
    m_zoomLabel->setText(QStringLiteral("100%"));

    connect(m_scriptScene, &GraphScene::nodeSelected, this, &MainWindow::onNodeSelected);

    m_scriptScene->showMessage(tr("No model loaded"),
        tr("Open a TorchScript archive (.pt, .pth, .zip) or a Python file of TorchScript "
           "functions with File \u203a Open (Ctrl+O), or drop it here."));
    setStatus(tr("Ready"));
    resize(1400, 900);
}

MainWindow::~MainWindow()
{
    // The sessions end at their next node; their threads are joined here, while the window is still whole.
    m_debugger->disconnect(this);
    delete m_debugger;
    for (QFutureWatcherBase* watcher : std::as_const(m_liveWatchers))
        watcher->disconnect(this);
    // Pending jobs keep running on the pool but nobody will look at their results.
    for (QFutureWatcherBase* watcher : std::as_const(m_watchers))
        watcher->disconnect(this);
    for (QFutureWatcherBase* watcher : std::as_const(m_checkWatchers))
        watcher->disconnect(this);
    if (m_checkCancel)
        m_checkCancel->store(true);
}

QStringList MainWindow::supportedSuffixes()
{
    return { QStringLiteral("py"), QStringLiteral("pt"), QStringLiteral("pth"), QStringLiteral("zip") };
}

void MainWindow::createDocks()
{
    m_treeModel = new ModelTreeModel(this);
    m_treeView = new QTreeView;
    m_treeView->setModel(m_treeModel);
    m_treeView->setUniformRowHeights(true);
    m_treeView->setAlternatingRowColors(true);
    m_treeView->setAllColumnsShowFocus(true);
    m_treeView->header()->setStretchLastSection(true);
    m_treeView->setColumnWidth(ModelTreeModel::NameColumn, 150);
    m_treeView->setTextElideMode(Qt::ElideRight);
    connect(m_treeView->selectionModel(), &QItemSelectionModel::currentChanged, this,
        [this](const QModelIndex& current) { onTreeCurrentChanged(current); });

    auto* modelDock = new QDockWidget(tr("Model"), this);
    modelDock->setObjectName(QStringLiteral("modelDock"));
    modelDock->setWidget(m_treeView);
    addDockWidget(Qt::LeftDockWidgetArea, modelDock);

    m_sourceView = new SourceView;
    m_sourceView->setAcceptDrops(false);
    auto* sourceDock = new QDockWidget(tr("Source"), this);
    sourceDock->setObjectName(QStringLiteral("sourceDock"));
    sourceDock->setWidget(m_sourceView);
    addDockWidget(Qt::RightDockWidgetArea, sourceDock);

    resizeDocks({ modelDock, sourceDock }, { 280, 420 }, Qt::Horizontal);
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open\u2026"), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::updateRecentMenu);
    updateRecentMenu();
    file->addSeparator();
    QAction* exportAction = file->addAction(tr("&Export View as SVG/PNG/DOT\u2026"), this, &MainWindow::exportDialog);
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
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
    QAction* zoomOut = view->addAction(tr("Zoom &Out"), this, onView(&GraphView::zoomOut));
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    QAction* fit = view->addAction(tr("&Fit Graph"), this, onView(&GraphView::fitGraph));
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    QAction* actual = view->addAction(tr("&Actual Size"), this, onView(&GraphView::resetZoom));
    actual->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    view->addSeparator();
    m_foldConstantsAction = view->addAction(tr("Fold &Constants"));
    m_foldConstantsAction->setCheckable(true);
    m_foldConstantsAction->setChecked(LayoutOptions().foldConstants);
    m_showBlocksAction = view->addAction(tr("Show Loop/If &Blocks"));
    m_showBlocksAction->setCheckable(true);
    m_showBlocksAction->setChecked(LayoutOptions().showBlocks);
    auto relayout = [this] {
        if (m_hasModel && !m_currentFunction.isEmpty()) {
            const QString name = m_currentFunction;
            m_currentFunction.clear();
            showFunction(name);
        }
    };
    connect(m_foldConstantsAction, &QAction::toggled, this, relayout);
    connect(m_showBlocksAction, &QAction::toggled, this, relayout);
    // Double-clicking a loop/if cluster or a module cluster folds it into one box; again unfolds it.
    connect(m_scriptScene, &GraphScene::foldToggleRequested, this, [this, relayout](int nodeId, const QString& module) {
        if (!module.isEmpty()) {
            if (!m_foldedModules.remove(module))
                m_foldedModules.insert(module);
        } else if (nodeId >= 0) {
            if (!m_foldedNodes.remove(nodeId))
                m_foldedNodes.insert(nodeId);
        }
        relayout();
    });
    m_groupByModuleAction = view->addAction(tr("&Group by Module"));
    m_groupByModuleAction->setCheckable(true);
    m_groupByModuleAction->setStatusTip(tr("Inline calls and draw each submodule's code as a cluster"));
    // The graphs change (calls inlined or not): load the file again, keeping the function and the tab. The choice
    // sticks for files of the same kind: archives open grouped (a model's forward alone is a few CallMethod boxes),
    // .py files open as written.
    connect(m_groupByModuleAction, &QAction::toggled, this, [this](bool group) {
        const bool source = isSourceFile(m_currentFile);
        (source ? m_groupSources : m_groupArchives) = group;
        if (m_persistSettings)
            settings().setValue(QLatin1String(source ? kGroupSourcesKey : kGroupArchivesKey), group);
        if (!m_currentFile.isEmpty())
            reloadFile();
    });
    m_unfoldAllAction = view->addAction(tr("&Unfold All Modules"), this, &MainWindow::unfoldAllModules);
    m_unfoldAllAction->setStatusTip(tr("Draw the code of every folded submodule (double-click one to fold it)"));
    m_unfoldAllAction->setEnabled(false);
    QAction* legend = view->addAction(tr("Show &Legend"));
    legend->setCheckable(true);
    legend->setChecked(true);
    connect(legend, &QAction::toggled, m_legend, &QWidget::setVisible);
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

    QMenu* check = menuBar()->addMenu(tr("&Check"));
    m_runCheckAction = check->addAction(tr("&Run Check"), this, [this] { runCheck(true); });
    m_runCheckAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runCheckAction->setStatusTip(tr("Trace the function on every input set and compare the traces"));
    m_cancelCheckAction = check->addAction(tr("&Cancel Check"), this, &MainWindow::cancelCheck);
    m_cancelCheckAction->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    m_cancelCheckAction->setEnabled(false);
    check->addSeparator();
    QAction* next = check->addAction(tr("&Next Divergence"), this, [this] {
        showView(View::Compare);
        m_compare->nextChange();
    });
    next->setShortcut(QKeySequence(Qt::Key_F8));
    QAction* previous = check->addAction(tr("&Previous Divergence"), this, [this] {
        showView(View::Compare);
        m_compare->previousChange();
    });
    previous->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F8));
    m_dimAction = check->addAction(tr("&Dim Unchanged Nodes"));
    m_dimAction->setCheckable(true);
    m_dimAction->setChecked(m_compare->dimsUnchanged());
    connect(m_dimAction, &QAction::toggled, m_compare, &CompareWidget::setDimUnchanged);
    connect(m_compare, &CompareWidget::dimUnchangedChanged, m_dimAction, &QAction::setChecked);

    createDebugActions();

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* aboutAction = help->addAction(tr("&About JitScope"), this, &MainWindow::about);
    aboutAction->setMenuRole(QAction::AboutRole);
}

void MainWindow::restoreSettings()
{
    m_persistSettings = true;
    QSettings s = settings();
    restoreGeometry(s.value(QLatin1String(kGeometryKey)).toByteArray());
    restoreState(s.value(QLatin1String(kStateKey)).toByteArray());
    setDarkTheme(s.value(QLatin1String(kDarkThemeKey), false).toBool());
    m_groupArchives = s.value(QLatin1String(kGroupArchivesKey), m_groupArchives).toBool();
    m_groupSources = s.value(QLatin1String(kGroupSourcesKey), m_groupSources).toBool();
    updateRecentMenu();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (m_persistSettings) {
        QSettings s = settings();
        s.setValue(QLatin1String(kGeometryKey), saveGeometry());
        s.setValue(QLatin1String(kStateKey), saveState());
    }
    QMainWindow::closeEvent(event);
}

// ---------------------------------------------------------------------------------------------------------------
// Jobs

void MainWindow::startJob(std::function<GuiJobResult(const std::function<bool()>& canceled)> work)
{
    const int generation = ++m_generation;
    // Whatever is still running is stale now: ask it to stop early; its result is dropped anyway.
    for (QFutureWatcherBase* watcher : std::as_const(m_watchers))
        watcher->cancel();

    auto* watcher = new QFutureWatcher<GuiJobResult>(this);
    m_watchers.insert(watcher);
    // A canceled future may never report finished(); whichever comes first ends the job for us.
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] { onJobFinished(watcher); });
    connect(watcher, &QFutureWatcherBase::canceled, this, [this, watcher] { onJobFinished(watcher); });
    m_busy->show();
    watcher->setFuture(QtConcurrent::run([work = std::move(work), generation](QPromise<GuiJobResult>& promise) {
        GuiJobResult result = work([&promise] { return promise.isCanceled(); });
        result.generation = generation;
        promise.addResult(std::move(result));
    }));
}

void MainWindow::onJobFinished(QFutureWatcherBase* base)
{
    if (!m_watchers.remove(base))
        return;
    auto* watcher = static_cast<QFutureWatcher<GuiJobResult>*>(base);
    watcher->disconnect(this);
    watcher->deleteLater();

    const QFuture<GuiJobResult> future = watcher->future();
    if (!future.isCanceled() && future.resultCount() > 0) {
        GuiJobResult result = future.result();
        if (result.generation == m_generation) {
            if (result.kind == GuiJobResult::Kind::Load)
                applyLoadResult(result);
            else
                applyLayoutResult(result);
        }
    }
    if (m_watchers.isEmpty())
        m_busy->hide();
    maybeEmitIdle();
}

void MainWindow::maybeEmitIdle()
{
    if (isIdle())
        Q_EMIT idle();
}

void MainWindow::openFile(const QString& path, const QString& functionName)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    // A session runs the old model: end it, and forget the old file's breakpoints.
    stopDebugging();
    m_checkAfterDebug = false;
    m_breakpoints.clear();
    applyBreakpoints();
    m_framesModel->clear();
    m_valuesModel->clear();
    clearDebugMarkers();
    removeLiveTraceTab();
    m_currentFile = absolute;
    watchFile(absolute);
    if (!m_reloading) {
        m_restoreTabPending = false;
        const QSignalBlocker block(m_groupByModuleAction);
        m_groupByModuleAction->setChecked(isSourceFile(absolute) ? m_groupSources : m_groupArchives);
    }
    m_currentFunction.clear();
    m_lastError.clear();
    m_hasModel = false;
    m_model = ModelInfo();
    m_layoutCache.clear();
    m_checkCache.clear();
    m_shownFunction.clear();
    m_treeModel->clear();
    m_sourceView->setSource(QString());
    m_userChoseTab = false;
    m_startViewPending = true;
    const QString fileName = QFileInfo(absolute).fileName();
    resetCheck(tr("Loading %1\u2026").arg(fileName));
    m_inputSets->model()->setTexts({});
    m_inputSets->setEdited(false);
    setWindowTitle(tr("%1 \u2014 JitScope").arg(fileName));
    m_scriptScene->showMessage(tr("Loading %1\u2026").arg(fileName), QString());
    m_scriptView->showMessage();
    setStatus(tr("Loading %1\u2026").arg(fileName));
    addRecentFile(absolute);

    m_foldedNodes.clear();
    m_foldedModules.clear();
    const LayoutOptions layoutOptions = this->layoutOptions();
    LoadOptions loadOptions;
    // Submodule code only shows up in the caller's graph once the calls are inlined.
    loadOptions.inlineCalls = layoutOptions.groupByModule;

    startJob([absolute, functionName, layoutOptions, loadOptions, limits = m_overviewLimits](
                 const std::function<bool()>& canceled) {
        GuiJobResult r;
        r.kind = GuiJobResult::Kind::Load;
        r.path = absolute;
        QElapsedTimer timer;
        timer.start();
        r.load = loadModel(absolute, loadOptions);
        r.loadMs = timer.elapsed();
        if (!r.load.ok) {
            QFile file(absolute);
            if (absolute.endsWith(QLatin1String(".py")) && file.open(QIODevice::ReadOnly | QIODevice::Text)
                && file.size() < 16 * 1024 * 1024)
                r.failedSource = QString::fromUtf8(file.readAll());
            return r;
        }
        const FunctionInfo* fn = nullptr;
        if (!functionName.isEmpty()) {
            fn = r.load.model.function(functionName);
            if (!fn) {
                QStringList names;
                for (const FunctionInfo& f : r.load.model.functions)
                    names << f.name;
                r.functionError = QStringLiteral("%1: no function '%2' (functions: %3)")
                                      .arg(absolute, functionName,
                                          names.isEmpty() ? QStringLiteral("none") : names.join(QLatin1String(", ")));
            }
        }
        if (!fn)
            fn = pickFunction(r.load.model);
        if (!fn || canceled())
            return r;
        if (loadOptions.inlineCalls && !fn->inlined) { // a submodule's method (--fn layer1.0.forward)
            for (FunctionInfo& f : r.load.model.functions)
                if (&f == fn)
                    inlineFunction(r.load.model.handle, f);
        }
        r.functionName = fn->name;
        r.nodeCount = fn->graph.nodes.size();
        if (r.load.model.inputSets.isEmpty() && fn->ok)
            r.suggestion = suggestInputSet(r.load.model, *fn);
        if (fn->ok) {
            timer.restart();
            LayoutOptions options = layoutOptions;
            options.moduleTypes = submoduleTypes(r.load.model, fn->name);
            foldForOverview(fn->graph, options, r, limits);
            r.layout = layoutGraph(fn->graph, options);
            r.layoutMs = timer.elapsed();
            r.hasLayout = true;
            r.layoutKey = fn->name + optionsKey(options);
        }
        return r;
    });
}

void MainWindow::applyLoadResult(GuiJobResult& r)
{
    if (!r.load.ok) {
        m_lastError = r.load.error.toString();
        m_scriptScene->showMessage(tr("Could not open %1").arg(QFileInfo(r.path).fileName()), m_lastError, true);
        m_scriptView->showMessage();
        if (!r.failedSource.isEmpty()) {
            m_sourceView->setSource(r.failedSource);
            if (r.load.error.location.line > 0) {
                m_sourceView->setErrorLines({ r.load.error.location.line });
                m_sourceView->highlightLine(r.load.error.location.line);
            }
        }
        setStatus(tr("Failed to load: %1").arg(elided(r.load.error.message, 200)));
        resetCheck(tr("Nothing to check"), tr("%1 could not be loaded.").arg(QFileInfo(r.path).fileName()));
        Q_EMIT fileLoaded(false);
        if (std::exchange(m_reloading, false))
            Q_EMIT fileReloaded();
        return;
    }

    m_model = std::move(r.load.model);
    m_hasModel = true;
    m_lastError = r.functionError;
    m_treeModel->setModel(m_model);
    m_treeView->expand(m_treeModel->groupIndex(ModelTreeModel::ItemKind::Function));
    m_treeView->expand(m_treeModel->groupIndex(ModelTreeModel::ItemKind::InputSet));
    // Wide enough for the function names (the rows users click most), but leave room for the details.
    int nameWidth = 0;
    const QFontMetrics metrics(m_treeView->font());
    for (const FunctionInfo& fn : m_model.functions)
        nameWidth = qMax(nameWidth, metrics.horizontalAdvance(fn.name));
    const int wanted = nameWidth + 2 * m_treeView->indentation() + 12;
    m_treeView->setColumnWidth(
        ModelTreeModel::NameColumn, qBound(140, wanted, qMax(140, m_treeView->viewport()->width() * 3 / 5)));
    m_sourceView->setSource(m_model.source);
    indexArchiveSource();
    QSet<int> errorLines;
    for (const FunctionInfo& fn : m_model.functions) {
        const int line = fn.ok ? 0 : sourceLineFor(fn.error.location);
        if (line > 0)
            errorLines.insert(line);
    }
    m_sourceView->setErrorLines(errorLines);

    // The sets the user last checked this file with, else the file's own inputs and check_inputs.
    // Sets given on the command line (jitscope FILE --inputs SET ...) win over both, once.
    std::optional<QStringList> saved = m_persistSettings ? sessionInputSets(m_model.path) : std::nullopt;
    if (!m_initialInputSets.isEmpty()) {
        saved = m_initialInputSets;
        m_initialInputSets.clear();
    }
    // Replacing the rows is not an edit: setsEdited() stays quiet.
    if (saved)
        m_inputSets->model()->setTexts(*saved);
    else
        m_inputSets->model()->setSets(m_model.inputSets);
    m_inputSets->setEdited(saved.has_value());
    m_inputSets->setSuggestion(
        r.suggestion ? r.suggestion->set : QString(), r.suggestion ? r.suggestion->reason : QString());

    m_foldedModules = QSet<QString>(r.overviewFolds.begin(), r.overviewFolds.end());
    if (r.hasLayout)
        m_layoutCache.insert(r.layoutKey, r.layout);
    m_currentFunction = r.functionName;
    selectFunctionInTree(r.functionName);

    const FunctionInfo* fn = m_model.function(r.functionName);
    if (!fn) {
        m_scriptScene->showMessage(
            tr("No functions"), tr("%1 contains no TorchScript functions.").arg(QFileInfo(r.path).fileName()));
        m_scriptView->showMessage();
        resetCheck(tr("No functions to trace"));
        setStatus(tr("Loaded in %1 ms; no functions").arg(r.loadMs));
    } else if (!fn->ok) {
        showCompileError(*fn);
    } else {
        displayFunction(fn->name, r.layout, r.loadMs + r.layoutMs);
        noteOverview(r.overviewFolds, fn->graph);
        if (fn->location.isValid())
            m_sourceView->highlightLine(sourceLineFor(fn->location));
    }
    if (!r.functionError.isEmpty())
        setStatus(r.functionError);
    updateDebugActions();
    Q_EMIT fileLoaded(true);
    if (std::exchange(m_reloading, false))
        Q_EMIT fileReloaded();
}

void MainWindow::showFunction(const QString& name)
{
    if (!m_hasModel || name == m_currentFunction)
        return;
    const FunctionInfo* fn = m_model.function(name);
    if (!fn) {
        setStatus(tr("No function '%1'").arg(name));
        return;
    }
    m_currentFunction = name;
    selectFunctionInTree(name);
    if (m_debugger->isActive() && m_debugger->function() != name)
        stopDebugging();
    updateDebugActions();
    if (!fn->ok) {
        // Leave no job running that could replace the error with an older graph.
        ++m_generation;
        showCompileError(*fn);
        return;
    }
    const bool firstShown = name != m_shownFunction;
    if (firstShown) {
        resetCheck(tr("Laying out %1\u2026").arg(name));
        // Folds name nodes of one function.
        m_foldedNodes.clear();
        m_foldedModules.clear();
    }
    const QString key = cacheKey(name);
    const auto cached = m_layoutCache.constFind(key);
    if (cached != m_layoutCache.constEnd()) {
        ++m_generation;
        displayFunction(name, cached.value(), 0);
        return;
    }

    LayoutOptions options = layoutOptions();
    options.moduleTypes = submoduleTypes(m_model, name);
    m_scriptScene->showMessage(tr("Laying out %1\u2026").arg(name), QString());
    m_scriptView->showMessage();
    setStatus(tr("Laying out %1\u2026").arg(name));
    // Grouped by module, a submodule's method is inlined the first time it is shown.
    std::optional<FunctionInfo> toInline;
    if (options.groupByModule && !fn->inlined)
        toInline = *fn;
    startJob([graph = fn->graph, toInline, handle = m_model.handle, name, options, key, firstShown,
                 limits = m_overviewLimits](const std::function<bool()>&) mutable {
        GuiJobResult r;
        r.kind = GuiJobResult::Kind::Layout;
        r.functionName = name;
        QElapsedTimer timer;
        timer.start();
        if (toInline && inlineFunction(handle, *toInline)) {
            graph = toInline->graph;
            r.inlined = std::move(toInline);
        }
        r.nodeCount = graph.nodes.size();
        if (firstShown)
            foldForOverview(graph, options, r, limits);
        r.layout = layoutGraph(graph, options);
        r.layoutMs = timer.elapsed();
        r.hasLayout = true;
        r.layoutKey = r.overviewFolds.isEmpty() ? key : name + optionsKey(options);
        return r;
    });
}

void MainWindow::applyLayoutResult(GuiJobResult& r)
{
    if (r.inlined) {
        for (FunctionInfo& f : m_model.functions)
            if (f.name == r.inlined->name)
                f = std::move(*r.inlined);
    }
    m_layoutCache.insert(r.layoutKey, r.layout);
    if (r.functionName == m_currentFunction) {
        if (!r.overviewFolds.isEmpty())
            m_foldedModules = QSet<QString>(r.overviewFolds.begin(), r.overviewFolds.end());
        displayFunction(r.functionName, r.layout, r.layoutMs);
        if (const FunctionInfo* fn = m_model.function(r.functionName))
            noteOverview(r.overviewFolds, fn->graph);
    }
}

QString MainWindow::cacheKey(const QString& function) const
{
    return function + layoutOptionsKey();
}

QString MainWindow::layoutOptionsKey() const
{
    return optionsKey(layoutOptions());
}

LayoutOptions MainWindow::layoutOptions() const
{
    LayoutOptions options;
    options.foldConstants = m_foldConstantsAction->isChecked();
    options.showBlocks = m_showBlocksAction->isChecked();
    options.groupByModule = m_groupByModuleAction->isChecked();
    // The whole model, inlined: hide its guard code (shape checks that raise, counters) as model viewers do.
    options.hideUnreachable = options.groupByModule;
    options.foldedNodes = QVector<int>(m_foldedNodes.begin(), m_foldedNodes.end());
    std::sort(options.foldedNodes.begin(), options.foldedNodes.end());
    options.foldedModules = QStringList(m_foldedModules.begin(), m_foldedModules.end());
    options.foldedModules.sort();
    return options;
}

void MainWindow::displayFunction(const QString& name, const GraphLayout& layout, qint64 elapsedMs)
{
    const FunctionInfo* fn = m_model.function(name);
    if (!fn)
        return;
    if (!layout.error.isEmpty()) {
        m_scriptScene->showMessage(tr("Graphviz could not lay out %1").arg(name), layout.error, true);
        m_scriptView->showMessage();
        setStatus(tr("Layout failed: %1").arg(elided(layout.error, 200)));
        return;
    }
    if (layout.nodes.isEmpty()) {
        m_scriptScene->showMessage(tr("%1 has an empty graph").arg(name), QString());
        m_scriptView->showMessage();
        setStatus(tr("0 nodes"));
        return;
    }
    m_scriptScene->setGraph(fn->graph, layout);
    // A new function starts on its script graph; a relayout of the same one keeps the tab the user is on.
    const bool newFunction = name != m_shownFunction;
    m_shownFunction = name;
    if (newFunction && !m_userChoseTab)
        m_tabs->setCurrentIndex(m_tabs->indexOf(m_scriptView->parentWidget()));
    m_scriptView->showGraph();
    setStatus(tr("%1: %2 nodes, %3 ms").arg(name).arg(fn->graph.nodes.size()).arg(elapsedMs));
    m_unfoldAllAction->setEnabled(!m_foldedModules.isEmpty());
    applyDebugMarkers();
    updateDebugActions();
    runCheck(false);
}

void MainWindow::showCompileError(const FunctionInfo& fn)
{
    m_shownFunction.clear();
    resetCheck(tr("%1 failed to compile").arg(fn.name), tr("Fix the compile error to trace the function."), true);
    const int line = sourceLineFor(fn.error.location);
    QString text = fn.error.message.trimmed();
    if (line > 0)
        text = tr("line %1: %2").arg(line).arg(text);
    m_scriptScene->showMessage(tr("%1 failed to compile").arg(fn.name), text, true);
    m_scriptView->showMessage();
    if (line > 0)
        m_sourceView->highlightLine(line);
    setStatus(tr("%1: compile error: %2").arg(fn.name, elided(fn.error.message, 160)));
}

int MainWindow::sourceLineFor(const SourceLocation& location) const
{
    if (!location.isValid())
        return 0;
    if (m_model.kind == ModelInfo::Kind::PythonSource) {
        // Nodes inlined from library code (torch/nn/functional.py, ...) point outside the user's file.
        if (location.file.isEmpty())
            return location.line;
        const QString file = QDir::cleanPath(location.file);
        const QString path = QDir::cleanPath(m_model.path);
        return file == path || path.endsWith(QLatin1Char('/') + file) ? location.line : 0;
    }
    // Archive code is shown as its code/ files one after the other, each after a "# ===== NAME =====" header.
    const int code = int(location.file.indexOf(QLatin1String("code/")));
    if (code < 0)
        return 0;
    const auto offset = m_archiveFileOffsets.constFind(location.file.mid(code));
    return offset == m_archiveFileOffsets.constEnd() ? 0 : offset.value() + location.line;
}

void MainWindow::indexArchiveSource()
{
    m_archiveFileOffsets.clear();
    if (m_model.kind != ModelInfo::Kind::Archive)
        return;
    static const QRegularExpression header(QStringLiteral("^# ===== (.*) =====$"));
    const QStringList lines = m_model.source.split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size(); ++i) {
        const QRegularExpressionMatch match = header.match(lines.at(i));
        if (!match.hasMatch())
            continue;
        const QString record = match.captured(1);
        const int code = int(record.indexOf(QLatin1String("code/")));
        // Line 1 of the file is the line after the header, which is line i + 1 (1-based) of the source.
        m_archiveFileOffsets.insert(code >= 0 ? record.mid(code) : record, i + 1);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The check: traces, warnings, input sets

void MainWindow::createCheckDocks()
{
    auto* modelDock = findChild<QDockWidget*>(QStringLiteral("modelDock"));
    auto* sourceDock = findChild<QDockWidget*>(QStringLiteral("sourceDock"));

    m_warningsModel = new WarningsModel(this);
    m_warningsView = new QTreeView;
    m_warningsView->setModel(m_warningsModel);
    m_warningsView->setRootIsDecorated(false);
    m_warningsView->setUniformRowHeights(true);
    m_warningsView->setAlternatingRowColors(true);
    m_warningsView->setAllColumnsShowFocus(true);
    m_warningsView->setTextElideMode(Qt::ElideRight);
    m_warningsView->header()->setStretchLastSection(false);
    m_warningsView->header()->setSectionResizeMode(WarningsModel::MessageColumn, QHeaderView::Stretch);
    m_warningsView->header()->setSectionResizeMode(WarningsModel::LineColumn, QHeaderView::ResizeToContents);
    // Narrow docks: what and where first, the long message last where it can stretch.
    m_warningsView->header()->moveSection(WarningsModel::MessageColumn, WarningsModel::NumColumns - 1);
    connect(
        m_warningsView, &QTreeView::clicked, this, [this](const QModelIndex& index) { activateWarning(index.row()); });
    connect(m_warningsView, &QTreeView::activated, this,
        [this](const QModelIndex& index) { activateWarning(index.row()); });
    auto* warningsDock = new QDockWidget(tr("Warnings"), this);
    warningsDock->setObjectName(QStringLiteral("warningsDock"));
    warningsDock->setWidget(m_warningsView);
    addDockWidget(Qt::RightDockWidgetArea, warningsDock);
    if (sourceDock)
        splitDockWidget(sourceDock, warningsDock, Qt::Vertical);

    m_inputSets = new InputSetsEditor;
    connect(m_inputSets, &InputSetsEditor::checkRequested, this, [this] { runCheck(true); });
    connect(m_inputSets, &InputSetsEditor::resetRequested, this, &MainWindow::resetInputSets);
    connect(m_inputSets->model(), &InputSetsModel::setsEdited, this, &MainWindow::onInputSetsEdited);
    auto* inputDock = new QDockWidget(tr("Input Sets"), this);
    inputDock->setObjectName(QStringLiteral("inputSetsDock"));
    inputDock->setWidget(m_inputSets);
    addDockWidget(Qt::LeftDockWidgetArea, inputDock);
    if (modelDock) {
        splitDockWidget(modelDock, inputDock, Qt::Vertical);
        resizeDocks({ modelDock, inputDock }, { 420, 330 }, Qt::Vertical);
    }
    if (sourceDock)
        resizeDocks({ sourceDock, warningsDock }, { 480, 270 }, Qt::Vertical);
}

void MainWindow::runCheck(bool force)
{
    // A paused session holds the model: a check would wait for it. One the user asks for ends the session; one
    // that comes with a relayout waits for the session to end.
    if (m_debugger->isActive()) {
        if (!force) {
            m_checkAfterDebug = true;
            return;
        }
        m_checkAfterDebug = false;
        stopDebugging();
    }
    const FunctionInfo* fn = m_hasModel ? m_model.function(m_currentFunction) : nullptr;
    // Only once the script graph is shown: the compare view needs its layout.
    if (!fn || !fn->ok || m_shownFunction != fn->name)
        return;
    bool valid = false;
    const QVector<InputSet> sets = m_inputSets->model()->sets(&valid);
    if (!valid) {
        const int row = m_inputSets->model()->firstInvalidRow();
        resetCheck(tr("Input set %1 is invalid").arg(row + 1),
            tr("Fix it in the Input Sets panel, then run the check again (Ctrl+R)."), true);
        setStatus(tr("Input set %1 is invalid: %2")
                      .arg(row + 1)
                      .arg(m_inputSets->model()->index(row, 0).data(InputSetsModel::ErrorRole).toString()));
        return;
    }
    if (sets.isEmpty()) {
        resetCheck(tr("No input sets"),
            tr("Add an input set in the Input Sets panel (for example f32[2,3]) to trace %1 and check the trace.")
                .arg(fn->name));
        return;
    }
    const QString setsKey = m_inputSets->model()->texts().join(QLatin1Char('\n'));
    if (force)
        m_checkCache.remove(fn->name);
    const auto cached = m_checkCache.constFind(fn->name);
    if (cached != m_checkCache.constEnd() && cached->setsKey == setsKey) {
        if (cached->layoutKey == layoutOptionsKey()) {
            ++m_checkGeneration;
            if (m_checkCancel)
                m_checkCancel->store(true);
            CheckJobResult r;
            r.generation = m_checkGeneration;
            r.function = fn->name;
            r.setsKey = setsKey;
            r.layoutKey = cached->layoutKey;
            r.report = cached->report;
            r.layouts = cached->layouts;
            applyCheckResult(r);
            return;
        }
        // Same traces, other layout options: lay them out again without tracing again.
        const CheckReport report = cached->report;
        startCheckJob(fn->name, sets, setsKey, &report);
        return;
    }
    startCheckJob(fn->name, sets, setsKey, nullptr);
}

void MainWindow::startCheckJob(
    const QString& function, const QVector<InputSet>& sets, const QString& setsKey, const CheckReport* reuse)
{
    const int generation = ++m_checkGeneration;
    if (m_checkCancel)
        m_checkCancel->store(true);
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_checkCancel = cancel;
    const bool relayoutOnly = reuse != nullptr;
    const CheckReport reused = reuse ? *reuse : CheckReport();
    const LayoutOptions options = layoutOptions();
    const QString layoutKey = layoutOptionsKey();
    const int steps = int(sets.size()) + 1;

    auto* watcher = new QFutureWatcher<CheckJobResult>(this);
    m_checkWatchers.insert(watcher);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] { onCheckJobFinished(watcher); });
    connect(watcher, &QFutureWatcherBase::progressValueChanged, this, [this, watcher, generation](int value) {
        if (generation == m_checkGeneration)
            updateCheckProgress(value, watcher->progressText());
    });

    m_checkLabel->setText(relayoutOnly ? tr("Laying out traces\u2026") : tr("Checking\u2026"));
    m_checkLabel->show();
    m_checkProgress->setRange(0, 0);
    m_checkProgress->show();
    m_checkCancelButton->show();
    m_checkCancelButton->setEnabled(true);
    m_cancelCheckAction->setEnabled(true);
    setVerdict(QString(), QString());
    if (!m_hasReport)
        m_compare->showMessage(sets.size() == 1
                ? tr("Tracing %1 on 1 input set\u2026").arg(function)
                : tr("Checking %1 on %2 input sets\u2026").arg(function).arg(sets.size()),
            tr("Each set is traced as torch.jit.trace would; the traces are then compared node by node and the "
               "first trace is run on every other set."));

    watcher->setFuture(
        QtConcurrent::run([model = m_model, function, sets, setsKey, layoutKey, options, reused, relayoutOnly, cancel,
                              generation, steps](QPromise<CheckJobResult>& promise) {
            CheckJobResult r;
            r.generation = generation;
            r.function = function;
            r.setsKey = setsKey;
            r.layoutKey = layoutKey;
            // Step 1 is the check itself, steps 2.. the layouts (progress values must grow to be reported).
            promise.setProgressRange(0, steps + 1);
            QElapsedTimer timer;
            timer.start();
            if (relayoutOnly) {
                r.report = reused;
            } else {
                promise.setProgressValueAndText(1, QStringLiteral("Tracing %1 input set(s)").arg(sets.size()));
                CheckOptions check;
                check.exec.cancel = cancel.get();
                check.exec.timeoutMs = kCheckTimeoutMs;
                r.report = checkFunction(model, function, sets, check);
                r.checkMs = timer.restart();
            }
            for (int k = 0; k < r.report.traces.size(); ++k) {
                if (cancel->load() || promise.isCanceled())
                    break;
                promise.setProgressValueAndText(
                    k + 2, QStringLiteral("Laying out trace %1 of %2").arg(k + 1).arg(r.report.traces.size()));
                const TraceResult& trace = r.report.traces.at(k);
                r.layouts.append(trace.ok ? layoutGraph(trace.graph, options) : GraphLayout());
            }
            r.layoutMs = timer.elapsed();
            r.canceled = cancel->load();
            promise.addResult(std::move(r));
        }));
}

void MainWindow::updateCheckProgress(int value, const QString& text)
{
    if (!text.isEmpty())
        m_checkLabel->setText(text + QStringLiteral("\u2026"));
    // Tracing has no steps to report: a busy bar; laying out counts traces.
    if (value <= 1) {
        m_checkProgress->setRange(0, 0);
    } else {
        m_checkProgress->setRange(0, qMax(1, int(m_inputSets->model()->rowCount())));
        m_checkProgress->setValue(value - 1);
    }
}

void MainWindow::cancelCheck()
{
    if (!m_checkCancel || m_checkWatchers.isEmpty())
        return;
    m_checkCancel->store(true);
    m_checkLabel->setText(tr("Canceling\u2026"));
    m_checkCancelButton->setEnabled(false);
}

void MainWindow::onCheckJobFinished(QFutureWatcherBase* base)
{
    if (!m_checkWatchers.remove(base))
        return;
    auto* watcher = static_cast<QFutureWatcher<CheckJobResult>*>(base);
    watcher->disconnect(this);
    watcher->deleteLater();
    const QFuture<CheckJobResult> future = watcher->future();
    if (future.resultCount() > 0) {
        const CheckJobResult result = future.result();
        if (result.generation == m_checkGeneration)
            applyCheckResult(result);
    }
    maybeEmitIdle();
}

void MainWindow::applyCheckResult(const CheckJobResult& r)
{
    m_checkLabel->hide();
    m_checkProgress->hide();
    m_checkCancelButton->hide();
    m_cancelCheckAction->setEnabled(false);
    if (r.function != m_currentFunction)
        return;
    if (r.canceled) {
        if (m_checkAfterDebug) {
            resetCheck(tr("Check paused for debugging"), tr("It runs again when the debug session ends."));
        } else {
            resetCheck(tr("Check canceled"), tr("Run it again with Check \u203a Run Check (Ctrl+R)."));
            setStatus(tr("Check of %1 canceled").arg(r.function));
        }
        Q_EMIT checkFinished();
        return;
    }
    if (r.report.ok && r.layouts.size() == r.report.traces.size())
        m_checkCache.insert(r.function, { r.setsKey, r.report, r.layoutKey, r.layouts });
    m_report = r.report;
    m_traceLayouts = r.layouts;
    m_hasReport = true;
    showReport();
    if (r.checkMs > 0 || r.layoutMs > 0)
        m_verdictLabel->setToolTip(m_verdictLabel->toolTip()
            + tr("\nTraced and checked in %1 ms, laid out in %2 ms.").arg(r.checkMs).arg(r.layoutMs));
    Q_EMIT checkFinished();
    applyStartView();
}

void MainWindow::showReport()
{
    QStringList setTexts;
    for (const TraceResult& t : std::as_const(m_report.traces))
        setTexts << t.inputs.toString();

    if (!m_report.ok) {
        removeTraceTabs();
        m_compare->showMessage(
            tr("Could not trace %1").arg(m_report.function), m_report.error.toString().trimmed(), true);
        TraceWarning w;
        w.kind = WarningKind::CheckFailed;
        w.message = m_report.error.message;
        w.location = m_report.error.location;
        m_warningsModel->setWarnings({ w }, m_inputSets->model()->texts());
        const int line = sourceLineFor(w.location);
        m_sourceView->setWarningLines(line > 0 ? QHash<int, QString> { { line, w.message } } : QHash<int, QString>());
        setVerdict(QStringLiteral("<span style='color:#cf222e'>\u2716 check failed</span>"), w.message);
        return;
    }

    rebuildTraceTabs();
    m_compare->setReport(m_report, m_traceLayouts, m_layoutCache.value(cacheKey(m_report.function)));
    m_warningsModel->setWarnings(m_report.warnings, setTexts);
    m_warningsView->resizeColumnToContents(WarningsModel::KindColumn);
    m_warningsView->resizeColumnToContents(WarningsModel::InputSetColumn);

    QHash<int, QStringList> byLine;
    for (const TraceWarning& w : std::as_const(m_report.warnings)) {
        const int line = sourceLineFor(w.location);
        const QString text
            = QStringLiteral("%1 (set %2): %3").arg(warningKindName(w.kind)).arg(w.traceIndex + 1).arg(w.message);
        if (line > 0 && !byLine[line].contains(text))
            byLine[line] << text;
    }
    QHash<int, QString> marks;
    for (auto it = byLine.cbegin(); it != byLine.cend(); ++it)
        marks.insert(it.key(), it.value().join(QLatin1Char('\n')));
    m_sourceView->setWarningLines(marks);

    // The script nodes the warnings blame (a loop, a branch) get a badge in the Script tab too.
    QHash<int, QString> scriptWarnings;
    for (const TraceWarning& w : std::as_const(m_report.warnings)) {
        if (w.scriptNode < 0)
            continue;
        const int shown = m_scriptScene->displayedNode(w.scriptNode);
        QString& text = scriptWarnings[shown];
        const QString line = QStringLiteral("%1: %2").arg(warningKindName(w.kind), w.message);
        if (shown >= 0 && !text.contains(line))
            text += (text.isEmpty() ? QString() : QStringLiteral("\n")) + line;
    }
    scriptWarnings.remove(-1);
    m_scriptScene->setNodeWarnings(scriptWarnings);

    const int traces = int(m_report.traces.size());
    const int warnings = int(m_report.warnings.size());
    const QString counts = (traces == 1 ? tr("1 trace") : tr("%1 traces").arg(traces)) + QStringLiteral(", ")
        + (warnings == 1 ? tr("1 warning") : tr("%1 warnings").arg(warnings));
    if (m_report.consistent) {
        setVerdict(QStringLiteral("<span style='color:%1'>\u2714 consistent</span> \u00b7 ")
                       .arg(diffStatusColor(DiffStatus::Inserted).name())
                + counts,
            traces > 1 ? tr("Every trace records the same graph as trace 1, and trace 1 computes what the script "
                            "function computes on every input set.")
                       : tr("One input set: nothing to compare the trace with. Add check inputs to compare."));
    } else {
        QStringList differing;
        for (int k = 1; k < traces; ++k) {
            bool differs = !m_report.traces.at(k).ok;
            for (const TraceDiff& d : std::as_const(m_report.diffs))
                differs = differs || (d.other == k && !d.equal);
            for (const TraceWarning& w : std::as_const(m_report.warnings))
                differs = differs || (w.traceIndex == k && w.kind == WarningKind::OutputMismatch);
            if (differs)
                differing << QString::number(k + 1);
        }
        setVerdict(QStringLiteral("<span style='color:#cf222e'><b>\u2716 diverged</b></span> \u00b7 ") + counts,
            tr("The trace recorded on input set 1 does not hold for input set(s) %1: see the Compare tab and the "
               "Warnings panel.")
                .arg(differing.join(QLatin1String(", "))));
    }
}

void MainWindow::setVerdict(const QString& html, const QString& toolTip)
{
    m_verdictLabel->setText(html);
    m_verdictLabel->setToolTip(toolTip);
    m_verdictLabel->setVisible(!html.isEmpty());
}

QString MainWindow::verdictText() const
{
    return m_verdictLabel->text();
}

void MainWindow::resetCheck(const QString& title, const QString& text, bool isError)
{
    ++m_checkGeneration;
    if (m_checkCancel)
        m_checkCancel->store(true);
    m_checkLabel->hide();
    m_checkProgress->hide();
    m_checkCancelButton->hide();
    if (m_cancelCheckAction)
        m_cancelCheckAction->setEnabled(false);
    m_report = CheckReport();
    m_traceLayouts.clear();
    m_hasReport = false;
    removeTraceTabs();
    m_compare->showMessage(title, text, isError);
    m_warningsModel->clear();
    m_sourceView->setWarningLines({});
    m_scriptScene->setNodeWarnings({});
    setVerdict(QString(), QString());
}

void MainWindow::removeTraceTabs()
{
    for (const TracePage& page : std::as_const(m_tracePages)) {
        page.scene->disconnect(this);
        page.view->disconnect(this);
        m_tabs->removeTab(m_tabs->indexOf(page.page));
        page.page->deleteLater();
        page.scene->deleteLater();
    }
    m_tracePages.clear();
}

void MainWindow::rebuildTraceTabs()
{
    const int current = m_tabs->currentIndex();
    // The trace tabs follow the Script tab and the Live trace tab when there is one.
    const int first = m_livePage.page ? 2 : 1;
    const bool onTrace = current >= first && current < first + m_tracePages.size();
    {
        // Removing the current tab makes another current: not a choice of the user, nothing to follow.
        const QSignalBlocker blocker(m_tabs);
        removeTraceTabs();
    }
    for (int k = 0; k < m_report.traces.size(); ++k) {
        const TraceResult& trace = m_report.traces.at(k);
        const GraphLayout layout = m_traceLayouts.value(k);
        TracePage page;
        page.scene = new GraphScene(this);
        page.view = new GraphView;
        page.view->setScene(page.scene);
        auto* legend = new LegendBar;
        legend->setScene(page.scene);
        page.page = new QWidget;
        auto* layoutBox = new QVBoxLayout(page.page);
        layoutBox->setContentsMargins(0, 0, 0, 0);
        layoutBox->setSpacing(0);
        layoutBox->addWidget(page.view, 1);
        layoutBox->addWidget(legend);

        if (!trace.ok) {
            page.scene->showMessage(
                tr("Tracing failed on input set %1").arg(k + 1), trace.error.toString().trimmed(), true);
            page.view->showMessage();
        } else if (!layout.error.isEmpty()) {
            page.scene->showMessage(tr("Graphviz could not lay out trace %1").arg(k + 1), layout.error, true);
            page.view->showMessage();
        } else if (layout.nodes.isEmpty()) {
            page.scene->showMessage(tr("Trace %1 is empty").arg(k + 1), QString());
            page.view->showMessage();
        } else {
            page.scene->setGraph(trace.graph, layout);
            page.scene->setNodeWarnings(traceWarningNodes(m_report, k));
            page.view->showGraph();
        }
        connect(page.scene, &GraphScene::nodeSelected, this, [this, k](int id) { onTraceNodeSelected(k, id); });
        connect(page.view, &GraphView::zoomChanged, this, [this](double zoom) {
            if (currentGraphView() == sender())
                m_zoomLabel->setText(QStringLiteral("%1%").arg(qRound(zoom * 100)));
        });

        // A dot says how this trace compares with trace 1: the same, different, or failed.
        QColor state = QColor(0x8c, 0x93, 0x9d);
        QString stateText = tr("traced: the other sets are compared with this trace");
        if (k > 0) {
            bool differs = false;
            for (const TraceDiff& d : std::as_const(m_report.diffs))
                differs = differs || (d.other == k && !d.equal);
            bool wrongOutput = false;
            for (const TraceWarning& w : std::as_const(m_report.warnings))
                wrongOutput = wrongOutput || (w.traceIndex == k && w.kind == WarningKind::OutputMismatch);
            if (!trace.ok) {
                state = QColor(0xcf, 0x22, 0x2e);
                stateText = tr("tracing failed");
            } else if (differs) {
                state = QColor(0xe3, 0x9b, 0x00);
                stateText = tr("records a different graph than trace 1");
            } else if (wrongOutput) {
                state = QColor(0xcf, 0x22, 0x2e);
                stateText = tr("same graph as trace 1, but trace 1 computes something else on this set");
            } else {
                state = QColor(0x2d, 0xa4, 0x4e);
                stateText = tr("same graph as trace 1");
            }
        }
        const QString set = trace.inputs.toString();
        const QString title = tr("Trace %1 \u00b7 %2").arg(k + 1).arg(elided(set, 16));
        const int index = m_tabs->insertTab(first + k, page.page, dotIcon(state), title);
        m_tabs->setTabToolTip(index, tr("Trace %1 on input set %2\n%3").arg(k + 1).arg(set, stateText));
        m_tracePages.append(page);
    }
    if (onTrace && !m_tracePages.isEmpty())
        m_tabs->setCurrentIndex(qMin(current, first + int(m_tracePages.size()) - 1));
}

GraphScene* MainWindow::traceScene(int trace) const
{
    return trace >= 0 && trace < m_tracePages.size() ? m_tracePages.at(trace).scene : nullptr;
}

GraphView* MainWindow::traceView(int trace) const
{
    return trace >= 0 && trace < m_tracePages.size() ? m_tracePages.at(trace).view : nullptr;
}

GraphView* MainWindow::currentGraphView() const
{
    QWidget* page = m_tabs->currentWidget();
    if (page == m_compare)
        return m_compare->view(CompareWidget::Side::Right);
    for (const TracePage& p : m_tracePages) {
        if (p.page == page)
            return p.view;
    }
    if (m_livePage.page && page == m_livePage.page)
        return m_livePage.view;
    return m_scriptView;
}

GraphScene* MainWindow::currentGraphScene() const
{
    GraphView* view = currentGraphView();
    return view ? view->graphScene() : m_scriptScene;
}

void MainWindow::onCurrentTabChanged(int index)
{
    for (int k = 0; k < m_tracePages.size(); ++k) {
        if (m_tabs->widget(index) == m_tracePages.at(k).page)
            m_activeTrace = k;
    }
    if (GraphView* view = currentGraphView())
        m_zoomLabel->setText(QStringLiteral("%1%").arg(qRound(view->zoom() * 100)));
}

void MainWindow::showView(View view)
{
    switch (view) {
    case View::Script:
        m_tabs->setCurrentIndex(m_tabs->indexOf(m_scriptView->parentWidget()));
        break;
    case View::Trace:
        if (!m_tracePages.isEmpty())
            m_tabs->setCurrentIndex(m_tabs->indexOf(m_tracePages.first().page));
        break;
    case View::Compare:
        m_tabs->setCurrentIndex(m_tabs->indexOf(m_compare));
        break;
    case View::LiveTrace:
        if (m_livePage.page)
            m_tabs->setCurrentIndex(m_tabs->indexOf(m_livePage.page));
        break;
    }
}

MainWindow::View MainWindow::currentView() const
{
    QWidget* page = m_tabs->currentWidget();
    if (page == m_compare)
        return View::Compare;
    if (m_livePage.page && page == m_livePage.page)
        return View::LiveTrace;
    return page == m_scriptView->parentWidget() ? View::Script : View::Trace;
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
        if (m_restoreView == View::Trace && m_restoreTrace < m_tracePages.size())
            m_tabs->setCurrentWidget(m_tracePages.at(m_restoreTrace).page);
        else
            showView(m_restoreView);
        return;
    }
    if (m_userChoseTab)
        return;
    if (m_hasStartView)
        showView(m_startView);
    else if (m_report.ok && !m_report.consistent && m_report.traces.size() > 1)
        showView(View::Compare); // what a user opening a file whose check diverges wants to see first
    // Opening on the comparison: start at the first divergence, so its cause is in the status bar and its line
    // is marked.
    if (currentView() == View::Compare && m_compare->divergenceModel()->rowCount() > 0)
        m_compare->selectChange(0);
}

// ---------------------------------------------------------------------------------------------------------------
// The debugger: a DebugSession on the current function and the first input set

namespace {

/// The Debug actions' icons, drawn so that they look the same under every style: blue arrows for stepping, green
/// for running, red for stopping.
QIcon debugIcon(MainWindow::DebugAction action)
{
    using A = MainWindow::DebugAction;
    const QColor blue(0x1f, 0x6f, 0xeb);
    const QColor green(0x1a, 0x7f, 0x37);
    const QColor red(0xcf, 0x22, 0x2e);
    QPixmap pixmap(32, 32);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    const QPen stroke(blue, 3.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    auto head = [&](QPointF tip, QPointF dir, const QColor& color) {
        const QPointF n(-dir.y(), dir.x());
        QPainterPath h;
        h.moveTo(tip);
        h.lineTo(tip - dir * 8 + n * 6);
        h.lineTo(tip - dir * 8 - n * 6);
        h.closeSubpath();
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        p.drawPath(h);
    };
    auto dot = [&](QPointF c) {
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x4b, 0x55, 0x63));
        p.drawEllipse(c, 3.5, 3.5);
    };
    switch (action) {
    case A::StartContinue: {
        QPainterPath play;
        play.moveTo(8, 5);
        play.lineTo(27, 16);
        play.lineTo(8, 27);
        play.closeSubpath();
        p.setPen(QPen(green.darker(120), 1.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        p.setBrush(green);
        p.drawPath(play);
        break;
    }
    case A::StepOver: {
        QPainterPath arc;
        arc.moveTo(5, 20);
        arc.cubicTo(6, 6, 24, 5, 26, 15);
        p.setPen(stroke);
        p.setBrush(Qt::NoBrush);
        p.drawPath(arc);
        head(QPointF(27, 20), QPointF(0.2, 1), blue);
        dot(QPointF(16, 26));
        break;
    }
    case A::StepInto:
        p.setPen(stroke);
        p.drawLine(QPointF(16, 3), QPointF(16, 16));
        head(QPointF(16, 22), QPointF(0, 1), blue);
        dot(QPointF(16, 27));
        break;
    case A::StepOut:
        p.setPen(stroke);
        p.drawLine(QPointF(16, 24), QPointF(16, 11));
        head(QPointF(16, 4), QPointF(0, -1), blue);
        dot(QPointF(16, 28));
        break;
    case A::NextIteration: {
        // Round the loop once more: a circular arrow (blue, unlike Restart's green one).
        p.setPen(stroke);
        p.setBrush(Qt::NoBrush);
        p.drawArc(QRectF(5, 6, 21, 21), 100 * 16, 290 * 16);
        head(QPointF(10, 9), QPointF(-0.6, -0.8), blue);
        dot(QPointF(15.5, 16.5));
        break;
    }
    case A::RunToCursor:
        p.setPen(stroke);
        p.drawLine(QPointF(4, 16), QPointF(17, 16));
        head(QPointF(23, 16), QPointF(1, 0), blue);
        p.setPen(QPen(QColor(0x4b, 0x55, 0x63), 2.4, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(QPointF(27, 6), QPointF(27, 26));
        break;
    case A::Restart: {
        p.setPen(QPen(green, 3.2, Qt::SolidLine, Qt::RoundCap));
        p.setBrush(Qt::NoBrush);
        p.drawArc(QRectF(6, 6, 20, 20), 60 * 16, 300 * 16);
        head(QPointF(24, 5), QPointF(0.8, -0.6), green);
        break;
    }
    case A::Stop:
        p.setPen(QPen(red.darker(120), 1.5));
        p.setBrush(red);
        p.drawRoundedRect(QRectF(7, 7, 18, 18), 3, 3);
        break;
    case A::TraceWhileDebugging: {
        const QColor node(0x8a, 0x5c, 0xd6);
        p.setPen(QPen(QColor(0x8c, 0x93, 0x9d), 2));
        p.drawLine(QPointF(16, 7), QPointF(8, 24));
        p.drawLine(QPointF(16, 7), QPointF(24, 24));
        p.setPen(QPen(node.darker(130), 1.2));
        p.setBrush(node);
        p.drawEllipse(QPointF(16, 7), 5, 5);
        p.drawEllipse(QPointF(8, 24), 5, 5);
        p.drawEllipse(QPointF(24, 24), 5, 5);
        break;
    }
    case A::ToggleBreakpoint:
        p.setPen(QPen(QColor(0xe5, 0x14, 0x00).darker(130), 1.5));
        p.setBrush(QColor(0xe5, 0x14, 0x00));
        p.drawEllipse(QPointF(16, 16), 9, 9);
        break;
    }
    p.end();
    return QIcon(pixmap);
}

} // namespace

void MainWindow::createDebugDocks()
{
    m_debugger = new DebugController(this);
    connect(m_debugger, &DebugController::paused, this, &MainWindow::onDebugPaused);
    connect(m_debugger, &DebugController::finished, this, &MainWindow::onDebugFinished);
    connect(m_debugger, &DebugController::stateChanged, this, &MainWindow::updateDebugActions);

    m_framesModel = new FramesModel(this);
    m_framesView = new QTreeView;
    m_framesView->setModel(m_framesModel);
    m_framesView->setRootIsDecorated(false);
    m_framesView->setUniformRowHeights(true);
    m_framesView->setAllColumnsShowFocus(true);
    m_framesView->header()->setStretchLastSection(false);
    m_framesView->header()->setSectionResizeMode(FramesModel::FrameColumn, QHeaderView::Stretch);
    m_framesView->header()->setSectionResizeMode(FramesModel::LineColumn, QHeaderView::ResizeToContents);
    connect(m_framesView, &QTreeView::clicked, this, &MainWindow::onFrameActivated);
    connect(m_framesView, &QTreeView::activated, this, &MainWindow::onFrameActivated);
    m_framesDock = new QDockWidget(tr("Frames"), this);
    m_framesDock->setObjectName(QStringLiteral("framesDock"));
    m_framesDock->setWidget(m_framesView);

    m_valuesModel = new ValuesModel(this);
    m_valuesView = new QTreeView;
    m_valuesView->setModel(m_valuesModel);
    m_valuesView->setUniformRowHeights(true);
    m_valuesView->setAlternatingRowColors(true);
    m_valuesView->setAllColumnsShowFocus(true);
    m_valuesView->setTextElideMode(Qt::ElideRight);
    m_valuesView->header()->setStretchLastSection(false);
    m_valuesView->header()->setDefaultSectionSize(64);
    m_valuesView->setColumnWidth(ValuesModel::NameColumn, 110);
    m_valuesView->setColumnWidth(ValuesModel::ValueColumn, 190);
    m_valuesView->setColumnWidth(ValuesModel::TypeColumn, 52);
    m_valuesView->setColumnWidth(ValuesModel::ShapeColumn, 80);
    m_valuesView->setColumnWidth(ValuesModel::DTypeColumn, 64);
    m_valuesView->setColumnWidth(ValuesModel::DeviceColumn, 52);
    for (int column :
        { ValuesModel::MinColumn, ValuesModel::MaxColumn, ValuesModel::MeanColumn, ValuesModel::StdColumn })
        m_valuesView->setColumnWidth(column, 76);
    m_valuesView->setColumnWidth(ValuesModel::NanColumn, 40);
    m_valuesView->setColumnWidth(ValuesModel::InfColumn, 40);
    connect(
        m_valuesView->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& current) {
            if (!m_pickingValue && current.isValid() && !current.parent().isValid())
                m_currentValue = current.siblingAtColumn(0).data(ValuesModel::NameRole).toString();
            onValueCurrentChanged(current);
        });
    // Each pause resets the model: keep the value of the same name current and its row expanded, as debuggers do.
    connect(m_valuesModel, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        m_expandedValues.clear();
        for (int row = 0; row < m_valuesModel->rowCount(); ++row) {
            const QModelIndex index = m_valuesModel->index(row, 0);
            if (m_valuesView->isExpanded(index))
                m_expandedValues << index.data(ValuesModel::NameRole).toString();
        }
    });
    connect(m_valuesModel, &QAbstractItemModel::modelReset, this, [this] {
        for (const QString& name : std::as_const(m_expandedValues)) {
            if (const int row = m_valuesModel->rowOfName(name); row >= 0)
                m_valuesView->expand(m_valuesModel->index(row, 0));
        }
        int row = m_valuesModel->rowOfName(m_currentValue);
        // Nothing picked yet: the detail pane shows the first tensor that changed, else the first tensor.
        for (int pass = 0; pass < 2 && row < 0; ++pass) {
            for (int r = 0; r < m_valuesModel->rowCount() && row < 0; ++r) {
                const QModelIndex index = m_valuesModel->index(r, 0);
                if (index.data(ValuesModel::KindRole).toString() == QLatin1String("tensor")
                    && (pass == 1 || index.data(ValuesModel::ChangedRole).toBool()))
                    row = r;
            }
        }
        if (row >= 0) {
            // Not the user's pick: the next pause picks again unless the user picks meanwhile.
            const bool guard = m_pickingValue;
            m_pickingValue = true;
            m_valuesView->setCurrentIndex(m_valuesModel->index(row, 0));
            m_pickingValue = guard;
        } else {
            onValueCurrentChanged(QModelIndex());
        }
    });

    auto* detail = new QWidget;
    auto* detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(6, 4, 6, 4);
    m_heatMapLabel = new QLabel;
    m_heatMapLabel->setAlignment(Qt::AlignCenter);
    m_heatMapLabel->setMinimumSize(120, 90);
    m_heatMapLabel->setWordWrap(true);
    m_valueDetailLabel = new QLabel;
    m_valueDetailLabel->setWordWrap(true);
    m_valueDetailLabel->setTextFormat(Qt::RichText);
    m_valueDetailLabel->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_valueDetailLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    detailLayout->addWidget(m_heatMapLabel, 1);
    detailLayout->addWidget(m_valueDetailLabel);
    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(m_valuesView);
    splitter->addWidget(detail);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 0);
    splitter->setSizes({ 700, 200 });
    m_valuesDock = new QDockWidget(tr("Values"), this);
    m_valuesDock->setObjectName(QStringLiteral("valuesDock"));
    m_valuesDock->setWidget(splitter);
    onValueCurrentChanged(QModelIndex());

    // Frames under the model tree (which has room to spare); Values, with its many columns, under the graph and the
    // source.
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
    if (auto* modelDock = findChild<QDockWidget*>(QStringLiteral("modelDock"))) {
        addDockWidget(Qt::LeftDockWidgetArea, m_framesDock);
        splitDockWidget(modelDock, m_framesDock, Qt::Vertical);
    } else {
        addDockWidget(Qt::BottomDockWidgetArea, m_framesDock);
    }
    addDockWidget(Qt::BottomDockWidgetArea, m_valuesDock);
    // Shown when the first session starts.
    m_framesDock->hide();
    m_valuesDock->hide();

    connect(m_sourceView, &SourceView::breakpointToggleRequested, this, &MainWindow::toggleBreakpoint);
    connect(m_sourceView, &SourceView::breakpointConditionRequested, this, &MainWindow::editBreakpointCondition);
    connect(m_sourceView, &SourceView::runToLineRequested, this, &MainWindow::runToLine);
    connect(m_scriptView, &GraphView::nodeContextMenuRequested, this, &MainWindow::onScriptNodeContextMenu);
}

void MainWindow::createDebugActions()
{
    QMenu* debug = menuBar()->addMenu(tr("&Debug"));
    auto add = [&](DebugAction which, const QString& text, const QKeySequence& key, const QString& tip, auto slot) {
        QAction* action = debug->addAction(debugIcon(which), text, this, slot);
        action->setShortcut(key);
        action->setStatusTip(tip);
        action->setToolTip(
            key.isEmpty() ? text : QStringLiteral("%1 (%2)").arg(text, key.toString(QKeySequence::NativeText)));
        m_debugActions.insert(int(which), action);
        return action;
    };
    using Command = DebugSession::Command;
    add(DebugAction::StartContinue, tr("&Start Debugging"), QKeySequence(Qt::Key_F5),
        tr("Run the function on the first input set to the next breakpoint"),
        [this] { debugCommand(Command::Continue); });
    add(DebugAction::StepOver, tr("Step &Over"), QKeySequence(Qt::Key_F10),
        tr("Run the node and stop at the next one of the same block (a loop or an if runs whole)"),
        [this] { debugCommand(Command::StepOver); });
    add(DebugAction::StepInto, tr("Step &Into"), QKeySequence(Qt::Key_F11),
        tr("Stop at the next node, inside loops, ifs and calls"), [this] { debugCommand(Command::StepInto); });
    add(DebugAction::StepOut, tr("Step O&ut"), QKeySequence(Qt::SHIFT | Qt::Key_F11),
        tr("Run to the end of the enclosing loop, if or call"), [this] { debugCommand(Command::StepOut); });
    add(DebugAction::NextIteration, tr("&Next Iteration"), QKeySequence(Qt::CTRL | Qt::Key_F11),
        tr("Run to the start of the next iteration of the innermost loop"),
        [this] { debugCommand(Command::NextIteration); });
    add(DebugAction::RunToCursor, tr("Run to &Cursor"), QKeySequence(Qt::CTRL | Qt::Key_F10),
        tr("Run to the selected node's line, or the source cursor's line"), [this] { runToLine(runToCursorLine()); });
    debug->addSeparator();
    add(DebugAction::Restart, tr("&Restart"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5),
        tr("Stop and start again"), [this] { restartDebugging(); });
    add(DebugAction::Stop, tr("S&top Debugging"), QKeySequence(Qt::CTRL | Qt::Key_F2), tr("End the run"),
        [this] { stopDebugging(); });
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

    m_debugToolBar = addToolBar(tr("Debug"));
    m_debugToolBar->setObjectName(QStringLiteral("debugToolBar"));
    m_debugToolBar->setIconSize(QSize(18, 18));
    m_debugToolBar->setToolButtonStyle(Qt::ToolButtonIconOnly);
    for (DebugAction a :
        { DebugAction::StartContinue, DebugAction::StepOver, DebugAction::StepInto, DebugAction::StepOut,
            DebugAction::NextIteration, DebugAction::RunToCursor, DebugAction::Restart, DebugAction::Stop })
        m_debugToolBar->addAction(debugAction(a));
    m_debugToolBar->addSeparator();
    // With its text: a toggle whose icon alone would not say what it does.
    trace->setIconText(tr("Trace"));
    auto* traceButton = new QToolButton;
    traceButton->setDefaultAction(trace);
    traceButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_debugToolBar->addWidget(traceButton);
    updateDebugActions();
}

QAction* MainWindow::debugAction(DebugAction action) const
{
    return m_debugActions.value(int(action));
}

bool MainWindow::isDebugging() const
{
    return m_debugger->isActive();
}

GraphScene* MainWindow::liveTraceScene() const
{
    return m_livePage.scene;
}

void MainWindow::updateDebugActions()
{
    if (m_debugActions.isEmpty())
        return;
    const FunctionInfo* fn = m_hasModel ? m_model.function(m_currentFunction) : nullptr;
    const bool canStart = fn && fn->ok;
    const DebugController::State state = m_debugger->state();
    const bool paused = state == DebugController::State::Paused;
    const bool active = m_debugger->isActive();
    const bool ready = paused || (!active && canStart);
    QAction* start = debugAction(DebugAction::StartContinue);
    start->setText(active ? tr("&Continue") : tr("&Start Debugging"));
    start->setToolTip(QStringLiteral("%1 (F5)").arg(active ? tr("Continue") : tr("Start Debugging")));
    for (DebugAction a : { DebugAction::StartContinue, DebugAction::StepOver, DebugAction::StepInto,
             DebugAction::StepOut, DebugAction::NextIteration, DebugAction::RunToCursor })
        debugAction(a)->setEnabled(ready);
    debugAction(DebugAction::Restart)->setEnabled(active && canStart);
    debugAction(DebugAction::Stop)->setEnabled(active && state != DebugController::State::Stopping);
    debugAction(DebugAction::ToggleBreakpoint)->setEnabled(canStart);
    m_sourceView->setDebugActionsEnabled(canStart);
}

void MainWindow::debugCommand(DebugSession::Command command, int line)
{
    if (m_debugger->isPaused()) {
        const int target = command == DebugSession::Command::RunToLine ? fileLineOf(line) : 0;
        if (command == DebugSession::Command::RunToLine && target <= 0) {
            setStatus(tr("Line %1 is not in %2's file: nothing to run to").arg(line).arg(m_debugger->function()));
            return;
        }
        m_debugger->resume(command, target);
        setStatus(tr("Running %1\u2026").arg(m_debugger->function()));
        return;
    }
    if (m_debugger->isActive())
        return;
    m_hasPendingCommand = true;
    m_pendingCommand = command;
    m_pendingLine = line;
    if (!startDebugSession())
        m_hasPendingCommand = false;
}

bool MainWindow::startDebugSession()
{
    const FunctionInfo* fn = m_hasModel ? m_model.function(m_currentFunction) : nullptr;
    if (!fn || !fn->ok) {
        setStatus(fn ? tr("%1 failed to compile: nothing to debug").arg(fn->name) : tr("No function to debug"));
        return false;
    }
    bool valid = false;
    const QVector<InputSet> sets = m_inputSets->model()->sets(&valid);
    if (!valid || sets.isEmpty()) {
        setStatus(valid ? tr("Add an input set in the Input Sets panel to debug %1 on it").arg(fn->name)
                        : tr("Input set %1 is invalid: fix it to debug %2")
                              .arg(m_inputSets->model()->firstInvalidRow() + 1)
                              .arg(fn->name));
        return false;
    }
    // A running check holds the model until it ends (an endless loop only at its timeout): stop it and run it
    // again once the session is over.
    if (isChecking()) {
        m_checkAfterDebug = true;
        cancelCheck();
    }
    const bool tracing = debugAction(DebugAction::TraceWhileDebugging)->isChecked();
    m_valuesModel->resetChanges();
    m_valuesModel->clear();
    m_framesModel->clear();
    clearDebugMarkers();
    if (m_valuesDock->isHidden()) {
        m_valuesDock->show();
        resizeDocks({ m_valuesDock }, { 240 }, Qt::Vertical);
    }
    if (m_framesDock->isHidden()) {
        m_framesDock->show();
        resizeDocks({ m_framesDock }, { 150 }, Qt::Vertical);
    }
    if (tracing) {
        if (!m_livePage.page) {
            m_livePage.scene = new GraphScene(this);
            m_livePage.view = new GraphView;
            m_livePage.view->setScene(m_livePage.scene);
            m_liveLabel = new QLabel;
            m_liveLabel->setContentsMargins(8, 3, 8, 3);
            m_liveLabel->setTextFormat(Qt::RichText);
            auto* legend = new LegendBar;
            legend->setScene(m_livePage.scene);
            m_livePage.page = new QWidget;
            auto* box = new QVBoxLayout(m_livePage.page);
            box->setContentsMargins(0, 0, 0, 0);
            box->setSpacing(0);
            box->addWidget(m_liveLabel);
            box->addWidget(m_livePage.view, 1);
            box->addWidget(legend);
            connect(m_livePage.scene, &GraphScene::nodeSelected, this, &MainWindow::onLiveTraceNodeSelected);
            connect(m_livePage.view, &GraphView::zoomChanged, this, [this](double zoom) {
                if (currentGraphView() == sender())
                    m_zoomLabel->setText(QStringLiteral("%1%").arg(qRound(zoom * 100)));
            });
            const int index
                = m_tabs->insertTab(1, m_livePage.page, debugIcon(DebugAction::TraceWhileDebugging), tr("Live trace"));
            m_tabs->setTabToolTip(index, tr("The trace recorded so far by the debug session"));
        }
        m_liveShown = IrGraph();
        m_liveKeys.clear();
        m_liveFramed = false;
        ++m_liveGeneration;
        m_liveLabel->setText(tr("Starting\u2026"));
        m_livePage.scene->showMessage(tr("Nothing recorded yet"), tr("The trace grows here as the function runs."));
        m_livePage.view->showMessage();
    } else {
        removeLiveTraceTab();
    }
    // The graph with the marker: the Script tab, unless the user is following the live trace.
    if (m_tabs->currentWidget() != m_livePage.page || !m_livePage.page)
        showView(View::Script);
    m_debugger->start(m_model, fn->name, sets.first(), tracing);
    applyBreakpoints();
    setStatus(tr("Debugging %1 on %2\u2026").arg(fn->name, sets.first().toString()));
    updateDebugActions();
    return true;
}

void MainWindow::stopDebugging()
{
    if (!m_debugger->isActive())
        return;
    m_hasPendingCommand = false;
    m_debugger->stop();
    setStatus(tr("Stopping %1\u2026").arg(m_debugger->function()));
}

void MainWindow::restartDebugging()
{
    if (!m_debugger->isActive())
        return;
    // The old run ends on its own thread; the new one starts once it has let go of the model.
    m_hasPendingCommand = true;
    m_pendingCommand = DebugSession::Command::StepInto;
    m_pendingLine = 0;
    if (!startDebugSession())
        m_hasPendingCommand = false;
}

void MainWindow::onDebugPaused()
{
    const DebugSession::Pause& pause = m_debugger->lastPause();
    if (m_hasPendingCommand && m_debugger->pauseCount() == 1) {
        // The session stops before the first node; what the user asked for decides whether to show that.
        m_hasPendingCommand = false;
        using Command = DebugSession::Command;
        if (m_pendingCommand == Command::Continue && !pause.atBreakpoint) {
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
    Q_EMIT debugPaused();
}

void MainWindow::showPause(const DebugSession::Pause& pause)
{
    m_framesModel->setFrames(pause.event.frames);
    m_valuesModel->setValues(pause.values);
    applyDebugMarkers();
    if (m_debugger->isTracing())
        updateLiveTrace(pause.traceSoFar, false);
    setStatus(describePause(pause));
}

QString MainWindow::describePause(const DebugSession::Pause& pause) const
{
    const NodeEvent& e = pause.event;
    QString where;
    const int line = sourceLineFor(e.location);
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
    return text + tr("  (F5 continue, F10 step over, F11 step into)");
}

void MainWindow::onDebugFinished()
{
    const DebugSession::Pause& pause = m_debugger->lastPause();
    m_hasPendingCommand = false;
    clearDebugMarkers();
    m_framesModel->clear();
    const bool tracing = m_debugger->isTracing();
    const bool ok = tracing ? pause.trace.ok : pause.result.ok;
    const Diagnostic error = tracing ? pause.trace.error : pause.result.error;
    const QVector<ValueSummary> outputs = tracing ? pause.trace.outputs : pause.result.outputs;
    const QString fn = m_debugger->function();
    if (m_debugger->wasStopped()) {
        m_valuesModel->clear();
        setStatus(tr("Debugging %1 stopped").arg(fn));
    } else if (ok) {
        QVector<NamedValue> values;
        for (int i = 0; i < outputs.size(); ++i)
            values.append({ outputs.size() == 1 ? tr("return") : tr("return %1").arg(i), outputs.at(i) });
        m_valuesModel->setValues(values);
        QStringList texts;
        for (const ValueSummary& v : outputs)
            texts << v.text;
        setStatus(tr("%1 returned %2").arg(fn, texts.join(QStringLiteral(", "))));
    } else {
        m_valuesModel->clear();
        const int line = sourceLineFor(error.location);
        if (line > 0)
            m_sourceView->highlightLine(line);
        setStatus(tr("%1 failed%2: %3")
                      .arg(fn, line > 0 ? tr(" at line %1").arg(line) : QString(), elided(error.message, 200)));
    }
    if (tracing && m_livePage.scene) {
        if (pause.trace.ok) {
            updateLiveTrace(pause.trace.graph, true);
        } else if (!m_debugger->wasStopped()) {
            ++m_liveGeneration;
            m_livePage.scene->showMessage(tr("Tracing failed"), error.toString().trimmed(), true);
            m_livePage.view->showMessage();
            m_liveLabel->setText(tr("Tracing failed"));
        } else {
            m_liveLabel->setText(tr("Stopped: the trace stays as it was at the last pause"));
        }
    }
    updateDebugActions();
    Q_EMIT debugFinished();
    if (m_checkAfterDebug) {
        m_checkAfterDebug = false;
        runCheck(false);
    }
}

void MainWindow::clearDebugMarkers()
{
    m_scriptScene->setExecutionNode(-1);
    m_sourceView->setExecutionLine(0);
}

void MainWindow::applyDebugMarkers()
{
    applyBreakpoints();
    if (!m_debugger->isPaused()) {
        clearDebugMarkers();
        return;
    }
    const DebugSession::Pause& pause = m_debugger->lastPause();
    const FunctionInfo* fn = m_model.function(m_debugger->function());
    if (m_shownFunction == m_debugger->function()) {
        const int shown = m_scriptScene->displayedNode(pause.event.scriptNode);
        m_scriptScene->setExecutionNode(shown);
        if (shown >= 0)
            m_scriptView->centerOnNode(shown);
    }
    int line = sourceLineFor(pause.event.location);
    // Inside library code (not in the source panel): the line of the call.
    if (line <= 0 && fn && pause.event.scriptNode >= 0 && pause.event.scriptNode < fn->graph.nodes.size())
        line = sourceLineFor(fn->graph.node(pause.event.scriptNode).location);
    m_sourceView->setExecutionLine(line);
}

int MainWindow::fileLineOf(int sourceLine) const
{
    if (sourceLine <= 0)
        return 0;
    if (m_model.kind == ModelInfo::Kind::PythonSource)
        return sourceLine;
    // Archives: the panel shows the code/ files one after the other; the line must be in the function's file.
    const FunctionInfo* fn = m_model.function(m_debugger->isActive() ? m_debugger->function() : m_currentFunction);
    if (!fn)
        return 0;
    const int code = int(fn->location.file.indexOf(QLatin1String("code/")));
    const auto offset = m_archiveFileOffsets.constFind(fn->location.file.mid(qMax(0, code)));
    if (code < 0 || offset == m_archiveFileOffsets.constEnd() || sourceLine <= offset.value())
        return 0;
    for (auto it = m_archiveFileOffsets.cbegin(); it != m_archiveFileOffsets.cend(); ++it) {
        if (it.value() > offset.value() && it.value() < sourceLine)
            return 0; // another file's header comes first
    }
    return sourceLine - offset.value();
}

void MainWindow::setBreakpoint(int line, int iteration)
{
    if (line <= 0 || !m_hasModel)
        return;
    m_breakpoints.insert(line, iteration > 0 ? iteration : -1);
    applyBreakpoints();
}

void MainWindow::removeBreakpoint(int line)
{
    m_breakpoints.remove(line);
    applyBreakpoints();
}

void MainWindow::toggleBreakpoint(int line)
{
    if (m_breakpoints.contains(line))
        removeBreakpoint(line);
    else
        setBreakpoint(line);
}

void MainWindow::applyBreakpoints()
{
    m_sourceView->setBreakpoints(m_breakpoints);
    QVector<DebugSession::Breakpoint> list;
    for (auto it = m_breakpoints.cbegin(); it != m_breakpoints.cend(); ++it) {
        if (const int line = fileLineOf(it.key()); line > 0)
            list.append({ line, it.value() });
    }
    m_debugger->setBreakpoints(list);
    // The script nodes on those lines get a dot.
    QSet<int> nodes;
    if (const FunctionInfo* fn = m_model.function(m_shownFunction); fn && !m_breakpoints.isEmpty()) {
        for (const IrNode& node : fn->graph.nodes) {
            if (node.kind == QLatin1String("prim::Constant") || !m_breakpoints.contains(sourceLineFor(node.location)))
                continue;
            if (m_scriptScene->nodeItem(node.id))
                nodes.insert(node.id);
        }
    }
    m_scriptScene->setBreakpointNodes(nodes);
}

void MainWindow::editBreakpointCondition(int line)
{
    if (line <= 0)
        return;
    bool ok = false;
    const int current = m_breakpoints.value(line, -1);
    const int iteration = QInputDialog::getInt(this, tr("Break Only in Iteration"),
        tr("Break at line %1 only in this iteration (1-based) of the innermost loop;\n0 breaks in every iteration:")
            .arg(line),
        current > 0 ? current : 1, 0, std::numeric_limits<int>::max(), 1, &ok);
    if (ok)
        setBreakpoint(line, iteration);
}

int MainWindow::runToCursorLine() const
{
    if (m_sourceView->hasFocus())
        return m_sourceView->cursorLine();
    const FunctionInfo* fn = m_model.function(m_shownFunction);
    const int node = m_scriptScene->selectedNodeId();
    if (fn && node >= 0 && node < fn->graph.nodes.size()) {
        if (const int line = sourceLineFor(fn->graph.node(node).location); line > 0)
            return line;
    }
    return m_sourceView->cursorLine();
}

void MainWindow::runToLine(int line)
{
    if (line <= 0)
        return;
    debugCommand(DebugSession::Command::RunToLine, line);
}

void MainWindow::onScriptNodeContextMenu(int nodeId, const QPoint& globalPos)
{
    const FunctionInfo* fn = m_model.function(m_shownFunction);
    if (!fn || !fn->ok || nodeId < 0 || nodeId >= fn->graph.nodes.size())
        return;
    m_scriptScene->selectNode(nodeId);
    const int line = sourceLineFor(fn->graph.node(nodeId).location);
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

void MainWindow::onFrameActivated(const QModelIndex& index)
{
    if (!index.isValid())
        return;
    const int node = index.data(FramesModel::ScriptNodeRole).toInt();
    const int line = index.data(FramesModel::LineRole).toInt();
    if (node >= 0 && m_shownFunction == m_debugger->function()) {
        const int shown = m_scriptScene->displayedNode(node);
        m_scriptScene->selectNode(shown);
        m_scriptView->centerOnNode(shown);
    }
    // The function's own frame: where execution is.
    if (line > 0 && index.data(FramesModel::KindRole).toInt() != int(ExecFrame::Kind::Function))
        m_sourceView->highlightLine(line);
}

void MainWindow::onValueCurrentChanged(const QModelIndex& index)
{
    const ValueSummary* v = m_valuesModel->summary(index);
    if (!v || v->kind != QLatin1String("tensor") || v->preview.isEmpty()) {
        m_heatMapLabel->setPixmap(QPixmap());
        m_heatMapLabel->setText(
            QStringLiteral("<span style='color:#6b7280'>%1</span>")
                .arg(v ? tr("No picture for this value") : tr("Select a tensor to see its values")));
        m_valueDetailLabel->setText(v
                ? QStringLiteral("%1 = %2").arg(
                    index.siblingAtColumn(0).data(ValuesModel::NameRole).toString(), v->text.toHtmlEscaped())
                : QString());
        return;
    }
    const QImage image = ValuesModel::heatMap(*v);
    QStringList dims;
    for (qint64 d : v->shape)
        dims << QString::number(d);
    QString text = QStringLiteral("<b>%1</b> %2[%3]<br/>min %4 \u00b7 max %5<br/>mean %6 \u00b7 std %7<br/>sum %8")
                       .arg(index.siblingAtColumn(0).data(ValuesModel::NameRole).toString().toHtmlEscaped(), v->dtype,
                           dims.join(QLatin1Char(',')), ValuesModel::number(v->min), ValuesModel::number(v->max),
                           ValuesModel::number(v->mean), ValuesModel::number(v->std), ValuesModel::number(v->sum));
    if (v->nanCount > 0 || v->infCount > 0)
        text += QStringLiteral("<br/><span style='color:#cf222e'>%1 NaN \u00b7 %2 Inf</span>")
                    .arg(v->nanCount)
                    .arg(v->infCount);
    if (image.isNull()) {
        m_heatMapLabel->setPixmap(QPixmap());
        m_heatMapLabel->setText(QStringLiteral("<span style='color:#6b7280'>%1</span>").arg(tr("1-D: no heat map")));
    } else {
        // Square cells, nearest neighbour: each element stays one readable block.
        const QSize room = m_heatMapLabel->size().boundedTo(QSize(400, 400)).expandedTo(QSize(120, 90));
        const int cell = qMax(1, qMin(room.width() / image.width(), room.height() / image.height()));
        m_heatMapLabel->setPixmap(QPixmap::fromImage(image.scaled(image.size() * cell)));
        QString slice = QStringLiteral("[");
        for (int d = 0; d + 2 < v->shape.size(); ++d)
            slice += QStringLiteral("0, ");
        slice += QStringLiteral(":%1, :%2]").arg(v->sliceRows).arg(v->sliceColumns);
        text += tr("<br/><span style='color:#6b7280'>heat map of %1</span>").arg(slice);
    }
    m_valueDetailLabel->setText(text);
}

// The live trace: Pause::traceSoFar laid out off the GUI thread, the nodes recorded since the last pause marked.

/// What a live trace layout job hands back to the GUI thread.
struct LiveTraceJob
{
    int generation = 0;
    bool final = false;
    IrGraph graph;
    GraphLayout layout;
};

namespace {

/// Keys that survive between snapshots of a growing trace: what recorded the node, in which iteration, and how
/// many such nodes came before it.
QStringList liveNodeKeys(const IrGraph& graph)
{
    QHash<QString, int> seen;
    QStringList keys;
    for (const IrNode& node : graph.nodes) {
        QString key = node.kind + QLatin1Char('@') + QString::number(node.originNode);
        for (const LoopFrame& f : node.loopPath)
            key += QStringLiteral("/%1:%2").arg(f.loopNode).arg(f.iteration);
        keys << key + QLatin1Char('#') + QString::number(seen[key]++);
    }
    return keys;
}

} // namespace

void MainWindow::updateLiveTrace(const IrGraph& graph, bool final)
{
    if (!m_livePage.scene)
        return;
    const int generation = ++m_liveGeneration;
    const LayoutOptions options = layoutOptions();
    auto* watcher = new QFutureWatcher<LiveTraceJob>(this);
    m_liveWatchers.insert(watcher);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] { onLiveTraceLaidOut(watcher); });
    // Pause::traceSoFar carries each node's script node and loop iterations, as a finished trace does.
    watcher->setFuture(QtConcurrent::run([graph, options, generation, final] {
        LiveTraceJob job;
        job.generation = generation;
        job.final = final;
        job.graph = graph;
        job.layout = layoutGraph(job.graph, options);
        return job;
    }));
}

void MainWindow::onLiveTraceLaidOut(QFutureWatcherBase* base)
{
    if (!m_liveWatchers.remove(base))
        return;
    auto* watcher = static_cast<QFutureWatcher<LiveTraceJob>*>(base);
    watcher->disconnect(this);
    watcher->deleteLater();
    if (watcher->future().resultCount() == 0 || !m_livePage.scene)
        return;
    const LiveTraceJob job = watcher->future().result();
    // Overtaken by a later pause: only the newest trace is shown.
    if (job.generation != m_liveGeneration)
        return;
    const GraphLayout& layout = job.layout;
    const IrGraph& graph = job.graph;
    const bool final = job.final;

    const QStringList keys = liveNodeKeys(graph);
    QHash<int, DiffStatus> fresh;
    int newest = -1;
    int recorded = 0;
    QHash<QString, int> previous = m_liveKeys;
    for (int i = 0; i < graph.nodes.size(); ++i) {
        const IrNode& node = graph.nodes.at(i);
        if (node.kind == QLatin1String("prim::Constant"))
            continue;
        ++recorded;
        if (!previous.contains(keys.at(i)) && !final) {
            const int shown = layout.indexOfNode(node.id) >= 0 ? node.id : -1;
            if (shown >= 0) {
                fresh.insert(shown, DiffStatus::Inserted);
                newest = qMax(newest, shown);
            }
        }
    }
    m_liveKeys.clear();
    for (const QString& key : keys)
        m_liveKeys.insert(key, 1);
    m_liveShown = graph;

    if (!layout.error.isEmpty()) {
        m_livePage.scene->showMessage(tr("Graphviz could not lay out the trace"), layout.error, true);
        m_livePage.view->showMessage();
    } else if (layout.nodes.isEmpty() || (graph.nodes.isEmpty() && graph.top.inputs.isEmpty())) {
        m_livePage.scene->showMessage(tr("Nothing recorded yet"), tr("The trace grows here as the function runs."));
        m_livePage.view->showMessage();
    } else {
        m_livePage.scene->setGraph(graph, layout);
        m_livePage.scene->setNodeStatuses(fresh);
        if (!m_liveFramed || final) {
            m_livePage.view->showGraph();
            m_liveFramed = true;
        } else if (newest >= 0) {
            m_livePage.view->centerOnNode(newest);
        }
        // A script node selected meanwhile: mark what it recorded in the new trace too.
        if (m_scriptScene->selectedNodeId() >= 0)
            linkScriptNode(m_scriptScene->selectedNodeId());
    }
    if (final)
        m_liveLabel->setText(
            tr("<b>Trace complete</b> \u00b7 %1 nodes, after torch.jit.trace's cleanup passes").arg(recorded));
    else
        m_liveLabel->setText(
            tr("<b>Live trace</b> \u00b7 %1 nodes recorded \u00b7 <span style='color:%3'>%2 new since the last "
               "pause</span>")
                .arg(recorded)
                .arg(fresh.size())
                .arg(diffStatusColor(DiffStatus::Inserted).name()));
    Q_EMIT liveTraceShown();
}

void MainWindow::removeLiveTraceTab()
{
    if (!m_livePage.page)
        return;
    ++m_liveGeneration;
    m_livePage.scene->disconnect(this);
    m_livePage.view->disconnect(this);
    m_tabs->removeTab(m_tabs->indexOf(m_livePage.page));
    m_livePage.page->deleteLater();
    m_livePage.scene->deleteLater();
    m_livePage = TracePage();
    m_liveLabel = nullptr;
    m_liveShown = IrGraph();
    m_liveKeys.clear();
}

void MainWindow::onLiveTraceNodeSelected(int nodeId)
{
    if (m_linking || nodeId < 0 || nodeId >= m_liveShown.nodes.size())
        return;
    const FunctionInfo* fn = m_model.function(m_debugger->function());
    const IrNode& node = m_liveShown.node(nodeId);
    const bool guard = m_linking;
    m_linking = true;
    const int origin = m_scriptScene->displayedNode(node.originNode);
    m_scriptScene->selectNode(origin);
    if (origin >= 0)
        m_scriptView->centerOnNode(origin);
    const SourceLocation location = fn && node.originNode >= 0 && node.originNode < fn->graph.nodes.size()
        ? fn->graph.node(node.originNode).location
        : node.location;
    const int line = sourceLineFor(location);
    m_sourceView->highlightLine(line);
    QString text = tr("Live trace \u00b7 %1").arg(node.kind);
    QStringList where;
    if (line > 0)
        where << tr("line %1").arg(line);
    if (const QString iteration = iterationLabel(node); !iteration.isEmpty())
        where << iteration;
    if (!where.isEmpty())
        text += QStringLiteral(" (%1)").arg(where.join(QStringLiteral(", ")));
    text += QStringLiteral(": ") + elided(m_liveShown.nodeLine(nodeId, false), 160);
    setStatus(text);
    m_linking = guard;
}

// ---------------------------------------------------------------------------------------------------------------
// Linked selection between the script, the traces, the compare view, the warnings and the source

QString MainWindow::linkScriptNode(int nodeId)
{
    QStringList parts;
    bool recorded = false;
    for (int k = 0; k < m_tracePages.size(); ++k) {
        GraphScene* scene = m_tracePages.at(k).scene;
        QHash<int, QString> tags;
        if (nodeId >= 0 && m_hasReport && k < m_report.traces.size() && m_report.traces.at(k).ok) {
            const IrGraph& trace = m_report.traces.at(k).graph;
            for (const LinkedNode& linked : traceNodesOf(trace, m_report.script, nodeId)) {
                const int shown = scene->displayedNode(linked.node);
                if (shown < 0 || tags.contains(shown))
                    continue;
                tags.insert(shown, linked.iteration);
                if (k == m_activeTrace) {
                    recorded = true;
                    const QString label = nodeLabel(trace, shown);
                    parts << (linked.iteration.isEmpty() ? label : linked.iteration + QStringLiteral(": ") + label);
                }
            }
        }
        scene->setLinkedNodes(tags);
    }
    if (m_livePage.scene) {
        const FunctionInfo* fn = m_model.function(m_debugger->function());
        QHash<int, QString> tags;
        if (nodeId >= 0 && fn && m_liveShown.nodes.size() > 0) {
            for (const LinkedNode& linked : traceNodesOf(m_liveShown, fn->graph, nodeId)) {
                const int shown = m_livePage.scene->displayedNode(linked.node);
                if (shown >= 0 && !tags.contains(shown))
                    tags.insert(shown, linked.iteration);
            }
        }
        m_livePage.scene->setLinkedNodes(tags);
    }
    if (nodeId < 0 || !m_hasReport || m_tracePages.isEmpty())
        return {};
    if (!recorded)
        return tr("trace %1 recorded no node for it").arg(m_activeTrace + 1);
    return tr("trace %1: %2").arg(m_activeTrace + 1).arg(parts.join(QLatin1String(", ")));
}

QString MainWindow::describeTraceNode(int trace, int nodeId) const
{
    const IrGraph& graph = m_report.traces.at(trace).graph;
    const IrNode& node = graph.node(nodeId);
    QStringList where;
    const SourceLocation location = node.originNode >= 0 && node.originNode < m_report.script.nodes.size()
        ? m_report.script.node(node.originNode).location
        : node.location;
    const int line = sourceLineFor(location);
    if (line > 0)
        where << tr("line %1").arg(line);
    const QString iteration = iterationLabel(node);
    if (!iteration.isEmpty())
        where << iteration;
    QString text = tr("Trace %1 \u00b7 %2").arg(trace + 1).arg(node.kind);
    if (!where.isEmpty())
        text += QStringLiteral(" (%1)").arg(where.join(QLatin1String(", ")));
    text += QStringLiteral(": ") + elided(graph.nodeLine(nodeId, false), 160);
    if (node.originNode >= 0 && node.originNode < m_report.script.nodes.size())
        text += tr("  \u2190 script %1").arg(m_report.script.node(node.originNode).kind);
    return text;
}

void MainWindow::onTraceNodeSelected(int trace, int nodeId)
{
    if (m_linking || !m_hasReport || trace >= m_report.traces.size())
        return;
    m_activeTrace = trace;
    const IrGraph& graph = m_report.traces.at(trace).graph;
    if (nodeId < 0 || nodeId >= graph.nodes.size())
        return;
    const bool guard = m_linking;
    m_linking = true;
    for (const TracePage& page : std::as_const(m_tracePages))
        page.scene->setLinkedNodes({});
    const IrNode& node = graph.node(nodeId);
    // The script node that recorded it, selected in the Script tab so that switching tabs shows it.
    const int origin = m_scriptScene->displayedNode(node.originNode);
    m_scriptScene->selectNode(origin);
    if (origin >= 0)
        m_scriptView->centerOnNode(origin);
    const SourceLocation location = node.originNode >= 0 && node.originNode < m_report.script.nodes.size()
        ? m_report.script.node(node.originNode).location
        : node.location;
    m_sourceView->highlightLine(sourceLineFor(location));
    setStatus(describeTraceNode(trace, nodeId));
    m_inspector->showTraceNode(trace, graph, nodeId, &m_report.script);
    m_linking = guard;
}

void MainWindow::onCompareNodeSelected(int graph, int nodeId)
{
    if (m_linking || nodeId < 0)
        return;
    if (graph == Comparison::Script) {
        // The full script selection: source line, status and the trace tabs' linked nodes.
        m_scriptScene->selectNode(m_scriptScene->displayedNode(nodeId));
        return;
    }
    onTraceNodeSelected(graph, nodeId);
}

void MainWindow::onChangeSelected(int row)
{
    DivergenceModel* model = m_compare->divergenceModel();
    if (row < 0 || row >= model->rowCount())
        return;
    const NodeChange& change = model->change(row);
    m_sourceView->highlightLine(sourceLineFor(change.location));
    const bool guard = m_linking;
    m_linking = true;
    m_scriptScene->selectNode(m_scriptScene->displayedNode(change.scriptNode));
    m_linking = guard;
    const QModelIndex index = model->index(row, DivergenceModel::NodeColumn);
    QString text = tr("Divergence %1 of %2: %3 %4")
                       .arg(row + 1)
                       .arg(model->rowCount())
                       .arg(model->index(row, DivergenceModel::OpColumn).data().toString(), index.data().toString());
    if (!change.cause.isEmpty())
        text += QStringLiteral(" \u2014 ") + change.cause;
    setStatus(text);
}

void MainWindow::activateWarning(int row)
{
    if (row < 0 || row >= m_warningsModel->rowCount())
        return;
    const TraceWarning w = m_warningsModel->warning(row);
    const int line = sourceLineFor(w.location);
    const bool traceUsable
        = m_hasReport && w.traceIndex >= 0 && w.traceIndex < m_tracePages.size() && m_report.traces.at(w.traceIndex).ok;

    if (w.kind == WarningKind::OutputMismatch && w.traceIndex > 0 && m_compare->hasReport()) {
        // Trace 1 computes something else on this set: the divergences between the two traces say why.
        showView(View::Compare);
        m_compare->setPair(0, w.traceIndex);
        if (m_compare->divergenceModel()->rowCount() > 0)
            m_compare->selectChange(0);
    } else if (traceUsable && w.traceNode >= 0) {
        const TracePage& page = m_tracePages.at(w.traceIndex);
        m_tabs->setCurrentWidget(page.page);
        const int shown = page.scene->displayedNode(w.traceNode);
        page.scene->selectNode(shown);
        page.view->centerOnNode(shown);
    } else if (w.scriptNode >= 0) {
        // No trace node of its own (a loop, a branch): the nodes its script node recorded in that trace.
        if (traceUsable) {
            m_activeTrace = w.traceIndex;
            m_tabs->setCurrentWidget(m_tracePages.at(w.traceIndex).page);
        }
        m_scriptScene->selectNode(m_scriptScene->displayedNode(w.scriptNode));
        if (traceUsable) {
            const QList<int> linked = m_tracePages.at(w.traceIndex).scene->linkedNodes();
            if (!linked.isEmpty())
                m_tracePages.at(w.traceIndex).view->centerOnNode(*std::min_element(linked.begin(), linked.end()));
        }
    } else if (traceUsable) {
        m_tabs->setCurrentWidget(m_tracePages.at(w.traceIndex).page);
    }
    if (line > 0)
        m_sourceView->highlightLine(line);
}

void MainWindow::onInputSetsEdited()
{
    m_inputSets->setEdited(true);
    if (m_persistSettings && m_hasModel)
        saveSessionInputSets(m_model.path, m_inputSets->model()->texts());
}

void MainWindow::resetInputSets()
{
    if (!m_hasModel)
        return;
    m_inputSets->model()->setSets(m_model.inputSets);
    m_inputSets->setEdited(false);
    if (m_persistSettings)
        saveSessionInputSets(m_model.path, std::nullopt);
    runCheck(true);
}

// ---------------------------------------------------------------------------------------------------------------
// Selection

void MainWindow::selectFunctionInTree(const QString& name)
{
    const QModelIndex index = m_treeModel->indexOfFunction(name);
    if (!index.isValid())
        return;
    m_updatingTree = true;
    m_treeView->setCurrentIndex(index);
    m_treeView->scrollTo(index);
    m_updatingTree = false;
}

void MainWindow::onTreeCurrentChanged(const QModelIndex& current)
{
    if (m_updatingTree || !current.isValid())
        return;
    const int line = current.data(ModelTreeModel::SourceLineRole).toInt();
    const QString function = current.data(ModelTreeModel::FunctionNameRole).toString();
    if (!function.isEmpty())
        showFunction(function);
    if (line > 0 && m_model.kind == ModelInfo::Kind::PythonSource)
        m_sourceView->highlightLine(line);
    else if (const FunctionInfo* fn = m_model.function(function); fn && fn->location.isValid())
        m_sourceView->highlightLine(sourceLineFor(fn->location));
}

void MainWindow::onNodeSelected(int nodeId)
{
    // A script node selected because a trace node was: that handler describes the selection.
    if (m_linking)
        return;
    const QString listing = linkScriptNode(nodeId);
    const FunctionInfo* fn = m_model.function(m_currentFunction);
    if (!fn || nodeId < 0 || nodeId >= fn->graph.nodes.size()) {
        m_sourceView->highlightLine(0);
        m_inspector->clearNode();
        return;
    }
    QVector<const IrGraph*> traces;
    if (m_hasReport) {
        for (const auto& t : m_report.traces)
            traces.append(t.ok ? &t.graph : nullptr);
    }
    m_inspector->showScriptNode(fn->graph, nodeId, traces);
    const IrNode& node = fn->graph.node(nodeId);
    const int line = sourceLineFor(node.location);
    m_sourceView->highlightLine(line);
    QString where;
    if (node.location.isValid())
        where = line > 0
            ? tr("line %1").arg(line)
            : QStringLiteral("%1:%2").arg(QFileInfo(node.location.file).fileName()).arg(node.location.line);
    QString text = node.kind;
    if (!where.isEmpty())
        text += QStringLiteral(" (%1)").arg(where);
    text += QStringLiteral(": ") + elided(fn->graph.nodeLine(nodeId, false), listing.isEmpty() ? 220 : 120);
    if (!listing.isEmpty())
        text += QStringLiteral("  \u2014  ") + listing;
    setStatus(text);
}

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
// Files, export, about

void MainWindow::openDialog()
{
    QString dir;
    if (!m_currentFile.isEmpty())
        dir = QFileInfo(m_currentFile).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Model"), dir,
        tr("TorchScript models (*.py *.pt *.pth *.zip);;Python files (*.py);;TorchScript archives (*.pt *.pth *.zip);;"
           "All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

void MainWindow::addRecentFile(const QString& path)
{
    if (!m_persistSettings)
        return;
    QSettings s = settings();
    QStringList files = s.value(QLatin1String(kRecentFilesKey)).toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    s.setValue(QLatin1String(kRecentFilesKey), files);
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = settings().value(QLatin1String(kRecentFilesKey)).toStringList();
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
    m_recentMenu->addAction(tr("Clear Menu"), this, [] { settings().remove(QLatin1String(kRecentFilesKey)); });
}

bool MainWindow::exportView(const QString& path, QString* error)
{
    GraphScene* scene = currentGraphScene();
    if (path.endsWith(QLatin1String(".dot"), Qt::CaseInsensitive)) {
        // The graph the tab shows, as core lays it out (same folding and blocks), for Graphviz or other tools.
        if (!scene->hasGraph()) {
            if (error)
                *error = tr("Nothing to export");
            return false;
        }
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Text)
            || file.write(toDot(scene->graph(), layoutOptions()).toUtf8()) < 0 || !file.commit()) {
            if (error)
                *error = tr("Cannot write %1").arg(path);
            return false;
        }
        return true;
    }
    const QRectF source = scene->contentsRect().adjusted(-12, -12, 12, 12);
    if (source.isEmpty()) {
        if (error)
            *error = tr("Nothing to export");
        return false;
    }
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(source.size().toSize());
        generator.setViewBox(QRectF(QPointF(0, 0), source.size()));
        generator.setTitle(m_currentFunction.isEmpty() ? QStringLiteral("JitScope") : m_currentFunction);
        generator.setDescription(tr("Exported by JitScope from %1").arg(m_currentFile));
        QPainter painter;
        if (!painter.begin(&generator)) {
            if (error)
                *error = tr("Cannot write %1").arg(path);
            return false;
        }
        scene->render(&painter, QRectF(QPointF(0, 0), source.size()), source);
        painter.end();
        return true;
    }
    // PNG (or any raster format Qt knows by suffix) at twice the scene resolution, capped for huge graphs.
    const double scale = qMin(2.0, 16000.0 / qMax(source.width(), source.height()));
    QImage image((source.size() * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.fill(scene->backgroundBrush().color());
    {
        QPainter painter(&image);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
        scene->render(&painter, QRectF(QPointF(0, 0), image.size()), source);
    }
    if (!image.save(path)) {
        if (error)
            *error = tr("Cannot write %1").arg(path);
        return false;
    }
    return true;
}

void MainWindow::exportDialog()
{
    QString suggestion
        = m_currentFile.isEmpty() ? QStringLiteral("graph") : QFileInfo(m_currentFile).completeBaseName();
    if (!m_currentFunction.isEmpty())
        suggestion += QLatin1Char('-') + m_currentFunction;
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
            .arg(QStringLiteral(JITSCOPE_VERSION), QString::fromLatin1(qVersion()), libtorchVersion(),
                graphvizVersion()));
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

// ---------------------------------------------------------------------------------------------------------------
// Find, inspector, reload on change, theme

void MainWindow::updateFindTarget()
{
    m_findBar->setTarget(currentGraphScene(), currentGraphView());
}

void MainWindow::createInspectorDock()
{
    m_inspector = new NodeInspector;
    auto* dock = new QDockWidget(tr("Inspector"), this);
    dock->setObjectName(QStringLiteral("inspectorDock"));
    dock->setWidget(m_inspector);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    if (auto* sourceDock = findChild<QDockWidget*>(QStringLiteral("sourceDock")))
        tabifyDockWidget(sourceDock, dock);
    if (auto* sourceDock = findChild<QDockWidget*>(QStringLiteral("sourceDock")))
        sourceDock->raise();
    connect(m_inspector, &NodeInspector::scriptNodeClicked, this, &MainWindow::onInspectorScriptNode);
    connect(m_inspector, &NodeInspector::traceNodeClicked, this, &MainWindow::onInspectorTraceNode);
}

void MainWindow::onInspectorScriptNode(int nodeId)
{
    const int shown = m_scriptScene->displayedNode(nodeId);
    if (shown < 0)
        return;
    showView(View::Script);
    // Selecting a trace node selects its script node quietly: describe it now, as a click would.
    const bool alreadySelected = m_scriptScene->selectedNodeId() == shown;
    m_scriptScene->selectNode(shown);
    if (alreadySelected)
        onNodeSelected(shown);
    m_scriptView->centerOnNode(shown);
}

void MainWindow::onInspectorTraceNode(int trace, int nodeId)
{
    if (trace < 0 || trace >= m_tracePages.size())
        return;
    const TracePage& page = m_tracePages.at(trace);
    const int shown = page.scene->displayedNode(nodeId);
    if (shown < 0)
        return;
    m_tabs->setCurrentWidget(page.page);
    const bool alreadySelected = page.scene->selectedNodeId() == shown;
    page.scene->selectNode(shown);
    if (alreadySelected)
        onTraceNodeSelected(trace, shown);
    page.view->centerOnNode(shown);
}

void MainWindow::watchFile(const QString& path)
{
    const QStringList watched = m_fileWatcher->files() + m_fileWatcher->directories();
    if (!watched.isEmpty())
        m_fileWatcher->removePaths(watched);
    m_lastModified = QFileInfo(path).lastModified();
    if (QFileInfo::exists(path))
        m_fileWatcher->addPath(path);
    m_fileWatcher->addPath(QFileInfo(path).absolutePath());
}

void MainWindow::onWatchedPathChanged(bool fileSignal)
{
    if (m_currentFile.isEmpty())
        return;
    const QFileInfo info(m_currentFile);
    if (!info.exists()) {
        // Saved by delete-and-rename: the new file may be a moment away; the directory watch brings it back.
        m_reloadTimer->stop();
        setStatus(tr("%1 was removed from disk").arg(m_currentFile));
        return;
    }
    // The directory also changes for its other files: only a new or modified file of ours counts.
    bool changed = fileSignal || info.lastModified() != m_lastModified;
    if (!m_fileWatcher->files().contains(m_currentFile)) {
        m_fileWatcher->addPath(m_currentFile);
        changed = true;
    }
    if (changed)
        m_reloadTimer->start();
}

void MainWindow::reloadFile()
{
    if (m_currentFile.isEmpty())
        return;
    m_restoreView = currentView();
    m_restoreTrace = m_activeTrace;
    m_restoreTabPending = m_restoreView != View::Script;
    const QString function = m_currentFunction;
    // Reloading (the file changed on disk, Group by Module) keeps the sets the user edited, saved or not.
    if (m_inputSets->isEdited() && m_initialInputSets.isEmpty())
        m_initialInputSets = m_inputSets->model()->texts();
    m_reloading = true;
    openFile(m_currentFile, function);
    setStatus(tr("Reloading %1\u2026").arg(QFileInfo(m_currentFile).fileName()));
}

void MainWindow::setOverviewLimits(int bigBoxes, int overviewBoxes)
{
    m_overviewLimits = QPoint(bigBoxes, overviewBoxes);
}

QStringList MainWindow::foldedModules() const
{
    QStringList modules(m_foldedModules.begin(), m_foldedModules.end());
    modules.sort();
    return modules;
}

void MainWindow::unfoldAllModules()
{
    if (m_foldedModules.isEmpty() || !m_hasModel || m_currentFunction.isEmpty())
        return;
    m_foldedModules.clear();
    const QString name = m_currentFunction;
    m_currentFunction.clear();
    showFunction(name);
}

void MainWindow::noteOverview(const QStringList& folds, const IrGraph& graph)
{
    if (folds.isEmpty())
        return;
    int ops = 0;
    for (const IrNode& n : graph.nodes)
        ops += n.kind != QLatin1String("prim::Constant") && n.kind != QLatin1String("prim::GetAttr");
    setStatus(tr("A big model (%1 ops): %2 submodules folded for an overview. Double-click one to unfold it; "
                 "View > Unfold All Modules shows every op.")
                  .arg(ops)
                  .arg(folds.size()));
}

void MainWindow::setGroupByModule(bool group)
{
    m_groupByModuleAction->setChecked(group);
}

bool MainWindow::groupsByModule() const
{
    return m_groupByModuleAction->isChecked();
}

bool MainWindow::isDarkTheme() const
{
    return isDarkGraphTheme();
}

void MainWindow::setDarkTheme(bool dark)
{
    if (m_darkAction->isChecked() != dark) {
        m_darkAction->setChecked(dark); // comes back here through toggled()
        return;
    }
    const bool wasDark = isDarkGraphTheme();
    if (!dark && !wasDark)
        return; // leave the platform's palette alone
    if (dark && !wasDark) {
        m_lightPalette = QApplication::palette();
        m_hasLightPalette = true;
    }
    setDarkGraphTheme(dark);
    QPalette palette = m_hasLightPalette ? m_lightPalette : QApplication::style()->standardPalette();
    if (dark) {
        const QColor window(0x24, 0x29, 0x2f);
        const QColor base(0x16, 0x1b, 0x22);
        const QColor text(0xe6, 0xed, 0xf3);
        const QColor disabled(0x6e, 0x76, 0x81);
        palette.setColor(QPalette::Window, window);
        palette.setColor(QPalette::WindowText, text);
        palette.setColor(QPalette::Base, base);
        palette.setColor(QPalette::AlternateBase, window);
        palette.setColor(QPalette::ToolTipBase, window);
        palette.setColor(QPalette::ToolTipText, text);
        palette.setColor(QPalette::Text, text);
        palette.setColor(QPalette::Button, window);
        palette.setColor(QPalette::ButtonText, text);
        palette.setColor(QPalette::BrightText, QColor(0xff, 0x7b, 0x72));
        palette.setColor(QPalette::Link, QColor(0x58, 0xa6, 0xff));
        palette.setColor(QPalette::Highlight, QColor(0x1f, 0x6f, 0xeb));
        palette.setColor(QPalette::HighlightedText, Qt::white);
        palette.setColor(QPalette::PlaceholderText, disabled);
        for (QPalette::ColorRole role : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText })
            palette.setColor(QPalette::Disabled, role, disabled);
    }
    QApplication::setPalette(palette);
    for (GraphView* view : findChildren<GraphView*>())
        view->setBackgroundBrush(graphBackgroundColor());
    for (GraphScene* scene : findChildren<GraphScene*>())
        scene->applyTheme();
    if (m_persistSettings)
        settings().setValue(QLatin1String(kDarkThemeKey), dark);
}

} // namespace jitscope
