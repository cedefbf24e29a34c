#pragma once

// Helpers shared by the core tests: locating fixtures and comparing against golden files.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

namespace jitscope::test {

inline QString dataDir()
{
    return QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/data");
}

inline QString readText(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

/// Compares `actual` with the golden file; on a mismatch writes `<golden>.actual` beside it for `diff -u`.
inline bool matchesGolden(const QString& actual, const QString& expected, const QString& goldenPath)
{
    if (actual == expected) {
        QFile::remove(goldenPath + QStringLiteral(".actual"));
        return true;
    }
    QFile out(goldenPath + QStringLiteral(".actual"));
    if (out.open(QIODevice::WriteOnly))
        out.write(actual.toUtf8());
    return false;
}

/// The custom-operator archives (ops_scripted.pt, ops_traced.pt: a module calling torchvision's nms and roi_align)
/// that tests/oracle/make_custom_ops.py makes with real torchvision, once per test process. Empty when
/// the engine's Python has no torchvision (@p error empty: skip) or the script failed (@p error says why).
inline QString customOpsDir(QString* error)
{
    static QTemporaryDir dir;
    static QString failure;
    static bool made = false;
    if (!made) {
        made = true;
        const QString python = QStringLiteral(JITSCOPE_TEST_PYTHON);
        if (QProcess::execute(python, { QStringLiteral("-c"), QStringLiteral("import torchvision") }) != 0)
            return {};
        QProcess make;
        make.start(python, { QStringLiteral(JITSCOPE_SOURCE_DIR "/tests/oracle/make_custom_ops.py"), dir.path() });
        if (!make.waitForFinished(300000) || make.exitCode() != 0)
            failure = QStringLiteral("make_custom_ops.py: ") + QString::fromUtf8(make.readAllStandardError());
    }
    *error = failure;
    return failure.isEmpty() && QFileInfo::exists(dir.filePath(QStringLiteral("ops_traced.pt"))) ? dir.path()
                                                                                                 : QString();
}

} // namespace jitscope::test

/// In a test function: `QDir VAR` is the custom-operator archives' folder (test::customOpsDir); the test fails when
/// they could not be made and is skipped without torchvision.
#define JITSCOPE_CUSTOM_OPS_DIR(VAR)                                                                                   \
    QString VAR##Error;                                                                                                \
    const QString VAR##Path = jitscope::test::customOpsDir(&VAR##Error);                                               \
    QVERIFY2(VAR##Error.isEmpty(), qPrintable(VAR##Error));                                                            \
    if (VAR##Path.isEmpty())                                                                                           \
        QSKIP("no torchvision for the engine's Python");                                                                 \
    const QDir VAR(VAR##Path)
