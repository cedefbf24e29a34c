// Script graphs from .py files and archives against real PyTorch's output (tests/oracle/generate.py).

#include "load/model.h"
#include "testutil.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <optional>

using namespace jitscope;
using namespace jitscope::test;

class TestOracle : public QObject
{
    Q_OBJECT

private:
    QHash<QString, LoadResult> m_cache;

    const LoadResult& load(const QString& path, bool inlineCalls)
    {
        const QString key = path + (inlineCalls ? QStringLiteral("#inline") : QString());
        if (!m_cache.contains(key)) {
            LoadOptions options;
            options.inlineCalls = inlineCalls;
            m_cache.insert(key, loadModel(path, options));
        }
        return m_cache[key];
    }

private Q_SLOTS:
    void scriptGraphs_data()
    {
        QTest::addColumn<QString>("modelPath");
        QTest::addColumn<QString>("function");
        QTest::addColumn<bool>("inlineCalls");
        QTest::addColumn<QString>("goldenPath");
        const QDir expected(dataDir() + QStringLiteral("/expected"));
        int rows = 0;
        for (const QString& file : expected.entryList({ QStringLiteral("*.script.txt") }, QDir::Files, QDir::Name)) {
            const QString stem = file.section(QLatin1Char('.'), 0, 0);
            const QString fn = file.section(QLatin1Char('.'), 1, -3);
            QTest::addRow("%s", qPrintable(file))
                << dataDir() + QStringLiteral("/corpus/") + stem + QStringLiteral(".py") << fn << false
                << expected.filePath(file);
            ++rows;
        }
        for (const QString& file : expected.entryList(
                 { QStringLiteral("*.graph.txt"), QStringLiteral("*.inlined.txt") }, QDir::Files, QDir::Name)) {
            const QString stem = file.section(QLatin1Char('.'), 0, 0);
            const QString method = file.section(QLatin1Char('.'), 1, -3);
            const bool inlined = file.endsWith(QLatin1String(".inlined.txt"));
            QTest::addRow("%s", qPrintable(file))
                << dataDir() + QStringLiteral("/archives/") + stem + QStringLiteral(".pt") << method << inlined
                << expected.filePath(file);
            ++rows;
        }
        QVERIFY2(rows >= 30, "the oracle fixtures are missing");
    }

    void scriptGraphs()
    {
        QFETCH(QString, modelPath);
        QFETCH(QString, function);
        QFETCH(bool, inlineCalls);
        QFETCH(QString, goldenPath);
        const LoadResult& r = load(modelPath, inlineCalls);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        const FunctionInfo* found = r.model.function(function);
        QVERIFY2(found, qPrintable(QStringLiteral("no function %1").arg(function)));
        QVERIFY2(found->ok, qPrintable(found->error.toString()));
        std::optional<FunctionInfo> inlined;
        const FunctionInfo* fn = found;
        if (inlineCalls) {
            // A submodule's methods are inlined on demand; the root module's and .py functions at load.
            QCOMPARE(found->inlined, !function.contains(QLatin1Char('.')));
            inlined = *found;
            QString error;
            QVERIFY2(inlineFunction(r.model.handle, *inlined, &error), qPrintable(error));
            QVERIFY(inlined->inlined);
            fn = &*inlined;
        }
        const QString expected = canonicalizeDump(readText(goldenPath));
        const QString actual = canonicalizeDump(fn->graph.toText());
        QVERIFY2(matchesGolden(actual, expected, goldenPath),
            qPrintable(QStringLiteral("graph differs from PyTorch's; see %1.actual").arg(goldenPath)));
    }

    /// Compile errors: same functions, same failures at the same line and column as torch.jit.script.
    void functionLists_data()
    {
        QTest::addColumn<QString>("jsonPath");
        const QDir expected(dataDir() + QStringLiteral("/expected"));
        for (const QString& file : expected.entryList({ QStringLiteral("*.functions.json") }, QDir::Files, QDir::Name))
            QTest::addRow("%s", qPrintable(file)) << expected.filePath(file);
    }

