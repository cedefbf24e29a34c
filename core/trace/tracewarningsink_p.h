#pragma once

// Private to trace/: the hooks that collect a trace's warnings, each at the place the interpreter stands.

#include "execute/interpreter_p.h"
#include "report/tracewarning.h"

#include <string>

namespace jitscope {

class TraceWarningSink : public InterpreterHooks
{
public:
    explicit TraceWarningSink(const Interpreter& interpreter)
        : m_interpreter(interpreter)
    { }

    /// A warning at node @p at (default: the node running), blamed on the script node running; once per kind,
    /// message and place.
    void add(WarningKind kind, const QString& message, const QString& suggestion, const torch::jit::Node* at = nullptr,
        const QString& detail = QString(), int count = -1);
    /// The TracerWarning Python raises when a traced tensor becomes a Python value (@p what: "boolean",
    /// "integer", "float" or "number").
    void addConversion(const QString& what, const torch::jit::Node* at = nullptr);
    /// A warning libtorch's tracer raised, classified by its text.
    void addTracerWarning(const std::string& message);

    void userWarning(const QString& message) override { add(WarningKind::UserWarning, message, QString()); }

    const QVector<TraceWarning>& warnings() const { return m_warnings; }

private:
    const Interpreter& m_interpreter;
    QVector<TraceWarning> m_warnings;
};

} // namespace jitscope
