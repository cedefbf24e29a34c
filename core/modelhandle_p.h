#pragma once

// Private to core's torch translation units: what a ModelInfo's handle holds.

#include "model.h"

#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>

#include <QHash>
#include <QString>

#include <mutex>
#include <optional>

namespace jitscope {

struct ModelHandle
{
    std::shared_ptr<torch::jit::CompilationUnit> cu; ///< .py files: every compiled function lives here
    QHash<QString, torch::jit::Function*> functions; ///< .py files: by name
    std::optional<torch::jit::Module> module; ///< archives: the root module
    QString sourceText; ///< .py files: the file's text, for source locations of trace nodes
    std::mutex mutex; ///< running a model mutates module state: one run at a time

    /// The function and, for a method, the module it belongs to ("layer1.0.forward"). Null if unknown.
    torch::jit::Function* find(const QString& name, std::optional<torch::jit::Module>* owner) const;
};

} // namespace jitscope
