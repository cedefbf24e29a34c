// Traces from the executor against real torch.jit.trace output (tests/oracle/generate_traces.py).

#include "check/check.h"
#include "load/model.h"
#include "testutil.h"
#include "trace/trace.h"
#include "tracetext.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace jitscope;
using namespace jitscope::test;

namespace {

/// PyTorch's TracerWarning first lines, by JitScope kind; a UserWarning (torch.tensor of a tensor) is one.
QString kindOfPythonWarning(const QString& category, const QString& message)
{
    if (category == QLatin1String("UserWarning"))
        return QStringLiteral("user-warning");
    if (message.startsWith(QLatin1String("Converting a tensor to a Python boolean")))
        return QStringLiteral("tensor-to-bool");
    if (message.startsWith(QLatin1String("Converting a tensor to a Python index")))
        return QStringLiteral("tensor-to-index");
    if (message.startsWith(QLatin1String("Converting a tensor to a Python")))
        return QStringLiteral("tensor-to-number");
    if (message.startsWith(QLatin1String("Using len to get tensor shape")))
        return QStringLiteral("len-of-tensor");
    if (message.startsWith(QLatin1String("Iterating over a tensor")))
        return QStringLiteral("iterating-tensor");
    if (message.startsWith(QLatin1String("torch.tensor results are registered as constants"))
        || message.startsWith(QLatin1String("torch.as_tensor results are registered as constants")))
        return QStringLiteral("baked-constant");
    return QStringLiteral("other");
}

} // namespace

class TestTraces : public QObject
{
    Q_OBJECT

private:
    QHash<QString, LoadResult> m_models;

