// What the package installs: the man pages document every option --help lists (and no option it lacks), the
// desktop entry and AppStream metainfo validate, and `cmake --install` gives a tree whose programs run from there.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run
{
    int code = -1;
    QString out;
    QString err;
};

Run run(const QString& program, const QStringList& args, int timeoutMs = 120000)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen")); // jitscope --help needs no display
    p.setProcessEnvironment(env);
    p.start(program, args);
    Run r;
    if (!p.waitForStarted(10000)) {
        r.err = p.errorString();
        return r;
    }
    p.waitForFinished(timeoutMs);
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    return r;
}

QString readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// The long options (--name) a text mentions; roff's escaped hyphens (\-) read as hyphens.
QSet<QString> longOptions(QString text)
{
    text.replace(QLatin1String("\\-"), QLatin1String("-"));
    static const QRegularExpression option(QStringLiteral(R"((?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*)"));
    QSet<QString> options;
    for (auto it = option.globalMatch(text); it.hasNext();)
        options.insert(it.next().captured(0));
    return options;
}

QString sorted(const QSet<QString>& set)
{
    QStringList list(set.begin(), set.end());
    list.sort();
    return list.join(QLatin1Char(' '));
}

QString program(const char* name)
{
    return QStringLiteral(JITSCOPE_BIN_DIR "/") + QLatin1String(name);
}

QString manPage(const char* name)
{
    return QStringLiteral(JITSCOPE_SOURCE_DIR "/packaging/man/") + QLatin1String(name);
}

QString requireTool(const char* name)
{
    const QString path = QStandardPaths::findExecutable(QLatin1String(name));
    if (path.isEmpty())
        qWarning("%s is missing: packaging/install-deps.sh installs it", name);
    return path;
}

} // namespace

