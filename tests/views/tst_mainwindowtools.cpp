#include "findbar.h"
#include "graphitems.h"
#include "graphscene.h"
#include "graphview.h"
#include "inputsetseditor.h"
#include "inputsetsmodel.h"
#include "mainwindow.h"
#include "modeltreemodel.h"
#include "nodeinspector.h"
#include "sourceview.h"
#include "windowtest.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QLineEdit>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextLayout>
#include <QTreeView>
#include <QtTest>

using namespace jitscope;
using namespace jitscope::test;

namespace {

/// The aten::mul inside the example's loop, in the script graph.
int loopMul(const MainWindow& window)
{
    for (const IrNode& n : checkController(window)->report().script.nodes) {
        if (n.kind == QLatin1String("aten::mul") && n.parentNode >= 0)
            return n.id;
    }
    return -1;
}

bool writeFile(const QString& path, const QByteArray& text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
}

bool hasKind(const IrGraph& graph, const char* kind)
{
    return std::any_of(
        graph.nodes.begin(), graph.nodes.end(), [kind](const IrNode& n) { return n.kind == QLatin1String(kind); });
}

} // namespace

class TestMainWindowTools : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void findNodes()
    {
        MainWindow window;
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        QVERIFY(checkController(window)->hasReport());
        const int mul = loopMul(window);
        QVERIFY(mul >= 0);
        FindBar* bar = part<FindBar>(window, "findBar");
        QVERIFY(!bar->isVisible());

        window.showView(MainWindow::View::Script);
        bar->activate();
        QVERIFY(bar->isVisible());
        bar->setQuery(QStringLiteral("aten::mul"));
        QVERIFY(bar->hits().contains(window.scriptScene()->displayedNode(mul)));
        QVERIFY2(bar->countText().contains(QLatin1String("hit")), qPrintable(bar->countText()));
        bar->setQuery(QStringLiteral("line 7"));
        QVERIFY(bar->hits().contains(window.scriptScene()->displayedNode(mul)));
        QCOMPARE(FindBar::findNodes(window.scriptScene(), QStringLiteral("7")), bar->hits());
        QVERIFY(FindBar::findNodes(window.scriptScene(), QStringLiteral("no such thing")).isEmpty());

        // Trace 1 ran the loop three times.
        window.showView(MainWindow::View::Trace);
        QCOMPARE(bar->scene(), tracePage(window, 0)->scene());
        bar->setQuery(QStringLiteral("aten::mul"));
        QCOMPARE(bar->hits().size(), 3);
        QCOMPARE(bar->countText(), QStringLiteral("3 hits"));
        QTest::keyClick(bar->lineEdit(), Qt::Key_Return);
        QCOMPARE(bar->currentHit(), 0);
        QCOMPARE(tracePage(window, 0)->scene()->selectedNodeId(), bar->hits().at(0));
        QCOMPARE(bar->countText(), QStringLiteral("1 of 3"));
        QTest::keyClick(bar->lineEdit(), Qt::Key_Return);
        QCOMPARE(tracePage(window, 0)->scene()->selectedNodeId(), bar->hits().at(1));
        bar->findNext();
        bar->findNext();
        QCOMPARE(bar->currentHit(), 0); // wraps around
        bar->findPrevious();
        QCOMPARE(bar->currentHit(), 2);
        // Values by name.
        const IrGraph& trace = tracePage(window, 0)->scene()->graph();
        const IrNode& hit = trace.node(bar->hits().at(0));
        const QString name = trace.value(hit.outputs.first()).name;
        QVERIFY(FindBar::findNodes(tracePage(window, 0)->scene(), QLatin1Char('%') + name).contains(hit.id));

        QTest::keyClick(bar->lineEdit(), Qt::Key_Escape);
        QVERIFY(!bar->isVisible());
    }

    void inspectorLinksTraceAndScript()
    {
        MainWindow window;
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        const int mul = loopMul(window);
        QVERIFY(mul >= 0);
        NodeInspector* inspector = part<NodeInspector>(window, "nodeInspector");
        QVERIFY(inspector->nodeKind().isEmpty());

        // A trace node: its script node, clickable.
        window.showView(MainWindow::View::Trace);
        const QList<int> hits = FindBar::findNodes(tracePage(window, 0)->scene(), QStringLiteral("aten::mul"));
        QCOMPARE(hits.size(), 3);
        tracePage(window, 0)->scene()->selectNode(hits.at(1));
        QCOMPARE(inspector->nodeKind(), QStringLiteral("aten::mul"));
        QVERIFY(inspector->links().contains(QUrl(QStringLiteral("script:%1").arg(mul))));
        const QString text = inspector->toPlainText();
        QVERIFY2(text.contains(QLatin1String("Script node")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("Inputs")) && text.contains(QLatin1String("Outputs")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("iteration 2")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("aten::mul.Tensor(Tensor self, Tensor other)")), qPrintable(text));

        inspector->activateLink(QUrl(QStringLiteral("script:%1").arg(mul)));
        QCOMPARE(window.currentView(), MainWindow::View::Script);
        QCOMPARE(window.scriptScene()->selectedNodeId(), mul);

        // The script node: the trace nodes it recorded, per trace and iteration.
        QCOMPARE(inspector->nodeKind(), QStringLiteral("aten::mul"));
        int trace1Links = 0;
        for (const QUrl& link : inspector->links())
            trace1Links += link.toString().startsWith(QLatin1String("trace:0:"));
        QCOMPARE(trace1Links, 3);
        QVERIFY(inspector->toPlainText().contains(QLatin1String("Trace 1:")));
        inspector->activateLink(QUrl(QStringLiteral("trace:0:%1").arg(hits.at(2))));
        QCOMPARE(window.currentView(), MainWindow::View::Trace);
        QCOMPARE(tracePage(window, 0)->scene()->selectedNodeId(), hits.at(2));
    }

    void reloadsChangedFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("model.py"));
        QVERIFY(writeFile(path, "import torch\n\n\ndef f(x):\n    return x * 2\n"));
        MainWindow window;
        QVERIFY(openAndWait(window, path));
        QCOMPARE(window.currentFunction(), QStringLiteral("f"));
        QVERIFY(hasKind(window.scriptScene()->graph(), "aten::mul"));

        QSignalSpy reloaded(&window, &MainWindow::fileReloaded);
        QVERIFY(writeFile(path, "import torch\n\n\ndef f(x):\n    return torch.relu(x) + 1\n"));
        QVERIFY(reloaded.wait(20000));
        QVERIFY(waitIdle(window));
        QCOMPARE(window.currentFunction(), QStringLiteral("f"));
        QVERIFY(hasKind(window.scriptScene()->graph(), "aten::relu"));
        QVERIFY(!hasKind(window.scriptScene()->graph(), "aten::mul"));

        QVERIFY(QFile::remove(path));
        QTRY_VERIFY_WITH_TIMEOUT(window.statusText().contains(QLatin1String("removed from disk")), 10000);
        // Brought back (as by an editor's delete-and-rename save): reloaded again.
        QVERIFY(writeFile(path, "import torch\n\n\ndef f(x):\n    return torch.tanh(x)\n"));
        QVERIFY(reloaded.wait(20000));
        QVERIFY(waitIdle(window));
        QVERIFY(hasKind(window.scriptScene()->graph(), "aten::tanh"));
    }

    void exportsDot()
    {
        MainWindow window;
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        window.showView(MainWindow::View::Script);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("view.dot"));
        QString error;
        QVERIFY2(window.exportView(path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString dot = QString::fromUtf8(file.readAll());
        QVERIFY2(dot.startsWith(QLatin1String("digraph")), qPrintable(dot.left(200)));
        QVERIFY(dot.contains(QLatin1String("aten::mul")));
        QVERIFY(dot.contains(QLatin1String("prim::Loop")));
    }

    /// File > Export's SVG is the CLI's: one renderer (graphSvg()) draws the layout the tab shows, so the window
    /// and `jitscope-cli graph --format svg` write the same file for the same graph.
    void exportsTheCliSvg()
    {
        MainWindow window;
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        window.showView(MainWindow::View::Script);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("view.svg"));
        QString error;
        QVERIFY2(window.exportView(path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString exported = QString::fromUtf8(file.readAll());
        QVERIFY2(exported.contains(QLatin1String("<title>loop_in_traced_fn</title>")), qPrintable(exported.left(400)));
        QVERIFY(exported.contains(QLatin1String(">aten::mul</text>")));

        QProcess cli;
        cli.start(QStringLiteral(JITSCOPE_BIN_DIR "/jitscope-cli"),
            { QStringLiteral("graph"), example("loop_in_traced_fn.py"), QStringLiteral("--format"),
                QStringLiteral("svg") });
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        const QString printed = QString::fromUtf8(cli.readAllStandardOutput());
        if (printed != exported) {
            QFile actual(dir.filePath(QStringLiteral("cli.svg")));
            QVERIFY(actual.open(QIODevice::WriteOnly));
            actual.write(printed.toUtf8());
            actual.close();
            dir.setAutoRemove(false);
            QFAIL(qPrintable(QStringLiteral("the window's export and the CLI's SVG differ: diff -u %1 %2")
                                 .arg(path, actual.fileName())));
        }
    }

    void groupByModule()
    {
        const QString archive = QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/archives/conv_block.pt");
        if (!QFile::exists(archive))
            QSKIP("tests/data/archives/conv_block.pt is missing");
        MainWindow window;
        QAction* groupByModule = part<QAction>(window, "groupByModuleAction");
        QTreeView* treeView = part<QTreeView>(window, "modelTreeView");
        ModelTreeModel* treeModel = part<ModelTreeModel>(window, "modelTreeModel");
        window.setInitialInputSets({ QStringLiteral("f32[1,3,5,5]") });
        QVERIFY(openAndWait(window, archive));
        QCOMPARE(window.currentFunction(), QStringLiteral("forward"));
        auto moduleClusters = [&] {
            QStringList titles;
            for (ClusterItem* c : window.scriptScene()->clusterItems()) {
                if (c->kind() == ClusterItem::Kind::Module)
                    titles << c->title();
            }
            return titles;
        };
        // An archive opens grouped by module: forward alone would be a few prim::CallMethod boxes.
        QVERIFY(groupByModule->isChecked());
        QSet<QString> modules;
        for (const IrNode& n : window.scriptScene()->graph().nodes) {
            if (!n.modulePath.isEmpty())
                modules.insert(n.modulePath);
        }
        QVERIFY(!modules.isEmpty());
        const QStringList titles = moduleClusters();
        QVERIFY(!titles.isEmpty());
        for (const QString& module : std::as_const(modules))
            QVERIFY2(titles.join(QLatin1Char(' ')).contains(module), qPrintable(titles.join(QLatin1String(", "))));
        // Selecting a traced op selects the op it came from in the inlined, grouped script graph: the trace of a
        // module is inlined too, each op linked to its submodule's code (the recorded aten::_convolution to the
        // script's aten::conv2d, in the same module and line).
        GraphScene* trace = tracePage(window, 0)->scene();
        QVERIFY(trace);
        int linked = 0;
        for (const IrNode& n : trace->graph().nodes) {
            if (!n.kind.startsWith(QLatin1String("aten::")) || n.originNode < 0)
                continue;
            trace->selectNode(n.id);
            const int selected = window.scriptScene()->selectedNodeId();
            QVERIFY2(selected >= 0, qPrintable(n.kind));
            const IrNode& origin = window.scriptScene()->graph().node(selected);
            QVERIFY2(origin.kind == n.kind || origin.location.line == n.location.line,
                qPrintable(QStringLiteral("%1 -> %2").arg(n.kind, origin.kind)));
            QCOMPARE(origin.modulePath, n.modulePath);
            ++linked;
        }
        QCOMPARE(linked, 6); // every op of the trace: conv, batch_norm, relu, pool, flatten, linear

        // A submodule's method is inlined when first shown: its submodules' code in clusters, no calls left.
        QVERIFY(!window.model().function(QStringLiteral("layer1.forward"))->inlined);
        treeView->setCurrentIndex(treeModel->indexOfFunction(QStringLiteral("layer1.forward")));
        QVERIFY(waitIdle(window));
        QCOMPARE(window.currentFunction(), QStringLiteral("layer1.forward"));
        QVERIFY(window.model().function(QStringLiteral("layer1.forward"))->inlined);
        for (const IrNode& n : window.scriptScene()->graph().nodes)
            QVERIFY2(!n.kind.startsWith(QLatin1String("prim::Call")), qPrintable(n.kind));
        // Named relative to layer1, with their class.
        QVERIFY2(moduleClusters().contains(QStringLiteral("0 \u00b7 Conv2d")),
            qPrintable(moduleClusters().join(QLatin1Char(','))));
        treeView->setCurrentIndex(treeModel->indexOfFunction(QStringLiteral("forward")));
        QVERIFY(waitIdle(window));

        QSignalSpy reloaded(&window, &MainWindow::fileReloaded);
        groupByModule->setChecked(false);
        QVERIFY(reloaded.wait(kJobTimeoutMs));
        QVERIFY(waitIdle(window));
        QCOMPARE(window.currentFunction(), QStringLiteral("forward"));
        QVERIFY(moduleClusters().isEmpty());
        bool hasCall = false;
        for (const IrNode& n : window.scriptScene()->graph().nodes)
            hasCall = hasCall || n.kind == QLatin1String("prim::CallMethod");
        QVERIFY(hasCall);

        // The choice sticks for archives; .py files keep their own (off by default).
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        QVERIFY(!groupByModule->isChecked());
        QVERIFY(openAndWait(window, archive));
        QVERIFY(!groupByModule->isChecked());
        QVERIFY(moduleClusters().isEmpty());
        groupByModule->setChecked(true);
        QVERIFY(reloaded.wait(kJobTimeoutMs));
        QVERIFY(waitIdle(window));
        QVERIFY(!moduleClusters().isEmpty());
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        QVERIFY(!groupByModule->isChecked());
    }

    void bigModelOpensAsOverview()
    {
        // dense_residual is small: limits low enough make it "big" (5 ops, at most 20 boxes in the overview).
        MainWindow window;
        DocumentController* document = documentController(window);
        document->setOverviewLimits(5, 20);
        QVERIFY(openAndWait(window, QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/archives/dense_residual.pt")));
        QVERIFY(part<QAction>(window, "groupByModuleAction")->isChecked());
        const QStringList folded = document->foldedModules();
        QVERIFY2(!folded.isEmpty(), qPrintable(window.statusText()));
        QVERIFY2(
            window.statusText().contains(QLatin1String("folded for an overview")), qPrintable(window.statusText()));
        QStringList boxes;
        int ops = 0;
        for (const NodeItem* n : window.scriptScene()->nodeItems()) {
            if (n->role() == LayoutNode::Role::Module)
                boxes << n->title();
            ops += n->role() == LayoutNode::Role::Node;
        }
        boxes.sort();
        QCOMPARE(boxes, folded);
        QVERIFY(boxes.size() + ops <= 20);

        // Unfold All draws every op; double-clicking a module folds it again.
        document->unfoldAllModules();
        QVERIFY(waitIdle(window));
        QVERIFY(document->foldedModules().isEmpty());
        int modules = 0, unfoldedOps = 0;
        for (const NodeItem* n : window.scriptScene()->nodeItems()) {
            modules += n->role() == LayoutNode::Role::Module;
            unfoldedOps += n->role() == LayoutNode::Role::Node;
        }
        QCOMPARE(modules, 0);
        QVERIFY(unfoldedOps > ops);
        // A relayout (Fold Constants, a fold) does not fold everything back.
        Q_EMIT window.scriptScene()->foldToggleRequested(-1, QStringLiteral("out"));
        QVERIFY(waitIdle(window));
        QCOMPARE(document->foldedModules(), QStringList { QStringLiteral("out") });
    }

    void unfoldAllOnOpen()
    {
        // The same "big" model as above, opened as `jitscope --unfold-all` opens it: every op drawn at once.
        MainWindow window;
        DocumentController* document = documentController(window);
        document->setOverviewLimits(5, 20);
        window.setUnfoldAllOnOpen(true);
        QVERIFY(openAndWait(window, QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/archives/dense_residual.pt")));
        QVERIFY(part<QAction>(window, "groupByModuleAction")->isChecked());
        QVERIFY(document->foldedModules().isEmpty());
        int modules = 0, ops = 0;
        for (const NodeItem* n : window.scriptScene()->nodeItems()) {
            modules += n->role() == LayoutNode::Role::Module;
            ops += n->role() == LayoutNode::Role::Node;
        }
        QCOMPARE(modules, 0);
        QVERIFY(ops > 5);
        QVERIFY(!window.statusText().contains(QLatin1String("folded for an overview")));
    }

    void suggestedInputSetForAnArchive()
    {
        MainWindow window;
        QVERIFY(openAndWait(window, QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/archives/conv_block.pt")));
        InputSetsEditor* editor = part<InputSetsEditor>(window, "inputSetsEditor");
        QCOMPARE(editor->model()->rowCount(), 0);
        QVERIFY2(editor->statusText().contains(QLatin1String("guessed from layer1.0.weight [4, 3, 3, 3]")),
            qPrintable(editor->statusText()));
        editor->addSuggestion();
        QCOMPARE(editor->model()->texts(), QStringList { QStringLiteral("f32[1,3,224,224]") });
        QVERIFY(editor->isEdited());
        // It traces: the check runs on it.
        QSignalSpy checked(&window, &MainWindow::checkFinished);
        QTest::keyClick(&window, Qt::Key_R, Qt::ControlModifier);
        QVERIFY(checked.wait(kJobTimeoutMs));
        QVERIFY(checkController(window)->hasReport());
        QCOMPARE(part<CheckView>(window, "checkView")->traceCount(), 1);
        // A .py file with its own inputs gets no suggestion.
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        QVERIFY(!editor->statusText().contains(QLatin1String("guessed")));
    }

    void darkTheme()
    {
        MainWindow window;
        window.restoreSettings();
        window.setDarkTheme(false);
        const QColor lightInserted = diffStatusColor(DiffStatus::Inserted);
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        QVERIFY(window.scriptScene()->backgroundBrush().color().lightness() > 200);
        window.setDarkTheme(true);
        QVERIFY(part<QAction>(window, "darkThemeAction")->isChecked());
        // Diff outlines and legend swatches get lighter on the dark background.
        QVERIFY(diffStatusColor(DiffStatus::Inserted).lightness() > lightInserted.lightness() + 20);
        QVERIFY(window.scriptScene()->backgroundBrush().color().lightness() < 60);
        QVERIFY(window.scriptView()->backgroundBrush().color().lightness() < 60);
        QVERIFY(tracePage(window, 0)->scene()->backgroundBrush().color().lightness() < 60);
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 80);
        QVERIFY(QApplication::palette().color(QPalette::WindowText).lightness() > 200);
        // Node text stays readable: the rendered graph has dark fills, not the light theme's pastels.
        QImage image(400, 300, QImage::Format_ARGB32);
        image.fill(Qt::black);
        {
            QPainter painter(&image);
            window.scriptScene()->render(&painter);
        }
        QVERIFY(QColor(image.pixel(2, 2)).lightness() < 60);
        // The source view follows the palette: light syntax colours and dark line highlights on a dark base.
        SourceView* source = part<SourceView>(window, "sourceView");
        QCoreApplication::processEvents(); // QApplication posts the palette change to its widgets
        QVERIFY(source->isDarkTheme());
        source->highlightLine(2);
        QVERIFY(!source->extraSelections().isEmpty());
        QVERIFY(source->extraSelections().constLast().format.background().color().lightness() < 100);
        QCOMPARE(syntaxLightness(source, 60), 1);
        {
            MainWindow other;
            other.restoreSettings();
            QVERIFY(part<QAction>(other, "darkThemeAction")->isChecked()); // saved
        }
        window.setDarkTheme(false);
        QVERIFY(window.scriptScene()->backgroundBrush().color().lightness() > 200);
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() > 150);
        QCoreApplication::processEvents();
        QVERIFY(!source->isDarkTheme());
        QCOMPARE(syntaxLightness(source, 60), -1);
        source->highlightLine(2);
        QVERIFY(source->extraSelections().constLast().format.background().color().lightness() > 200);
    }

private:
    /// Over the coloured spans of the first @p lines source lines: 1 if all are light, -1 if all dark, 0 if mixed.
    static int syntaxLightness(SourceView* view, int lines)
    {
        int light = 0, dark = 0;
        for (QTextBlock b = view->document()->begin(); b.isValid() && b.blockNumber() < lines; b = b.next()) {
            for (const QTextLayout::FormatRange& r : b.layout()->formats()) {
                if (r.format.hasProperty(QTextFormat::ForegroundBrush))
                    (r.format.foreground().color().lightness() > 128 ? light : dark)++;
            }
        }
        if (light + dark == 0)
            return 0;
        return dark == 0 ? 1 : light == 0 ? -1 : 0;
    }
};

QTEST_MAIN(TestMainWindowTools)
#include "tst_mainwindowtools.moc"
