// SelectionLinker without a MainWindow: the parts of a window it links, made here, on the example's check. A
// trace node selects the script node that recorded it and its line; a script node marks what it recorded in the
// trace tabs; a warning shows its node.

#include "checkcontroller.h"
#include "checkview.h"
#include "comparewidget.h"
#include "debugcontroller.h"
#include "documentcontroller.h"
#include "graphpage.h"
#include "graphscene.h"
#include "inputsetsmodel.h"
#include "livetracetab.h"
#include "nodeinspector.h"
#include "selectionlinker.h"
#include "sourceview.h"
#include "warningsmodel.h"

#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>

Q_DECLARE_METATYPE(jitscope::CheckJobResult)
Q_DECLARE_METATYPE(jitscope::DocumentJob)

using namespace jitscope;

namespace {

constexpr int kJobTimeoutMs = 120000;

/// What SelectionLinker links, as a window would have it, with the example loaded and checked.
struct Rig
{
    DocumentController document;
    InputSetsModel sets;
    CheckController check { &document, &sets };
    QTabWidget tabs;
    GraphPage* script = new GraphPage;
    CompareWidget* compare = new CompareWidget;
    WarningsModel warnings;
    QTreeView warningsView;
    SourceView source;
    NodeInspector inspector;
    DebugController debugger;
    LiveTraceTab live { &tabs };
    CheckView* view = nullptr;
    SelectionLinker* linker = nullptr;
    QStringList status;

    Rig()
    {
        tabs.addTab(script, QStringLiteral("Script"));
        tabs.addTab(compare, QStringLiteral("Compare"));
        warningsView.setModel(&warnings);
        view = new CheckView(
            { &tabs, script, compare, &warnings, &warningsView, &source, &sets }, &document, &check, &tabs);
        linker = new SelectionLinker({ &tabs, script, view, compare, &warnings, &source, &inspector, &live, &debugger },
            &document, &check, &tabs);
        QObject::connect(linker, &SelectionLinker::statusMessage, [this](const QString& text) { status << text; });
    }

    bool load()
    {
        QSignalSpy loaded(&document, &DocumentController::loaded);
        QSignalSpy shown(view, &CheckView::shown);
        document.open(QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py"));
        if (!loaded.wait(kJobTimeoutMs))
            return false;
        const FunctionInfo* fn = document.model().function(document.currentFunction());
        script->showLayout(fn->graph, document.cachedLayout(fn->name), fn->name, QString());
        source.setSource(document.model().source);
        document.setShownFunction(fn->name);
        sets.setSets(document.model().inputSets);
        check.run(false);
        return shown.wait(kJobTimeoutMs) && check.hasReport() && view->traceCount() == 3;
    }
};

} // namespace

class TestSelectionLinker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<CheckJobResult>();
        qRegisterMetaType<DocumentJob>();
    }

    void traceNodeSelectsItsScriptNode()
    {
        Rig rig;
        QVERIFY(rig.load());
        const IrGraph& trace = rig.check.report().traces.at(1).graph;
        int mul = -1;
        for (const IrNode& n : trace.nodes)
            if (n.kind == QLatin1String("aten::mul") && mul < 0)
                mul = n.id;
        QVERIFY(mul >= 0);
        const int origin = trace.node(mul).originNode;
        QVERIFY(origin >= 0);
        rig.view->tracePage(1)->scene()->selectNode(mul);
        // The script node that recorded it is selected (quietly), its line marked, the selection described.
        QCOMPARE(rig.script->scene()->selectedNodeId(), rig.script->scene()->displayedNode(origin));
        QCOMPARE(rig.source.highlightedLine(), 7); // result = result * x[i]
        QVERIFY(!rig.status.isEmpty());
        QVERIFY2(rig.status.last().startsWith(QLatin1String("Trace 2")), qPrintable(rig.status.last()));
        QCOMPARE(rig.linker->activeTrace(), 1);
        QVERIFY(!rig.inspector.toPlainText().isEmpty());
    }

    void scriptNodeMarksWhatItRecorded()
    {
        Rig rig;
        QVERIFY(rig.load());
        const IrGraph& script = rig.check.report().script;
        int mul = -1;
        for (const IrNode& n : script.nodes)
            if (n.kind == QLatin1String("aten::mul"))
                mul = n.id;
        QVERIFY(mul >= 0);
        rig.script->scene()->selectNode(rig.script->scene()->displayedNode(mul));
        // Trace k unrolls the loop x.size(0) times: that many multiplications, each tagged with its iteration.
        const int expected[] = { 3, 4, 2 };
        for (int k = 0; k < 3; ++k)
            QCOMPARE(rig.view->tracePage(k)->scene()->linkedNodes().size(), expected[k]);
        QCOMPARE(rig.source.highlightedLine(), 7);
        QVERIFY2(rig.status.last().contains(QLatin1String("trace 1:")), qPrintable(rig.status.last()));
        // Deselecting clears the marks.
        rig.script->scene()->selectNode(-1);
        for (int k = 0; k < 3; ++k)
            QVERIFY(rig.view->tracePage(k)->scene()->linkedNodes().isEmpty());
    }

    void warningShowsItsNode()
    {
        Rig rig;
        QVERIFY(rig.load());
        int loopWarning = -1;
        for (int row = 0; row < rig.warnings.rowCount(); ++row)
            if (rig.warnings.warning(row).kind == WarningKind::ShapeDependentLoop && loopWarning < 0)
                loopWarning = row;
        QVERIFY(loopWarning >= 0);
        const TraceWarning w = rig.warnings.warning(loopWarning);
        rig.linker->activateWarning(loopWarning);
        // No trace node of its own (a loop): its trace's tab, the nodes its script node recorded there, its line.
        QCOMPARE(rig.tabs.currentWidget(), rig.view->tracePage(w.traceIndex));
        QCOMPARE(rig.source.highlightedLine(), 6);
        QVERIFY(!rig.view->tracePage(w.traceIndex)->scene()->linkedNodes().isEmpty());
    }
};

QTEST_MAIN(TestSelectionLinker)
#include "tst_selectionlinker.moc"
