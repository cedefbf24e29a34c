#include "comparewidget.h"
#include "divergencemodel.h"
#include "graphitems.h"
#include "graphscene.h"
#include "graphview.h"
#include "inputsetseditor.h"
#include "inputsetsmodel.h"
#include "mainwindow.h"
#include "modeltreemodel.h"
#include "operatorlibrariesdialog.h"
#include "sessionstore.h"
#include "sourceview.h"
#include "warningsmodel.h"
#include "windowtest.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QListWidget>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QMimeData>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

using namespace jitscope;
using namespace jitscope::test;

namespace {

const TraceDiff* diffWith(const CheckReport& report, int other)
{
    for (const TraceDiff& d : report.diffs) {
        if (d.base == 0 && d.other == other)
            return &d;
    }
    return nullptr;
}

int distinctColours(const QImage& image, int limit)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3) {
        for (int x = 0; x < image.width(); x += 3) {
            colours.insert(image.pixel(x, y));
            if (colours.size() >= limit)
                return int(colours.size());
        }
    }
    return int(colours.size());
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        // Keep the user's recent files and window state out of the tests.
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY2(QFile::exists(example("loop_in_traced_fn.py")), qPrintable(example("loop_in_traced_fn.py")));
    }

    void doubleClickFoldsAndUnfoldsALoop()
    {
        MainWindow window;
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        GraphScene* scene = window.scriptScene();
        const int unfolded = scene->nodeCount();
        int loopId = -1;
        for (const IrNode& n : window.model().function(window.currentFunction())->graph.nodes)
            if (n.kind == QLatin1String("prim::Loop"))
                loopId = n.id;
        QVERIFY(loopId >= 0);
        QSignalSpy idle(&window, &MainWindow::idle);
        Q_EMIT scene->foldToggleRequested(loopId, QString());
        QTRY_VERIFY(scene->nodeCount() < unfolded);
        QTRY_VERIFY(window.isIdle());
        // The loop's body (select, mul) is gone, the loop itself stays.
        QCOMPARE(scene->nodeCount(), unfolded - 2);
        QVERIFY(scene->nodeItem(loopId));
        Q_EMIT scene->foldToggleRequested(loopId, QString());
        QTRY_COMPARE(scene->nodeCount(), unfolded);
        QTRY_VERIFY(window.isIdle());
        // The same with a real double click on the loop's cluster title.
        ClusterItem* loopCluster = nullptr;
        for (ClusterItem* c : scene->clusterItems())
            if (c->nodeId() == loopId && c->kind() == ClusterItem::Kind::Loop)
                loopCluster = c;
        QVERIFY(loopCluster);
        QGraphicsView* view = window.scriptView();
        const QPoint at = view->mapFromScene(loopCluster->mapToScene(loopCluster->rect().topLeft() + QPointF(6, 4)));
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, at);
        QTRY_COMPARE(scene->nodeCount(), unfolded - 2);
    }

    void startsWithWelcomeMessage()
    {
        MainWindow window;
        QVERIFY(window.isIdle());
        QVERIFY(!window.hasModel());
        QVERIFY(!window.scriptScene()->messageTitle().isEmpty());
        QCOMPARE(window.scriptScene()->nodeCount(), 0);
    }

    void opensExample()
    {
        MainWindow window;
        QTreeView* treeView = part<QTreeView>(window, "modelTreeView");
        ModelTreeModel* treeModel = part<ModelTreeModel>(window, "modelTreeModel");
        SourceView* sourceView = part<SourceView>(window, "sourceView");
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        QSignalSpy loaded(&window, &MainWindow::fileLoaded);
        // What the status says once the graph is shown; once the check is done it describes the first divergence.
        QString statusAfterLoad;
        connect(&window, &MainWindow::fileLoaded, &window, [&] { statusAfterLoad = window.statusText(); });
        window.openFile(example("loop_in_traced_fn.py"));
        QVERIFY(!window.isIdle());
        QVERIFY(window.statusText().startsWith(QLatin1String("Loading")));
        QVERIFY(waitIdle(window));
        QCOMPARE(loaded.count(), 1);
        QVERIFY2(loaded.first().at(0).toBool(), qPrintable(window.lastError()));
        QVERIFY2(window.lastError().isEmpty(), qPrintable(window.lastError()));
        QVERIFY(window.hasModel());

        // The Script tab shows the graph of the default function.
        GraphScene* scene = window.scriptScene();
        QVERIFY2(scene->nodeCount() > 0, qPrintable(scene->messageTitle() + QLatin1Char(' ') + scene->messageText()));
        QVERIFY(scene->edgeCount() > 0);
        QVERIFY(!window.currentFunction().isEmpty());
        const FunctionInfo* fn = window.model().function(window.currentFunction());
        QVERIFY(fn && fn->ok);
        QVERIFY2(statusAfterLoad.contains(QStringLiteral("%1 nodes").arg(fn->graph.nodes.size())),
            qPrintable(statusAfterLoad));
        QVERIFY(statusAfterLoad.contains(QLatin1String(" ms")));

        // The tree lists the function and has it current; the source panel holds the file.
        const QModelIndex current = treeView->currentIndex();
        QCOMPARE(current.data(ModelTreeModel::FunctionNameRole).toString(), window.currentFunction());
        QVERIFY(treeModel->rowCount(treeModel->groupIndex(ModelTreeModel::ItemKind::Function)) >= 1);
        QVERIFY(sourceView->toPlainText().contains(QLatin1String("def loop_in_traced_fn")));
        QVERIFY(treeView->isExpanded(treeModel->groupIndex(ModelTreeModel::ItemKind::InputSet)));
        QCOMPARE(treeModel->rowCount(treeModel->groupIndex(ModelTreeModel::ItemKind::InputSet)),
            window.model().inputSets.size());

        // Clicking a node describes it in the status bar and marks its line when it has one.
        int nodeId = -1;
        for (NodeItem* item : scene->nodeItems()) {
            if (item->nodeId() >= 0) {
                nodeId = item->nodeId();
                break;
            }
        }
        QVERIFY(nodeId >= 0);
        scene->selectNode(nodeId);
        const IrNode& node = fn->graph.node(nodeId);
        QVERIFY2(window.statusText().startsWith(node.kind), qPrintable(window.statusText()));
        if (node.location.isValid())
            QCOMPARE(sourceView->highlightedLine(), node.location.line);

        // The window renders to something that is not blank.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString shot = dir.filePath(QStringLiteral("shot.png"));
        QVERIFY(window.grab().save(shot));
        const QImage image(shot);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), window.size() * window.devicePixelRatio());
        QVERIFY(distinctColours(image, 16) >= 16);

        // Export writes SVG and PNG.
        QString error;
        const QString svg = dir.filePath(QStringLiteral("graph.svg"));
        QVERIFY2(window.exportView(svg, &error), qPrintable(error));
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        QVERIFY(svgFile.readAll().contains("<svg"));
        const QString png = dir.filePath(QStringLiteral("graph.png"));
        QVERIFY2(window.exportView(png, &error), qPrintable(error));
        const QImage exported(png);
        QVERIFY(!exported.isNull());
        QVERIFY(distinctColours(exported, 8) >= 8);
    }

    void missingFileShowsError()
    {
        MainWindow window;
        window.show();
        QSignalSpy loaded(&window, &MainWindow::fileLoaded);
        window.openFile(QStringLiteral("/nonexistent/model.py"));
        QVERIFY(waitIdle(window));
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded.first().at(0).toBool(), false);
        QVERIFY(!window.lastError().isEmpty());
        QVERIFY(!window.hasModel());
        QCOMPARE(window.scriptScene()->nodeCount(), 0);
        QVERIFY(window.scriptScene()->messageTitle().startsWith(QLatin1String("Could not open")));
        QVERIFY(window.statusText().startsWith(QLatin1String("Failed to load")));
    }

    void missingFunctionIsReported()
    {
        MainWindow window;
        window.openFile(example("loop_in_traced_fn.py"), QStringLiteral("no_such_function"));
        QVERIFY(waitIdle(window));
        QVERIFY(window.hasModel());
        QVERIFY(window.lastError().contains(QLatin1String("no_such_function")));
    }

    void staleLoadIsDropped()
    {
        MainWindow window;
        window.show();
        QSignalSpy loaded(&window, &MainWindow::fileLoaded);
        // The second open overtakes the first: only its result may be shown.
        window.openFile(QStringLiteral("/nonexistent/first.py"));
        window.openFile(example("loop_in_traced_fn.py"));
        QVERIFY(waitIdle(window));
        QCOMPARE(loaded.count(), 1);
        QVERIFY2(window.lastError().isEmpty(), qPrintable(window.lastError()));
        QVERIFY(documentController(window)->currentFile().endsWith(QLatin1String("loop_in_traced_fn.py")));
        QVERIFY(window.scriptScene()->nodeCount() > 0);
    }

    void opensArchive()
    {
        const QString archive = QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/archives/conv_block.pt");
        if (!QFile::exists(archive))
            QSKIP("tests/data/archives/conv_block.pt is missing");
        MainWindow window;
        window.show();
        window.openFile(archive);
        QVERIFY(waitIdle(window));
        QVERIFY2(window.lastError().isEmpty(), qPrintable(window.lastError()));
        QCOMPARE(window.currentFunction(), QStringLiteral("forward"));
        QVERIFY(window.scriptScene()->nodeCount() > 0);
        ModelTreeModel* tree = part<ModelTreeModel>(window, "modelTreeModel");
        QVERIFY(tree->rowCount(tree->groupIndex(ModelTreeModel::ItemKind::Submodule)) > 0);
        QVERIFY(tree->rowCount(tree->groupIndex(ModelTreeModel::ItemKind::Parameter)) > 0);

        // Choosing a method in the tree lays it out.
        const QModelIndex method = tree->indexOfFunction(QStringLiteral("fc.forward"));
        QVERIFY(method.isValid());
        part<QTreeView>(window, "modelTreeView")->setCurrentIndex(method);
        QVERIFY(waitIdle(window));
        QCOMPARE(window.currentFunction(), QStringLiteral("fc.forward"));
        QVERIFY(window.scriptScene()->nodeCount() > 0);
    }

    void dropOpensFile()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QMimeData data;
        data.setUrls({ QUrl::fromLocalFile(example("loop_in_traced_fn.py")) });
        const QPoint pos = window.rect().center();
        QDragEnterEvent enter(pos, Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(pos, Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        QVERIFY(documentController(window)->currentFile().endsWith(QLatin1String("loop_in_traced_fn.py")));
        QVERIFY(waitIdle(window));
        QVERIFY(window.scriptScene()->nodeCount() > 0);

        QMimeData text;
        text.setUrls({ QUrl::fromLocalFile(QStringLiteral("/tmp/notes.txt")) });
        QDragEnterEvent rejected(pos, Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &rejected);
        QVERIFY(!rejected.isAccepted());
    }

    void recentFilesAfterRestore()
    {
        QSettings(QStringLiteral("JitScope"), QStringLiteral("JitScope")).remove(QStringLiteral("recentFiles"));
        MainWindow window;
        window.restoreSettings();
        window.openFile(example("loop_in_traced_fn.py"));
        QVERIFY(waitIdle(window));
        const QStringList recent = QSettings(QStringLiteral("JitScope"), QStringLiteral("JitScope"))
                                       .value(QStringLiteral("recentFiles"))
                                       .toStringList();
        QCOMPARE(recent.value(0), QFileInfo(example("loop_in_traced_fn.py")).absoluteFilePath());
    }

    void switchingFunctions_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addRow("example") << example("loop_in_traced_fn.py");
        // Several functions, one of them failing to compile: every one is shown in turn.
        QTest::addRow("arange_shape") << QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/corpus/arange_shape.py");
        QTest::addRow("compile_error") << QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/corpus/compile_error.py");
    }

    void switchingFunctions()
    {
        QFETCH(QString, path);
        MainWindow window;
        DocumentController* document = documentController(window);
        window.show();
        window.openFile(path);
        QVERIFY(waitIdle(window));
        QVERIFY2(window.lastError().isEmpty(), qPrintable(window.lastError()));
        const QString first = window.currentFunction();
        for (const FunctionInfo& fn : window.model().functions) {
            if (fn.name == first)
                continue;
            document->showFunction(fn.name);
            QVERIFY(waitIdle(window));
            QCOMPARE(window.currentFunction(), fn.name);
            // A compiled function shows its graph, or says it is empty; never a layout error passing for a graph.
            if (fn.ok)
                QVERIFY2(window.scriptScene()->nodeCount() > 0
                        || window.scriptScene()->messageTitle() == fn.name + QStringLiteral(" has an empty graph"),
                    qPrintable(
                        window.scriptScene()->messageTitle() + QLatin1Char(' ') + window.scriptScene()->messageText()));
            else
                QVERIFY(window.scriptScene()->messageTitle().contains(QLatin1String("failed to compile")));
        }
        // Back to the first function: its layout is cached, so it shows without a job.
        document->showFunction(first);
        QVERIFY(window.isIdle());
        QCOMPARE(window.currentFunction(), first);
        QVERIFY(window.scriptScene()->nodeCount() > 0);
    }

    void compareMarksInsertedNodes()
    {
        MainWindow window;
        CheckView* checkView = part<CheckView>(window, "checkView");
        QSignalSpy checked(&window, &MainWindow::checkFinished);
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        QCOMPARE(checked.count(), 1);
        const CheckReport& report = checkController(window)->report();
        QVERIFY2(report.ok, qPrintable(report.error.toString()));
        QCOMPARE(report.traces.size(), 3);
        QVERIFY(!report.consistent);
        QCOMPARE(checkView->traceCount(), 3);
        QVERIFY(checkView->verdictText().contains(QLatin1String("diverged")));
        // The check diverges, so the window shows the comparison first: trace 1 against trace 2.
        QCOMPARE(window.currentView(), MainWindow::View::Compare);
        CompareWidget* compare = part<CompareWidget>(window, "compareWidget");
        QCOMPARE(compare->graphOn(CompareWidget::Side::Left), 0);
        QCOMPARE(compare->graphOn(CompareWidget::Side::Right), 1);

        const TraceDiff* diff = diffWith(report, 1);
        QVERIFY(diff && !diff->equal);
        QSet<int> inserted;
        for (const NodeChange& c : diff->changes) {
            QCOMPARE(c.op, NodeChange::Op::Insert);
            inserted.insert(c.otherNode);
        }
        GraphScene* right = compare->scene(CompareWidget::Side::Right);
        GraphScene* left = compare->scene(CompareWidget::Side::Left);
        QCOMPARE(QSet<int>(right->nodeStatuses().keyBegin(), right->nodeStatuses().keyEnd()), inserted);
        // Exactly the inserted nodes that have a box are drawn as inserted; the others are folded constants.
        QSet<int> drawnInserted, expected;
        for (NodeItem* item : right->nodeItems()) {
            if (item->diffStatus() == DiffStatus::Inserted)
                drawnInserted.insert(item->nodeId());
            else
                QCOMPARE(item->diffStatus(), DiffStatus::Unchanged);
        }
        for (int id : inserted) {
            if (right->nodeItem(id))
                expected.insert(id);
            else
                QCOMPARE(report.traces.at(1).graph.node(id).kind, QStringLiteral("prim::Constant"));
        }
        QVERIFY(!expected.isEmpty());
        QCOMPARE(drawnInserted, expected);
        for (NodeItem* item : left->nodeItems())
            QCOMPARE(item->diffStatus(), DiffStatus::Unchanged);

        // The divergence list: one row per divergence, its nodes under it, the loop's explained by its trip count.
        DivergenceModel* model = compare->divergenceModel();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(!diff->divergences.isEmpty());
        QVERIFY(diff->divergences.size() < diff->changes.size());
        QCOMPARE(model->rowCount(), diff->divergences.size());
        int nodes = 0;
        bool explained = false;
        for (int row = 0; row < model->rowCount(); ++row) {
            nodes += model->rowCount(model->index(row, 0));
            explained = explained
                || (model->index(row, DivergenceModel::CauseColumn)
                        .data()
                        .toString()
                        .contains(QLatin1String("x.size(0)"))
                    && model->index(row, 0).data(DivergenceModel::KindRole).toString()
                        == QLatin1String("loop-unrolled"));
        }
        QCOMPARE(nodes, diff->changes.size());
        QVERIFY(explained);

        // The window opens on the first divergence: its nodes marked, its line in the source, its cause in the status.
        const int count = model->divergenceCount();
        QCOMPARE(compare->divergenceView()->currentIndex(), model->index(0, 0));
        const Divergence& first = diff->divergences.first();
        QVERIFY(right->selectedNodeId() >= 0);
        QVERIFY(first.otherNodes.contains(right->selectedNodeId()) || !right->linkedNodes().isEmpty());
        QCOMPARE(part<SourceView>(window, "sourceView")->highlightedLine(), first.location.line);
        QVERIFY2(window.statusText().startsWith(QLatin1String("Divergence 1 of")), qPrintable(window.statusText()));
        QVERIFY2(window.statusText().contains(QLatin1String("x.size(0)")), qPrintable(window.statusText()));

        // A node row under it selects that node on both sides.
        const QModelIndex node = model->index(0, 0, model->index(0, 0));
        compare->divergenceView()->setCurrentIndex(node);
        const NodeChange& change = model->change(model->changeOf(node));
        if (change.otherNode >= 0 && right->displayedNode(change.otherNode) >= 0)
            QCOMPARE(right->selectedNodeId(), right->displayedNode(change.otherNode));
        QVERIFY2(window.statusText().contains(QLatin1String("node 1 of")), qPrintable(window.statusText()));

        // F8 goes to the next divergence, Shift+F8 back, and both wrap around.
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(&window, Qt::Key_F8);
        QCOMPARE(compare->divergenceView()->currentIndex(), model->index(1 % count, 0));
        QVERIFY2(window.statusText().startsWith(QStringLiteral("Divergence %1 of").arg(1 % count + 1)),
            qPrintable(window.statusText()));
        QTest::keyClick(&window, Qt::Key_F8, Qt::ShiftModifier);
        QTest::keyClick(&window, Qt::Key_F8, Qt::ShiftModifier);
        QCOMPARE(compare->divergenceView()->currentIndex(), model->index(count - 1, 0));

        // Dimming fades what both traces share.
        compare->setDimUnchanged(true);
        for (NodeItem* item : right->nodeItems()) {
            if (item->diffStatus() == DiffStatus::Inserted)
                QVERIFY(!item->isDimmed());
            else if (!item->isSelected())
                QVERIFY(item->isDimmed());
        }
        compare->setDimUnchanged(false);

        // The other way round, the same nodes are deleted on the left.
        compare->setPair(1, 0);
        QCOMPARE(QSet<int>(left->nodeStatuses().keyBegin(), left->nodeStatuses().keyEnd()), inserted);
        for (DiffStatus status : left->nodeStatuses())
            QCOMPARE(status, DiffStatus::Deleted);
        QVERIFY(right->nodeStatuses().isEmpty());

        // Trace against script: no diff, but selecting a script node marks what it recorded.
        compare->setPair(0, Comparison::Script);
        QCOMPARE(model->rowCount(), 0);
        int loopMul = -1;
        for (const IrNode& n : report.script.nodes) {
            if (n.kind == QLatin1String("aten::mul") && n.parentNode >= 0)
                loopMul = n.id;
        }
        QVERIFY(loopMul >= 0);
        right->selectNode(loopMul);
        QCOMPARE(left->linkedNodes().size(), 3);
    }

    void linkedSelection()
    {
        MainWindow window;
        CheckController* check = checkController(window);
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        QVERIFY(check->hasReport());
        window.showView(MainWindow::View::Trace);
        QCOMPARE(window.currentView(), MainWindow::View::Trace);
        const CheckReport& report = check->report();
        int loopMul = -1;
        for (const IrNode& n : report.script.nodes) {
            if (n.kind == QLatin1String("aten::mul") && n.parentNode >= 0)
                loopMul = n.id;
        }
        QVERIFY(loopMul >= 0);

        // A script node inside the loop: its trace nodes, one per iteration, in every trace tab.
        window.scriptScene()->selectNode(loopMul);
        GraphScene* trace1 = tracePage(window, 0)->scene();
        QCOMPARE(trace1->linkedNodes().size(), 3);
        QSet<QString> tags;
        for (int id : trace1->linkedNodes())
            tags.insert(trace1->nodeItem(id)->linkTag());
        QCOMPARE(tags, QSet<QString>({ "iteration 1", "iteration 2", "iteration 3" }));
        QCOMPARE(tracePage(window, 1)->scene()->linkedNodes().size(), 4);
        QCOMPARE(tracePage(window, 2)->scene()->linkedNodes().size(), 2);
        QVERIFY2(window.statusText().startsWith(QLatin1String("aten::mul")), qPrintable(window.statusText()));
        QVERIFY2(
            window.statusText().contains(QLatin1String("trace 1: iteration 1: %")), qPrintable(window.statusText()));
        QVERIFY2(window.statusText().contains(QLatin1String("iteration 3: %")), qPrintable(window.statusText()));

        // A trace node: the script node that recorded it and its line.
        const int traceMul = trace1->linkedNodes().constLast();
        trace1->selectNode(traceMul);
        QCOMPARE(window.scriptScene()->selectedNodeId(), loopMul);
        QCOMPARE(part<SourceView>(window, "sourceView")->highlightedLine(), 7);
        QVERIFY2(window.statusText().startsWith(QStringLiteral("Trace 1 \u00b7 aten::mul")),
            qPrintable(window.statusText()));
        QVERIFY2(window.statusText().contains(QLatin1String("iteration")), qPrintable(window.statusText()));
        QVERIFY(trace1->linkedNodes().isEmpty());
    }

    void warningClickSelectsTraceNode()
    {
        const QString path = QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/corpus/inplace_ops.py");
        MainWindow window;
        SourceView* sourceView = part<SourceView>(window, "sourceView");
        QVERIFY(openAndWait(window, path));
        const CheckController* checker = checkController(window);
        QVERIFY2(checker->hasReport() && checker->report().ok, qPrintable(checker->report().error.toString()));
        WarningsModel* warnings = part<WarningsModel>(window, "warningsModel");
        QAbstractItemModelTester tester(warnings, QAbstractItemModelTester::FailureReportingMode::QtTest);
        int row = -1;
        for (int r = 0; r < warnings->rowCount(); ++r) {
            if (warnings->warning(r).traceNode >= 0 && warnings->warning(r).traceIndex > 0) {
                row = r;
                break;
            }
        }
        QVERIFY2(row >= 0, "inplace_ops.py has no warning on a trace node of a check input");
        const TraceWarning w = warnings->warning(row);
        QVERIFY(!sourceView->warningLines().isEmpty());
        QVERIFY(sourceView->warningLines().contains(w.location.line));

        QTreeView* view = part<QTreeView>(window, "warningsView");
        const QModelIndex index = warnings->index(row, WarningsModel::KindColumn);
        view->scrollTo(index);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());
        QCOMPARE(window.currentView(), MainWindow::View::Trace);
        GraphScene* scene = tracePage(window, w.traceIndex)->scene();
        QCOMPARE(part<QTabWidget>(window, "graphTabs")->currentWidget(),
            tracePage(window, w.traceIndex)->view()->parentWidget());
        QVERIFY(scene->selectedNodeId() >= 0);
        QCOMPARE(scene->selectedNodeId(), scene->displayedNode(w.traceNode));
        QCOMPARE(sourceView->highlightedLine(), w.location.line);
        QVERIFY(scene->warnedNodes().contains(w.traceNode));
    }

    void loopWarningShowsUnrolledNodes()
    {
        MainWindow window;
        SelectionLinker* linker = part<SelectionLinker>(window, "selectionLinker");
        CompareWidget* compare = part<CompareWidget>(window, "compareWidget");
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        WarningsModel* warnings = part<WarningsModel>(window, "warningsModel");
        int row = -1;
        for (int r = 0; r < warnings->rowCount(); ++r) {
            if (warnings->warning(r).kind == WarningKind::ShapeDependentLoop && warnings->warning(r).traceIndex == 1)
                row = r;
        }
        QVERIFY(row >= 0);
        linker->activateWarning(row);
        QCOMPARE(part<QTabWidget>(window, "graphTabs")->currentWidget(), tracePage(window, 1)->view()->parentWidget());
        // Trace 2 ran the loop 4 times: a select and a mul per iteration.
        QCOMPARE(tracePage(window, 1)->scene()->linkedNodes().size(), 8);
        QCOMPARE(part<SourceView>(window, "sourceView")->highlightedLine(), 6);

        // The output mismatch of set 2 leads to the comparison of trace 1 and trace 2.
        for (int r = 0; r < warnings->rowCount(); ++r) {
            if (warnings->warning(r).kind == WarningKind::OutputMismatch && warnings->warning(r).traceIndex == 1)
                linker->activateWarning(r);
        }
        QCOMPARE(window.currentView(), MainWindow::View::Compare);
        QCOMPARE(compare->graphOn(CompareWidget::Side::Right), 1);
        QCOMPARE(compare->divergenceView()->currentIndex(),
            compare->divergenceModel()->index(0, 0));
    }

    void invalidInputSetBlocksCheck()
    {
        MainWindow window;
        CheckView* checkView = part<CheckView>(window, "checkView");
        CompareWidget* compare = part<CompareWidget>(window, "compareWidget");
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        InputSetsEditor* editor = part<InputSetsEditor>(window, "inputSetsEditor");
        InputSetsModel* sets = editor->model();
        QCOMPARE(sets->rowCount(), window.model().inputSets.size());
        QVERIFY(editor->checkButton()->isEnabled());

        const QModelIndex second = sets->index(1, InputSetsModel::SetColumn);
        QVERIFY(sets->setData(second, QStringLiteral("f32[4,5")));
        QVERIFY(!second.data(InputSetsModel::ValidRole).toBool());
        QVERIFY(!editor->checkButton()->isEnabled());
        QVERIFY2(editor->statusText().contains(QLatin1String("Set 2")), qPrintable(editor->statusText()));
        window.runCheck();
        QVERIFY(window.isIdle());
        QVERIFY(!checkController(window)->hasReport());
        QCOMPARE(checkView->traceCount(), 0);
        QVERIFY(compare->messageTitle().contains(QLatin1String("invalid")));

        // Two sets with the same leading dimension unroll the loop equally: the check passes.
        QVERIFY(sets->setData(second, QStringLiteral("f32[3,2,2]")));
        QVERIFY(sets->removeSet(2));
        QVERIFY(editor->checkButton()->isEnabled());
        QSignalSpy checked(&window, &MainWindow::checkFinished);
        editor->checkButton()->click();
        QVERIFY(checked.wait(kJobTimeoutMs));
        QVERIFY(checkController(window)->report().ok);
        QVERIFY(checkController(window)->report().consistent);
        QCOMPARE(checkView->traceCount(), 2);
        QVERIFY(checkView->verdictText().contains(QLatin1String("consistent")));
        QCOMPARE(compare->divergenceModel()->rowCount(), 0);
    }

    void checkCanBeCanceled()
    {
        MainWindow window;
        CheckController* check = checkController(window);
        CheckView* checkView = part<CheckView>(window, "checkView");
        connect(&window, &MainWindow::fileLoaded, &window, [check] {
            QVERIFY(check->isChecking());
            check->cancel();
        });
        QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
        QVERIFY(!check->isChecking());
        QVERIFY(!check->hasReport());
        QCOMPARE(checkView->traceCount(), 0);
        QCOMPARE(part<CompareWidget>(window, "compareWidget")->messageTitle(), QStringLiteral("Check canceled"));
        // F5 runs it again.
        QSignalSpy checked(&window, &MainWindow::checkFinished);
        window.runCheck();
        QVERIFY(checked.wait(kJobTimeoutMs));
        QVERIFY(check->hasReport());
        QCOMPARE(checkView->traceCount(), 3);
    }
    /// Model > Operator Libraries: the dialog adds libraries once each and removes the selected ones; what it is
    /// left with is remembered across runs (QSettings), and every load goes with it.
    void operatorLibrariesRemembered()
    {
        const QString a = QStringLiteral("/opt/ops/libfirst.so");
        const QString b = QStringLiteral("/opt/ops/libsecond.so");
        OperatorLibrariesDialog dialog({ a }, { QStringLiteral("/tmp/run-only.so") });
        dialog.addLibraries({ b, a });
        QCOMPARE(dialog.libraries(), QStringList({ a, b }));
        dialog.list()->setCurrentRow(0);
        dialog.removeSelected();
        QCOMPARE(dialog.libraries(), QStringList { b });
        {
            MainWindow window;
            window.restoreSettings();
            window.setOperatorLibraries({ a, b });
            QCOMPARE(part<SessionStore>(window, "sessionStore")->operatorLibraries(), QStringList({ a, b }));
        }
        {
            MainWindow window;
            SessionStore* session = part<SessionStore>(window, "sessionStore");
            window.restoreSettings();
            QCOMPARE(session->operatorLibraries(), QStringList({ a, b }));
            // The libraries of this run (--load-ops) go with the remembered ones, and are not remembered.
            window.setRunOperatorLibraries({ QStringLiteral("/tmp/run-only.so") });
            QVERIFY(openAndWait(window, example("loop_in_traced_fn.py")));
            QCOMPARE(session->operatorLibraries(), QStringList({ a, b }));
            // None of them exists: each is a warning of the model, which loads.
            int warned = 0;
            for (const Diagnostic& d : window.model().warnings)
                warned += d.message.startsWith(QLatin1String("operator library "));
            QCOMPARE(warned, 3);
            window.setOperatorLibraries({});
        }
        MainWindow window;
        window.restoreSettings();
        QVERIFY(part<SessionStore>(window, "sessionStore")->operatorLibraries().isEmpty());
    }

    void inputSetsAreSavedPerModel()
    {
        const QString path = QFileInfo(example("loop_in_traced_fn.py")).absoluteFilePath();
        const QString edited = QStringLiteral("f32[5,2]");
        {
            MainWindow window;
            InputSetsEditor* inputSets = part<InputSetsEditor>(window, "inputSetsEditor");
            window.restoreSettings();
            QVERIFY(openAndWait(window, path));
            QVERIFY(!inputSets->isEdited());
            InputSetsModel* sets = inputSets->model();
            QVERIFY(sets->setData(sets->index(2, InputSetsModel::SetColumn), edited));
            QVERIFY(inputSets->isEdited());
        }
        {
            // The next session with this file starts from the edited sets, and checks them.
            MainWindow window;
            CheckController* check = checkController(window);
            window.restoreSettings();
            QVERIFY(openAndWait(window, path));
            InputSetsEditor* editor = part<InputSetsEditor>(window, "inputSetsEditor");
            QCOMPARE(editor->model()->texts().value(2), edited);
            QVERIFY(editor->isEdited());
            QVERIFY(check->hasReport());
            QCOMPARE(check->report().traces.value(2).inputs.toString(), edited);

            // Going back to the file's sets forgets the edits and checks again.
            QSignalSpy checked(&window, &MainWindow::checkFinished);
            editor->resetButton()->click();
            QVERIFY(checked.count() == 1 || checked.wait(kJobTimeoutMs));
            QCOMPARE(editor->model()->texts().value(2), window.model().inputSets.value(2).toString());
            QVERIFY(!editor->isEdited());
        }
        {
            MainWindow window;
            window.restoreSettings();
            QVERIFY(openAndWait(window, path));
            QCOMPARE(part<InputSetsEditor>(window, "inputSetsEditor")->model()->texts().value(2),
                window.model().inputSets.value(2).toString());
        }
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
