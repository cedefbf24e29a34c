#include "valuesmodel.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QFont>
#include <QImage>
#include <QtTest>

#include <cmath>

using namespace jitscope;

namespace {

ValueSummary tensor(const QVector<qint64>& shape, double first = 0.5, double step = 0.25)
{
    ValueSummary v;
    v.kind = QStringLiteral("tensor");
    v.dtype = QStringLiteral("float32");
    v.device = QStringLiteral("cpu");
    v.shape = shape;
    qint64 n = 1;
    for (qint64 d : shape)
        n *= d;
    for (qint64 i = 0; i < qMin<qint64>(n, 64); ++i)
        v.preview << first + i * step;
    for (double p : v.preview)
        v.sum += p;
    v.min = v.preview.first();
    v.max = v.preview.last();
    v.mean = v.sum / v.preview.size();
    v.std = 0.1;
    if (shape.size() >= 2) {
        v.sliceRows = int(qMin<qint64>(64, shape.at(shape.size() - 2)));
        v.sliceColumns = int(qMin<qint64>(64, shape.last()));
        for (int i = 0; i < v.sliceRows * v.sliceColumns; ++i)
            v.slice << float(first + i * step);
    }
    QStringList dims;
    for (qint64 d : shape)
        dims << QString::number(d);
    v.text = QStringLiteral("float32[%1]").arg(dims.join(QLatin1Char(',')));
    return v;
}

ValueSummary scalar(const QString& kind, const QString& text)
{
    ValueSummary v;
    v.kind = kind;
    v.text = text;
    return v;
}

QStringList childNames(const ValuesModel& model, const QModelIndex& parent)
{
    QStringList names;
    for (int row = 0; row < model.rowCount(parent); ++row)
        names << model.index(row, ValuesModel::NameColumn, parent).data().toString();
    return names;
}

} // namespace

class TestValuesModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void columns()
    {
        ValuesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.columnCount(), int(ValuesModel::NumColumns));

        ValueSummary bad = tensor({ 2, 3 }, -1.0, 0.5);
        bad.nanCount = 2;
        model.setValues({ { QStringLiteral("i"), scalar(QStringLiteral("int"), QStringLiteral("2")) },
            { QStringLiteral("result"), bad } });
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.rowOfName(QStringLiteral("result")), 1);
        QCOMPARE(model.rowOfName(QStringLiteral("missing")), -1);

        auto cell = [&](int row, int column) { return model.index(row, column).data().toString(); };
        QCOMPARE(cell(0, ValuesModel::NameColumn), QStringLiteral("i"));
        QCOMPARE(cell(0, ValuesModel::ValueColumn), QStringLiteral("2"));
        QCOMPARE(cell(0, ValuesModel::TypeColumn), QStringLiteral("int"));
        QCOMPARE(cell(0, ValuesModel::ShapeColumn), QString());
        QCOMPARE(cell(0, ValuesModel::MinColumn), QString());
        QVERIFY(!model.hasChildren(model.index(0, 0)));

        QCOMPARE(cell(1, ValuesModel::ValueColumn), QStringLiteral("[-1, -0.5, 0, 0.5, \u2026]"));
        QCOMPARE(cell(1, ValuesModel::TypeColumn), QStringLiteral("tensor"));
        QCOMPARE(cell(1, ValuesModel::ShapeColumn), QStringLiteral("[2, 3]"));
        QCOMPARE(cell(1, ValuesModel::DTypeColumn), QStringLiteral("float32"));
        QCOMPARE(cell(1, ValuesModel::DeviceColumn), QStringLiteral("cpu"));
        QCOMPARE(cell(1, ValuesModel::MinColumn), QStringLiteral("-1"));
        QCOMPARE(cell(1, ValuesModel::MaxColumn), QStringLiteral("1.5"));
        QCOMPARE(cell(1, ValuesModel::MeanColumn), QStringLiteral("0.25"));
        QCOMPARE(cell(1, ValuesModel::StdColumn), QStringLiteral("0.1"));
        QCOMPARE(cell(1, ValuesModel::NanColumn), QStringLiteral("2"));
        QCOMPARE(cell(1, ValuesModel::InfColumn), QStringLiteral("0"));
        // NaNs are the thing to notice.
        QCOMPARE(
            model.index(1, ValuesModel::NanColumn).data(Qt::ForegroundRole).value<QColor>(), QColor(0xcf, 0x22, 0x2e));
        QVERIFY(!model.index(1, ValuesModel::InfColumn).data(Qt::ForegroundRole).isValid());
        const QModelIndex result = model.index(1, 0);
        QCOMPARE(result.data(ValuesModel::KindRole).toString(), QStringLiteral("tensor"));
        QCOMPARE(result.data(ValuesModel::ShapeRole).toList(), (QVariantList { 2, 3 }));
        QCOMPARE(result.data(ValuesModel::SumRole).toDouble(), 1.5);
        QCOMPARE(result.data(ValuesModel::PreviewRole).toList().size(), 6);
        QVERIFY(result.data(Qt::ToolTipRole).toString().contains(QLatin1String("NaN")));
        QCOMPARE(result.data(ValuesModel::HeatMapRole).value<QImage>().size(), QSize(3, 2));

        // A row expands to the elements, a row per run of the last dimension.
        QCOMPARE(childNames(model, result), (QStringList { "[0, :]", "[1, :]" }));
        const QModelIndex row1 = model.index(1, ValuesModel::ValueColumn, result);
        QCOMPARE(row1.data().toString(), QStringLiteral("0.5  1  1.5"));
        QVERIFY(row1.data(ValuesModel::ElementRowRole).toBool());
        QCOMPARE(row1.parent(), result);
        QCOMPARE(model.summary(row1), model.summary(result));

        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void elementRows_data()
    {
        QTest::addColumn<QVector<qint64>>("shape");
        QTest::addColumn<QStringList>("names");
        QTest::addRow("0-d") << QVector<qint64> {} << QStringList {};
        QTest::addRow("1-d short") << QVector<qint64> { 5 } << QStringList { "[:]" };
        QTest::addRow("1-d long") << QVector<qint64> { 20 } << QStringList { "[0:8]", "[8:16]", "[16:20]" };
        QTest::addRow("3-d") << QVector<qint64> { 2, 2, 3 }
                             << QStringList { "[0, 0, :]", "[0, 1, :]", "[1, 0, :]", "[1, 1, :]" };
        // Only the first 64 elements are kept: the rest is counted in a last row.
        QTest::addRow("truncated") << QVector<qint64> { 10, 10 }
                                   << QStringList { "[0, 0:8]", "[0, 8:10]", "[1, 0:8]", "[1, 8:10]", "[2, 0:8]",
                                          "[2, 8:10]", "[3, 0:8]", "[3, 8:10]", "[4, 0:8]", "[4, 8:10]", "[5, 0:8]",
                                          "[5, 8:10]", "[6, 0:4]", "\u2026" };
    }

    void elementRows()
    {
        QFETCH(QVector<qint64>, shape);
        QFETCH(QStringList, names);
        ValuesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setValues({ { QStringLiteral("t"), tensor(shape) } });
        QCOMPARE(childNames(model, model.index(0, 0)), names);
        if (names.value(names.size() - 1) == QStringLiteral("\u2026"))
            QVERIFY(model.index(int(names.size()) - 1, ValuesModel::ValueColumn, model.index(0, 0))
                        .data()
                        .toString()
                        .startsWith(QLatin1String("36 more elements")));
    }

    void tuplesExpandToItems()
    {
        ValuesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ValueSummary pair = scalar(QStringLiteral("tuple"), QStringLiteral("(float32[2,2], 3)"));
        pair.items = { tensor({ 2, 2 }), scalar(QStringLiteral("int"), QStringLiteral("3")) };
        model.setValues({ { QStringLiteral("pair"), pair } });
        const QModelIndex top = model.index(0, 0);
        QCOMPARE(childNames(model, top), (QStringList { "[0]", "[1]" }));
        const QModelIndex first = model.index(0, 0, top);
        QCOMPARE(model.index(0, ValuesModel::ShapeColumn, top).data().toString(), QStringLiteral("[2, 2]"));
        QCOMPARE(childNames(model, first), (QStringList { "[0, :]", "[1, :]" }));
        QCOMPARE(model.index(1, ValuesModel::ValueColumn, top).data().toString(), QStringLiteral("3"));
    }

    void changesSinceTheLastPause()
    {
        ValuesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const NamedValue x { QStringLiteral("x"), tensor({ 2, 2 }) };
        const NamedValue i0 { QStringLiteral("i"), scalar(QStringLiteral("int"), QStringLiteral("0")) };
        const NamedValue i1 { QStringLiteral("i"), scalar(QStringLiteral("int"), QStringLiteral("1")) };
        const NamedValue r0 { QStringLiteral("result"), tensor({ 2, 2 }, 0.5) };
        const NamedValue r1 { QStringLiteral("result"), tensor({ 2, 2 }, 0.25) };
        auto changed = [&](const QString& name) {
            return model.index(model.rowOfName(name), 0).data(ValuesModel::ChangedRole).toBool();
        };

        // The first pause of a session has nothing to compare with.
        model.setValues({ i0, x });
        QVERIFY(!changed(QStringLiteral("i")));
        QVERIFY(!changed(QStringLiteral("x")));
        model.setValues({ i1, r0, x });
        QVERIFY(changed(QStringLiteral("i")));
        QVERIFY(changed(QStringLiteral("result"))); // new
        QVERIFY(!changed(QStringLiteral("x")));
        QVERIFY(model.index(model.rowOfName(QStringLiteral("i")), ValuesModel::ShapeColumn)
                    .data(Qt::BackgroundRole)
                    .isValid());
        QVERIFY(model.index(model.rowOfName(QStringLiteral("i")), 0).data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(!model.index(model.rowOfName(QStringLiteral("x")), 0).data(Qt::BackgroundRole).isValid());
        model.setValues({ i1, r1, x });
        QVERIFY(!changed(QStringLiteral("i")));
        QVERIFY(changed(QStringLiteral("result")));
        model.setValues({ i1, r1, x });
        QVERIFY(!changed(QStringLiteral("result")));

        // A new session starts afresh.
        model.resetChanges();
        model.setValues({ i0, r0 });
        QVERIFY(!changed(QStringLiteral("i")));
        QVERIFY(!changed(QStringLiteral("result")));
    }

    void heatMap_data()
    {
        QTest::addColumn<QVector<float>>("values");
        QTest::addColumn<QColor>("firstPixel");
        QTest::addColumn<QColor>("lastPixel");
        // Both signs: blue below zero, near white at zero, red above.
        QTest::addRow("diverging") << QVector<float> { -2, 0, 2, 1 } << QColor(0x21, 0x66, 0xac)
                                   << QColor(0xd4, 0x87, 0x91);
        // One sign: the dark-to-light ramp from the smallest to the largest.
        QTest::addRow("sequential") << QVector<float> { 1, 2, 3, 5 } << QColor(0x44, 0x01, 0x54)
                                    << QColor(0xfd, 0xe7, 0x25);
        QTest::addRow("nan and inf") << QVector<float> { std::nanf(""), 1, 2, INFINITY } << QColor(0xff, 0x00, 0xff)
                                     << QColor(0, 0, 0);
    }

    void heatMap()
    {
        QFETCH(QVector<float>, values);
        QFETCH(QColor, firstPixel);
        QFETCH(QColor, lastPixel);
        ValueSummary v = tensor({ 2, 2 });
        v.slice = values;
        const QImage image = ValuesModel::heatMap(v);
        QCOMPARE(image.size(), QSize(2, 2));
        QCOMPARE(image.pixelColor(0, 0), firstPixel);
        QCOMPARE(image.pixelColor(1, 1), lastPixel);
        QVERIFY(ValuesModel::heatMap(tensor({ 5 })).isNull());
    }

    void numbers_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::addRow("short") << 0.5 << "0.5";
        QTest::addRow("four digits") << 3.14159265 << "3.142";
        QTest::addRow("large") << 123456.0 << "1.235e+05";
        QTest::addRow("nan") << double(NAN) << "nan";
        QTest::addRow("-inf") << -double(INFINITY) << "-inf";
    }

    void numbers()
    {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(ValuesModel::number(value), text);
    }
};

QTEST_MAIN(TestValuesModel)
#include "tst_valuesmodel.moc"
