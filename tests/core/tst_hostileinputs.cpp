// Inputs that crashed libtorch's compiler, constant folding or unpickler (issue #14's crash classes 2 to 6),
// refused before libtorch sees them, each with Python's reason at its line and column (or an archive's entry and
// byte). Run in-process: a regression crashes the test. The archives are made by tests/data/hostile/make_archives.py.

#include "execute/run.h"
#include "load/model.h"
#include "load/picklecheck_p.h"
#include "testutil.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

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

    void archivesRefusedAtTheirEntry_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        const QString underflow = QStringLiteral(
            "byte 3: stack underflow: TUPLE2 needs 2 values, the stack holds 1 (a corrupt or hostile pickle)");
        QTest::addRow("constants.pkl underflows") << "pickle_underflow_constants.pt"
                                                  << "constants.pkl: " + underflow;
        QTest::addRow("data.pkl underflows") << "pickle_underflow_data.pt"
                                             << "data.pkl: " + underflow;
        QTest::addRow("debug_pkl underflows") << "pickle_underflow_debug.pt"
                                              << "code/__torch__/modules.py.debug_pkl: " + underflow;
        QTest::addRow("300,000 nested tuples")
            << "pickle_nested_tuples.pt"
            << "constants.pkl: byte 1002: values nested more than 1000 deep (a corrupt or hostile pickle)";
        QTest::addRow("weight = Tensor")
            << "class_untyped_attr.pt"
            << "code/__torch__/torch/nn/modules/linear.py:4:2: class attribute `weight` assigned without a type "
               "(libtorch's importer crashes on it): an attribute is declared `weight : TYPE`, a constant "
               "`weight : Final[TYPE] = VALUE`";
        // Found by fuzz_archive: any untyped class-body assignment libtorch does not read itself is a constant to
        // its importer, whose missing type it dereferences; only five dunder names are read.
        QTest::addRow("__selparameters__ = []")
            << "fuzz_class_dunder_assign.pt"
            << "code/__torch__/torch/nn/modules/linear.py:4:2: class attribute `__selparameters__` assigned without a "
               "type (libtorch's importer crashes on it): an attribute is declared `__selparameters__ : TYPE`, a "
               "constant `__selparameters__ : Final[TYPE] = VALUE`";
        // Found by fuzz_archive with LeakSanitizer: libtorch refuses a second `def forward` in a class after it made
        // the first, and leaks it.
        QTest::addRow("method defined twice")
            << "fuzz_duplicate_method.pt"
            << "code/__torch__/torch/nn/modules/linear.py:15:2: method `forward` defined twice in class `Linear` "
               "(libtorch's importer refuses the second and leaks the first)";
        QTest::addRow("empty debug table")
            << "fuzz_debug_empty_table.pt"
            << "code/__torch__/torch/nn/modules/linear.py.debug_pkl: the table has 0 elements, not 1 (a corrupt debug "
               "table: torch::jit::load would read past it)";
        QTest::addRow("code brackets 3000 deep")
            << "code_deep_brackets.pt"
            << "code/__torch__/modules.py:15:232: too many nested parentheses (Python allows 200 levels)";
        QTest::addRow("code 3000 additions")
            << "code_deep_chain.pt"
            << "code/__torch__/modules.py:15:4060: expression too deeply nested (more than 2000 levels; Python "
               "refuses it too: RecursionError during compilation)";
    }

    /// .pt2 packages that are not what torch.export.save writes (tests/oracle/make_pt2.py makes them from a real
    /// one): one message naming the file and what is wrong, never libtorch's "checkpoint corrupted".
    void pt2PackagesRefused_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        QTest::addRow("truncated") << "pt2_truncated.pt2"
                                   << "not a zip file, or truncated: no end of central directory record in its last "
                                      "4803 bytes";
        QTest::addRow("corrupt JSON") << "pt2_corrupt_json.pt2"
                                      << "linear_relu/models/model.json: not valid JSON: unterminated string at byte "
                                         "1665";
        QTest::addRow("newer schema") << "pt2_newer_schema.pt2"
                                      << "linear_relu/models/model.json: schema version 9.20 is newer than this "
                                         "reader's (8.x): saved by torch 2.14.1+cu130; a newer JitScope reads it";
        QTest::addRow("AOTInductor package")
            << "pt2_aotinductor.pt2"
            << "an AOTInductor package (torch._inductor.aoti_compile_and_package: compiled code, no graph), not an "
               "exported program; JitScope reads .pt2 files of torch.export.save";
        QTest::addRow("4 GiB entry") << "pt2_huge_entry.pt2"
                                     << "linear_relu/models/model.json: declares 4294967280 bytes, more than the 256 "
                                        "MiB read of such an entry";
    }

    void pt2PackagesRefused() { refusedAtTheirEntry(); }

    void archivesRefusedAtTheirEntry() { refusedAtTheirEntry(); }

