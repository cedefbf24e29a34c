#include "mainwindow.h"

#include "graphitems.h"
#include "graphscene.h"
#include "graphview.h"
#include "legendbar.h"
#include "modeltreemodel.h"
#include "sourceview.h"

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
#include <QFutureWatcher>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QProgressBar>
#include <QPromise>
#include <QRegularExpression>
#include <QSettings>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

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
};

namespace {

constexpr int kMaxRecentFiles = 10;
const char kRecentFilesKey[] = "recentFiles";
const char kGeometryKey[] = "mainWindow/geometry";
const char kStateKey[] = "mainWindow/state";

QSettings settings()
{
    return QSettings(QStringLiteral("JitScope"), QStringLiteral("JitScope"));
}

/// The function opened when none is named: "forward" or the only one, else the first that compiled.
const FunctionInfo* pickFunction(const ModelInfo& model)
{
    if (const FunctionInfo* fn = model.defaultFunction())
        return fn;
    for (const FunctionInfo& fn : model.functions) {
        if (fn.ok)
            return &fn;
    }
    return model.functions.isEmpty() ? nullptr : &model.functions.first();
}

QString elided(QString text, int max)
{
    text = text.simplified();
    if (text.size() > max)
        text = text.left(max - 1) + QChar(0x2026);
    return text;
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
    setCentralWidget(m_tabs);

    createDocks();
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
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_busy);
    statusBar()->addPermanentWidget(m_zoomLabel);
    connect(m_scriptView, &GraphView::zoomChanged, this,
        [this](double zoom) { m_zoomLabel->setText(QStringLiteral("%1%").arg(qRound(zoom * 100))); });
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
    // Pending jobs keep running on the pool but nobody will look at their results.
    for (QFutureWatcherBase* watcher : std::as_const(m_watchers))
        watcher->disconnect(this);
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

    resizeDocks({ modelDock, sourceDock }, { 330, 440 }, Qt::Horizontal);
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
    QAction* exportAction = file->addAction(tr("&Export View as SVG/PNG\u2026"), this, &MainWindow::exportDialog);
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* zoomIn = view->addAction(tr("Zoom &In"), m_scriptView, &GraphView::zoomIn);
    zoomIn->setShortcuts({ QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal) });
    QAction* zoomOut = view->addAction(tr("Zoom &Out"), m_scriptView, &GraphView::zoomOut);
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    QAction* fit = view->addAction(tr("&Fit Graph"), m_scriptView, &GraphView::fitGraph);
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    QAction* actual = view->addAction(tr("&Actual Size"), m_scriptView, &GraphView::resetZoom);
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
    QAction* legend = view->addAction(tr("Show &Legend"));
    legend->setCheckable(true);
    legend->setChecked(true);
    connect(legend, &QAction::toggled, m_legend, &QWidget::setVisible);
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());

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
    if (m_watchers.isEmpty()) {
        m_busy->hide();
        Q_EMIT idle();
    }
}

