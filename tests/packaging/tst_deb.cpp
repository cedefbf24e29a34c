// The Debian package (make deb) as a machine that never saw the source tree gets it: built here with cpack, unpacked
// into an empty folder (dpkg-deb -x) and run in a mount namespace where the source tree, the build tree and the
// engine's .venv are hidden under empty folders. There the .venv is "the user's environment", mounted at another path:
// the programs must find their libtorch, worker and bridge beside themselves and the user's Python and torchvision
// where the user's environment is. Every ELF file's RPATH is relative ($ORIGIN), ldd resolves nothing of the build
// machine's, and lintian reports no error.

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

namespace {

struct Run
{
    int code = -1;
    QString out;
    QString err;
};

Run run(const QString& program, const QStringList& args, const QStringList& environment = {}, int timeoutMs = 300000)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString& entry : environment) { // NAME=VALUE, or NAME= to unset NAME
        const QString name = entry.section(QLatin1Char('='), 0, 0);
        const QString value = entry.section(QLatin1Char('='), 1);
        if (value.isEmpty())
            env.remove(name);
        else
            env.insert(name, value);
    }
    p.setProcessEnvironment(env);
    p.start(program, args);
    Run r;
    if (!p.waitForStarted(10000)) {
        r.err = p.errorString();
        return r;
    }
    if (!p.waitForFinished(timeoutMs))
        p.kill();
    p.waitForFinished(1000);
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    return r;
}

QString canonical(const QString& path)
{
    const QString c = QFileInfo(path).canonicalFilePath();
    return c.isEmpty() ? QDir::cleanPath(path) : c;
}

bool isElf(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly)
        && f.read(4)
        == QByteArray("\x7f"
                      "ELF",
            4);
}

} // namespace

class TestDeb : public QObject
{
    Q_OBJECT

    QTemporaryDir m_work;
    QString m_deb;
    QString m_root; ///< the unpacked package
    QStringList m_elf; ///< its ELF files
    QStringList m_hidden; ///< the build machine's folders the programs must not need
    QString m_venv; ///< the engine's virtual environment (empty when its Python is not one)
    QString m_userEnv; ///< where the namespace shows it, as the user's environment
    QString m_unshare;

    QString unpacked(const QString& path) const { return m_root + path; }

    /// Runs @p args in a mount namespace where m_hidden are empty folders and the engine's .venv is at m_userEnv.
    Run runHidden(const QStringList& args, const QStringList& environment = {})
    {
        QString script = QStringLiteral("set -e\n");
        if (!m_venv.isEmpty())
            script += QStringLiteral("mount --bind '%1' '%2'\n").arg(m_venv, m_userEnv);
        for (const QString& dir : std::as_const(m_hidden))
            script += QStringLiteral("mount -t tmpfs -o size=1m jitscope-hidden '%1'\n").arg(dir);
        script += QStringLiteral("cd /\nexec \"$@\"\n");
        QStringList unshareArgs { QStringLiteral("--mount"), QStringLiteral("--propagation"),
            QStringLiteral("private") };
        if (geteuid() != 0)
            unshareArgs.prepend(QStringLiteral("--map-root-user"));
        return run(m_unshare,
            unshareArgs + QStringList { QStringLiteral("sh"), QStringLiteral("-c"), script, QStringLiteral("sh") }
                + args,
            environment);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_work.isValid());
        // cpack writes build/jitscope_VERSION_ARCH.deb, as make deb does.
        QElapsedTimer timer;
        timer.start();
        const Run cpack = run(QStringLiteral(JITSCOPE_CPACK_COMMAND),
            { QStringLiteral("-G"), QStringLiteral("DEB"), QStringLiteral("--config"),
                QStringLiteral(JITSCOPE_BUILD_DIR "/CPackConfig.cmake") },
            {}, 900000);
        QVERIFY2(cpack.code == 0, qPrintable(cpack.out + cpack.err));
        const QStringList debs = QDir(QStringLiteral(JITSCOPE_BUILD_DIR))
                                     .entryList({ QStringLiteral("jitscope_" JITSCOPE_VERSION "_*.deb") }, QDir::Files);
        QCOMPARE(debs.size(), 1);
        m_deb = QStringLiteral(JITSCOPE_BUILD_DIR "/") + debs.first();
        qInfo("cpack: %s, %lld bytes, in %.1f s", qPrintable(m_deb), QFileInfo(m_deb).size(), timer.elapsed() / 1000.0);

