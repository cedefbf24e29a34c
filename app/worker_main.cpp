// jitscope-worker: started by the window, never by hand (it speaks frames on stdin and stdout); see worker.cpp.

#include "crashhandler.h"
#include "worker.h"

#include <QCoreApplication>

#include <cstdio>
#include <unistd.h>

int main(int argc, char** argv)
{
    // A crash inside libtorch ends the worker with one line on stderr naming what was running: the window shows it.
    jitscope::installCrashHandler("jitscope-worker");
    QCoreApplication app(argc, argv);
    const int code = jitscope::runWorker();
    std::fflush(nullptr);
    // No destructors: libtorch's static teardown and the models' memory go with the process.
    ::_exit(code);
}
