#pragma once

// Which Python runs a user's .py file: the one resolved by default (the user's interpreter, as an editor picks it),
// and the interpreters found on the machine with their torch versions.

#include <QString>
#include <QVector>

namespace jitscope {

/// A Python interpreter and why it is the one.
struct PythonInterpreter
{
    QString path;
    /// How it was chosen or found (the JSON's `chosen_by`): "option" (--python=PATH, the window's choice),
    /// "JITSCOPE_PYTHON", "VIRTUAL_ENV", "CONDA_PREFIX", "PATH", "engine"; findInterpreters() also "virtualenvs",
    /// "conda", "pyenv"; the window "folder" (Model > Python Interpreter).
    QString chosenBy;
    QString torch; ///< its torch's version (findInterpreters(), torchVersionOf()); empty: unknown or none
    QString torchError; ///< why torch could not be imported there (findInterpreters()); empty when it could
};

/// The interpreter `--python` without a path and the window's Run use, the first of: $JITSCOPE_PYTHON, the active
/// virtual environment's ($VIRTUAL_ENV/bin/python), the active conda environment's ($CONDA_PREFIX/bin/python),
/// the first python3 on PATH that imports torch, the engine's torch's Python. Resolved once per process (the PATH
/// step runs `python3 -c "import torch"`); torch is left empty.
PythonInterpreter resolvePython();

/// The interpreter @p given names (`--python=PATH`, the window's choice), or resolvePython()'s when it is empty.
PythonInterpreter choosePython(const QString& given);

/// The torch version @p python imports, asked in one short child run (10 s at most, cached per process); empty
/// with @p error when it imports none.
QString torchVersionOf(const QString& python, QString* error = nullptr);

/// The interpreters found: the default's candidates ($JITSCOPE_PYTHON, $VIRTUAL_ENV, $CONDA_PREFIX, python3 on
/// PATH), ~/.virtualenvs/*, conda's envs/ (beside $CONDA_PREFIX, ~/miniconda3, ~/anaconda3, ~/miniforge3), pyenv's
/// versions, and the engine's torch's Python, each once (by canonical path) with its torch version.
QVector<PythonInterpreter> findInterpreters();

/// The module an import failed to find ("mypkg" of "ModuleNotFoundError: No module named 'mypkg'"), empty when
/// @p errorMessage is another error: the message that names the interpreter and how to choose another.
QString missingModule(const QString& errorMessage);

/// "chosen as the active virtual environment": PythonInterpreter::chosenBy in words.
QString chosenByText(const QString& chosenBy);

/// "/venv/bin/python (torch 2.13.0, chosen as the active virtual environment)": the interpreter as reports name it.
QString interpreterText(const PythonInterpreter& python);

} // namespace jitscope
