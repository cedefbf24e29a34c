#include "workerchannel_p.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <csignal>
#include <unistd.h>

namespace jitscope {

using namespace protocol;

QString signalName(int signal)
{
    switch (signal) {
    case SIGSEGV:
        return QStringLiteral("SIGSEGV");
    case SIGABRT:
        return QStringLiteral("SIGABRT");
    case SIGFPE:
        return QStringLiteral("SIGFPE");
    case SIGKILL:
        return QStringLiteral("SIGKILL");
    case SIGBUS:
        return QStringLiteral("SIGBUS");
    case SIGTERM:
        return QStringLiteral("SIGTERM");
    default:
        return QStringLiteral("signal %1").arg(signal);
    }
}

Diagnostic stopDiagnostic(const QString& message, const QString& path)
{
    const QRegularExpression place(QRegularExpression::escape(path) + QStringLiteral(":(\\d+): "));
    const QRegularExpressionMatch m = place.match(message);
    if (!m.hasMatch())
        return { message, { path, 0, 0 } };
    QString text = message;
    text.remove(m.capturedStart(), m.capturedLength());
    return { text, { path, m.captured(1).toInt(), 0 } };
}

void WorkerIo::start()
{
    m_startError.clear();
    m_reader = FrameReader();
    m_beat = HeartbeatInfo();
    m_stderrTail.clear();
    m_stopReason.clear();
    m_greeted = false;
    m_loaded.clear();
    if (!m_watch) {
        m_watch = new QTimer(this);
        m_watch->setInterval(250);
        connect(m_watch, &QTimer::timeout, this, [this] { watch(); });
        m_watch->start();
    }
    if (QProcess* spare = std::exchange(m_spare, nullptr)) {
        m_channel->sparePid = 0;
        m_channel->spareReady = false;
        spare->disconnect(this);
        if (spare->state() == QProcess::Running) {
            m_process = spare;
            // The rest of what it said goes on from there (a frame may be half read).
            m_reader = std::exchange(m_spareReader, FrameReader());
        } else {
            spare->deleteLater();
        }
    }
    if (!m_process)
        m_process = launch();
    if (!m_process)
        return;
    connect(m_process, &QProcess::readyReadStandardOutput, this, [this] { onOutput(); });
    connect(m_process, &QProcess::readyReadStandardError, this, [this] { onErrorOutput(); });
    connect(m_process, &QProcess::finished, this,
        [this](int code, QProcess::ExitStatus status) { onFinished(code, status); });
    m_channel->pid = m_process->processId();
    m_sinceMessage.start();
    m_channel->lifecycle(false);
    // A spare taken over may have said hello already (the heartbeats since are of no interest).
    if (const std::optional<Message> hello = std::exchange(m_spareHello, std::nullopt))
        handle(*hello);
    onOutput();
}

QProcess* WorkerIo::launch()
{
    const QString program = WorkerClient::workerProgram();
    auto* process = new QProcess(this);
    process->setProcessEnvironment(QProcessEnvironment::systemEnvironment());
    process->start(program, {});
    if (!process->waitForStarted(kStartupMs)) {
        m_startError = QStringLiteral("cannot start the model worker %1: %2").arg(program, process->errorString());
        delete process;
        return nullptr;
    }
    return process;
}

void WorkerIo::startSpare()
{
    if (m_spare || !m_process || !m_greeted || m_channel->spareDelayMs.load() < 0)
        return;
    if (!m_pending.isEmpty() || !m_debug.isEmpty()) {
        // Not while the worker works: both would share the cores.
        QTimer::singleShot(500, this, [this] { startSpare(); });
        return;
    }
    m_spare = launch();
    if (!m_spare)
        return;
    m_channel->sparePid = m_spare->processId();
    m_spareReader = FrameReader();
    m_spareHello.reset();
    watchSpare(m_spare);
}

void WorkerIo::watchSpare(QProcess* spare)
{
    connect(spare, &QProcess::readyReadStandardOutput, this, [this, spare] {
        m_spareReader.append(spare->readAllStandardOutput());
        while (const auto m = m_spareReader.next())
            if (m->type == MessageType::Hello)
                m_spareHello = *m;
        m_channel->spareReady = m_spareHello.has_value();
    });
    connect(spare, &QProcess::readyReadStandardError, this, [spare] {
        const QByteArray bytes = spare->readAllStandardError();
        [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, bytes.constData(), size_t(bytes.size()));
    });
    connect(spare, &QProcess::finished, this, [this, spare] {
        // A spare that died (killed from outside) is not replaced until the next worker's hello.
        if (m_spare == spare) {
            m_spare = nullptr;
            m_channel->sparePid = 0;
            m_channel->spareReady = false;
        }
        spare->deleteLater();
    });
}

std::optional<DonatedSpare> WorkerIo::giveSpare(QThread* to)
{
    if (!m_spare || !m_spareHello || m_spare->state() != QProcess::Running)
        return std::nullopt;
    QProcess* spare = std::exchange(m_spare, nullptr);
    m_channel->sparePid = 0;
    m_channel->spareReady = false;
    spare->disconnect(this);
    spare->setParent(nullptr);
    spare->moveToThread(to);
    DonatedSpare given { spare, std::exchange(m_spareReader, FrameReader()),
        std::exchange(m_spareHello, std::nullopt) };
    // This window gets a new spare in its turn.
    if (const int delay = m_channel->spareDelayMs.load(); delay >= 0)
        QTimer::singleShot(delay, this, [this] { startSpare(); });
    return given;
}

bool WorkerIo::adoptSpare(DonatedSpare spare)
{
    if (m_process || m_spare || !spare.process) {
        if (spare.process) {
            spare.process->kill();
            spare.process->waitForFinished(2000);
            delete spare.process;
        }
        return false;
    }
    spare.process->setParent(this);
    m_spare = spare.process;
    m_spareReader = std::move(spare.reader);
    m_spareHello = std::move(spare.hello);
    m_channel->sparePid = m_spare->processId();
    watchSpare(m_spare);
    // Output that came while it moved.
    m_spareReader.append(m_spare->readAllStandardOutput());
    while (const auto m = m_spareReader.next())
        if (m->type == MessageType::Hello)
            m_spareHello = *m;
    m_channel->spareReady = m_spareHello.has_value();
    return true;
}

void WorkerIo::dropSpare()
{
    if (QProcess* spare = std::exchange(m_spare, nullptr)) {
        m_channel->sparePid = 0;
        m_channel->spareReady = false;
        spare->disconnect(this);
        spare->closeWriteChannel();
        spare->kill();
        spare->waitForFinished(2000);
        delete spare;
    }
}

void WorkerIo::write(const Message& m)
{
    if (m_process)
        m_process->write(encode(m));
}

void WorkerIo::submit(
    quint64 id, MessageType type, int model, const QByteArray& payload, const std::shared_ptr<PendingCall>& call)
{
    if (!m_process)
        start();
    if (!m_process) {
        call->finish(false, {}, m_startError);
        return;
    }
    if (type == MessageType::Load) {
        int loaded = -1;
        QString path;
        LoadOptions options;
        if (unpack(payload, loaded, path, options))
            m_known.insert(model, { path, options });
        m_loaded.insert(model);
    } else if (!ensureLoaded(model)) {
        call->finish(false, {}, QStringLiteral("the model worker holds no such model"));
        return;
    }
    if (m_pending.isEmpty())
        m_sinceMessage.restart();
    m_pending.insert(id, { call, type });
    write({ type, id, payload });
}

bool WorkerIo::ensureLoaded(int model)
{
    if (model < 0 || m_loaded.contains(model))
        return true;
    // A worker started after the one that loaded it: the model is loaded again first (its answer, to id 0, is not
    // waited for; requests for the model wait in the worker until it is loaded).
    const auto known = m_known.constFind(model);
    if (known == m_known.constEnd())
        return false;
    write({ MessageType::Load, 0, pack(model, known->first, known->second) });
    m_loaded.insert(model);
    return true;
}

void WorkerIo::openDebug(
    quint64 id, int model, const QByteArray& payload, std::function<void(const DebugPause&)> onPause)
{
    if (!m_process)
        start();
    if (!m_process || !ensureLoaded(model)) {
        DebugPause done;
        done.finished = true;
        done.result.error = done.trace.error
            = { m_process ? QStringLiteral("the model worker holds no such model") : m_startError, {} };
        onPause(done);
        return;
    }
    if (m_pending.isEmpty() && m_debug.isEmpty())
        m_sinceMessage.restart();
    m_debug.insert(id, std::move(onPause));
    write({ MessageType::DebugStart, id, payload });
}

void WorkerIo::closeDebug(quint64 id)
{
    if (m_debug.remove(id))
        write({ MessageType::DebugCommand, id, pack(qint32(DebugOp::End)) });
}

void WorkerIo::release(int model)
{
    m_known.remove(model);
    if (m_loaded.remove(model))
        write({ MessageType::Release, 0, pack(model) });
}

void WorkerIo::onOutput()
{
    m_reader.append(m_process->readAllStandardOutput());
    while (const auto m = m_reader.next())
        handle(*m);
    if (!m_reader.error().isEmpty())
        stop(QStringLiteral("the model worker sent %1").arg(m_reader.error()));
}

void WorkerIo::handle(const Message& m)
{
    m_sinceMessage.restart();
    switch (m.type) {
    case MessageType::Hello: {
        m_greeted = true;
        qint64 pid = 0;
        QString torch, graphviz;
        if (unpack(m.payload, pid, torch, graphviz))
            m_channel->setVersions(torch, graphviz);
        m_channel->lifecycle(true);
        if (const int delay = m_channel->spareDelayMs.load(); delay >= 0 && !m_spare)
            QTimer::singleShot(delay, this, [this] { startSpare(); });
        break;
    }
    case MessageType::Heartbeat:
        unpack(m.payload, m_beat);
        m_channel->setActivity(m_beat.activity);
        break;
    case MessageType::DebugPause: {
        DebugPause pause;
        const auto it = m_debug.constFind(m.id);
        if (it != m_debug.constEnd() && unpack(m.payload, pause))
            it.value()(pause);
        break;
    }
    case MessageType::Answer:
    case MessageType::Failure:
    case MessageType::UnknownModel: {
        const Pending p = m_pending.take(m.id);
        if (!p.call)
            break; // a load sent again after a restart, or an answer to a call that failed already
        if (m.type == MessageType::Answer) {
            p.call->finish(true, m.payload, {});
        } else if (m.type == MessageType::Failure) {
            QString message;
            unpack(m.payload, message);
            p.call->finish(false, {}, message);
        } else {
            p.call->finish(false, {}, QStringLiteral("the model worker holds no such model"));
        }
        break;
    }
    default:
        break;
    }
}

void WorkerIo::onErrorOutput()
{
    const QByteArray bytes = m_process->readAllStandardError();
    // What the model and libtorch print reaches the window's stderr, as it did when they ran in it.
    qsizetype written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(STDERR_FILENO, bytes.constData() + written, size_t(bytes.size() - written));
        if (n <= 0)
            break;
        written += n;
    }
    m_stderrTail.append(bytes);
    if (m_stderrTail.size() > 16384)
        m_stderrTail = m_stderrTail.right(8192);
}

