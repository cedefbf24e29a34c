#include "windowmenus.h"

#include "checkview.h"
#include "debuguicontroller.h"
#include "documentcontroller.h"
#include "findbar.h"
#include "graphpage.h"
#include "graphscene.h"
#include "graphtabs.h"
#include "graphview.h"
#include "legendbar.h"
#include "mainwindow.h"
#include "minimap.h"
#include "pythoncontroller.h"
#include "pythonview.h"
#include "sessionstore.h"
#include "workerclient.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>

#ifndef JITSCOPE_VERSION
#define JITSCOPE_VERSION "dev"
#endif

namespace jitscope {

WindowMenus::WindowMenus(const Parts& parts, DocumentController* document, SessionStore* session, QObject* parent)
    : QObject(parent)
    , m_parts(parts)
    , m_document(document)
    , m_session(session)
{
    QMenuBar* bar = m_parts.window->menuBar();
    createFileMenu();
    createEditMenu();
    createViewMenu();

    QMenu* model = bar->addMenu(tr("&Model"));
    QAction* libraries = model->addAction(
        tr("Operator &Libraries\u2026"), m_parts.window, &MainWindow::operatorLibrariesDialog);
    libraries->setStatusTip(tr("Shared libraries of custom operators every model loads with (torchvision's are "
                               "found in the system's Python without them)"));
    QAction* interpreter
        = model->addAction(tr("Python &Interpreter\u2026"), m_parts.window, &MainWindow::pythonInterpreterDialog);
    interpreter->setStatusTip(tr("The Python (and its torch) that runs the .py files of this folder"));
    m_exportAction = model->addAction(tr("&Export with torch.export"));
    m_exportAction->setObjectName(QStringLiteral("exportCallsAction"));
    m_exportAction->setCheckable(true);
    m_exportAction->setStatusTip(tr("A Python run exports each recorded torch.jit.trace call with torch.export too: "
                                    "the Export tab beside the traces, and Compare of trace 1 against it"));
    auto applyExport = [this](bool on) {
        PythonOptions options = m_parts.python->options();
        options.exportCalls = on;
        m_parts.python->setOptions(options);
    };
    m_exportAction->setChecked(m_session->exportCalls());
    applyExport(m_exportAction->isChecked());
    connect(m_exportAction, &QAction::toggled, this, [this, applyExport](bool on) {
        applyExport(on);
        m_session->setExportCalls(on);
        Q_EMIT statusMessage(on ? tr("The next Python run exports each traced call with torch.export")
                                : tr("The next Python run does not export: torch.export turned off"));
    });

    m_parts.checkView->createActions(bar->addMenu(tr("&Check")), [this] { m_parts.window->runCheck(true); });

    m_parts.debug->createActions(bar->addMenu(tr("&Debug")));

    createPythonMenu();

    QMenu* help = bar->addMenu(tr("&Help"));
    QAction* aboutAction = help->addAction(tr("&About JitScope"), this, &WindowMenus::about);
    aboutAction->setMenuRole(QAction::AboutRole);
}

void WindowMenus::createFileMenu()
{
    QMenu* file = m_parts.window->menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New Window"), this, [this] { m_parts.window->newWindow(); })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N));
    file->addAction(tr("&Open\u2026"), this, &WindowMenus::openDialog)->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &WindowMenus::updateRecentMenu);
    updateRecentMenu();
    file->addSeparator();
    file->addAction(tr("&Export View as SVG/PNG/DOT\u2026"), this, &WindowMenus::exportDialog)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), m_parts.window, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);
}

void WindowMenus::createEditMenu()
{
    QMenu* edit = m_parts.window->menuBar()->addMenu(tr("&Edit"));
    FindBar* findBar = m_parts.findBar;
    QAction* find = edit->addAction(tr("&Find Node\u2026"), this, [this, findBar] {
        m_parts.tabs->updateFindTarget();
        findBar->activate();
    });
    find->setShortcut(QKeySequence::Find);
    QAction* findNext = edit->addAction(tr("Find &Next"), this, [findBar] {
        findBar->show();
        findBar->findNext();
    });
    findNext->setShortcut(QKeySequence(Qt::Key_F3));
    QAction* findPrevious = edit->addAction(tr("Find &Previous"), this, [findBar] {
        findBar->show();
        findBar->findPrevious();
    });
    findPrevious->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3));
}

