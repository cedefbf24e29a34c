#pragma once

#include "report/modelinfo.h"

namespace jitscope {

/// Loads a TorchScript archive (.pt/.pth/.zip) or a .py file of TorchScript functions. Thread-safe; never throws.
LoadResult loadModel(const QString& path, const LoadOptions& options = {});

/// Looks at @p fn with its calls inlined (inlining a copy when it is not). Empty when some argument is not a tensor
/// or meets no parameter that tells its shape.
std::optional<InputSuggestion> suggestInputSet(const ModelInfo& model, const FunctionInfo& fn);

/// The class of every submodule below the module whose method @p function is, by path relative to it (as inlined
/// graphs name them: "layer1.0" for forward, "0" for layer1.forward) -> class name ("BasicBlock", mangling and
/// qualification dropped). For LayoutOptions::moduleTypes.
QHash<QString, QString> submoduleTypes(const ModelInfo& model, const QString& function);

/// Replaces @p fn's graph by its graph with calls inlined (and sets inlinedIds and inlined), for a function of the
/// model that @p handle (ModelInfo::handle) holds, loaded without it. Thread-safe; false with @p error when the
/// function cannot be found or inlined.
bool inlineFunction(const std::shared_ptr<ModelHandle>& handle, FunctionInfo& fn, QString* error = nullptr);

/// Loads a shared library of custom operators with RTLD_GLOBAL (once per process). Returns an empty string on
/// success, else why not (dlerror()). An archive whose code calls operators of a namespace libtorch lacks
/// (`ops.torchvision.nms`) makes loadModel() look for the library with opLibraryCandidates() and load it.
QString loadOpLibrary(const QString& path);

/// Where loadModel() looks for a library of @p ns:: operators, best first: the shared libraries of the package
/// @p ns (its _C*.so first) and NS*.so in each folder of the sys.path of the engine's torch's Python (enginePython()),
/// then of $JITSCOPE_PYTHON (asked for sys.path and libpython only; $JITSCOPE_OPS_PATH, folders separated by ':',
/// instead when set).
QStringList opLibraryCandidates(const QString& ns);

/// Versions of the libraries core is built on, for --version and the About box.
QString libtorchVersion();
/// When @p archive was saved by a torch newer than the engine's (@p producer, "torch X" or "X"; empty: what the
/// archive's extra file jitscope_producer says, which JitScope's bridge writes), a sentence saying so and what to
/// do; else empty.
QString newerTorchNote(const QString& archive, const QString& producer = {});

} // namespace jitscope
