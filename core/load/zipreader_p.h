#pragma once

// A zip reader for files JitScope does not trust (.pt2 packages): every offset, size and count of the central
// directory is checked against the file before it is used, an entry is read only up to a limit the caller gives,
// and a deflated entry is inflated into at most its declared size. Stored and deflated entries (zlib); zip64
// records; no encryption, no multi-disk archives. No libtorch: the fuzz target fuzz_pt2 compiles it. Private to
// core/load.

#include <QByteArray>
#include <QString>
#include <QVector>

#include <optional>

class QIODevice;

namespace jitscope {

class ZipReader
{
public:
    struct Entry
    {
        QString name;
        quint64 compressedSize = 0;
        quint64 size = 0; ///< uncompressed, as the central directory declares it
        quint64 localHeaderOffset = 0;
        quint16 method = 0; ///< 0 stored, 8 deflated
        quint16 flags = 0;
        quint32 crc = 0;
    };

    /// Reads from @p device, open for reading and seekable, which must outlive the reader.
    explicit ZipReader(QIODevice* device);

    /// Reads the central directory. False with *error ("not a zip file (no end of central directory record)",
    /// "truncated: ...") when it cannot be read.
    bool open(QString* error);

    const QVector<Entry>& entries() const { return m_entries; }
    const Entry* find(const QString& name) const;

    /// The entry's contents, checked against its CRC. Empty with *error when it declares more than @p maxSize
    /// bytes, when its data lies outside the file, or when it does not inflate to its declared size.
    std::optional<QByteArray> read(const Entry& entry, qint64 maxSize, QString* error) const;

    /// At most this many entries and this large a central directory: what no .pt2 comes near.
    static constexpr int MaxEntries = 1000000;
    static constexpr qint64 MaxDirectorySize = 256LL * 1024 * 1024;

private:
    QIODevice* m_device;
    qint64 m_size = 0;
    QVector<Entry> m_entries;
};

} // namespace jitscope
