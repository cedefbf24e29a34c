#pragma once

#include "modelengine.h"

#include <mutex>

namespace jitscope {

/// The model work in this process, on core's engines directly: for the controllers that tests and tools drive
/// without a window (ModelEngine::inProcess()). Only what links jitscope_localengine gets it, and with it libtorch
/// and Graphviz; the window's process links neither and uses the model worker.
class LocalEngine : public ModelEngine
{
public:
    LocalEngine();

    LoadResult load(const QString& path, const LoadOptions& options, EngineModelRef* model,
        const std::atomic<bool>* cancel = nullptr) const override;
    bool inlineFunction(const EngineModelRef& model, FunctionInfo& fn, QString* error = nullptr) const override;
    std::optional<InputSuggestion> suggestInputSet(const EngineModelRef& model, const QString& function) const override;
    QHash<QString, QString> submoduleTypes(const EngineModelRef& model, const QString& function) const override;
    CheckReport check(const EngineModelRef& model, const QString& function, const QVector<InputSet>& sets,
        const CheckOptions& options, const std::atomic<bool>* cancel = nullptr) const override;
    GraphLayout layout(const IrGraph& graph, const LayoutOptions& options, const QString& what) const override;
    PythonRun runPython(const QString& path, const PythonOptions& options) const override;
    QVector<CheckReport> checkRecordedCalls(const QString& folder, const QString& source) const override;
    QVector<SelfCheck> selfCheck(const QString& file, const PythonOptions& options, const QString& folder,
        const QVector<int>& calls) const override;
    std::unique_ptr<DebugBackend> debug(const EngineModelRef& model, const DebugTarget& target) const override;

private:
    /// Module cluster layouts across the layouts of this process (folding one module lays out that module alone).
    std::shared_ptr<LayoutCache> m_layouts;
};

} // namespace jitscope
