#pragma once

// Private to core's torch translation units: the node interpreter and the hooks it calls.
// Torch types are only forward-declared here (see load/modelhandle_p.h); the interpreter knows nothing of
// tracing: Python's tracing semantics, provenance, warnings and the debugger are implementations of
// InterpreterHooks (trace/ and execute/debugprobe_p.h).

#include "execute/run.h"

#include <QString>
#include <QVector>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

namespace c10 {
struct IValue;
} // namespace c10

namespace torch {
namespace jit {
struct Block;
struct Graph;
struct Node;
struct Value;
} // namespace jit
} // namespace torch

namespace jitscope {

class InlinedIndex;

/// An error while running a node, with the node's place (the innermost node that failed).
struct NodeError : std::runtime_error
{
    NodeError(const std::string& what, SourceLocation where)
        : std::runtime_error(what)
        , location(std::move(where))
    { }
    SourceLocation location;
};

/// Raised to stop a run (cancel, timeout); carries the message and the node that was running.
struct Interrupted : std::runtime_error
{
    Interrupted(const std::string& what, SourceLocation where = {})
        : std::runtime_error(what)
        , location(std::move(where))
    { }
    SourceLocation location;
};

/// What a hook attaches to a runtime value. It travels with the value wherever the interpreter moves it
/// (blocks, loop-carried values, calls, casts); the interpreter never looks inside.
struct ValueNote
{
    virtual ~ValueNote() = default;
};
using NotePtr = std::shared_ptr<const ValueNote>;

/// The values of the graph invocation that is running, as hooks see them.
class Frame
{
public:
    /// The value of @p v (constants are materialised on first use); throws when it is not defined yet.
    virtual const c10::IValue& value(const torch::jit::Value* v) = 0;
    /// The value bound to @p v, null when none.
    virtual const c10::IValue* find(const torch::jit::Value* v) const = 0;
    /// The note bound with @p v, null when none (or when @p v is not bound).
    virtual const NotePtr& note(const torch::jit::Value* v) const = 0;
    /// Binds @p v (a new binding: it becomes the live value of its variable).
    virtual void bind(const torch::jit::Value* v, c10::IValue value, NotePtr note = {}) = 0;
    /// Replaces the note of a bound value.
    virtual void setNote(const torch::jit::Value* v, NotePtr note) = 0;
    /// Every named variable of the frame with its latest value.
    virtual QVector<NamedValue> liveValues() const = 0;

protected:
    ~Frame() = default;
};

/// Where execution stands; maintained by the interpreter, read by hooks.
struct Position
{
    torch::jit::Node* node = nullptr; ///< the node running (innermost, may be inside a callee)
    /// Its id in the top-level script graph: inside a callee, in the graph with calls inlined when it is indexed so
    /// (Interpreter::indexScriptGraph), else the call node's.
    int scriptNode = -1;
    int depth = 0; ///< graph invocations: 1 while running the function itself
    int blockDepth = 0; ///< loop and if blocks enclosing the node
    QVector<LoopFrame> loops; ///< enclosing loop iterations, outermost first (loopNode -1 where scriptNode is unknown)
    QVector<ExecFrame> frames; ///< outermost first: functions, loop iterations and branches
};

/// What the interpreter calls while it runs. Every method has a do-nothing default.
class InterpreterHooks
{
public:
    virtual ~InterpreterHooks() = default;
    /// Before a node runs (the position is the node's).
    virtual void beforeNode(torch::jit::Node*, Frame&) { }
    /// After a node ran, its outputs bound.
    virtual void afterNode(torch::jit::Node*, Frame&) { }
    /// An operator node (anything but control flow, calls and containers): true when the hook ran it and bound
    /// its outputs; the first hook that does wins, else the interpreter calls the operator.
    virtual bool runOperator(torch::jit::Node*, Frame&) { return false; }
    /// A prim::If whose condition has been evaluated, before the taken block runs.
    virtual void enterBranch(torch::jit::Node*, Frame&, bool /*taken*/) { }
    /// A prim::Loop, before its first iteration.
    virtual void enterLoop(torch::jit::Node*, Frame&) { }
    /// After each pass through a loop's body (its outputs bound in @p frame).
    virtual void loopIteration(torch::jit::Node*, Frame&, int64_t /*iteration*/) { }
    /// After the last iteration, before the loop's outputs are bound.
    virtual void leaveLoop(torch::jit::Node*, Frame&, int64_t /*iterations*/) { }
    /// prim::CallFunction / prim::CallMethod: before the callee runs (@p self: the object, for methods).
    virtual void enterCall(torch::jit::Node*, const c10::IValue* /*self*/) { }
    /// After the callee returned or threw.
    virtual void leaveCall(torch::jit::Node*) { }
    /// A value was bound (every binding: inputs, outputs, block and loop values).
    virtual void bound(const torch::jit::Value*, const c10::IValue&) { }
    /// The order to run a block's nodes in; null for the graph's own order.
    virtual const std::vector<torch::jit::Node*>* blockOrder(torch::jit::Block*) { return nullptr; }
    /// warnings.warn in the program.
    virtual void userWarning(const QString&) { }
};

/// Walks a TorchScript graph node by node over libtorch's operators (not libtorch's GraphExecutor, which runs
/// an optimised copy), calling its hooks. One run at a time; not thread-safe.
class Interpreter
{
public:
    explicit Interpreter(const ExecOptions& options);
    ~Interpreter();
    Interpreter(const Interpreter&) = delete;
    Interpreter& operator=(const Interpreter&) = delete;

    /// Hooks are called in the order added; not owned.
    void addHooks(InterpreterHooks* hooks);

    /// Numbers the top-level graph's nodes the same way the IR snapshot does (depth-first), or, for a model loaded
    /// with calls inlined, by their ids in the inlined snapshot (@p inlinedIds, FunctionInfo::inlinedIds); the
    /// callees' nodes too, with @p inlinedIndex (PreparedRun::inlinedIndex): Position::scriptNode and the loops'
    /// ids are then the inlined graph's inside callees as well.
    void indexScriptGraph(torch::jit::Graph& graph, const QVector<int>& inlinedIds,
        std::shared_ptr<const InlinedIndex> inlinedIndex = {});
    /// The id of @p n in the top-level script graph, -1 for nodes of callees.
    int scriptId(const torch::jit::Node* n) const;
    /// While running: the id of @p n, a node of the graph running now (the function's, or a callee's when indexed
    /// with calls inlined), in the script graph; -1 when unknown.
    int runningId(const torch::jit::Node* n) const;

    /// Runs @p graph on @p inputs (a frame named @p name); @p notes receives the outputs' notes.
    std::vector<c10::IValue> run(torch::jit::Graph& graph, std::vector<c10::IValue> inputs,
        const QString& name = QString(), std::vector<NotePtr>* notes = nullptr);

    const Position& position() const;

    /// Runs a node's operator on its current input values and binds its outputs, as when no hook takes it.
    void runPlain(torch::jit::Node* n, Frame& frame);
    /// Calls a node's operator on @p stack (its inputs; the vararg count is added when the schema needs it).
    void callOperator(torch::jit::Node* n, std::vector<c10::IValue>& stack);
    /// Binds the last outputs().size() values of @p stack to the node's outputs.
    static void storeOutputs(torch::jit::Node* n, Frame& frame, std::vector<c10::IValue>& stack);

    /// Where a node is in the user's code (archives map their printed code back to the original source).
    static SourceLocation locationOf(const torch::jit::Node* n);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace jitscope
