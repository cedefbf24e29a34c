#pragma once

#include <QObject>
#include <QStringList>

class QModelIndex;
class QTreeView;

namespace jitscope {

class DocumentController;
class GraphPage;
class InputSetsEditor;
class ModelTreeModel;
class SessionStore;
class SourceView;
struct DocumentJob;
struct FunctionInfo;
struct ModelInfo;
struct GraphLayout;

/// Shows the open document: the script graph of its current function (or why there is none: loading, a compile
/// error, a file that could not be loaded), the Model tree, the source with its error lines, and the input sets
/// (the ones given on the command line, else those last edited for the file, else the file's own). Follows
/// DocumentController's signals.
class DocumentView : public QObject
{
    Q_OBJECT
public:
    struct Parts
    {
        GraphPage* script = nullptr;
        ModelTreeModel* tree = nullptr;
        QTreeView* treeView = nullptr;
        SourceView* source = nullptr;
        InputSetsEditor* inputSets = nullptr;
    };
    DocumentView(const Parts& parts, DocumentController* document, SessionStore* session, QObject* parent = nullptr);

    /// The Model dock's tree view on @p model.
    static QTreeView* createTreeView(ModelTreeModel* model);

    /// Input sets (SET syntax) to use for the next file loaded instead of its own or remembered ones.
    void setInitialInputSets(const QStringList& sets) { m_initialInputSets = sets; }
    bool hasInitialInputSets() const { return !m_initialInputSets.isEmpty(); }
    /// Empties the views for @p path about to load.
    void prepareOpen(const QString& path);
    /// Shows a finished load: the model, or why it could not be loaded.
    void showLoaded(const DocumentJob& result);
    /// "torchvision:: operators from /usr/lib/.../_C.so": the libraries a model's custom operators come from, and
    /// those of its libraries that did not load (its warnings).
    static QString operatorLibrariesText(const ModelInfo& model);

Q_SIGNALS:
    /// The script graph of @p function is shown; @p newFunction: another one than before.
    void functionShown(const QString& function, bool newFunction);
    /// The check shown no longer applies: show @p title and @p text instead.
    void checkResetWanted(const QString& title, const QString& text, bool isError);
    /// The input sets were reset to the file's own: check again.
    void checkWanted(bool force);
    void statusMessage(const QString& text);

private:
    void displayFunction(const QString& name, const GraphLayout& layout, qint64 elapsedMs, const QStringList& folds);
    void showCompileError(const FunctionInfo& fn);
    void onInputSetsEdited();
    void resetInputSets();
    void selectFunctionInTree(const QString& name);
    void onTreeCurrentChanged(const QModelIndex& current);

    /// What the script page's button does (GraphPage::showMessage()'s action).
    enum class PageAction { None, CancelLayout, ShowOverview, LayOutAgain };
    /// Shows @p title and @p text where the graph would be, with the button for @p action.
    void showWithAction(const QString& title, const QString& text, bool isError, PageAction action);

    Parts m_parts;
    PageAction m_pageAction = PageAction::None;
    DocumentController* m_document = nullptr;
    SessionStore* m_session = nullptr;
    QStringList m_initialInputSets;
    bool m_updatingTree = false;
    QString m_loadNote; ///< what the load adds to the first status message (the operator libraries it used)
};

} // namespace jitscope
