#include "graphitems.h"
#include "graphscene.h"
#include "graphview.h"
#include "mainwindow.h"
#include "modeltreemodel.h"
#include "sourceview.h"

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

namespace {

constexpr int kJobTimeoutMs = 180 * 1000;

QString example(const char* name)
{
    return QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/") + QLatin1String(name);
}

/// Waits until the window has no pending job; false on timeout.
bool waitIdle(MainWindow& window)
{
    if (window.isIdle())
        return true;
    QSignalSpy spy(&window, &MainWindow::idle);
    return spy.wait(kJobTimeoutMs) && window.isIdle();
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
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        QSignalSpy loaded(&window, &MainWindow::fileLoaded);
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
        QVERIFY2(window.statusText().contains(QStringLiteral("%1 nodes").arg(fn->graph.nodes.size())),
            qPrintable(window.statusText()));
        QVERIFY(window.statusText().contains(QLatin1String(" ms")));

        // The tree lists the function and has it current; the source panel holds the file.
        const QModelIndex current = window.treeView()->currentIndex();
        QCOMPARE(current.data(ModelTreeModel::FunctionNameRole).toString(), window.currentFunction());
        QVERIFY(window.treeModel()->rowCount(window.treeModel()->groupIndex(ModelTreeModel::ItemKind::Function)) >= 1);
        QVERIFY(window.sourceView()->toPlainText().contains(QLatin1String("def loop_in_traced_fn")));
        QVERIFY(window.treeView()->isExpanded(window.treeModel()->groupIndex(ModelTreeModel::ItemKind::InputSet)));
        QCOMPARE(window.treeModel()->rowCount(window.treeModel()->groupIndex(ModelTreeModel::ItemKind::InputSet)),
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
            QCOMPARE(window.sourceView()->highlightedLine(), node.location.line);

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
        QVERIFY(window.currentFile().endsWith(QLatin1String("loop_in_traced_fn.py")));
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
        ModelTreeModel* tree = window.treeModel();
        QVERIFY(tree->rowCount(tree->groupIndex(ModelTreeModel::ItemKind::Submodule)) > 0);
        QVERIFY(tree->rowCount(tree->groupIndex(ModelTreeModel::ItemKind::Parameter)) > 0);

        // Choosing a method in the tree lays it out.
        const QModelIndex method = tree->indexOfFunction(QStringLiteral("fc.forward"));
        QVERIFY(method.isValid());
        window.treeView()->setCurrentIndex(method);
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
        QVERIFY(window.currentFile().endsWith(QLatin1String("loop_in_traced_fn.py")));
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

    void switchingFunctions()
    {
        MainWindow window;
        window.show();
        window.openFile(example("loop_in_traced_fn.py"));
        QVERIFY(waitIdle(window));
        QVERIFY2(window.lastError().isEmpty(), qPrintable(window.lastError()));
        const QString first = window.currentFunction();
        for (const FunctionInfo& fn : window.model().functions) {
            if (fn.name == first)
                continue;
            window.showFunction(fn.name);
            QVERIFY(waitIdle(window));
            QCOMPARE(window.currentFunction(), fn.name);
            if (fn.ok)
                QVERIFY(window.scriptScene()->nodeCount() > 0 || !window.scriptScene()->messageTitle().isEmpty());
            else
                QVERIFY(window.scriptScene()->messageTitle().contains(QLatin1String("failed to compile")));
        }
        // Back to the first function: its layout is cached, so it shows without a job.
        window.showFunction(first);
        QVERIFY(window.isIdle());
        QCOMPARE(window.currentFunction(), first);
        QVERIFY(window.scriptScene()->nodeCount() > 0);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
