// The .pt2 reader (core/load/exportedprogram.cpp) against real torch: each package of tests/data/pt2 was written by
// torch.export.save (tests/oracle/make_pt2.py), and its NAME.oracle.json says what torch's ExportedProgram holds:
// placeholders, call_function nodes with their kinds, overloads and modules, outputs, the graph signature, the range
// constraints and the class of each module. The JSON-only reader's errors name where the program is wrong.

#include "load/exportedprogram.h"
#include "load/model.h"
#include "testutil.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace jitscope;

namespace {

QJsonObject oracleOf(const QString& name)
{
    QFile f(test::dataDir() + QStringLiteral("/pt2/") + name + QStringLiteral(".oracle.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

QString pt2(const QString& name)
{
    return test::dataDir() + QStringLiteral("/pt2/") + name + QStringLiteral(".pt2");
}

} // namespace

class TestExportedProgram : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void matchesTorch_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("layout");
        QTest::addRow("Linear+ReLU in a submodule") << "linear_relu"
                                                    << "models/NAME.json";
        QTest::addRow("dynamic batch") << "dynamic_batch"
                                       << "models/NAME.json";
        QTest::addRow("buffer and constant") << "buffer_constant"
                                             << "models/NAME.json";
        QTest::addRow("torch.cond") << "branch"
                                    << "models/NAME.json";
        QTest::addRow("torch 2.1-2.7 layout") << "legacy_linear_relu"
                                              << "serialized_exported_program.json";
    }

    void matchesTorch()
    {
        QFETCH(QString, name);
        QFETCH(QString, layout);
        const QJsonObject oracle = oracleOf(name);
        QVERIFY2(!oracle.isEmpty(), qPrintable(name));
        const ExportedProgram ep = readExportedProgram(pt2(name));
        QVERIFY2(ep.ok, qPrintable(ep.error.toString()));
        QCOMPARE(ep.layout, layout);
        QVERIFY(ep.warnings.isEmpty());
        QCOMPARE(ep.torchVersion, oracle.value(QStringLiteral("torch")).toString());
        QCOMPARE(ep.schemaMajor, kExportSchemaMajor);
        const IrGraph& g = ep.graph;

        QStringList placeholders;
        for (int id : g.top.inputs)
            placeholders << g.value(id).name;
        QCOMPARE(placeholders, oracle.value(QStringLiteral("placeholders")).toVariant().toStringList());

        // The top-level nodes, as torch's ep.graph has them (its getitems of a node's results are that node's
        // outputs in the file).
        const QJsonArray nodes = oracle.value(QStringLiteral("nodes")).toArray();
        QCOMPARE(g.top.nodes.size(), nodes.size());
        for (int i = 0; i < nodes.size(); ++i) {
            const QJsonObject o = nodes[i].toObject();
            const IrNode& n = g.node(g.top.nodes[i]);
            QCOMPARE(n.kind, o.value(QStringLiteral("kind")).toString());
            QCOMPARE(n.attribute(QStringLiteral("overload")), o.value(QStringLiteral("overload")).toString());
            QCOMPARE(n.modulePath, o.value(QStringLiteral("module")).toString());
            QVERIFY2(n.location.isValid(), qPrintable(n.kind));
            // Trace scopes: one __module.PATH a level.
            if (!n.modulePath.isEmpty())
                QVERIFY2(n.scope.endsWith(QStringLiteral("__module.") + n.modulePath), qPrintable(n.scope));
        }
        QStringList outputs;
        for (int id : g.top.outputs)
            outputs << g.value(id).name;
        QCOMPARE(outputs, oracle.value(QStringLiteral("outputs")).toVariant().toStringList());

        const QJsonArray inputs = oracle.value(QStringLiteral("inputs")).toArray();
        QCOMPARE(ep.inputs.size(), inputs.size());
        for (int i = 0; i < inputs.size(); ++i) {
            const QStringList spec = inputs[i].toVariant().toStringList();
            QCOMPARE(ep.inputs[i].kind, spec[0]);
            QCOMPARE(ep.inputs[i].argument, spec[1]);
            QCOMPARE(ep.inputs[i].target, spec[2]);
            // The placeholder carries its kind.
            QCOMPARE(g.value(g.top.inputs[i]).role, spec[0]);
            QCOMPARE(g.value(g.top.inputs[i]).roleTarget, spec[2]);
        }

        const QJsonObject ranges = oracle.value(QStringLiteral("range_constraints")).toObject();
        QCOMPARE(ep.rangeConstraints.size(), ranges.size());
        for (const RangeConstraint& c : ep.rangeConstraints) {
            const QJsonArray r = ranges.value(c.symbol).toArray();
            QCOMPARE(r.size(), 2);
            QCOMPARE(c.min.has_value(), !r[0].isNull());
            QCOMPARE(c.max.has_value(), !r[1].isNull());
            if (c.min)
                QCOMPARE(*c.min, r[0].toInteger());
            if (c.max)
                QCOMPARE(*c.max, r[1].toInteger());
        }

        const QJsonObject modules = oracle.value(QStringLiteral("modules")).toObject();
        for (auto it = modules.begin(); it != modules.end(); ++it) {
            const auto m = std::find_if(
                ep.modules.cbegin(), ep.modules.cend(), [&](const ExportedModule& e) { return e.path == it.key(); });
            QVERIFY2(m != ep.modules.cend(), qPrintable(it.key()));
            QCOMPARE(m->typeName, it.value().toString());
        }
    }

    /// Symbolic sizes stay in the value types; the range is said in words.
    void symbolicShapes()
    {
        const ExportedProgram ep = readExportedProgram(pt2(QStringLiteral("dynamic_batch")));
        QVERIFY2(ep.ok, qPrintable(ep.error.toString()));
        QCOMPARE(ep.rangeConstraints.size(), 1);
        const QString s = ep.rangeConstraints.first().symbol;
        QVERIFY2(QRegularExpression(QStringLiteral("^s\\d+$")).match(s).hasMatch(), qPrintable(s));
        QCOMPARE(ep.rangeConstraints.first().text(), QStringLiteral("%1: 2 <= %1 <= 1024").arg(s));
        const IrValue& x = ep.graph.value(ep.graph.top.inputs.last());
        QCOMPARE(x.name, QStringLiteral("x"));
        QCOMPARE(x.type, QStringLiteral("Float(%1, 4)").arg(s));
        QVERIFY(x.tensor && x.tensor->sizes);
        QCOMPARE(*x.tensor->sizes, (QVector<qint64> { -1, 4 }));
        // h.shape[0] * 2: a symbolic int, its expression made infix from sympy's srepr.
        const IrValue& twice = ep.graph.value(ep.graph.top.outputs.last());
        QCOMPARE(twice.type, QStringLiteral("SymInt(2*%1)").arg(s));
        QCOMPARE(
            ep.forwardSignature(), QStringLiteral("forward(x: Float(%1, 4)) -> (Float(%1, 2), SymInt(2*%1))").arg(s));
    }

    /// torch.cond's branches are the node's blocks; constant arguments are attributes, as FX prints them.
    void subgraphsAndConstants()
    {
        const ExportedProgram branch = readExportedProgram(pt2(QStringLiteral("branch")));
        QVERIFY2(branch.ok, qPrintable(branch.error.toString()));
        const IrNode& cond = branch.graph.node(branch.graph.top.nodes.last());
        QCOMPARE(cond.kind, QStringLiteral("higher_order::cond"));
        QCOMPARE(cond.blocks.size(), 2);
        QCOMPARE(branch.graph.node(cond.blocks[0].nodes.first()).kind, QStringLiteral("aten::sin"));
        QCOMPARE(branch.graph.node(cond.blocks[1].nodes.first()).kind, QStringLiteral("aten::cos"));

        const ExportedProgram conv = readExportedProgram(pt2(QStringLiteral("buffer_constant")));
        QVERIFY2(conv.ok, qPrintable(conv.error.toString()));
        const IrNode& conv2d = conv.graph.node(conv.graph.top.nodes.first());
        QCOMPARE(conv2d.kind, QStringLiteral("aten::conv2d"));
        QCOMPARE(conv2d.attribute(QStringLiteral("stride")), QStringLiteral("[2, 2]"));
        QCOMPARE(conv2d.attribute(QStringLiteral("padding")), QStringLiteral("[1, 1]"));
        QCOMPARE(conv2d.inputs.size(), 3);
        // Source places are relative in the fixtures (no machine paths): torch's own file, the innermost frame.
        QCOMPARE(conv2d.location.file, QStringLiteral("torch/nn/modules/conv.py"));
        QVERIFY(conv2d.stack.size() >= 2);
        QCOMPARE(conv2d.stack.last().file, QStringLiteral("tests/oracle/make_pt2.py"));
    }

    /// loadModel() opens a .pt2 as a model with one graph: forward, inlined, its modules and state.
    void loadsAsModel()
    {
        const LoadResult r = loadModel(pt2(QStringLiteral("buffer_constant")));
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        QCOMPARE(r.model.kind, ModelInfo::Kind::ExportedProgram);
        QCOMPARE(toText(r.model.kind), QStringLiteral("exported_program"));
        QCOMPARE(r.model.functions.size(), 1);
        const FunctionInfo& fn = r.model.functions.first();
        QCOMPARE(fn.name, QStringLiteral("forward"));
        QVERIFY(fn.ok && fn.inlined);
        QVERIFY(!r.model.handle);
        QCOMPARE(submoduleTypes(r.model, fn.name).value(QStringLiteral("bn")), QStringLiteral("BatchNorm2d"));
        auto kindOf = [&](const QString& name) {
            for (const ParameterInfo& p : r.model.parameters)
                if (p.name == name)
                    return toText(p.kind) + QLatin1Char(' ') + p.dtype + shapeText(p.shape);
            return QString();
        };
        QCOMPARE(kindOf(QStringLiteral("conv.weight")), QStringLiteral("parameter Float[4, 3, 3, 3]"));
        QCOMPARE(kindOf(QStringLiteral("bn.running_mean")), QStringLiteral("buffer Float[4]"));
        QCOMPARE(kindOf(QStringLiteral("offset")), QStringLiteral("attribute Float[4]"));
        QVERIFY(r.model.source.contains(QLatin1String("Graph signature")));
    }

    /// torch.export.save to a .pt (torch's own examples do): still an exported program, not a corrupt archive.
    void exportedProgramNamedPt()
    {
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("model.pt"));
        QVERIFY(QFile::copy(pt2(QStringLiteral("linear_relu")), copy));
        const LoadResult r = loadModel(copy);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        QCOMPARE(r.model.kind, ModelInfo::Kind::ExportedProgram);
    }

