#pragma once

// Two traces compared: node changes and the divergences that explain them, as values.

#include "report/irgraph.h"

#include <QHash>
#include <QString>
#include <QVector>

namespace jitscope {

/// What made two traces differ: the kinds of Divergence. Names and titles in one table (tracediff.cpp).
enum class DivergenceKind {
    LoopUnrolled, ///< a loop unrolled a different number of times (its trip count came from a shape or data)
    BranchFrozen, ///< a branch frozen by a tensor-to-bool conversion or a shape comparison
    NumberBaked, ///< a Python number baked in as a constant (len, int(...), .item(), .tolist(), a size)
    TensorConstant, ///< a tensor constant baked in with different values (torch.tensor, as_tensor, a cached tensor)
    ModuleState, ///< the model changed between calls: the first input set traced again records another graph
    /// The same graph (or not), other numbers: the first value where trace 1 and the Python code part ways on a set
    /// whose outputs differ, and why (a size computed differently, a baked constant, a random op, a fast path)
    Value,
    Unexplained, ///< no cause found: kept with its nodes, never dropped
};

/// "loop-unrolled", "branch-frozen", "number-baked", "tensor-constant", "module-state", "value", "unexplained".
QString divergenceKindName(DivergenceKind kind);
bool divergenceKindFromName(const QString& name, DivergenceKind* kind);
/// "Loop unrolled differently", ... (list headers).
QString divergenceKindTitle(DivergenceKind kind);

/// One difference between two traces, node by node.
struct NodeChange
{
    enum class Op { Insert, Delete, Change };
    Op op = Op::Change;
    int baseNode = -1; ///< node in the base trace (Delete, Change)
    int otherNode = -1; ///< node in the other trace (Insert, Change)
    int scriptNode = -1; ///< script node that recorded it
    SourceLocation location; ///< the node's own line
    QString cause; ///< why the traces differ here (its divergence's message)
    DivergenceKind kind = DivergenceKind::Unexplained;
    /// Where the cause is (the loop's header, the branch's condition, the line that baked a value): with the kind,
    /// what groups changes into one Divergence. Unset: the node's own line.
    SourceLocation causeAt;
    QString scope; ///< the changed node's module path ("rpn.head"), empty for the top module
    int divergence = -1; ///< its TraceDiff::divergences index
};

QString nodeChangeOpName(NodeChange::Op op);

/// One cause of a diff with every node change it explains: what `check` lists instead of a row per node.
/// One value of a value divergence in both runs, side by side: what it is ("aten::upsample_linear1d",
/// "operand 1"), trace 1's and the other run's (empty where that run has none).
struct ValueRow
{
    QString what;
    QString trace;
    QString other;
    bool operator==(const ValueRow& o) const { return what == o.what && trace == o.trace && other == o.other; }
};

/// Where the Python of two runs of a traced call went different ways, observed by the bridge's line tracer during a
/// re-trace of both input sets (jitscope_bridge_parting.py): the last line both ran before their paths parted.
struct ObservedParting
{
    bool present = false;
    SourceLocation location; ///< the line (column 0)
    QString function;
    /// "if", "early-return", "continue", "break", "loop", "conditional-expression", "assert", "exception", "other"
    QString statement;
    QString text; ///< the line's source, stripped
    QString condition; ///< the statement's condition (a loop's iterable) as written
    QString firstValues; ///< the condition with its operands' values in trace 1's run (`257 == 197`)
    QString otherValues; ///< and in the other trace's run
    QVector<ValueRow> operands; ///< each operand (what), its value in trace 1's run (trace) and the other's (other)
    int firstIterations = -1; ///< a loop: its iterations in trace 1's run, -1 unknown
    int otherIterations = -1;
    QVector<SourceLocation> stack; ///< innermost first: the line, then the observed frames' call lines outward
};

struct Divergence
{
    DivergenceKind kind = DivergenceKind::Unexplained;
    QString message; ///< one line
    QString scope; ///< the module it happens in ("model.rpn.head"), empty for the top module
    QString scopeType; ///< that module's class, when known ("RPNHead")
    SourceLocation location; ///< the Python line of the cause
    QVector<SourceLocation> stack; ///< innermost first, down to the user's line (recorded Python traces)
    QVector<int> changes; ///< TraceDiff::changes indices, in order
    QVector<int> baseNodes; ///< the nodes it covers in the base trace
    QVector<int> otherNodes; ///< and in the other
    QStringList evidence; ///< the warnings PyTorch raised there, the values each trace baked, ...
    /// Kind value: the node's value and its operands' in trace 1 and in the other run (@p otherRun: "Python", "the
    /// script function"), the Values panel's view of both runs at the node.
    QString otherRun;
    QVector<ValueRow> values;
    /// Where the two runs' Python was seen to part (a recorded call's trace 1 against trace k): the cause is
    /// observed, not inferred from the graphs.
    ObservedParting observed;
};

struct TraceDiff
{
    int base = 0; ///< index of the base trace (the first input set)
    int other = 0;
    bool equal = true;
    QVector<NodeChange> changes;
    QVector<Divergence> divergences; ///< the changes grouped by cause, in the order of their first change
};

/// For every node a change of a diff covers, the change's index: of the base trace's nodes and of the other's.
struct ChangesByNode
{
    QHash<int, int> base;
    QHash<int, int> other;
};
ChangesByNode changesByNode(const TraceDiff& diff);

} // namespace jitscope
