// Runs a user's .py file under the system's PyTorch: the bridge script in a child process of its own, which writes
// its record into a folder that readPythonRun() (core/report) reads.

#include "bridge/runpython.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace jitscope {

namespace {

/// Keeps the first and the last @p limit / 2 bytes of a stream, and how much was dropped between them.
class CappedOutput
{
public:
    explicit CappedOutput(qint64 limit)
        : m_half(std::max<qint64>(limit / 2, 1))
    { }

    void append(const QByteArray& data)
    {
        m_total += data.size();
        const qint64 room = m_half - m_head.size();
        if (room > 0)
            m_head += data.left(room);
        if (data.size() > room) {
            m_tail += data.mid(std::max<qint64>(room, 0));
            if (m_tail.size() > m_half)
                m_tail = m_tail.right(m_half);
        }
    }

    bool truncated() const { return m_total > m_head.size() + m_tail.size(); }

    QString text() const
    {
        if (!truncated())
            return QString::fromUtf8(m_head + m_tail);
        return QString::fromUtf8(m_head)
            + QStringLiteral("\n[... %1 bytes left out ...]\n").arg(m_total - m_head.size() - m_tail.size())
            + QString::fromUtf8(m_tail);
    }

private:
    qint64 m_half;
    qint64 m_total = 0;
    QByteArray m_head;
    QByteArray m_tail;
};

/// An input value as the bridge's make_value() reads it.
QJsonObject valueJson(const InputValue& v)
{
    QJsonObject o { { QStringLiteral("kind"), toText(v.kind) } };
    switch (v.kind) {
    case InputValue::Kind::Tensor: {
        QJsonArray shape, values;
        for (qint64 d : v.shape)
            shape.append(d);
        for (double x : v.values)
            values.append(x);
        o.insert(QStringLiteral("dtype"), v.dtype);
        o.insert(QStringLiteral("shape"), shape);
        o.insert(QStringLiteral("fill"), toText(v.fill));
        o.insert(QStringLiteral("fill_value"), v.fillValue);
        o.insert(QStringLiteral("values"), values);
        break;
    }
    case InputValue::Kind::Int:
        o.insert(QStringLiteral("value"), v.intValue);
        break;
    case InputValue::Kind::Float:
        o.insert(QStringLiteral("value"), v.floatValue);
        break;
    case InputValue::Kind::Bool:
        o.insert(QStringLiteral("value"), v.boolValue);
        break;
    case InputValue::Kind::None:
        break;
    default: {
        QJsonArray items;
        for (const InputValue& i : v.items)
            items.append(valueJson(i));
        o.insert(QStringLiteral("items"), items);
        if (v.kind == InputValue::Kind::Dict)
            o.insert(QStringLiteral("keys"), QJsonArray::fromStringList(v.keys));
        break;
    }
    }
    return o;
}

QByteArray requestJson(const PythonRequest& r)
{
    static const char* const modes[] = { "", "trace", "check", "run" };
    QJsonArray sets;
    for (const InputSet& set : r.sets) {
        QJsonArray args;
        for (const InputValue& v : set.args)
            args.append(valueJson(v));
        sets.append(args);
    }
    return QJsonDocument(QJsonObject { { QStringLiteral("mode"), QLatin1String(modes[int(r.mode)]) },
                             { QStringLiteral("target"), r.target }, { QStringLiteral("sets"), sets },
                             { QStringLiteral("seed"), double(r.seed) }, { QStringLiteral("strict"), r.strict } })
        .toJson();
}

} // namespace

