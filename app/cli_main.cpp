#include "cli.h"

#include <QCoreApplication>

#include <cstdio>

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("jitscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(JITSCOPE_VERSION));
    QTextStream out(stdout);
    QTextStream err(stderr);
    QStringList args = QCoreApplication::arguments();
    args.removeFirst();
    const int code = jitscope::runCli(args, out, err);
    out.flush();
    err.flush();
    return code;
}
