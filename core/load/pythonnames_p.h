#pragma once

// The names a .py file uses without defining them, as Python's resolver resolves them: torch's functions as PyTorch
// itself recorded them, math's constants, Python's builtin exceptions. No libtorch; pycompiler.cpp resolves with it.

#include <QHash>
#include <QString>
#include <QVector>

#include <cstddef>
#include <optional>
#include <string>

namespace jitscope {

/// What Python's resolver does with names in torch, torch.nn.functional, math, ... recorded from PyTorch
/// itself by resources/gen_torch_functions.py and embedded as a Qt resource.
struct TorchNameTable
{
    struct Function
    {
        std::string qualifiedName;
        std::string schema;
        std::string graph;
    };
    struct Dispatch
    {
        std::string argName;
        size_t index = 0;
        bool defaultValue = false;
        QString ifTrue, ifFalse; ///< paths of the two functions
    };
    QHash<QString, std::string> builtins;
    QHash<QString, Function> functions;
    QHash<QString, QVector<Function>> overloads; ///< @overload-ed functions: every overload
    QHash<QString, Dispatch> dispatches;
};

/// The table, read once from the Qt resource (resources/torch_functions.txt).
const TorchNameTable& torchNames();

/// math.pi, math.e, math.tau, math.inf, math.nan.
std::optional<double> mathConstant(const QString& name);

/// Python's builtin exception classes that a def may raise (ValueError, ...).
bool isBuiltinException(const QString& name);

} // namespace jitscope
