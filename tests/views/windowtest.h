#pragma once

// Helpers shared by the tests that drive a whole MainWindow: examples, waiting for its background jobs, and its
// parts, found by their object names (MainWindow has no accessors for them).

#include "mainwindow.h"
#include "workerclient.h"

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

/// The window's child of type T named @p name (see MainWindow's object names); ends the test program when it has none.
template<typename T>
T* part(const QObject& window, const char* name)
{
    T* found = window.findChild<T*>(QString::fromLatin1(name));
    if (!found)
        qFatal("no %s named %s in %s", T::staticMetaObject.className(), name, window.metaObject()->className());
    return found;
}

// The controllers the window tests drive most.
inline DocumentController* documentController(const MainWindow& window)
{
    return part<DocumentController>(window, "documentController");
}
inline CheckController* checkController(const MainWindow& window)
{
    return part<CheckController>(window, "checkController");
}
inline DebugUiController* debugUi(const MainWindow& window)
{
    return part<DebugUiController>(window, "debugUiController");
}

/// The model worker, nullptr when the engine runs in this process.
inline WorkerClient* workerClient(const MainWindow& window)
{
    return window.findChild<WorkerClient*>(QStringLiteral("workerClient"));
}

/// Trace @p trace's tab (0-based), nullptr when the check shown has no such trace.
inline GraphPage* tracePage(const MainWindow& window, int trace)
{
    return part<CheckView>(window, "checkView")->tracePage(trace);
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
