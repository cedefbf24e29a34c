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
            QStringLiteral("Parameters"), QStringLiteral("Input sets") };
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
