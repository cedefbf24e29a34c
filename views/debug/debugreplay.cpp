// Debugging where trace 1 fails, as torch.jit.trace's check runs it: the set it fails on, the replay started there,
// and the check's account of the failure above the replay.

#include "debuguicontroller.h"

#include "checkcontroller.h"
#include "debugcontroller.h"
#include "documentcontroller.h"
#include "graphpage.h"
#include "livetracetab.h"

#include <QTabWidget>

namespace jitscope {

bool DebugUiController::traceFailsOn(int set) const
{
    if (!m_check->hasReport())
        return false;
    // A recorded Python call's trace is not in the engine's model: the bridge saved it where it failed.
    if (m_check->source().isRecordedCall())
        return m_savedReplay && m_savedReplay(set).has_value();
    const CheckReport& report = m_check->report();
    if (set <= 0 || set >= report.traces.size() || set - 1 >= report.outputs.size() || !report.traces.first().ok)
        return false;
    // Trace 1 fails on the set, or raises nothing but computes other values than the script function.
    const OutputCheck& out = report.outputs.at(set - 1);
    return out.failure.isValid() || (out.values.present && out.values.error.isEmpty() && out.values.node >= 0);
}

int DebugUiController::failingSet() const
{
    const int sets = m_check->hasReport() ? int(m_check->report().traces.size()) : 0;
    // A set trace 1 raises on first, else one where it computes other values.
    int otherValues = -1;
    for (int k = 1; k < sets; ++k) {
        if (!traceFailsOn(k))
            continue;
        const bool raises = m_check->source().isRecordedCall() || m_check->report().outputs.at(k - 1).failure.isValid();
        if (raises)
            return k;
        if (otherValues < 0)
            otherValues = k;
    }
    return otherValues;
}

bool DebugUiController::debugTraceFailure(int set)
{
    if (set < 0)
        set = failingSet();
    if (!traceFailsOn(set)) {
        Q_EMIT statusMessage(!m_check->hasReport() ? tr("Run the check first: it finds where trace 1 fails")
                : m_check->source().isRecordedCall()
                ? tr("PyTorch's trace 1 was not saved for a set it fails on: nothing to run node by node")
                : tr("Trace 1 runs on every input set of the check: nothing fails to debug"));
        return false;
    }
    if (m_debugger->state() == DebugController::State::Stopping)
        return false;
    const CheckReport* report = &m_check->report();
    const InputSet& recordedOn = report->traces.first().inputs;
    const InputSet& runOn = report->traces.at(set).inputs;
    DebugTarget target { report->function, runOn, false, recordedOn };
    if (m_check->source().isRecordedCall()) {
        target = *m_savedReplay(set);
        target.function = report->function;
    } else if (const OutputCheck& out = report->outputs.at(set - 1); !out.failure.isValid()) {
        // It raises nothing there: stop before the first node whose value the script function never computes.
        target.stopBefore(report->traces.first().graph, out.values.node, out.values.message);
    }
    const QString title = tr("Trace 1 on set %1").arg(set + 1);
    m_live->beginReplay(title,
        tr("Trace 1 of %1 (recorded on %2) run on input set %3 (%4), as torch.jit.trace's check runs it")
            .arg(report->function, recordedOn.toString())
            .arg(set + 1)
            .arg(runOn.toString()));
    m_parts.tabs->setCurrentWidget(m_live->page());
    // Continue at the first pause: the session breaks before the failing node by itself.
    m_hasPendingCommand = true;
    m_pendingCommand = DebugCommand::Continue;
    m_pendingLine = 0;
    startTarget(
        target, tr("Running trace 1 of %1 on input set %2 to where it fails\u2026").arg(report->function).arg(set + 1));
    return true;
}

namespace {

/// How many nodes of @p node's kind come before it in @p g: the same node in a trace saved and loaded again, where
/// constants and attribute reads are numbered differently.
int ordinalOfKind(const IrGraph& g, int node)
{
    int n = 0;
    for (int i = 0; i < node && i < g.nodes.size(); ++i)
        n += g.nodes.at(i).kind == g.nodes.at(node).kind;
    return n;
}

} // namespace

const TraceFailure* DebugUiController::checkedFailure(const DebugPause& pause) const
{
    if (pause.failureNode < 0 || !m_check->hasReport())
        return nullptr;
    const CheckReport& report = m_check->report();
    if (report.function != m_debugger->function() || report.traces.isEmpty())
        return nullptr;
    for (int k = 0; k < report.outputs.size() && k + 1 < report.traces.size(); ++k) {
        const TraceFailure& f = report.outputs.at(k).failure;
        const IrGraph& trace1 = report.traces.first().graph;
        // The same set, and the same node of the same trace (its kind and line, not only its number).
        if (report.traces.at(k + 1).inputs.toString() == m_debugger->inputs().toString() && f.isValid()
            && f.node < trace1.nodes.size() && pause.failureNode < pause.traceSoFar.nodes.size()
            && trace1.node(f.node).kind == pause.traceSoFar.node(pause.failureNode).kind
            && ordinalOfKind(trace1, f.node) == ordinalOfKind(pause.traceSoFar, pause.failureNode))
            return &f;
    }
    return nullptr;
}

QString DebugUiController::replayHeader(const DebugPause& pause) const
{
    const QString set = m_debugger->inputs().toString().toHtmlEscaped();
    const NodeEvent& e = pause.event;
    const int line = m_document->sourceLineFor(e.location);
    const QString at = line > 0 ? tr(" at line %1").arg(line) : QString();
    const QString red = QStringLiteral("#cf222e");
    if (pause.failureNode < 0)
        return tr("<b>Trace 1 on %1</b> \u00b7 runs on this set \u00b7 paused before %2%3")
            .arg(set, e.kind.toHtmlEscaped(), at);
    QString text;
    if (pause.finished || pause.atFailure) {
        const IrNode* node
            = pause.failureNode < pause.traceSoFar.nodes.size() ? &pause.traceSoFar.node(pause.failureNode) : nullptr;
        const int failLine = node ? m_document->sourceLineFor(node->location) : 0;
        text
            = tr("<b>Trace 1 on %1</b> \u00b7 <span style='color:%2'><b>%3%4 %5</b>: %6</span>")
                  .arg(set, red, node ? node->kind.toHtmlEscaped() : tr("a node"),
                      failLine > 0 ? tr(" at line %1").arg(failLine) : QString(),
                      pause.finished ? tr("failed") : tr("fails here"), elidedText(pause.failure, 240).toHtmlEscaped());
        // Where each operand came from, as the check found it (a constant trace 1 baked in, an input).
        if (const TraceFailure* f = checkedFailure(pause); f && !f->operands.isEmpty()) {
            QStringList items;
            for (const QString& op : f->operands)
                items << QStringLiteral("<li>%1</li>").arg(elidedText(op, 220).toHtmlEscaped());
            text += tr("<br>Operands:<ul style='margin:0'>%1</ul>").arg(items.join(QString()));
        }
        return text;
    }
    return tr("<b>Trace 1 on %1</b> \u00b7 paused before %2%3 \u00b7 <span style='color:%4'>fails later at node "
              "%5: %6</span> (F5 runs to it)")
        .arg(set, e.kind.toHtmlEscaped(), at, red)
        .arg(pause.failureNode)
        .arg(elidedText(pause.failure, 160).toHtmlEscaped());
}

} // namespace jitscope
