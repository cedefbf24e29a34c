// ModelHandle, core's hold on a loaded model's compiled code: finding a function by its qualified name, and
// inlining its calls (inlineFunction(), and snapshotOf() that the loaders use to snapshot a graph with calls
// inlined, as fn.inlined_graph shows it). One of the few translation units that include libtorch.

#include "ir/irsnapshot_p.h"
#include "ir/torcherror_p.h"
#include "load/loader_p.h"
#include "load/model.h"
#include "load/modelhandle_p.h"

#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>
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

IrGraph snapshotOf(const tj::Graph& graph, bool inlineCalls, QVector<int>* inlinedIds)
{
    if (!inlineCalls)
        return snapshotGraph(graph);
    auto copy = const_cast<tj::Graph&>(graph).copy();
    // Tag the function's own nodes with their ids: Inline keeps them (cloned callee nodes carry no tag) and
    // destroys the calls it replaces.
    static const c10::Symbol kOrigin = c10::Symbol::attr("jitscope_origin");
    int next = 0;
    forEachNode(copy->block(), [&](tj::Node* n) { n->i_(kOrigin, next++); });
    tj::Inline(*copy);
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
        if (n->hasAttribute(kOrigin)) {
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
