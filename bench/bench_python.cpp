// `jitscope-cli check FILE --python` against `python3 FILE` on real model files, whole processes, side by side:
// the bridge records the graphs PyTorch's own check compared instead of tracing again, so the check should cost
// little more than running the file (target: at most 1.2x, summed over the files).
//
//     bench_python [RUNS] [FILE.py ...]
//
// Default files: tests/data/python/models/*.py (torchvision's detection and segmentation models with
// weights=None, torch.nn's packed LSTM and TransformerEncoder, ...). Each run times both commands alternately;
// the median of RUNS (default 3) is printed per file, then the sums and their ratio.
//
//     bench_python --values [RUNS] [FILE.py ...]
//
// The cost of finding where trace 1 and the Python code compute other values: `check --python` against the same
// check with the value comparison off (JITSCOPE_BRIDGE_NO_VALUES=1), on files whose outputs differ (default:
// tests/data/python/values/*.py, torchvision's Faster R-CNN among them). Target: at most 2x.
//
//     bench_python --script-values [RUNS] [FILE.py ...]
//
// The same cost in JitScope's own check (trace 1 and the script function run again, every node's values seen):
// `jitscope-cli check FILE` against `check FILE --no-values`, on models whose outputs differ (default:
// tests/data/values/*.py, and two real models left in train mode, scripted and saved by the test Python first:
// torch.nn's TransformerEncoder, whose attention drops out, and torchvision's mobilenet_v3_small with weights=None,
// whose classifier does). Target: at most 2x.
//
//     bench_python --export [RUNS] [FILE.py ...]
//
// The cost of exporting each recorded call with torch.export beside its trace: `check --python --export` against
// `check --python`, on the seed example (examples/loop_in_traced_fn.py: export fails at its loop) and torchvision's
// resnet18 checked at two image sizes (bench/python/resnet18_sizes.py: exported, its program run on all three
// sets). Target: at most 2x on each.
//
//     bench_python --warm [RUNS] [FILE.py ...]
//
// The window's Run and Run Again (PythonOptions::warm: a fork of a warm Python server, core/bridge/warmpython.h)
// against a cold run (a Python of its own, as every run was before, and as the CLI's still is), side by side, in
// process: runPythonFile() and then checkRecordedCalls(), what the model worker does for the window. "first" is a
// run with no server (it starts one and waits for its `import torch`), "again" the run after it. Default files: the
// seed example (examples/loop_in_traced_fn.py) and torchvision's resnet18 traced with check inputs
// (bench/python/traced_resnet18.py). Target: Run Again of the seed example at most 1/3 of its first run.

#include "bridge/pythoncheck.h"
#include "bridge/runpython.h"
#include "bridge/warmpython.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>

#include <algorithm>

namespace {

double runMs(const QString& program, const QStringList& arguments, int* exitCode, bool noValues = false)
{
    QProcess p;
    if (noValues) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("JITSCOPE_BRIDGE_NO_VALUES"), QStringLiteral("1"));
        p.setProcessEnvironment(env);
    }
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.setStandardOutputFile(QProcess::nullDevice());
    QElapsedTimer timer;
    timer.start();
    p.start(program, arguments);
    p.waitForFinished(-1);
    *exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    return double(timer.nsecsElapsed()) / 1e6;
}

double median(QVector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.isEmpty() ? 0 : v[v.size() / 2];
}

/// A run as the window makes it (the run, then its recorded calls explained), in ms; its status in @p status.
double windowRunMs(const QString& file, bool warm, QString* status, bool* wasWarm, QVector<double>* pythonMs)
{
    jitscope::PythonOptions options;
    options.python = QStringLiteral(JITSCOPE_TEST_PYTHON);
    options.warm = warm;
    QElapsedTimer timer;
    timer.start();
    const jitscope::PythonRun run = jitscope::runPythonFile(file, options);
    *pythonMs << double(timer.nsecsElapsed()) / 1e6;
    QFile source(file);
    if (!run.calls.isEmpty() && source.open(QIODevice::ReadOnly))
        jitscope::checkRecordedCalls(run.folder, QString::fromUtf8(source.readAll()));
    *status = run.status;
    *wasWarm = run.warm;
    return double(timer.nsecsElapsed()) / 1e6;
}

