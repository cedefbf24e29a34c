#pragma once

#include "check/check.h"
#include "load/model.h"

#include <QByteArray>
#include <QString>
#include <QVector>

namespace jitscope {

/// A check report as CI systems and reviewers read it (`jitscope-cli check --format junit|markdown|html`).
struct ReportInput
{
    const ModelInfo* model = nullptr;
    const CheckReport* report = nullptr;
    QVector<InputSet> sets;
    QString htmlReport; ///< markdown: where the HTML report is, for the pointer at the end (empty: none)
};

/// JUnit XML: one <testsuite> for the checked function, one <testcase> per input set, a <failure> for each set that
/// diverged or whose outputs mismatch (message: the cause; text: the divergences with node and file:line), the
/// warnings as <system-out>.
QByteArray junitReport(const ReportInput& in);

/// A short summary for a pull-request comment: verdict, a table of divergences with causes and lines, warnings.
QByteArray markdownReport(const ReportInput& in);

/// One self-contained HTML page (no scripts, nothing from the network): the verdict, each trace graph as inline
/// SVG with inserted / deleted / changed nodes coloured as in the window, the divergences with their causes linked
/// to the numbered source, the warnings and the output comparison. Printable.
QByteArray htmlReport(const ReportInput& in);

} // namespace jitscope
