#include "inputsetsmodel.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QSignalSpy>
#include <QtTest>

using namespace jitscope;

class TestInputSetsModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void fillsFromSets()
    {
        InputSetsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy edited(&model, &InputSetsModel::setsEdited);
        InputSet a;
        a.args << InputValue::tensor(QStringLiteral("f32"), { 3, 4, 5 });
        InputSet b;
        b.args << InputValue::tensor(QStringLiteral("i64"), { 2 }) << InputValue::integer(3);
        model.setSets({ a, b });
        QCOMPARE(edited.count(), 0);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(InputSetsModel::NumColumns));
        QCOMPARE(model.texts(), QStringList({ a.toString(), b.toString() }));
        bool ok = false;
        QCOMPARE(model.sets(&ok).size(), 2);
        QVERIFY(ok);
        QVERIFY(model.index(0, InputSetsModel::InfoColumn).data().toString().startsWith(QLatin1String("traced")));
        QVERIFY(model.index(1, InputSetsModel::InfoColumn).data().toString().startsWith(QLatin1String("check")));
        QVERIFY(model.flags(model.index(0, InputSetsModel::SetColumn)) & Qt::ItemIsEditable);
        QVERIFY(!(model.flags(model.index(0, InputSetsModel::InfoColumn)) & Qt::ItemIsEditable));
    }

    void validation_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addRow("tensor") << "f32[3,4]" << true;
        QTest::addRow("two args") << "f32[2]=zeros; 3" << true;
        QTest::addRow("tuple") << "(i64[2], 2.5)" << true;
        QTest::addRow("bad dtype") << "f33[3,4]" << false;
        QTest::addRow("unclosed shape") << "f32[3,4" << false;
        QTest::addRow("empty") << "" << false;
    }

    void validation()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        InputSetsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTexts({ QStringLiteral("f32[1]") });
        QSignalSpy edited(&model, &InputSetsModel::setsEdited);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        const QModelIndex index = model.index(0, InputSetsModel::SetColumn);
        QVERIFY(model.setData(index, text));
        QCOMPARE(index.data(InputSetsModel::TextRole).toString(), text);
        QCOMPARE(index.data(InputSetsModel::ValidRole).toBool(), valid);
        QCOMPARE(edited.count(), text == QLatin1String("f32[1]") ? 0 : 1);
        QVERIFY(changed.count() >= 1);
        bool ok = true;
        model.sets(&ok);
        QCOMPARE(ok, valid);
        QCOMPARE(model.invalidCount(), valid ? 0 : 1);
        QCOMPARE(model.firstInvalidRow(), valid ? -1 : 0);
        if (valid) {
            QVERIFY(index.data(InputSetsModel::ErrorRole).toString().isEmpty());
            QCOMPARE(index.data(InputSetsModel::ErrorPositionRole).toInt(), -1);
            QVERIFY(!index.data(Qt::BackgroundRole).isValid());
            return;
        }
        // Invalid: red, the error in the info column and the tooltip, with the bad character's position.
        const QString error = index.data(InputSetsModel::ErrorRole).toString();
        QVERIFY(!error.isEmpty());
        QVERIFY(index.data(Qt::BackgroundRole).value<QColor>().isValid());
        QCOMPARE(model.index(0, InputSetsModel::InfoColumn).data().toString(), error);
        InputParseError expected;
        QVERIFY(!parseInputSet(text, &expected));
        QCOMPARE(index.data(InputSetsModel::ErrorPositionRole).toInt(), expected.position);
        const QString tip = index.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(error.toHtmlEscaped()), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("character %1").arg(expected.position + 1)), qPrintable(tip));
        QVERIFY(tip.contains(QString(expected.position, QLatin1Char(' ')) + QLatin1Char('^')));
    }

    void editingRows()
    {
        InputSetsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy edited(&model, &InputSetsModel::setsEdited);
        QCOMPARE(model.addSet(), 0);
        QCOMPARE(model.texts(), QStringList({ QStringLiteral("f32[2,3]") }));
        QCOMPARE(model.addSet(QStringLiteral("f64[4]")), 1);
        QCOMPARE(model.addSet(), 2);
        QCOMPARE(model.texts().at(2), QStringLiteral("f64[4]"));
        QCOMPARE(model.duplicateSet(0), 1);
        QCOMPARE(model.texts(), QStringList({ "f32[2,3]", "f32[2,3]", "f64[4]", "f64[4]" }));
        QVERIFY(model.setData(model.index(3, 0), QStringLiteral("i64[5]")));

        // Moving the last set to the top makes it the traced one.
        QCOMPARE(model.moveSet(3, -1), 2);
        QCOMPARE(model.moveSet(2, -1), 1);
        QCOMPARE(model.moveSet(1, -1), 0);
        QCOMPARE(model.texts().first(), QStringLiteral("i64[5]"));
        QVERIFY(model.index(0, InputSetsModel::InfoColumn).data().toString().startsWith(QLatin1String("traced")));
        QCOMPARE(model.moveSet(0, -1), -1);
        QCOMPARE(model.moveSet(0, +1), 1);
        QCOMPARE(model.texts(), QStringList({ "f32[2,3]", "i64[5]", "f32[2,3]", "f64[4]" }));
        QCOMPARE(model.moveSet(3, +1), -1);

        QVERIFY(model.removeSet(0));
        QCOMPARE(model.texts(), QStringList({ "i64[5]", "f32[2,3]", "f64[4]" }));
        QVERIFY(!model.removeSet(5));
        QVERIFY(model.insertRows(1, 2));
        QCOMPARE(model.rowCount(), 5);
        QVERIFY(model.removeRows(1, 2));
        QCOMPARE(model.rowCount(), 3);
        QVERIFY(edited.count() >= 10);
    }
};

QTEST_MAIN(TestInputSetsModel)
#include "tst_inputsetsmodel.moc"