void WindowMenus::createViewMenu()
{
    QMenu* view = m_parts.window->menuBar()->addMenu(tr("&View"));
    // The zoom actions act on the graph of the current tab (in Compare, on both sides through the sync).
    auto onView = [this](void (GraphView::*slot)()) {
        return [this, slot] {
            if (GraphView* v = m_parts.tabs->currentGraphView())
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
    QAction* foldConstants = view->addAction(tr("Fold &Constants"));
    foldConstants->setCheckable(true);
    foldConstants->setChecked(LayoutOptions().foldConstants);
    QAction* showBlocks = view->addAction(tr("Show Loop/If &Blocks"));
    showBlocks->setCheckable(true);
    showBlocks->setChecked(LayoutOptions().showBlocks);
    connect(foldConstants, &QAction::toggled, this, [this](bool fold) {
        m_document->setFoldConstants(fold);
        m_document->relayout();
    });
    connect(showBlocks, &QAction::toggled, this, [this](bool show) {
        m_document->setShowBlocks(show);
        m_document->relayout();
    });
    m_groupByModuleAction = view->addAction(tr("&Group by Module"));
    m_groupByModuleAction->setObjectName(QStringLiteral("groupByModuleAction"));
    m_groupByModuleAction->setCheckable(true);
    m_groupByModuleAction->setStatusTip(tr("Inline calls and draw each submodule's code as a cluster"));
    // The graphs change (calls inlined or not): load the file again, keeping the function and the tab. The choice
    // sticks for files of the same kind: archives open grouped (a model's forward alone is a few CallMethod boxes),
    // .py files open as written.
    connect(m_groupByModuleAction, &QAction::toggled, this, [this](bool group) {
        m_session->setGroupByModule(DocumentController::isSourceFile(m_document->currentFile()), group);
        m_document->setGroupByModule(group);
        if (!m_document->currentFile().isEmpty())
            m_document->reload();
    });
    m_unfoldAllAction
        = view->addAction(tr("&Unfold All Modules"), m_document, &DocumentController::unfoldAllModules);
    m_unfoldAllAction->setObjectName(QStringLiteral("unfoldAllModulesAction"));
    m_unfoldAllAction->setStatusTip(tr("Draw the code of every folded submodule (double-click one to fold it)"));
    m_unfoldAllAction->setEnabled(false);
    QAction* legend = view->addAction(tr("Show &Legend"));
    legend->setCheckable(true);
    legend->setChecked(true);
    connect(legend, &QAction::toggled, m_parts.script->legend(), &QWidget::setVisible);
    QAction* miniMap = view->addAction(tr("Show &Minimap"));
    miniMap->setCheckable(true);
    miniMap->setChecked(MiniMap::isEnabledEverywhere());
    miniMap->setStatusTip(tr("The whole graph small in a corner while it does not fit the view"));
    connect(miniMap, &QAction::toggled, this, &MiniMap::setEnabledEverywhere);
    m_darkAction = view->addAction(tr("&Dark Theme"));
    m_darkAction->setObjectName(QStringLiteral("darkThemeAction"));
    m_darkAction->setCheckable(true);
    connect(m_darkAction, &QAction::toggled, m_parts.window, &MainWindow::setDarkTheme);
    view->addSeparator();
    using View = GraphTabs::View;
    QAction* showScript = view->addAction(tr("&Script Graph"), this, [this] { m_parts.tabs->showView(View::Script); });
    showScript->setShortcut(QKeySequence(Qt::ALT | Qt::Key_1));
    QAction* showTrace = view->addAction(tr("&Trace Graph"), this, [this] { m_parts.tabs->showView(View::Trace); });
    showTrace->setShortcut(QKeySequence(Qt::ALT | Qt::Key_2));
    QAction* showCompare
        = view->addAction(tr("Co&mpare Traces"), this, [this] { m_parts.tabs->showView(View::Compare); });
    view->addAction(tr("Compare Trace 1 with &Export"), this, [this] { m_parts.tabs->showView(View::CompareExport); })
        ->setStatusTip(tr("Trace 1 beside the call's torch.export program (Model \u203a Export with torch.export)"));
    showCompare->setShortcut(QKeySequence(Qt::ALT | Qt::Key_3));
    view->addSeparator();
    for (QDockWidget* dock : m_parts.window->findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
}

void WindowMenus::createPythonMenu()
{
    QMenu* python = m_parts.window->menuBar()->addMenu(tr("&Python"));
    QAction* runPython = python->addAction(
        tr("&Run File with Python"), this, [this] { m_parts.pythonView->runWithConsent(false); });
    runPython->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    runPython->setStatusTip(tr("Run the .py file under the system's PyTorch (in its own process) and record its "
                               "torch.jit calls"));
    QAction* stopPython = python->addAction(tr("&Stop Python"), m_parts.python, &PythonController::cancel);
    stopPython->setEnabled(false);
    connect(m_parts.python, &PythonController::started, stopPython, [stopPython] { stopPython->setEnabled(true); });
    connect(m_parts.python, &PythonController::finished, stopPython, [stopPython] { stopPython->setEnabled(false); });
    connect(m_parts.python, &PythonController::cleared, stopPython, [stopPython] { stopPython->setEnabled(false); });
    python->addAction(tr("&Forget Consent for This File"), this, [this] {
        m_session->revokePython(m_document->currentFile());
        Q_EMIT statusMessage(tr("%1 and its folder will ask again before running Python")
                                 .arg(QFileInfo(m_document->currentFile()).fileName()));
    });
    auto updatePythonMenu
        = [this, runPython] { runPython->setEnabled(DocumentController::isSourceFile(m_document->currentFile())); };
    connect(m_document, &DocumentController::aboutToOpen, this, updatePythonMenu);
    updatePythonMenu();
}

void WindowMenus::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = m_session->recentFiles();
    for (const QString& path : files) {
        QAction* action = m_recentMenu->addAction(
            QFileInfo(path).fileName(), this, [this, path] { m_parts.window->openFile(path); });
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

void WindowMenus::openDialog()
{
    QString dir;
    const QString current = m_document->currentFile();
    if (!current.isEmpty())
        dir = QFileInfo(current).absolutePath();
    const QString path = QFileDialog::getOpenFileName(m_parts.window, tr("Open Model"), dir,
        tr("Models (*.py *.pt *.pth *.zip *.pt2);;Python files (*.py);;TorchScript archives (*.pt *.pth *.zip);;"
           "Exported programs (*.pt2);;All files (*)"));
    if (!path.isEmpty())
        m_parts.window->openFile(path);
}

void WindowMenus::exportDialog()
{
    const QString current = m_document->currentFile();
    const QString function = m_document->currentFunction();
    QString suggestion = current.isEmpty() ? QStringLiteral("graph") : QFileInfo(current).completeBaseName();
    if (!function.isEmpty())
        suggestion += QLatin1Char('-') + function;
    QString selectedFilter;
    QString path = QFileDialog::getSaveFileName(m_parts.window, tr("Export View"), suggestion + QStringLiteral(".svg"),
        tr("SVG image (*.svg);;PNG image (*.png);;Graphviz DOT (*.dot)"), &selectedFilter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += selectedFilter.contains(QLatin1String("png")) ? QStringLiteral(".png")
            : selectedFilter.contains(QLatin1String("dot"))   ? QStringLiteral(".dot")
                                                              : QStringLiteral(".svg");
    QString error;
    if (m_parts.window->exportView(path, &error))
        Q_EMIT statusMessage(tr("Exported %1").arg(path));
    else
        QMessageBox::warning(m_parts.window, tr("Export failed"), error);
}

void WindowMenus::about()
{
    WorkerClient* worker = m_parts.worker;
    QMessageBox::about(m_parts.window, tr("About JitScope"),
        tr("<h3>JitScope %1</h3>"
           "<p>A debugger for PyTorch TorchScript graphs.</p>"
           "<table>"
           "<tr><td>Qt</td><td>%2</td></tr>"
           "<tr><td>libtorch</td><td>%3</td></tr>"
           "<tr><td>Graphviz</td><td>%4</td></tr>"
           "</table>")
            .arg(QStringLiteral(JITSCOPE_VERSION), QString::fromLatin1(qVersion()),
                worker ? worker->libtorchVersion() : tr("in process"),
                worker ? worker->graphvizVersion() : tr("in process")));
}

} // namespace jitscope
