#pragma once

// What runPythonChild() does while the bridge's child runs, whether it started cold (a process of its own) or warm (a
// fork of a warm server, warmpython.cpp): the environment it runs in, its output capped, its progress passed on, and
// when to stop it.

#include "report/pythonrun.h"

#include <QDir>
#include <QElapsedTimer>
#include <QProcessEnvironment>

#include <algorithm>

namespace jitscope {

/// The environment of the bridge's Python: the process's, and what the bridge needs of its interpreter.
inline QProcessEnvironment bridgeEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1")); // no __pycache__ left in their folder
    env.insert(QStringLiteral("PYTHONFAULTHANDLER"), QStringLiteral("1")); // a crash says where on stderr
    env.insert(QStringLiteral("PYTHONUNBUFFERED"), QStringLiteral("1"));
    return env;
}

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

/// Polled at least every 50 ms while the child runs: passes its progress on (progress.json, every 200 ms) and says
/// when it must stop.
class ChildWatch
{
public:
    ChildWatch(const PythonOptions& options, const QString& folder)
        : m_options(options)
        , m_folder(folder)
    {
        m_clock.start();
        m_progressClock.start();
    }

    /// "cancelled" or "timeout" when the child must be killed for that, else empty.
    QString poll()
    {
        if (m_options.onProgress && m_progressClock.elapsed() >= 200) {
            m_progressClock.restart();
            const PythonProgress progress = readPythonProgress(m_folder);
            if (progress.valid && progress.text() != m_lastProgress) {
                m_lastProgress = progress.text();
                m_options.onProgress(progress);
            }
        }
        if (m_options.cancel && m_options.cancel->load())
            return QStringLiteral("cancelled");
        if (m_options.timeoutMs > 0 && m_clock.elapsed() > m_options.timeoutMs)
            return QStringLiteral("timeout");
        return {};
    }

private:
    const PythonOptions& m_options;
    QString m_folder;
    QElapsedTimer m_clock;
    QElapsedTimer m_progressClock;
    QString m_lastProgress;
};

} // namespace jitscope