class TestPackaging : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void optionCollector()
    {
        QCOMPARE(sorted(longOptions(QStringLiteral(".BI \\-\\-max\\-memory \" BYTES\"\n--fn NAME, -o OUT --x-1"))),
            QStringLiteral("--fn --max-memory --x-1"));
    }

    void manPageMatchesHelp_data()
    {
        QTest::addColumn<QString>("program");
        QTest::addColumn<QString>("page");
        QTest::addRow("jitscope-cli") << program("jitscope-cli") << manPage("jitscope-cli.1");
        QTest::addRow("jitscope") << program("jitscope") << manPage("jitscope.1");
    }

    void manPageMatchesHelp()
    {
        QFETCH(QString, program);
        QFETCH(QString, page);
        const Run help = run(program, { QStringLiteral("--help") });
        QCOMPARE(help.code, 0);
        const QSet<QString> inHelp = longOptions(help.out);
        const QSet<QString> inPage = longOptions(readFile(page));
        QVERIFY2(inHelp.size() >= 8, qPrintable(help.out));
        QVERIFY2((inHelp - inPage).isEmpty(),
            qPrintable(QStringLiteral("--help lists options the man page lacks: ") + sorted(inHelp - inPage)));
        QVERIFY2((inPage - inHelp).isEmpty(),
            qPrintable(QStringLiteral("the man page documents options --help lacks: ") + sorted(inPage - inHelp)));
    }

    void manPageListsEveryCommand()
    {
        const Run help = run(program("jitscope-cli"), { QStringLiteral("--help") });
        static const QRegularExpression command(
            QStringLiteral(R"(^  ([a-z]+) FILE)"), QRegularExpression::MultilineOption);
        const QString page = readFile(manPage("jitscope-cli.1"));
        int commands = 0;
        for (auto it = command.globalMatch(help.out); it.hasNext(); ++commands) {
            const QString name = it.next().captured(1);
            QVERIFY2(page.contains(QStringLiteral(".B jitscope-cli ") + name + QLatin1Char('\n')),
                qPrintable(name + QStringLiteral(": not in the man page's synopsis")));
            QVERIFY2(page.contains(QStringLiteral(".TP\n.B ") + name + QLatin1Char('\n')),
                qPrintable(name + QStringLiteral(": not under COMMANDS")));
        }
        QCOMPARE(commands, 5);
    }

    void manPagesFormatCleanly_data()
    {
        QTest::addColumn<QString>("page");
        QTest::addRow("jitscope-cli.1") << manPage("jitscope-cli.1");
        QTest::addRow("jitscope.1") << manPage("jitscope.1");
    }

    void manPagesFormatCleanly()
    {
        QFETCH(QString, page);
        const QString man = requireTool("man");
        QVERIFY(!man.isEmpty());
        const Run r = run(man, { QStringLiteral("--warnings"), QStringLiteral("-l"), page });
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.trimmed().isEmpty(), qPrintable(r.err));
        QVERIFY(r.out.contains(QLatin1String("EXIT STATUS")) || r.out.contains(QLatin1String("OPTIONS")));
    }

    /// The install tree: programs that run from it, and the desktop entry and metainfo their validators accept.
    void installTreeRunsAndValidates()
    {
        QTemporaryDir stage;
        QVERIFY(stage.isValid());
        const Run install = run(QStringLiteral(JITSCOPE_CMAKE_COMMAND),
            { QStringLiteral("--install"), QStringLiteral(JITSCOPE_BUILD_DIR), QStringLiteral("--prefix"),
                stage.path() },
            300000);
        QVERIFY2(install.code == 0, qPrintable(install.out + install.err));

        const QString cli = stage.filePath(QStringLiteral("bin/jitscope-cli"));
        const Run version = run(cli, { QStringLiteral("--version") });
        QCOMPARE(version.code, 0);
        QVERIFY(version.out.startsWith(QLatin1String("jitscope-cli ")));
        const QString example = stage.filePath(QStringLiteral("share/doc/jitscope/examples/loop_in_traced_fn.py"));
        QVERIFY(QFile::exists(example));
        const Run check = run(cli, { QStringLiteral("check"), example });
        QCOMPARE(check.code, 1); // the example's check inputs make the trace diverge
        QVERIFY(check.out.contains(QLatin1String("unrolled 3 times")));

        for (const char* page : { "jitscope-cli.1.gz", "jitscope.1.gz" })
            QVERIFY2(QFile::exists(stage.filePath(QStringLiteral("share/man/man1/") + QLatin1String(page))), page);
        for (const char* icon :
            { "scalable/apps/jitscope.svg", "48x48/apps/jitscope.png", "256x256/apps/jitscope.png" })
            QVERIFY2(QFile::exists(stage.filePath(QStringLiteral("share/icons/hicolor/") + QLatin1String(icon))), icon);
        QVERIFY(QFile::exists(stage.filePath(QStringLiteral("share/mime/packages/jitscope.xml"))));
        // The bridge and every module it loads from its own folder, and the record's schema it reads its version from.
        const QStringList bridge
            = QDir(QStringLiteral(JITSCOPE_SOURCE_DIR "/resources/python"))
                  .entryList({ QStringLiteral("jitscope_bridge*.py"), QStringLiteral("jitscope_record_schema.json") },
                      QDir::Files);
        QVERIFY(bridge.contains(QStringLiteral("jitscope_bridge.py")) && bridge.size() > 1);
        QVERIFY(bridge.contains(QStringLiteral("jitscope_record_schema.json")));
        for (const QString& module : bridge)
            QVERIFY2(QFileInfo(stage.filePath(QStringLiteral("share/jitscope/python/") + module)).isReadable(),
                qPrintable(module));
        QVERIFY(QFile::exists(stage.filePath(QStringLiteral("share/doc/jitscope/copyright"))));
        // The window's model worker, where the window looks for it (bin/../libexec/jitscope).
        if (QFile::exists(stage.filePath(QStringLiteral("bin/jitscope"))))
            QVERIFY(QFileInfo(stage.filePath(QStringLiteral("libexec/jitscope/jitscope-worker"))).isExecutable());

        const QString desktop = stage.filePath(QStringLiteral("share/applications/org.jitscope.JitScope.desktop"));
        QVERIFY(QFile::exists(desktop));
        const QString desktopValidate = requireTool("desktop-file-validate");
        QVERIFY(!desktopValidate.isEmpty());
        const Run d = run(desktopValidate, { desktop });
        QVERIFY2(d.code == 0 && d.out.trimmed().isEmpty(), qPrintable(d.out + d.err));
        const QString entry = readFile(desktop);
        QVERIFY(entry.contains(QLatin1String("Categories=Development;Debugger;")));
        QVERIFY(entry.contains(QLatin1String("Exec=jitscope %F")));
        QVERIFY(entry.contains(QLatin1String("application/x-torchscript")));

        const QString metainfo = stage.filePath(QStringLiteral("share/metainfo/org.jitscope.JitScope.metainfo.xml"));
        const QString appstream = requireTool("appstreamcli");
        QVERIFY(!appstream.isEmpty());
        const Run a = run(appstream, { QStringLiteral("validate"), QStringLiteral("--no-net"), metainfo });
        QVERIFY2(a.code == 0, qPrintable(a.out + a.err));
        const QString meta = readFile(metainfo);
        QVERIFY(meta.contains(QLatin1String("<screenshot type=\"default\">")));
        QVERIFY(meta.contains(QLatin1String("<release version=\"" JITSCOPE_VERSION "\"")));
        QVERIFY(!meta.contains(QLatin1Char('@'))); // every @VARIABLE@ filled in
    }
};

QTEST_GUILESS_MAIN(TestPackaging)
#include "tst_packaging.moc"
