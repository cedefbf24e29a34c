#pragma once

// Private to load/: what loadModel() (modelloader.cpp) hands to the loader of each kind of file, and what those
// loaders share. Torch types are only forward-declared.

#include "load/model.h"

#include <QByteArray>
#include <QString>
#include <QVector>

namespace torch {
namespace jit {
struct Graph;
} // namespace jit
} // namespace torch

namespace jitscope {

/// A failed LoadResult: @p message about @p path, at @p line and @p column when known (modelloader.cpp).
LoadResult loadFailure(const QString& path, const QString& message, int line = 0, int column = 0);

/// A TorchScript archive, whose first bytes are @p head (archiveloader.cpp).
LoadResult loadArchive(const QString& path, const QByteArray& head, const LoadOptions& options);

/// Loads the libraries of the operator namespaces that @p code (an archive's) calls and libtorch lacks, found by
/// opLibraryCandidates(); appends to @p used the libraries its custom operators come from. Returns the error that
/// names the namespace and the libraries tried when one stays missing, else an empty string (oplibraries.cpp).
QString resolveOpLibraries(const QString& code, const LoadOptions& options, QVector<OpLibrary>* used);

/// A .pt2 package of torch.export.save, read without libtorch (pt2loader.cpp).
LoadResult loadExportedProgram(const QString& path);

/// A .py file of TorchScript functions, its whole content @p bytes (pycompiler.cpp).
LoadResult loadPython(const QString& path, const QByteArray& bytes, bool inlineCalls);

/// The graph's snapshot; with @p inlineCalls, of a copy with every call inlined, and @p inlinedIds maps the ids
/// of the graph's own nodes onto it (FunctionInfo::inlinedIds) (modelhandle.cpp).
IrGraph snapshotOf(const torch::jit::Graph& graph, bool inlineCalls, QVector<int>* inlinedIds);

/// The module a method belongs to ("layer1" for "layer1.forward"), empty for the root's methods and functions.
QString ownerModule(const QString& function);
/// "layer1." for "layer1.forward": what turns a path from the method's self into a path from the root.
QString ownerPrefix(const QString& function);

} // namespace jitscope
