// An archive opened to view it: its graph, parameters and shapes without reading the tensor data, which a run reads
// when it needs it (issue #12, item 2).

#include "check/check.h"
#include "execute/run.h"
#include "report/inputset.h"
#include "load/model.h"
#include "testutil.h"
#include "trace/trace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

#include <cmath>

using namespace jitscope;
using namespace jitscope::test;

namespace {

struct Payload
{
    qint64 offset = 0;
    qint64 size = 0;
};

/// Where the payloads of the archive's data/ records are (its central directory, then each local header).
QVector<Payload> dataPayloads(const QByteArray& zip)
{
    QVector<Payload> out;
    const qsizetype end = zip.lastIndexOf(QByteArray("PK\x05\x06", 4));
    if (end < 0 || end + 22 > zip.size())
        return out;
    auto u16 = [&](qsizetype at) { return qFromLittleEndian<quint16>(zip.constData() + at); };
    auto u32 = [&](qsizetype at) { return qFromLittleEndian<quint32>(zip.constData() + at); };
    const int entries = u16(end + 10);
    qsizetype at = u32(end + 16);
    for (int i = 0; i < entries && at + 46 <= zip.size(); ++i) {
        const qint64 size = u32(at + 20);
        const int nameLength = u16(at + 28);
        const qsizetype next = at + 46 + nameLength + u16(at + 30) + u16(at + 32);
        const QByteArray name = zip.mid(at + 46, nameLength);
        const qsizetype local = u32(at + 42);
        if (name.contains("/data/") && !name.endsWith(".pkl") && u16(at + 10) == 0)
            out.push_back({ local + 30 + u16(local + 26) + u16(local + 28), size });
        at = next;
    }
    return out;
}

/// Overwrites the data/ payloads of the archive at @p path in place (the same file, as an editor saving over it
/// would not: the inode stays), with bytes of @p value.
bool overwriteData(const QString& path, char value)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadWrite))
        return false;
    const QVector<Payload> payloads = dataPayloads(f.readAll());
    for (const Payload& p : payloads) {
        if (!f.seek(p.offset) || f.write(QByteArray(p.size, value)) != p.size)
            return false;
    }
    return !payloads.isEmpty();
}

LoadResult load(const QString& path)
{
    LoadOptions options;
    options.inlineCalls = true;
    return loadModel(path, options);
}

QString parameterText(const ModelInfo& model)
{
    QStringList lines;
    for (const ParameterInfo& p : model.parameters) {
        QStringList dims;
        for (qint64 d : p.shape)
            dims << QString::number(d);
        lines << QStringLiteral("%1 %2 %3[%4] %5").arg(p.name, p.type, p.dtype, dims.join(QLatin1Char(',')), p.value);
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class TestArchiveData : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void viewLoadReadsNoData_data()
    {
        QTest::addColumn<QString>("archive");
        QTest::addColumn<QString>("set");
        QTest::addRow("conv_block") << "conv_block"
                                    << "f32[1,3,5,5]";
        QTest::addRow("buffer_scale") << "buffer_scale"
                                      << "f32[2,3]";
        QTest::addRow("dense_residual") << "dense_residual"
                                        << "f32[2,2]=randn";
    }

    /// The data is read when the first run needs it, not when the file is opened: an archive whose data is
    /// overwritten on disk after it was opened runs on the new data (a load that read it would run on the old),
    /// and shows the same graph and parameters as before.
    void viewLoadReadsNoData()
    {
        QFETCH(QString, archive);
        QFETCH(QString, set);
        QTemporaryDir dir;
        const QString original = dataDir() + QStringLiteral("/archives/") + archive + QStringLiteral(".pt");
        const QString opened = dir.filePath(QStringLiteral("opened.pt"));
        const QString fresh = dir.filePath(QStringLiteral("fresh.pt"));
        QVERIFY(QFile::copy(original, opened) && QFile::copy(original, fresh));
        const auto inputs = parseInputSet(set);
        QVERIFY(inputs);

        const LoadResult before = load(original);
        const LoadResult early = load(opened);
        QVERIFY2(before.ok && early.ok, qPrintable(before.error.toString() + early.error.toString()));
        QVERIFY(overwriteData(opened, '\0'));
        QVERIFY(overwriteData(fresh, '\0'));
        const LoadResult late = load(fresh);
        QVERIFY2(late.ok, qPrintable(late.error.toString()));

        QCOMPARE(early.model.defaultFunction()->graph.toText(), before.model.defaultFunction()->graph.toText());
        QCOMPARE(parameterText(early.model), parameterText(before.model));
        const RunResult a = runFunction(before.model, QStringLiteral("forward"), *inputs);
        const RunResult b = runFunction(early.model, QStringLiteral("forward"), *inputs);
        const RunResult c = runFunction(late.model, QStringLiteral("forward"), *inputs);
        QVERIFY2(a.ok && b.ok && c.ok, qPrintable(a.error.toString() + b.error.toString() + c.error.toString()));
        QCOMPARE(b.outputs.first().preview, c.outputs.first().preview);
        QVERIFY(a.outputs.first().preview != b.outputs.first().preview);
    }

    /// A check of an archive opened for viewing traces on its real parameters: the output PyTorch computed
    /// (tests/data/traces, from tests/oracle/generate_traces.py).
    void checkReadsDataWhenItRuns()
    {
        const QJsonObject c
            = QJsonDocument::fromJson(readText(dataDir() + QStringLiteral("/traces/conv_block.json")).toUtf8())
                  .object();
        const LoadResult r = load(dataDir() + QLatin1Char('/') + c.value(QStringLiteral("archive")).toString());
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        QVector<InputSet> sets;
        for (const auto& s : c.value(QStringLiteral("sets")).toArray())
            sets << *parseInputSet(s.toString());
        CheckOptions options;
        options.exec.seed = quint64(c.value(QStringLiteral("seed")).toInt());
        const CheckReport report = checkModel(r.model, QStringLiteral("forward"), sets, options);
        QVERIFY2(report.ok, qPrintable(report.error.toString()));
        const QJsonArray expected = c.value(QStringLiteral("traces")).toArray();
        QCOMPARE(report.traces.size(), expected.size());
        for (int i = 0; i < expected.size(); ++i) {
            const double sum
                = expected[i].toObject().value(QStringLiteral("output")).toObject().value("sum").toDouble();
            QVERIFY(sum != 0);
            QCOMPARE(report.traces[i].outputs.size(), 1);
            const double ours = report.traces[i].outputs.first().sum;
            QVERIFY2(std::abs(ours - sum) <= 1e-4 * std::max(1.0, std::abs(sum)),
                qPrintable(QStringLiteral("set %1: output sum %2, PyTorch %3").arg(i).arg(ours).arg(sum)));
        }
    }

    /// An archive cut short on disk after it was opened: the run says so, naming the file; nothing crashes, and
    /// the view stays as it was.
    void truncatedAfterOpening()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("cut.pt"));
        QVERIFY(QFile::copy(dataDir() + QStringLiteral("/archives/conv_block.pt"), path));
        const LoadResult r = load(path);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.resize(100));
        f.close();
        const RunResult run = runFunction(r.model, QStringLiteral("forward"), *parseInputSet("f32[1,3,5,5]"));
        QVERIFY(!run.ok);
        QVERIFY2(run.error.message.contains(path) && run.error.message.contains(QLatin1String("changed on disk")),
            qPrintable(run.error.toString()));
        QVERIFY(r.model.defaultFunction()->graph.nodes.size() > 0);
    }
};

QTEST_GUILESS_MAIN(TestArchiveData)
#include "tst_archivedata.moc"