void MainWindow::openFile(const QString& path, const QString& functionName)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_currentFile = absolute;
    m_currentFunction.clear();
    m_lastError.clear();
    m_hasModel = false;
    m_model = ModelInfo();
    m_layoutCache.clear();
    m_treeModel->clear();
    m_sourceView->setSource(QString());
    const QString fileName = QFileInfo(absolute).fileName();
    setWindowTitle(tr("%1 \u2014 JitScope").arg(fileName));
    m_scriptScene->showMessage(tr("Loading %1\u2026").arg(fileName), QString());
    m_scriptView->showMessage();
    setStatus(tr("Loading %1\u2026").arg(fileName));
    addRecentFile(absolute);

    LayoutOptions options;
    options.foldConstants = m_foldConstantsAction->isChecked();
    options.showBlocks = m_showBlocksAction->isChecked();
    const QString keySuffix = QStringLiteral("|%1%2").arg(int(options.foldConstants)).arg(int(options.showBlocks));

    startJob([absolute, functionName, options, keySuffix](const std::function<bool()>& canceled) {
        GuiJobResult r;
        r.kind = GuiJobResult::Kind::Load;
        r.path = absolute;
        QElapsedTimer timer;
        timer.start();
        r.load = loadModel(absolute);
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
        r.functionName = fn->name;
        r.nodeCount = fn->graph.nodes.size();
        if (fn->ok) {
            timer.restart();
            r.layout = layoutGraph(fn->graph, options);
            r.layoutMs = timer.elapsed();
            r.hasLayout = true;
            r.layoutKey = fn->name + keySuffix;
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
        Q_EMIT fileLoaded(false);
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

    if (r.hasLayout)
        m_layoutCache.insert(r.layoutKey, r.layout);
    m_currentFunction = r.functionName;
    selectFunctionInTree(r.functionName);

    const FunctionInfo* fn = m_model.function(r.functionName);
    if (!fn) {
        m_scriptScene->showMessage(
            tr("No functions"), tr("%1 contains no TorchScript functions.").arg(QFileInfo(r.path).fileName()));
        m_scriptView->showMessage();
        setStatus(tr("Loaded in %1 ms; no functions").arg(r.loadMs));
    } else if (!fn->ok) {
        showCompileError(*fn);
    } else {
        displayFunction(fn->name, r.layout, r.loadMs + r.layoutMs);
        if (fn->location.isValid())
            m_sourceView->highlightLine(sourceLineFor(fn->location));
    }
    if (!r.functionError.isEmpty())
        setStatus(r.functionError);
    Q_EMIT fileLoaded(true);
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
    if (!fn->ok) {
        // Leave no job running that could replace the error with an older graph.
        ++m_generation;
        showCompileError(*fn);
        return;
    }
    const QString key = cacheKey(name);
    const auto cached = m_layoutCache.constFind(key);
    if (cached != m_layoutCache.constEnd()) {
        ++m_generation;
        displayFunction(name, cached.value(), 0);
        return;
    }

    LayoutOptions options;
    options.foldConstants = m_foldConstantsAction->isChecked();
    options.showBlocks = m_showBlocksAction->isChecked();
    m_scriptScene->showMessage(tr("Laying out %1\u2026").arg(name), QString());
    m_scriptView->showMessage();
    setStatus(tr("Laying out %1\u2026").arg(name));
    startJob([graph = fn->graph, name, options, key](const std::function<bool()>&) {
        GuiJobResult r;
        r.kind = GuiJobResult::Kind::Layout;
        r.functionName = name;
        r.nodeCount = graph.nodes.size();
        QElapsedTimer timer;
        timer.start();
        r.layout = layoutGraph(graph, options);
        r.layoutMs = timer.elapsed();
        r.hasLayout = true;
        r.layoutKey = key;
        return r;
    });
}

void MainWindow::applyLayoutResult(GuiJobResult& r)
{
    m_layoutCache.insert(r.layoutKey, r.layout);
    if (r.functionName == m_currentFunction)
        displayFunction(r.functionName, r.layout, r.layoutMs);
}

QString MainWindow::cacheKey(const QString& function) const
{
    return function
        + QStringLiteral("|%1%2")
              .arg(int(m_foldConstantsAction->isChecked()))
              .arg(int(m_showBlocksAction->isChecked()));
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
    m_tabs->setCurrentIndex(m_tabs->indexOf(m_scriptView->parentWidget()));
    m_scriptView->showGraph();
    setStatus(tr("%1: %2 nodes, %3 ms").arg(name).arg(fn->graph.nodes.size()).arg(elapsedMs));
}

void MainWindow::showCompileError(const FunctionInfo& fn)
{
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
    const FunctionInfo* fn = m_model.function(m_currentFunction);
    if (!fn || nodeId < 0 || nodeId >= fn->graph.nodes.size()) {
        m_sourceView->highlightLine(0);
        return;
    }
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
    text += QStringLiteral(": ") + elided(fn->graph.nodeLine(nodeId, false), 220);
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
    GraphScene* scene = m_scriptScene;
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
        tr("SVG image (*.svg);;PNG image (*.png)"), &selectedFilter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += selectedFilter.contains(QLatin1String("png")) ? QStringLiteral(".png") : QStringLiteral(".svg");
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

} // namespace jitscope
