#pragma once

// Running jitscope-cli as a user does, for the tests of app/.

#include "testutil.h"

#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QUrl>

namespace jitscope::test {

struct CliRun
{
    int code = -1; ///< exit status; -2 when it crashed
    QString out;
    QString err;
};

/// Runs jitscope-cli with @p args in @p environment.
inline CliRun runCliIn(const QStringList& args, const QProcessEnvironment& environment)
{
    QProcess p;
    p.setProcessEnvironment(environment);
    p.start(QStringLiteral(JITSCOPE_BIN_DIR "/jitscope-cli"), args);
    CliRun r;
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timed out");
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

/// @p environment: extra NAME=VALUE variables for the run.
inline CliRun runCli(const QStringList& args, const QStringList& environment = {})
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString& e : environment)
        env.insert(e.section(QLatin1Char('='), 0, 0), e.section(QLatin1Char('='), 1));
    return runCliIn(args, env);
}

/// What `check --format html` wrote, as headless Chromium renders it.
struct RenderedPage
{
    QString error; ///< what is wrong with the page, empty when nothing is (see renderReport)
    QString dom; ///< the page's DOM after rendering
};

/// A report is self-contained: no scripts, no style sheets, nothing from the network. Empty when it is, else
/// what it holds that it should not.
inline QString selfContainmentProblem(const QString& html)
{
    if (html.contains(QLatin1String("<script")))
        return QStringLiteral("a <script>");
    if (html.contains(QLatin1String("<link")))
        return QStringLiteral("a <link>");
    if (html.count(QLatin1String("http://")) != html.count(QLatin1String("xmlns=\"http://www.w3.org/2000/svg\"")))
        return QStringLiteral("an http:// address other than the SVG namespace");
    return {};
}

/// Renders the report @p page with headless Chromium (its profile in @p profileDir). `error` says what is wrong:
/// the page holds something from elsewhere, Chromium is missing or fails, or the page logs a console message or an
/// uncaught error.
inline RenderedPage renderReport(const QString& page, const QString& profileDir)
{
    RenderedPage r;
    const QString html = readText(page);
    if (html.isEmpty()) {
        r.error = QStringLiteral("cannot read ") + page;
        return r;
    }
    const QString leak = selfContainmentProblem(html);
    if (!leak.isEmpty()) {
        r.error = QStringLiteral("the page holds ") + leak;
        return r;
    }
    const QString chromium = QStandardPaths::findExecutable(QStringLiteral("chromium"));
    if (chromium.isEmpty()) {
        r.error = QStringLiteral("chromium is missing: packaging/install-deps.sh installs it");
        return r;
    }
    QProcess p;
    p.start(chromium,
        { QStringLiteral("--headless=new"), QStringLiteral("--no-sandbox"), QStringLiteral("--disable-gpu"),
            QStringLiteral("--enable-logging=stderr"), QStringLiteral("--v=0"),
            QStringLiteral("--user-data-dir=") + profileDir, QStringLiteral("--dump-dom"),
            QUrl::fromLocalFile(page).toString() });
    if (!p.waitForFinished(120000)) {
        p.kill();
        r.error = QStringLiteral("chromium did not finish within 120 s");
        return r;
    }
    r.dom = QString::fromUtf8(p.readAllStandardOutput());
    const QString log = QString::fromUtf8(p.readAllStandardError());
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        r.error = QStringLiteral("chromium exited with %1: %2").arg(p.exitCode()).arg(log.right(2000));
    else if (log.contains(QLatin1String("CONSOLE")) || log.contains(QLatin1String("Uncaught")))
        r.error = QStringLiteral("the page logged: ") + log.right(2000);
    return r;
}

} // namespace jitscope::test
