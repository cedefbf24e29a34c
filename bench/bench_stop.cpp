// How fast runs stop, beside their limits (these were timed assertions in tst_debugsession and tst_cli):
// a debug session stopped inside a `while True:` loop (limit 200 ms), and `jitscope-cli trace --timeout 2` on the
// same loop (limit 60 s, with the 2 s it is asked to run).

#include "benchutil.h"
#include "debug/debugsession.h"
#include "load/model.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>

#include <cstdio>

using namespace jitscope;

namespace {

const QString kSpin = QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/bad/infinite_loop.py");
ModelInfo g_spin;

/// From stop() to the finished pause of a session spinning in `while True:`.
void BM_StopSession(benchmark::State& state)
{
    for (auto _ : state) {
        state.PauseTiming();
        DebugSession s(g_spin, QStringLiteral("spin"), *parseInputSet(QStringLiteral("f32[2,2]")), state.range(0) != 0);
        s.start();
        auto p = s.waitForPause(0, 30000);
        s.resume(DebugSession::Command::Continue);
        s.waitForPause(p->serial, 50); // spinning
        state.ResumeTiming();
        s.stop();
        p = s.waitForPause(p->serial, 30000);
        if (!p || !p->finished) {
            state.SkipWithError("the session did not stop");
            break;
        }
    }
}

/// jitscope-cli trace --timeout 2 on the endless loop, process start to exit.
void BM_CliTimeout(benchmark::State& state)
{
    for (auto _ : state) {
        QProcess p;
        p.start(QStringLiteral(JITSCOPE_BIN_DIR "/jitscope-cli"),
            { QStringLiteral("trace"), kSpin, QStringLiteral("--timeout"), QStringLiteral("2") });
        if (!p.waitForFinished(120000) || p.exitCode() != 2) {
            state.SkipWithError("jitscope-cli did not stop with exit status 2");
            break;
        }
    }
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    LoadResult r = loadModel(kSpin);
    if (!r.ok) {
        std::printf("%s\n", qPrintable(r.error.toString()));
        return 2;
    }
    g_spin = r.model;
    benchmark::Initialize(&argc, argv);
    benchmark::RegisterBenchmark("stop/session/run", BM_StopSession)
        ->Arg(0)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(10);
    benchmark::RegisterBenchmark("stop/session/trace", BM_StopSession)
        ->Arg(1)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(10);
    benchmark::RegisterBenchmark("stop/cli-timeout-2s", BM_CliTimeout)->Unit(benchmark::kMillisecond)->Iterations(2);
    jitscope::bench::RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    std::printf("\ndebug session stop, running:  %8.1f ms  (limit 200 ms)\n", reporter.time("stop/session/run"));
    std::printf("debug session stop, tracing:  %8.1f ms  (limit 200 ms)\n", reporter.time("stop/session/trace"));
    std::printf("jitscope-cli --timeout 2:     %8.1f ms  (limit 60000 ms)\n", reporter.time("stop/cli-timeout-2s"));
    return 0;
}
