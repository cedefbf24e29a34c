// Warm Python servers: `jitscope_bridge.py --serve` started with posix_spawn (any thread may start one and another
// use it: the model worker runs each request on a thread of its own, and QProcess belongs to the thread that made
// it), talked to over a socket that is its stdin and stdout, one JSON line a message (the protocol is in
// jitscope_bridge_serve.py). Each run is a fork of the server whose stdout and stderr are FIFOs in the run's folder,
// which this process reads as the cold path reads its child's pipes.

#include "bridge/warmpython.h"

#include "bridge/childwatch_p.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QStandardPaths>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <fcntl.h>
#include <memory>
#include <mutex>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace jitscope {

namespace {

constexpr int kAnswerMs = 5000; ///< an idle server answers a request with the run's pid at once
constexpr int kPreloadMs = 30000; ///< a server still importing what its last run imported
constexpr int kKilledMs = 2000; ///< a run killed (cancel, timeout) is reported ended by its server

/// A Python interpreter and bridge, and what makes a server of them stale: the files' times and sizes, and the
/// environment (which Python and torch read as they start).
QString serverKey(const QString& python, const QString& bridge)
{
    QCryptographicHash hash(QCryptographicHash::Sha1);
    QString executable = python;
    if (!python.contains(QLatin1Char('/')))
        executable = QStandardPaths::findExecutable(python);
    QFileInfoList files { QFileInfo(executable), QFileInfo(QFileInfo(executable).canonicalFilePath()) };
    const QFileInfo script(bridge);
    files += QDir(script.canonicalPath())
                 .entryInfoList({ QStringLiteral("jitscope_bridge*.py") }, QDir::Files, QDir::Name);
    files << script;
    for (const QFileInfo& f : std::as_const(files))
        hash.addData(QStringLiteral("%1 %2 %3\n")
                         .arg(f.absoluteFilePath())
                         .arg(f.lastModified().toMSecsSinceEpoch())
                         .arg(f.size())
                         .toUtf8());
    QStringList env = bridgeEnvironment().toStringList();
    env.sort();
    hash.addData(env.join(QLatin1Char('\n')).toUtf8());
    return QString::fromLatin1(hash.result().toHex());
}

/// One `jitscope_bridge.py --serve` process.
struct Server
{
    QString pair; ///< python and bridge
    QString key; ///< serverKey() as it started
    pid_t pid = -1;
    int fd = -1; ///< its stdin and stdout
    QByteArray buffer; ///< read, not yet a line
    bool idle = false; ///< it said it waits for a request
    std::shared_ptr<std::atomic<bool>> ended = std::make_shared<std::atomic<bool>>(false); ///< reaped
    QString retiredModule; ///< the module whose import retired it

    ~Server() { end(); }

    void end()
    {
        if (pid > 0 && !ended->load())
            ::kill(pid, SIGKILL);
        if (fd >= 0)
            ::close(fd);
        fd = -1;
    }

