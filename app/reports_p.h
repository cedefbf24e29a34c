#pragma once

// What the check reports of app/reports_*.cpp share: why a set fails, what it came to, where a place is.

#include "reports.h"

#include <QString>
#include <QStringList>

namespace jitscope::reports {

/// "file.py:12", empty for no place.
QString shortWhere(const SourceLocation& l);
/// The divergences' messages of a diff, in order.
QStringList causes(const TraceDiff& d);
/// The diff of trace @p trace against trace 1, or null.
const TraceDiff* diffOf(const CheckReport& r, int trace);
/// Why set @p k (0-based, k >= 1) fails, or empty when it passes.
QString failureMessage(const CheckReport& r, int k, const QString& reference);
/// What a set came to, in a table row of the Markdown and HTML reports.
QString setResult(const CheckReport& r, int k, const QString& reference);
/// What the exported program did on a set, in words: "passes", "fails a guard", "outputs differ", "raises", "-"
/// (not run: the export failed).
QString exportResult(const ExportSetRow& row);
/// A finding of a failed export in a line: "[data-dependent] ... at boxes.py:103 (from model.py:12): `expr`".
QString exportFindingLine(const ExportFinding& f);

} // namespace jitscope::reports
