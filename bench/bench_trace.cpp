// Tracing torchvision's resnet50 through JitScope's executor vs libtorch's own interpreter under the tracer, both
// traces inlined (traced.inlined_graph, what the check compares).
// Target: executor <= 1.1x the interpreter. The scripted archive is made by the engine's Python (torchvision)
// into the build directory on first run, or taken from $JITSCOPE_BENCH_MODEL.

#include "benchutil.h"
#include "load/model.h"
#include "trace/benchbaseline.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>

#include <cstdio>

using namespace jitscope;

namespace {

ModelInfo g_model;
InputSet g_inputs;

void BM_ExecutorTrace(benchmark::State& state)
{
    for (auto _ : state) {
        TraceResult t = traceFunction(g_model, QStringLiteral("forward"), g_inputs);
        if (!t.ok) {
            state.SkipWithError(t.error.message.toStdString().c_str());
            break;
        }
        benchmark::DoNotOptimize(t.graph.nodes.size());
    }
}

void BM_InterpreterTrace(benchmark::State& state)
{
    for (auto _ : state) {
        TraceResult t = traceWithLibtorchInterpreter(g_model, QStringLiteral("forward"), g_inputs);
        if (!t.ok) {
            state.SkipWithError(t.error.message.toStdString().c_str());
            break;
        }
        benchmark::DoNotOptimize(t.graph.nodes.size());
    }
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QString model = qEnvironmentVariable("JITSCOPE_BENCH_MODEL");
    if (model.isEmpty()) {
        // Made once into the build tree, never into the folder the bench runs from.
        QDir().mkpath(QStringLiteral(JITSCOPE_BENCH_MODELS));
        model = QStringLiteral(JITSCOPE_BENCH_MODELS "/resnet50.pt");
        if (!QFileInfo::exists(model)) {
            std::printf("creating %s with the engine's Python and torchvision...\n", qPrintable(model));
            const int rc = QProcess::execute(QStringLiteral(JITSCOPE_TEST_PYTHON),
                { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/make_torchvision.py"), QStringLiteral("resnet50"),
                    model });
            if (rc != 0) {
                std::printf("cannot make the resnet50 archive (needs python3-torchvision); set JITSCOPE_BENCH_MODEL\n");
                return 2;
            }
        }
    }
    // As the check loads it (checkModel() inlines an archive's method): trace nodes are placed in the inlined graph.
    LoadOptions inlining;
    inlining.inlineCalls = true;
    LoadResult r = loadModel(model, inlining);
    if (!r.ok) {
        std::printf("%s\n", qPrintable(r.error.toString()));
        return 2;
    }
    g_model = r.model;
    g_inputs = *parseInputSet(QStringLiteral("f32[1,3,224,224]"));
    benchmark::Initialize(&argc, argv);
    benchmark::RegisterBenchmark("trace/executor", BM_ExecutorTrace)->Unit(benchmark::kMillisecond)->MinTime(3);
    benchmark::RegisterBenchmark("trace/interpreter", BM_InterpreterTrace)->Unit(benchmark::kMillisecond)->MinTime(3);
    jitscope::bench::RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    const double executor = reporter.time("trace/executor");
    const double interpreter = reporter.time("trace/interpreter");
    if (executor > 0 && interpreter > 0)
        std::printf(
            "\nratio executor / interpreter (resnet50 trace): %.3f  (target <= 1.10)\n", executor / interpreter);
    return 0;
}
