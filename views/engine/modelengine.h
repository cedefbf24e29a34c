#pragma once

#include "report/selfcheck.h"
#include "report/checkreport.h"
#include "report/debugpause.h"
#include "report/graphlayout.h"
#include "report/modelinfo.h"
#include "report/pythonrun.h"

#include <QHash>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace jitscope {

/// A model as an engine holds it (in the model worker, or in this process): what requests about it name.
struct EngineModel
{
    virtual ~EngineModel() = default;
};
using EngineModelRef = std::shared_ptr<const EngineModel>;

/// What DebugController drives: a DebugSession in this process, or one in the model worker.
class DebugBackend
{
public:
    virtual ~DebugBackend() = default;
    virtual void start() = 0;
    virtual void setBreakpoints(QVector<DebugBreakpoint> breakpoints) = 0;
    virtual void resume(DebugCommand command, int line = 0) = 0;
    virtual void stop() = 0;
    /// Called on another thread at each pause and at the end.
    virtual void setPauseCallback(std::function<void(const DebugPause&)> callback) = 0;
};

/// Everything the window's jobs ask of core's engines (libtorch, Graphviz), called blocking from the thread pool.
/// The window's is the model worker (ModelWorker: a crash costs a request, not the window, and the window's process
/// loads neither library); the in-process one (LocalEngine, in jitscope_localengine, which only tests and tools
/// link) registers itself as inProcess().
class ModelEngine
{
public:
    virtual ~ModelEngine() = default;

    /// Loads @p path; @p model is set to the engine's model when it loads.
    virtual LoadResult load(const QString& path, const LoadOptions& options, EngineModelRef* model,
        const std::atomic<bool>* cancel = nullptr) const = 0;
    /// inlineFunction(): the engine's model keeps the inlined graph for later checks.
    virtual bool inlineFunction(const EngineModelRef& model, FunctionInfo& fn, QString* error = nullptr) const = 0;
    virtual std::optional<InputSuggestion> suggestInputSet(
        const EngineModelRef& model, const QString& function) const = 0;
    virtual QHash<QString, QString> submoduleTypes(const EngineModelRef& model, const QString& function) const = 0;
    /// checkModel() of @p function of the engine's model; an engine that stops says so in CheckReport::error.
    virtual CheckReport check(const EngineModelRef& model, const QString& function, const QVector<InputSet>& sets,
        const CheckOptions& options, const std::atomic<bool>* cancel = nullptr) const = 0;
    /// layoutGraph() (@p what names the graph for the engine's activity line: "`forward`", "trace 2 of `f`"). An
    /// engine that stops (Graphviz crashed, or ran past its limit) says so in GraphLayout::error.
    virtual GraphLayout layout(const IrGraph& graph, const LayoutOptions& options, const QString& what) const = 0;
    /// runPythonFile() of @p path (after consent: it runs the user's code): the bridge's child process started by the
    /// engine, its record read back into a folder the returned run owns. options.cancel stops the child within
    /// 50 ms; an engine that stops says so in PythonRun::error.
    virtual PythonRun runPython(const QString& path, const PythonOptions& options) const = 0;
    /// selfCheckRecordedCalls(): the recorded calls @p calls of the Python run of @p file whose record is in
    /// @p folder, each traced by JitScope's executor and compared with PyTorch's (runs the file again: after
    /// consent). An engine that stops says so in each SelfCheck's reason.
    virtual QVector<SelfCheck> selfCheck(
        const QString& file, const PythonOptions& options, const QString& folder, const QVector<int>& calls) const = 0;
    /// checkRecordedCalls(): every recorded call of the Python run whose record is in @p folder as a CheckReport
    /// (empty for script calls), each pair of its traces diffed, explained and grouped by the engine. An engine that
    /// stops says so in each report's error.
    virtual QVector<CheckReport> checkRecordedCalls(const QString& folder, const QString& source) const = 0;
    /// A debug session of @p target (a function of the engine's model, or a replay of its trace) not started yet.
    virtual std::unique_ptr<DebugBackend> debug(
        const EngineModelRef& model, const DebugTarget& target) const = 0;

    /// The engine controllers use when none is set: LocalEngine where jitscope_localengine is linked, else null
    /// (the window then gives its controllers the model worker).
    static std::shared_ptr<const ModelEngine> inProcess();
    static void setInProcess(std::shared_ptr<const ModelEngine> engine);
};
using ModelEngineRef = std::shared_ptr<const ModelEngine>;

} // namespace jitscope
