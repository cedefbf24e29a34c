#pragma once

#include "report/modelinfo.h"

#include <QHash>
#include <QString>

namespace jitscope {

/// Where a source location of a model shows in its source text (ModelInfo::source): the line of the source panel.
/// A .py file shows as written; an archive's code/ files are shown one after the other, each after a
/// "# ===== NAME =====" header, so a location's line is offset by where its file starts.
class SourceMap
{
public:
    SourceMap() = default;
    explicit SourceMap(const ModelInfo& model);

    /// The line of the source text that @p location refers to, or 0 when the text does not show that file.
    int lineFor(const SourceLocation& location) const;
    /// The line of @p function's own file that line @p sourceLine of the source text is, or 0 when it belongs to
    /// another file (an archive's other code/ files).
    int fileLineOf(int sourceLine, const SourceLocation& function) const;

private:
    ModelInfo::Kind m_kind = ModelInfo::Kind::PythonSource;
    QString m_path;
    QHash<QString, int> m_archiveFileOffsets; ///< "code/__torch__/x.py" -> line of its header in the source text
};

} // namespace jitscope
