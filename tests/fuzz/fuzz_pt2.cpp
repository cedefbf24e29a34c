// libFuzzer target: the .pt2 reader (core/load/exportedprogram.cpp and its zip reader, zipreader.cpp). Byte 0 of
// the input says what the rest is:
//   0  a whole package (the zip layer: central directory, zip64 fields, local headers, inflate, CRC);
//   1  an ExportedProgram's JSON alone (readExportedProgramJson());
//   2  that JSON packed here into a sound zip, as m/models/model.json (byte 1 even) or, with a version file, as the
//      older layout's serialized_exported_program.json (byte 1 odd): the whole way from the package to the graph.
// Every input must end in a program or in one error naming the input; a program's graph must hold together (every
// id it refers to inside it). Seeds: tests/fuzz/corpus/pt2/, written by tests/oracle/make_pt2.py.

#include "load/exportedprogram.h"

#include <QByteArray>
#include <QString>

#include <zlib.h>

#include <cstdint>
#include <cstdlib>

namespace {

void put16(QByteArray& b, quint16 v)
{
    b.append(char(v & 0xff)).append(char(v >> 8));
}

void put32(QByteArray& b, quint32 v)
{
    put16(b, quint16(v & 0xffff));
    put16(b, quint16(v >> 16));
}

/// A zip of stored entries.
QByteArray zipOf(const QVector<std::pair<QByteArray, QByteArray>>& entries)
{
    QByteArray out, dir;
    for (const auto& [name, data] : entries) {
        const quint32 crc = quint32(crc32(0, reinterpret_cast<const Bytef*>(data.constData()), uInt(data.size())));
        const quint32 offset = quint32(out.size());
        for (QByteArray* b : { &out, &dir }) {
            const bool central = b == &dir;
            put32(*b, central ? 0x02014b50 : 0x04034b50);
            if (central)
                put16(*b, 20);
            put16(*b, 20);
            put16(*b, 0);
            put16(*b, 0);
            put32(*b, 0);
            put32(*b, crc);
            put32(*b, quint32(data.size()));
            put32(*b, quint32(data.size()));
            put16(*b, quint16(name.size()));
            put16(*b, 0);
            if (central) {
                put16(*b, 0);
                put16(*b, 0);
                put16(*b, 0);
                put32(*b, 0);
                put32(*b, offset);
            }
            b->append(name);
        }
        out.append(data);
    }
    const quint32 dirOffset = quint32(out.size());
    out.append(dir);
    put32(out, 0x06054b50);
    put16(out, 0);
    put16(out, 0);
    put16(out, quint16(entries.size()));
    put16(out, quint16(entries.size()));
    put32(out, quint32(dir.size()));
    put32(out, dirOffset);
    put16(out, 0);
    return out;
}

void checkGraph(const jitscope::IrGraph& g)
{
    const int values = int(g.values.size()), nodes = int(g.nodes.size());
    auto block = [&](const jitscope::IrBlock& b) {
        for (int v : b.inputs)
            if (v < 0 || v >= values)
                std::abort();
        for (int v : b.outputs)
            if (v < 0 || v >= values)
                std::abort();
        for (int n : b.nodes)
            if (n < 0 || n >= nodes)
                std::abort();
    };
    block(g.top);
    for (const jitscope::IrNode& n : g.nodes) {
        for (int v : n.inputs)
            if (v < 0 || v >= values)
                std::abort();
        for (int v : n.outputs)
            if (v < 0 || v >= values || g.value(v).producer != n.id)
                std::abort();
        for (const jitscope::IrBlock& b : n.blocks)
            block(b);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 2)
        return 0;
    const QByteArray rest(reinterpret_cast<const char*>(data) + 2, qsizetype(size - 2));
    const QString name = QStringLiteral("input.pt2");
    jitscope::ExportedProgram ep;
    switch (data[0] % 3) {
    case 0:
        ep = jitscope::readExportedProgramData(
            QByteArray(reinterpret_cast<const char*>(data) + 1, qsizetype(size - 1)), name);
        break;
    case 1:
        ep = jitscope::readExportedProgramJson(rest, name);
        break;
    default:
        ep = jitscope::readExportedProgramData(data[1] % 2 == 0
                ? zipOf({ { "m/archive_format", "pt2" }, { "m/models/model.json", rest } })
                : zipOf({ { "serialized_exported_program.json", rest }, { "version", "8.20" } }),
            name);
        break;
    }
    if (!ep.ok) {
        if (ep.error.message.isEmpty() || ep.error.location.file != name)
            std::abort();
        return 0;
    }
    checkGraph(ep.graph);
    // What the loader and the CLI print of it.
    (void)ep.graph.toText();
    (void)ep.graph.toJson();
    (void)ep.forwardSignature();
    (void)ep.signatureText();
    for (const jitscope::RangeConstraint& c : ep.rangeConstraints)
        (void)c.text();
    return 0;
}
