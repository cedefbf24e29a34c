// The JSON forms of the CLI's outputs: a check (checkJson(), docs/check-json.md), a trace listing (traceJson(),
// docs/trace-json.md), and what a Python run recorded.

#include "reports.h"

#include <QJsonArray>

namespace jitscope {

namespace {

QJsonObject selfCheckJson(const SelfCheck& s)
{
    QJsonObject o { { QStringLiteral("status"), s.status }, { QStringLiteral("sets"), s.sets } };
    if (!s.reason.isEmpty())
        o.insert(QStringLiteral("reason"), s.reason);
    if (s.status == QLatin1String("defect"))
        o.insert(QStringLiteral("first_difference"),
            QJsonObject { { QStringLiteral("set"), s.set + 1 }, { QStringLiteral("dump_line"), s.line },
                { QStringLiteral("in"), s.inputs ? QStringLiteral("inputs") : QStringLiteral("node") },
                { QStringLiteral("jitscope"), s.jitscope }, { QStringLiteral("pytorch"), s.pytorch } });
    return o;
}

} // namespace

QJsonObject checkJson(const CheckOutput& in)
{
    QJsonObject o = checkReportJson(*in.entry.report);
    QJsonArray traces = o.value(QStringLiteral("traces")).toArray();
    for (int k = 0; k < traces.size() && k < in.entry.sets.size(); ++k) {
        QJsonObject t = traces[k].toObject();
        t.insert(QStringLiteral("inputs"), in.entry.sets[k]);
        traces[k] = t;
    }
    o.insert(QStringLiteral("traces"), traces);
    o.insert(QStringLiteral("version"), checkJsonVersion);
    if (!in.verdict.isEmpty())
        o.insert(QStringLiteral("verdict"), in.verdict);
    if (in.call)
        o.insert(QStringLiteral("call"), pythonCallJson(*in.call));
    if (in.selfCheck)
        o.insert(QStringLiteral("self_check"), selfCheckJson(*in.selfCheck));
    if (in.python)
        o.insert(QStringLiteral("python"), pythonInterpreterJson(*in.python));
    return o;
}

QJsonObject pythonInterpreterJson(const PythonInterpreter& python)
{
    return QJsonObject { { QStringLiteral("path"), python.path }, { QStringLiteral("torch"), python.torch },
        { QStringLiteral("chosen_by"), python.chosenBy } };
}

QJsonObject diagnosticJson(const Diagnostic& d)
{
    return QJsonObject { { QStringLiteral("message"), d.message }, { QStringLiteral("file"), d.location.file },
        { QStringLiteral("line"), d.location.line }, { QStringLiteral("column"), d.location.column } };
}

QJsonArray pythonWarningsJson(const QVector<PythonWarning>& warnings)
{
    QJsonArray out;
    for (const PythonWarning& w : warnings) {
        QJsonObject o { { QStringLiteral("category"), w.category }, { QStringLiteral("message"), w.message },
            { QStringLiteral("file"), w.location.file }, { QStringLiteral("line"), w.location.line },
            { QStringLiteral("user_code"), w.userCode }, { QStringLiteral("count"), w.count },
            { QStringLiteral("hidden"), w.hidden } };
        if (w.userLocation.isValid())
            o.insert(QStringLiteral("user_place"),
                QJsonObject {
                    { QStringLiteral("file"), w.userLocation.file }, { QStringLiteral("line"), w.userLocation.line } });
        QJsonArray stack;
        for (const PythonFrame& f : w.stack)
            stack.append(QJsonObject { { QStringLiteral("file"), f.location.file },
                { QStringLiteral("line"), f.location.line }, { QStringLiteral("function"), f.function } });
        if (!stack.isEmpty())
            o.insert(QStringLiteral("stack"), stack);
        out.append(o);
    }
    return out;
}

QJsonObject pythonCallJson(const PythonCall& c)
{
    QJsonObject o { { QStringLiteral("index"), c.index }, { QStringLiteral("api"), c.api },
        { QStringLiteral("line"), c.location.line }, { QStringLiteral("target"), c.target },
        { QStringLiteral("target_kind"), c.targetKind }, { QStringLiteral("ok"), c.ok },
        { QStringLiteral("example_inputs"), c.exampleInputs },
        { QStringLiteral("check_inputs"), QJsonArray::fromStringList(c.checkInputs) },
        { QStringLiteral("warnings"), pythonWarningsJson(c.warnings) } };
    if (!c.ok)
        o.insert(QStringLiteral("error"), diagnosticJson(c.error));
    if (c.checked)
        o.insert(QStringLiteral("pytorch_check"),
            QJsonObject { { QStringLiteral("passed"), c.checkPassed }, { QStringLiteral("message"), c.checkMessage } });
    QJsonArray traces;
    for (const PythonTrace& t : c.traces) {
        QJsonObject to { { QStringLiteral("inputs"), t.inputs }, { QStringLiteral("ok"), t.ok },
            { QStringLiteral("nodes"), t.graph.nodes.size() },
            { QStringLiteral("warnings"), pythonWarningsJson(t.warnings) } };
        if (!t.ok)
            to.insert(QStringLiteral("error"), diagnosticJson(t.error));
        traces.append(to);
    }
    if (!traces.isEmpty())
        o.insert(QStringLiteral("traces"), traces);
    return o;
}

TraceEntry traceEntry(const TraceResult& trace, const QString& inputs, int index)
{
    TraceEntry e { inputs, trace.ok, trace.error, trace.ok ? &trace.graph : nullptr,
        trace.ok ? trace.graph.toText() : QString(), trace.note };
    for (TraceWarning w : trace.warnings) {
        w.traceIndex = index;
        e.warnings.append(warningJson(w));
    }
    return e;
}

TraceEntry traceEntry(const PythonTrace& trace)
{
    return TraceEntry { trace.inputs, trace.ok, trace.error, trace.ok ? &trace.graph : nullptr, trace.text, QString(),
        trace.returned, pythonWarningsJson(trace.warnings) };
}

namespace {

QJsonArray tracesJson(const QVector<TraceEntry>& traces)
{
    QJsonArray out;
    for (const TraceEntry& t : traces) {
        QJsonObject o { { QStringLiteral("inputs"), t.inputs }, { QStringLiteral("ok"), t.ok },
            { QStringLiteral("note"), t.note }, { QStringLiteral("nodes"), t.graph ? t.graph->nodes.size() : 0 },
            { QStringLiteral("warnings"), t.warnings } };
        if (t.graph) {
            o.insert(QStringLiteral("graph"), t.graph->toJson());
            o.insert(QStringLiteral("text"), t.text);
        }
        if (!t.ok)
            o.insert(QStringLiteral("error"), diagnosticJson(t.error));
        if (!t.returned.isEmpty())
            o.insert(QStringLiteral("returned"), t.returned);
        out.append(o);
    }
    return out;
}

} // namespace

QJsonObject traceJson(const TraceListing& listing)
{
    QJsonObject o { { QStringLiteral("version"), traceJsonVersion }, { QStringLiteral("file"), listing.file } };
    if (!listing.ofCalls) {
        o.insert(QStringLiteral("function"), listing.function);
        o.insert(QStringLiteral("flattened"), QJsonArray::fromStringList(listing.flattened));
        o.insert(QStringLiteral("traces"), tracesJson(listing.traces));
        return o;
    }
    QJsonArray calls;
    for (const PythonCall* c : listing.calls) {
        // The call as a check's "call" holds it, with its graph and its traces in the listing's shape.
        QJsonObject call = pythonCallJson(*c);
        QVector<TraceEntry> traces;
        for (const PythonTrace& t : c->traces)
            traces << traceEntry(t);
        call.insert(QStringLiteral("function"), c->target);
        call.insert(QStringLiteral("traces"), tracesJson(traces));
        if (!c->text.isEmpty()) {
            call.insert(QStringLiteral("graph"), c->graph.toJson());
            call.insert(QStringLiteral("text"), c->text);
        }
        calls.append(call);
    }
    o.insert(QStringLiteral("calls"), calls);
    return o;
}

QJsonObject graphJson(const GraphDocument& d)
{
    return QJsonObject { { QStringLiteral("version"), graphJsonVersion }, { QStringLiteral("file"), d.file },
        { QStringLiteral("function"), d.function }, { QStringLiteral("signature"), d.signature },
        { QStringLiteral("title"), d.title }, { QStringLiteral("text"), d.text },
        { QStringLiteral("graph"), d.graph ? d.graph->toJson() : QJsonObject() } };
}

} // namespace jitscope