void WorkerIo::watch()
{
    if (!m_process || (m_pending.isEmpty() && m_debug.isEmpty()) || !m_stopReason.isEmpty())
        return;
    const int limit = m_channel->stallMs.load();
    if (!m_greeted) {
        if (m_sinceMessage.elapsed() > kStartupMs)
            stop(QStringLiteral("the model worker did not start within %1 s").arg(kStartupMs / 1000));
        return;
    }
    const int operatorLimit = m_channel->operatorMs.load();
    const auto seconds = [](int ms) { return QString::number(ms / 1000.0, 'g', 3); };
    const QString where = m_beat.activity.isEmpty() ? QString() : QStringLiteral(": ") + m_beat.activity;
    if (m_sinceMessage.elapsed() > limit) {
        stop(QStringLiteral("the model worker stopped answering (not a word for %1 s)%2").arg(seconds(limit), where));
    } else if (m_beat.operatorMs > operatorLimit) {
        stop(QStringLiteral("the model worker stopped answering (one operator ran for more than %1 s)%2")
                 .arg(seconds(operatorLimit), where));
    }
}

void WorkerIo::stop(const QString& reason)
{
    if (!m_process || !m_stopReason.isEmpty())
        return;
    m_stopReason = reason;
    m_process->kill();
}

void WorkerIo::failAll(const QString& message)
{
    const auto pending = std::exchange(m_pending, {});
    for (const Pending& p : pending)
        p.call->finish(false, {}, message);
    // A debug session ends as a run that failed, saying why.
    const auto sessions = std::exchange(m_debug, {});
    for (const auto& onPause : sessions) {
        DebugPause done;
        done.serial = std::numeric_limits<int>::max();
        done.finished = true;
        done.result.error = done.trace.error = { message, {} };
        onPause(done);
    }
}

