#include "pythoncontroller.h"

#include <QElapsedTimer>
#include <QFile>

#include <algorithm>

namespace jitscope {

QString PythonJobResult::verdict(int call) const
{
    if (call < 0 || call >= run.calls.size())
        return {};
    const PythonCall& c = run.calls[call];
    if (c.api == QLatin1String("script"))
        return c.ok ? QStringLiteral("scripted") : QStringLiteral("failed");
    if (call >= reports.size() || !reports[call].ok)
        return QStringLiteral("failed");
    return reports[call].verdict();
}

int PythonJobResult::firstCallToShow() const
{
    int first = -1;
    for (int k = 0; k < run.calls.size(); ++k) {
        if (run.calls[k].api == QLatin1String("script") || k >= reports.size() || reports[k].traces.isEmpty())
            continue;
        if (first < 0)
            first = k;
        if (verdict(k) == QLatin1String("diverged"))
            return k;
    }
    return first;
}

QVector<int> SelfCheckJobResult::defects() const
{
    QVector<int> out;
    for (int k = 0; k < checks.size(); ++k)
        if (checks[k].status == QLatin1String("defect"))
            out << calls[k];
    return out;
}

int SelfCheckJobResult::agreeing() const
{
    return int(std::count_if(
        checks.cbegin(), checks.cend(), [](const SelfCheck& c) { return c.status == QLatin1String("agrees"); }));
}

PythonController::PythonController(QObject* parent)
    : QObject(parent)
    , m_jobs(new JobTracker<PythonJobResult>(this))
    , m_selfChecks(new JobTracker<SelfCheckJobResult>(this))
{ }

void PythonController::run(const QString& path)
{
    m_path = path;
    PythonOptions options = m_options;
    // Run Again costs the file's own work: the engine keeps the interpreter warm, torch and the file's imports done.
    options.warm = true;
    auto work = [path, options, engine = m_engine](JobControl& control) mutable {
        PythonJobResult r;
        r.path = path;
        QElapsedTimer timer;
        timer.start();
        options.cancel = control.cancelFlag();
        // In the engine (the model worker): the window starts no process of the user's and reads only the record.
        r.run = engine ? engine->runPython(path, options) : PythonRun();
        if (!engine) {
            r.run.status = QStringLiteral("error");
            r.run.error = { QStringLiteral("no engine to run the file with"), { path, 0, 0 } };
        }
        QFile file(path);
        if (file.open(QIODevice::ReadOnly))
            r.source = QString::fromUtf8(file.readAll());
        // Diffed, explained and grouped by the engine (the model worker), from the run's record: the window reads.
        if (engine && !r.run.calls.isEmpty() && !r.run.folder.isEmpty())
            r.reports = engine->checkRecordedCalls(r.run.folder, r.source);
        if (r.reports.size() != r.run.calls.size()) {
            // The engine stopped or could not read the record: every call says why.
            CheckReport failed;
            failed.error.message = r.reports.isEmpty() ? QStringLiteral("the recorded calls were not checked")
                                                       : r.reports.first().error.message;
            r.reports = QVector<CheckReport>(r.run.calls.size(), failed);
        }
        r.elapsedMs = timer.elapsed();
        r.canceled = control.canceled() || r.run.status == QLatin1String("cancelled");
        return r;
    };
    m_jobs->start(std::move(work), [this](PythonJobResult& r) {
        if (!r.canceled) {
            m_result = r;
            m_hasResult = true;
        }
        Q_EMIT finished(r);
        if (!r.canceled && m_selfCheckEnabled)
            startSelfCheck(r);
    });
    Q_EMIT started(path, interpreter());
}

void PythonController::startSelfCheck(const PythonJobResult& run)
{
    QVector<PythonCall> calls;
    for (const PythonCall& c : run.run.calls)
        if (c.api != QLatin1String("script") && c.targetKind == QLatin1String("function") && !c.traces.isEmpty())
            calls << c;
    if (calls.isEmpty())
        return;
    PythonOptions options = m_options;
    QVector<int> indexes;
    for (const PythonCall& c : calls)
        indexes << c.index;
    // In the engine (the model worker): JitScope's own traces need libtorch, which the window does not load.
    auto work = [path = run.path, folder = run.run.folder, keep = run.run.folderHandle, indexes, options,
                    engine = m_engine](JobControl& control) mutable {
        SelfCheckJobResult r;
        r.path = path;
        options.cancel = control.cancelFlag();
        if (engine) {
            r.checks = engine->selfCheck(path, options, folder, indexes);
            r.calls = indexes.mid(0, r.checks.size());
        }
        r.canceled = control.canceled();
        return r;
    };
    m_selfChecks->start(std::move(work), [this](SelfCheckJobResult& r) {
        if (r.canceled)
            return;
        m_selfCheck = r;
        m_hasSelfCheck = true;
        Q_EMIT selfCheckFinished(r);
    });
}

void PythonController::cancel()
{
    m_jobs->cancel();
    m_selfChecks->cancel();
}

void PythonController::clear()
{
    m_jobs->invalidate();
    m_selfChecks->invalidate();
    m_result = PythonJobResult();
    m_hasResult = false;
    m_selfCheck = SelfCheckJobResult();
    m_hasSelfCheck = false;
    m_path.clear();
    Q_EMIT cleared();
}

} // namespace jitscope
