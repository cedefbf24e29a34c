#pragma once

// Private to core's torch translation units: what a ModelInfo's handle holds.
// Torch types are only forward-declared here so that the header stays free of libtorch;
// modelhandle.cpp implements it where they are complete.

#include "load/model.h"

#include <QHash>
#include <QString>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace torch {
namespace jit {
struct CompilationUnit;
struct Function;
struct Graph;
struct Module;
} // namespace jit
} // namespace torch

namespace jitscope {

class InlinedIndex;

struct ModelHandle
{
    ModelHandle();
    ~ModelHandle(); // defined where torch::jit::Module is complete
    ModelHandle(const ModelHandle&) = delete;
    ModelHandle& operator=(const ModelHandle&) = delete;

    std::shared_ptr<torch::jit::CompilationUnit> cu; ///< .py files: every compiled function lives here
    QHash<QString, torch::jit::Function*> functions; ///< .py files: by name
    std::unique_ptr<torch::jit::Module> module; ///< archives: the root module
    QString sourceText; ///< .py files: the file's text, for source locations of trace nodes
    /// Guards what compiled code initialises lazily (schemas, operators; prepareRun resolves them) and inlining.
    /// Runs do not hold it while they run: each runs on its own copy of the module.
    std::mutex mutex;

    /// .py files: the def @p name compiled again with @p types (TorchScript type expressions, by position) for its
    /// parameters without annotation, as torch.jit.trace takes whatever Python values it is given. Null (and
    /// @p error set) when it does not compile. Call with the mutex held.
    std::function<torch::jit::Function*(const QString& name, const std::vector<std::string>& types, QString* error)>
        compileWithTypes;

    /// Archives: reads the tensor data the load left unread into the module's storages (archiveloader.cpp); false
    /// with @p error when the file no longer holds it. Empty once read, and for archives loaded with their data.
    std::function<bool(QString* error)> readData;
    QString dataError; ///< why readData failed, for the run that found no module

    /// The function and, for a method, the module it belongs to ("layer1.0.forward"), whose tensor data is read
    /// first (readData): asking for the owner is asking to run it. Null if unknown or the data cannot be read
    /// (dataError). Call with the mutex held.
    torch::jit::Function* find(const QString& name, std::optional<torch::jit::Module>* owner);

    /// Where inlining puts the callees' nodes of function @p name, whose own graph is @p graph (inlinedindex_p.h):
    /// built on first use and kept. Call with the mutex held.
    std::shared_ptr<const InlinedIndex> inlinedIndex(const QString& name, const torch::jit::Graph& graph);
    QHash<QString, std::shared_ptr<const InlinedIndex>> inlinedIndexes;
};

} // namespace jitscope
