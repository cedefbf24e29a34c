// The stages of core/ depend one way (see core/CMakeLists.txt and ARCHITECTURE.md): a stage may include the
// headers of the stages it builds on and never those of a later one. libtorch stays inside core's .cpp files.

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

namespace {

/// Each stage and the stages whose headers it may include (besides its own).
const QHash<QString, QSet<QString>>& allowedIncludes()
{
    static const QHash<QString, QSet<QString>> table = {
        { QStringLiteral("report"), {} },
        { QStringLiteral("ir"), { QStringLiteral("report") } },
        { QStringLiteral("load"), { QStringLiteral("report"), QStringLiteral("ir") } },
        { QStringLiteral("execute"), { QStringLiteral("report"), QStringLiteral("ir"), QStringLiteral("load") } },
        { QStringLiteral("trace"), { QStringLiteral("report"), QStringLiteral("ir"), QStringLiteral("load"), QStringLiteral("execute"), QStringLiteral("diff") } },
        { QStringLiteral("diff"), { QStringLiteral("report") } },
        { QStringLiteral("check"), { QStringLiteral("report"), QStringLiteral("ir"), QStringLiteral("load"), QStringLiteral("execute"), QStringLiteral("trace"), QStringLiteral("diff") } },
        { QStringLiteral("layout"), { QStringLiteral("report"), QStringLiteral("ir") } },
        { QStringLiteral("bridge"), { QStringLiteral("report"), QStringLiteral("ir"), QStringLiteral("load"), QStringLiteral("diff"), QStringLiteral("execute"), QStringLiteral("trace"), QStringLiteral("check") } },
        { QStringLiteral("debug"), { QStringLiteral("report"), QStringLiteral("ir"), QStringLiteral("load"), QStringLiteral("execute"), QStringLiteral("trace") } },
    };
    return table;
}

/// The stage folders named by the `#include "stage/..."` lines of @p text.
QStringList includedStages(const QString& text)
{
    static const QRegularExpression include(
        QStringLiteral(R"(^\s*#\s*include\s*"([a-z_]+)/[^"]+")"), QRegularExpression::MultilineOption);
    QStringList stages;
    for (auto it = include.globalMatch(text); it.hasNext();)
        stages << it.next().captured(1);
    return stages;
}

/// The stages @p stage includes but must not; empty when it keeps to its layer.
QStringList violations(const QString& stage, const QString& text)
{
    QStringList bad;
    const QSet<QString> allowed = allowedIncludes().value(stage);
    for (const QString& s : includedStages(text))
        if (s != stage && !allowed.contains(s) && allowedIncludes().contains(s))
            bad << s;
    return bad;
}

bool includesTorch(const QString& text)
{
    static const QRegularExpression torch(
        QStringLiteral(R"(^\s*#\s*include\s*[<"](torch|ATen|c10|caffe2)/)"), QRegularExpression::MultilineOption);
    return torch.match(text).hasMatch();
}

QString readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QStringList sourceFiles(const QString& dir)
{
    QStringList files;
    QDirIterator it(dir, { QStringLiteral("*.cpp"), QStringLiteral("*.h") }, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    files.sort();
    return files;
}

const QString coreDir = QStringLiteral(JITSCOPE_SOURCE_DIR "/core");

/// A file of the window (views/, app/reports*) includes core/report/ and nothing else of core. The in-process
/// engine (app/localengine.*, linked by tests and benchmarks only) is the engine, and lives with the app.

/// The core headers outside core/report/ that @p text includes and a window file must not.
QStringList windowViolations(const QString& text)
{
    static const QRegularExpression include(
        QStringLiteral("^\\s*#\\s*include\\s*\"(([a-z_]+)/[^\"]+)\""), QRegularExpression::MultilineOption);
    QStringList bad;
    for (auto it = include.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        if (allowedIncludes().contains(m.captured(2)) && m.captured(2) != QLatin1String("report"))
            bad << m.captured(1);
    }
    return bad;
}

/// A source file's base name: its name without the extension, and without the `_p` of a header private to its stage.
QString baseName(const QString& path)
{
    QString name = QFileInfo(path).completeBaseName();
    if (name.endsWith(QLatin1String("_p")))
        name.chop(2);
    return name;
}

/// The base names that files of @p paths share across folders, each with its folders ("graphlayout: core/layout,
/// core/report"). A header, its sources and its private header share a base name in one folder; two folders with
/// one name send the reader who looks for it by name to the wrong room.
QStringList sharedBaseNames(const QStringList& paths)
{
    QMap<QString, QSet<QString>> folders; // base name -> folders holding a file of that name
    for (const QString& path : paths)
        folders[baseName(path)].insert(QFileInfo(path).path());
    QStringList shared;
    for (auto it = folders.cbegin(); it != folders.cend(); ++it) {
        if (it.value().size() < 2)
            continue;
        QStringList where(it.value().cbegin(), it.value().cend());
        where.sort();
        shared << it.key() + QStringLiteral(": ") + where.join(QStringLiteral(", "));
    }
    return shared;
}

} // namespace

class TestLayering : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void checkerCatchesViolations_data()
    {
        QTest::addColumn<QString>("stage");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected");
        QTest::addRow("earlier stage") << "check"
                                       << "#include \"load/model.h\"\n"
                                       << QStringList();
        QTest::addRow("own stage") << "ir"
                                   << "#include \"ir/activity.h\"\n"
                                   << QStringList();
        QTest::addRow("later stage") << "load"
                                     << "#include \"report/irgraph.h\"\n#  include \"check/check.h\"\n"
                                     << QStringList { QStringLiteral("check") };
        QTest::addRow("sibling stage") << "layout"
                                       << "#include \"diff/tracediff.h\"\n"
                                       << QStringList { QStringLiteral("diff") };
        QTest::addRow("system headers ignored") << "ir"
                                                << "#include <QString>\n"
                                                << QStringList();
    }

    void checkerCatchesViolations()
    {
        QFETCH(QString, stage);
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        QCOMPARE(violations(stage, text), expected);
    }

    void everyFolderIsAStage()
    {
        const QStringList folders = QDir(coreDir).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QVERIFY(folders.size() >= 5);
        for (const QString& f : folders)
            QVERIFY2(allowedIncludes().contains(f), qPrintable(f + QStringLiteral(": declare its layer here")));
        const QStringList loose = QDir(coreDir).entryList({ QStringLiteral("*.cpp"), QStringLiteral("*.h") });
        QVERIFY2(loose.isEmpty(), qPrintable(loose.join(QStringLiteral(", ")) + QStringLiteral(": not in a stage")));
    }

    void stagesDependOneWay_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString& path : sourceFiles(coreDir))
            QTest::addRow("%s", qPrintable(QDir(coreDir).relativeFilePath(path))) << path;
    }

