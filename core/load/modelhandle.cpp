// ModelHandle, core's hold on a loaded model's compiled code: finding a function by its qualified name, and
// inlining its calls (inlineFunction(), and snapshotOf() that the loaders use to snapshot a graph with calls
// inlined, as fn.inlined_graph shows it). One of the few translation units that include libtorch.

#include "ir/irsnapshot_p.h"
#include "ir/torcherror_p.h"
#include "load/inlinedindex_p.h"
#include "load/loader_p.h"
#include "load/model.h"
#include "load/modelhandle_p.h"

#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/ir/scope.h>
#include <torch/csrc/jit/passes/inliner.h>

#include <mutex>

namespace jitscope {

namespace tj = torch::jit;

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

ModelHandle::ModelHandle() = default;
ModelHandle::~ModelHandle() = default;

tj::Function* ModelHandle::find(const QString& name, std::optional<tj::Module>* owner)
{
    if (!module) {
        if (owner)
            owner->reset();
        return functions.value(name, nullptr);
    }
    const QStringList parts = name.split(QLatin1Char('.'));
    tj::Module m = *module;
    for (int i = 0; i + 1 < parts.size(); ++i) {
        bool found = false;
        for (const auto& child : m.named_children()) {
            if (qs(child.name) == parts[i]) {
                m = child.value;
                found = true;
                break;
            }
        }
        if (!found)
            return nullptr;
    }
    auto method = m.find_method(parts.last().toStdString());
    if (!method)
        return nullptr;
    if (owner && readData) {
        if (!readData(&dataError)) {
            owner->reset();
            return nullptr;
        }
        readData = nullptr;
        dataError.clear();
    }
    if (owner)
        *owner = m;
    return &method->function();
}

namespace {

const c10::Symbol kOrigin = c10::Symbol::attr("jitscope_origin");

/// A copy of @p graph with every call inlined, its own nodes tagged with their ids (kOrigin): Inline keeps them
/// (cloned callee nodes carry no tag) and destroys the calls it replaces. @p ownCount: how many own nodes.
std::shared_ptr<tj::Graph> inlinedTagged(const tj::Graph& graph, int* ownCount)
{
    auto copy = const_cast<tj::Graph&>(graph).copy();
    int next = 0;
    forEachNode(copy->block(), [&](tj::Node* n) { n->i_(kOrigin, next++); });
    tj::Inline(*copy);
    *ownCount = next;
    return copy;
}

bool isOwn(const tj::Node* n)
{
    return n->hasAttribute(kOrigin);
}

} // namespace

IrGraph snapshotOf(const tj::Graph& graph, bool inlineCalls, QVector<int>* inlinedIds)
{
    if (!inlineCalls)
        return snapshotGraph(graph);
    int next = 0;
    auto copy = inlinedTagged(graph, &next);
    // A call that inlining replaced maps to the first node of the code that replaced it (where its trace nodes
    // come from), or -1 when the callee left nothing behind.
    inlinedIds->fill(-1, next);
    int id = 0;
    int lastOwn = -1; // the last tagged node seen
    int runStart = -1; // first untagged node since then
    auto closeRun = [&](int upTo) {
        for (int own = lastOwn + 1; own < upTo; ++own)
            (*inlinedIds)[own] = runStart;
    };
    forEachNode(copy->block(), [&](tj::Node* n) {
        if (isOwn(n)) {
            const int own = int(n->i(kOrigin));
            n->removeAttribute(kOrigin);
            closeRun(own);
            (*inlinedIds)[own] = id;
            lastOwn = own;
            runStart = -1;
        } else if (runStart < 0) {
            runStart = id;
        }
        ++id;
    });
    closeRun(next);
    return snapshotGraph(*copy);
}

// ----- InlinedIndex

InlinedIndex::Key InlinedIndex::keyOf(const tj::Node* n)
{
    const tj::SourceRange& r = n->sourceRange();
    return { r.source().get(), r.start(), r.end(), uint32_t(n->kind()) };
}

InlinedIndex::InlinedIndex(tj::Graph& inlined, const std::function<bool(const tj::Node*)>& own)
{
    // Inlining gives a call stack only to the copied nodes that have outputs: an `if` without outputs (BatchNorm's
    // `if self.training`) has none, nor a `raise`. Such a node takes the chain of its first descendant that has one,
    // else its parent's.
    struct Entry
    {
        tj::Node* node;
        int id;
        Chain chain;
        bool known = false;
    };
    std::vector<Entry> entries;
    std::unordered_map<const tj::Node*, size_t> at;
    int id = 0;
    forEachNode(inlined.block(), [&](tj::Node* n) {
        Entry e { n, id++, {}, false };
        if (auto cs = n->callstack()) {
            for (const auto& entry : (*cs)->vec()) {
                const tj::SourceRange& r = std::get<1>(entry);
                e.chain.push_back({ std::get<0>(entry), r.source().get(), r.start(), r.end() });
            }
            e.known = true;
        }
        at[n] = entries.size();
        entries.push_back(std::move(e));
    });
    // Children come after their parent: walking backwards, a parent sees its descendants' chains first.
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
        if (it->known || own(it->node))
            continue;
        for (tj::Block* b : it->node->blocks()) {
            for (tj::Node* child : b->nodes()) {
                const Entry& c = entries[at.at(child)];
                if (c.known && !own(child)) {
                    it->chain = c.chain;
                    it->known = true;
                    break;
                }
            }
            if (it->known)
                break;
        }
    }
    for (Entry& e : entries) {
        if (own(e.node))
            continue;
        if (!e.known) {
            tj::Node* parent = e.node->owningBlock() ? e.node->owningBlock()->owningNode() : nullptr;
            if (!parent || !at.count(parent) || !entries[at.at(parent)].known || own(parent))
                continue;
            e.chain = entries[at.at(parent)].chain;
            e.known = true;
        }
        if (!e.chain.empty())
            m_nodes[e.chain][keyOf(e.node)].push_back(e.id);
    }
}

