#include "cli.h"
#include "crashhandler.h"

#include <QCoreApplication>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

int main(int argc, char** argv)
{
    // A crash inside libtorch ends with exit 2 and one line naming the file, the place and what was running.
    jitscope::installCrashHandler("jitscope-cli");
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("jitscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(JITSCOPE_VERSION));
    QTextStream out(stdout);
    QTextStream err(stderr);
    QStringList args = QCoreApplication::arguments();
    args.removeFirst();
    int code = jitscope::runCli(args, out, err);
    out.flush();
    // A full disk or a closed pipe must not pass for success in a CI script.
    if (out.status() != QTextStream::Ok || std::fflush(stdout) != 0 || std::ferror(stdout)) {
        err << "jitscope-cli: error: cannot write to standard output: " << std::strerror(errno) << "\n";
        code = 2;
    }
    err.flush();
    std::fflush(nullptr);
    // No destructors: libtorch's static teardown and the model's memory go with the process, faster.
    ::_exit(code);
}
