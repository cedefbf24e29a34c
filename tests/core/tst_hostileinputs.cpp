// Inputs that crashed libtorch's compiler or constant folding (issue #14's crash classes 2 and 6), refused before
// libtorch sees them, each with Python's reason at its line and column. Run in-process: a regression crashes the test.

#include "load/model.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace jitscope;

class TestHostileInputs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void refusedAtTheirPlace_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("function");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("message");
        QTest::addRow("brackets 3000 deep")
            << "deep_brackets.py"
            << "f" << 3 << 215 << "too many nested parentheses (Python allows 200 levels)";
        QTest::addRow("3000 additions")
            << "deep_chain.py"
            << "f" << 3 << 4031
            << "expression too deeply nested (more than 2000 levels; Python refuses it too: RecursionError during "
               "compilation)";
        QTest::addRow("20000 prefix operators")
            << "prefix_run.py"
            << "f" << 3 << 11 << "more than 1000 prefix operators in a row (Python refuses it too)";
        QTest::addRow("INT64_MIN // -1")
            << "int_min_floordiv.py"
            << "f" << 7 << 8
            << "integer overflow: -9223372036854775808 // -1 does not fit in a 64-bit int (libtorch's constant "
               "folding would crash on it)";
        QTest::addRow("INT64_MIN % -1")
            << "int_min_mod.py"
            << "f" << 4 << 15
            << "integer overflow: -9223372036854775808 % -1 does not fit in a 64-bit int (libtorch's constant "
               "folding would crash on it)";
    }

    void refusedAtTheirPlace()
    {
        QFETCH(QString, file);
        QFETCH(QString, function);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, message);
        const LoadResult r = loadModel(test::dataDir() + QStringLiteral("/hostile/") + file);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        const FunctionInfo* fn = r.model.function(function);
        QVERIFY(fn);
        QVERIFY(!fn->ok);
        QCOMPARE(fn->error.message, message);
        QCOMPARE(fn->error.location.line, line);
        QCOMPARE(fn->error.location.column, column);
        QVERIFY(fn->error.location.file.endsWith(file));
    }

    void notRegularFilesAreRefused()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("model.py"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const LoadResult r = loadModel(fifo); // would block forever in open()
        QVERIFY(!r.ok);
        QCOMPARE(r.error.message, QStringLiteral("not a regular file (a pipe or a device?)"));
        const LoadResult dev = loadModel(QStringLiteral("/dev/zero"));
        QVERIFY(!dev.ok);
        QCOMPARE(dev.error.message, QStringLiteral("not a regular file (a pipe or a device?)"));
    }

    void theRestOfTheFileStillCompiles()
    {
        const LoadResult r = loadModel(test::dataDir() + QStringLiteral("/hostile/int_min_floordiv.py"));
        QVERIFY(r.ok);
        const FunctionInfo* g = r.model.function(QStringLiteral("g"));
        QVERIFY(g && g->ok);
    }

    /// The folding check computes Python's floor division and modulo: -7 // -2 == 3, -7 % 3 == 2, and compiles it.
    void negativeFoldsAreNotRefused()
    {
        const LoadResult r = loadModel(test::dataDir() + QStringLiteral("/hostile/int_folds_ok.py"));
        QVERIFY(r.ok);
        const FunctionInfo* f = r.model.function(QStringLiteral("f"));
        QVERIFY2(f && f->ok, f ? qPrintable(f->error.toString()) : "no f");
    }
};

QTEST_GUILESS_MAIN(TestHostileInputs)
#include "tst_hostileinputs.moc"
