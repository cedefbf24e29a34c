#include "ir/irsnapshot_p.h"
#include "trace/provenancerecorder_p.h"

#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/ir/ir.h>

namespace jitscope {

namespace tj = torch::jit;

ProvenanceRecorder::ProvenanceRecorder(const Interpreter& interpreter)
    : m_interpreter(interpreter)
{ }

ProvenanceRecorder::~ProvenanceRecorder() = default;

void ProvenanceRecorder::onRecordedNode(tj::Node* n)
{
    if (!m_rangeValid) {
        // A distinct (cheap, empty) Source per place, so that trace nodes can be mapped back.
        const Position& position = m_interpreter.position();
        const SourceLocation loc = position.node ? Interpreter::locationOf(position.node) : SourceLocation {};
        auto source = std::make_shared<tj::Source>(
            c10::string_view(""), c10::optional<std::string>(loc.file.toStdString()), size_t(std::max(loc.line, 0)));
        m_places[source.get()] = { position.scriptNode, position.loops };
        m_sources.push_back(source);
        m_range = std::make_unique<tj::SourceRange>(source, 0, 0);
        m_rangeValid = true;
    }
    n->setSourceRange(*m_range);
}

void ProvenanceRecorder::enterBranch(tj::Node* n, Frame&, bool taken)
{
    const int node = m_interpreter.runningId(n);
    if (node >= 0)
        m_branches[node] |= taken ? 1 : 2;
}

void ProvenanceRecorder::decorate(const tj::Node* n, IrNode& node) const
{
    const auto src = n->sourceRange().source();
    if (!src)
        return;
    auto it = m_places.find(src.get());
    if (it == m_places.end())
        return;
    node.originNode = it->second.scriptNode;
    node.loopPath = it->second.loops;
}

IrGraph ProvenanceRecorder::snapshot() const
{
    const auto& state = tj::tracer::getTracingState();
    if (!state)
        return {};
    return snapshotGraph(*state->graph, [this](const tj::Node* n, IrNode& node) { decorate(n, node); });
}

} // namespace jitscope
