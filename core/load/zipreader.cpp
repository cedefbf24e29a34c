// ZipReader: the central directory of a zip file read with every field checked (zipreader_p.h). The layout is
// PKWARE's APPNOTE: an end of central directory record in the last 64 KiB, for zip64 a locator before it pointing
// at the zip64 record, then one central header per entry and one local header before each entry's data.

#include "load/zipreader_p.h"

#include <QIODevice>

#include <zlib.h>

#include <algorithm>
#include <cstring>

namespace jitscope {

namespace {

constexpr quint32 kEndOfDirectory = 0x06054b50;
constexpr quint32 kZip64Locator = 0x07064b50;
constexpr quint32 kZip64End = 0x06064b50;
constexpr quint32 kCentralHeader = 0x02014b50;
constexpr quint32 kLocalHeader = 0x04034b50;

quint16 u16(const char* p)
{
    const auto* b = reinterpret_cast<const unsigned char*>(p);
    return quint16(b[0] | (b[1] << 8));
}

quint32 u32(const char* p)
{
    const auto* b = reinterpret_cast<const unsigned char*>(p);
    return quint32(b[0]) | (quint32(b[1]) << 8) | (quint32(b[2]) << 16) | (quint32(b[3]) << 24);
}

quint64 u64(const char* p)
{
    return quint64(u32(p)) | (quint64(u32(p + 4)) << 32);
}

bool fail(QString* error, const QString& message)
{
    if (error)
        *error = message;
    return false;
}

} // namespace

ZipReader::ZipReader(QIODevice* device)
    : m_device(device)
{ }

bool ZipReader::open(QString* error)
{
    m_entries.clear();
    m_size = m_device->size();
    auto readAt = [&](qint64 offset, qint64 length, QByteArray* out) {
        if (offset < 0 || length < 0 || offset > m_size || length > m_size - offset)
            return false;
        if (!m_device->seek(offset))
            return false;
        *out = m_device->read(length);
        return out->size() == length;
    };
    if (m_size < 22)
        return fail(error, QStringLiteral("not a zip file (%1 bytes, shorter than a zip's end record)").arg(m_size));
    // The end record is the last 22 bytes plus a comment of at most 65535.
    const qint64 tailSize = std::min<qint64>(m_size, 22 + 65535);
    QByteArray tail;
    if (!readAt(m_size - tailSize, tailSize, &tail))
        return fail(error, QStringLiteral("cannot read the end of the file"));
    int end = -1;
    for (int i = int(tail.size()) - 22; i >= 0; --i) {
        if (u32(tail.constData() + i) == kEndOfDirectory) {
            end = i;
            break;
        }
    }
    if (end < 0)
        return fail(error,
            QStringLiteral("not a zip file, or truncated: no end of central directory record in its last %1 bytes")
                .arg(tailSize));
    const char* e = tail.constData() + end;
    const qint64 endOffset = m_size - tailSize + end;
    if (u16(e + 4) != 0 || u16(e + 6) != 0)
        return fail(error, QStringLiteral("a multi-disk (split) zip, which is not read"));
    quint64 count = u16(e + 10);
    quint64 dirSize = u32(e + 12);
    quint64 dirOffset = u32(e + 16);
    if (count == 0xffff || dirSize == 0xffffffffu || dirOffset == 0xffffffffu) {
        // Zip64: the locator lies just before the end record.
        QByteArray locator;
        if (endOffset < 20 || !readAt(endOffset - 20, 20, &locator) || u32(locator.constData()) != kZip64Locator)
            return fail(error, QStringLiteral("corrupt zip: its end record asks for a zip64 record that is not there"));
        const quint64 z64Offset = u64(locator.constData() + 8);
        QByteArray z64;
        if (z64Offset > quint64(m_size) || !readAt(qint64(z64Offset), 56, &z64) || u32(z64.constData()) != kZip64End)
            return fail(error, QStringLiteral("corrupt zip: its zip64 end record is missing or outside the file"));
        count = u64(z64.constData() + 32);
        dirSize = u64(z64.constData() + 40);
        dirOffset = u64(z64.constData() + 48);
    }
    if (count > quint64(MaxEntries))
        return fail(error,
            QStringLiteral("corrupt zip: it declares %1 entries (at most %2 are read)").arg(count).arg(MaxEntries));
    if (dirSize > quint64(MaxDirectorySize))
        return fail(error, QStringLiteral("corrupt zip: its central directory declares %1 bytes").arg(dirSize));
    if (dirOffset > quint64(m_size) || dirSize > quint64(m_size) - dirOffset)
        return fail(error,
            QStringLiteral("truncated or corrupt zip: its central directory (%1 bytes at offset %2) lies outside the "
                           "file's %3 bytes")
                .arg(dirSize)
                .arg(dirOffset)
                .arg(m_size));
    if (count * 46 > dirSize)
        return fail(error,
            QStringLiteral("corrupt zip: %1 entries cannot fit in a central directory of %2 bytes")
                .arg(count)
                .arg(dirSize));
    QByteArray dir;
    if (!readAt(qint64(dirOffset), qint64(dirSize), &dir))
        return fail(error, QStringLiteral("cannot read the zip's central directory"));
    m_entries.reserve(int(count));
    qint64 pos = 0;
    for (quint64 i = 0; i < count; ++i) {
        if (dir.size() - pos < 46 || u32(dir.constData() + pos) != kCentralHeader)
            return fail(error,
                QStringLiteral("corrupt zip: central directory entry %1 of %2 is damaged").arg(i + 1).arg(count));
        const char* h = dir.constData() + pos;
        Entry entry;
        entry.flags = u16(h + 8);
        entry.method = u16(h + 10);
        entry.crc = u32(h + 16);
        entry.compressedSize = u32(h + 20);
        entry.size = u32(h + 24);
        const int nameLength = u16(h + 28);
        const int extraLength = u16(h + 30);
        const int commentLength = u16(h + 32);
        entry.localHeaderOffset = u32(h + 42);
        if (dir.size() - pos - 46 < qint64(nameLength) + extraLength + commentLength)
            return fail(
                error, QStringLiteral("corrupt zip: central directory entry %1 runs past the directory").arg(i + 1));
        entry.name = QString::fromUtf8(h + 46, nameLength);
        // Zip64 sizes and offset, in this order, for the fields set to 0xffffffff.
        const char* extra = h + 46 + nameLength;
        for (int x = 0; x + 4 <= extraLength;) {
            const int id = u16(extra + x);
            const int length = u16(extra + x + 2);
            if (x + 4 + length > extraLength)
                break;
            if (id == 0x0001) {
                const char* f = extra + x + 4;
                int left = length;
                auto take = [&](quint64& field) {
                    if (field != 0xffffffffu)
                        return true;
                    if (left < 8)
                        return false;
                    field = u64(f);
                    f += 8;
                    left -= 8;
                    return true;
                };
                if (!take(entry.size) || !take(entry.compressedSize) || !take(entry.localHeaderOffset))
                    return fail(
                        error, QStringLiteral("corrupt zip: the zip64 field of entry %1 is too short").arg(entry.name));
            }
            x += 4 + length;
        }
        m_entries.push_back(std::move(entry));
        pos += 46 + nameLength + extraLength + commentLength;
    }
    return true;
}

const ZipReader::Entry* ZipReader::find(const QString& name) const
{
    for (const Entry& e : m_entries)
        if (e.name == name)
            return &e;
    return nullptr;
}

std::optional<QByteArray> ZipReader::read(const Entry& entry, qint64 maxSize, QString* error) const
{
    auto failed = [&](const QString& message) -> std::optional<QByteArray> {
        fail(error, QStringLiteral("%1: %2").arg(entry.name, message));
        return std::nullopt;
    };
    if (entry.flags & 0x1)
        return failed(QStringLiteral("encrypted, which is not read"));
    if (entry.method != 0 && entry.method != 8)
        return failed(
            QStringLiteral("compressed with method %1 (only stored and deflated entries are read)").arg(entry.method));
    if (entry.size > quint64(maxSize))
        return failed(QStringLiteral("declares %1 bytes, more than the %2 MiB read of such an entry")
                          .arg(entry.size)
                          .arg(maxSize >> 20));
    // Deflate packs at most 1032 bytes into one: a larger claim is no deflate stream (and would make the reader
    // allocate what the file cannot hold).
    if (entry.method == 8 && (entry.size - std::min<quint64>(entry.size, 1024)) / 1032 > entry.compressedSize)
        return failed(QStringLiteral("declares %1 bytes, more than its %2 deflated bytes can hold")
                          .arg(entry.size)
                          .arg(entry.compressedSize));
    if (entry.method == 0 && entry.compressedSize != entry.size)
        return failed(QStringLiteral("stored, yet declares %1 bytes in the file and %2 bytes of data")
                          .arg(entry.compressedSize)
                          .arg(entry.size));
    if (entry.localHeaderOffset > quint64(m_size) || quint64(m_size) - entry.localHeaderOffset < 30)
        return failed(QStringLiteral("its local header (offset %1) lies outside the file: truncated?")
                          .arg(entry.localHeaderOffset));
    if (!m_device->seek(qint64(entry.localHeaderOffset)))
        return failed(QStringLiteral("cannot seek to its data"));
    const QByteArray local = m_device->read(30);
    if (local.size() != 30 || u32(local.constData()) != kLocalHeader)
        return failed(QStringLiteral("no local header where the central directory says (offset %1)")
                          .arg(entry.localHeaderOffset));
    const quint64 dataOffset = entry.localHeaderOffset + 30 + u16(local.constData() + 26) + u16(local.constData() + 28);
    if (dataOffset > quint64(m_size) || entry.compressedSize > quint64(m_size) - dataOffset)
        return failed(
            QStringLiteral("its %1 bytes of data run past the end of the file: truncated?").arg(entry.compressedSize));
    // The data read is bounded by the file, what it inflates to by the declared size (checked against maxSize).
    if (!m_device->seek(qint64(dataOffset)))
        return failed(QStringLiteral("cannot seek to its data"));
    const QByteArray raw = m_device->read(qint64(entry.compressedSize));
    if (quint64(raw.size()) != entry.compressedSize)
        return failed(QStringLiteral("cannot read its data: truncated?"));
    QByteArray data;
    if (entry.method == 0) {
        data = raw;
    } else {
        data.resize(qsizetype(entry.size));
        z_stream z;
        std::memset(&z, 0, sizeof z);
        if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
            return failed(QStringLiteral("zlib would not start"));
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.constData()));
        z.next_out = reinterpret_cast<Bytef*>(data.data());
        // zlib's counts are 32-bit: feed and drain in pieces.
        quint64 inLeft = quint64(raw.size()), outLeft = entry.size;
        int status = Z_OK;
        while (status == Z_OK) {
            const uInt in = uInt(std::min<quint64>(inLeft, 1u << 30));
            const uInt out = uInt(std::min<quint64>(outLeft, 1u << 30));
            z.avail_in = in;
            z.avail_out = out;
            status = inflate(&z, Z_NO_FLUSH);
            inLeft -= in - z.avail_in;
            outLeft -= out - z.avail_out;
            if (status == Z_OK && z.avail_out == out && z.avail_in == in)
                break; // no progress: out of room or out of input
            if (status == Z_BUF_ERROR)
                break;
        }
        const QString zlibMessage = QString::fromLatin1(z.msg ? z.msg : "truncated");
        inflateEnd(&z);
        if (status != Z_STREAM_END)
            return failed(outLeft == 0 && status != Z_DATA_ERROR
                    ? QStringLiteral("inflates to more than the %1 bytes it declares").arg(entry.size)
                    : QStringLiteral("corrupt deflate data (%1)").arg(zlibMessage));
        if (outLeft != 0)
            return failed(QStringLiteral("inflates to %1 bytes, not the %2 it declares")
                              .arg(entry.size - outLeft)
                              .arg(entry.size));
    }
    const quint32 crc
        = quint32(crc32_z(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(data.constData()), size_t(data.size())));
    if (crc != entry.crc)
        return failed(QStringLiteral("CRC mismatch (the data is corrupt)"));
    return data;
}

} // namespace jitscope
