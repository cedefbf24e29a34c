#pragma once

// An opened model as a value: its functions and their graphs, submodules, parameters, input sets.

#include "report/inputset.h"
#include "report/irgraph.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

#include <memory>
#include <optional>

namespace jitscope {

/// Core's private hold on the compiled code (libtorch objects), shared by copies of a ModelInfo.
struct ModelHandle;

/// A compiled function of a .py file, or a method of an archive (qualified like "layer1.0.forward").
struct FunctionInfo
{
    QString name; ///< qualified name as the user selects it
    QString signature; ///< "forward(self, x: Tensor) -> Tensor"
    SourceLocation location; ///< the def line
    bool ok = false;
    Diagnostic error; ///< set when !ok
    IrGraph graph; ///< the script graph, as fn.graph prints it
    /// Only when loaded with calls inlined (graph is then the inlined graph): for each node of the function's own
    /// graph, in snapshot order, its id in graph; -1 for the calls that inlining replaced. Traces and debug frames
    /// number script nodes in the function's own graph, and this maps them onto the graph shown.
    QVector<int> inlinedIds;
    bool inlined = false; ///< graph has its calls inlined (LoadOptions::inlineCalls, or inlineFunction())
};

struct ParameterInfo
{
    enum class Kind { Parameter, Buffer, Attribute };
    QString name; ///< qualified: "layer1.0.conv1.weight"
    Kind kind = Kind::Attribute;
    QString type; ///< "Tensor", "int", "Dict[str, Tensor]", ...
    QString dtype; ///< tensors only
    QVector<qint64> shape; ///< tensors only
    QString value; ///< short printed value for scalars and small containers
};

struct SubmoduleInfo
{
    QString path; ///< "layer1.0"
    QString typeName; ///< "__torch__.torchvision.models.resnet.BasicBlock"
    QStringList methods;
};

/// A library of custom operators that a model's code calls: given (LoadOptions::opLibraries) or found by the search
/// for a namespace libtorch lacks (torchvision/_C.so for torchvision::nms).
struct OpLibrary
{
    QString path;
    QStringList namespaces; ///< the namespaces of the model's operators it registers ("torchvision")
    bool found = false; ///< found where the system's Python keeps its packages, not given
};

/// Everything JitScope knows about an opened model file. Produced by loadModel(), passed by value.
struct ModelInfo
{
    /// ExportedProgram: a .pt2 of torch.export.save, its graph read from the file (no compiled code: shown, not run)
    enum class Kind { Archive, PythonSource, ExportedProgram };
    QString path;
    Kind kind = Kind::PythonSource;
    QString source; ///< the .py text, or the archive's code
    QVector<FunctionInfo> functions;
    QVector<SubmoduleInfo> submodules;
    QVector<ParameterInfo> parameters;
    QVector<InputSet> inputSets; ///< from the file's `inputs` and `check_inputs`; first is `inputs`
    QVector<Diagnostic> warnings; ///< non-fatal problems (e.g. an input spec that could not be read)
    QVector<OpLibrary> opLibraries; ///< the libraries the archive's custom operators come from
    std::shared_ptr<ModelHandle> handle; ///< for running and tracing; opaque outside core

    const FunctionInfo* function(const QString& name) const;
    /// The function --fn selects by default (and checkModel() checks when none is named): "forward", else the only
    /// function, else nullptr (the CLI then asks for --fn).
    const FunctionInfo* defaultFunction() const;
    /// The function a viewer opens when none is named: defaultFunction(), else the first that compiled, else the
    /// first; nullptr when there are none.
    const FunctionInfo* openingFunction() const;
};

/// "parameter", "buffer", "attribute": how `jitscope-cli list` and the Model tree name a ParameterInfo's kind.
QString toText(ParameterInfo::Kind kind);
/// "archive", "python", "exported_program": how `jitscope-cli list --format json` names a ModelInfo's kind.
QString toText(ModelInfo::Kind kind);

struct LoadOptions
{
    QStringList opLibraries; ///< shared libraries with custom operators, dlopen'ed before loading
    /// Graphs with calls inlined, as `fn.inlined_graph` shows them: every function of a .py file and the root
    /// module's methods of an archive. A submodule's methods are inlined when asked for (inlineFunction()): inlining
    /// every method of a deep network up front costs a second on DenseNet.
    bool inlineCalls = false;
    /// A library of opLibraries that does not load fails the load (the CLI's --load-ops); else it is a warning, and
    /// an error only when the archive then calls operators of a namespace no library defines (the window's
    /// remembered libraries).
    bool strictOpLibraries = true;
};

/// Result of loadModel(): either a model or a fatal error naming the file and place.
struct LoadResult
{
    bool ok = false;
    ModelInfo model;
    Diagnostic error;
};

/// An input set guessed for a function whose file records none (an archive: TorchScript 1.13 keeps no input shapes,
/// traced or scripted), from the parameter each tensor argument meets first: conv1.weight [64, 3, 7, 7] makes
/// f32[1,3,224,224], fc.weight [10, 512] makes f32[1,512], an embedding's [V, D] makes i64[1,16]=zeros.
struct InputSuggestion
{
    QString set; ///< SET syntax
    QString reason; ///< "conv1.weight [64, 3, 7, 7]"
};
/// True for a program that runs from the build tree it was built in (its folder is the build's bin/); false for an
/// installed one (the Debian package, cmake --install), which carries its own copy of the engine's libtorch.
bool runsFromBuildTree();
/// The Python of the torch whose libtorch the engine links (the project's .venv, or make TORCH_PYTHON=...), for a
/// program that runs from its build tree, where that Python still is; else empty: an installed program has no engine
/// Python (the build machine's is not there), and uses the user's (resolvePython(), report/interpreters.h).
QString enginePython();
} // namespace jitscope
