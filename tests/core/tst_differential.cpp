// Differential testing at scale: JitScope's traces, TracerWarnings and check verdicts against real torch.jit.trace
// on the generated corpus of tests/data/differential/ (tests/oracle/gen_differential.py).
//
// A row whose difference cannot be emulated is listed in tests/data/differential/expected-misses with the
// fingerprint of what JitScope gives and the reason; the row then asserts exactly that difference, so it fails when
// JitScope starts to match PyTorch or changes. JITSCOPE_RECORD_MISSES=1 writes expected-misses.actual beside it,
// one line per mismatching row (reason "?"), to review and merge by hand.

#include "check/check.h"
#include "load/model.h"
#include "testutil.h"
#include "trace/trace.h"
#include "tracetext.h"

#include <QCryptographicHash>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTest>

#include <map>

using namespace jitscope;
using namespace jitscope::test;

namespace {

/// The warning kinds PyTorch raises TracerWarnings for; JitScope's own explanations (loops, branches) are extra.
bool pythonKind(const QString& kind)
{
    static const QSet<QString> kinds = { QStringLiteral("tensor-to-bool"), QStringLiteral("tensor-to-index"),
        QStringLiteral("tensor-to-number"), QStringLiteral("len-of-tensor"), QStringLiteral("iterating-tensor"),
        QStringLiteral("baked-constant"), QStringLiteral("nondeterministic-op") };
    return kinds.contains(kind);
}

QString fingerprint(const QString& text)
{
    return QString::fromLatin1(QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha1).toHex().left(12));
}

struct Miss
{
    QString fingerprint;
    QString reason;
    bool seen = false;
};

QString missesPath()
{
    return dataDir() + QStringLiteral("/differential/expected-misses");
}

} // namespace

class TestDifferential : public QObject
{
    Q_OBJECT

private:
    std::map<QString, LoadResult> m_models;
    QHash<QString, Miss> m_misses; ///< "row aspect" -> the known difference
    QStringList m_recorded;
    bool m_record = qEnvironmentVariableIsSet("JITSCOPE_RECORD_MISSES");

    const LoadResult& model(const QString& path)
    {
        auto it = m_models.find(path);
        if (it == m_models.end())
            it = m_models.emplace(path, loadModel(path)).first;
        return it->second;
    }

    /// Compares one aspect of a row: equal, or the listed known difference exactly.
    void compare(const QString& row, const QString& aspect, const QString& actual, const QString& expected)
    {
        const QString key = row + QLatin1Char(' ') + aspect;
        auto miss = m_misses.find(key);
        if (miss != m_misses.end()) {
            miss->seen = true;
            QVERIFY2(actual != expected,
                qPrintable(QStringLiteral("%1 now matches PyTorch: remove it from expected-misses").arg(key)));
            QVERIFY2(fingerprint(actual) == miss->fingerprint,
                qPrintable(QStringLiteral("%1 changed (listed: %2): now\n%3\nPyTorch:\n%4")
                               .arg(key, miss->reason, actual, expected)));
            return;
        }
        if (actual != expected && m_record) {
            m_recorded << QStringLiteral("%1 %2 ?").arg(key, fingerprint(actual));
            return;
        }
        QCOMPARE(actual, expected);
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QString text = readText(missesPath());
        for (const QString& line : text.split(QLatin1Char('\n'))) {
            if (line.trimmed().isEmpty() || line.startsWith(QLatin1Char('#')))
                continue;
            const QStringList parts = line.split(QLatin1Char(' '));
            QVERIFY2(parts.size() >= 4, qPrintable(QStringLiteral("bad expected-misses line: ") + line));
            m_misses.insert(
                parts[0] + QLatin1Char(' ') + parts[1], { parts[2], parts.mid(3).join(QLatin1Char(' ')), false });
        }
    }

