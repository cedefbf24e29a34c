// SourceMap: locations of a model's nodes as lines of the source panel, for a .py file and for an archive whose
// code/ files are shown one after the other.

#include "report/sourcemap.h"

#include <QTest>

using namespace jitscope;

namespace {

SourceLocation at(const QString& file, int line)
{
    SourceLocation l;
    l.file = file;
    l.line = line;
    return l;
}

ModelInfo archive()
{
    ModelInfo model;
    model.kind = ModelInfo::Kind::Archive;
    model.path = QStringLiteral("/tmp/net.pt");
    model.source = QStringLiteral("# ===== net/code/__torch__.py =====\n" // 1
                                  "class Net(Module):\n" // 2
                                  "  def forward(self, x):\n" // 3
                                  "    return x\n" // 4
                                  "# ===== net/code/__torch__/torch/nn/modules/linear.py =====\n" // 5
                                  "class Linear(Module):\n" // 6
                                  "  def forward(self, x):\n"); // 7
    return model;
}

} // namespace

class TestSourceMap : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pythonSource()
    {
        ModelInfo model;
        model.kind = ModelInfo::Kind::PythonSource;
        model.path = QStringLiteral("/work/examples/loop.py");
        const SourceMap map(model);
        QCOMPARE(map.lineFor(at(QStringLiteral("/work/examples/loop.py"), 7)), 7);
        QCOMPARE(map.lineFor(at(QStringLiteral("/work/examples/./loop.py"), 7)), 7);
        QCOMPARE(map.lineFor(at(QStringLiteral("examples/loop.py"), 3)), 3); // relative to the file's directory
        QCOMPARE(map.lineFor(at(QString(), 4)), 4); // no file: the model's own
        QCOMPARE(map.lineFor(at(QStringLiteral("/usr/lib/python3/torch/nn/functional.py"), 1200)), 0);
        QCOMPARE(map.lineFor(SourceLocation()), 0);
        QCOMPARE(map.fileLineOf(9, at(model.path, 1)), 9);
        QCOMPARE(map.fileLineOf(0, at(model.path, 1)), 0);
    }

    void archiveFiles()
    {
        const SourceMap map(archive());
        QCOMPARE(map.lineFor(at(QStringLiteral("archive/code/__torch__.py"), 3)), 4);
        QCOMPARE(map.lineFor(at(QStringLiteral("code/__torch__/torch/nn/modules/linear.py"), 2)), 7);
        QCOMPARE(map.lineFor(at(QStringLiteral("code/__torch__/missing.py"), 2)), 0);
        QCOMPARE(map.lineFor(at(QStringLiteral("/tmp/elsewhere.py"), 2)), 0);
    }

    void archiveLinesBackToFileLines()
    {
        const SourceMap map(archive());
        const SourceLocation forward = at(QStringLiteral("net/code/__torch__.py"), 2);
        QCOMPARE(map.fileLineOf(4, forward), 3);
        QCOMPARE(map.fileLineOf(1, forward), 0); // the header itself
        QCOMPARE(map.fileLineOf(7, forward), 0); // in linear.py, after its header
        const SourceLocation linear = at(QStringLiteral("code/__torch__/torch/nn/modules/linear.py"), 2);
        QCOMPARE(map.fileLineOf(7, linear), 2);
        QCOMPARE(map.fileLineOf(3, linear), 0);
        QCOMPARE(map.fileLineOf(3, at(QStringLiteral("/tmp/no_code_dir.py"), 1)), 0);
    }
};

QTEST_GUILESS_MAIN(TestSourceMap)
#include "tst_sourcemap.moc"
