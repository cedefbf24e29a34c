#pragma once

// Private to core's torch translation units: where inlining put the nodes of a function's callees. Torch types are
// only forward-declared.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace torch {
namespace jit {
struct Function;
struct Graph;
struct Node;
} // namespace jit
} // namespace torch

namespace jitscope {

/// A function's graph with its calls inlined (FunctionInfo::graph) numbers the nodes of every callee inlined into
/// it; a run walks the callees' own graphs instead. This index finds, for a node of a callee reached through a
/// chain of calls, its id in the inlined graph: inlining copies each callee node with its source range and kind,
/// and gives it the chain of calls it came through (the call stack: each callee and the range of its call), which
/// a run knows as it goes. Immutable once built; shared by the runs of the function.
class InlinedIndex
{
public:
    /// One call of a chain: the function called and its call node's source range.
    struct Site
    {
        const void* function = nullptr;
        const void* source = nullptr;
        size_t start = 0;
        size_t end = 0;

        bool operator<(const Site& o) const
        {
            return std::tie(function, source, start, end) < std::tie(o.function, o.source, o.start, o.end);
        }
        bool operator==(const Site& o) const
        {
            return function == o.function && source == o.source && start == o.start && end == o.end;
        }
    };
    using Chain = std::vector<Site>;

    /// The callee nodes of @p inlined (a copy of the function's graph after torch::jit::Inline), numbered in the
    /// order the snapshot numbers them; @p own tells the function's own nodes, which are not callee nodes.
    InlinedIndex(torch::jit::Graph& inlined, const std::function<bool(const torch::jit::Node*)>& own);

    /// The chain one call deeper than @p chain: @p function called by @p call.
    static Chain deeper(const Chain& chain, const torch::jit::Function& function, const torch::jit::Node* call);

    /// For each node of @p callee (the graph of the last function of @p chain, walked as forEachNode does), its id
    /// in the inlined graph; nodes inlining dropped (and the calls it replaced) are left out.
    std::unordered_map<const torch::jit::Node*, int> idsOf(const Chain& chain, torch::jit::Graph& callee) const;

    bool isEmpty() const { return m_nodes.empty(); }

private:
    struct Key
    {
        const void* source = nullptr;
        size_t start = 0;
        size_t end = 0;
        uint32_t kind = 0;

        bool operator<(const Key& o) const
        {
            return std::tie(source, start, end, kind) < std::tie(o.source, o.start, o.end, o.kind);
        }
    };
    static Key keyOf(const torch::jit::Node* n);

    /// Per chain, per key, the ids of the nodes inlined through it, in graph order.
    std::map<Chain, std::map<Key, std::vector<int>>> m_nodes;
};

} // namespace jitscope
