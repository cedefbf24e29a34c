// DebugUiController without a MainWindow (a plain QMainWindow holds its docks): breakpoints by source line, a
// session started by a step command and paused at the first node with its markers, stopping, and the exclusion of
// the check: a running check is canceled for the session and wanted again when the session ends.

#include "checkcontroller.h"
#include "debugcontroller.h"
#include "debuguicontroller.h"
#include "documentcontroller.h"
#include "framesmodel.h"
#include "graphpage.h"
#include "graphscene.h"
#include "inputsetsmodel.h"
#include "sourceview.h"

#include <QAction>
#include <QMainWindow>
#include <QMenu>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

Q_DECLARE_METATYPE(jitscope::CheckJobResult)
Q_DECLARE_METATYPE(jitscope::DocumentJob)

using namespace jitscope;

namespace {

constexpr int kTimeoutMs = 60000;

struct Rig
{
    QMainWindow window;
    QTabWidget* tabs = new QTabWidget;
    GraphPage* script = new GraphPage;
    SourceView* source = new SourceView;
    DocumentController document;
    InputSetsModel sets;
    CheckController check { &document, &sets };
    DebugUiController* debug = nullptr;
    QMenu menu;

    Rig()
    {
        tabs->addTab(script, QStringLiteral("Script"));
        window.setCentralWidget(tabs);
        debug = new DebugUiController({ &window, tabs, script, source, &sets }, &document, &check, &window);
        debug->createDocks();
        debug->createActions(&menu);
    }

    bool load(const QString& path, const QString& function = {})
    {
        QSignalSpy loaded(&document, &DocumentController::loaded);
        document.open(path, function);
        if (!loaded.wait(kTimeoutMs) || !document.hasModel())
            return false;
        const FunctionInfo* fn = document.model().function(document.currentFunction());
        script->showLayout(fn->graph, document.cachedLayout(fn->name), fn->name, QString());
        source->setSource(document.model().source);
        document.setShownFunction(fn->name);
        sets.setSets(document.model().inputSets);
        debug->updateActions();
        return true;
    }
};

} // namespace

class TestDebugUiController : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<CheckJobResult>();
        qRegisterMetaType<DocumentJob>();
    }

    void breakpointsByLine()
    {
        Rig rig;
        QVERIFY(rig.load(QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py")));
        QVERIFY(rig.debug->action(DebugAction::ToggleBreakpoint)->isEnabled());
        rig.debug->toggleBreakpoint(7);
        rig.debug->setBreakpoint(5, 2);
        QCOMPARE(rig.debug->breakpoints(), (QMap<int, int> { { 5, 2 }, { 7, -1 } }));
        QCOMPARE(rig.source->breakpoints(), rig.debug->breakpoints());
        QCOMPARE(rig.debug->debugger()->breakpoints().size(), 2);
        rig.debug->toggleBreakpoint(7);
        QCOMPARE(rig.debug->breakpoints(), (QMap<int, int> { { 5, 2 } }));
        // Another file: the breakpoints go.
        rig.debug->reset();
        QVERIFY(rig.debug->breakpoints().isEmpty());
    }

    void stepIntoPausesAtTheFirstNode()
    {
        Rig rig;
        QVERIFY(rig.load(QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py")));
        QSignalSpy paused(rig.debug, &DebugUiController::paused);
        QSignalSpy status(rig.debug, &DebugUiController::statusMessage);
        rig.debug->command(DebugCommand::StepInto);
        QVERIFY(rig.debug->isActive());
        QVERIFY(paused.wait(kTimeoutMs));
        QVERIFY(rig.debug->debugger()->isPaused());
        QVERIFY(rig.script->scene()->executionNode() >= 0);
        QCOMPARE(rig.source->executionLine(), 5); // result = x[0]
        QVERIFY(status.last().first().toString().startsWith(QLatin1String("Paused before")));
        QVERIFY(rig.debug->framesModel()->rowCount() > 0);
        QVERIFY(rig.debug->action(DebugAction::StepOver)->isEnabled());
        QSignalSpy finished(rig.debug, &DebugUiController::finished);
        rig.debug->stop();
        QVERIFY(finished.wait(kTimeoutMs));
        QVERIFY(!rig.debug->isActive());
        QCOMPARE(rig.script->scene()->executionNode(), -1);
        QCOMPARE(rig.source->executionLine(), 0);
    }

    void sessionCancelsTheCheckAndWantsItBack()
    {
        Rig rig;
        QVERIFY(
            rig.load(QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/bad/infinite_loop.py"), QStringLiteral("spin")));
        QSignalSpy checkFinished(&rig.check, &CheckController::finished);
        rig.check.run(true);
        QVERIFY(rig.check.isChecking());
        QSignalSpy wanted(rig.debug, &DebugUiController::checkWanted);
        rig.debug->command(DebugCommand::Continue);
        QVERIFY(rig.debug->isCheckDeferred());
        // The check stops at its next node, or (when the session took the model first) once the session lets go.
        QSignalSpy finished(rig.debug, &DebugUiController::finished);
        QVERIFY(!finished.wait(300)); // spinning
        rig.debug->stop();
        QVERIFY(finished.count() == 1 || finished.wait(kTimeoutMs));
        QVERIFY(checkFinished.count() == 1 || checkFinished.wait(kTimeoutMs));
        QVERIFY(checkFinished.first().first().value<CheckJobResult>().canceled);
        QCOMPARE(wanted.count(), 1);
        QVERIFY(!rig.debug->isCheckDeferred());
    }
};

QTEST_MAIN(TestDebugUiController)
#include "tst_debuguicontroller.moc"
