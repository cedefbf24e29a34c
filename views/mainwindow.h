#pragma once

#include "graphlayout.h"
#include "model.h"

#include <QHash>
#include <QMainWindow>
#include <QSet>

#include <functional>

class QAction;
class QFutureWatcherBase;
class QLabel;
class QMenu;
class QProgressBar;
class QTabWidget;
class QTreeView;

namespace jitscope {

class GraphScene;
class GraphView;
class LegendBar;
class ModelTreeModel;
class SourceView;
struct GuiJobResult;

/// JitScope's main window: the graph of the selected function in the centre, the model tree and the source in
/// docks. Loading and layout run on the thread pool; results of jobs that were overtaken are dropped.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Loads @p path off the GUI thread and shows @p functionName (or the default function) once laid out.
    void openFile(const QString& path, const QString& functionName = {});
    /// Shows a function of the loaded model, laying it out off the GUI thread unless its layout is cached.
    void showFunction(const QString& name);

    /// Restores window geometry and dock state and from then on saves them (and recent files) in QSettings.
    void restoreSettings();

    /// True when no load or layout job is pending; idle() is emitted each time the last one finishes.
    bool isIdle() const { return m_watchers.isEmpty(); }
    QString currentFile() const { return m_currentFile; }
    QString currentFunction() const { return m_currentFunction; }
    /// Why the last openFile() failed (or named a function the file lacks); empty after a successful load.
    QString lastError() const { return m_lastError; }
    bool hasModel() const { return m_hasModel; }
    const ModelInfo& model() const { return m_model; }

    GraphScene* scriptScene() const { return m_scriptScene; }
    GraphView* scriptView() const { return m_scriptView; }
    ModelTreeModel* treeModel() const { return m_treeModel; }
    QTreeView* treeView() const { return m_treeView; }
    SourceView* sourceView() const { return m_sourceView; }
    /// The text of the status bar's message area.
    QString statusText() const;

    /// Writes the current graph to @p path as SVG or PNG (by suffix). Returns false and sets *error on failure.
    bool exportView(const QString& path, QString* error = nullptr);

    static QStringList supportedSuffixes();

Q_SIGNALS:
    /// All load and layout jobs have finished and their results are shown.
    void idle();
    /// A file finished loading (successfully or not); see lastError().
    void fileLoaded(bool ok);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createActions();
    void createDocks();
    /// Runs @p work on the thread pool as the newest job; @p work gets a function telling it to stop early.
    void startJob(std::function<GuiJobResult(const std::function<bool()>& canceled)> work);
    void onJobFinished(QFutureWatcherBase* watcher);
    void applyLoadResult(GuiJobResult& result);
    void applyLayoutResult(GuiJobResult& result);
    void displayFunction(const QString& name, const GraphLayout& layout, qint64 elapsedMs);
    void showCompileError(const FunctionInfo& fn);
    void onTreeCurrentChanged(const QModelIndex& current);
    void onNodeSelected(int nodeId);
    void selectFunctionInTree(const QString& name);
    void setStatus(const QString& text);
    void addRecentFile(const QString& path);
    void updateRecentMenu();
    void openDialog();
    void exportDialog();
    void about();
    /// The line of the source panel that @p location refers to, or 0 when the panel does not show that file.
    int sourceLineFor(const SourceLocation& location) const;
    void indexArchiveSource();
    QString cacheKey(const QString& function) const;

    QTabWidget* m_tabs = nullptr;
    GraphScene* m_scriptScene = nullptr;
    GraphView* m_scriptView = nullptr;
    LegendBar* m_legend = nullptr;
    ModelTreeModel* m_treeModel = nullptr;
    QTreeView* m_treeView = nullptr;
    SourceView* m_sourceView = nullptr;
    QLabel* m_statusLabel = nullptr;
    QLabel* m_zoomLabel = nullptr;
    QProgressBar* m_busy = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_foldConstantsAction = nullptr;
    QAction* m_showBlocksAction = nullptr;

    ModelInfo m_model;
    bool m_hasModel = false;
    QString m_currentFile;
    QString m_currentFunction;
    QString m_lastError;
    QHash<QString, int> m_archiveFileOffsets; ///< "code/__torch__/x.py" -> line of its header in the source panel
    QHash<QString, GraphLayout> m_layoutCache; ///< per function and layout options, for the loaded model
    int m_generation = 0; ///< bumped by every job; a finished job whose generation is older is dropped
    QSet<QFutureWatcherBase*> m_watchers; ///< pending jobs
    bool m_persistSettings = false;
    bool m_updatingTree = false;
};

} // namespace jitscope
