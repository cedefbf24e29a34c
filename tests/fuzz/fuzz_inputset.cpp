// libFuzzer target: the SET parser (core/inputs/inputset.cpp) on any bytes. A parse either fails with a column
// inside the text or gives a set whose text parses again to the same text.

#include "report/inputset.h"

#include <QString>

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QString text = QString::fromUtf8(reinterpret_cast<const char*>(data), qsizetype(size));
    jitscope::InputParseError error;
    const auto set = jitscope::parseInputSet(text, &error);
    if (!set) {
        if (error.position < 0 || error.position > text.size())
            std::abort();
        return 0;
    }
    const QString again = set->toString();
    const auto reparsed = jitscope::parseInputSet(again);
    if (!reparsed || reparsed->toString() != again)
        std::abort();
    (void)set->byteSize();
    return 0;
}
