// libFuzzer target: the archive loader (core/load's loadModel() on a TorchScript archive) on valid zips with corrupt
// contents. The input is two selector bytes and an entry's new contents: byte 0 picks one of the base archives of
// tests/data/archives (kBases), byte 1 one of its entries (data.pkl, constants.pkl, a code file, its .debug_pkl, a
// tensor record), the rest replaces that entry. The zip is rewritten with libtorch's own writer, so the zip layer
// is always sound and the fuzzing reaches what reads the entries: JitScope's pickle and code checks, then
// torch::jit::load, the module walk and inlining. libtorch is not instrumented (no coverage inside it), but
// AddressSanitizer sees its heap: a corrupt free or a read past a buffer there is a crash here. Every crash found
// becomes a guard before torch::jit::load and a regression test with its archive in tests/data/hostile/.
//
//   JITSCOPE_FUZZ_WRITE_SEEDS=DIR fuzz_archive    writes one seed per entry of every base archive and exits
//   (tests/fuzz/corpus/archive/ holds them).

#include "load/model.h"

#include <caffe2/serialize/inline_container.h>

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

const char* const kBases[] = { "buffer_scale.pt", "dict_attr.pt", "final_const.pt", "shape_branch.pt" };

struct Entry
{
    std::string name; ///< without the archive's top folder: "data.pkl", "code/__torch__/modules.py"
    std::string data;
};

std::vector<std::vector<Entry>>& bases()
{
    static std::vector<std::vector<Entry>> all;
    return all;
}

std::vector<Entry> readArchive(const std::string& path)
{
    caffe2::serialize::PyTorchStreamReader reader(path);
    std::vector<Entry> entries;
    for (const std::string& record : reader.getAllRecords()) {
        if (record == "version" || record == ".data/version")
            continue; // the writer writes its own
        auto [data, size] = reader.getRecord(record);
        entries.push_back({ record, std::string(static_cast<const char*>(data.get()), size) });
    }
    return entries;
}

void writeSeeds(const QString& dir)
{
    QDir().mkpath(dir);
    for (size_t a = 0; a < bases().size(); ++a) {
        for (size_t r = 0; r < bases()[a].size(); ++r) {
            const Entry& e = bases()[a][r];
            QString name = QString::fromStdString(e.name);
            name.replace(QLatin1Char('/'), QLatin1Char('_'));
            QFile f(QStringLiteral("%1/%2_%3")
                        .arg(dir, QString::fromLatin1(kBases[a]).section(QLatin1Char('.'), 0, 0), name));
            if (!f.open(QIODevice::WriteOnly))
                std::abort();
            const char head[2] = { char(a), char(r) };
            f.write(head, 2);
            f.write(e.data.data(), qint64(e.data.size()));
        }
    }
}

std::string archivePath()
{
    static const std::string path = "/dev/shm/jitscope-fuzz-archive-" + std::to_string(getpid()) + ".pt";
    return path;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    for (const char* base : kBases)
        bases().push_back(readArchive(std::string(JITSCOPE_SOURCE_DIR "/tests/data/archives/") + base));
    if (const char* dir = std::getenv("JITSCOPE_FUZZ_WRITE_SEEDS")) {
        writeSeeds(QString::fromLocal8Bit(dir));
        std::exit(0);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 2)
        return 0;
    const std::vector<Entry>& base = bases()[data[0] % bases().size()];
    const size_t replaced = data[1] % base.size();
    {
        caffe2::serialize::PyTorchStreamWriter writer(archivePath());
        for (size_t r = 0; r < base.size(); ++r) {
            if (r == replaced)
                writer.writeRecord(base[r].name, data + 2, size - 2);
            else
                writer.writeRecord(base[r].name, base[r].data.data(), base[r].data.size());
        }
        writer.writeEndOfFile();
    }
    jitscope::LoadOptions options;
    options.inlineCalls = true;
    const jitscope::LoadResult result = jitscope::loadModel(QString::fromStdString(archivePath()), options);
    if (!result.ok && result.error.message.isEmpty())
        std::abort(); // a failure must say what failed
    if (result.ok) {
        for (jitscope::FunctionInfo fn : result.model.functions)
            if (!fn.inlined)
                jitscope::inlineFunction(result.model.handle, fn);
    }
    std::remove(archivePath().c_str());
    return 0;
}
