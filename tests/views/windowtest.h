#pragma once

// Helpers shared by the tests that drive a whole MainWindow: examples, and waiting for its background jobs.

#include "mainwindow.h"

#include <QSignalSpy>
#include <QString>
#include <QTest>

namespace jitscope::test {

/// Loading, layout and checking run on worker threads; resnet-sized models take a while on a loaded CI machine.
constexpr int kJobTimeoutMs = 180 * 1000;

/// A file of the bundled examples/ folder.
inline QString example(const char* name)
{
    return QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/") + QLatin1String(name);
}

/// Waits until the window has no pending job; false on timeout.
inline bool waitIdle(MainWindow& window)
{
    if (window.isIdle())
        return true;
    QSignalSpy spy(&window, &MainWindow::idle);
    return spy.wait(kJobTimeoutMs) && window.isIdle();
}

/// Opens @p path in a shown window and waits for the load, layout and check jobs.
inline bool openAndWait(MainWindow& window, const QString& path)
{
    window.resize(1400, 900);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return false;
    window.openFile(path);
    return waitIdle(window) && window.hasModel();
}

} // namespace jitscope::test
