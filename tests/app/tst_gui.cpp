// The window as a user starts it (build/bin/jitscope, offscreen): a process that loads neither libtorch nor
// Graphviz, painted before its model worker answers, and a file that fails to load written to --screenshot as the
// user sees it, with exit status 2.

#include <QColor>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

QString gui()
{
    return QStringLiteral(JITSCOPE_BIN_DIR "/jitscope");
}

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

/// Runs @p program offscreen, with @p env's "NAME=VALUE" entries added to the environment.
Run run(const QString& program, const QStringList& arguments, const QStringList& env = {})
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    for (const QString& entry : env)
        environment.insert(entry.section(QLatin1Char('='), 0, 0), entry.section(QLatin1Char('='), 1));
    process.setProcessEnvironment(environment);
    process.start(program, arguments);
    Run r;
    if (!process.waitForFinished(180 * 1000)) {
        process.kill();
        process.waitForFinished();
        r.err = QStringLiteral("timed out");
        return r;
    }
    r.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    r.out = QString::fromUtf8(process.readAllStandardOutput());
    r.err = QString::fromUtf8(process.readAllStandardError());
    return r;
}

/// Pixels of @p image within a few levels of @p colour.
int pixelsNear(const QImage& image, QColor colour)
{
    int count = 0;
    for (int y = 0; y < image.height(); ++y) {
        const QRgb* line = reinterpret_cast<const QRgb*>(image.constScanLine(y));
        for (int x = 0; x < image.width(); ++x)
            count += qAbs(qRed(line[x]) - colour.red()) + qAbs(qGreen(line[x]) - colour.green())
                    + qAbs(qBlue(line[x]) - colour.blue())
                < 24;
    }
    return count;
}

/// The events of JITSCOPE_TIMELINE's lines on stderr ("jitscope: timeline: 123 ms: first paint"), in order.
QList<QPair<int, QString>> timeline(const QString& err)
{
    static const QRegularExpression line(
        QStringLiteral("^jitscope: timeline: (\\d+) ms: (.+)$"), QRegularExpression::MultilineOption);
    QList<QPair<int, QString>> events;
    for (auto it = line.globalMatch(err); it.hasNext();) {
        const auto m = it.next();
        events.append({ m.captured(1).toInt(), m.captured(2) });
    }
    return events;
}

int indexOf(const QList<QPair<int, QString>>& events, const QString& name)
{
    for (int i = 0; i < events.size(); ++i)
        if (events[i].second == name)
            return i;
    return -1;
}

} // namespace

