#pragma once

// Running jitscope-cli as a user does, for the tests of app/.

#include <QProcess>
#include <QString>
#include <QStringList>

namespace jitscope::test {

struct CliRun
{
    int code = -1; ///< exit status; -2 when it crashed
    QString out;
    QString err;
};

/// @p environment: extra NAME=VALUE variables for the run.
inline CliRun runCli(const QStringList& args, const QStringList& environment = {})
{
    QProcess p;
    if (!environment.isEmpty()) {
        QStringList env = QProcess::systemEnvironment();
        env << environment;
        p.setEnvironment(env);
    }
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

} // namespace jitscope::test
