#pragma once

#include "jobtracker.h"
#include "report/graphlayout.h"
#include "report/modelinfo.h"
#include "report/sourcemap.h"
#include "modelengine.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QPoint>
#include <QSet>

#include <limits>
#include <optional>

class QFileSystemWatcher;
class QTimer;

namespace jitscope {

/// What a load or layout job hands back to the GUI thread.
struct DocumentJob
{
    enum class Kind { Load, Layout };
    Kind kind = Kind::Load;
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
    QVector<int> overviewNodeFolds; ///< control flow nested deep, folded for the first layout (deepControlFlowFolds())
    std::optional<InputSuggestion> suggestion; ///< Kind::Load: a set for a file that records none
    EngineModelRef engineModel; ///< Kind::Load: the model as the engine holds it
};

/// The open document: the model file loaded off the GUI thread (and loaded again when it changes on disk), the
/// function shown and its layouts (cached per layout options), the folds of its graph, submodule methods inlined
/// when first shown with Group by Module, and where its nodes are in the source text. No widgets: the window shows
/// what the signals hand over.
class DocumentController : public QObject
{
    Q_OBJECT
public:
    explicit DocumentController(QObject* parent = nullptr);
    ~DocumentController() override;

    /// Loads @p path off the GUI thread and lays out @p functionName (or the default function).
    void open(const QString& path, const QString& functionName = {});
    /// Loads the open file again (as when it changes on disk), keeping the function; aboutToReload() comes first.
    void reload();
    bool isReloading() const { return m_reloading; }
    /// Makes @p name the current function, laying it out off the GUI thread unless its layout is cached.
    void showFunction(const QString& name);
    /// Lays the current function out again (the layout options changed).
    void relayout();
    /// Stops the running layout (a dot run that never ends: its worker is ended after a grace); layoutCanceled()
    /// follows.
    void cancelLayout();
    /// Folds a loop/if (@p nodeId) or a submodule (@p module) of the shown graph into one box, or unfolds it.
    void toggleFold(int nodeId, const QString& module);
    void unfoldAllModules();
    /// Whether showOverview() has folds to offer: the last ones the current function laid out with when they differ
    /// from the current ones (a layout that crashed after an unfold), else the overview's.
    bool canShowOverview() const;
    /// Folds the current function's submodules back to what last laid out, or to the overview of a big model.
    void showOverview();
    /// Submodules drawn as one box (sorted).
    QStringList foldedModules() const;
    /// A model grouped by module with more than @p bigBoxes boxes opens folded to at most @p overviewBoxes.
    void setOverviewLimits(int bigBoxes, int overviewBoxes) { m_overviewLimits = QPoint(bigBoxes, overviewBoxes); }
    /// Every model opens with all its modules unfolded, however big (`jitscope --unfold-all`).
    void setUnfoldAllOnOpen(bool unfold) { m_unfoldAllOnOpen = unfold; }
    bool unfoldsAllOnOpen() const { return m_unfoldAllOnOpen; }

    /// Libraries of custom operators each load goes with (the window's remembered ones and --load-ops). One that
    /// does not load is a warning of the model, and an error only when the archive needs what it defines.
    void setOperatorLibraries(const QStringList& libraries) { m_operatorLibraries = libraries; }
    QStringList operatorLibraries() const { return m_operatorLibraries; }

    void setFoldConstants(bool fold) { m_foldConstants = fold; }
    void setShowBlocks(bool show) { m_showBlocks = show; }
    void setGroupByModule(bool group) { m_groupByModule = group; }
    bool groupsByModule() const { return m_groupByModule; }
    /// The options the current function is laid out with (folds included).
    LayoutOptions layoutOptions() const;
    /// What a layout depends on besides the function, for caches: "|foldConstants showBlocks
    /// groupByModule|nodes|modules".
    QString layoutOptionsKey() const;
    /// The cached layout of @p function with the current options (empty when there is none).
    GraphLayout cachedLayout(const QString& function) const;

    /// Runs the model work (loading, inlining, suggestions, submodule types, layouts) in @p engine: the window's is
    /// its model worker (the model's ModelInfo::handle then stays empty). Default: ModelEngine::inProcess().
    void setEngine(ModelEngineRef engine) { m_engine = std::move(engine); }
    const ModelEngineRef& engine() const { return m_engine; }
    /// The loaded model as the engine holds it (null without a model).
    const EngineModelRef& engineModel() const { return m_engineModel; }

