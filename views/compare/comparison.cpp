#include "comparison.h"
#include "report/reportqueries.h"

#include <QSet>

namespace jitscope {

int Comparison::count(NodeChange::Op op) const
{
    int n = 0;
    for (const NodeChange& c : diff.changes)
        n += c.op == op ? 1 : 0;
    return n;
}

namespace {

bool traceUsable(const CheckReport& report, int index)
{
    return index >= 0 && index < report.traces.size() && report.traces.at(index).ok;
}

} // namespace

Comparison Comparison::between(const CheckReport& report, int left, int right)
{
    Comparison c;
    c.left = left;
    c.right = right;
    c.diff.base = left;
    c.diff.other = right;
    if (!c.isTracePair() || !traceUsable(report, left) || !traceUsable(report, right))
        return c;

    // The engine diffed and explained every pair (CheckReport::diffs and pairDiffs): read, never diffed here.
    const TraceDiff* d = report.diffBetween(left, right);
    if (!d)
        return c;
    c.diff = d->base == left ? *d : reversedDiff(*d);
    const TraceResult& base = report.traces.at(left);
    const TraceResult& other = report.traces.at(right);

    QSet<int> changedLeft, changedRight;
    for (const NodeChange& change : std::as_const(c.diff.changes)) {
        switch (change.op) {
        case NodeChange::Op::Insert:
            c.rightStatus.insert(change.otherNode, DiffStatus::Inserted);
            changedRight.insert(change.otherNode);
            break;
        case NodeChange::Op::Delete:
            c.leftStatus.insert(change.baseNode, DiffStatus::Deleted);
            changedLeft.insert(change.baseNode);
            break;
        case NodeChange::Op::Change:
            c.leftStatus.insert(change.baseNode, DiffStatus::Changed);
            c.rightStatus.insert(change.otherNode, DiffStatus::Changed);
            changedLeft.insert(change.baseNode);
            changedRight.insert(change.otherNode);
            c.leftToRight.insert(change.baseNode, change.otherNode);
            c.rightToLeft.insert(change.otherNode, change.baseNode);
            break;
        }
    }
    // What the edit script leaves out of both sequences is their common subsequence: pair it in order.
    QVector<int> commonLeft, commonRight;
    for (int id : base.graph.top.nodes) {
        if (!changedLeft.contains(id))
            commonLeft.append(id);
    }
    for (int id : other.graph.top.nodes) {
        if (!changedRight.contains(id))
            commonRight.append(id);
    }
    for (int i = 0; i < qMin(commonLeft.size(), commonRight.size()); ++i) {
        c.leftToRight.insert(commonLeft.at(i), commonRight.at(i));
        c.rightToLeft.insert(commonRight.at(i), commonLeft.at(i));
    }
    return c;
}

} // namespace jitscope
