#pragma once

#include "bridge/runpython.h"
#include "load/model.h"
#include "report/selfcheck.h"

#include <QString>
#include <QVector>

#include <functional>

namespace jitscope {

/// How far a self-check got: @p text, and set @p step of @p steps while JitScope traces (0 of 0 before).
using SelfCheckProgress = std::function<void(const QString& text, int step, int steps)>;

/// Traces @p call's target with JitScope's own executor (on @p builtIn, the file as JitScope's front end loads it)
/// on the call's input sets, and compares each trace node for node with the one torch.jit.trace records on the same
/// values (@p file run again under Python with @p options, the sets made from their SET text on both sides: the
/// file's own tensors hold its random numbers, which data-dependent code would branch on). Value names, scopes,
/// source comments and PyTorch's class-name mangling aside. Honours options.cancel. Runs the user's file again:
/// only after consent.
SelfCheck selfCheckCall(const QString& file, const PythonOptions& options, const PythonCall& call,
    const LoadResult& builtIn, const SelfCheckProgress& progress = {});

/// The window's self-check of a run: selfCheckCall() of each recorded call whose PythonCall::index is in @p calls,
/// the run read back from its record in @p folder (PythonRun::folder), the file loaded by JitScope's front end once.
/// What the model worker does for the window (ModelEngine::selfCheck), so that only plain values cross.
QVector<SelfCheck> selfCheckRecordedCalls(
    const QString& file, const PythonOptions& options, const QString& folder, const QVector<int>& calls);

} // namespace jitscope