private:
    /// A hostile archive or .pt2 of tests/data/hostile/: refused with one message naming the file.
    void refusedAtTheirEntry()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        const QString path = test::dataDir() + QStringLiteral("/hostile/") + file;
        const LoadResult r = loadModel(path);
        QVERIFY(!r.ok);
        QCOMPARE(r.error.message, message);
        QCOMPARE(r.error.location.file, path);
        QCOMPARE(r.error.toString(), path + QStringLiteral(": ") + message);
    }

private Q_SLOTS:

    /// An attribute's value is shown with its tensors as dtype and shape, never their data: a tensor record shorter
    /// than its pickle says (found by fuzz_archive: printing the value read past it) opens like the intact archive.
    void attributeValuesDoNotReadTensorData()
    {
        const QString expected = QStringLiteral("{a: Float[2, 3], b: Float[2, 3]}");
        for (const QString& path : { test::dataDir() + QStringLiteral("/archives/dict_attr.pt"),
                 test::dataDir() + QStringLiteral("/hostile/fuzz_empty_tensor_record.pt") }) {
            const LoadResult r = loadModel(path);
            QVERIFY2(r.ok, qPrintable(r.error.toString()));
            const auto tables = std::find_if(r.model.parameters.cbegin(), r.model.parameters.cend(),
                [](const ParameterInfo& p) { return p.name == QLatin1String("tables"); });
            QVERIFY(tables != r.model.parameters.cend());
            QCOMPARE(tables->value, expected);
        }
    }

    /// An input of the wrong kind for the signature is refused by the argument's name before the run, as Python's
    /// call of a scripted function refuses it, not by the first operator's internal assert ("isInt() INTERNAL
    /// ASSERT FAILED").
    void argumentKindsChecked_data()
    {
        QTest::addColumn<QString>("function");
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("error"); // empty: runs
        QTest::addRow("tensor for int") << "ints"
                                        << "i64[2]=values:-1,-1"
                                        << "argument 'n' of 'ints' is int, the input set gives a tensor";
        QTest::addRow("int for tensor") << "tensors"
                                        << "3"
                                        << "argument 'x' of 'tensors' is Tensor, the input set gives int";
        QTest::addRow("int for int") << "ints"
                                     << "3"
                                     << "";
        QTest::addRow("None for Optional[Tensor]") << "optional"
                                                   << "None"
                                                   << "";
        QTest::addRow("tensor for Optional[Tensor]") << "optional"
                                                     << "f32[2]"
                                                     << "";
        QTest::addRow("float for Optional[Tensor]")
            << "optional"
            << "1.5"
            << "argument 'x' of 'optional' is Optional[Tensor], the input set gives float";
    }

    void argumentKindsChecked()
    {
        QFETCH(QString, function);
        QFETCH(QString, set);
        QFETCH(QString, error);
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("kinds.py")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("import torch\nfrom typing import Optional\n\n\n"
                   "def ints(n: int):\n    return n // 2\n\n\n"
                   "def tensors(x):\n    return x + 1\n\n\n"
                   "def optional(x: Optional[torch.Tensor]):\n    if x is None:\n        return torch.zeros(1)\n"
                   "    return x * 2\n");
        file.close();
        const LoadResult loaded = loadModel(file.fileName());
        QVERIFY2(loaded.ok, qPrintable(loaded.error.toString()));
        const auto inputs = parseInputSet(set);
        QVERIFY(inputs);
        const RunResult run = runFunction(loaded.model, function, *inputs);
        QVERIFY2(run.ok == error.isEmpty(), qPrintable(run.error.toString()));
        if (!error.isEmpty())
            QCOMPARE(run.error.message, error);
    }

    /// Tensor `//` compiles to TorchScript's builtin floordiv, whose nodes keep no call site (`<string>:3:9`); the
    /// refusal of INT64_MIN // -1 still names the user's `//`, found in the text between the nodes around it.
    void floorDivisionNamesItsOperator_data()
    {
        QTest::addColumn<QString>("function");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addRow("a // x") << "plain" << 7 << 13;
        QTest::addRow("operand computed after the a") << "operand_after" << 11 << 55;
        QTest::addRow("the second // of two") << "second" << 17 << 13;
    }

    void floorDivisionNamesItsOperator()
    {
        QFETCH(QString, function);
        QFETCH(int, line);
        QFETCH(int, column);
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("floordiv.py")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("import torch\n\n\n"
                   "def plain(x):\n" // line 4
                   "    a = torch.tensor([-9223372036854775807 - 1, 4])\n"
                   "    # a comment with // in it\n"
                   "    return a // x\n" // line 7
                   "\n\n"
                   "def operand_after(x):\n"
                   "    return torch.tensor([-9223372036854775807 - 1, 4]) // (x + 0)\n" // line 11
                   "\n\n"
                   "def second(x):\n"
                   "    a = torch.tensor([-9223372036854775807 - 1, 4])\n"
                   "    b = a // 2 * 0 + a\n"
                   "    return b // x\n"); // line 17
        file.close();
        const LoadResult loaded = loadModel(file.fileName());
        QVERIFY2(loaded.ok, qPrintable(loaded.error.toString()));
        const RunResult run = runFunction(loaded.model, function, *parseInputSet(QStringLiteral("i64[2]=full:-1")));
        QVERIFY(!run.ok);
        QVERIFY2(
            run.error.message.contains(QLatin1String("-9223372036854775808 // -1")), qPrintable(run.error.message));
        QCOMPARE(run.error.location.line, line);
        QCOMPARE(run.error.location.column, column);
    }

    /// What torch.jit.save writes passes the checks: every archive of the test data still loads.
    void realArchivesPass()
    {
        const QDir dir(test::dataDir() + QStringLiteral("/archives"));
        const QStringList archives = dir.entryList({ QStringLiteral("*.pt") });
        QVERIFY(archives.size() >= 10);
        for (const QString& name : archives) {
            const LoadResult r = loadModel(dir.filePath(name));
            QVERIFY2(r.ok, qPrintable(name + QStringLiteral(": ") + r.error.toString()));
        }
    }

    void pickleChecker_data()
    {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<int>("offset");
        QTest::addColumn<QString>("message"); // empty: accepted
        // Written in hex: one opcode and its argument per group.
        const auto hex = [](const char* text) { return QByteArray::fromHex(text); };
        QTest::addRow("empty tuple") << hex("8002 29 2e") << 0 << "";
        QTest::addRow("list of ints, memoized") << hex("8002 5d 7100 28 4b01 4b02 65 6800 86 2e") << 0 << "";
        QTest::addRow("dict") << hex("8002 7d 28 580100000061 4b01 75 2e") << 0 << "";
        QTest::addRow("object") << hex("8002 63 5f5f746f7263685f5f0a 4d0a 29 81 7d 62 2e") << 0 << "";
        QTest::addRow("no STOP") << hex("8002 29") << 3 << "ends without a STOP opcode (truncated?)";
        QTest::addRow("string past the end")
            << hex("8002 58ff000000 6162 2e") << 2 << "length 255 runs past the end of the pickle";
        QTest::addRow("unmatched TUPLE") << hex("8002 4b01 74 2e") << 4 << "TUPLE without a MARK";
        QTest::addRow("odd SETITEMS") << hex("8002 7d 28 4b01 75 2e") << 6
                                      << "SETITEMS with a key left without its value";
        QTest::addRow("memo never stored") << hex("8002 6805 2e") << 2 << "memo index 5 was never stored";
        QTest::addRow("memo index skips")
            << hex("8002 29 72ffffffff 2e") << 3 << "memo index 4294967295 skips entries (the memo holds 0)";
        QTest::addRow("list appended into itself")
            << hex("8002 5d 7100 28 6800 65 2e") << 8
            << "APPENDS on a list or dict already referenced from the memo (a cycle?)";
        QTest::addRow("APPENDS on a tuple")
            << hex("8002 29 28 4b01 65 2e") << 6 << "APPENDS on a value that is not a list or a dict";
        QTest::addRow("unknown opcode") << hex("8002 ff 2e") << 2 << "opcode 0xff is not one libtorch reads";
        QTest::addRow("MARK popped past")
            << hex("8002 4b01 28 81 74 2e") << 6 << "TUPLE: its MARK lies above the stack (values popped past it)";
        const QByteArray lists
            = hex("8002") + hex("5d28").repeated(1001) + hex("4b01") + hex("65").repeated(1001) + hex("2e");
        QTest::addRow("lists 1001 deep") << lists << 2 + 2 * 1000 + 1 << "MARKs nested more than 1000 deep";
        // x = (x, x) 30 times: 2^31 - 1 elements once expanded, the 26th passes 2^26.
        const QByteArray shared = hex("8002 4b01") + hex("7100 6800 86").repeated(30) + hex("2e");
        QTest::addRow("shared tuples 2^30 wide")
            << shared << 4 + 25 * 5 + 4 << "a value of more than 67108864 elements once expanded";
    }

    void pickleChecker()
    {
        QFETCH(QByteArray, pickle);
        QFETCH(int, offset);
        QFETCH(QString, message);
        const PickleProblem p = checkPickle(pickle.constData(), size_t(pickle.size()));
        QCOMPARE(QString::fromStdString(p.message), message);
        QCOMPARE(p.ok, message.isEmpty());
        if (!p.ok)
            QCOMPARE(int(p.offset), offset);
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
