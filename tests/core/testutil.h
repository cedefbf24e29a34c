#pragma once

// Helpers shared by the core tests: locating fixtures and comparing against golden files.

#include <QDir>
#include <QFile>
#include <QString>
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

} // namespace jitscope::test
