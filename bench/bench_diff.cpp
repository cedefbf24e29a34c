// Diffing two traces of loop_in_traced_fn (3 and 30000 loop iterations) with dtl, against Python's
// difflib.ndiff on the same canonical texts (measured by the engine's Python in the same run).
// Targets: <= 30 ms, and >= 60x faster than difflib.

#include "benchutil.h"
#include "diff/tracediff.h"
#include "report/irgraph.h"
#include "load/model.h"
#include "trace/trace.h"

#include <QCoreApplication>
#include <QProcess>
#include <QTemporaryDir>

#include <cstdio>

using namespace jitscope;

namespace {

IrGraph g_small, g_large;

void BM_DiffTraces(benchmark::State& state)
{
    for (auto _ : state) {
        TraceDiff d = diffTraces(g_small, g_large);
        benchmark::DoNotOptimize(d.changes.size());
    }
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    LoadResult r = loadModel(QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py"));
    if (!r.ok)
        return 2;
    ExecOptions options;
    TraceResult small = traceFunction(
        r.model, QStringLiteral("loop_in_traced_fn"), *parseInputSet(QStringLiteral("f32[3,2]")), options);
    TraceResult large = traceFunction(
        r.model, QStringLiteral("loop_in_traced_fn"), *parseInputSet(QStringLiteral("f32[30000,2]")), options);
    if (!small.ok || !large.ok) {
        std::printf("tracing failed\n");
        return 2;
    }
    g_small = small.graph;
    g_large = large.graph;
    std::printf("traces: %d and %d nodes\n", int(g_small.top.nodes.size()), int(g_large.top.nodes.size()));

    benchmark::Initialize(&argc, argv);
    benchmark::RegisterBenchmark("diff/dtl_3_vs_30000", BM_DiffTraces)->Unit(benchmark::kMillisecond)->MinTime(2);
    jitscope::bench::RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    const double ours = reporter.time("diff/dtl");

    // The same canonical texts through difflib.ndiff, timed inside Python.
    QTemporaryDir dir;
    QFile a(dir.filePath(QStringLiteral("a.txt"))), b(dir.filePath(QStringLiteral("b.txt")));
    if (!a.open(QIODevice::WriteOnly) || !b.open(QIODevice::WriteOnly))
        return 2;
    a.write(canonicalizeDump(g_small.toText(false)).toUtf8());
    b.write(canonicalizeDump(g_large.toText(false)).toUtf8());
    a.close();
    b.close();
    QProcess py;
    py.start(QStringLiteral(JITSCOPE_TEST_PYTHON),
        { QStringLiteral("-c"),
            QStringLiteral("import difflib,sys,time\n"
                           "a=open(sys.argv[1]).read().splitlines(); b=open(sys.argv[2]).read().splitlines()\n"
                           "t=time.perf_counter(); n=sum(1 for _ in difflib.ndiff(a,b)); e=time.perf_counter()-t\n"
                           "print(e*1000.0)\n"),
            a.fileName(), b.fileName() });
    if (!py.waitForFinished(600000) || py.exitCode() != 0) {
        std::printf("\ndiff/dtl: %.3f ms (target <= 30 ms); difflib baseline unavailable (" JITSCOPE_TEST_PYTHON ")\n", ours);
        return 0;
    }
    const double difflib = QString::fromUtf8(py.readAllStandardOutput()).trimmed().toDouble();
    std::printf("\ndiff/dtl: %.3f ms (target <= 30 ms)\n", ours);
    std::printf("difflib.ndiff on the same canonical texts: %.1f ms\n", difflib);
    std::printf("ratio difflib / dtl: %.1fx (target >= 60x)\n", difflib / ours);
    return 0;
}
