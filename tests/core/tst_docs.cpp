// The documents name what exists: every path and every symbol ARCHITECTURE.md and docs/ put in backticks is in the
// tree, so that a move or a rename that leaves a document behind fails here.

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

namespace {

const QString root = QStringLiteral(JITSCOPE_SOURCE_DIR);

QString readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// The project's own files (not the build, the virtual environment or git's), as paths relative to the root.
const QStringList& projectFiles()
{
    static const QStringList files = [] {
        QStringList out;
        const QDir top(root);
        for (const QString& dir :
            { "app", "core", "views", "tests", "bench", "packaging", "resources", "docs", "examples", ".ci" }) {
            QDirIterator it(
                top.filePath(dir), QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
            while (it.hasNext())
                out << top.relativeFilePath(it.next());
        }
        for (const QString& f : top.entryList(QDir::Files))
            out << f;
        return out;
    }();
    return files;
}

/// Every identifier (letters, digits, underscores) and every `a::b` name in the sources, build files and scripts.
const QSet<QString>& projectWords()
{
    static const QSet<QString> words = [] {
        QSet<QString> out;
        static const QRegularExpression word(QStringLiteral("[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*"));
        static const QRegularExpression text(QStringLiteral(
            R"((\.(cpp|h|py|txt|cmake|sh|json|md|1|mjs|in|desktop|xml)|CMakeLists\.txt|Makefile|run)$)"));
        for (const QString& f : projectFiles()) {
            // Not the documents themselves, nor this test's own examples of names that do not exist.
            if (!text.match(f).hasMatch() || f.startsWith(QLatin1String("tests/data/"))
                || f.endsWith(QLatin1String(".md")) || f.endsWith(QLatin1String("tst_docs.cpp")))
                continue;
            const QString content = readFile(root + QLatin1Char('/') + f);
            for (auto it = word.globalMatch(content); it.hasNext();) {
                const QString w = it.next().captured();
                out.insert(w);
                for (const QString& part : w.split(QStringLiteral("::")))
                    out.insert(part);
            }
        }
        return out;
    }();
    return words;
}

/// Whether @p path names a file or folder of the tree: as written from the root or under one of the source folders
/// (`check/checkrun.cpp` is core's, `python/jitscope_bridge.py` resources'), a test or a class by its folder
/// (`tests/core/tst_layering`, `views/worker/WorkerClient`), or a file name found anywhere.
bool pathExists(QString path)
{
    if (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    const QDir top(root);
    const QString folder
        = path.contains(QLatin1Char('/')) ? path.section(QLatin1Char('/'), 0, -2) + QLatin1Char('/') : QString();
    const QStringList forms { path, path + QStringLiteral(".cpp"),
        folder + path.section(QLatin1Char('/'), -1).toLower() + QStringLiteral(".h") };
    for (const QString& prefix : { "", "core/", "views/", "app/", "tests/", "resources/", "resources/python/" })
        for (const QString& form : forms)
            if (QFileInfo::exists(top.filePath(prefix + form)))
                return true;
    if (!path.contains(QLatin1Char('/')))
        for (const QString& f : projectFiles())
            if (f.section(QLatin1Char('/'), -1) == path)
                return true;
    return false;
}

/// What a backticked span of a document claims exists, or empty when it names nothing of the tree (an expression,
/// a command, an option, a value, a place of another project).
QString missing(const QString& span)
{
    static const QRegularExpression path(QStringLiteral(R"(^[A-Za-z0-9_.-]*(/[A-Za-z0-9_.-]+)*/?$)"));
    // A source file by name (`jitscope_bridge.py`), or a path with an extension; a run's `result.json` is no file of
    // the tree.
    static const QRegularExpression fileName(
        QStringLiteral(R"(^[A-Za-z0-9][A-Za-z0-9_.-]*\.(cpp|h|py|md|sh|mjs|1)$|/.*\.\w+$)"));
    static const QRegularExpression sourceFolder(
        QStringLiteral(R"(^(app|core|views|tests|bench|packaging|resources|docs|examples)/)"));
    static const QRegularExpression symbol(
        QStringLiteral(R"(^([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)(\(\))?$)"));
    // Paths: files of the tree by name, or anything under one of its folders (not a torch or torchvision path, not a
    // folder of a run or of a user's machine).
    if (path.match(span).hasMatch() && (sourceFolder.match(span).hasMatch() || fileName.match(span).hasMatch())) {
        static const QRegularExpression foreign(
            QStringLiteral(R"(^(torch|torchvision|timm|transformers|code|models|data|\.venv|build|/))"));
        if (foreign.match(span).hasMatch() && !sourceFolder.match(span).hasMatch())
            return {};
        return pathExists(span) ? QString() : QStringLiteral("no file or folder %1").arg(span);
    }
    // A folder by name (`report/`, `bridge/`): one of the tree's.
    static const QRegularExpression folder(QStringLiteral(R"(^[a-z_]+/$)"));
    if (folder.match(span).hasMatch()) {
        for (const QString& f : projectFiles())
            if (f.section(QLatin1Char('/'), -1) == span.chopped(1) && QFileInfo(root + QLatin1Char('/') + f).isDir())
                return {};
        return QStringLiteral("no folder %1").arg(span);
    }
    // Symbols: a function (`name()`, `Class::name()`), a type or a member, written as the code writes them.
    const QRegularExpressionMatch m = symbol.match(span);
    if (!m.hasMatch())
        return {};
    const QString name = m.captured(1);
    const bool call = !m.captured(2).isEmpty();
    const bool codeName = call || name.contains(QLatin1String("::"))
        || QRegularExpression(QStringLiteral("^[A-Z][a-z0-9]+[A-Z]|^[a-z]+[A-Z]|^jitscope_|^[a-z]+_[a-z_]+$"))
               .match(name)
               .hasMatch();
    if (!codeName)
        return {};
    // torch's, Python's and Qt's own names are theirs.
    static const QRegularExpression foreign(
        QStringLiteral(R"(^(aten|prim|torch|torchvision|graphviz|at|c10|std|Q[A-Z]\w*|q[A-Z]\w*|_\w+|sys|os)(::|$))"));
    if (foreign.match(name).hasMatch())
        return {};
    // A member (`CheckReport::pairDiffs`): its class and its name, as the code writes them apart.
    for (const QString& part : name.split(QStringLiteral("::")))
        if (!projectWords().contains(part))
            return QStringLiteral("no symbol %1").arg(span);
    return {};
}

} // namespace

class TestDocs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void namesExist_data()
    {
        QTest::addColumn<QString>("document");
        QTest::addRow("ARCHITECTURE.md") << QStringLiteral("ARCHITECTURE.md");
        const QDir docs(root + QStringLiteral("/docs"));
        for (const QString& f : docs.entryList({ QStringLiteral("*.md") }, QDir::Files, QDir::Name))
            QTest::addRow("docs/%s", qPrintable(f)) << QStringLiteral("docs/") + f;
    }

    /// Every path and symbol in backticks is in the tree.
    void namesExist()
    {
        QFETCH(QString, document);
        const QString text = readFile(root + QLatin1Char('/') + document);
        QVERIFY(!text.isEmpty());
        // Spans of one backtick (a code block's lines are examples, not claims).
        QString prose = text;
        prose.remove(QRegularExpression(QStringLiteral("```.*?```"), QRegularExpression::DotMatchesEverythingOption));
        static const QRegularExpression span(QStringLiteral("``?([^`\\n]+)``?"));
        QStringList wrong;
        int checked = 0;
        for (auto it = span.globalMatch(prose); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            const QString claim = m.captured(1).trimmed();
            const QString problem = missing(claim);
            checked += !problem.isEmpty() || !claim.isEmpty();
            if (!problem.isEmpty()) {
                const int line = int(prose.left(m.capturedStart()).count(QLatin1Char('\n'))) + 1;
                wrong << QStringLiteral("%1:%2: %3").arg(document).arg(line).arg(problem);
            }
        }
        QVERIFY(checked > 0);
        wrong.removeDuplicates();
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QLatin1Char('\n'))));
    }

    /// The check's test of the checker: names that do not exist are caught, and prose is left alone.
    void checkerCatches_data()
    {
        QTest::addColumn<QString>("span");
        QTest::addColumn<bool>("isMissing");
        QTest::addRow("a file") << QStringLiteral("core/check/reportbuilder.cpp") << false;
        QTest::addRow("a file under core") << QStringLiteral("check/checkrun.cpp") << false;
        QTest::addRow("a gone file") << QStringLiteral("core/check/pythonreport.cpp") << true;
        QTest::addRow("a folder") << QStringLiteral("core/report/") << false;
        QTest::addRow("a gone folder") << QStringLiteral("core/inputs/") << true;
        QTest::addRow("a function") << QStringLiteral("buildCheckReport()") << false;
        QTest::addRow("a gone function") << QStringLiteral("pythonCheckReport()") << true;
        QTest::addRow("a member") << QStringLiteral("CheckReport::pairDiffs") << false;
        QTest::addRow("a target") << QStringLiteral("jitscope_core") << false;
        QTest::addRow("a gone target") << QStringLiteral("jitscope_layout_dot") << true;
        QTest::addRow("an expression") << QStringLiteral("x.size(0)") << false;
        QTest::addRow("an op") << QStringLiteral("aten::lstm") << false;
        QTest::addRow("torch's file") << QStringLiteral("torch/jit/_trace.py") << false;
    }

    void checkerCatches()
    {
        QFETCH(QString, span);
        QFETCH(bool, isMissing);
        QCOMPARE(!missing(span).isEmpty(), isMissing);
    }
};

QTEST_GUILESS_MAIN(TestDocs)
#include "tst_docs.moc"
