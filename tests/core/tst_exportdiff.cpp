// Trace 1 against the exported program of the same recorded call (diffTraceAgainstExport(), what the window's
// Compare shows beside the Export tab): operators named alike across the two IRs, nodes matched by operator, module
// and line, and the divergences said in kind. Real torch is the oracle: the bridge traces and exports the files.

#include "bridge/pythoncheck.h"
#include "bridge/runpython.h"
#include "diff/tracediff.h"
#include "testutil.h"

#include <QTest>

using namespace jitscope;

namespace {

struct Exported
{
    PythonRun run;
    QVector<CheckReport> reports;
};

Exported runExported(const QString& path)
{
    PythonOptions options;
    options.exportCalls = true;
    options.definitions = false;
    options.archives = true; // the program saved beside the record, as the window's runs do
    Exported e;
    e.run = runPythonFile(path, options);
    e.reports = checkRecordedCalls(e.run.folder, test::readText(path));
    return e;
}

QString kinds(const TraceDiff& diff)
{
    QStringList names;
    for (const Divergence& d : diff.divergences)
        names << divergenceKindName(d.kind);
    return names.join(QLatin1Char(','));
}

} // namespace

class TestExportDiff : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void normalizedOpKind_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("normalized");
        QTest::addRow("trace's convolution") << "aten::_convolution"
                                             << "aten::convolution";
        QTest::addRow("export's spelling") << "aten.convolution.default"
                                           << "aten::convolution";
        QTest::addRow("export's conv2d") << "aten::conv2d"
                                         << "aten::convolution";
        QTest::addRow("torch.ops path") << "torch.ops.aten.mul.Tensor"
                                        << "aten::mul";
        QTest::addRow("in place") << "aten::relu_"
                                  << "aten::relu";
        QTest::addRow("private op kept") << "aten::_softmax"
                                         << "aten::_softmax";
        QTest::addRow("symbolic size") << "aten::sym_size"
                                       << "aten::size";
        QTest::addRow("batch norm") << "aten::_native_batch_norm_legit_no_training"
                                    << "aten::batch_norm";
        QTest::addRow("plain") << "aten::linear"
                               << "aten::linear";
    }

    void normalizedOpKind()
    {
        QFETCH(QString, kind);
        QFETCH(QString, normalized);
        QCOMPARE(jitscope::normalizedOpKind(kind), normalized);
    }

    /// The seed example: x.size(0) cannot be dynamic (the finding at the `for` line, as torch says), so the Export
    /// tab's program is the one export makes with it specialized. Its graph unrolls the loop 3 times as trace 1 does:
    /// every operator matched, and the divergences say the loop is unrolled for the example only and guarded.
    void loopUnrolledForTheExampleOnly()
    {
        const QString path = QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
        const Exported e = runExported(path);
        QCOMPARE(e.reports.size(), 1);
        const ExportReport& x = e.reports[0].exported;
        QVERIFY(x.requested);
        QCOMPARE(x.status, QStringLiteral("failed"));
        QCOMPARE(x.findings.size(), 1);
        QCOMPARE(x.findings[0].kind, QStringLiteral("constraint"));
        QCOMPARE(x.findings[0].userLocation.line, 6);
        QCOMPARE(x.program, QStringLiteral("export_0.pt2"));
        QVERIFY2(!x.graph.nodes.isEmpty(), qPrintable(x.programError));
        QCOMPARE(x.specializations.size(), 1);
        QCOMPARE(x.specializations[0].text, QStringLiteral("x.size(0) specialized to 3"));

        const TraceDiff& d = x.traceDiff;
        QCOMPARE(d.base, 0);
        QCOMPARE(d.other, -1);
        QStringList unmatched;
        for (const NodeChange& c : d.changes) {
            const IrNode& n = c.baseNode >= 0 ? e.reports[0].traces[0].graph.node(c.baseNode) : x.graph.node(c.otherNode);
            unmatched << QStringLiteral("%1 [%2] %3").arg(n.kind, n.modulePath, n.location.toString());
        }
        QVERIFY2(d.changes.isEmpty(), qPrintable(unmatched.join(QLatin1Char(' ')))); // select and mul, same lines
        // Why export failed, the loop, and the rows' sizes (x.size(1), x.size(2) stay symbols in the program).
        QCOMPARE(kinds(d), QStringLiteral("number-baked,loop-unrolled,number-baked"));
        QVERIFY2(d.divergences[2].message.startsWith(QStringLiteral("trace 1 baked the example's sizes (Float(4, 5")),
            qPrintable(d.divergences[2].message));
        QVERIFY(d.divergences[0].message.startsWith(QStringLiteral("torch.export failed (constraint)")));
        const Divergence& loop = d.divergences[1];
        QCOMPARE(loop.location.line, 7);
        QVERIFY2(loop.message.contains(QStringLiteral("runs 3 times in trace 1 and in the export")),
            qPrintable(loop.message));
        QVERIFY2(loop.message.contains(QStringLiteral("x.size(0) specialized to 3")), qPrintable(loop.message));
        QCOMPARE(loop.baseNodes.size(), 6); // x[i] and the product, 3 times
        QCOMPARE(loop.otherNodes.size(), 6);
    }

    /// A module exported with its batch dynamic: the trace's aten::_convolution is the export's conv2d, batch norm
    /// and relu matched in their modules, the loop over a constant unrolled by both (nothing specialized), and the
    /// trace's sizes are the example's where the export keeps the batch a symbol.
    void convolutionMatchedSizesBaked()
    {
        const QString path = test::dataDir() + QStringLiteral("/python/exportdiff/conv_block.py");
        const Exported e = runExported(path);
        QCOMPARE(e.reports.size(), 1);
        const ExportReport& x = e.reports[0].exported;
        QCOMPARE(x.status, QStringLiteral("exported"));
        QVERIFY2(!x.graph.nodes.isEmpty(), qPrintable(x.programError));
        const TraceDiff& d = x.traceDiff;
        QStringList unmatched;
        for (const NodeChange& c : d.changes) {
            const IrNode& n = c.baseNode >= 0 ? e.reports[0].traces[0].graph.node(c.baseNode) : x.graph.node(c.otherNode);
            unmatched << QStringLiteral("%1 [%2] %3").arg(n.kind, n.modulePath, n.location.toString());
        }
        QVERIFY2(d.changes.isEmpty(), qPrintable(unmatched.join(QLatin1Char(' '))));
        QCOMPARE(kinds(d), QStringLiteral("loop-unrolled,number-baked"));
        QVERIFY2(d.divergences[0].message.contains(QStringLiteral("runs 2 times in trace 1 and in the export: a loop "
                                                                  "unrolled in both")),
            qPrintable(d.divergences[0].message));
        const Divergence& sizes = d.divergences[1];
        QVERIFY2(
            sizes.message.contains(QStringLiteral("s")) && sizes.message.contains(QStringLiteral("Float(2, 4, 8, 8")),
            qPrintable(sizes.message));
        QVERIFY(sizes.evidence.join(QLatin1Char(' ')).contains(QStringLiteral("x.size(0)")));
    }
};

QTEST_GUILESS_MAIN(TestExportDiff)
#include "tst_exportdiff.moc"