    void differential_data()
    {
        QTest::addColumn<QString>("family");
        QTest::addColumn<int>("function");
        QTest::addColumn<int>("set"); // -1: the check_inputs verdict
        const QDir dir(dataDir() + QStringLiteral("/differential/expected"));
        int functions = 0;
        QSet<QString> families;
        for (const QString& file : dir.entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name)) {
            const QJsonObject doc = QJsonDocument::fromJson(readText(dir.filePath(file)).toUtf8()).object();
            const QJsonArray fns = doc.value(QStringLiteral("functions")).toArray();
            const QString family = doc.value(QStringLiteral("family")).toString();
            families.insert(family);
            for (int f = 0; f < fns.size(); ++f) {
                const QJsonObject fn = fns.at(f).toObject();
                const QString name = fn.value(QStringLiteral("name")).toString();
                const int sets = fn.value(QStringLiteral("sets")).toArray().size();
                for (int k = 0; k < sets; ++k)
                    QTest::addRow("%s/%s/%d", qPrintable(family), qPrintable(name), k) << family << f << k;
                QTest::addRow("%s/%s/check", qPrintable(family), qPrintable(name)) << family << f << -1;
                ++functions;
            }
        }
        QVERIFY2(functions >= 500, "the differential corpus has fewer than 500 functions");
        QVERIFY2(families.size() >= 10, "differential families missing");
    }

    void differential()
    {
        QFETCH(QString, family);
        QFETCH(int, function);
        QFETCH(int, set);
        const QString jsonPath = dataDir() + QStringLiteral("/differential/expected/%1.json").arg(family);
        static QHash<QString, QJsonObject> docs;
        if (!docs.contains(jsonPath))
            docs.insert(jsonPath, QJsonDocument::fromJson(readText(jsonPath).toUtf8()).object());
        const QJsonObject& doc = docs[jsonPath];
        const QJsonObject fn = doc.value(QStringLiteral("functions")).toArray().at(function).toObject();
        const QString name = fn.value(QStringLiteral("name")).toString();
        const LoadResult& r = model(dataDir() + QLatin1Char('/') + doc.value(QStringLiteral("source")).toString());
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        QVector<InputSet> sets;
        for (const auto& s : fn.value(QStringLiteral("sets")).toArray()) {
            const auto parsed = parseInputSet(s.toString());
            QVERIFY(parsed);
            sets.push_back(*parsed);
        }
        const QString row
            = QStringLiteral("%1/%2/%3").arg(family, name, set < 0 ? QStringLiteral("check") : QString::number(set));
        ExecOptions options;
        options.timeoutMs = 60000;

        if (set < 0) {
            CheckOptions check;
            check.exec = options;
            const CheckReport report = checkFunction(r.model, name, sets, check);
            // PyTorch's rule: a check input that cannot be traced raises its own error; the first trace failing to
            // run on a check input is a TracingCheckError ("encountered an exception while running the trace").
            QString verdict = report.ok ? report.verdict() : QStringLiteral("error");
            if (report.ok) {
                bool failed = false;
                bool notRun = false;
                for (int k = 0; k < report.traces.size(); ++k)
                    failed |= report.status(k) == TraceStatus::Failed;
                for (const OutputCheck& o : report.outputs)
                    notRun |= !o.ran;
                if (failed)
                    verdict = QStringLiteral("error");
                else if (notRun)
                    verdict = QStringLiteral("diverged");
            }
            const QJsonObject expectedCheck = fn.value(QStringLiteral("check")).toObject();
            compare(row, QStringLiteral("verdict"), verdict, expectedCheck.value(QStringLiteral("verdict")).toString());
            // The check's own TracerWarnings. PyTorch's _check_trace goes through the check inputs in order: it runs
            // the first trace and warns "Output nr N" when the outputs differ ("Trace had nondeterministic nodes" only
            // along with that), then raises the TracingCheckError above when the graphs differ; a run that raises
            // stops it without a warning, and so does a check input that cannot be traced (its exception).
            bool mismatch = false;
            for (int k = 1, output = 0; k < report.traces.size() && output < report.outputs.size(); ++k) {
                if (report.status(k) == TraceStatus::Failed)
                    break; // no OutputCheck for it
                const OutputCheck& o = report.outputs[output++];
                if (!o.ran)
                    break;
                mismatch |= !o.comparison.equal;
                if (report.status(k) == TraceStatus::Diverged)
                    break;
            }
            bool nondeterministic = false;
            for (const TraceWarning& w : report.warnings)
                nondeterministic |= w.kind == WarningKind::NondeterministicOp;
            QStringList kinds;
            if (mismatch && nondeterministic)
                kinds << warningKindName(WarningKind::NondeterministicOp);
            if (mismatch)
                kinds << warningKindName(WarningKind::OutputMismatch);
            kinds.sort();
            QStringList expectedKinds;
            for (const auto& k : expectedCheck.value(QStringLiteral("warnings")).toArray())
                expectedKinds << k.toString();
            compare(row, QStringLiteral("check-warnings"), kinds.join(QLatin1Char(' ')),
                expectedKinds.join(QLatin1Char(' ')));
            return;
        }

        const QJsonObject expected = fn.value(QStringLiteral("traces")).toArray().at(set).toObject();
        const TraceResult t = traceFunction(r.model, name, sets[set], options);
        const bool pythonOk = expected.value(QStringLiteral("ok")).toBool();
        const QString actualGraph = t.ok ? comparableTrace(t.graph.toText(false))
                                         : QStringLiteral("error: ") + t.error.message.section(QLatin1Char('\n'), 0, 0);
        const QString expectedGraph
            = pythonOk ? comparableTrace(expected.value(QStringLiteral("graph")).toString()) : QStringLiteral("error");
        if (!pythonOk) {
            compare(row, QStringLiteral("graph"), t.ok ? actualGraph : QStringLiteral("error"), expectedGraph);
            return;
        }
        compare(row, QStringLiteral("graph"), actualGraph, expectedGraph);
        // TracerWarnings: the same kinds at the same lines (each place once; Python repeats them in loops).
        QStringList ours;
        for (const TraceWarning& w : t.warnings) {
            const QString kind = warningKindName(w.kind);
            // A value baked into an op's argument is JitScope's explanation; torch.tensor's text is PyTorch's.
            if (w.kind == WarningKind::BakedConstant && w.message != warningMessage(WarningKind::BakedConstant))
                continue;
            if (pythonKind(kind))
                ours << QStringLiteral("%1@%2").arg(kind).arg(w.location.line);
        }
        QStringList theirs;
        for (const auto& w : expected.value(QStringLiteral("warnings")).toArray()) {
            const QJsonObject o = w.toObject();
            theirs << QStringLiteral("%1@%2")
                          .arg(o.value(QStringLiteral("kind")).toString())
                          .arg(o.value(QStringLiteral("line")).toInt());
        }
        ours.removeDuplicates();
        theirs.removeDuplicates();
        ours.sort();
        theirs.sort();
        compare(row, QStringLiteral("warnings"), ours.join(QLatin1Char(' ')), theirs.join(QLatin1Char(' ')));
    }

    void cleanupTestCase()
    {
        if (m_record) {
            QFile out(missesPath() + QStringLiteral(".actual"));
            if (out.open(QIODevice::WriteOnly))
                out.write((m_recorded.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8());
        }
        // Every listed difference belongs to a row that ran (a filtered run checks only its own).
        if (QCoreApplication::arguments().size() > 1)
            return;
        QStringList stale;
        for (auto it = m_misses.cbegin(); it != m_misses.cend(); ++it)
            if (!it->seen)
                stale << it.key();
        QVERIFY2(
            stale.isEmpty(), qPrintable(QStringLiteral("stale expected-misses: ") + stale.join(QStringLiteral(", "))));
    }
};

QTEST_GUILESS_MAIN(TestDifferential)
#include "tst_differential.moc"
