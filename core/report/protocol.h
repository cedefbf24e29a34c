#pragma once

// The window's model worker and the window talk in frames: a 32-bit length, then a QDataStream of a magic, the
// protocol version, the message type, its request id and its payload. The result values that cross (a LoadResult
// without its ModelHandle, FunctionInfo and IrGraph, InputSuggestion, submodule types, CheckReport, diagnostics)
// are written field by field by the operators below, plain Qt code: no libtorch here. docs/worker-protocol.md
// describes the framing and every message; MessageType below is the one list of them.

#include "report/checkreport.h"
#include "report/debugpause.h"
#include "report/graphlayout.h"
#include "report/modelinfo.h"
#include "report/pythonrun.h"
#include "report/selfcheck.h"

#include <QByteArray>
#include <QDataStream>
#include <QHash>
#include <QIODevice>
#include <QObject>
#include <QString>

#include <optional>

namespace jitscope {

namespace protocol {

Q_NAMESPACE

constexpr quint32 kMagic = 0x4a53574b; ///< "JSWK"
/// Bumped whenever a message or a value's fields change: both ends must be built from the same sources.
constexpr quint16 kVersion = 12;
/// Frames larger than this are refused as corrupt (a report of a big model's traces is tens of megabytes).
constexpr quint32 kMaxFrame = 1u << 30;

/// Every message of the protocol, each with its direction, its payload (the values pack() writes, in order) and
/// what answers it. A request's answer is an Answer (its payload as said here), a Failure or an UnknownModel with the
/// request's id; "no answer" messages get none. docs/worker-protocol.md lists the same (tst_protocol fails when a
/// value is missing there).
enum class MessageType : quint16 {
    /// worker -> window, once at start, id 0: qint64 pid, QString libtorch version, QString Graphviz version.
    /// No answer: the worker is ready.
    Hello = 1,
    /// window -> worker: int model (the window's id for it), QString path, LoadOptions.
    /// Answer: LoadResult; the worker keeps the model under that id until Release (sent again, id 0, to a worker
    /// started after a crash, whose answer nobody waits for).
    Load,
    /// window -> worker: int model, QString function. Answer: bool ok, FunctionInfo (inlined), QString error.
    Inline,
    /// window -> worker: int model, QString function. Answer: std::optional<InputSuggestion>.
    Suggest,
    /// window -> worker: int model, QString function. Answer: QHash<QString, QString> (submodule path to type).
    SubmoduleTypes,
    /// window -> worker: int model, QString function, QVector<InputSet>, CheckOptions. Answer: CheckReport.
    Check,
    /// window -> worker, id: the request to cancel; empty payload. No answer (the request answers as it ends).
    Cancel,
    /// window -> worker, id 0: int model, forgotten. No answer.
    Release,
    /// worker -> window, every 200 ms, id 0: HeartbeatInfo. No answer.
    Heartbeat,
    /// worker -> window, id: the request's: the request's answer, as its message says.
    Answer,
    /// worker -> window, id: the request's: QString message (a malformed or unknown request, a model that failed
    /// to load). It answers the request.
    Failure,
    /// worker -> window, id: the request's: int model, which the worker does not hold (it was restarted). It answers
    /// the request.
    UnknownModel,
    /// window -> worker, id: the session's from then on: int model, DebugTarget, QVector<DebugBreakpoint>.
    /// Answered by DebugPause messages with that id, the last one finished.
    DebugStart,
    /// window -> worker, id: the session's: qint32 DebugOp, then for Resume qint32 DebugCommand and int line, for
    /// Breakpoints QVector<DebugBreakpoint>, for Stop and End nothing. No answer but the session's DebugPauses.
    DebugCommand,
    /// worker -> window, id: the session's: DebugPause (paused, or finished). No answer.
    DebugPause,
    /// window -> worker: IrGraph, LayoutOptions, QString what (for the activity line). Answer: GraphLayout (laid out
    /// by Graphviz there, where a crash of dot costs the worker, not the window).
    Layout,
    /// window -> worker: QString file, QString python, QString bridge, int timeoutMs, QString record folder,
    /// QVector<int> call indexes. Answer: QVector<SelfCheck> (selfCheckRecordedCalls()).
    SelfCheck,
    /// window -> worker: QString record folder (PythonRun::folder), QString the file's text. Answer:
    /// QVector<CheckReport>, one per recorded call (checkRecordedCalls(): diffed, explained and grouped there).
    CheckRecordedCalls,
    /// window -> worker: QString the .py file, PythonOptions, QString the folder the window made for its record
    /// (makePythonRunFolder()). Answer: PythonChild (runPythonChild(): the window reads the record itself).
    RunPython,
};
Q_ENUM_NS(MessageType)

/// What a DebugCommand message does to its session.
enum class DebugOp : qint32 { Resume, Breakpoints, Stop, End };
Q_ENUM_NS(DebugOp)

struct Message
{
    MessageType type = MessageType::Hello;
    quint64 id = 0; ///< the request's, chosen by the window; answers carry it back
    QByteArray payload;
};

/// What the worker is doing, as its crash line would say it.
struct HeartbeatInfo
{
    QString activity; ///< "FILE:LINE: while running aten::mul (checking `forward` set 2)", empty when idle
    qint64 operatorMs = -1; ///< how long the operator running has been running, -1 between operators
    quint64 operatorCalls = 0; ///< operator calls so far in the process
    int busy = 0; ///< requests running
};
QDataStream& operator<<(QDataStream& s, const HeartbeatInfo& v);
QDataStream& operator>>(QDataStream& s, HeartbeatInfo& v);

/// The frame of @p message, length prefix included.
QByteArray encode(const Message& message);

/// Cuts frames out of a byte stream (a pipe): append() what was read, then next() until it returns nothing.
class FrameReader
{
public:
    void append(const QByteArray& bytes) { m_buffer.append(bytes); }
    /// The next complete message; nothing when more bytes are needed or on a bad frame (error() then says
    /// what was wrong: a wrong magic, another protocol version, an oversized frame). After an error the stream
    /// is unusable.
    std::optional<Message> next();
    QString error() const { return m_error; }

private:
    QByteArray m_buffer;
    QString m_error;
};

/// Writes @p args into a payload.
template <typename... Args> QByteArray pack(const Args&... args)
{
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_0);
    (out << ... << args);
    return bytes;
}

/// Reads @p args from a payload; false when it was short or malformed.
template <typename... Args> bool unpack(const QByteArray& bytes, Args&... args)
{
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_0);
    (in >> ... >> args);
    return in.status() == QDataStream::Ok;
}

} // namespace protocol

