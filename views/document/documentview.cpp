#include "documentview.h"

#include "documentcontroller.h"
#include "graphpage.h"
#include "inputsetseditor.h"
#include "inputsetsmodel.h"
#include "modeltreemodel.h"
#include "sessionstore.h"
#include "sourceview.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QScopeGuard>
#include <QTreeView>

namespace jitscope {

QTreeView* DocumentView::createTreeView(ModelTreeModel* model)
{
    auto* view = new QTreeView;
    view->setModel(model);
    view->setUniformRowHeights(true);
    view->setAlternatingRowColors(true);
    view->setAllColumnsShowFocus(true);
    view->header()->setStretchLastSection(true);
    view->setColumnWidth(ModelTreeModel::NameColumn, 150);
    view->setTextElideMode(Qt::ElideRight);
    return view;
}

DocumentView::DocumentView(const Parts& parts, DocumentController* document, SessionStore* session, QObject* parent)
    : QObject(parent)
    , m_parts(parts)
    , m_document(document)
    , m_session(session)
{
    connect(parts.treeView->selectionModel(), &QItemSelectionModel::currentChanged, this,
        [this](const QModelIndex& current) { onTreeCurrentChanged(current); });
    connect(parts.inputSets, &InputSetsEditor::resetRequested, this, &DocumentView::resetInputSets);
    connect(parts.inputSets->model(), &InputSetsModel::setsEdited, this, &DocumentView::onInputSetsEdited);
    connect(parts.script, &GraphPage::actionTriggered, this, [this] {
        const PageAction action = std::exchange(m_pageAction, PageAction::None);
        if (action == PageAction::CancelLayout)
            m_document->cancelLayout();
        else if (action == PageAction::ShowOverview)
            m_document->showOverview();
        else if (action == PageAction::LayOutAgain)
            m_document->relayout();
    });
    connect(document, &DocumentController::layoutCanceled, this, [this](const QString& name) {
        showWithAction(tr("The layout of %1 was canceled").arg(name),
            tr("Everything else is kept. Fold modules (double-click a module box) to lay out less."), false,
            m_document->canShowOverview() ? PageAction::ShowOverview : PageAction::LayOutAgain);
        Q_EMIT statusMessage(tr("Layout of %1 canceled").arg(name));
    });
    connect(document, &DocumentController::layoutStarted, this, [this](const QString& name) {
        showWithAction(tr("Laying out %1\u2026").arg(name), QString(), false, PageAction::CancelLayout);
        Q_EMIT statusMessage(tr("Laying out %1\u2026").arg(name));
    });
    connect(document, &DocumentController::layoutReady, this, &DocumentView::displayFunction);
    connect(document, &DocumentController::currentFunctionChanged, this, &DocumentView::selectFunctionInTree);
    connect(document, &DocumentController::compileErrorShown, this, &DocumentView::showCompileError);
    connect(document, &DocumentController::noSuchFunction, this,
        [this](const QString& name) { Q_EMIT statusMessage(tr("No function '%1'").arg(name)); });
    connect(document, &DocumentController::removedFromDisk, this,
        [this](const QString& path) { Q_EMIT statusMessage(tr("%1 was removed from disk").arg(path)); });
}

void DocumentView::prepareOpen(const QString& absolute)
{
    m_parts.tree->clear();
    m_parts.source->setSource(QString());
    m_parts.inputSets->model()->setTexts({});
    m_parts.inputSets->setEdited(false);
    const QString fileName = QFileInfo(absolute).fileName();
    m_parts.script->showMessage(tr("Loading %1\u2026").arg(fileName));
    Q_EMIT statusMessage(
        m_document->isReloading() ? tr("Reloading %1\u2026").arg(fileName) : tr("Loading %1\u2026").arg(fileName));
}

void DocumentView::showLoaded(const DocumentJob& r)
{
    if (!r.load.ok) {
        m_parts.script->showMessage(
            tr("Could not open %1").arg(QFileInfo(r.path).fileName()), m_document->lastError(), true);
        if (!r.failedSource.isEmpty()) {
            m_parts.source->setSource(r.failedSource);
            if (r.load.error.location.line > 0) {
                m_parts.source->setErrorLines({ r.load.error.location.line });
                m_parts.source->highlightLine(r.load.error.location.line);
            }
        }
        Q_EMIT statusMessage(tr("Failed to load: %1").arg(elidedText(r.load.error.message, 200)));
        Q_EMIT checkResetWanted(
            tr("Nothing to check"), tr("%1 could not be loaded.").arg(QFileInfo(r.path).fileName()), false);
        return;
    }
    const ModelInfo& model = m_document->model();
    m_parts.tree->setModel(model);
    m_parts.treeView->expand(m_parts.tree->groupIndex(ModelTreeModel::ItemKind::Function));
    m_parts.treeView->expand(m_parts.tree->groupIndex(ModelTreeModel::ItemKind::InputSet));
    // Wide enough for the function names (the rows users click most), but leave room for the details.
    int nameWidth = 0;
    const QFontMetrics metrics(m_parts.treeView->font());
    for (const FunctionInfo& fn : model.functions)
        nameWidth = qMax(nameWidth, metrics.horizontalAdvance(fn.name));
    const int wanted = nameWidth + 2 * m_parts.treeView->indentation() + 12;
    m_parts.treeView->setColumnWidth(
        ModelTreeModel::NameColumn, qBound(140, wanted, qMax(140, m_parts.treeView->viewport()->width() * 3 / 5)));
    m_parts.source->setSource(model.source);
    QSet<int> errorLines;
    for (const FunctionInfo& fn : model.functions) {
        const int line = fn.ok ? 0 : m_document->sourceLineFor(fn.error.location);
        if (line > 0)
            errorLines.insert(line);
    }
    m_parts.source->setErrorLines(errorLines);

    // The sets the user last checked this file with, else the file's own inputs and check_inputs.
    // Sets given on the command line (jitscope FILE --inputs SET ...) win over both, once.
    std::optional<QStringList> saved = m_session->inputSets(model.path);
    if (!m_initialInputSets.isEmpty())
        saved = std::exchange(m_initialInputSets, {});
    // Replacing the rows is not an edit: setsEdited() stays quiet.
    if (saved)
        m_parts.inputSets->model()->setTexts(*saved);
    else
        m_parts.inputSets->model()->setSets(model.inputSets);
    m_parts.inputSets->setEdited(saved.has_value());
    m_parts.inputSets->setSuggestion(
        r.suggestion ? r.suggestion->set : QString(), r.suggestion ? r.suggestion->reason : QString());

    selectFunctionInTree(r.functionName);
    m_loadNote = operatorLibrariesText(model);
    const auto clearNote = qScopeGuard([this] { m_loadNote.clear(); });
    if (!m_loadNote.isEmpty())
        Q_EMIT statusMessage(m_loadNote);
    const FunctionInfo* fn = model.function(r.functionName);
    if (!fn) {
        m_parts.script->showMessage(
            tr("No functions"), tr("%1 contains no TorchScript functions.").arg(QFileInfo(r.path).fileName()));
        Q_EMIT checkResetWanted(tr("No functions to trace"), QString(), false);
        Q_EMIT statusMessage(tr("Loaded in %1 ms; no functions").arg(r.loadMs));
    } else if (!fn->ok) {
        showCompileError(*fn);
    } else {
        displayFunction(fn->name, r.layout, r.loadMs + r.layoutMs, r.overviewFolds);
        if (fn->location.isValid())
            m_parts.source->highlightLine(m_document->sourceLineFor(fn->location));
    }
    if (!r.functionError.isEmpty())
        Q_EMIT statusMessage(r.functionError);
}

QString DocumentView::operatorLibrariesText(const ModelInfo& model)
{
    QStringList parts;
    for (const OpLibrary& lib : model.opLibraries) {
        QStringList namespaces;
        for (const QString& ns : lib.namespaces)
            namespaces << ns + QStringLiteral("::");
        parts << (lib.found ? tr("%1 operators from %2 (found in the system's Python)") : tr("%1 operators from %2"))
                     .arg(namespaces.join(QStringLiteral(", ")), lib.path);
    }
    for (const Diagnostic& d : model.warnings)
        if (d.message.startsWith(QLatin1String("operator library ")))
            parts << d.message;
    return parts.join(QStringLiteral("; "));
}

void DocumentView::showWithAction(const QString& title, const QString& text, bool isError, PageAction action)
{
    m_pageAction = action;
    QString button;
    if (action == PageAction::CancelLayout)
        button = tr("Cancel");
    else if (action == PageAction::ShowOverview)
        button = tr("Show the Folded Overview");
    else if (action == PageAction::LayOutAgain)
        button = tr("Lay Out Again");
    m_parts.script->showMessage(title, text, isError, button);
}

void DocumentView::displayFunction(
    const QString& name, const GraphLayout& layout, qint64 elapsedMs, const QStringList& folds)
{
    const FunctionInfo* fn = m_document->model().function(name);
    if (!fn)
        return;
    if (!layout.error.isEmpty()) {
        // Graphviz crashed or ran past its limit (in the model worker, which was restarted), or failed: the window
        // and the model stay, and a layout that worked is a click away.
        const bool workerStopped = layout.error.startsWith(QLatin1String("the model worker"));
        showWithAction(tr("Could not lay out %1").arg(name),
            layout.error.trimmed() + QLatin1Char('\n')
                + (workerStopped ? tr("The model, input sets and breakpoints are kept; the next layout runs in a new "
                                      "model worker.")
                                 : tr("The model, input sets and breakpoints are kept.")),
            true, m_document->canShowOverview() ? PageAction::ShowOverview : PageAction::LayOutAgain);
        Q_EMIT statusMessage(tr("Layout failed: %1").arg(elidedText(layout.error, 200)));
        return;
    }
    if (m_parts.script->showLayout(fn->graph, layout, name, tr("%1 has an empty graph").arg(name))
        != GraphPage::Shown::Graph) {
        Q_EMIT statusMessage(
            layout.error.isEmpty() ? tr("0 nodes") : tr("Layout failed: %1").arg(elidedText(layout.error, 200)));
        return;
    }
    const bool newFunction = name != m_document->shownFunction();
    m_document->setShownFunction(name);
    QString status = tr("%1: %2 nodes, %3 ms").arg(name).arg(fn->graph.nodes.size()).arg(elapsedMs);
    if (!m_loadNote.isEmpty())
        status += QStringLiteral("; ") + m_loadNote;
    Q_EMIT statusMessage(status);
    Q_EMIT functionShown(name, newFunction);
    if (folds.isEmpty())
        return;
    // A big model opened with its submodules folded: say so, and how to see them.
    int ops = 0;
    for (const IrNode& n : fn->graph.nodes)
        ops += n.kind != QLatin1String("prim::Constant") && n.kind != QLatin1String("prim::GetAttr");
    QString overview = tr("A big model (%1 ops): %2 submodules folded for an overview. Double-click one to unfold it; "
                          "View > Unfold All Modules shows every op.")
                           .arg(ops)
                           .arg(folds.size());
    if (!m_loadNote.isEmpty())
        overview = m_loadNote + QStringLiteral(". ") + overview;
    Q_EMIT statusMessage(overview);
}

void DocumentView::showCompileError(const FunctionInfo& fn)
{
    m_document->setShownFunction(QString());
    Q_EMIT checkResetWanted(
        tr("%1 failed to compile").arg(fn.name), tr("Fix the compile error to trace the function."), true);
    const int line = m_document->sourceLineFor(fn.error.location);
    QString text = fn.error.message.trimmed();
    if (line > 0)
        text = tr("line %1: %2").arg(line).arg(text);
    m_parts.script->showMessage(tr("%1 failed to compile").arg(fn.name), text, true);
    if (line > 0)
        m_parts.source->highlightLine(line);
    Q_EMIT statusMessage(tr("%1: compile error: %2").arg(fn.name, elidedText(fn.error.message, 160)));
}

void DocumentView::onInputSetsEdited()
{
    m_parts.inputSets->setEdited(true);
    if (m_document->hasModel())
        m_session->setInputSets(m_document->model().path, m_parts.inputSets->model()->texts());
}

void DocumentView::resetInputSets()
{
    if (!m_document->hasModel())
        return;
    m_parts.inputSets->model()->setSets(m_document->model().inputSets);
    m_parts.inputSets->setEdited(false);
    m_session->setInputSets(m_document->model().path, std::nullopt);
    Q_EMIT checkWanted(true);
}

void DocumentView::selectFunctionInTree(const QString& name)
{
    const QModelIndex index = m_parts.tree->indexOfFunction(name);
    if (!index.isValid())
        return;
    m_updatingTree = true;
    m_parts.treeView->setCurrentIndex(index);
    m_parts.treeView->scrollTo(index);
    m_updatingTree = false;
}

void DocumentView::onTreeCurrentChanged(const QModelIndex& current)
{
    if (m_updatingTree || !current.isValid())
        return;
    const int line = current.data(ModelTreeModel::SourceLineRole).toInt();
    const QString function = current.data(ModelTreeModel::FunctionNameRole).toString();
    if (!function.isEmpty())
        m_document->showFunction(function);
    const ModelInfo& model = m_document->model();
    if (line > 0 && model.kind == ModelInfo::Kind::PythonSource)
        m_parts.source->highlightLine(line);
    else if (const FunctionInfo* fn = model.function(function); fn && fn->location.isValid())
        m_parts.source->highlightLine(m_document->sourceLineFor(fn->location));
}

} // namespace jitscope