void WorkerIo::onFinished(int exitCode, QProcess::ExitStatus status)
{
    QString message = m_stopReason;
    if (message.isEmpty()) {
        // The crash handler's line: "jitscope-worker: error: FILE:LINE: crashed (SIGSEGV) while running OP (...)".
        static const QByteArray prefix = "jitscope-worker: error: ";
        const QList<QByteArray> lines = m_stderrTail.split('\n');
        for (auto it = lines.crbegin(); it != lines.crend() && message.isEmpty(); ++it) {
            if (it->startsWith(prefix))
                message = QStringLiteral("the model worker stopped: ") + QString::fromUtf8(it->mid(prefix.size()));
        }
    }
    const QString where = m_beat.activity.isEmpty() ? QString() : QStringLiteral(": ") + m_beat.activity;
    if (message.isEmpty() && status == QProcess::CrashExit) {
        message = exitCode == SIGKILL
            ? QStringLiteral("the model worker was killed (SIGKILL: out of memory, or ended by another program)%1")
                  .arg(where)
            : QStringLiteral("the model worker stopped (%1)%2").arg(signalName(exitCode), where);
    }
    if (message.isEmpty())
        message = QStringLiteral("the model worker exited with status %1%2").arg(exitCode).arg(where);
    const bool wasWorking = !m_pending.isEmpty() || !m_debug.isEmpty();
    const bool greeted = m_greeted;
    // Counted (and the activity forgotten) before the calls waiting learn of it: they may ask.
    if (greeted && !m_quiet)
        ++m_channel->restarts;
    m_channel->setActivity({});
    failAll(message);
    m_process->disconnect(this);
    m_process->deleteLater();
    m_process = nullptr;
    m_channel->pid = 0;
    m_channel->setActivity({});
    m_loaded.clear();
    if (m_quiet)
        return;
    if (wasWorking || status == QProcess::CrashExit)
        m_channel->notify(message);
    // A worker that died before its hello would die again: the next request tries.
    if (greeted)
        start();
}

void WorkerIo::restart()
{
    // A new worker with the environment as it is now: not the spare, started with an older one.
    dropSpare();
    if (m_process) {
        m_quiet = true;
        m_process->kill();
        m_process->waitForFinished(5000);
        if (m_process) // finished was not delivered (it is, synchronously, in waitForFinished)
            onFinished(0, QProcess::CrashExit);
        m_quiet = false;
        failAll(QStringLiteral("the model worker was restarted"));
    }
    start();
}

void WorkerIo::shutdown()
{
    dropSpare();
    m_quiet = true;
    failAll(QStringLiteral("the window is closing"));
    if (m_process) {
        m_process->disconnect(this);
        m_process->closeWriteChannel();
        m_process->kill();
        m_process->waitForFinished(2000);
        delete m_process;
        m_process = nullptr;
    }
    delete m_watch;
    m_watch = nullptr;
}

} // namespace jitscope