PythonChild runPythonChild(const QString& path, const PythonOptions& options, const QString& folder)
{
    PythonChild result;
    result.timeoutMs = options.timeoutMs;
    const QFileInfo info(path);
    if (!info.isFile()) {
        result.startError = QStringLiteral("not a regular file");
        return result;
    }
    const QString python = pythonInterpreter(options);
    const QString bridge = bridgeScript(options);
    result.python = python;
    if (!QFileInfo(bridge).isFile()) {
        result.startError = QStringLiteral("JitScope's Python bridge is missing: %1").arg(bridge);
        return result;
    }

    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1")); // no __pycache__ left in their folder
    env.insert(QStringLiteral("PYTHONFAULTHANDLER"), QStringLiteral("1")); // a crash says where on stderr
    env.insert(QStringLiteral("PYTHONUNBUFFERED"), QStringLiteral("1"));
    child.setProcessEnvironment(env);
    child.setWorkingDirectory(info.absolutePath());
    // Its own process group, so that what the file starts (subprocesses, DataLoader workers) dies with it; and killed
    // when the thread that waits for it dies (the model worker killed as its window closes), never left running.
    const pid_t waiter = ::getpid();
    child.setChildProcessModifier([waiter] {
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != waiter)
            ::_exit(1); // the waiter died before prctl()
    });
    QStringList arguments { bridge, info.absoluteFilePath(), QStringLiteral("--out"), folder };
    if (options.returnedValues || options.request.mode == PythonRequest::Mode::Trace)
        arguments << QStringLiteral("--returned");
    if (!options.definitions)
        arguments << QStringLiteral("--no-definitions");
    if (!options.archives)
        arguments << QStringLiteral("--no-archives");
    if (options.exportCalls)
        arguments << QStringLiteral("--export");
    if (options.request.mode != PythonRequest::Mode::None) {
        // Beside the record, so that it goes with the folder.
        QFile request(QDir(folder).filePath(QStringLiteral("request.json")));
        if (!request.open(QIODevice::WriteOnly) || request.write(requestJson(options.request)) < 0) {
            result.startError = QStringLiteral("cannot write %1: %2").arg(request.fileName(), request.errorString());
            return result;
        }
        arguments << QStringLiteral("--request") << request.fileName();
    }
    child.start(python, arguments);
    if (!child.waitForStarted(10000)) {
        result.startError = QStringLiteral("cannot start %1: %2 (choose another with --python=PATH or JITSCOPE_PYTHON)")
                                .arg(python, child.errorString());
        return result;
    }

    CappedOutput out(options.maxOutputBytes);
    CappedOutput err(options.maxOutputBytes);
    QElapsedTimer clock;
    clock.start();
    const qint64 pid = child.processId();
    QString lastProgress;
    for (int polls = 1; !child.waitForFinished(50); ++polls) {
        out.append(child.readAllStandardOutput());
        err.append(child.readAllStandardError());
        if (options.onProgress && polls % 4 == 0) {
            const PythonProgress progress = readPythonProgress(folder);
            if (progress.valid && progress.text() != lastProgress) {
                lastProgress = progress.text();
                options.onProgress(progress);
            }
        }
        if (options.cancel && options.cancel->load())
            result.stopped = QStringLiteral("cancelled");
        else if (options.timeoutMs > 0 && clock.elapsed() > options.timeoutMs)
            result.stopped = QStringLiteral("timeout");
        if (!result.stopped.isEmpty()) {
            ::kill(-pid, SIGKILL);
            child.kill();
            child.waitForFinished(2000);
            break;
        }
    }
    if (child.state() == QProcess::NotRunning && pid > 0)
        ::kill(-pid, SIGKILL); // children the file left behind
    out.append(child.readAllStandardOutput());
    err.append(child.readAllStandardError());
    result.stdoutText = out.text();
    result.stderrText = err.text();
    result.outputTruncated = out.truncated() || err.truncated();
    result.crashed = child.exitStatus() == QProcess::CrashExit;
    result.exitCode = child.exitCode();
    return result;
}

PythonRun runPythonFile(const QString& path, const PythonOptions& options)
{
    QString folder;
    PythonChild child;
    auto handle = makePythonRunFolder(&folder, &child.startError);
    if (handle)
        child = runPythonChild(path, options, folder);
    return readPythonRun(path, child, std::move(handle), folder);
}

} // namespace jitscope
