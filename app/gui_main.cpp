// The JitScope GUI: jitscope [FILE] [--fn NAME] [--view script|trace|compare|live|export|compare-export]
// [--python[=PATH]] [--unfold-all]
//                   [--no-strict] [--screenshot OUT.png] [--theme light|dark]
//                   [--debug-steps N [--debug-trace] [--break LINE ...]]

#include "mainwindow.h"

#include "debugcontroller.h"
#include "graphscene.h"
#include "graphview.h"
#include "pythoncontroller.h"
#include "workerclient.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QImage>
#include <QSaveFile>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <optional>
#include <unistd.h>

#ifndef JITSCOPE_VERSION
#define JITSCOPE_VERSION "dev"
#endif

namespace {

/// JITSCOPE_TIMELINE: the start-up's events on stderr, in ms since the process started (before the dynamic loader:
/// /proc/self/stat's start time), for tests/app/tst_gui and bench/bench_open.
bool g_timeline = false;

long long msSinceProcessStart()
{
    static const long long startMs = [] {
        FILE* stat = std::fopen("/proc/self/stat", "r");
        unsigned long long ticks = 0;
        if (stat) {
            // Field 22 (starttime, clock ticks after boot); the command name (field 2) may hold spaces: skip past ')'.
            int c;
            while ((c = std::fgetc(stat)) != EOF && c != ')') { }
            for (int field = 2; field < 22 && c != EOF;)
                field += (c = std::fgetc(stat)) == ' ';
            if (std::fscanf(stat, "%llu", &ticks) != 1)
                ticks = 0;
            std::fclose(stat);
        }
        return (long long)(ticks * 1000 / (unsigned long long)sysconf(_SC_CLK_TCK));
    }();
    timespec now {};
    clock_gettime(CLOCK_BOOTTIME, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000 - startMs;
}

void mark(const char* event)
{
    if (g_timeline)
        std::fprintf(stderr, "jitscope: timeline: %lld ms: %s\n", msSinceProcessStart(), event);
}

/// Marks the window's first paint, and the first paint of the script graph once it shows one.
class PaintTimeline : public QObject
{
public:
    explicit PaintTimeline(jitscope::MainWindow* window)
        : m_window(window)
    {
        QObject::connect(window->scriptScene(), &jitscope::GraphScene::contentsReplaced, this,
            [this] { m_graphArmed = m_window->scriptScene()->messageTitle().isEmpty(); });
        qApp->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject* object, QEvent* event) override
    {
        if (event->type() != QEvent::Paint || !object->isWidgetType())
            return false;
        if (!m_painted && static_cast<QWidget*>(object)->window() == m_window) {
            m_painted = true;
            mark("first paint");
        }
        if (m_graphArmed && object == m_window->scriptView()->viewport()) {
            m_graphArmed = false;
            mark("graph shown");
        }
        return false;
    }

private:
    jitscope::MainWindow* m_window;
    bool m_painted = false;
    bool m_graphArmed = false;
};

std::optional<jitscope::MainWindow::View> parseView(const QString& name)
{
    if (name == QLatin1String("script"))
        return jitscope::MainWindow::View::Script;
    if (name == QLatin1String("trace"))
        return jitscope::MainWindow::View::Trace;
    if (name == QLatin1String("compare"))
        return jitscope::MainWindow::View::Compare;
    if (name == QLatin1String("live"))
        return jitscope::MainWindow::View::LiveTrace;
    if (name == QLatin1String("export"))
        return jitscope::MainWindow::View::Export;
    if (name == QLatin1String("compare-export"))
        return jitscope::MainWindow::View::CompareExport;
    return std::nullopt;
}

// Grabs the window once every job is done, writes the PNG and ends the event loop with the exit code.
/// A file that did not load is still written as the user sees it (the error where the graph would be, the place in
/// the source), and the exit status is 2 as the CLI's.
void takeScreenshot(jitscope::MainWindow* window, const QString& out, std::optional<jitscope::MainWindow::View> view)
{
    const QString loadError = window->lastError();
    if (!loadError.isEmpty())
        std::fprintf(stderr, "jitscope: %s\n", qPrintable(loadError.simplified()));
    // The file loaded, so the screenshot (showing the compile error) is still worth writing; say so on stderr.
    if (const jitscope::FunctionInfo* fn = window->model().function(window->currentFunction()); fn && !fn->ok)
        std::fprintf(stderr, "jitscope: warning: %s\n", qPrintable(fn->error.toString().simplified()));
    if (view) {
        window->showView(*view);
        if (window->currentView() != *view)
            std::fprintf(stderr, "jitscope: warning: nothing to show in that view (no trace)\n");
        // The tab's widgets get their final sizes (and the graphs their framing) from posted layout events.
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        QCoreApplication::sendPostedEvents();
    }
    // A big graph's overview (what its view shows zoomed out, and its minimap) is drawn from the event loop.
    QElapsedTimer waited;
    waited.start();
    auto drawing = [window] {
        const auto scenes = window->findChildren<jitscope::GraphScene*>();
        return std::any_of(scenes.begin(), scenes.end(), [](const jitscope::GraphScene* scene) {
            return scene->isBuilding() || (scene->overview() && !scene->overview()->isFinished());
        });
    };
    while (drawing() && waited.elapsed() < 60000)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    QCoreApplication::processEvents();
    const QImage image = window->grab().toImage();
    QSaveFile file(out);
    const QByteArray format = QFileInfo(out).suffix().toLower().toLatin1();
    if (image.isNull() || !file.open(QIODevice::WriteOnly)
        || !image.save(&file, format.isEmpty() ? "png" : format.constData()) || !file.commit()) {
        std::fprintf(stderr, "jitscope: cannot write screenshot %s\n", qPrintable(out));
        QCoreApplication::exit(2);
        return;
    }
    mark("screenshot written");
    QCoreApplication::exit(loadError.isEmpty() ? 0 : 2);
}

/// For screenshots of a debug session: once the file is loaded and checked, sets the breakpoints, presses F11
/// @p steps times (F5 first when there are breakpoints) waiting for each pause, then takes the screenshot.
void debugThenScreenshot(jitscope::MainWindow* window, int steps, const QList<int>& breakLines, const QString& out,
    std::optional<jitscope::MainWindow::View> view)
{
    using jitscope::DebugPause;
    using jitscope::DebugCommand;
    using jitscope::MainWindow;
    if (!window->lastError().isEmpty() || window->currentFunction().isEmpty()) {
        takeScreenshot(window, out, view);
        return;
    }
    for (int line : breakLines)
        window->setBreakpoint(line);
    auto remaining = std::make_shared<int>(steps);
    auto grab = [window, out, view] {
        // With tracing, the live trace of the last pause is laid out off the GUI thread: wait for it.
        if (window->debugger()->isTracing() && window->liveTraceScene()) {
            auto* connection = new QMetaObject::Connection;
            *connection = QObject::connect(
                window, &MainWindow::liveTraceShown, window,
                [window, out, view, connection] {
                    QObject::disconnect(*connection);
                    delete connection;
                    takeScreenshot(window, out, view);
                },
                Qt::QueuedConnection);
            return;
        }
        takeScreenshot(window, out, view);
    };
    QObject::connect(window, &MainWindow::debugPaused, window, [window, remaining, grab] {
        if (--*remaining > 0)
            QTimer::singleShot(0, window, [window] { window->debugCommand(DebugCommand::StepInto); });
        else
            grab();
    });
    QObject::connect(window, &MainWindow::debugFinished, window, grab);
    window->debugCommand(breakLines.isEmpty() ? DebugCommand::StepInto : DebugCommand::Continue);
    if (!window->isDebugging()) {
        // No session (no valid input set, a compile error): the status bar says why; show that.
        std::fprintf(stderr, "jitscope: warning: cannot debug: %s\n", qPrintable(window->statusText()));
        takeScreenshot(window, out, view);
    }
}

} // namespace

int main(int argc, char* argv[])
{
    g_timeline = qEnvironmentVariableIsSet("JITSCOPE_TIMELINE");
    mark("main");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("JitScope"));
    QApplication::setApplicationName(QStringLiteral("JitScope"));
    QApplication::setApplicationVersion(QStringLiteral(JITSCOPE_VERSION));
    QApplication::setApplicationDisplayName(QStringLiteral("JitScope"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Debugger for PyTorch TorchScript graphs."));
    parser.addHelpOption();
    // `jitscope --version`: the window's own version and the libtorch its model worker runs (built against it).
    const QCommandLineOption versionOption({ QStringLiteral("v"), QStringLiteral("version") },
        QStringLiteral("Displays version information."));
    parser.addOption(versionOption);
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("A .py, .pt, .pth, .zip or .pt2 file to open."),
        QStringLiteral("[FILE]"));
    const QCommandLineOption fnOption(
        QStringLiteral("fn"), QStringLiteral("Function or method to show."), QStringLiteral("NAME"));
    const QCommandLineOption screenshotOption(QStringLiteral("screenshot"),
        QStringLiteral("Show the window at 1400x900, wait until loading and layout are done, save it as a PNG and "
                       "exit."),
        QStringLiteral("OUT.png"));
    const QCommandLineOption viewOption(QStringLiteral("view"),
        QStringLiteral("Tab to show: script, trace (trace 1), compare, live (the debugger's live trace), export "
                       "(a recorded call's torch.export program) or compare-export (trace 1 against it). Without "
                       "it, Compare is shown when the file's check inputs make the trace diverge."),
        QStringLiteral("VIEW"));
    const QCommandLineOption debugStepsOption(QStringLiteral("debug-steps"),
        QStringLiteral("With --screenshot: debug the function on the first input set, stepping N times (Step Into; "
                       "with --break, Continue first and then N-1 steps), and take the screenshot paused."),
        QStringLiteral("N"));
    const QCommandLineOption debugTraceOption(
        QStringLiteral("debug-trace"), QStringLiteral("With --debug-steps: trace while debugging (Live trace tab)."));
    const QCommandLineOption breakOption(QStringLiteral("break"),
        QStringLiteral("With --debug-steps: a breakpoint on this source line (repeatable)."), QStringLiteral("LINE"));
    parser.addOption(fnOption);
    parser.addOption(viewOption);
    parser.addOption(screenshotOption);
    parser.addOption(debugStepsOption);
    parser.addOption(debugTraceOption);
    parser.addOption(breakOption);
    const QCommandLineOption inputsOption(QStringList { QStringLiteral("inputs"), QStringLiteral("i") },
        QStringLiteral("An input set in the SET syntax (repeatable): the first is "
                       "traced, the others check it."),
        QStringLiteral("SET"));
    parser.addOption(inputsOption);
    const QCommandLineOption themeOption(QStringLiteral("theme"),
        QStringLiteral("light or dark, as View > Dark Theme (saved with the settings unless --screenshot)."),
        QStringLiteral("THEME"));
    parser.addOption(themeOption);
    const QCommandLineOption pythonOption(QStringLiteral("python"),
        QStringLiteral("Run .py files under Python without asking (--python=PATH: with that interpreter; default "
                       "$JITSCOPE_PYTHON, the active virtual or conda environment's, the first python3 on PATH that "
                       "imports torch, else the Python of the torch whose libtorch JitScope runs). Running a file runs "
                       "its code."));
    parser.addOption(pythonOption);
    const QCommandLineOption unfoldAllOption(QStringLiteral("unfold-all"),
        QStringLiteral("Open with every module unfolded, however big the model (no overview); with --screenshot, the "
                       "PNG is written once that graph is painted."));
    parser.addOption(unfoldAllOption);
    const QCommandLineOption loadOpsOption(QStringLiteral("load-ops"),
        QStringLiteral("Load a library of custom operators for this run (repeatable), besides those of "
                       "Model > Operator Libraries."),
        QStringLiteral("LIB.so"));
    parser.addOption(loadOpsOption);
    const QCommandLineOption noStrictOption(QStringLiteral("no-strict"),
        QStringLiteral("Check with torch.jit.trace's strict=False (dicts and lists as outputs), as Check > Trace with "
                       "strict=False."));
    parser.addOption(noStrictOption);
    // --python=PATH, as jitscope-cli takes it: QCommandLineParser has no options with an optional value.
    QStringList arguments = QApplication::arguments();
    QString pythonPath;
    for (QString& a : arguments) {
        if (a.startsWith(QLatin1String("--python="))) {
            pythonPath = a.mid(int(qstrlen("--python=")));
            a = QStringLiteral("--python");
        }
    }
    parser.process(arguments);
    if (parser.isSet(versionOption)) {
        std::printf("jitscope %s (libtorch %s in its model worker)\n", JITSCOPE_VERSION, JITSCOPE_TORCH_VERSION);
        return 0;
    }

    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        std::fprintf(stderr, "jitscope: expected at most one FILE, got %d\n", int(positional.size()));
        return 2;
    }
    const QString file = positional.value(0);
    const QString screenshot = parser.value(screenshotOption);
    const bool screenshotMode = parser.isSet(screenshotOption);
    std::optional<jitscope::MainWindow::View> view;
    if (parser.isSet(viewOption)) {
        view = parseView(parser.value(viewOption));
        if (!view) {
            std::fprintf(stderr, "jitscope: --view must be script, trace, compare, export or compare-export, not %s\n",
                qPrintable(parser.value(viewOption)));
            return 2;
        }
    }
    const QString theme = parser.value(themeOption);
    if (parser.isSet(themeOption) && theme != QLatin1String("light") && theme != QLatin1String("dark")) {
        std::fprintf(stderr, "jitscope: --theme must be light or dark, not %s\n", qPrintable(theme));
        return 2;
    }
    int debugSteps = 0;
    if (parser.isSet(debugStepsOption)) {
        bool ok = false;
        debugSteps = parser.value(debugStepsOption).toInt(&ok);
        if (!ok || debugSteps < 1 || !screenshotMode || file.isEmpty()) {
            std::fprintf(stderr, "jitscope: --debug-steps needs a positive N, a FILE and --screenshot\n");
            return 2;
        }
    }
    QList<int> breakLines;
    for (const QString& value : parser.values(breakOption)) {
        bool ok = false;
        breakLines << value.toInt(&ok);
        if (!ok || breakLines.last() < 1 || debugSteps == 0) {
            std::fprintf(stderr, "jitscope: --break needs a positive LINE and --debug-steps\n");
            return 2;
        }
    }
    if (parser.isSet(fnOption) && file.isEmpty()) {
        std::fprintf(stderr, "jitscope: --fn needs a FILE\n");
        return 2;
    }

