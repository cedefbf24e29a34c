#pragma once

#include "report/inputset.h"
#include "load/model.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

namespace jitscope {

/// A top-level `def` of a Python file.
struct PyDef
{
    QString name;
    int defLine = 0; ///< 1-based line of the `def` keyword
    int firstLine = 0; ///< first decorator line, or defLine
    int lastLine = 0; ///< last line of the body (trailing blank and comment lines excluded)
    QStringList decorators; ///< decorator expressions without '@', e.g. "torch.jit.script"
    bool isIgnored() const; ///< @torch.jit.ignore / @torch.jit.unused: runs in Python only
};

/// What a first, lexical pass over a .py file finds: definitions, import aliases and input sets.
/// Lines stay lines: everything refers to the user's file.
struct PyFileScan
{
    QStringList lines; ///< the file's lines, without line terminators
    QVector<PyDef> defs;
    QVector<PyDef> classes; ///< top-level classes (not compiled from .py files)
    /// Local name to dotted path: "F" -> "torch.nn.functional", "List" -> "typing.List", "torch" -> "torch".
    QHash<QString, QString> aliases;
    /// Other top-level assignments `NAME = ...`: name to the Python type of the value when it is a literal
    /// ("int", "float", "str", ...), else "object". TorchScript cannot read globals; this names them in errors.
    QHash<QString, QString> globals;
    QVector<InputSet> inputSets; ///< `inputs` first, then each of `check_inputs`
    QVector<Diagnostic> problems; ///< statements that could not be read (bad input expressions, ...)
    Diagnostic syntaxError; ///< set (line > 0) when the file cannot be split into statements

    const PyDef* def(const QString& name) const;
    /// The def's lines joined with '\n', exactly as in the file (decorators blanked), for compiling.
    QString defSource(const PyDef& def) const;
};

/// Splits Python source into top-level statements and reads them. Never throws.
PyFileScan scanPythonSource(const QString& source, const QString& fileName);

/// Evaluates `torch.rand(3, 4)`-style expressions of an `inputs`/`check_inputs` assignment.
/// Returns the input sets; on failure returns nothing and fills *error (column relative to the text).
std::optional<QVector<InputSet>> parseInputsExpression(const QString& expr, bool isCheckInputs, InputParseError* error);

} // namespace jitscope
