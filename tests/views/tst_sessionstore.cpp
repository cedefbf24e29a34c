// SessionStore: nothing read or written until persistent; input sets remembered per model file; recent files.

#include "sessionstore.h"

#include <QFile>
#include <QStandardPaths>
#include <QTest>

using namespace jitscope;

class TestSessionStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QFile::remove(SessionStore::inputSetsPath());
        SessionStore().clearRecentFiles();
    }

    void notPersistentLeavesSettingsAlone()
    {
        SessionStore store;
        QVERIFY(!store.isPersistent());
        QVERIFY(!store.setInputSets(QStringLiteral("/m.py"), QStringList { QStringLiteral("f32[3]") }));
        QVERIFY(!store.inputSets(QStringLiteral("/m.py")));
        store.addRecentFile(QStringLiteral("/m.py"));
        QVERIFY(store.recentFiles().isEmpty());
        QVERIFY(!QFile::exists(SessionStore::inputSetsPath()));
    }

    void inputSetsPerModel()
    {
        SessionStore store;
        store.setPersistent(true);
        QVERIFY(store.setInputSets(QStringLiteral("/a.py"), QStringList { QStringLiteral("f32[3]") }));
        QVERIFY(store.setInputSets(
            QStringLiteral("/b.pt"), QStringList { QStringLiteral("f32[1,3,224,224]"), QStringLiteral("i64[2]") }));
        SessionStore again;
        again.setPersistent(true);
        QCOMPARE(again.inputSets(QStringLiteral("/a.py")).value(), QStringList { QStringLiteral("f32[3]") });
        QCOMPARE(again.inputSets(QStringLiteral("/b.pt")).value().size(), 2);
        QVERIFY(!again.inputSets(QStringLiteral("/c.py")));
        QVERIFY(again.setInputSets(QStringLiteral("/a.py"), std::nullopt));
        QVERIFY(!store.inputSets(QStringLiteral("/a.py")));
        QVERIFY(store.inputSets(QStringLiteral("/b.pt")));
    }

    void recentFilesNewestFirst()
    {
        SessionStore store;
        store.setPersistent(true);
        for (int i = 0; i < 12; ++i)
            store.addRecentFile(QStringLiteral("/f%1.py").arg(i));
        store.addRecentFile(QStringLiteral("/f5.py"));
        const QStringList files = store.recentFiles();
        QCOMPARE(files.size(), 10);
        QCOMPARE(files.first(), QStringLiteral("/f5.py"));
        QCOMPARE(files.at(1), QStringLiteral("/f11.py"));
        QCOMPARE(files.count(QStringLiteral("/f5.py")), 1);
        store.clearRecentFiles();
        QVERIFY(store.recentFiles().isEmpty());
    }

    void groupByModulePerKindOfFile()
    {
        SessionStore store;
        QVERIFY(store.groupByModule(false)); // archives open grouped
        QVERIFY(!store.groupByModule(true)); // .py files as written
        store.setPersistent(true);
        store.setGroupByModule(true, true);
        SessionStore again;
        again.setPersistent(true);
        QVERIFY(again.groupByModule(true));
        again.setGroupByModule(true, false);
    }
};

QTEST_GUILESS_MAIN(TestSessionStore)
#include "tst_sessionstore.moc"