    void stagesDependOneWay()
    {
        QFETCH(QString, path);
        const QString stage = QDir(coreDir).relativeFilePath(path).section(QLatin1Char('/'), 0, 0);
        const QStringList bad = violations(stage, readFile(path));
        QVERIFY2(bad.isEmpty(),
            qPrintable(QStringLiteral("%1 (stage %2) includes later stages: %3").arg(path, stage, bad.join(", "))));
    }

    void windowCheckerCatchesEngineHeaders_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected");
        QTest::addRow("report only") << "#include \"report/checkreport.h\"\n#include \"graphview.h\"\n" << QStringList();
        QTest::addRow("planted engine header")
            << "#include \"report/checkreport.h\"\n#include \"check/check.h\"\n" << QStringList { "check/check.h" };
        QTest::addRow("layout's Graphviz part") << "#include \"layout/layout.h\"\n"
                                                << QStringList { "layout/layout.h" };
    }

    void windowCheckerCatchesEngineHeaders()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        QCOMPARE(windowViolations(text), expected);
    }

    /// The window reads values: views/ and the report renderers include core/report/ and nothing else of core.
    void windowIncludesOnlyReport_data()
    {
        QTest::addColumn<QString>("path");
        QStringList files = sourceFiles(QStringLiteral(JITSCOPE_SOURCE_DIR "/views"));
        for (const QString& name : QDir(QStringLiteral(JITSCOPE_SOURCE_DIR "/app"))
                                       .entryList({ QStringLiteral("reports*.h"), QStringLiteral("reports*.cpp") }))
            files << QStringLiteral(JITSCOPE_SOURCE_DIR "/app/") + name;
        for (const QString& path : files)
            QTest::addRow("%s", qPrintable(QDir(QStringLiteral(JITSCOPE_SOURCE_DIR)).relativeFilePath(path))) << path;
    }

    void windowIncludesOnlyReport()
    {
        QFETCH(QString, path);
        const QStringList bad = windowViolations(readFile(path));
        QVERIFY2(bad.isEmpty(), qPrintable(path + QStringLiteral(" includes engine headers: ") + bad.join(", ")));
    }

    void sharedBaseNamesFound_data()
    {
        QTest::addColumn<QStringList>("paths");
        QTest::addColumn<QStringList>("expected");
        QTest::addRow("a header and its sources")
            << QStringList { "core/report/irgraph.h", "core/report/irgraph.cpp" } << QStringList();
        QTest::addRow("a private header beside its source")
            << QStringList { "core/layout/dotlayout_p.h", "core/layout/dotlayout.cpp" } << QStringList();
        QTest::addRow("one name in two folders")
            << QStringList { "core/report/graphlayout.h", "core/report/graphlayout.cpp", "core/layout/graphlayout.h" }
            << QStringList { "graphlayout: core/layout, core/report" };
        QTest::addRow("a private header in another folder") << QStringList { "views/panels/sourceview.h",
            "core/load/sourceview_p.h" } << QStringList { "sourceview: core/load, views/panels" };
    }

    void sharedBaseNamesFound()
    {
        QFETCH(QStringList, paths);
        QFETCH(QStringList, expected);
        QCOMPARE(sharedBaseNames(paths), expected);
    }

    /// Rooms named for what they are: no two source files of core/, app/ and views/ share a base name in different
    /// folders (report/graphlayout.* holds GraphLayout, layout/layout.h is the Graphviz stage's header).
    void baseNamesAreUnique()
    {
        QStringList files;
        for (const char* dir : { "/core", "/app", "/views" })
            files += sourceFiles(QStringLiteral(JITSCOPE_SOURCE_DIR) + QLatin1String(dir));
        QVERIFY(files.size() > 100);
        QStringList relative;
        for (const QString& path : std::as_const(files))
            relative << QDir(QStringLiteral(JITSCOPE_SOURCE_DIR)).relativeFilePath(path);
        const QStringList shared = sharedBaseNames(relative);
        QVERIFY2(shared.isEmpty(),
            qPrintable(QStringLiteral("one name in two folders: ") + shared.join(QStringLiteral("; "))));
    }

    void torchOnlyInCoreSources_data()
    {
        QTest::addColumn<QString>("path");
        QStringList files = sourceFiles(coreDir).filter(QRegularExpression(QStringLiteral("\\.h$")));
        for (const char* dir : { "/views", "/app", "/bench" })
            files += sourceFiles(QStringLiteral(JITSCOPE_SOURCE_DIR) + QLatin1String(dir));
        for (const QString& path : files)
            QTest::addRow("%s", qPrintable(QDir(QStringLiteral(JITSCOPE_SOURCE_DIR)).relativeFilePath(path))) << path;
    }

    void torchOnlyInCoreSources()
    {
        QFETCH(QString, path);
        QVERIFY2(!includesTorch(readFile(path)), qPrintable(path + QStringLiteral(" includes a libtorch header")));
    }
};

QTEST_GUILESS_MAIN(TestLayering)
#include "tst_layering.moc"
