#include "modeltreemodel.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QtTest>

using namespace jitscope;

namespace {

FunctionInfo function(const QString& name, const QString& signature, int line)
{
    FunctionInfo fn;
    fn.name = name;
    fn.signature = signature;
    fn.location = SourceLocation { QStringLiteral("model.py"), line, 0 };
    fn.ok = true;
    return fn;
}

ModelInfo sampleModel()
{
    ModelInfo m;
    m.path = QStringLiteral("model.py");
    m.functions << function(QStringLiteral("forward"), QStringLiteral("forward(self, x: Tensor) -> Tensor"), 5);
    FunctionInfo broken = function(QStringLiteral("broken"), QStringLiteral("broken(x: Tensor) -> Tensor"), 10);
    broken.ok = false;
    broken.error.message = QStringLiteral("Unknown builtin op: aten::frobnicate.\nHere are some suggestions: ...");
    broken.error.location = SourceLocation { QStringLiteral("model.py"), 12, 11 };
    m.functions << broken;
    m.functions << function(QStringLiteral("layer1.forward"), QStringLiteral("forward(self, x: Tensor) -> Tensor"), 0);

    SubmoduleInfo sub;
    sub.path = QStringLiteral("layer1");
    sub.typeName = QStringLiteral("__torch__.Block");
    sub.methods = { QStringLiteral("forward") };
    m.submodules << sub;

    ParameterInfo weight;
    weight.name = QStringLiteral("layer1.weight");
    weight.kind = ParameterInfo::Kind::Parameter;
    weight.type = QStringLiteral("Tensor");
    weight.dtype = QStringLiteral("f32");
    weight.shape = { 64, 3, 7, 7 };
    ParameterInfo mean;
    mean.name = QStringLiteral("running_mean");
    mean.kind = ParameterInfo::Kind::Buffer;
    mean.type = QStringLiteral("Tensor");
    mean.dtype = QStringLiteral("f32");
    mean.shape = { 64 };
    ParameterInfo count;
    count.name = QStringLiteral("count");
    count.type = QStringLiteral("int");
    count.value = QStringLiteral("3");
    m.parameters << weight << mean << count;

    InputSet first;
    first.args << InputValue::tensor(QStringLiteral("f32"), { 3, 4 });
    first.line = 20;
    InputSet second;
    second.args << InputValue::tensor(QStringLiteral("f32"), { 5, 6 }) << InputValue::integer(2);
    second.line = 21;
    m.inputSets << first << second;
    return m;
}

} // namespace

class TestModelTreeModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void emptyModel()
    {
        ModelTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), int(ModelTreeModel::NumColumns));
        QCOMPARE(model.headerData(ModelTreeModel::NameColumn, Qt::Horizontal).toString(), QStringLiteral("Name"));
        QVERIFY(!model.indexOfFunction(QStringLiteral("forward")).isValid());
    }

    void groups()
    {
        ModelTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setModel(sampleModel());

        QCOMPARE(model.rowCount(), 4);
        const QStringList names = { QStringLiteral("Functions"), QStringLiteral("Submodules"),
            QStringLiteral("Parameters"), QStringLiteral("File's input sets") };
        const QList<int> counts = { 3, 1, 3, 2 };
        for (int row = 0; row < 4; ++row) {
            const QModelIndex group = model.index(row, ModelTreeModel::NameColumn);
            QCOMPARE(group.data().toString(), names.at(row));
            QCOMPARE(model.rowCount(group), counts.at(row));
            QCOMPARE(
                model.index(row, ModelTreeModel::DetailsColumn).data().toString(), QString::number(counts.at(row)));
            QCOMPARE(group.data(ModelTreeModel::ItemKindRole).toInt(), int(ModelTreeModel::ItemKind::Group));
            QVERIFY(group.data(Qt::FontRole).value<QFont>().bold());
        }
        QCOMPARE(model.groupIndex(ModelTreeModel::ItemKind::Parameter).row(), 2);
    }

    void functionsAndCompileErrors()
    {
        ModelTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setModel(sampleModel());

        const QModelIndex forward = model.indexOfFunction(QStringLiteral("forward"));
        QVERIFY(forward.isValid());
        QCOMPARE(forward.parent(), model.groupIndex(ModelTreeModel::ItemKind::Function));
        QCOMPARE(forward.data().toString(), QStringLiteral("forward"));
        // The name is in the first column; Details shows the rest of the signature, the tooltip all of it.
        QCOMPARE(forward.siblingAtColumn(ModelTreeModel::DetailsColumn).data().toString(),
            QStringLiteral("(self, x: Tensor) -> Tensor"));
        QCOMPARE(forward.data(Qt::ToolTipRole).toString(), QStringLiteral("forward(self, x: Tensor) -> Tensor"));
        QCOMPARE(forward.data(ModelTreeModel::FunctionNameRole).toString(), QStringLiteral("forward"));
        QCOMPARE(forward.data(ModelTreeModel::SourceLineRole).toInt(), 5);
        QCOMPARE(forward.data(ModelTreeModel::IsErrorRole).toBool(), false);
        QCOMPARE(model.rowCount(forward), 0);

        const QModelIndex broken = model.indexOfFunction(QStringLiteral("broken"));
        QVERIFY(broken.isValid());
        QCOMPARE(broken.data(ModelTreeModel::IsErrorRole).toBool(), true);
        QCOMPARE(model.rowCount(broken), 1);
        const QModelIndex error = model.index(0, ModelTreeModel::NameColumn, broken);
        QCOMPARE(error.parent(), broken);
        QCOMPARE(error.data(ModelTreeModel::ItemKindRole).toInt(), int(ModelTreeModel::ItemKind::CompileError));
        // The first line of the message, the line it refers to, and the whole diagnostic as tooltip.
        QCOMPARE(error.data().toString(), QStringLiteral("Unknown builtin op: aten::frobnicate."));
        QCOMPARE(error.siblingAtColumn(ModelTreeModel::DetailsColumn).data().toString(), QStringLiteral("line 12"));
        QCOMPARE(error.data(ModelTreeModel::SourceLineRole).toInt(), 12);
        QCOMPARE(error.data(ModelTreeModel::FunctionNameRole).toString(), QStringLiteral("broken"));
        QVERIFY(error.data(Qt::ToolTipRole).toString().contains(QLatin1String("suggestions")));
        const QColor red = error.data(Qt::ForegroundRole).value<QBrush>().color();
        QVERIFY(red.red() > 150 && red.green() < 100 && red.blue() < 100);
        QCOMPARE(model.flags(error) & Qt::ItemNeverHasChildren, Qt::ItemNeverHasChildren);
    }

    void submodulesParametersInputs()
    {
        ModelTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setModel(sampleModel());

        const QModelIndex sub = model.index(0, 0, model.groupIndex(ModelTreeModel::ItemKind::Submodule));
        QCOMPARE(sub.data().toString(), QStringLiteral("layer1"));
        QCOMPARE(sub.siblingAtColumn(ModelTreeModel::DetailsColumn).data().toString(), QStringLiteral("Block"));
        const QModelIndex method = model.index(0, 0, sub);
        QCOMPARE(method.data().toString(), QStringLiteral("forward"));
        QCOMPARE(method.data(ModelTreeModel::FunctionNameRole).toString(), QStringLiteral("layer1.forward"));

        const QModelIndex params = model.groupIndex(ModelTreeModel::ItemKind::Parameter);
        const QModelIndex weight = model.index(0, ModelTreeModel::DetailsColumn, params);
        QCOMPARE(weight.siblingAtColumn(0).data().toString(), QStringLiteral("layer1.weight"));
        QCOMPARE(weight.data().toString(), QStringLiteral("Tensor f32 [64, 3, 7, 7]"));
        QVERIFY(
            model.index(1, ModelTreeModel::DetailsColumn, params).data().toString().contains(QLatin1String("buffer")));
        QCOMPARE(model.index(2, ModelTreeModel::DetailsColumn, params).data().toString(), QStringLiteral("int = 3"));

        const QModelIndex inputs = model.groupIndex(ModelTreeModel::ItemKind::InputSet);
        const QModelIndex second = model.index(1, 0, inputs);
        QCOMPARE(second.data(ModelTreeModel::SourceLineRole).toInt(), 21);
        QCOMPARE(second.siblingAtColumn(ModelTreeModel::DetailsColumn).data().toString(),
            sampleModel().inputSets.at(1).toString());
        QCOMPARE(second.data(ModelTreeModel::ItemKindRole).toInt(), int(ModelTreeModel::ItemKind::InputSet));
    }

    /// An archive's methods nest under their modules' rows, by path, as the graph's clusters are (a scripted
    /// LR-ASPP has 446 methods: listed flat, forward was lost among them); the root's come first.
    void archiveFunctionsNestByModule_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("rowPath"); ///< names from the Functions group down to the function's row
        QTest::addColumn<QString>("moduleDetails"); ///< the Details of the innermost module row, "" for none
        QTest::addRow("root forward") << "forward" << QStringList { "forward" } << QString();
        QTest::addRow("module forward") << "backbone.forward" << QStringList { "backbone", "forward" }
                                        << "IntermediateLayerGetter";
        QTest::addRow("module __len__") << "backbone.0.__len__" << QStringList { "backbone", "0", "__len__" }
                                        << "Conv2dNormActivation";
        QTest::addRow("deep") << "backbone.1.block.0.0.forward"
                              << QStringList { "backbone", "1", "block", "0", "0", "forward" } << "Conv2d";
        QTest::addRow("module without methods of its own")
            << "classifier.cbr.0.forward" << QStringList { "classifier", "cbr", "0", "forward" } << "Conv2d";
    }

    void archiveFunctionsNestByModule()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, rowPath);
        QFETCH(QString, moduleDetails);
        ModelInfo m;
        m.kind = ModelInfo::Kind::Archive;
        for (const char* fn : { "backbone.forward", "backbone.0.forward", "backbone.0.__len__",
                 "backbone.1.block.0.0.forward", "classifier.cbr.0.forward", "forward" })
            m.functions << function(QLatin1String(fn),
                QString::fromLatin1(fn).section(QLatin1Char('.'), -1)
                    + QStringLiteral("(self, input: Tensor) -> Tensor"),
                0);
        const QList<QPair<const char*, const char*>> types { { "backbone",
                                                                 "__torch__.torchvision.models._utils."
                                                                 "IntermediateLayerGetter" },
            { "backbone.0", "__torch__.torchvision.ops.misc.Conv2dNormActivation" },
            { "backbone.1", "__torch__.torchvision.models.mobilenetv3.InvertedResidual" },
            { "backbone.1.block", "__torch__.torch.nn.modules.container.Sequential" },
            { "backbone.1.block.0", "__torch__.torchvision.ops.misc.Conv2dNormActivation" },
            { "backbone.1.block.0.0", "__torch__.torch.nn.modules.conv.Conv2d" },
            { "classifier.cbr.0", "__torch__.torch.nn.modules.conv.___torch_mangle_3.Conv2d" } };
        for (const auto& [path, type] : types) {
            SubmoduleInfo sub;
            sub.path = QLatin1String(path);
            sub.typeName = QLatin1String(type);
            m.submodules << sub;
        }
        ModelTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setModel(m);
        const QModelIndex functions = model.groupIndex(ModelTreeModel::ItemKind::Function);
        QCOMPARE(functions.siblingAtColumn(ModelTreeModel::DetailsColumn).data().toString(), QStringLiteral("6"));
        // The root's forward, then one row per top-level module.
        QCOMPARE(model.rowCount(functions), 3);
        QCOMPARE(
            model.index(0, 0, functions).data(ModelTreeModel::FunctionNameRole).toString(), QStringLiteral("forward"));
        QModelIndex at = functions;
        for (int k = 0; k < rowPath.size(); ++k) {
            QModelIndex next;
            for (int r = 0; r < model.rowCount(at); ++r)
                if (model.index(r, 0, at).data().toString() == rowPath[k])
                    next = model.index(r, 0, at);
            QVERIFY2(next.isValid(), qPrintable(rowPath.mid(0, k + 1).join(QLatin1String(" > "))));
            at = next;
        }
        QCOMPARE(at, model.indexOfFunction(name));
        QCOMPARE(at.data(ModelTreeModel::FunctionNameRole).toString(), name);
        QCOMPARE(at.data(ModelTreeModel::ItemKindRole).toInt(), int(ModelTreeModel::ItemKind::Function));
        QCOMPARE(at.siblingAtColumn(ModelTreeModel::DetailsColumn).data().toString(),
            QStringLiteral("(self, input: Tensor) -> Tensor"));
        const QModelIndex module = at.parent();
        if (moduleDetails.isEmpty()) {
            QCOMPARE(module, functions);
            return;
        }
        QCOMPARE(module.data(ModelTreeModel::ItemKindRole).toInt(), int(ModelTreeModel::ItemKind::Submodule));
        QCOMPARE(module.siblingAtColumn(ModelTreeModel::DetailsColumn).data().toString(), moduleDetails);
        QVERIFY(module.data(Qt::ToolTipRole).toString().startsWith(name.section(QLatin1Char('.'), 0, -2)));
    }

    void resetReplacesEverything()
    {
        ModelTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setModel(sampleModel());
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);

        ModelInfo small;
        small.functions << function(QStringLiteral("f"), QStringLiteral("f(x: int) -> int"), 1);
        model.setModel(small);
        QCOMPARE(reset.count(), 1);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.rowCount(model.groupIndex(ModelTreeModel::ItemKind::Function)), 1);
        QCOMPARE(model.rowCount(model.groupIndex(ModelTreeModel::ItemKind::Parameter)), 0);
        QVERIFY(!model.indexOfFunction(QStringLiteral("forward")).isValid());
        QVERIFY(model.indexOfFunction(QStringLiteral("f")).isValid());

        model.clear();
        QCOMPARE(reset.count(), 2);
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestModelTreeModel)
#include "tst_modeltreemodel.moc"