int benchWarm(QStringList args)
{
    int runs = 3;
    if (!args.isEmpty() && args.first().toInt() > 0)
        runs = args.takeFirst().toInt();
    if (args.isEmpty())
        args = QStringList { QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py"),
            QStringLiteral(JITSCOPE_SOURCE_DIR "/bench/python/traced_resnet18.py") };
    QTextStream out(stdout);
    out << QStringLiteral("%1 %2 %3 %4 %5 %6  status\n")
               .arg(QStringLiteral("file"), -24)
               .arg(QStringLiteral("cold"), 10)
               .arg(QStringLiteral("first"), 10)
               .arg(QStringLiteral("again"), 10)
               .arg(QStringLiteral("again/cold"), 11)
               .arg(QStringLiteral("again/first"), 12);
    double worst = 0;
    for (const QString& file : std::as_const(args)) {
        QVector<double> cold, first, again, coldPython, firstPython, againPython;
        QString status;
        bool warm = false;
        QStringList statuses;
        for (int r = 0; r < runs; ++r) {
            cold << windowRunMs(file, false, &status, &warm, &coldPython);
            statuses << status + (warm ? QStringLiteral("/warm") : QString());
            jitscope::endWarmPythonServers(); // no server: the window's first run
            first << windowRunMs(file, true, &status, &warm, &firstPython);
            statuses << status + (warm ? QStringLiteral("/warm") : QString());
            // The user reads the first run's result before Run Again; the server imports what the run imported.
            QElapsedTimer ready;
            ready.start();
            while (jitscope::warmPythonServers().isEmpty() && ready.elapsed() < 60000)
                QThread::msleep(20);
            again << windowRunMs(file, true, &status, &warm, &againPython);
            statuses << status + (warm ? QStringLiteral("/warm") : QString());
        }
        statuses.removeDuplicates();
        const double c = median(cold), f = median(first), a = median(again);
        if (file.endsWith(QLatin1String("loop_in_traced_fn.py")))
            worst = std::max(worst, a / f);
        out << QStringLiteral("%1 %2 %3 %4 %5x %6x  %7\n")
                   .arg(QFileInfo(file).fileName(), -24)
                   .arg(QStringLiteral("%1 ms").arg(c, 0, 'f', 0), 10)
                   .arg(QStringLiteral("%1 ms").arg(f, 0, 'f', 0), 10)
                   .arg(QStringLiteral("%1 ms").arg(a, 0, 'f', 0), 10)
                   .arg(a / c, 10, 'f', 2)
                   .arg(a / f, 11, 'f', 2)
                   .arg(statuses.join(QLatin1Char(',')))
            << Qt::flush;
        out << QStringLiteral("%1 %2 %3 %4 %5x %6x  %7\n")
                   .arg(QStringLiteral("  the Python run alone"), -24)
                   .arg(QStringLiteral("%1 ms").arg(median(coldPython), 0, 'f', 0), 10)
                   .arg(QStringLiteral("%1 ms").arg(median(firstPython), 0, 'f', 0), 10)
                   .arg(QStringLiteral("%1 ms").arg(median(againPython), 0, 'f', 0), 10)
                   .arg(median(againPython) / median(coldPython), 10, 'f', 2)
                   .arg(median(againPython) / median(firstPython), 11, 'f', 2)
                   .arg(QString())
            << Qt::flush;
    }
    jitscope::endWarmPythonServers();
    out << QStringLiteral("target: Run Again of the seed example at most 0.33x its first run (%1x)\n")
               .arg(worst, 0, 'f', 2);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    if (!args.isEmpty() && args.first() == QLatin1String("--warm"))
        return benchWarm(args.mid(1));
    const bool scriptValues = !args.isEmpty() && args.first() == QLatin1String("--script-values");
    const bool exporting = !args.isEmpty() && args.first() == QLatin1String("--export");
    const bool values = scriptValues || (!args.isEmpty() && args.first() == QLatin1String("--values"));
    if (values || exporting)
        args.removeFirst();
    int runs = 3;
    if (!args.isEmpty() && args.first().toInt() > 0)
        runs = args.takeFirst().toInt();
    // Each entry: the file and the check's own arguments for it.
    QVector<QStringList> entries;
    for (const QString& f : std::as_const(args))
        entries << QStringList { f };
    QTemporaryDir made;
    const QString python = QStringLiteral(JITSCOPE_TEST_PYTHON);
    if (args.isEmpty() && values) {
        const QDir files(scriptValues ? QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/values")
                                      : QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/python/values"));
        for (const QString& f : files.entryList({ QStringLiteral("*.py") }, QDir::Files, QDir::Name))
            entries << QStringList { files.filePath(f) };
    }
    if (args.isEmpty() && scriptValues) {
        // Real models as people script them, left in train mode (no weights downloaded).
        const QString script = QStringLiteral(
            "import sys, torch, torchvision\n"
            "torch.manual_seed(0)\n"
            "layer = torch.nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=256, batch_first=True)\n"
            "torch.jit.script(torch.nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False))"
            ".save(sys.argv[1] + '/encoder_train.pt')\n"
            "torch.jit.script(torchvision.models.mobilenet_v3_small(weights=None).train())"
            ".save(sys.argv[1] + '/mobilenet_train.pt')\n");
        int exit = 0;
        runMs(python, { QStringLiteral("-c"), script, made.path() }, &exit);
        if (exit == 0) {
            entries << QStringList { made.filePath(QStringLiteral("encoder_train.pt")), QStringLiteral("--inputs"),
                QStringLiteral("f32[2,16,128]"), QStringLiteral("--inputs"), QStringLiteral("f32[2,24,128]") };
            entries << QStringList { made.filePath(QStringLiteral("mobilenet_train.pt")), QStringLiteral("--inputs"),
                QStringLiteral("f32[2,3,64,64]"), QStringLiteral("--inputs"), QStringLiteral("f32[2,3,96,96]") };
        }
    }
    if (entries.isEmpty() && exporting)
        entries << QStringList { QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py") }
                << QStringList { QStringLiteral(JITSCOPE_SOURCE_DIR "/bench/python/resnet18_sizes.py") };
    if (entries.isEmpty()) {
        const QDir models(QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/python/models"));
        for (const QString& f : models.entryList({ QStringLiteral("*.py") }, QDir::Files, QDir::Name))
            if (f != QLatin1String("threads.py") && f != QLatin1String("tuple_arg.py"))
                entries << QStringList { models.filePath(f) };
    }
    const QString cli = QStringLiteral(JITSCOPE_BIN_DIR "/jitscope-cli");
    QTextStream out(stdout);
    // Each file: the baseline (python3 FILE, or the check with the value comparison off) and the check, run
    // alternately; the medians, then the sums and their ratio against the target.
    const QString baseline = exporting ? QStringLiteral("check --python")
        : values                       ? QStringLiteral("values off")
                                       : QStringLiteral("python3 FILE");
    const double target = values || exporting ? 2.0 : 1.2;
    out << QStringLiteral("%1 %2 %3 %4  exit (baseline, check)\n")
               .arg(QStringLiteral("file"), -22)
               .arg(baseline, 13)
               .arg(scriptValues   ? QStringLiteral("check")
                       : exporting ? QStringLiteral("... --export")
                                   : QStringLiteral("check --python"),
                   15)
               .arg(QStringLiteral("ratio"), 6);
    double baseSum = 0, checkSum = 0;
    for (const QStringList& entry : std::as_const(entries)) {
        const QString& file = entry.first();
        const QStringList check = scriptValues
            ? QStringList { QStringLiteral("check"), QStringLiteral("-q") } + entry
            : QStringList { QStringLiteral("check"), file, QStringLiteral("--python"), QStringLiteral("-q") };
        QVector<double> baseMs, checkMs;
        int baseExit = 0, checkExit = 0;
        for (int r = 0; r < runs; ++r) {
            baseMs << (scriptValues ? runMs(cli, check + QStringList { QStringLiteral("--no-values") }, &baseExit)
                    : values        ? runMs(cli, check, &baseExit, true)
                    : exporting     ? runMs(cli, check, &baseExit)
                                    : runMs(python, { file }, &baseExit));
            checkMs << runMs(cli, exporting ? check + QStringList { QStringLiteral("--export") } : check, &checkExit);
        }
        const double b = median(baseMs), c = median(checkMs);
        baseSum += b;
        checkSum += c;
        out << QStringLiteral("%1 %2 %3 %4x  %5, %6\n")
                   .arg(QFileInfo(file).fileName(), -22)
                   .arg(QStringLiteral("%1 ms").arg(b, 0, 'f', 0), 13)
                   .arg(QStringLiteral("%1 ms").arg(c, 0, 'f', 0), 15)
                   .arg(c / b, 5, 'f', 2)
                   .arg(baseExit)
                   .arg(checkExit)
            << Qt::flush;
    }
    out << QStringLiteral("%1 %2 %3 %4x  (target: at most %5x)\n")
               .arg(QStringLiteral("sum"), -22)
               .arg(QStringLiteral("%1 ms").arg(baseSum, 0, 'f', 0), 13)
               .arg(QStringLiteral("%1 ms").arg(checkSum, 0, 'f', 0), 15)
               .arg(checkSum / std::max(1.0, baseSum), 5, 'f', 2)
               .arg(target, 0, 'f', 2);
    return 0;
}