    bool hasModel() const { return m_hasModel; }
    const ModelInfo& model() const { return m_model; }
    const SourceMap& sourceMap() const { return m_sourceMap; }
    /// The line of the source panel that @p location refers to, or 0 when the panel does not show that file.
    int sourceLineFor(const SourceLocation& location) const { return m_sourceMap.lineFor(location); }
    QString currentFile() const { return m_currentFile; }
    QString currentFunction() const { return m_currentFunction; }
    /// The function whose graph is shown (set by the window once it shows a layout).
    QString shownFunction() const { return m_shownFunction; }
    void setShownFunction(const QString& name) { m_shownFunction = name; }
    /// Why the last open() failed (or named a function the file lacks); empty after a successful load.
    QString lastError() const { return m_lastError; }

    bool isIdle() const { return m_jobs->isIdle(); }
    JobTrackerBase* jobs() const { return m_jobs; }

    /// Says what the file name is for a .py file (TorchScript source) rather than an archive.
    static bool isSourceFile(const QString& path);

Q_SIGNALS:
    /// open() is about to load @p path: the window forgets the old file.
    void aboutToOpen(const QString& path);
    /// reload() is about to load the file again: the window notes what to restore.
    void aboutToReload();
    /// A file finished loading; model() is set when result.load.ok.
    void loaded(const DocumentJob& result);
    /// A layout job started for @p function.
    void layoutStarted(const QString& function);
    /// @p function is laid out (from a job or the cache); @p folds are the overview folds a big model opened with.
    void layoutReady(const QString& function, const GraphLayout& layout, qint64 elapsedMs, const QStringList& folds);
    /// The layout of @p function was canceled (cancelLayout()): nothing new to show.
    void layoutCanceled(const QString& function);
    /// The current function changed to @p function (already shown or being laid out).
    void currentFunctionChanged(const QString& function);
    /// The current function is another one than the one shown: what was shown of the old one is stale.
    void functionSwitched(const QString& function);
    /// The current function failed to compile: nothing to lay out.
    void compileErrorShown(const FunctionInfo& function);
    /// showFunction() was asked for a function the model lacks.
    void noSuchFunction(const QString& name);
    /// The open file was removed from disk (it may come back: editors save by delete and rename).
    void removedFromDisk(const QString& path);

private:
    void startJob(JobTracker<DocumentJob>::Work work);
    void onJobDone(DocumentJob& result);
    void watchFile(const QString& path);
    void onWatchedPathChanged(bool fileSignal);

    JobTracker<DocumentJob>* m_jobs = nullptr;
    QFileSystemWatcher* m_fileWatcher = nullptr;
    QTimer* m_reloadTimer = nullptr;
    QDateTime m_lastModified; ///< of the open file when it was loaded
    bool m_reloading = false;

    ModelEngineRef m_engine = ModelEngine::inProcess();
    EngineModelRef m_engineModel;
    ModelInfo m_model;
    SourceMap m_sourceMap;
    bool m_hasModel = false;
    QString m_currentFile;
    QString m_currentFunction;
    QString m_shownFunction;
    QString m_lastError;
    QHash<QString, GraphLayout> m_layoutCache; ///< per function and layout options, for the loaded model
    /// Module cluster layouts by structure (LayoutOptions::cache), shared by the layout jobs.
    std::shared_ptr<LayoutCache> m_clusterLayouts = std::make_shared<LayoutCache>();
    QSet<int> m_foldedNodes; ///< loops and ifs of the shown function drawn folded
    QSet<QString> m_foldedModules; ///< submodules drawn as one box (with Group by Module)
    std::optional<QSet<QString>> m_goodFolds; ///< the folds of the current function's last layout that worked
    QPoint m_overviewLimits { 800, 250 };
    bool m_unfoldAllOnOpen = false;
    QPoint overviewLimits() const
    {
        return m_unfoldAllOnOpen ? QPoint(std::numeric_limits<int>::max(), std::numeric_limits<int>::max())
                                 : m_overviewLimits;
    }
    bool m_foldConstants = LayoutOptions().foldConstants;
    bool m_showBlocks = LayoutOptions().showBlocks;
    QStringList m_operatorLibraries;
    bool m_groupByModule = false;
};

} // namespace jitscope