        m_root = m_work.filePath(QStringLiteral("root"));
        QVERIFY(QDir().mkpath(m_root));
        const Run extract = run(QStringLiteral("dpkg-deb"), { QStringLiteral("-x"), m_deb, m_root });
        QVERIFY2(extract.code == 0, qPrintable(extract.err));
        for (QDirIterator it(m_root, QDir::Files, QDirIterator::Subdirectories); it.hasNext();) {
            const QString file = it.next();
            if (!QFileInfo(file).isSymLink() && isElf(file))
                m_elf << file;
        }
        m_elf.sort();

        // Out of reach: the source tree, the build tree, the engine's torch and its environment. The topmost of
        // nested folders only (hiding the source tree hides a build tree inside it).
        const QString python = QStringLiteral(JITSCOPE_TEST_PYTHON);
        const QString venv = QFileInfo(QFileInfo(python).absolutePath()).absolutePath();
        if (QFileInfo::exists(venv + QStringLiteral("/pyvenv.cfg")))
            m_venv = canonical(venv);
        QStringList hide { canonical(QStringLiteral(JITSCOPE_SOURCE_DIR)),
            canonical(QStringLiteral(JITSCOPE_BUILD_DIR)), canonical(QStringLiteral(JITSCOPE_TORCH_ROOT)) };
        if (!m_venv.isEmpty())
            hide << m_venv;
        std::sort(hide.begin(), hide.end());
        for (const QString& dir : std::as_const(hide))
            if (!std::any_of(m_hidden.cbegin(), m_hidden.cend(),
                    [&dir](const QString& h) { return dir == h || dir.startsWith(h + QLatin1Char('/')); }))
                m_hidden << dir;
        for (const QString& dir : std::as_const(m_hidden))
            QVERIFY2(!m_work.path().startsWith(dir + QLatin1Char('/')), qPrintable(dir));
        m_userEnv = m_work.filePath(QStringLiteral("user-env"));
        QVERIFY(QDir().mkpath(m_userEnv));
        m_unshare = QStandardPaths::findExecutable(QStringLiteral("unshare"));
    }

    /// The libtorch libraries the programs link, and what they need from the wheel, privately in /usr/lib/jitscope;
    /// nothing else of the wheel (the build found them: JITSCOPE_BUNDLED_LIBRARIES).
    void carriesTheEnginesLibtorch()
    {
        QStringList expected = QStringLiteral(JITSCOPE_BUNDLED_LIBRARIES).split(QLatin1Char(':'), Qt::SkipEmptyParts);
        expected.sort();
        QVERIFY(expected.contains(QStringLiteral("libtorch_cpu.so")));
        QVERIFY(expected.contains(QStringLiteral("libc10.so")));
        const QStringList carried
            = QDir(unpacked(QStringLiteral("/usr/lib/jitscope"))).entryList(QDir::Files, QDir::Name);
        QCOMPARE(carried, expected);
        QStringList torchLibraries;
        for (const QString& file : std::as_const(m_elf)) {
            const QString name = QFileInfo(file).fileName();
            if (name.startsWith(QLatin1String("libtorch")) || name.startsWith(QLatin1String("libc10")))
                torchLibraries << name;
        }
        QCOMPARE(torchLibraries.size(), 2); // libtorch_cpu and c10, not libtorch_python, libtorch_cuda...
        for (const char* file : { "/usr/bin/jitscope-cli", "/usr/bin/jitscope", "/usr/libexec/jitscope/jitscope-worker",
                 "/usr/share/jitscope/python/jitscope_bridge.py" })
            QVERIFY2(QFileInfo::exists(unpacked(QLatin1String(file))), file);
    }

    /// RPATHs relative to the binary, ldd resolving every library inside the package or the system's folders, and no
    /// file but the programs' naming the build machine's folders.
    void namesNoPathOfTheBuildMachine()
    {
        QVERIFY(!m_elf.isEmpty());
        const QStringList machine = m_hidden;
        for (const QString& file : std::as_const(m_elf)) {
            const Run dynamic = run(QStringLiteral("readelf"), { QStringLiteral("-d"), file });
            QCOMPARE(dynamic.code, 0);
            static const QRegularExpression rpath(QStringLiteral(R"(\((?:RPATH|RUNPATH)\)[^[]*\[([^]]*)\])"));
            for (auto it = rpath.globalMatch(dynamic.out); it.hasNext();)
                for (const QString& entry : it.next().captured(1).split(QLatin1Char(':')))
                    QVERIFY2(
                        entry.startsWith(QLatin1String("$ORIGIN")), qPrintable(file + QStringLiteral(": ") + entry));

            const Run ldd = run(QStringLiteral("ldd"), { file });
            QVERIFY2(ldd.code == 0, qPrintable(file + ldd.err));
            QVERIFY2(!ldd.out.contains(QLatin1String("not found")), qPrintable(file + QLatin1Char('\n') + ldd.out));
            for (const QString& dir : machine)
                QVERIFY2(!ldd.out.contains(dir + QLatin1Char('/')), qPrintable(file + QLatin1Char('\n') + ldd.out));
            // The package's own libtorch (usr/bin/../lib/jitscope/libtorch_cpu.so), not the wheel's.
            for (const char* torch : { "libtorch_cpu.so", "libc10.so" }) {
                const QRegularExpression own(QStringLiteral("%1 => %2/usr/[^ ]*lib/jitscope/%1 ")
                                                 .arg(QRegularExpression::escape(QLatin1String(torch)),
                                                     QRegularExpression::escape(m_root)));
                if (ldd.out.contains(QLatin1String(torch) + QStringLiteral(" => ")))
                    QVERIFY2(own.match(ldd.out).hasMatch(), qPrintable(file + QLatin1Char('\n') + ldd.out));
            }
        }
        for (const char* program : { "/usr/bin/jitscope-cli", "/usr/libexec/jitscope/jitscope-worker" }) {
            const Run ldd = run(QStringLiteral("ldd"), { unpacked(QLatin1String(program)) });
            QVERIFY2(ldd.out.contains(QLatin1String("libtorch_cpu.so => ")), program);
        }

        for (QDirIterator it(m_root, QDir::Files, QDirIterator::Subdirectories); it.hasNext();) {
            const QString file = it.next();
            if (m_elf.contains(file) || file.endsWith(QLatin1String(".gz")) || file.endsWith(QLatin1String(".png")))
                continue;
            QFile f(file);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray text = f.readAll();
            for (const QString& dir : machine)
                QVERIFY2(!text.contains(dir.toUtf8()), qPrintable(file + QStringLiteral(" names ") + dir));
        }
    }

    /// The unpacked programs with the build machine's folders hidden: --version, an archive's graph, a .py file
    /// checked under the user's interpreter, torchvision's operators found in the user's environment.
    void runsWithTheBuildTreeOutOfReach()
    {
        if (m_unshare.isEmpty())
            QSKIP("no unshare (util-linux) to hide the build tree");
        const Run probe = runHidden({ QStringLiteral("test"), QStringLiteral("!"), QStringLiteral("-e"),
            QStringLiteral(JITSCOPE_TORCH_ROOT "/lib/libtorch_cpu.so") });
        if (probe.code != 0)
            QSKIP(qPrintable(QStringLiteral("no mount namespace here (%1)").arg(probe.err.trimmed())));

        const QString cli = unpacked(QStringLiteral("/usr/bin/jitscope-cli"));
        const Run version = runHidden({ cli, QStringLiteral("--version") });
        QVERIFY2(version.code == 0, qPrintable(version.err));
        QVERIFY2(version.out.startsWith(
                     QStringLiteral("jitscope-cli " JITSCOPE_VERSION " (libtorch " JITSCOPE_TEST_TORCH_VERSION)),
            qPrintable(version.out));

        // Test data copied out of the source tree first, as a user's files are.
        const QString archive = m_work.filePath(QStringLiteral("conv_block.pt"));
        QVERIFY(QFile::copy(QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data/archives/conv_block.pt"), archive));
        const Run graph = runHidden({ cli, QStringLiteral("graph"), archive });
        QVERIFY2(graph.code == 0, qPrintable(graph.err));
        QVERIFY2(graph.out.contains(QLatin1String("aten::")), qPrintable(graph.out));
        const Run svg
            = runHidden({ cli, QStringLiteral("graph"), archive, QStringLiteral("--format"), QStringLiteral("svg") });
        QVERIFY2(svg.code == 0 && svg.out.contains(QLatin1String("<svg")), qPrintable(svg.err)); // Graphviz's dot

        const QString example = unpacked(QStringLiteral("/usr/share/doc/jitscope/examples/loop_in_traced_fn.py"));
        const Run own = runHidden({ cli, QStringLiteral("check"), example });
        QCOMPARE(own.code, 1); // the example's check inputs make the trace diverge
        QVERIFY2(own.out.contains(QLatin1String("unrolled 3 times")), qPrintable(own.out + own.err));

        if (m_venv.isEmpty())
            QSKIP("the engine's Python is not a virtual environment's: no user environment to run under");
        const QString userPython = m_userEnv + QStringLiteral("/bin/python");
        const Run check
            = runHidden({ cli, QStringLiteral("check"), example, QStringLiteral("--python=") + userPython });
        QVERIFY2(check.code == 1, qPrintable(check.out + check.err));
        QVERIFY2(check.out.contains(QLatin1String("unrolled 3 times in trace 1 but 4 times in trace 2")),
            qPrintable(check.out));
        // The same, the Python being the active virtual environment's.
        const Run active = runHidden({ cli, QStringLiteral("check"), example, QStringLiteral("--python") },
            { QStringLiteral("VIRTUAL_ENV=") + m_userEnv, QStringLiteral("JITSCOPE_PYTHON=") });
        QVERIFY2(active.code == 1, qPrintable(active.out + active.err));
        QVERIFY(active.out.contains(QLatin1String("unrolled 3 times in trace 1 but 4 times in trace 2")));

        // An archive calling torchvision::nms and roi_align, made by the engine's Python before it is hidden: its
        // operators come from the torchvision of the user's environment.
        const Run make = run(python(),
            { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/make_custom_ops.py"),
                m_work.filePath(QStringLiteral("ops")) });
        if (make.code != 0)
            QSKIP(qPrintable(QStringLiteral("no torchvision for the engine's Python: ") + make.err));
        const Run ops
            = runHidden({ cli, QStringLiteral("list"), m_work.filePath(QStringLiteral("ops/ops_scripted.pt")) },
                { QStringLiteral("VIRTUAL_ENV=") + m_userEnv, QStringLiteral("JITSCOPE_PYTHON="),
                    QStringLiteral("JITSCOPE_OPS_PATH=") });
        QVERIFY2(ops.code == 0, qPrintable(ops.err));
        static const QRegularExpression found(
            QStringLiteral("operator libraries:\n  %1/lib/python3[.0-9]*/site-packages/torchvision/_C[^ ]*\\.so  "
                           "torchvision::")
                .arg(QRegularExpression::escape(m_userEnv)));
        QVERIFY2(found.match(ops.out).hasMatch(), qPrintable(ops.out));
    }

    /// lintian finds no error (its warnings are printed).
    void lintianFindsNoError()
    {
        const QString lintian = QStandardPaths::findExecutable(QStringLiteral("lintian"));
        if (lintian.isEmpty())
            QFAIL("lintian is missing: packaging/install-deps.sh installs it");
        QElapsedTimer timer;
        timer.start();
        const Run l = run(lintian, { QStringLiteral("--tag-display-limit"), QStringLiteral("0"), m_deb }, {}, 900000);
        qInfo("lintian in %.1f s:\n%s", timer.elapsed() / 1000.0, qPrintable(l.out + l.err));
        static const QRegularExpression error(QStringLiteral("^E: "), QRegularExpression::MultilineOption);
        QVERIFY2(!error.match(l.out).hasMatch(), qPrintable(l.out));
        QVERIFY2(l.code == 0, qPrintable(l.out + l.err));
    }

private:
    static QString python() { return QStringLiteral(JITSCOPE_TEST_PYTHON); }
};

QTEST_GUILESS_MAIN(TestDeb)
#include "tst_deb.moc"