    void functionLists()
    {
        QFETCH(QString, jsonPath);
        const QJsonObject json = QJsonDocument::fromJson(readText(jsonPath).toUtf8()).object();
        const QString path = dataDir() + QStringLiteral("/corpus/") + json.value(QStringLiteral("file")).toString();
        const LoadResult& r = load(path, false);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        const QJsonArray fns = json.value(QStringLiteral("functions")).toArray();
        for (const auto& v : fns) {
            const QJsonObject f = v.toObject();
            const QString name = f.value(QStringLiteral("name")).toString();
            const FunctionInfo* fn = r.model.function(name);
            QVERIFY2(fn, qPrintable(name));
            QCOMPARE(fn->location.line, f.value(QStringLiteral("line")).toInt());
            QCOMPARE(fn->ok, f.value(QStringLiteral("ok")).toBool());
            if (!fn->ok) {
                QCOMPARE(fn->error.location.line, f.value(QStringLiteral("error_line")).toInt());
                QCOMPARE(fn->error.location.column, f.value(QStringLiteral("error_col")).toInt());
                QString expectedMessage = f.value(QStringLiteral("error")).toString().trimmed();
                if (expectedMessage.endsWith(QLatin1Char(':')))
                    expectedMessage.chop(1);
                QVERIFY2(fn->error.message.startsWith(expectedMessage.simplified()),
                    qPrintable(fn->error.message + QStringLiteral(" vs ") + expectedMessage));
            }
        }
    }

    /// Methods, submodules and parameters of archives as PyTorch lists them.
    void archiveLists_data()
    {
        QTest::addColumn<QString>("jsonPath");
        const QDir expected(dataDir() + QStringLiteral("/expected"));
        for (const QString& file : expected.entryList({ QStringLiteral("*.list.json") }, QDir::Files, QDir::Name))
            QTest::addRow("%s", qPrintable(file)) << expected.filePath(file);
    }

    void archiveLists()
    {
        QFETCH(QString, jsonPath);
        const QJsonObject json = QJsonDocument::fromJson(readText(jsonPath).toUtf8()).object();
        const QString path
            = dataDir() + QStringLiteral("/archives/") + json.value(QStringLiteral("archive")).toString();
        const LoadResult& r = load(path, false);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        const QJsonArray modules = json.value(QStringLiteral("modules")).toArray();
        QCOMPARE(r.model.submodules.size(), modules.size());
        for (const auto& v : modules) {
            const QJsonObject m = v.toObject();
            const QString modulePath = m.value(QStringLiteral("path")).toString();
            const SubmoduleInfo* found = nullptr;
            for (const SubmoduleInfo& s : r.model.submodules)
                if (s.path == modulePath)
                    found = &s;
            QVERIFY2(found, qPrintable(modulePath));
            QCOMPARE(found->typeName, m.value(QStringLiteral("qualified_type")).toString());
            for (const auto& method : m.value(QStringLiteral("methods")).toArray()) {
                const QString qualified
                    = modulePath.isEmpty() ? method.toString() : modulePath + QLatin1Char('.') + method.toString();
                QVERIFY2(r.model.function(qualified), qPrintable(qualified));
            }
        }
        for (const auto& v : json.value(QStringLiteral("parameters")).toArray()) {
            const QJsonObject p = v.toObject();
            const QString name = p.value(QStringLiteral("name")).toString();
            const ParameterInfo* found = nullptr;
            for (const ParameterInfo& info : r.model.parameters)
                if (info.name == name)
                    found = &info;
            QVERIFY2(found, qPrintable(name));
            QVector<qint64> shape;
            for (const auto& d : p.value(QStringLiteral("shape")).toArray())
                shape.push_back(qint64(d.toDouble()));
            QCOMPARE(found->shape, shape);
        }
    }
};

QTEST_GUILESS_MAIN(TestOracle)
#include "tst_oracle.moc"
