// libFuzzer target: the .py front end that runs before libtorch (core/load/pysource.cpp's scan of defs, imports and
// input sets, and the text guards of core/load/sourcetextguards.cpp on every def and on the whole file as archive
// code). No libtorch: what it lets through is what libtorch's parser would then see.

#include "load/pysource.h"
#include "load/sourceguards_p.h"

#include <QString>

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QString text = QString::fromUtf8(reinterpret_cast<const char*>(data), qsizetype(size));
    const QString path = QStringLiteral("fuzz.py");
    const jitscope::PyFileScan scan = jitscope::scanPythonSource(text, path);
    for (const jitscope::PyDef& def : scan.defs) {
        try {
            jitscope::refuseHostileText(scan.defSource(def), def.defLine, path);
        } catch (const jitscope::LocatedError&) { }
    }
    try {
        jitscope::refuseHostileText(text, 1, path);
        jitscope::refuseHostileClassBodies(text, path);
    } catch (const jitscope::LocatedError&) { }
    return 0;
}
