// How responsive the window is, as figures beside their targets (the timed assertions the GUI tests used to make):
// the longest stall of the GUI thread while a file opens and is checked (target <= 50 ms: a 5 ms timer keeps
// ticking), and how long Debug > Stop takes to end a session spinning in `while True:` (target < 200 ms).
//
//   bench_gui [FILE ...]    files to open (default: examples/loop_in_traced_fn.py and a generated 1002-box function)
//
// Prints one line per figure: "<what>  <ms> ms  (target <= 50 ms)  ok|OVER". Exits 0 either way: a benchmark
// reports, the tests assert what the window does.
#include "graphscene.h"
#include "mainwindow.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <cstdio>
#include <functional>

using namespace jitscope;

namespace {

/// Longest time between two ticks of a 5 ms timer while `until` is false.
qint64 longestStall(const std::function<bool()>& until, int timeoutMs)
{
    QElapsedTimer clock, total;
    clock.start();
    total.start();
    qint64 longest = 0;
    QTimer tick;
    QObject::connect(&tick, &QTimer::timeout, [&] { longest = std::max(longest, clock.restart()); });
    tick.start(5);
    while (!until() && total.elapsed() < timeoutMs)
        QTest::qWait(5);
    tick.stop();
    return longest;
}

void report(const QString& what, qint64 ms, const char* target, bool ok)
{
    std::printf(
        "%-60s %6lld ms  (target %s)  %s\n", qPrintable(what), static_cast<long long>(ms), target, ok ? "ok" : "OVER");
    std::fflush(stdout);
}

void openAndCheck(const QString& path)
{
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        std::fprintf(stderr, "window not exposed\n");
    QTest::qWait(50);
    window.openFile(path);
    const qint64 stall = longestStall([&] { return window.isIdle() && window.hasModel(); }, 300000);
    report(QStringLiteral("open and check %1 (%2 boxes): longest stall")
               .arg(QFileInfo(path).fileName())
               .arg(window.scriptScene()->nodeCount()),
        stall, "<= 50 ms", stall <= 50);
}

void stopEndlessLoop()
{
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        std::fprintf(stderr, "window not exposed\n");
    QSignalSpy loaded(&window, &MainWindow::fileLoaded);
    window.openFile(QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/bad/infinite_loop.py"), QStringLiteral("spin"));
    if (!loaded.wait(120000))
        return;
    QSignalSpy finished(&window, &MainWindow::debugFinished);
    window.debugCommand(DebugCommand::Continue);
    QTest::qWait(300); // spinning
    QElapsedTimer clock;
    clock.start();
    window.stopDebugging();
    if (finished.count() == 0)
        finished.wait(30000);
    const qint64 ms = clock.elapsed();
    report(QStringLiteral("Debug > Stop ends a `while True:` session"), ms, "< 200 ms", ms < 200);
}

} // namespace

int main(int argc, char** argv)
{
    qputenv(
        "QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    QStringList files = app.arguments().mid(1);
    QTemporaryDir dir;
    if (files.isEmpty()) {
        files << QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
        const QString path = dir.filePath(QStringLiteral("long.py"));
        QFile file(path);
        if (file.open(QIODevice::WriteOnly | QIODevice::Text)) {
            QByteArray text = "import torch\n\ndef long_chain(x):\n";
            for (int i = 0; i < 500; ++i)
                text += "    x = torch.relu(x * 2)\n";
            file.write(text + "    return x\n");
            file.close();
            files << path;
        }
    }
    for (const QString& path : std::as_const(files))
        openAndCheck(path);
    stopEndlessLoop();
    return 0;
}
