// A recorded trace call turned into what the one report builder (buildCheckReport(), check/) reads: its traces with
// the warnings Python raised at their nodes, the outputs PyTorch's check compared or where trace 1 failed, where the
// values part ways, PyTorch's own words and verdict. Every rule of the report is the builder's.
#include "bridge/pythoncheck.h"
#include "bridge/runpython.h"
#include "diff/tracediff.h"
#include "load/exportedprogram.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QMap>
#include <QStringList>

#include <algorithm>

namespace jitscope {

WarningKind pythonWarningKind(const PythonWarning& w)
{
    const QString& m = w.message;
    if (w.category != QLatin1String("TracerWarning"))
        return w.category == QLatin1String("UserWarning") ? WarningKind::UserWarning : WarningKind::Tracer;
    if (m.startsWith(QLatin1String("Converting a tensor to a Python boolean")))
        return WarningKind::TensorToBool;
    if (m.startsWith(QLatin1String("Converting a tensor to a Python index")))
        return WarningKind::TensorToIndex;
    if (m.startsWith(QLatin1String("Converting a tensor to a Python"))
        || m.startsWith(QLatin1String("Converting a tensor to a NumPy array")))
        return WarningKind::TensorToNumber;
    if (m.startsWith(QLatin1String("Using len to get tensor shape")))
        return WarningKind::LenOfTensor;
    if (m.startsWith(QLatin1String("Iterating over a tensor")))
        return WarningKind::IteratingTensor;
    if (m.contains(QLatin1String(" results are registered as constants in the trace")))
        return WarningKind::BakedConstant;
    if (m.startsWith(QLatin1String("Trace had nondeterministic nodes")))
        return WarningKind::NondeterministicOp;
    if (m.startsWith(QLatin1String("Output nr ")))
        return WarningKind::OutputMismatch;
    return WarningKind::Tracer;
}

namespace {

/// Where in a recorded trace a warning's Python lines recorded nodes: per file, each line that recorded a node
/// (constants aside) with the first such node, anywhere in the (inlined) graph, a library's lines as well as the
/// user's. Made once per trace: a model raises hundreds of warnings, each looked up at every frame of its stack.
class NodePlaces
{
public:
    explicit NodePlaces(const IrGraph& graph)
        : m_graph(graph)
    {
        for (const IrNode& n : graph.nodes)
            if (n.location.isValid() && n.kind != QLatin1String("prim::Constant")) {
                QMap<int, int>& lines = m_byFile[n.location.file];
                if (!lines.contains(n.location.line))
                    lines.insert(n.location.line, n.id);
            }
    }

    /// The script node @p node was recorded from, -1 when none (PyTorch's traces record no script).
    int originOf(int node) const
    {
        return node >= 0 && node < m_graph.nodes.size() ? m_graph.node(node).originNode : -1;
    }

    /// The first node recorded exactly at @p at.
    int exactlyAt(const SourceLocation& at) const { return m_byFile.value(at.file).value(at.line, -1); }

    /// The first node of the nearest line after @p at in its file.
    int after(const SourceLocation& at) const
    {
        const auto file = m_byFile.constFind(at.file);
        if (file == m_byFile.constEnd())
            return -1;
        const auto next = file->upperBound(at.line);
        return next == file->constEnd() ? -1 : next.value();
    }

