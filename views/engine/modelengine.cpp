#include "modelengine.h"

#include <mutex>

namespace jitscope {

namespace {

std::mutex& inProcessMutex()
{
    static std::mutex m;
    return m;
}

std::shared_ptr<const ModelEngine>& inProcessEngine()
{
    static std::shared_ptr<const ModelEngine> engine;
    return engine;
}

} // namespace

std::shared_ptr<const ModelEngine> ModelEngine::inProcess()
{
    std::lock_guard<std::mutex> lock(inProcessMutex());
    return inProcessEngine();
}

void ModelEngine::setInProcess(std::shared_ptr<const ModelEngine> engine)
{
    std::lock_guard<std::mutex> lock(inProcessMutex());
    inProcessEngine() = std::move(engine);
}

} // namespace jitscope
