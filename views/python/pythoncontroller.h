#pragma once

#include "report/pythonrun.h"
#include "report/selfcheck.h"
#include "report/checkreport.h"
#include "jobtracker.h"
#include "modelengine.h"

#include <QObject>
#include <QVector>

namespace jitscope {

/// What a Python run hands back to the GUI thread: what the file did under PyTorch, and each recorded trace call
/// checked (its traces diffed and explained, and as a CheckReport the check views show).
struct PythonJobResult
{
    QString path;
    QString source; ///< the file's text when it ran
    PythonRun run;
    QVector<CheckReport> reports; ///< one per call; ok only for trace calls that recorded traces
    qint64 elapsedMs = 0;
    bool canceled = false;

    /// "diverged", "consistent", "failed" or "scripted": what the call came to.
    QString verdict(int call) const;
    /// The recorded trace call to show first: the first that diverged, else the first trace call; -1 if none.
    int firstCallToShow() const;
};

/// The self-checks of a run: for each recorded trace call of a function JitScope's front end compiles, its own
/// trace against PyTorch's on the same sets.
struct SelfCheckJobResult
{
    QString path;
    QVector<int> calls; ///< PythonRun::calls indexes
    QVector<SelfCheck> checks; ///< one per entry of calls
    bool canceled = false;

    /// The calls whose self-check found a JitScope defect.
    QVector<int> defects() const;
    int agreeing() const;
};

/// Runs a .py file under the system's PyTorch (the bridge, in a child process: never in the GUI process) off the
/// GUI thread, cancelable within 50 ms, and keeps what it recorded for the open file. No widgets, no consent
/// logic: call run() only once the user consented.
class PythonController : public QObject
{
    Q_OBJECT
public:
    explicit PythonController(QObject* parent = nullptr);
    /// Where the self-check of a run traces (JitScope's executor needs libtorch): the window's model worker; the
    /// in-process engine where one is linked (tests).
    void setEngine(ModelEngineRef engine) { m_engine = std::move(engine); }

    /// The interpreter and bridge to use (PythonOptions::python / bridge; empty: the defaults).
    void setOptions(const PythonOptions& options) { m_options = options; }
    const PythonOptions& options() const { return m_options; }
    QString interpreter() const { return pythonInterpreter(m_options); }

    /// Runs @p path; an earlier run still going is canceled and its result dropped.
    void run(const QString& path);
    /// Kills the running child; finished() follows with canceled set.
    void cancel();
    /// Forgets the run (another file was opened) and drops any run still going.
    void clear();

    bool isRunning() const { return !m_jobs->isIdle(); }
    /// After a run, the self-check of its calls (see SelfCheckJobResult) runs on its own, Python again.
    bool isSelfChecking() const { return !m_selfChecks->isIdle(); }
    bool hasSelfCheck() const { return m_hasSelfCheck; }
    const SelfCheckJobResult& selfCheck() const { return m_selfCheck; }
    /// Off: no self-check after a run (tests of the run alone).
    void setSelfCheckEnabled(bool enabled) { m_selfCheckEnabled = enabled; }
    bool hasResult() const { return m_hasResult; }
    const PythonJobResult& result() const { return m_result; }
    /// The file the last run() was for.
    QString path() const { return m_path; }
    JobTrackerBase* jobs() const { return m_jobs; }
    JobTrackerBase* selfCheckJobs() const { return m_selfChecks; }

Q_SIGNALS:
    void started(const QString& path, const QString& interpreter);
    /// The run ended (result() holds it unless it was canceled).
    void finished(const PythonJobResult& result);
    void cleared();
    void selfCheckFinished(const SelfCheckJobResult& result);

private:
    void startSelfCheck(const PythonJobResult& run);

    PythonOptions m_options;
    ModelEngineRef m_engine = ModelEngine::inProcess();
    JobTracker<PythonJobResult>* m_jobs = nullptr;
    PythonJobResult m_result;
    bool m_hasResult = false;
    QString m_path;
    JobTracker<SelfCheckJobResult>* m_selfChecks = nullptr;
    SelfCheckJobResult m_selfCheck;
    bool m_hasSelfCheck = false;
    bool m_selfCheckEnabled = true;
};

} // namespace jitscope
