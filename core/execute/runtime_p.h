#pragma once

// Private to core's torch translation units: what a run needs around the interpreter (the function resolved and
// its inputs made, value summaries) and the debugger probe. Torch types only forward-declared.

#include "execute/interpreter_p.h"

#include <functional>
#include <memory>
#include <vector>

namespace torch {
namespace jit {
struct Function;
struct Module;
} // namespace jit
} // namespace torch

namespace jitscope {

class MemoryBudget;

/// The inputs of an input set, made after torch.manual_seed(@p seed) in argument order, exactly as
/// tests/oracle/inputsets.py makes them in Python.
std::vector<c10::IValue> makeInputs(const InputSet& set, quint64 seed);

/// The arguments torch.save wrote to @p path (a tuple of them, or one value); empty with @p error set when the file
/// cannot be read.
std::vector<c10::IValue> loadSavedInputs(const QString& path, QString* error);

/// A short description of a value (statistics computed with tracing paused: nothing is recorded).
ValueSummary summarize(const c10::IValue& value);

/// The function of a run resolved, its input set validated and the inputs created.
struct PreparedRun
{
    torch::jit::Function* fn = nullptr;
    std::shared_ptr<torch::jit::Module> self; ///< the module, for a method
    std::vector<c10::IValue> inputs;
    std::vector<c10::IValue> defaults; ///< values of trailing arguments the input set leaves to their defaults
    QVector<int> inlinedIds; ///< FunctionInfo::inlinedIds
    /// Where the callees' nodes are in FunctionInfo::graph, when it has the calls inlined
    /// (Interpreter::indexScriptGraph).
    std::shared_ptr<const InlinedIndex> inlinedIndex;
    const IrGraph* scriptGraph = nullptr; ///< FunctionInfo::graph
    QString error;
    int errorLine = 0;
    /// --max-memory for the inputs and everything the run allocates, from before the inputs are made until the
    /// run ends (memorybudget_p.h).
    std::shared_ptr<MemoryBudget> budget;

    /// The script function's arguments for one run: a fresh copy of the module (a run may change its state, and
    /// runs of one model overlap), @p values, then the defaults the input set leaves out.
    std::vector<c10::IValue> arguments(std::vector<c10::IValue> values) const;
    /// A deep copy of the inputs, for one of several runs on them (as torch.jit.trace's check clones them per run).
    std::vector<c10::IValue> clonedInputs() const;
};

/// Resolves @p function of @p model and creates the inputs. Holds the model's lock only while it resolves
/// (compiled code initialises schemas and operators lazily): the run itself needs no lock.
PreparedRun prepareRun(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options);

/// A diagnostic in @p model's file (at @p where when valid).
Diagnostic errorAt(const ModelInfo& model, const QString& message, const SourceLocation& where = {});

/// Remembers the node about to run and its operands' values, so that a run that fails can say where and on what.
class FailureWatch : public InterpreterHooks
{
public:
    void beforeNode(torch::jit::Node* n, Frame& frame) override;
    torch::jit::Node* node = nullptr; ///< the last node that started
    QStringList operands; ///< its inputs' values (ValueSummary text), by position
};

/// Inside a catch block of a run: the diagnostic for the exception being handled (an interrupt or a node's error at
/// its place, any other at @p model's file).
Diagnostic runError(const ModelInfo& model);

/// The debugger's hooks: a NodeEvent before and after every node, for ExecOptions::observer.
class DebuggerProbe : public InterpreterHooks
{
public:
    DebuggerProbe(const Interpreter& interpreter, const ExecOptions& options);

    /// While tracing: what NodeEvent::traceSoFar returns.
    void setTraceSnapshot(std::function<IrGraph()> snapshot) { m_traceSnapshot = std::move(snapshot); }

    void beforeNode(torch::jit::Node* n, Frame& frame) override { notify(n, false, frame); }
    void afterNode(torch::jit::Node* n, Frame& frame) override { notify(n, true, frame); }

private:
    void notify(torch::jit::Node* n, bool after, Frame& frame);

    const Interpreter& m_interpreter;
    const ExecOptions& m_options;
    std::function<IrGraph()> m_traceSnapshot;
    QString m_lastBreak;
};

} // namespace jitscope
