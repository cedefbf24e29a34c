#pragma once

// The explainer's shared parts: a cause as each rule names it, and the rule family for traces recorded from Python
// (explainsource.cpp). explainChanges() (check.cpp) is the one entry.

#include "check/check.h"

namespace jitscope {

/// What a rule says made a change: its kind, the sentence, and the line it points at.
struct Cause
{
    DivergenceKind kind = DivergenceKind::Unexplained;
    QString text;
    SourceLocation at;
};

/// How a cause or its evidence names the trace at 0-based @p index of a diff (TraceDiff::base or other): "trace 3".
inline QString traceLabel(int index)
{
    return QStringLiteral("trace %1").arg(index + 1);
}

/// The source rules, for changes whose nodes came from no script (a recorded trace's): each change's location and
/// scope, and its cause from the nodes' Python stacks, the source lines and the traces' warnings.
void explainRecordedChanges(
    TraceDiff& diff, const TraceResult& base, const TraceResult& other, const ExplainContext& context);

/// Where the bridge saw the Python of trace 1's run and of @p other's part (TraceResult::parting): the cause of every
/// change recorded under the function the runs parted in, whichever rules explained it first; other changes keep
/// theirs.
void applyObservedParting(
    TraceDiff& diff, const TraceResult& base, const TraceResult& other, const ExplainContext& context);

} // namespace jitscope
