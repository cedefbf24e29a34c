#include "report/inputset.h"
#include "testutil.h"

#include <QFile>

#include <QTest>

using namespace jitscope;

class TestInputSet : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parseValid_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("canonical");
        QTest::addColumn<qint64>("bytes");
        QTest::addRow("one tensor") << "f32[3,4,5]"
                                    << "f32[3,4,5]" << qint64(3 * 4 * 5 * 4);
        QTest::addRow("aliases and fills") << "long[2] = zeros ; double[2,2]=randn"
                                           << "i64[2]=zeros; f64[2,2]=randn" << qint64(16 + 32);
        QTest::addRow("full") << "i32[3]=full:7"
                              << "i32[3]=full:7" << qint64(12);
        QTest::addRow("scalar tensor") << "f32[]"
                                       << "f32[]" << qint64(4);
        QTest::addRow("scalars") << "3; 2.5; true; -1; none"
                                 << "3; 2.5; true; -1; none" << qint64(0);
        QTest::addRow("tuple and list") << "(f32[2], 3); [i64[1], i64[2]]"
                                        << "(f32[2],3); [i64[1],i64[2]]" << qint64(8 + 8 + 16);
        QTest::addRow("one-tuple") << "(u8[4],)"
                                   << "(u8[4],)" << qint64(4);
        QTest::addRow("values") << "i64[2,2]=values:1,2,3,4"
                                << "i64[2,2]=values:1,2,3,4" << qint64(32);
        QTest::addRow("values spaced") << "f32[3]=values: 1, 2 ,3"
                                       << "f32[3]=values:1,2,3" << qint64(12);
        // In a list, tuple or dict the values stop at the shape's count: the ',' after them separates items.
        QTest::addRow("values in a list") << "[i64[2]=values:1,2, 3]"
                                          << "[i64[2]=values:1,2,3]" << qint64(16);
        QTest::addRow("values in a dict") << "{a: i64[2]=values:1, 2, b: f32[1]=values:0.5}"
                                          << "{a: i64[2]=values:1,2, b: f32[1]=values:0.5}" << qint64(20);
        QTest::addRow("bool and half") << "bool[2]; f16[2]; bf16[2]"
                                       << "bool[2]; f16[2]; bf16[2]" << qint64(2 + 4 + 4);
        // detectron2's inputs: a list of dicts; keys that are not names keep their quotes.
        QTest::addRow("dict") << "{image: f32[3,224,224], height: 224}"
                              << "{image: f32[3,224,224], height: 224}" << qint64(3 * 224 * 224 * 4);
        QTest::addRow("list of dicts") << "[{ image : u8[3,4,4] ,'file name':none},{}] ; 2"
                                       << "[{image: u8[3,4,4], 'file name': none},{}]; 2" << qint64(48);
        QTest::addRow("nested dict") << "{\"a\": {b: (f32[2],)}}"
                                     << "{a: {b: (f32[2],)}}" << qint64(8);
    }

    void parseValid()
    {
        QFETCH(QString, text);
        QFETCH(QString, canonical);
        QFETCH(qint64, bytes);
        InputParseError error;
        const auto set = parseInputSet(text, &error);
        QVERIFY2(set, qPrintable(error.message));
        QCOMPARE(set->toString(), canonical);
        QCOMPARE(set->byteSize(), bytes);
        // The canonical form parses back to itself.
        const auto again = parseInputSet(canonical);
        QVERIFY(again);
        QCOMPARE(again->toString(), canonical);
    }

    void parseInvalid_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("position");
        QTest::addColumn<QString>("messagePart");
        QTest::addRow("empty") << "" << 0 << "empty";
        QTest::addRow("unknown dtype") << "f31[2]" << 0 << "unknown dtype";
        QTest::addRow("missing bracket") << "f32[2,3" << 7 << "missing ']'";
        QTest::addRow("bad dim") << "f32[2,x]" << 6 << "dimension";
        QTest::addRow("negative dim") << "f32[-2]" << 4 << "negative";
        QTest::addRow("bad fill") << "f32[2]=lots" << 7 << "unknown fill";
        QTest::addRow("missing separator") << "f32[2] f32[3]" << 7 << "';'";
        QTest::addRow("full without value") << "f32[2]=full" << 11 << "':'";
        QTest::addRow("wrong value count") << "f32[3]=values:1,2" << 7 << "3 elements";
        QTest::addRow("one value too many") << "f32[2]=values:1, 2, 3" << 7 << "3 values given for a shape of 2";
        QTest::addRow("too few values in a list") << "[f32[3]=values:1,2]" << 8 << "2 values given for a shape of 3";
        QTest::addRow("unclosed tuple") << "(f32[2], 3" << 10 << "missing ')'";
        QTest::addRow("stray character") << "f32[2]; @" << 8 << "unexpected '@'";
        QTest::addRow("huge dim") << "f32[99999999999999999999]" << 4 << "too large";
        QTest::addRow("dict without colon") << "{image f32[2]}" << 7 << "expected ':' after the key";
        QTest::addRow("dict key twice") << "{a: 1, a: 2}" << 7 << "key 'a' given twice";
        QTest::addRow("dict bad key") << "{3: f32[2]}" << 1 << "expected a key";
        QTest::addRow("dict unclosed") << "{a: f32[2]" << 10 << "missing '}'";
        QTest::addRow("dict unclosed quote") << "{'a: 1}" << 1 << "missing closing '";
        QTest::addRow("dicts nested 201 deep")
            << QString(201, QLatin1Char('{')).replace(QLatin1String("{"), QLatin1String("{a:")) + "1"
                + QString(201, QLatin1Char('}'))
            << 600 << "too many nested parentheses (at most 200 levels)";
        // Fuzzing found the recursive parser's stack overflowing at ~5,000 levels: refused as Python refuses them.
        QTest::addRow("nested 201 deep") << QString(201, QLatin1Char('(')) + "1" + QString(201, QLatin1Char(')')) << 200
                                         << "too many nested parentheses (at most 200 levels)";
        QTest::addRow("nested 100000 deep") << QString(100000, QLatin1Char('[')) << 200 << "too many nested";
    }

    void nestingUpToTheLimitParses()
    {
        const auto set = parseInputSet(QString(200, QLatin1Char('(')) + "1" + QString(200, QLatin1Char(')')));
        QVERIFY(set);
        const InputValue* v = &set->args[0];
        int depth = 0;
        for (; v->kind == InputValue::Kind::Tuple; v = &v->items[0])
            ++depth;
        QCOMPARE(depth, 200);
    }

    void dictsAreFoundAtAnyDepth()
    {
        QVERIFY(parseInputSet(QStringLiteral("f32[2]; [({a: 1},)]"))->containsDict());
        QVERIFY(!parseInputSet(QStringLiteral("f32[2]; [(i64[1],)]"))->containsDict());
        const auto set = parseInputSet(QStringLiteral("{x: f32[2], y: 3}"));
        QCOMPARE(set->args[0].keys, QStringList({ "x", "y" }));
        QCOMPARE(set->args[0].items[1].intValue, 3);
        QCOMPARE(toText(InputValue::Kind::Dict), QStringLiteral("dict"));
    }

    void parseInvalid()
    {
        QFETCH(QString, text);
        QFETCH(int, position);
        QFETCH(QString, messagePart);
        InputParseError error;
        QVERIFY(!parseInputSet(text, &error));
        QVERIFY2(error.message.contains(messagePart), qPrintable(error.message));
        QCOMPARE(error.position, position);
    }

    /// Inputs the fuzzer found (tests/fuzz/run.sh), each a regression test with its file in tests/data/hostile/.
    void fuzzFindings()
    {
        QFile file(test::dataDir() + QStringLiteral("/hostile/fuzz_set_values_overflow.txt"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        InputParseError error;
        // 33 dimensions whose product overflows qint64 (signed overflow before).
        QVERIFY(!parseInputSet(QString::fromUtf8(file.readAll()), &error));
        QVERIFY2(error.message.contains(QLatin1String("more than 2^63 elements")), qPrintable(error.message));
        QVERIFY(!parseInputSet(QStringLiteral("i64[4294967296,4294967296]=values:1"), &error));
        QCOMPARE(error.message, QStringLiteral("1 values given for a shape of more than 2^63 elements"));

        // A zero dimension after seventeen huge ones: counted in doubles, the product was inf and then 0 * inf =
        // nan, cast to qint64 (undefined behaviour, found by fuzz_inputset in CI). The tensor is empty.
        QFile zero(test::dataDir() + QStringLiteral("/hostile/fuzz_zero_after_huge_dims.txt"));
        QVERIFY(zero.open(QIODevice::ReadOnly));
        const auto empty = parseInputSet(QString::fromUtf8(zero.readAll()), &error);
        QVERIFY2(empty, qPrintable(error.message));
        QCOMPARE(int(empty->args.value(0).shape.size()), 18);
        QCOMPARE(empty->byteSize(), qint64(0));
        const auto emptyFirst = parseInputSet(QStringLiteral("bool[0,9223372036854775807,9223372036854775807]"));
        QVERIFY(emptyFirst);
        QCOMPARE(emptyFirst->byteSize(), qint64(0));

        // A values tensor in a list followed by another item, a space before the ',': it parsed, but its canonical
        // form `[i64[3]=values:1,2,3,2.5]` did not (four values for three elements; found by fuzz_inputset in CI).
        QFile list(test::dataDir() + QStringLiteral("/hostile/fuzz_values_in_list.txt"));
        QVERIFY(list.open(QIODevice::ReadOnly));
        const auto set = parseInputSet(QString::fromUtf8(list.readAll()), &error);
        QVERIFY2(set, qPrintable(error.message));
        const QString canonical = set->toString();
        QCOMPARE(canonical, QStringLiteral("(f32[2],[i64[3]=values:1,2,3,2.5]); true"));
        const auto again = parseInputSet(canonical, &error);
        QVERIFY2(again, qPrintable(error.message));
        QCOMPARE(again->toString(), canonical);
        QCOMPARE(again->args.value(0).items.value(1).items.size(), 2);
    }

    void byteSizeSaturates()
    {
        const auto set = parseInputSet(QStringLiteral("f64[100000000000,100000000000,100000000000]"));
        QVERIFY(set);
        QCOMPARE(set->byteSize(), std::numeric_limits<qint64>::max());
    }

    void dtypeNames()
    {
        QCOMPARE(canonicalDtype(QStringLiteral("torch.float32")), QStringLiteral("f32"));
        QCOMPARE(canonicalDtype(QStringLiteral("torch.long")), QStringLiteral("i64"));
        QCOMPARE(canonicalDtype(QStringLiteral("int")), QStringLiteral("i32"));
        QCOMPARE(canonicalDtype(QStringLiteral("torch.complex64")), QString());
        QCOMPARE(dtypeElementSize(QStringLiteral("bf16")), 2);
    }

    void dtypeTable()
    {
        QCOMPARE(dtypeShortNames(), QStringLiteral("f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool"));
        for (const DtypeInfo& d : dtypes()) {
            QCOMPARE(findDtype(d.name), &d);
            QCOMPARE(findDtype(QStringLiteral("torch.") + d.torchName), &d);
            QCOMPARE(dtypeFromTorchName(d.torchName), &d);
            for (const QString& alias : d.aliases)
                QCOMPARE(canonicalDtype(alias), d.name);
            QCOMPARE(dtypeFromIrName(d.irName), &d);
            QVERIFY(d.elementSize > 0);
        }
        QCOMPARE(dtypeFromIrName(QStringLiteral("Long"))->torchName, QStringLiteral("int64"));
        QCOMPARE(dtypeFromTorchName(QStringLiteral("half"))->name, QStringLiteral("f16"));
        QCOMPARE(dtypeFromTorchName(QStringLiteral("f16")), nullptr); // torch.f16 does not exist
        QCOMPARE(findDtype(QStringLiteral("complex64")), nullptr);
    }

    void enumTexts()
    {
        for (auto fill : { InputValue::Fill::Rand, InputValue::Fill::Randn, InputValue::Fill::Zeros,
                 InputValue::Fill::Ones, InputValue::Fill::Arange, InputValue::Fill::Full, InputValue::Fill::Values })
            QCOMPARE(fillFromText(toText(fill)), fill);
        QCOMPARE(fillFromText(QStringLiteral("empty")), std::nullopt);
        QCOMPARE(toText(InputValue::Kind::Tensor), QStringLiteral("tensor"));
        QCOMPARE(toText(InputValue::Kind::None), QStringLiteral("none"));
    }
};

QTEST_GUILESS_MAIN(TestInputSet)
#include "tst_inputset.moc"