QDataStream& operator<<(QDataStream& s, const SourceLocation& v);
QDataStream& operator>>(QDataStream& s, SourceLocation& v);
QDataStream& operator<<(QDataStream& s, const Diagnostic& v);
QDataStream& operator>>(QDataStream& s, Diagnostic& v);
/// An optional value: whether it is set, then the value when it is.
template <typename T> QDataStream& operator<<(QDataStream& s, const std::optional<T>& v)
{
    s << v.has_value();
    if (v)
        s << *v;
    return s;
}
template <typename T> QDataStream& operator>>(QDataStream& s, std::optional<T>& v)
{
    bool has = false;
    s >> has;
    v.reset();
    if (has) {
        T value;
        s >> value;
        v = std::move(value);
    }
    return s;
}

QDataStream& operator<<(QDataStream& s, const TensorInfo& v);
QDataStream& operator>>(QDataStream& s, TensorInfo& v);
QDataStream& operator<<(QDataStream& s, const IrValue& v);
QDataStream& operator>>(QDataStream& s, IrValue& v);
QDataStream& operator<<(QDataStream& s, const IrAttribute& v);
QDataStream& operator>>(QDataStream& s, IrAttribute& v);
QDataStream& operator<<(QDataStream& s, const IrBlock& v);
QDataStream& operator>>(QDataStream& s, IrBlock& v);
QDataStream& operator<<(QDataStream& s, const LoopFrame& v);
QDataStream& operator>>(QDataStream& s, LoopFrame& v);
QDataStream& operator<<(QDataStream& s, const IrNode& v);
QDataStream& operator>>(QDataStream& s, IrNode& v);
QDataStream& operator<<(QDataStream& s, const IrGraph& v);
QDataStream& operator>>(QDataStream& s, IrGraph& v);
QDataStream& operator<<(QDataStream& s, const InputValue& v);
QDataStream& operator>>(QDataStream& s, InputValue& v);
QDataStream& operator<<(QDataStream& s, const InputSet& v);
QDataStream& operator>>(QDataStream& s, InputSet& v);
QDataStream& operator<<(QDataStream& s, const FunctionInfo& v);
QDataStream& operator>>(QDataStream& s, FunctionInfo& v);
QDataStream& operator<<(QDataStream& s, const ParameterInfo& v);
QDataStream& operator>>(QDataStream& s, ParameterInfo& v);
QDataStream& operator<<(QDataStream& s, const SubmoduleInfo& v);
QDataStream& operator>>(QDataStream& s, SubmoduleInfo& v);
QDataStream& operator<<(QDataStream& s, const OpLibrary& v);
QDataStream& operator>>(QDataStream& s, OpLibrary& v);
/// Everything but ModelInfo::handle, which stays in the worker (read back as null).
QDataStream& operator<<(QDataStream& s, const ModelInfo& v);
QDataStream& operator>>(QDataStream& s, ModelInfo& v);
QDataStream& operator<<(QDataStream& s, const LoadOptions& v);
QDataStream& operator>>(QDataStream& s, LoadOptions& v);
QDataStream& operator<<(QDataStream& s, const LoadResult& v);
QDataStream& operator>>(QDataStream& s, LoadResult& v);
QDataStream& operator<<(QDataStream& s, const InputSuggestion& v);
QDataStream& operator>>(QDataStream& s, InputSuggestion& v);
QDataStream& operator<<(QDataStream& s, const ValueSummary& v);
QDataStream& operator>>(QDataStream& s, ValueSummary& v);
QDataStream& operator<<(QDataStream& s, const TraceWarning& v);
QDataStream& operator>>(QDataStream& s, TraceWarning& v);
QDataStream& operator<<(QDataStream& s, const ObservedParting& v);
QDataStream& operator>>(QDataStream& s, ObservedParting& v);
QDataStream& operator<<(QDataStream& s, const TraceResult& v);
QDataStream& operator>>(QDataStream& s, TraceResult& v);
QDataStream& operator<<(QDataStream& s, const NodeChange& v);
QDataStream& operator>>(QDataStream& s, NodeChange& v);
QDataStream& operator<<(QDataStream& s, const TraceFailure& v);
QDataStream& operator>>(QDataStream& s, TraceFailure& v);
QDataStream& operator<<(QDataStream& s, const ValueRow& v);
QDataStream& operator>>(QDataStream& s, ValueRow& v);
QDataStream& operator<<(QDataStream& s, const ValueDivergence& v);
QDataStream& operator>>(QDataStream& s, ValueDivergence& v);
QDataStream& operator<<(QDataStream& s, const Divergence& v);
QDataStream& operator>>(QDataStream& s, Divergence& v);
QDataStream& operator<<(QDataStream& s, const TraceDiff& v);
QDataStream& operator>>(QDataStream& s, TraceDiff& v);
QDataStream& operator<<(QDataStream& s, const OutputComparison& v);
QDataStream& operator>>(QDataStream& s, OutputComparison& v);
QDataStream& operator<<(QDataStream& s, const OutputCheck& v);
QDataStream& operator>>(QDataStream& s, OutputCheck& v);
QDataStream& operator<<(QDataStream& s, const ExportFinding& v);
QDataStream& operator>>(QDataStream& s, ExportFinding& v);
QDataStream& operator<<(QDataStream& s, const ExportFact& v);
QDataStream& operator>>(QDataStream& s, ExportFact& v);
QDataStream& operator<<(QDataStream& s, const ExportSetRow& v);
QDataStream& operator>>(QDataStream& s, ExportSetRow& v);
QDataStream& operator<<(QDataStream& s, const ExportReport& v);
QDataStream& operator>>(QDataStream& s, ExportReport& v);
/// The options that cross: tolerances, seed, memory, timeout, strict, inlineCalls (not the cancel flag, the
/// observer or the test switches: the worker has its own).
QDataStream& operator<<(QDataStream& s, const CheckOptions& v);
QDataStream& operator>>(QDataStream& s, CheckOptions& v);
QDataStream& operator<<(QDataStream& s, const ExecFrame& v);
QDataStream& operator>>(QDataStream& s, ExecFrame& v);
QDataStream& operator<<(QDataStream& s, const NamedValue& v);
QDataStream& operator>>(QDataStream& s, NamedValue& v);
/// Everything but the callables (liveValues, traceSoFar), which live only during the observer call.
QDataStream& operator<<(QDataStream& s, const NodeEvent& v);
QDataStream& operator>>(QDataStream& s, NodeEvent& v);
QDataStream& operator<<(QDataStream& s, const RunResult& v);
QDataStream& operator>>(QDataStream& s, RunResult& v);
QDataStream& operator<<(QDataStream& s, const DebugPause& v);
QDataStream& operator>>(QDataStream& s, DebugPause& v);
QDataStream& operator<<(QDataStream& s, const DebugTarget& v);
QDataStream& operator>>(QDataStream& s, DebugTarget& v);
QDataStream& operator<<(QDataStream& s, const DebugBreakpoint& v);
QDataStream& operator>>(QDataStream& s, DebugBreakpoint& v);
QDataStream& operator<<(QDataStream& s, const SelfCheck& v);
QDataStream& operator>>(QDataStream& s, SelfCheck& v);
QDataStream& operator<<(QDataStream& s, const CheckReport& v);
QDataStream& operator>>(QDataStream& s, CheckReport& v);
QDataStream& operator<<(QDataStream& s, const PythonRequest& v);
QDataStream& operator>>(QDataStream& s, PythonRequest& v);
/// Everything but the cancel flag (the worker has its own).
QDataStream& operator<<(QDataStream& s, const PythonOptions& v);
QDataStream& operator>>(QDataStream& s, PythonOptions& v);
QDataStream& operator<<(QDataStream& s, const PythonChild& v);
QDataStream& operator>>(QDataStream& s, PythonChild& v);
/// The options that shape the picture (not the cancel flag or the cache: the worker keeps a cache of its own).
QDataStream& operator<<(QDataStream& s, const LayoutOptions& v);
QDataStream& operator>>(QDataStream& s, LayoutOptions& v);
QDataStream& operator<<(QDataStream& s, const LayoutNode& v);
QDataStream& operator>>(QDataStream& s, LayoutNode& v);
QDataStream& operator<<(QDataStream& s, const LayoutEdge& v);
QDataStream& operator>>(QDataStream& s, LayoutEdge& v);
QDataStream& operator<<(QDataStream& s, const LayoutCluster& v);
QDataStream& operator>>(QDataStream& s, LayoutCluster& v);
QDataStream& operator<<(QDataStream& s, const GraphLayout::Stats& v);
QDataStream& operator>>(QDataStream& s, GraphLayout::Stats& v);
QDataStream& operator<<(QDataStream& s, const GraphLayout& v);
QDataStream& operator>>(QDataStream& s, GraphLayout& v);

} // namespace jitscope
