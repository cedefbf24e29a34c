#include "report/sourcemap.h"

#include <QDir>
#include <QRegularExpression>

namespace jitscope {

SourceMap::SourceMap(const ModelInfo& model)
    : m_kind(model.kind)
    , m_path(model.path)
{
    if (m_kind == ModelInfo::Kind::PythonSource)
        return;
    static const QRegularExpression header(QStringLiteral("^# ===== (.*) =====$"));
    const QStringList lines = model.source.split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size(); ++i) {
        const QRegularExpressionMatch match = header.match(lines.at(i));
        if (!match.hasMatch())
            continue;
        const QString record = match.captured(1);
        const int code = int(record.indexOf(QLatin1String("code/")));
        // Line 1 of the file is the line after the header, which is line i + 1 (1-based) of the source. An
        // exported program's sections are the source files its stack traces name, by their path.
        const bool archive = m_kind == ModelInfo::Kind::Archive;
        m_archiveFileOffsets.insert(archive && code >= 0 ? record.mid(code) : record, i + 1);
    }
}

int SourceMap::lineFor(const SourceLocation& location) const
{
    if (!location.isValid())
        return 0;
    if (m_kind == ModelInfo::Kind::PythonSource) {
        // Nodes inlined from library code (torch/nn/functional.py, ...) point outside the user's file.
        if (location.file.isEmpty())
            return location.line;
        const QString file = QDir::cleanPath(location.file);
        const QString path = QDir::cleanPath(m_path);
        return file == path || path.endsWith(QLatin1Char('/') + file) ? location.line : 0;
    }
    if (m_kind == ModelInfo::Kind::ExportedProgram) {
        const auto offset = m_archiveFileOffsets.constFind(location.file);
        return offset == m_archiveFileOffsets.constEnd() ? 0 : offset.value() + location.line;
    }
    const int code = int(location.file.indexOf(QLatin1String("code/")));
    if (code < 0)
        return 0;
    const auto offset = m_archiveFileOffsets.constFind(location.file.mid(code));
    return offset == m_archiveFileOffsets.constEnd() ? 0 : offset.value() + location.line;
}

int SourceMap::fileLineOf(int sourceLine, const SourceLocation& function) const
{
    if (sourceLine <= 0)
        return 0;
    if (m_kind == ModelInfo::Kind::PythonSource)
        return sourceLine;
    if (m_kind == ModelInfo::Kind::ExportedProgram)
        return 0; // never run: no breakpoints
    // Archives: the line must be in the function's file.
    const int code = int(function.file.indexOf(QLatin1String("code/")));
    const auto offset = m_archiveFileOffsets.constFind(function.file.mid(qMax(0, code)));
    if (code < 0 || offset == m_archiveFileOffsets.constEnd() || sourceLine <= offset.value())
        return 0;
    for (auto it = m_archiveFileOffsets.cbegin(); it != m_archiveFileOffsets.cend(); ++it) {
        if (it.value() > offset.value() && it.value() < sourceLine)
            return 0; // another file's header comes first
    }
    return sourceLine - offset.value();
}

} // namespace jitscope