    bool send(const QJsonObject& message)
    {
        const QByteArray line = QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n';
        for (qsizetype done = 0; done < line.size();) {
            const ssize_t n = ::send(fd, line.constData() + done, size_t(line.size() - done), MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return false;
            done += n;
        }
        return true;
    }

    /// Reads what the socket has (it is readable): false when the server closed it (it ended).
    bool readSome()
    {
        char chunk[4096];
        for (;;) {
            const ssize_t n = ::recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
            if (n > 0) {
                buffer.append(chunk, n);
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
        }
    }

    /// What it said since it was last asked, without waiting: whether it is idle, or retired (then it is ended).
    void catchUp()
    {
        if (fd < 0)
            return;
        pollfd p { fd, POLLIN, 0 };
        if (::poll(&p, 1, 0) > 0 && !readSome())
            end();
        while (std::optional<QJsonObject> message = takeLine())
            take(*message);
    }

    /// Takes in a message said between runs: false when it retired (or said something else).
    bool take(const QJsonObject& message)
    {
        if (message.contains(QLatin1String("retire"))) {
            retiredModule = message.value(QLatin1String("module")).toString();
            end();
            return false;
        }
        idle = message.value(QLatin1String("idle")).toBool();
        return idle;
    }

    std::optional<QJsonObject> takeLine()
    {
        const qsizetype end = buffer.indexOf('\n');
        if (end < 0)
            return std::nullopt;
        const QJsonObject message = QJsonDocument::fromJson(buffer.left(end)).object();
        buffer.remove(0, end + 1);
        return message;
    }

    /// The next message within @p ms (or until @p stop says so); nothing when none came, and fd closed when the server
    /// ended.
    std::optional<QJsonObject> next(int ms, const std::function<bool()>& stop = {})
    {
        QElapsedTimer clock;
        clock.start();
        for (;;) {
            if (std::optional<QJsonObject> line = takeLine())
                return line;
            if (fd < 0 || clock.elapsed() >= ms || (stop && stop()))
                return std::nullopt;
            pollfd p { fd, POLLIN, 0 };
            const int left = int(std::min<qint64>(50, ms - clock.elapsed()));
            if (::poll(&p, 1, std::max(left, 0)) > 0 && !readSome())
                end();
        }
    }
};

std::unique_ptr<Server> startServer(
    const QString& python, const QString& bridge, const QString& pair, const QString& key)
{
    int sockets[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
        return nullptr;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, sockets[1], 0);
    posix_spawn_file_actions_adddup2(&actions, sockets[1], 1);
    // Its stderr says what it imported and why it stopped: nowhere, unless $JITSCOPE_PYTHON_SERVER_LOG names a file.
    static const QByteArray log = qgetenv("JITSCOPE_PYTHON_SERVER_LOG");
    posix_spawn_file_actions_addopen(
        &actions, 2, log.isEmpty() ? "/dev/null" : log.constData(), O_WRONLY | O_CREAT | O_APPEND, 0644);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    posix_spawn_file_actions_addclosefrom_np(&actions, 3); // nothing of this process's, whatever its flags
#endif
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    // Its own process group, every signal at its default and none blocked (this thread's mask is not Python's).
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);

    const QByteArray program = QFile::encodeName(python);
    const QByteArray script = QFile::encodeName(bridge);
    const QByteArray serve("--serve");
    char* argv[] = { const_cast<char*>(program.constData()), const_cast<char*>(script.constData()),
        const_cast<char*>(serve.constData()), nullptr };
    const QStringList envList = bridgeEnvironment().toStringList();
    std::vector<QByteArray> envBytes;
    envBytes.reserve(size_t(envList.size()));
    std::vector<char*> envp;
    for (const QString& e : envList) {
        envBytes.push_back(e.toLocal8Bit());
        envp.push_back(envBytes.back().data());
    }
    envp.push_back(nullptr);

    pid_t pid = -1;
    const int error = python.contains(QLatin1Char('/'))
        ? posix_spawn(&pid, program.constData(), &actions, &attributes, argv, envp.data())
        : posix_spawnp(&pid, program.constData(), &actions, &attributes, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(sockets[1]);
    if (error != 0) {
        ::close(sockets[0]);
        return nullptr;
    }
    auto server = std::make_unique<Server>();
    server->pair = pair;
    server->key = key;
    server->pid = pid;
    server->fd = sockets[0];
    // Reaped as it ends, whichever thread started it (no zombie left when it ends idle).
    std::thread([pid, ended = server->ended] {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) { }
        ended->store(true);
    }).detach();
    return server;
}

/// The idle servers, one per interpreter and bridge, and which of those are running a run.
struct Pool
{
    std::mutex mutex;
    std::vector<std::unique_ptr<Server>> idle;
    QSet<QString> busy; ///< pairs leased to a run
    QHash<QString, QStringList> skip; ///< per pair: the modules whose import retired a server

