#pragma once

// What a run gives and how it is asked for, as values: summaries of tensors, the frames and events a debugger sees.

#include "report/inputset.h"
#include "report/irgraph.h"

#include <QString>
#include <QVector>

#include <atomic>
#include <functional>
#include <memory>

namespace jitscope {

/// A short description of a runtime value (an input or an output).
struct ValueSummary
{
    QString kind; ///< tensor, int, float, bool, none, tuple, list, str, other
    QString dtype; ///< tensors: "float32", ...
    QVector<qint64> shape;
    double sum = 0; ///< tensors: sum of the elements as double
    QString text; ///< short printed form
    QVector<ValueSummary> items; ///< tuples and lists
    QString device; ///< tensors
    // Tensor statistics over the finite elements (NaN when there are none).
    double min = 0;
    double max = 0;
    double mean = 0;
    double std = 0;
    qint64 nanCount = 0;
    qint64 infCount = 0;
    QVector<double> preview; ///< the first elements, row-major (at most 64)
    /// A 2-D view for a heat map: the last two dimensions of the first slice, at most 64 x 64 (row-major).
    int sliceRows = 0;
    int sliceColumns = 0;
    QVector<float> slice;
    QString toString() const { return text; }
};

/// One level of where execution stands: the function, and each enclosing loop iteration or branch.
struct ExecFrame
{
    enum class Kind { Function, Loop, Branch };
    Kind kind = Kind::Function;
    QString name; ///< the function or method, or "loop" / "if"
    int line = 0;
    int scriptNode = -1; ///< the loop or if node in the top-level script graph (-1 inside callees)
    int iteration = -1; ///< loops: 0-based
    qint64 iterations = -1; ///< loops: the trip count when known
    int branch = -1; ///< ifs: 0 then, 1 else
};

/// A named runtime value, as a debugger shows it.
struct NamedValue
{
    QString name; ///< the script variable ("result"), or the value's number ("%12")
    ValueSummary value;
};

/// What happens at every node: the debugger pauses here. Called on the executing thread.
struct NodeEvent
{
    int scriptNode = -1; ///< node id in the top-level script graph (the call node while inside a callee)
    int depth = 0; ///< call depth, 0 for the function itself
    int blockDepth = 0; ///< loop and if blocks enclosing the node within its function
    QVector<ExecFrame> frames; ///< outermost first: functions, loop iterations and branches
    QVector<LoopFrame> loopPath;
    SourceLocation location; ///< of the node actually executing (may be inside a callee)
    QString kind;
    bool after = false; ///< false: about to run; true: just ran
    bool breakpoint = false; ///< a before-event at a breakpoint line (once per line and loop iteration)
    /// With ExecOptions::summarizeValues: after-events carry the node's outputs, breakpoint events every
    /// named value live in the frame.
    QVector<NamedValue> values;
    /// Callable only during the observer call (the frame is alive then): every named value live in the frame.
    std::function<QVector<NamedValue>()> liveValues;
    /// Callable only during the observer call, when tracing: the trace recorded so far, each node with the
    /// script node and loop iterations that recorded it (IrNode::originNode, loopPath), as in a finished trace.
    std::function<IrGraph()> traceSoFar;
};

struct ExecOptions
{
    quint64 seed = 0; ///< torch.manual_seed before creating the inputs
    qint64 maxMemory = qint64(2) << 30; ///< input sets larger than this are refused before allocating
    int timeoutMs = 0; ///< 0: no limit
    const std::atomic<bool>* cancel = nullptr; ///< checked before every node
    std::function<void(const NodeEvent&)> observer; ///< optional, called before and after every node
    bool strict = true; ///< torch.jit.trace's strict: false allows mutable containers (dicts, lists) as outputs
    /// Autograd on while tracing, as torch.jit.trace traces; its check traces the check inputs under
    /// torch.no_grad() (_check_trace), where code that asks torch.is_grad_enabled() can take another path
    /// (nn.MultiheadAttention's fast path).
    bool gradEnabled = true;
    bool summarizeValues = false; ///< fill NodeEvent::values (costs a summary per value)
    bool simulateCleanupFailure = false; ///< for tests: behave as if the tracer's cleanup passes failed
    QVector<int> breakLines; ///< source lines of the function's file where events are marked as breakpoints
    /// The arguments as torch.save wrote them (a tuple, or one value), instead of the input set's (a recorded
    /// Python call's check input, which JitScope's SET syntax cannot describe exactly).
    QString inputsFile;
};

struct RunResult
{
    bool ok = false;
    Diagnostic error;
    InputSet inputs;
    QVector<ValueSummary> outputs;
};

} // namespace jitscope
