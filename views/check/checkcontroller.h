#pragma once

#include "report/checkreport.h"
#include "jobtracker.h"
#include "report/graphlayout.h"

#include <QHash>
#include <QObject>

namespace jitscope {

class DocumentController;
class InputSetsModel;

/// Where the report shown comes from: a check of the document's function, or a trace call the file's Python run
/// recorded (its traces made by PyTorch, not by a check here).
struct CheckSource
{
    enum class Kind { Function, RecordedCall };
    Kind kind = Kind::Function;
    int call = -1; ///< RecordedCall: the call's index in the Python run (PythonRun::calls)

    static CheckSource recordedCall(int call) { return { Kind::RecordedCall, call }; }
    bool isRecordedCall() const { return kind == Kind::RecordedCall; }
    bool operator==(const CheckSource& o) const { return kind == o.kind && call == o.call; }
};

/// What a check job hands back to the GUI thread: the report and a layout per trace.
struct CheckJobResult
{
    QString function;
    QString setsKey;
    QString layoutKey;
    CheckSource source; ///< showReport()'s: a report made elsewhere (a recorded Python call), not a check
    CheckReport report;
    QVector<GraphLayout> layouts; ///< one per trace (empty for failed traces)
    GraphLayout scriptLayout; ///< external reports: their script graph's (the document has none of it)
    GraphLayout exportLayout; ///< the exported program's graph (CheckReport::exported.graph), grouped as the traces
    bool canceled = false;
    qint64 checkMs = 0;
    qint64 layoutMs = 0;
};

/// The check of the document's current function on the input sets: run off the GUI thread (traces, then a layout
/// per trace), cancelable, cached per function (a relayout reuses the traces), its result dropped when another
/// check or reset() overtook it. No widgets: the window shows what the signals hand over.
class CheckController : public QObject
{
    Q_OBJECT
public:
    CheckController(const DocumentController* document, const InputSetsModel* inputSets, QObject* parent = nullptr);

    /// Checks the current function on the input sets, reusing the cached result unless @p force. Says why not
    /// with cleared() when it cannot run (invalid or no input sets); does nothing until the function is shown.
    void run(bool force);
    /// Shows @p report, made elsewhere (the trace call @p source of the file's Python run), as a check's result: its
    /// traces laid out off the GUI thread, then finished() as for a check of the current function. source() says
    /// where it came from until the next check or reset().
    void showReport(const CheckReport& report, const CheckSource& source);
    /// Where the report shown comes from (a check of the document's function unless showReport() made it).
    const CheckSource& source() const { return m_source; }
    /// Stops the running check early; it finishes as canceled.
    void cancel();
    /// Forgets the report shown and drops any check running; cleared() tells the views what to show instead.
    void reset(const QString& title, const QString& text = QString(), bool isError = false);
    /// Forgets the cached results (another file).
    void clearCache() { m_cache.clear(); }
    /// torch.jit.trace's strict for the checks from now on (Check > Trace with strict=False): false lets a
    /// function return dicts and lists, as torchvision's segmentation and detection models do.
    void setStrict(bool strict) { m_strict = strict; }
    bool strict() const { return m_strict; }

    bool isChecking() const { return !m_jobs->isIdle(); }
    bool hasReport() const { return m_hasReport; }
    const CheckReport& report() const { return m_report; }
    const QVector<GraphLayout>& traceLayouts() const { return m_traceLayouts; }
    /// The layout of an external report's script graph (empty for a check of the document's function: the
    /// document lays that out).
    const GraphLayout& externalScriptLayout() const { return m_scriptLayout; }
    /// The layout of the exported program's graph (a recorded call exported with torch.export), else empty.
    const GraphLayout& exportLayout() const { return m_exportLayout; }
    JobTrackerBase* jobs() const { return m_jobs; }

    /// Per-check timeout of the function's runs.
    static constexpr int kTimeoutMs = 60 * 1000;

Q_SIGNALS:
    /// A check job started on @p sets input sets (@p relayoutOnly: the traces are reused, only laid out).
    void started(const QString& function, int sets, bool relayoutOnly);
    /// The running check's progress: 1 while tracing, 2.. laying out trace value - 1.
    void progress(int value, const QString& text);
    /// cancel() was asked for.
    void canceling();
    /// The check ended: report() holds its result unless it was canceled.
    void finished(const CheckJobResult& result);
    /// The report was forgotten (reset()): show @p title and @p text instead.
    void cleared(const QString& title, const QString& text, bool isError);
    /// A line for the status bar.
    void statusMessage(const QString& text);

private:
    void start(const QString& function, const QVector<InputSet>& sets, const QString& setsKey, const CheckReport* reuse,
        const CheckSource& source = {});
    void apply(const CheckJobResult& result);

    struct CacheEntry
    {
        QString setsKey;
        CheckReport report;
        QString layoutKey;
        QVector<GraphLayout> layouts;
    };
    const DocumentController* m_document = nullptr;
    const InputSetsModel* m_inputSets = nullptr;
    bool m_strict = true;
    JobTracker<CheckJobResult>* m_jobs = nullptr;
    CheckReport m_report;
    QVector<GraphLayout> m_traceLayouts;
    GraphLayout m_scriptLayout;
    GraphLayout m_exportLayout;
    bool m_hasReport = false;
    CheckSource m_source;
    QString m_externalFunction; ///< the document's function when showReport() was called
    QHash<QString, CacheEntry> m_cache; ///< by function, for the loaded model
};

} // namespace jitscope