    const LoadResult& model(const QString& path)
    {
        if (!m_models.contains(path))
            m_models.insert(path, loadModel(path));
        return m_models[path];
    }

private Q_SLOTS:
    void traces_data()
    {
        QTest::addColumn<QString>("casePath");
        QTest::addColumn<int>("set");
        const QDir dir(dataDir() + QStringLiteral("/traces"));
        int rows = 0;
        for (const QString& file : dir.entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name)) {
            const QJsonObject c = QJsonDocument::fromJson(readText(dir.filePath(file)).toUtf8()).object();
            const QJsonArray traces = c.value(QStringLiteral("traces")).toArray();
            for (int i = 0; i < traces.size(); ++i) {
                QTest::addRow("%s/%d", qPrintable(file.chopped(5)), i) << dir.filePath(file) << i;
                ++rows;
            }
        }
        QVERIFY2(rows >= 60, "trace fixtures missing");
    }

    void traces()
    {
        QFETCH(QString, casePath);
        QFETCH(int, set);
        const QJsonObject c = QJsonDocument::fromJson(readText(casePath).toUtf8()).object();
        const QString source = c.value(QStringLiteral("source")).toString();
        const QString archive = c.value(QStringLiteral("archive")).toString();
        const QString path = dataDir() + QLatin1Char('/') + (source.isEmpty() ? archive : source);
        const QString function = c.value(QStringLiteral("function")).toString();
        const QJsonObject expected = c.value(QStringLiteral("traces")).toArray().at(set).toObject();
        const LoadResult& r = model(path);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        const auto inputs = parseInputSet(c.value(QStringLiteral("sets")).toArray().at(set).toString());
        QVERIFY(inputs);
        ExecOptions options;
        options.seed = quint64(c.value(QStringLiteral("seed")).toInt());
        options.timeoutMs = 60000;
        const TraceResult t = traceFunction(r.model, function, *inputs, options);
        if (!expected.value(QStringLiteral("ok")).toBool()) {
            QVERIFY2(!t.ok, "PyTorch failed to trace this, JitScope did not");
            return;
        }
        QVERIFY2(t.ok, qPrintable(t.error.toString()));
        // A module's trace is its inlined graph (traced.inlined_graph), what PyTorch's check compares.
        const QString golden = expected.value(QStringLiteral("inlined_graph"))
                                   .toString(expected.value(QStringLiteral("graph")).toString());
        const QString actualText = comparableTrace(t.graph.toText(false));
        const QString expectedText = comparableTrace(golden);
        if (actualText != expectedText) {
            const QString actualPath = casePath.chopped(5) + QStringLiteral(".%1.actual").arg(set);
            QFile f(actualPath);
            if (f.open(QIODevice::WriteOnly))
                f.write((t.graph.toText(false) + QStringLiteral("\n# expected:\n") + golden).toUtf8());
        }
        QCOMPARE(actualText, expectedText);
        // The same inputs were created (the seed contract) and the trace computed the same output.
        const QJsonObject output = expected.value(QStringLiteral("output")).toObject();
        if (output.value(QStringLiteral("kind")).toString() == QLatin1String("tensor") && t.outputs.size() == 1) {
            const double sum = output.value(QStringLiteral("sum")).toDouble();
            QVERIFY2(std::abs(t.outputs.first().sum - sum) <= 1e-4 * std::max(1.0, std::abs(sum)),
                qPrintable(QStringLiteral("output sum %1, PyTorch %2").arg(t.outputs.first().sum).arg(sum)));
        }
        // Wherever PyTorch warned, JitScope reports a warning of the matching kind.
        QSet<QString> ours;
        for (const TraceWarning& w : t.warnings)
            ours.insert(warningKindName(w.kind));
        for (const auto& w : expected.value(QStringLiteral("warnings")).toArray()) {
            const QString kind = kindOfPythonWarning(w.toObject().value(QStringLiteral("category")).toString(),
                w.toObject().value(QStringLiteral("message")).toString());
            QVERIFY2(ours.contains(kind), qPrintable(QStringLiteral("missing a %1 warning").arg(kind)));
        }
    }

    /// Group by Module loads the model with calls inlined: trace nodes then point at the same script nodes (same
    /// kind, same source line) in the inlined graph as they do in the function's own graph without it.
    void originsInInlinedGraph()
    {
        const QDir dir(dataDir() + QStringLiteral("/traces"));
        int remapped = 0;
        int checked = 0;
        int insideCalls = 0;
        int exact = 0;
        for (const QString& file : dir.entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name)) {
            const QJsonObject c = QJsonDocument::fromJson(readText(dir.filePath(file)).toUtf8()).object();
            if (!c.value(QStringLiteral("traces")).toArray().at(0).toObject().value(QStringLiteral("ok")).toBool())
                continue;
            const QString source = c.value(QStringLiteral("source")).toString();
            const QString path = dataDir() + QLatin1Char('/')
                + (source.isEmpty() ? c.value(QStringLiteral("archive")).toString() : source);
            const QString function = c.value(QStringLiteral("function")).toString();
            LoadOptions inlining;
            inlining.inlineCalls = true;
            const LoadResult inlined = loadModel(path, inlining);
            const LoadResult& plain = model(path);
            QVERIFY2(inlined.ok && plain.ok, qPrintable(file));
            const FunctionInfo* ownInfo = plain.model.function(function);
            const FunctionInfo* inlinedInfo = inlined.model.function(function);
            QVERIFY(ownInfo && inlinedInfo);
            if (inlinedInfo->graph.nodes.size() == ownInfo->graph.nodes.size())
                continue; // nothing was inlined
            QCOMPARE(inlinedInfo->inlinedIds.size(), ownInfo->graph.nodes.size());
            const auto inputs = parseInputSet(c.value(QStringLiteral("sets")).toArray().at(0).toString());
            QVERIFY(inputs);
            ExecOptions options;
            options.seed = quint64(c.value(QStringLiteral("seed")).toInt());
            const TraceResult a = traceFunction(plain.model, function, *inputs, options);
            const TraceResult b = traceFunction(inlined.model, function, *inputs, options);
            QVERIFY2(a.ok && b.ok, qPrintable(file));
            QCOMPARE(b.graph.toText(false), a.graph.toText(false)); // inlining the view changes no trace
            for (int i = 0; i < a.graph.nodes.size(); ++i) {
                const int own = a.graph.node(i).originNode;
                const int shown = b.graph.node(i).originNode;
                if (own < 0)
                    continue;
                const QString where = QStringLiteral("%1: trace node %2").arg(file).arg(i);
                QVERIFY2(shown >= 0 && shown < inlinedInfo->graph.nodes.size(), qPrintable(where));
                const QString ownKind = ownInfo->graph.node(own).kind;
                if (ownKind == QLatin1String("prim::CallFunction") || ownKind == QLatin1String("prim::CallMethod")) {
                    // Nodes traced inside a call point at the callee's node inlined for it, which the own graph
                    // lacks: the node of their kind, in their module.
                    const IrNode& traced = b.graph.node(i);
                    const IrNode& script = inlinedInfo->graph.node(shown);
                    QVERIFY2(!script.kind.startsWith(QLatin1String("prim::Call")), qPrintable(where));
                    if (traced.kind.startsWith(QLatin1String("aten::"))) {
                        ++insideCalls;
                        exact += script.kind == traced.kind && script.modulePath == traced.modulePath ? 1 : 0;
                    }
                    continue;
                }
                QCOMPARE(inlinedInfo->graph.node(shown).kind, ownKind);
                QCOMPARE(inlinedInfo->graph.node(shown).location.line, ownInfo->graph.node(own).location.line);
                ++checked;
                remapped += own != shown ? 1 : 0;
            }
        }
        QVERIFY2(remapped > 0, "no trace whose script nodes moved when calls were inlined");
        QVERIFY2(insideCalls > 20, "too few trace nodes recorded inside calls");
        QVERIFY2(exact * 10 >= insideCalls * 9,
            qPrintable(QStringLiteral("%1 of %2 nodes traced inside calls point at their own node")
                           .arg(exact)
                           .arg(insideCalls)));
        QVERIFY(checked > remapped);
    }

    /// When the tracer's cleanup passes fail after the function ran, the raw recording is kept and flagged.
    void rawGraphWhenCleanupFails()
    {
        const LoadResult r = loadModel(dataDir() + QStringLiteral("/corpus/loop_in_traced_fn.py"));
        QVERIFY(r.ok);
        ExecOptions options;
        options.simulateCleanupFailure = true;
        const TraceResult t = traceFunction(
            r.model, QStringLiteral("loop_in_traced_fn"), *parseInputSet(QStringLiteral("f32[3,4,5]")), options);
        QVERIFY2(t.ok, qPrintable(t.error.toString()));
        QVERIFY(t.note.contains(QLatin1String("raw recorded graph")));
        bool flagged = false;
        for (const TraceWarning& w : t.warnings)
            flagged |= w.kind == WarningKind::RawTrace;
        QVERIFY(flagged);
        QCOMPARE(t.graph.top.outputs.size(), 1);
        int muls = 0;
        for (const IrNode& n : t.graph.nodes)
            muls += n.kind == QLatin1String("aten::mul");
        QCOMPARE(muls, 3);
        // Nothing to run on the other sets: the check reports it instead of crashing.
        CheckOptions check;
        check.exec = options;
        const InputSet set = *parseInputSet(QStringLiteral("f32[3,4,5]"));
        const CheckReport report = checkFunction(r.model, QStringLiteral("loop_in_traced_fn"), { set, set }, check);
        QVERIFY2(report.ok, qPrintable(report.error.toString()));
        QCOMPARE(report.outputs.size(), 1);
        QVERIFY(!report.outputs[0].ran);
        QCOMPARE(report.outputs[0].error,
            QStringLiteral("no trace to run: trace 1 is the raw recording (the tracer's cleanup passes failed)"));
    }
};

QTEST_GUILESS_MAIN(TestTraces)
#include "tst_traces.moc"