    /// The first top-level node at @p at's line, else (a condition whose ops the trace dropped) the next one recorded
    /// after it in the same file.
    int atLine(const SourceLocation& at) const
    {
        int next = -1;
        int nextLine = 0;
        for (int id : m_graph.top.nodes) {
            const IrNode& n = m_graph.node(id);
            if (n.location.file != at.file || n.kind == QLatin1String("prim::Constant"))
                continue;
            if (n.location.line == at.line)
                return n.id;
            if (n.location.line > at.line && (next < 0 || n.location.line < nextLine)) {
                next = n.id;
                nextLine = n.location.line;
            }
        }
        return next;
    }

private:
    const IrGraph& m_graph;
    QHash<QString, QMap<int, int>> m_byFile;
};

/// A warning Python raised while trace @p trace was recorded, as a TraceWarning at the node of the innermost frame
/// that recorded one (@p places: of that trace's graph; null when the trace failed).
TraceWarning traceWarning(const PythonWarning& w, int trace, const NodePlaces* places, const SourceLocation& call)
{
    TraceWarning tw;
    tw.kind = pythonWarningKind(w);
    tw.message = w.message;
    tw.traceIndex = trace;
    tw.location = w.location;
    tw.suggestion = warningFix(tw.kind);
    tw.occurrences = w.count;
    for (const PythonFrame& f : w.stack)
        tw.stack << f.location;
    if (tw.kind == WarningKind::OutputMismatch
        && std::none_of(
            tw.stack.cbegin(), tw.stack.cend(), [&](const SourceLocation& f) { return f.file == call.file; })) {
        // PyTorch's check warns from torch/jit/_trace.py: the call it checks is the user's torch.jit.trace line.
        if (tw.stack.isEmpty())
            tw.stack << tw.location;
        tw.stack << call;
    }
    if (!places)
        return tw;
    // The innermost frame that recorded a node (torch._assert's line records none; the torchvision line that called
    // it does).
    tw.traceNode = places->exactlyAt(w.location);
    for (int f = 0; tw.traceNode < 0 && f < w.stack.size(); ++f)
        tw.traceNode = places->exactlyAt(w.stack[f].location);
    if (tw.traceNode < 0 && w.userCode)
        tw.traceNode = places->atLine(w.location);
    // A frame whose line is a call recording nothing itself (a check before the op): the first node its file records
    // after that line.
    for (int f = 0; tw.traceNode < 0 && f < w.stack.size(); ++f)
        tw.traceNode = places->after(w.stack[f].location);
    tw.scriptNode = places->originOf(tw.traceNode); // a trace recorded from a script graph: its script node
    return tw;
}

/// PyTorch's own words where its check found the outputs differ ("Output nr 1. ... Mismatched elements: ..."), or
/// empty.
QString outputMismatchWords(const PythonCall& call)
{
    for (const PythonWarning& w : call.warnings) {
        if (!w.message.startsWith(QLatin1String("Output nr ")))
            continue;
        const QStringList lines = w.message.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QString words = lines.value(0).trimmed();
        for (const QString& l : lines)
            if (l.trimmed().startsWith(QLatin1String("Mismatched elements"))
                || l.trimmed().startsWith(QLatin1String("The values for attribute")))
                words += QLatin1Char(' ') + l.trimmed();
        return words;
    }
    return {};
}

/// What PyTorch's check observed running trace 1 on @p t's set: the outputs it compared, or where trace 1 failed
/// there (the node of @p trace1, when it recorded, that its error's TorchScript traceback names).
OutputCheck recordedOutputs(const PythonTrace& t, const PythonTrace& trace1)
{
    OutputCheck oc;
    oc.ran = t.outputsCompared;
    oc.values = t.values;
    if (t.outputsCompared) {
        oc.comparison.equal = t.outputsEqual;
        oc.comparison.message = t.outputsMessage;
        oc.comparison.total = t.outputsElements;
        return oc;
    }
    oc.error = t.outputsMessage;
    if (oc.error.isEmpty())
        return oc;
    if (trace1.ok)
        oc.failure.node = nodeOfTorchScriptError(trace1.graph, oc.error);
    const QStringList lines = oc.error.trimmed().split(QLatin1Char('\n'));
    if (lines.size() > 1) // the interpreter's traceback: its last line says what failed
        oc.error = QStringLiteral("the trace failed on this input set: %1").arg(lines.last().trimmed());
    if (oc.failure.isValid())
        oc.failure.error = lines.last().trimmed();
    return oc;
}

} // namespace

CheckReport checkRecordedCall(const PythonRun& run, const PythonCall& call, const QString& source, bool everyPair)
{
    CheckObservations obs;
    // The target's script graph, when the file's function or method scripts.
    for (const PythonFunction& f : run.functions)
        if (f.name == call.target && f.scriptOk)
            obs.script = f.graph;
    for (const PythonModule& m : run.modules)
        for (const PythonMethod& pm : m.methods)
            if (m.className + QLatin1Char('.') + pm.name == call.target && pm.compiled)
                obs.script = pm.graph;
    obs.file = call.location.file;
    obs.function = call.target;
    obs.moduleTypes = call.moduleTypes;
    obs.otherRun = QStringLiteral("Python");
    obs.callLocation = call.location;
    obs.recordedByPyTorch = true;
    obs.everyPair = everyPair;
    obs.source = source;
    obs.stateChanges = call.stateChanges;
    obs.pytorchCheckFailed = call.checked && !call.checkPassed;
    obs.pytorchCheckMessage = call.checkMessage;
    obs.exported = call.exported;
    if (call.traces.isEmpty())
        obs.error = call.error;
    const QString pytorchWords = outputMismatchWords(call); // under the value divergence of a set it checked
    for (int k = 0; k < call.traces.size(); ++k) {
        const PythonTrace& t = call.traces[k];
        TraceResult tr;
        tr.ok = t.ok;
        tr.error = t.error;
        if (auto set = parseInputSet(t.inputs))
            tr.inputs = *set;
        tr.graph = t.graph;
        tr.repeat = t.repeat;
        tr.parting = t.parting;
        if (t.repeat)
            tr.note = QStringLiteral("the example inputs again");
        if (t.ok) {
            const NodePlaces places(t.graph);
            for (const PythonWarning& w : t.warnings)
                tr.warnings << traceWarning(w, k, &places, call.location);
        } else {
            for (const PythonWarning& w : t.warnings)
                tr.warnings << traceWarning(w, k, nullptr, call.location);
        }
        obs.traces << tr;
        obs.checkWords << (t.tracedHere ? QString() : pytorchWords);
        if (k > 0)
            obs.outputs << recordedOutputs(t, call.traces[0]);
    }
    return buildCheckReport(std::move(obs));
}

QVector<CheckReport> checkRecordedCalls(const QString& folder, const QString& source)
{
    PythonRun run;
    CheckReport failed;
    if (!readPythonRecord(folder, run, &failed.error.message))
        return { failed };
    QVector<CheckReport> reports;
    for (const PythonCall& call : std::as_const(run.calls)) {
        if (call.api == QLatin1String("script") || call.traces.isEmpty())
            reports << CheckReport();
        else // the window compares any two traces
            reports << checkRecordedCall(run, call, source, true);
        // The exported program beside trace 1, for the window's Export tab and Compare: read here, in the engine,
        // from the .pt2 the bridge saved (JitScope's own reader, no Python).
        ExportReport& e = reports.last().exported;
        // A failed export may have one too: the program made with the failing dimensions specialized.
        if (!e.program.isEmpty()) {
            const ExportedProgram program = readExportedProgram(QDir(folder).filePath(e.program));
            if (!program.ok) {
                e.programError = program.error.toString();
            } else {
                e.graph = program.graph;
                const CheckReport& r = reports.last();
                if (!r.traces.isEmpty() && r.traces.first().ok)
                    e.traceDiff = diffTraceAgainstExport(r.traces.first().graph, e.graph, e);
            }
        }
    }
    return reports;
}

} // namespace jitscope