    // The model worker first: libtorch loads in it while Qt builds the window.
    auto* worker = new jitscope::WorkerClient;
    if (g_timeline) {
        QObject::connect(
            worker, &jitscope::WorkerClient::workerStarted, worker, [] { mark("worker started"); },
            Qt::DirectConnection);
        QObject::connect(
            worker, &jitscope::WorkerClient::workerReady, worker, [] { mark("worker ready"); }, Qt::DirectConnection);
    }
    // A screenshot is one look: no spare worker to share the cores with.
    if (screenshotMode)
        worker->setSpareDelay(-1);
    worker->warmUp();
    jitscope::MainWindow window(worker);
    std::optional<PaintTimeline> paints;
    if (g_timeline) {
        paints.emplace(&window);
        QObject::connect(&window, &jitscope::MainWindow::fileLoaded, &window, [] { mark("loaded"); });
        QObject::connect(&window, &jitscope::MainWindow::idle, &window, [] { mark("idle"); });
        // A .py file run under Python: the window's part is from here to the next "idle" (the recorded call shown).
        QObject::connect(
            window.python(), &jitscope::PythonController::finished, &window, [] { mark("python finished"); });
    }
    if (screenshotMode) {
        // A fixed size and no restored state keep screenshots comparable between machines and runs.
        window.resize(1400, 900);
    } else {
        window.restoreSettings();
    }
    if (!theme.isEmpty())
        window.setDarkTheme(theme == QLatin1String("dark"));
    if (view)
        window.setStartView(*view);
    window.setPythonAllowed(parser.isSet(pythonOption));
    window.setUnfoldAllOnOpen(parser.isSet(unfoldAllOption));
    window.setRunOperatorLibraries(parser.values(loadOpsOption));
    if (!pythonPath.isEmpty())
        window.setPythonInterpreter(pythonPath);
    window.show();
    mark("shown");

    if (debugSteps > 0)
        window.debugAction(jitscope::MainWindow::DebugAction::TraceWhileDebugging)
            ->setChecked(parser.isSet(debugTraceOption));
    if (screenshotMode) {
        // Queued: the last layout is applied and the window has processed its pending resize before the grab.
        // Once only: a debug session's end runs the check again, which ends idle too.
        auto* connection = new QMetaObject::Connection;
        *connection = QObject::connect(
            &window, &jitscope::MainWindow::idle, &window,
            [&window, screenshot, view, debugSteps, breakLines, connection] {
                QObject::disconnect(*connection);
                if (debugSteps > 0)
                    debugThenScreenshot(&window, debugSteps, breakLines, screenshot, view);
                else
                    takeScreenshot(&window, screenshot, view);
            },
            Qt::QueuedConnection);
    }
    if (!file.isEmpty())
        window.setInitialInputSets(parser.values(inputsOption));
    if (parser.isSet(noStrictOption))
        window.setCheckStrict(false);
    window.openFile(file, parser.value(fnOption));
    if (screenshotMode && window.isIdle())
        QTimer::singleShot(0, &window, [&window, screenshot, view] { takeScreenshot(&window, screenshot, view); });

    return app.exec();
}
