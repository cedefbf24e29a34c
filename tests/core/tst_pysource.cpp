#include "load/pysource.h"
#include "testutil.h"

#include <QFile>
#include <QTest>

using namespace jitscope;

class TestPySource : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void definitionsAndLines()
    {
        const QString src = QStringLiteral("import torch\n" // 1
                                           "import torch.nn.functional as F\n" // 2
                                           "from typing import List, Optional as Opt\n" // 3
                                           "from math import (pi,\n" // 4
                                           "    sqrt)\n" // 5
                                           "\n" // 6
                                           "@torch.jit.script\n" // 7
                                           "def first(x):\n" // 8
                                           "    s = '''def fake():\n" // 9
                                           "not a def'''\n" // 10
                                           "    return x  # comment\n" // 11
                                           "\n" // 12
                                           "# a comment at column 0\n" // 13
                                           "@torch.jit.ignore\n" // 14
                                           "def ignored(x):\n" // 15
                                           "    return (x +\n" // 16
                                           "1)\n" // 17
                                           "\n" // 18
                                           "class Net(torch.nn.Module):\n" // 19
                                           "    pass\n" // 20
                                           "traced = torch.jit.trace(first, (torch.rand(2),))\n" // 21
                                           "if __name__ == '__main__':\n" // 22
                                           "    print(first)\n"); // 23
        const PyFileScan scan = scanPythonSource(src, QStringLiteral("f.py"));
        QCOMPARE(scan.syntaxError.location.line, 0);
        QCOMPARE(scan.defs.size(), 2);
        QCOMPARE(scan.defs[0].name, QStringLiteral("first"));
        QCOMPARE(scan.defs[0].firstLine, 7);
        QCOMPARE(scan.defs[0].defLine, 8);
        QCOMPARE(scan.defs[0].lastLine, 11);
        QCOMPARE(scan.defs[0].decorators, QStringList { QStringLiteral("torch.jit.script") });
        QVERIFY(!scan.defs[0].isIgnored());
        QCOMPARE(scan.defs[1].name, QStringLiteral("ignored"));
        QCOMPARE(scan.defs[1].defLine, 15);
        QCOMPARE(scan.defs[1].lastLine, 17);
        QVERIFY(scan.defs[1].isIgnored());
        QCOMPARE(scan.classes.size(), 1);
        QCOMPARE(scan.classes[0].name, QStringLiteral("Net"));
        QCOMPARE(scan.aliases.value(QStringLiteral("torch")), QStringLiteral("torch"));
        QCOMPARE(scan.aliases.value(QStringLiteral("F")), QStringLiteral("torch.nn.functional"));
        QCOMPARE(scan.aliases.value(QStringLiteral("List")), QStringLiteral("typing.List"));
        QCOMPARE(scan.aliases.value(QStringLiteral("Opt")), QStringLiteral("typing.Optional"));
        QCOMPARE(scan.aliases.value(QStringLiteral("pi")), QStringLiteral("math.pi"));
        QCOMPARE(scan.aliases.value(QStringLiteral("sqrt")), QStringLiteral("math.sqrt"));
        // The compiled text keeps the file's lines.
        QCOMPARE(scan.defSource(scan.defs[0]).count(QLatin1Char('\n')), 4);
        QVERIFY(scan.defSource(scan.defs[0]).startsWith(QLatin1String("def first(x):")));
    }

    /// libtorch's C++ parser takes a comprehension's tuple target only in parentheses: the compiled text has them,
    /// in the same columns, in comprehensions only (a string or comment is left alone).
    void comprehensionTuplesParenthesized_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("compiled");
        QTest::addRow("zip") << "    return [a * b for a, b in zip(xs, ys)]"
                             << "    return [a * b for(a, b)in zip(xs, ys)]";
        QTest::addRow("three names") << "    return {k: v + w for k, v,  w in t}"
                                     << "    return {k: v + w for(k, v,  w)in t}";
        QTest::addRow("nested") << "    return [[i * j for i, j in p] for p, q in r]"
                                << "    return [[i * j for(i, j)in p] for(p, q)in r]";
        QTest::addRow("tuple in the target") << "    return [a * b + i for i, (a, b) in enumerate(zip(xs, ys))]"
                                             << "    return [a * b + i for(i, (a, b))in enumerate(zip(xs, ys))]";
        QTest::addRow("statement") << "    for a, b in zip(xs, ys):"
                                   << "    for a, b in zip(xs, ys):";
        QTest::addRow("string") << "    s = \"[x for a, b in y]\""
                                << "    s = \"[x for a, b in y]\"";
        QTest::addRow("comment") << "    x = f(y)  # [x for a, b in y]"
                                 << "    x = f(y)  # [x for a, b in y]";
    }

    void comprehensionTuplesParenthesized()
    {
        QFETCH(QString, line);
        QFETCH(QString, compiled);
        const PyFileScan scan = scanPythonSource(
            QStringLiteral("def f(xs, ys):\n") + line + QStringLiteral("\n"), QStringLiteral("f.py"));
        QCOMPARE(scan.defs.size(), 1);
        QCOMPARE(scan.defSource(scan.defs[0]).section(QLatin1Char('\n'), 1, 1), compiled);
    }

    void inputSets_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QStringList>("sets");
        QTest::addRow("seed example") << "inputs = (torch.rand(3, 4, 5),)\n"
                                         "check_inputs = [(torch.rand(4, 5, 6),), (torch.rand(2, 3, 4),)]\n"
                                      << QStringList { "f32[3,4,5]", "f32[4,5,6]", "f32[2,3,4]" };
        QTest::addRow("factories and dtypes")
            << "inputs = (torch.zeros((2, 3), dtype=torch.float64), torch.ones([4]), torch.full((2,), 1.5),\n"
               "          torch.tensor([[1, 2], [3, 4]]), torch.arange(5), torch.randn(2, dtype=torch.long), 3, 2.0, "
               "True)\n"
            << QStringList { "f64[2,3]=zeros; f32[4]=ones; f32[2]=full:1.5; i64[2,2]=values:1,2,3,4; i64[5]=arange; "
                             "i64[2]=randn; 3; 2.0; true" };
        QTest::addRow("single tensor and nested")
            << "inputs = torch.rand(2)\ncheck_inputs = [torch.rand(3), ((torch.rand(1), 2),)]\n"
            << QStringList { "f32[2]", "f32[3]", "(f32[1],2)" };
        QTest::addRow("check_inputs only") << "check_inputs = [(torch.rand(1),)]\n" << QStringList { "f32[1]" };
    }

    void inputSets()
    {
        QFETCH(QString, source);
        QFETCH(QStringList, sets);
        const PyFileScan scan = scanPythonSource(QStringLiteral("import torch\n") + source, QStringLiteral("f.py"));
        QVERIFY2(scan.problems.isEmpty(), qPrintable(scan.problems.value(0).toString()));
        QStringList actual;
        for (const InputSet& s : scan.inputSets)
            actual << s.toString();
        QCOMPARE(actual, sets);
    }

    void badInputSetsAreReported_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("messagePart");
        QTest::addRow("unsupported call") << "inputs = (np.zeros(3),)\n" << 2 << 10 << "unsupported call";
        QTest::addRow("non-literal size") << "x = 3\ninputs = (torch.rand(x),)\n" << 3 << 10 << "literal";
        QTest::addRow("bad dtype") << "inputs = (torch.rand(2, dtype=torch.cfloat),)\n" << 2 << 10 << "dtype";
        QTest::addRow("second line") << "check_inputs = [(torch.rand(2),),\n    (torch.rand(2, 'a'),)]\n"
                                     << 3 << 5 << "literal";
        QTest::addRow("int beyond 64 bits") << "inputs = (torch.rand(2, 99999999999999999999),)\n"
                                            << 2 << 24 << "integer 99999999999999999999 does not fit in a 64-bit int";
    }

    /// Inputs the fuzzer found (tests/fuzz/run.sh), kept in tests/data/hostile/: a 96-digit dimension was converted
    /// from double to qint64 (undefined behaviour).
    void fuzzFindings()
    {
        QFile file(test::dataDir() + QStringLiteral("/hostile/fuzz_huge_int_dim.py"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const PyFileScan scan = scanPythonSource(QString::fromUtf8(file.readAll()), QStringLiteral("f.py"));
        QCOMPARE(scan.problems.size(), 1);
        QCOMPARE(scan.problems[0].location.line, 5);
        QCOMPARE(scan.problems[0].location.column, 49);
        QVERIFY2(scan.problems[0].message.contains(QLatin1String("does not fit in a 64-bit int")),
            qPrintable(scan.problems[0].message));
        QCOMPARE(scan.inputSets.size(), 1);
    }

    void badInputSetsAreReported()
    {
        QFETCH(QString, source);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, messagePart);
        const PyFileScan scan = scanPythonSource(QStringLiteral("import torch\n") + source, QStringLiteral("f.py"));
        QCOMPARE(scan.problems.size(), 1);
        QVERIFY2(scan.problems[0].message.contains(messagePart), qPrintable(scan.problems[0].message));
        QCOMPARE(scan.problems[0].location.line, line);
        QCOMPARE(scan.problems[0].location.column, column);
    }

    void syntaxErrors_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("messagePart");
        QTest::addRow("unterminated string") << "def f(x):\n    return 'abc\n" << 2 << 11 << "unterminated string";
        QTest::addRow("unterminated triple") << "def f(x):\n    \"\"\"doc\n    return x\n" << 2 << 4 << "triple";
        QTest::addRow("unclosed bracket") << "def f(x):\n    return g(x,\n\ny = 1\n" << 2 << 12 << "never closed";
        QTest::addRow("unmatched bracket") << "x = 1)\n" << 1 << 5 << "unmatched";
        QTest::addRow("unexpected indent") << "  x = 1\n" << 1 << 0 << "unexpected indent";
    }

    void syntaxErrors()
    {
        QFETCH(QString, source);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, messagePart);
        const PyFileScan scan = scanPythonSource(source, QStringLiteral("f.py"));
        QVERIFY2(scan.syntaxError.message.contains(messagePart), qPrintable(scan.syntaxError.message));
        QCOMPARE(scan.syntaxError.location.line, line);
        QCOMPARE(scan.syntaxError.location.column, column);
        QCOMPARE(scan.syntaxError.location.file, QStringLiteral("f.py"));
    }
};

QTEST_GUILESS_MAIN(TestPySource)
#include "tst_pysource.moc"