    void dropEnded()
    {
        for (const auto& s : idle)
            if (!s->retiredModule.isEmpty() && !skip[s->pair].contains(s->retiredModule))
                skip[s->pair] << s->retiredModule;
        idle.erase(
            std::remove_if(idle.begin(), idle.end(), [](const auto& s) { return s->ended->load() || s->fd < 0; }),
            idle.end());
    }
};

Pool& pool()
{
    static Pool* p = new Pool; // never destroyed: its servers end when this process's end of their socket closes
    return *p;
}

/// A FIFO in the run's folder that the run's child writes its stdout or stderr into, read here without blocking.
struct Fifo
{
    QByteArray path;
    int fd = -1;

    bool open(const QString& folder, const char* name)
    {
        path = QFile::encodeName(QDir(folder).filePath(QLatin1String(name)));
        if (::mkfifo(path.constData(), 0600) != 0)
            return false;
        fd = ::open(path.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        return fd >= 0;
    }

    /// Appends what is there; the fd is closed once every writer has closed it.
    void read(CappedOutput& out, bool hungUp)
    {
        char chunk[65536];
        while (fd >= 0) {
            const ssize_t n = ::read(fd, chunk, sizeof chunk);
            if (n > 0) {
                out.append(QByteArray(chunk, n));
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n == 0 && hungUp)
                close();
            return;
        }
    }

    void unlink()
    {
        if (!path.isEmpty())
            ::unlink(path.constData());
        path.clear();
    }

    void close()
    {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
    }

    ~Fifo()
    {
        close();
        unlink();
    }
};

enum class Attempt { Ran, ServerFailed };

/// The run in @p server: Ran with @p result, or ServerFailed before anything of the file ran (the server is ended).
Attempt runIn(Server& server, bool fresh, const QStringList& arguments, const QString& folder,
    const PythonOptions& options, const QStringList& skip, PythonChild& result)
{
    ChildWatch watch(options, folder);
    QString stop;
    const auto stopped = [&] {
        stop = watch.poll();
        return !stop.isEmpty();
    };
    // A fresh server imports torch first (the run's own cost, under its timeout and cancel); one that ran before may
    // still be importing what that run imported.
    while (!server.idle) {
        const std::optional<QJsonObject> message = server.next(fresh ? INT_MAX : kPreloadMs, stopped);
        if (!stop.isEmpty()) {
            result.stopped = stop; // nothing of the file ran; the server goes on starting for the next run
            return Attempt::Ran;
        }
        if (!message) {
            server.end();
            return Attempt::ServerFailed;
        }
        server.take(*message); // {"error": ...} is followed by its end
    }

    Fifo out, err;
    if (!out.open(folder, ".jitscope-stdout") || !err.open(folder, ".jitscope-stderr")) {
        server.end(); // keep nothing that might be half way through a request
        return Attempt::ServerFailed;
    }
    QJsonObject request { { QStringLiteral("argv"), QJsonArray::fromStringList(arguments) },
        { QStringLiteral("stdout"), QFile::decodeName(out.path) },
        { QStringLiteral("stderr"), QFile::decodeName(err.path) },
        { QStringLiteral("skip"), QJsonArray::fromStringList(skip) } };
    server.idle = false;
    if (!server.send(request)) {
        server.end();
        return Attempt::ServerFailed;
    }
    const std::optional<QJsonObject> started = server.next(kAnswerMs);
    const pid_t child = started ? pid_t(started->value(QLatin1String("started")).toInteger()) : 0;
    if (child <= 0) {
        server.end();
        return Attempt::ServerFailed;
    }
    out.unlink(); // both ends are open: nothing is left in the folder
    err.unlink();

    CappedOutput stdoutText(options.maxOutputBytes);
    CappedOutput stderrText(options.maxOutputBytes);
    std::optional<QJsonObject> ended;
    QElapsedTimer sinceKill;
    bool serverLost = false;
    while (!ended) {
        pollfd fds[3] = { { server.fd, POLLIN, 0 }, { out.fd, POLLIN, 0 }, { err.fd, POLLIN, 0 } };
        ::poll(fds, 3, 50);
        out.read(stdoutText, fds[1].revents & POLLHUP);
        err.read(stderrText, fds[2].revents & POLLHUP);
        if ((fds[0].revents & (POLLIN | POLLHUP)) && !server.readSome())
            server.end();
        while (std::optional<QJsonObject> message = server.takeLine()) {
            if (message->value(QLatin1String("ended")).toInteger() == child)
                ended = message;
            else if (ended)
                server.take(*message); // ready for the next run already (or retired)
        }
        if (ended)
            break;
        if (server.fd < 0) {
            serverLost = true; // killed under the run: its child died with it (PR_SET_PDEATHSIG)
            break;
        }
        if (result.stopped.isEmpty()) {
            result.stopped = watch.poll();
            if (!result.stopped.isEmpty()) {
                ::kill(-child, SIGKILL);
                sinceKill.start();
            }
        } else if (sinceKill.elapsed() > kKilledMs) {
            server.end();
            serverLost = true;
            break;
        }
    }
    ::kill(-child, SIGKILL); // what the file left behind
    out.read(stdoutText, false);
    err.read(stderrText, false);
    result.stdoutText = stdoutText.text();
    result.stderrText = stderrText.text();
    result.outputTruncated = stdoutText.truncated() || stderrText.truncated();
    result.warm = true;
    if (serverLost) {
        result.crashed = true;
        result.exitCode = SIGKILL;
    } else {
        const QJsonValue signal = ended->value(QLatin1String("signal"));
        result.crashed = !signal.isNull();
        result.exitCode = result.crashed ? signal.toInt() : ended->value(QLatin1String("exit")).toInt();
    }
    return Attempt::Ran;
}

} // namespace

std::optional<PythonChild> runWarmPython(const QString& python, const QString& bridge, const QStringList& arguments,
    const QString& folder, const PythonOptions& options)
{
    const QString pair = python + QLatin1Char('\n') + bridge;
    const QString key = serverKey(python, bridge);
    Pool& p = pool();
    std::unique_ptr<Server> server;
    QStringList skip;
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        if (p.busy.contains(pair))
            return std::nullopt; // a run in it already: this one runs cold
        p.dropEnded();
        for (auto it = p.idle.begin(); it != p.idle.end(); ++it) {
            if ((*it)->pair != pair)
                continue;
            if ((*it)->key == key)
                server = std::move(*it);
            p.idle.erase(it); // taken, or stale (ended as it goes)
            break;
        }
        p.busy.insert(pair);
        skip = p.skip.value(pair);
    }
    std::optional<PythonChild> result;
    for (int attempt = 0; attempt < 2 && !result; ++attempt) {
        const bool fresh = !server;
        if (fresh)
            server = startServer(python, bridge, pair, key);
        if (!server)
            break;
        PythonChild child;
        child.python = python;
        if (runIn(*server, fresh, arguments, folder, options, skip, child) == Attempt::Ran) {
            result = child;
            break;
        }
        if (!server->retiredModule.isEmpty() && !skip.contains(server->retiredModule))
            skip << server->retiredModule;
        server.reset();
        if (fresh)
            break; // a new server that cannot serve (no torch, no fork): cold, which says why
    }
    std::lock_guard<std::mutex> lock(p.mutex);
    p.busy.remove(pair);
    for (const QString& module : std::as_const(skip))
        if (!p.skip[pair].contains(module))
            p.skip[pair] << module;
    if (server && server->fd >= 0)
        p.idle.push_back(std::move(server));
    return result;
}

QVector<qint64> warmPythonServers()
{
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    for (const auto& s : p.idle)
        s->catchUp();
    p.dropEnded();
    QVector<qint64> pids;
    for (const auto& s : p.idle)
        if (s->idle && s->fd >= 0)
            pids << s->pid;
    return pids;
}

void endWarmPythonServers()
{
    Pool& p = pool();
    std::vector<std::unique_ptr<Server>> ending;
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        ending.swap(p.idle);
    }
    for (const auto& s : ending)
        s->end();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    for (const auto& s : ending)
        while (!s->ended->load() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

} // namespace jitscope