class TestGui : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    /// The window's process links neither engine: a crash there cannot take it down, and it starts without the
    /// half second libtorch takes to load.
    void linksNoEngine_data()
    {
        QTest::addColumn<QString>("library");
        QTest::addRow("libtorch") << QStringLiteral("libtorch");
        QTest::addRow("c10") << QStringLiteral("libc10");
        QTest::addRow("Graphviz gvc") << QStringLiteral("libgvc");
        QTest::addRow("Graphviz cgraph") << QStringLiteral("libcgraph");
    }

    void linksNoEngine()
    {
        QFETCH(QString, library);
        QVERIFY(QFileInfo(gui()).isExecutable());
        const Run ldd = run(QStringLiteral("ldd"), { gui() });
        QCOMPARE(ldd.exitCode, 0);
        QVERIFY2(ldd.out.contains(QLatin1String("libQt6Widgets")), qPrintable(ldd.out));
        QVERIFY2(!ldd.out.contains(library), qPrintable(ldd.out));
        // The worker has them: the window's engine is there.
        const Run worker = run(QStringLiteral("ldd"), { QStringLiteral(JITSCOPE_BIN_DIR "/jitscope-worker") });
        QVERIFY2(worker.out.contains(library), qPrintable(worker.out));
    }

    /// `jitscope --version` names the libtorch its model worker runs, the one `jitscope-cli --version` runs, without
    /// the window loading it.
    void versionNamesTheWorkersLibtorch()
    {
        const Run version = run(gui(), { QStringLiteral("--version") });
        QCOMPARE(version.exitCode, 0);
        const Run cli = run(QStringLiteral(JITSCOPE_BIN_DIR "/jitscope-cli"), { QStringLiteral("--version") });
        const QString libtorch = cli.out.section(QStringLiteral("(libtorch "), 1).section(QLatin1Char(','), 0, 0);
        QVERIFY2(!libtorch.isEmpty(), qPrintable(cli.out));
        QVERIFY2(version.out.startsWith(QLatin1String("jitscope ")), qPrintable(version.out));
        QVERIFY2(version.out.contains(QStringLiteral("(libtorch %1 in its model worker)\n").arg(libtorch)),
            qPrintable(version.out + cli.out));
    }

    /// A file that fails to load is written as the window shows it (the error where the graph would be) and the
    /// exit status says it failed.
    void screenshotOfAFileThatDoesNotLoad_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        QTest::addRow("corrupt pickle") << QStringLiteral("tests/data/hostile/pickle_underflow_data.pt")
                                        << QStringLiteral("data.pkl");
        QTest::addRow("no such file") << QStringLiteral("tests/data/hostile/no_such_file.pt")
                                      << QStringLiteral("no such file");
        QTest::addRow("truncated .pt2") << QStringLiteral("tests/data/hostile/pt2_truncated.pt2")
                                        << QStringLiteral("pt2_truncated.pt2: not a zip file, or truncated");
        QTest::addRow("AOTInductor package")
            << QStringLiteral("tests/data/hostile/pt2_aotinductor.pt2") << QStringLiteral("an AOTInductor package");
    }

    void screenshotOfAFileThatDoesNotLoad()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("broken.png"));
        const Run r
            = run(gui(), { QStringLiteral("--screenshot"), png, QStringLiteral(JITSCOPE_SOURCE_DIR "/") + file });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        const QImage image(png);
        QVERIFY2(!image.isNull(), qPrintable(r.err));
        QCOMPARE(image.size(), QSize(1400, 900));
        // The error's accent (MessageItem::Kind::Error) where the graph would be: no model's message has none.
        const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
        QVERIFY2(pixelsNear(rgb, QColor(0xcf, 0x22, 0x2e)) > 200, qPrintable(r.err));
    }

    /// An archive calling torchvision::nms and roi_align (tests/oracle/make_custom_ops.py) opens with a double-click:
    /// its worker finds torchvision's library; with nowhere to look (JITSCOPE_OPS_PATH empty) the window says which
    /// namespace no library defines, and `jitscope --load-ops LIB` gives it the library.
    void customOperators_data()
    {
        QTest::addColumn<bool>("searchable");
        QTest::addColumn<bool>("loadOps");
        QTest::addColumn<int>("exitCode");
        QTest::addRow("found") << true << false << 0;
        QTest::addRow("nowhere to look") << false << false << 2;
        QTest::addRow("nowhere to look, --load-ops") << false << true << 0;
    }

    void customOperators()
    {
        QFETCH(bool, searchable);
        QFETCH(bool, loadOps);
        QFETCH(int, exitCode);
        const QString python = QStringLiteral(JITSCOPE_TEST_PYTHON);
        QProcess where;
        where.start(python,
            { QStringLiteral("-c"),
                QStringLiteral("import glob, os, torchvision; "
                               "print(glob.glob(os.path.join(os.path.dirname(torchvision.__file__), '_C*.so'))[0])") });
        if (!where.waitForFinished(120000) || where.exitCode() != 0)
            QSKIP("no torchvision for the engine's Python");
        const QString library = QString::fromLocal8Bit(where.readAllStandardOutput()).trimmed();
        QTemporaryDir dir;
        const Run make
            = run(python, { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/make_custom_ops.py"), dir.path() });
        QVERIFY2(make.exitCode == 0, qPrintable(make.err));
        QTemporaryDir empty;
        QStringList env;
        if (!searchable)
            env << QStringLiteral("JITSCOPE_OPS_PATH=") + empty.path();
        const QString png = dir.filePath(QStringLiteral("ops.png"));
        QStringList args { QStringLiteral("--screenshot"), png };
        if (loadOps)
            args << QStringLiteral("--load-ops") << library;
        args << dir.filePath(QStringLiteral("ops_traced.pt"));
        const Run r = run(gui(), args, env);
        QVERIFY2(r.exitCode == exitCode, qPrintable(r.err));
        QVERIFY(!QImage(png).isNull());
        if (exitCode != 0) {
            QVERIFY2(r.err.contains(QLatin1String("unknown operator torchvision::")), qPrintable(r.err));
            QVERIFY2(
                r.err.contains(QLatin1String("no library of torchvision:: operators is loaded")), qPrintable(r.err));
        }
    }

    /// A .pt2 of torch.export.save opens from the command line as an archive does: loaded by the worker (read by
    /// JitScope, no libtorch), its graph laid out and shown (a file that does not load exits 2, as above).
    void opensExportedProgram()
    {
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("pt2.png"));
        const Run r = run(gui(),
            { QStringLiteral("--screenshot"), png,
                QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/pt2/dynamic_batch.pt2") },
            { QStringLiteral("JITSCOPE_TIMELINE=1") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto events = timeline(r.err);
        QVERIFY2(indexOf(events, QStringLiteral("loaded")) >= 0 && indexOf(events, QStringLiteral("graph shown")) >= 0,
            qPrintable(r.err.right(2000)));
        QCOMPARE(QImage(png).size(), QSize(1400, 900));
    }

    /// The window is painted (empty state, file name, progress) before its model worker has answered: here one
    /// made to wait a second before its hello.
    void paintedBeforeTheWorkerAnswers()
    {
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("example.png"));
        const Run r = run(gui(),
            { QStringLiteral("--screenshot"), png,
                QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py") },
            { QStringLiteral("JITSCOPE_TIMELINE=1"), QStringLiteral("JITSCOPE_WORKER_DELAY_MS=1000") });
        QCOMPARE(r.exitCode, 0);
        const auto events = timeline(r.err);
        const int workerStarted = indexOf(events, QStringLiteral("worker started"));
        const int painted = indexOf(events, QStringLiteral("first paint"));
        const int hello = indexOf(events, QStringLiteral("worker ready"));
        const int loaded = indexOf(events, QStringLiteral("loaded"));
        const int graph = indexOf(events, QStringLiteral("graph shown"));
        QVERIFY2(workerStarted >= 0 && painted >= 0 && hello >= 0 && loaded >= 0 && graph >= 0,
            qPrintable(r.err.right(2000)));
        QVERIFY2(workerStarted < painted, qPrintable(r.err));
        QVERIFY2(painted < hello, qPrintable(r.err));
        QVERIFY2(hello < loaded && loaded <= graph, qPrintable(r.err));
        QVERIFY(!QImage(png).isNull());
    }
};

QTEST_GUILESS_MAIN(TestGui)
#include "tst_gui.moc"
