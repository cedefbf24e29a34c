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

    void pythonConsentPerFileAndFolder()
    {
        using Consent = SessionStore::PythonConsent;
        {
            SessionStore store;
            store.setPersistent(true);
            store.revokePython(QStringLiteral("/work/models/a.py"));
            store.revokePython(QStringLiteral("/work/other/b.py"));
            QCOMPARE(store.pythonConsent(QStringLiteral("/work/models/a.py")), Consent::None);
            store.allowPython(QStringLiteral("/work/models/a.py"), false);
            QCOMPARE(store.pythonConsent(QStringLiteral("/work/models/a.py")), Consent::File);
            QCOMPARE(store.pythonConsent(QStringLiteral("/work/models/../models/a.py")), Consent::File);
            QCOMPARE(store.pythonConsent(QStringLiteral("/work/models/c.py")), Consent::None);
            store.allowPython(QStringLiteral("/work/other/b.py"), true);
            QCOMPARE(store.pythonConsent(QStringLiteral("/work/other/x.py")), Consent::Folder);
            QCOMPARE(store.pythonConsent(QStringLiteral("/work/other/sub/y.py")), Consent::Folder);
            QCOMPARE(store.pythonConsent(QStringLiteral("/work/otherwise/z.py")), Consent::None);
            QCOMPARE(store.pythonConsent(QStringLiteral("/work/z.py")), Consent::None);
        }
        // Remembered across runs.
        SessionStore again;
        again.setPersistent(true);
        QCOMPARE(again.pythonConsent(QStringLiteral("/work/models/a.py")), Consent::File);
        QCOMPARE(again.pythonConsent(QStringLiteral("/work/other/sub/y.py")), Consent::Folder);
        // Forgetting a file forgets the folders above it too.
        again.revokePython(QStringLiteral("/work/other/sub/y.py"));
        QCOMPARE(again.pythonConsent(QStringLiteral("/work/other/x.py")), Consent::None);
        SessionStore third;
        third.setPersistent(true);
        QCOMPARE(third.pythonConsent(QStringLiteral("/work/other/x.py")), Consent::None);
        QCOMPARE(third.pythonConsent(QStringLiteral("/work/models/a.py")), Consent::File);
        // Not persistent: consent lasts as long as the store.
        SessionStore transient;
        transient.allowPython(QStringLiteral("/tmp/t.py"), false);
        QCOMPARE(transient.pythonConsent(QStringLiteral("/tmp/t.py")), Consent::File);
        QCOMPARE(SessionStore().pythonConsent(QStringLiteral("/tmp/t.py")), Consent::None);
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
