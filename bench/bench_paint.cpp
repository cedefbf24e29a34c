// From file to painted scene: load an archive, lay out a graph (Graphviz dot through core), build the Qt
// scene and paint it once, against plain `dot -Tplain` on the same folded DOT text, in one run.
// Models: torchvision models named on the command line (default resnet50), scripted by /usr/bin/python3 into the
// working directory on first run; or one archive given by $JITSCOPE_BENCH_MODEL.
// Reported for the forward graph as JitScope opens it (submodule calls as boxes) and for the inlined graph.
// Target (desktop app issue): first interactive paint of the scripted resnet50 within 0.5 s.

#include "graphlayout.h"
#include "graphscene.h"
#include "model.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace jitscope;

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct Timing
{
    double load = 0, layout = 0, scene = 0, paint = 0, total = 0;
    int boxes = 0;
};

Timing fileToPaint(const QString& path, bool inlineCalls)
{
    Timing t;
    QElapsedTimer clock;
    clock.start();
    LoadOptions options;
    options.inlineCalls = inlineCalls;
    const LoadResult r = loadModel(path, options);
    t.load = clock.nsecsElapsed() / 1e6;
    if (!r.ok || !r.model.defaultFunction())
        return t;
    LayoutOptions layoutOptions;
    // As the window shows a model grouped by module: guard code that reaches no output is hidden.
    layoutOptions.groupByModule = inlineCalls;
    layoutOptions.hideUnreachable = inlineCalls;
    const GraphLayout layout = layoutGraph(r.model.defaultFunction()->graph, layoutOptions);
    t.layout = clock.nsecsElapsed() / 1e6 - t.load;
    GraphScene scene;
    scene.setGraph(r.model.defaultFunction()->graph, layout);
    t.scene = clock.nsecsElapsed() / 1e6 - t.load - t.layout;
    QImage image(1400, 900, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    scene.render(&painter);
    painter.end();
    t.total = clock.nsecsElapsed() / 1e6;
    t.paint = t.total - t.load - t.layout - t.scene;
    t.boxes = layout.nodes.size();
    return t;
}

double plainDot(const QString& dotText)
{
    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("g.dot")));
    if (!f.open(QIODevice::WriteOnly))
        return -1;
    f.write(dotText.toUtf8());
    f.close();
    QElapsedTimer clock;
    clock.start();
    const int rc = QProcess::execute(QStringLiteral("dot"),
        { QStringLiteral("-Tplain"), f.fileName(), QStringLiteral("-o"), dir.filePath(QStringLiteral("g.plain")) });
    return rc == 0 ? clock.nsecsElapsed() / 1e6 : -1;
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QStringList models;
    if (qEnvironmentVariableIsSet("JITSCOPE_BENCH_MODEL")) {
        models << qEnvironmentVariable("JITSCOPE_BENCH_MODEL");
    } else {
        QStringList names = app.arguments().mid(1);
        if (names.isEmpty())
            names << QStringLiteral("resnet50");
        for (const QString& name : names) {
            const QString archive = name + QStringLiteral(".pt");
            if (!QFileInfo::exists(archive)
                && QProcess::execute(QStringLiteral("/usr/bin/python3"),
                       { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/make_torchvision.py"), name, archive })
                    != 0) {
                std::printf(
                    "cannot make %s (needs python3-torchvision); set JITSCOPE_BENCH_MODEL\n", qPrintable(archive));
                return 2;
            }
            models << archive;
        }
    }
    for (const QString& model : models) {
        const int runs = 5;
        for (bool inlineCalls : { false, true }) {
            std::vector<double> load, layout, scene, paint, total, dot;
            int boxes = 0;
            for (int i = 0; i < runs; ++i) {
                const Timing t = fileToPaint(model, inlineCalls);
                load.push_back(t.load);
                layout.push_back(t.layout);
                scene.push_back(t.scene);
                paint.push_back(t.paint);
                total.push_back(t.total);
                boxes = t.boxes;
                LoadOptions options;
                options.inlineCalls = inlineCalls;
                const LoadResult r = loadModel(model, options);
                LayoutOptions layoutOptions;
                layoutOptions.groupByModule = inlineCalls;
                layoutOptions.hideUnreachable = inlineCalls;
                dot.push_back(plainDot(toDot(r.model.defaultFunction()->graph, layoutOptions)));
            }
            std::printf("%s graph of %s: %d boxes\n", inlineCalls ? "inlined" : "forward", qPrintable(model), boxes);
            std::printf("  file to painted scene: %.1f ms (load %.1f, layout %.1f, scene %.1f, paint %.1f)\n",
                median(total), median(load), median(layout), median(scene), median(paint));
            std::printf("  plain dot -Tplain on the same folded graph: %.1f ms\n", median(dot));
            std::printf("  ratio layout / plain dot: %.2f; first paint target <= 500 ms: %s\n",
                median(layout) / std::max(0.001, median(dot)), median(total) <= 500 ? "met" : "NOT met");
        }
    }
    return 0;
}
