#include "progress.h"

#include <QByteArray>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <unistd.h>

namespace jitscope {

namespace {

std::atomic<bool> g_enabled { false };
std::atomic<bool> g_lines { false }; // stderr is no terminal: a line per text, no redraws

void writeAll(const QByteArray& data)
{
    const char* p = data.constData();
    qsizetype left = data.size();
    while (left > 0) {
        const ssize_t n = ::write(STDERR_FILENO, p, size_t(left));
        if (n <= 0)
            return; // a terminal that went away: progress is not worth an error
        p += n;
        left -= n;
    }
}

} // namespace

struct ProgressScope::Ticker
{
    std::mutex mutex;
    std::condition_variable wake;
    bool done = false;
    bool drawn = false;
    QString text;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    std::thread thread;

    void run()
    {
        static const char* const spinner[] = { "|", "/", "-", "\\" };
        int frame = 0;
        QString written;
        std::unique_lock<std::mutex> lock(mutex);
        while (!wake.wait_for(lock, std::chrono::milliseconds(drawn ? 100 : 250), [this] { return done; })) {
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (g_lines) {
                if (text != written)
                    writeAll(QStringLiteral("jitscope-cli: %1 (%2 s)\n").arg(text).arg(seconds, 0, 'f', 1).toUtf8());
                written = text;
                drawn = true;
                continue;
            }
            // \r and "erase line": the next redraw (or the clear at the end) replaces it.
            writeAll(QStringLiteral("\r\x1b[Kjitscope-cli: %1 %2 (%3 s)")
                         .arg(QLatin1String(spinner[frame++ % 4]), text)
                         .arg(seconds, 0, 'f', 1)
                         .toUtf8());
            drawn = true;
        }
        if (drawn && !g_lines)
            writeAll(QByteArrayLiteral("\r\x1b[K"));
    }
};

void ProgressScope::enable(bool on)
{
    g_enabled = on;
}

bool ProgressScope::enabled()
{
    return g_enabled;
}

bool ProgressScope::wanted(bool quiet, bool forced)
{
    g_lines = ::isatty(STDERR_FILENO) != 1;
    return !quiet && (forced || !g_lines);
}

ProgressScope::ProgressScope(const QString& text)
{
    if (!g_enabled)
        return;
    m_ticker = std::make_unique<Ticker>();
    m_ticker->text = text;
    m_ticker->thread = std::thread([t = m_ticker.get()] { t->run(); });
}

ProgressScope::~ProgressScope()
{
    if (!m_ticker)
        return;
    {
        std::lock_guard<std::mutex> lock(m_ticker->mutex);
        m_ticker->done = true;
    }
    m_ticker->wake.notify_all();
    m_ticker->thread.join();
}

void ProgressScope::step(const QString& text, int done, int total)
{
    if (!m_ticker)
        return;
    std::lock_guard<std::mutex> lock(m_ticker->mutex);
    m_ticker->text = QStringLiteral("%1 %2/%3").arg(text).arg(done).arg(total);
}

void ProgressScope::setText(const QString& text)
{
    if (!m_ticker)
        return;
    std::lock_guard<std::mutex> lock(m_ticker->mutex);
    m_ticker->text = text;
}

} // namespace jitscope
