#pragma once

#include "report/checkreport.h"
#include "report/marks.h"

#include <QHash>
#include <QString>
#include <QVector>

namespace jitscope {

/// Two graphs of a check side by side: the changes between them, the status of every changed node on each side
/// (the one id-to-status map both scenes of the compare view read) and the pairing of the nodes they share.
struct Comparison
{
    static constexpr int Script = -1; ///< a side showing the script graph instead of a trace

    int left = 0; ///< trace index, or Script
    int right = 0;
    /// left = base, right = other. Empty when a side is the script, a failed trace, or both sides are the same.
    TraceDiff diff;
    QHash<int, DiffStatus> leftStatus; ///< by node id of the left graph; missing = unchanged
    QHash<int, DiffStatus> rightStatus;
    QHash<int, int> leftToRight; ///< unchanged and changed nodes, paired in order
    QHash<int, int> rightToLeft;

    bool isTracePair() const { return left >= 0 && right >= 0 && left != right; }
    int count(NodeChange::Op op) const;

    /// Compares graphs @p left and @p right of @p report. Trace pairs read the report's diff of that pair
    /// (CheckReport::diffBetween(): the engine diffed, explained and grouped every pair), reversed when recorded
    /// the other way round.
    static Comparison between(const CheckReport& report, int left, int right);
};

} // namespace jitscope
