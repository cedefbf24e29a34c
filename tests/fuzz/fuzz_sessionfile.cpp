// libFuzzer target: the session file reader (views/session/sessionfile.cpp). What it accepts it writes back, and
// reads again to the same input sets.

#include "sessionfile.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QByteArray bytes = QByteArray::fromRawData(reinterpret_cast<const char*>(data), qsizetype(size));
    const jitscope::SessionFile f = jitscope::readSessionFile(bytes);
    if (f.status != jitscope::SessionFile::Status::Ok) {
        if (f.problem.isEmpty())
            std::abort();
        return 0;
    }
    const jitscope::SessionFile again = jitscope::readSessionFile(jitscope::writeSessionFile(f.inputSets));
    if (again.status != jitscope::SessionFile::Status::Ok || again.inputSets != f.inputSets)
        std::abort();
    return 0;
}
