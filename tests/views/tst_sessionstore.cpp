// SessionStore: nothing read or written until persistent; input sets remembered per model file; recent files; a
// session file that cannot be read set aside, never fatal and never overwritten.

#include "sessionfile.h"
#include "sessionstore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QSignalSpy>
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

    /// What the file holds on disk: versioned, and read back.
    void fileIsVersioned()
    {
        SessionStore store;
        store.setPersistent(true);
        QVERIFY(store.setInputSets(QStringLiteral("/v.py"), QStringList { QStringLiteral("f32[2]") }));
        QFile file(SessionStore::inputSetsPath());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const SessionFile f = readSessionFile(file.readAll());
        QCOMPARE(f.status, SessionFile::Status::Ok);
        QCOMPARE(f.version, kSessionFileVersion);
        QCOMPARE(f.inputSets.value(QStringLiteral("/v.py")).toArray().at(0).toString(), QStringLiteral("f32[2]"));
    }

    void unreadableFilesAreSetAside_data()
    {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QString>("problem");
        QTest::addRow("truncated") << QByteArray("{\"format\": \"jitscope-sessions\", \"version\": 1, \"inputSe")
                                   << "not JSON (unterminated string at byte 55)";
        QTest::addRow("binary") << QByteArray("\x00\xff\xfe garbage", 12) << "not JSON (illegal value at byte 1)";
        QTest::addRow("an array") << QByteArray("[1, 2]") << "not a JSON object";
        QTest::addRow("newer version") << QByteArray(
            "{\"format\": \"jitscope-sessions\", \"version\": 99, \"inputSets\": {}, \"more\": 1}")
                                       << "written by a newer JitScope (version 99; this one reads up to 1)";
        QTest::addRow("wrong types") << QByteArray("{\"/m.py\": [1, 2]}")
                                     << "the input sets of '/m.py' are not a list of strings";
        QTest::addRow("foreign format") << QByteArray("{\"format\": \"other\", \"version\": 1}")
                                        << "not a JitScope session file (format and version)";
    }

    void unreadableFilesAreSetAside()
    {
        QFETCH(QByteArray, contents);
        QFETCH(QString, problem);
        const QString path = SessionStore::inputSetsPath();
        QDir().mkpath(QFileInfo(path).absolutePath());
        QDir dir = QFileInfo(path).absoluteDir();
        for (const QString& old : dir.entryList({ QStringLiteral("sessions.json.corrupt-*") }))
            QVERIFY(dir.remove(old));
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(contents);
        }
        SessionStore store;
        QSignalSpy spy(&store, &SessionStore::setAside);
        store.setPersistent(true); // never fatal
        QCOMPARE(spy.size(), 1);
        const QString message = spy.at(0).at(0).toString();
        QVERIFY2(message.contains(problem), qPrintable(message));
        QCOMPARE(store.setAsideMessage(), message);
        // Kept as it was, beside, and the store goes on without it.
        const QStringList aside = dir.entryList({ QStringLiteral("sessions.json.corrupt-*") });
        QCOMPARE(aside.size(), 1);
        QVERIFY(message.contains(dir.filePath(aside.first())));
        QFile kept(dir.filePath(aside.first()));
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), contents);
        QVERIFY(!QFile::exists(path));
        QVERIFY(!store.inputSets(QStringLiteral("/m.py")));
        QVERIFY(store.setInputSets(QStringLiteral("/m.py"), QStringList { QStringLiteral("i64[1]") }));
        QCOMPARE(store.inputSets(QStringLiteral("/m.py")).value(), QStringList { QStringLiteral("i64[1]") });
        QVERIFY(dir.remove(aside.first()));
    }

    /// The unversioned file of JitScope before version 1 is still read.
    void unversionedFileIsRead()
    {
        const SessionFile f = readSessionFile("{\"/old.py\": [\"f32[3]\", \"i64[2]\"]}");
        QCOMPARE(f.status, SessionFile::Status::Ok);
        QCOMPARE(f.version, 0);
        QCOMPARE(f.inputSets.value(QStringLiteral("/old.py")).toArray().size(), 2);
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
