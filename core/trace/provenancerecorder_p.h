#pragma once

// Private to trace/: which script node and loop iterations recorded each trace node.

#include "execute/interpreter_p.h"

#include <memory>
#include <unordered_map>
#include <vector>

namespace torch {
namespace jit {
struct Source;
struct SourceRange;
} // namespace jit
} // namespace torch

namespace jitscope {

/// Gives every node libtorch's tracer records a source range of its own per place the interpreter stands
/// (script node and loop iterations), and maps the trace's nodes back to those places: for the finished trace
/// and for the snapshots a debugger takes while it runs.
class ProvenanceRecorder : public InterpreterHooks
{
public:
    explicit ProvenanceRecorder(const Interpreter& interpreter);
    ~ProvenanceRecorder() override;

    void beforeNode(torch::jit::Node*, Frame&) override { m_rangeValid = false; }
    void afterNode(torch::jit::Node*, Frame&) override { m_rangeValid = false; }
    void enterBranch(torch::jit::Node*, Frame&, bool taken) override;

    /// Which blocks each script prim::If took (TraceResult::branches).
    const QHash<int, int>& branches() const { return m_branches; }

    /// For libtorch's tracer (tracer::setRecordSourceLocation): called for every node it records.
    void onRecordedNode(torch::jit::Node* n);
    /// Sets IrNode::originNode and loopPath of a recorded node (snapshotGraph's decorate).
    void decorate(const torch::jit::Node* n, IrNode& node) const;
    /// The trace recorded so far on this thread, decorated; empty when not tracing.
    IrGraph snapshot() const;

private:
    struct Place
    {
        int scriptNode = -1;
        QVector<LoopFrame> loops;
    };

    const Interpreter& m_interpreter;
    bool m_rangeValid = false;
    std::unique_ptr<torch::jit::SourceRange> m_range;
    std::vector<std::shared_ptr<torch::jit::Source>> m_sources;
    std::unordered_map<const torch::jit::Source*, Place> m_places;
    QHash<int, int> m_branches;
};

} // namespace jitscope