    void jsonErrorsNameTheirPlace_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("message");
        const QByteArray head = R"({"schema_version": {"major": 8, "minor": 1}, "graph_module": )";
        QTest::addRow("not JSON") << QByteArray("{\"schema") << "not valid JSON: unterminated string at byte 9";
        QTest::addRow("a list") << QByteArray("[1]") << "not an ExportedProgram (the JSON is not an object)";
        QTest::addRow("no version") << QByteArray("{}") << "no schema_version: not an ExportedProgram's JSON";
        QTest::addRow("newer major")
            << QByteArray(R"({"schema_version": {"major": 99, "minor": 0}, "torch_version": "9.0"})")
            << "schema version 99.0 is newer than this reader's (8.x): saved by torch 9.0; a newer JitScope reads it";
        QTest::addRow("nodes not a list") << head + R"({"graph": {"inputs": [], "outputs": [], "nodes": 3}}})"
                                          << "graph_module.graph.nodes is not a list";
        QTest::addRow("undefined input")
            << head
                + R"({"graph": {"inputs": [], "outputs": [], "nodes": [{"target": "torch.ops.aten.relu.default", "name": "r",
                "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "ghost"}}}], "outputs": [], "metadata": {}}]}}})"
            << "node 'r' (torch.ops.aten.relu.default), argument 'self' uses 'ghost', which no node or input defines "
               "before it";
        QTest::addRow("two-field union") << head
                + R"({"graph": {"inputs": [{"as_tensor": {"name": "x"}, "as_int": 1}], "outputs": [], "nodes": []}}})"
                                         << "graph_module.graph.inputs[0] is not a union of one field (it has 2)";
        QTest::addRow("value defined twice") << head
                + R"({"graph": {"inputs": [{"as_tensor": {"name": "x"}}, {"as_tensor": {"name": "x"}}], "outputs": [], "nodes": []}}})"
                                             << "graph_module.graph.inputs[1]: the value 'x' is defined twice";
    }

    void jsonErrorsNameTheirPlace()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, message);
        const ExportedProgram ep = readExportedProgramJson(json, QStringLiteral("model.json"));
        QVERIFY(!ep.ok);
        QCOMPARE(ep.error.message, message);
        QCOMPARE(ep.error.location.file, QStringLiteral("model.json"));
        QVERIFY(ep.graph.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestExportedProgram)
#include "tst_exportedprogram.moc"
