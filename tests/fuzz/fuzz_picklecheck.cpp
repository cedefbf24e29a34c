// libFuzzer target: the pickle checker of archives (core/load/picklecheck.cpp). It must never crash, never read
// outside the data, and report offsets inside it.

#include "load/picklecheck_p.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const jitscope::PickleProblem p = jitscope::checkPickle(reinterpret_cast<const char*>(data), size);
    if (!p.ok && (p.offset > size || p.message.empty()))
        std::abort();
    return 0;
}
