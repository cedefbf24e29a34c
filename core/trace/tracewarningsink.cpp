#include "trace/tracewarningsink_p.h"

namespace jitscope {

void TraceWarningSink::add(WarningKind kind, const QString& message, const QString& suggestion,
    const torch::jit::Node* at, const QString& detail, int count)
{
    const Position& position = m_interpreter.position();
    TraceWarning w;
    w.kind = kind;
    w.detail = detail;
    w.count = count;
    w.message = message;
    w.suggestion = suggestion;
    w.scriptNode = position.scriptNode;
    const torch::jit::Node* n = at ? at : position.node;
    if (n)
        w.location = Interpreter::locationOf(n);
    for (const auto& existing : m_warnings)
        if (existing.kind == w.kind && existing.message == w.message && existing.location == w.location)
            return;
    m_warnings.push_back(w);
}

void TraceWarningSink::addConversion(const QString& what, const torch::jit::Node* at)
{
    const WarningKind kind = what == QLatin1String("boolean") ? WarningKind::TensorToBool : WarningKind::TensorToNumber;
    add(kind, warningMessage(kind, { what }), warningFix(kind), at);
}

void TraceWarningSink::addTracerWarning(const std::string& message)
{
    const QString m = QString::fromStdString(message);
    WarningKind kind = WarningKind::Tracer;
    if (m.startsWith(QLatin1String("torch.tensor")))
        kind = WarningKind::BakedConstant;
    else if (m.contains(QLatin1String("resize")))
        kind = WarningKind::InPlaceOnView;
    else if (m.contains(QLatin1String("Python boolean")))
        kind = WarningKind::TensorToBool;
    else if (m.contains(QLatin1String("Python index")))
        kind = WarningKind::TensorToIndex;
    else if (m.contains(QLatin1String("Python")))
        kind = WarningKind::TensorToNumber;
    add(kind, m, QString());
}

} // namespace jitscope
