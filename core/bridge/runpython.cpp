// Runs a user's .py file under the system's PyTorch: the bridge script in a child process of its own, which writes
// its record into a folder that readPythonRun() (core/report) reads.

#include "bridge/runpython.h"

#include "bridge/childwatch_p.h"
#include "bridge/warmpython.h"

#include <QDir>
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

    QStringList arguments { info.absoluteFilePath(), QStringLiteral("--out"), folder };
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
    if (options.warm) {
        // Run Again: a fork of a server that has imported torch and what the file's last run imported, when one can
        // take it (warmpython.h); else cold, as if never asked.
        if (std::optional<PythonChild> warm = runWarmPython(python, bridge, arguments, folder, options)) {
            warm->timeoutMs = options.timeoutMs;
            return *warm;
        }
    }

    QProcess child;
    child.setProcessEnvironment(bridgeEnvironment());
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
    child.start(python, QStringList { bridge } + arguments);
    if (!child.waitForStarted(10000)) {
        result.startError = QStringLiteral("cannot start %1: %2 (choose another with --python=PATH or JITSCOPE_PYTHON)")
                                .arg(python, child.errorString());
        return result;
    }

    CappedOutput out(options.maxOutputBytes);
    CappedOutput err(options.maxOutputBytes);
    ChildWatch watch(options, folder);
    const qint64 pid = child.processId();
    while (!child.waitForFinished(50)) {
        out.append(child.readAllStandardOutput());
        err.append(child.readAllStandardError());
        result.stopped = watch.poll();
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