InlinedIndex::Chain InlinedIndex::deeper(const Chain& chain, const tj::Function& function, const tj::Node* call)
{
    Chain c = chain;
    const tj::SourceRange& r = call->sourceRange();
    c.push_back({ &function, r.source().get(), r.start(), r.end() });
    return c;
}

std::unordered_map<const tj::Node*, int> InlinedIndex::idsOf(const Chain& chain, tj::Graph& callee) const
{
    std::unordered_map<const tj::Node*, int> ids;
    auto group = m_nodes.find(chain);
    if (group == m_nodes.end())
        return ids;
    std::map<Key, size_t> taken;
    forEachNode(callee.block(), [&](tj::Node* n) {
        const Key key = keyOf(n);
        auto found = group->second.find(key);
        if (found == group->second.end())
            return;
        size_t& k = taken[key];
        if (k < found->second.size())
            ids[n] = found->second[k++];
    });
    return ids;
}

std::shared_ptr<const InlinedIndex> ModelHandle::inlinedIndex(const QString& name, const tj::Graph& graph)
{
    auto it = inlinedIndexes.find(name);
    if (it != inlinedIndexes.end())
        return it.value();
    int own = 0;
    auto copy = inlinedTagged(graph, &own);
    // Inlining is deterministic: this copy numbers its nodes as the snapshot of FunctionInfo::graph did.
    auto index = std::make_shared<const InlinedIndex>(*copy, &isOwn);
    inlinedIndexes.insert(name, index);
    return index;
}

bool inlineFunction(const std::shared_ptr<ModelHandle>& handle, FunctionInfo& fn, QString* error)
{
    if (fn.inlined)
        return true;
    auto fail = [&](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    if (!handle || !fn.ok)
        return fail(QStringLiteral("%1: nothing to inline").arg(fn.name));
    try {
        // Runs mutate module state; inlining reads the callees' graphs: not both at once.
        std::lock_guard<std::mutex> lock(handle->mutex);
        tj::Function* f = handle->find(fn.name, nullptr);
        if (!f)
            return fail(QStringLiteral("no function '%1'").arg(fn.name));
        QVector<int> ids;
        IrGraph graph = snapshotOf(*tj::toGraphFunction(*f).graph(), true, &ids);
        fn.graph = std::move(graph);
        fn.inlinedIds = std::move(ids);
        fn.inlined = true;
        return true;
    } catch (const std::exception& e) {
        return fail(QStringLiteral("%1: %2").arg(fn.name, torchErrorMessage(e.what())));
    }
}

} // namespace jitscope
