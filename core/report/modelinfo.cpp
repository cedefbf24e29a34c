// ModelInfo's queries: functions by name, the default function; the engine's Python.

#include "report/modelinfo.h"

#include <QFileInfo>

namespace jitscope {

const FunctionInfo* ModelInfo::function(const QString& name) const
{
    for (const FunctionInfo& f : functions)
        if (f.name == name)
            return &f;
    return nullptr;
}

const FunctionInfo* ModelInfo::defaultFunction() const
{
    if (const FunctionInfo* f = function(QStringLiteral("forward")))
        return f;
    if (functions.size() == 1)
        return &functions.first();
    return nullptr;
}

const FunctionInfo* ModelInfo::openingFunction() const
{
    if (const FunctionInfo* f = defaultFunction())
        return f;
    for (const FunctionInfo& f : functions)
        if (f.ok)
            return &f;
    return functions.isEmpty() ? nullptr : &functions.first();
}

QString toText(ParameterInfo::Kind kind)
{
    switch (kind) {
    case ParameterInfo::Kind::Parameter:
        return QStringLiteral("parameter");
    case ParameterInfo::Kind::Buffer:
        return QStringLiteral("buffer");
    case ParameterInfo::Kind::Attribute:
        return QStringLiteral("attribute");
    }
    return {};
}

QString toText(ModelInfo::Kind kind)
{
    switch (kind) {
    case ModelInfo::Kind::Archive:
        return QStringLiteral("archive");
    case ModelInfo::Kind::PythonSource:
        return QStringLiteral("python");
    case ModelInfo::Kind::ExportedProgram:
        return QStringLiteral("exported_program");
    }
    return {};
}

#ifndef JITSCOPE_TORCH_PYTHON
#define JITSCOPE_TORCH_PYTHON "" // builds without the engine (the fuzz targets)
#endif
#ifndef JITSCOPE_BUILD_BIN_DIR
#define JITSCOPE_BUILD_BIN_DIR ""
#endif

bool runsFromBuildTree()
{
    static const bool inBuildTree = [] {
        const QString bin = QFileInfo(QStringLiteral(JITSCOPE_BUILD_BIN_DIR)).canonicalFilePath();
        const QString self = QFileInfo(QStringLiteral("/proc/self/exe")).canonicalFilePath();
        return !bin.isEmpty() && !self.isEmpty() && QFileInfo(self).absolutePath() == bin;
    }();
    return inBuildTree;
}

QString enginePython()
{
    static const QString python = [] {
        const QString built = QStringLiteral(JITSCOPE_TORCH_PYTHON);
        return runsFromBuildTree() && !built.isEmpty() && QFileInfo(built).isExecutable() ? built : QString();
    }();
    return python;
}

} // namespace jitscope
