#include "report/protocol.h"

#include <QtEndian>

namespace jitscope {

namespace protocol {

QByteArray encode(const Message& message)
{
    QByteArray body;
    {
        QDataStream out(&body, QIODevice::WriteOnly);
        out.setVersion(QDataStream::Qt_6_0);
        out << kMagic << kVersion << quint16(message.type) << message.id << message.payload;
    }
    QByteArray frame(4, Qt::Uninitialized);
    qToBigEndian<quint32>(quint32(body.size()), frame.data());
    return frame + body;
}

std::optional<Message> FrameReader::next()
{
    if (!m_error.isEmpty() || m_buffer.size() < 4)
        return std::nullopt;
    const quint32 length = qFromBigEndian<quint32>(m_buffer.constData());
    if (length > kMaxFrame || length < 4) {
        m_error
            = QStringLiteral("a frame of %1 bytes (the limit is %2): the stream is corrupt").arg(length).arg(kMaxFrame);
        return std::nullopt;
    }
    if (quint64(m_buffer.size()) < 4 + quint64(length))
        return std::nullopt;
    const QByteArray body = m_buffer.mid(4, length);
    m_buffer.remove(0, 4 + length);
    QDataStream in(body);
    in.setVersion(QDataStream::Qt_6_0);
    quint32 magic = 0;
    quint16 version = 0;
    in >> magic;
    if (magic != kMagic) {
        m_error = QStringLiteral("a frame that does not start with the worker protocol's magic (0x%1, expected "
                                 "0x%2)")
                      .arg(magic, 8, 16, QLatin1Char('0'))
                      .arg(kMagic, 8, 16, QLatin1Char('0'));
        return std::nullopt;
    }
    in >> version;
    if (version != kVersion) {
        m_error = QStringLiteral("protocol version %1, but this side speaks version %2 (the window and "
                                 "jitscope-worker come from different builds)")
                      .arg(version)
                      .arg(kVersion);
        return std::nullopt;
    }
    Message m;
    quint16 type = 0;
    in >> type >> m.id >> m.payload;
    if (in.status() != QDataStream::Ok) {
        m_error = QStringLiteral("a truncated frame header");
        return std::nullopt;
    }
    m.type = MessageType(type);
    return m;
}

QDataStream& operator<<(QDataStream& s, const HeartbeatInfo& v)
{
    return s << v.activity << v.operatorMs << v.operatorCalls << v.busy;
}

QDataStream& operator>>(QDataStream& s, HeartbeatInfo& v)
{
    return s >> v.activity >> v.operatorMs >> v.operatorCalls >> v.busy;
}

} // namespace protocol

namespace {

/// Reads what was written: the same fields, in the same order, as the writer. One list per type keeps the two in
/// step: FIELDS(X) names them once for both directions.
template <typename T> void readEnum(QDataStream& s, T& v)
{
    qint32 raw = 0;
    s >> raw;
    v = T(raw);
}

template <typename T> void writeEnum(QDataStream& s, T v)
{
    s << qint32(v);
}

} // namespace

#define JITSCOPE_SERIALIZE(Type, FIELDS)                                                                               \
    QDataStream& operator<<(QDataStream& s, const Type& v)                                                             \
    {                                                                                                                  \
        FIELDS(<<);                                                                                                    \
        return s;                                                                                                      \
    }                                                                                                                  \
    QDataStream& operator>>(QDataStream& s, Type& v)                                                                   \
    {                                                                                                                  \
        FIELDS(>>);                                                                                                    \
        return s;                                                                                                      \
    }

#define TENSORINFO_FIELDS(OP) s OP v.dtype OP v.device OP v.sizes
JITSCOPE_SERIALIZE(TensorInfo, TENSORINFO_FIELDS)
#define IRVALUE_FIELDS(OP) s OP v.id OP v.name OP v.type OP v.producer OP v.tensor OP v.role OP v.roleTarget
JITSCOPE_SERIALIZE(IrValue, IRVALUE_FIELDS)
#define TARGET_FIELDS(OP)                                                                                              \
    s OP v.function OP v.inputs OP v.tracing OP v.archive OP v.method OP v.inputsFile OP v.recordedOn OP               \
        v.stopAtKind OP v.stopAtOccurrence OP v.stopReason
JITSCOPE_SERIALIZE(DebugTarget, TARGET_FIELDS)
#define CHECKOPTIONS_FIELDS(OP)                                                                                        \
    s OP v.rtol OP v.atol OP v.exec.seed OP v.exec.maxMemory OP v.exec.timeoutMs OP v.exec.strict OP v.inlineCalls OP  \
        v.everyPair
JITSCOPE_SERIALIZE(CheckOptions, CHECKOPTIONS_FIELDS)
#define SOURCELOCATION_FIELDS(OP) s OP v.file OP v.line OP v.column
JITSCOPE_SERIALIZE(SourceLocation, SOURCELOCATION_FIELDS)
#define DIAGNOSTIC_FIELDS(OP) s OP v.message OP v.location
JITSCOPE_SERIALIZE(Diagnostic, DIAGNOSTIC_FIELDS)
#define IRATTRIBUTE_FIELDS(OP) s OP v.name OP v.kind OP v.value OP v.data
JITSCOPE_SERIALIZE(IrAttribute, IRATTRIBUTE_FIELDS)
#define IRBLOCK_FIELDS(OP) s OP v.inputs OP v.outputs OP v.nodes
JITSCOPE_SERIALIZE(IrBlock, IRBLOCK_FIELDS)
#define LOOPFRAME_FIELDS(OP) s OP v.loopNode OP v.iteration OP v.line
JITSCOPE_SERIALIZE(LoopFrame, LOOPFRAME_FIELDS)
#define IRNODE_FIELDS(OP)                                                                                              \
    s OP v.id OP v.kind OP v.schema OP v.inputs OP v.outputs OP v.attributes OP v.attributeText OP v.blocks OP v       \
        .location OP v.scope OP v.modulePath OP v.parentNode OP v.parentBlock OP v.originNode OP v.loopPath OP v.stack
JITSCOPE_SERIALIZE(IrNode, IRNODE_FIELDS)
#define IRGRAPH_FIELDS(OP) s OP v.values OP v.nodes OP v.top OP v.signatureHashes
JITSCOPE_SERIALIZE(IrGraph, IRGRAPH_FIELDS)
#define INPUTSET_FIELDS(OP) s OP v.args OP v.line
JITSCOPE_SERIALIZE(InputSet, INPUTSET_FIELDS)
#define FUNCTIONINFO_FIELDS(OP)                                                                                        \
    s OP v.name OP v.signature OP v.location OP v.ok OP v.error OP v.graph OP v.inlinedIds OP v.inlined
JITSCOPE_SERIALIZE(FunctionInfo, FUNCTIONINFO_FIELDS)
#define SUBMODULEINFO_FIELDS(OP) s OP v.path OP v.typeName OP v.methods
JITSCOPE_SERIALIZE(SubmoduleInfo, SUBMODULEINFO_FIELDS)
#define LOADOPTIONS_FIELDS(OP) s OP v.opLibraries OP v.inlineCalls OP v.strictOpLibraries
JITSCOPE_SERIALIZE(LoadOptions, LOADOPTIONS_FIELDS)
#define OPLIBRARY_FIELDS(OP) s OP v.path OP v.namespaces OP v.found
JITSCOPE_SERIALIZE(OpLibrary, OPLIBRARY_FIELDS)
#define LOADRESULT_FIELDS(OP) s OP v.ok OP v.model OP v.error
JITSCOPE_SERIALIZE(LoadResult, LOADRESULT_FIELDS)
#define INPUTSUGGESTION_FIELDS(OP) s OP v.set OP v.reason
JITSCOPE_SERIALIZE(InputSuggestion, INPUTSUGGESTION_FIELDS)
#define VALUESUMMARY_FIELDS(OP)                                                                                        \
    s OP v.kind OP v.dtype OP v.shape OP v.sum OP v.text OP v.items OP v.device OP v.min OP v.max OP v.mean OP         \
        v.std OP v.nanCount OP v.infCount OP v.preview OP v.sliceRows OP v.sliceColumns OP v.slice
JITSCOPE_SERIALIZE(ValueSummary, VALUESUMMARY_FIELDS)
#define OBSERVEDPARTING_FIELDS(OP)                                                                                     \
    s OP v.present OP v.location OP v.function OP v.statement OP v.text OP v.condition OP v.firstValues OP             \
        v.otherValues OP v.operands OP v.firstIterations OP v.otherIterations OP v.stack
JITSCOPE_SERIALIZE(ObservedParting, OBSERVEDPARTING_FIELDS)
#define TRACERESULT_FIELDS(OP)                                                                                         \
    s OP v.ok OP v.error OP v.inputs OP v.graph OP v.warnings OP v.outputs OP v.note OP v.branches OP v.repeat OP      \
        v.parting
JITSCOPE_SERIALIZE(TraceResult, TRACERESULT_FIELDS)
#define TRACEDIFF_FIELDS(OP) s OP v.base OP v.other OP v.equal OP v.changes OP v.divergences
JITSCOPE_SERIALIZE(TraceDiff, TRACEDIFF_FIELDS)
#define OUTPUTCOMPARISON_FIELDS(OP)                                                                                    \
    s OP v.equal OP v.message OP v.mismatched OP v.total OP v.greatestAbsDiff OP v.greatestRelDiff OP v.where
JITSCOPE_SERIALIZE(OutputComparison, OUTPUTCOMPARISON_FIELDS)
#define TRACEFAILURE_FIELDS(OP) s OP v.node OP v.kind OP v.location OP v.scope OP v.stack OP v.error OP v.operands
JITSCOPE_SERIALIZE(TraceFailure, TRACEFAILURE_FIELDS)
#define VALUEROW_FIELDS(OP) s OP v.what OP v.trace OP v.other
JITSCOPE_SERIALIZE(ValueRow, VALUEROW_FIELDS)
#define VALUEDIVERGENCE_FIELDS(OP)                                                                                     \
    s OP v.present OP v.error OP v.node OP v.op OP v.module OP v.cause OP v.message OP v.traceValue OP v.otherValue OP \
        v.otherOp OP v.otherAt OP v.operands OP v.operandRows OP v.randomNode
JITSCOPE_SERIALIZE(ValueDivergence, VALUEDIVERGENCE_FIELDS)
#define OUTPUTCHECK_FIELDS(OP)                                                                                         \
    s OP v.ran OP v.error OP v.comparison OP v.failure OP v.outputs OP v.bakedSizes OP v.values
JITSCOPE_SERIALIZE(OutputCheck, OUTPUTCHECK_FIELDS)
#define EXPORTFINDING_FIELDS(OP)                                                                                       \
    s OP v.kind OP v.type OP v.message OP v.expression OP v.guard OP v.userLocation OP v.userText OP                   \
        v.libraryLocation OP v.libraryText OP v.stack OP v.stackFunctions OP v.suggestedFix
JITSCOPE_SERIALIZE(ExportFinding, EXPORTFINDING_FIELDS)
#define EXPORTFACT_FIELDS(OP) s OP v.text OP v.name OP v.symbol OP v.location OP v.sourceText
JITSCOPE_SERIALIZE(ExportFact, EXPORTFACT_FIELDS)
#define EXPORTSETROW_FIELDS(OP) s OP v.set OP v.trace OP v.status OP v.message
JITSCOPE_SERIALIZE(ExportSetRow, EXPORTSETROW_FIELDS)
#define EXPORTREPORT_FIELDS(OP)                                                                                        \
    s OP v.requested OP v.status OP v.torchVersion OP v.reason OP v.dynamic OP v.dynamicBy OP v.findings OP v.draft OP \
        v.draftError OP v.ranges OP v.specializations OP v.sets OP v.program OP v.programError OP v.graph OP           \
            v.traceDiff OP v.seconds
JITSCOPE_SERIALIZE(ExportReport, EXPORTREPORT_FIELDS)

#define NAMEDVALUE_FIELDS(OP) s OP v.name OP v.value
JITSCOPE_SERIALIZE(NamedValue, NAMEDVALUE_FIELDS)
#define RUNRESULT_FIELDS(OP) s OP v.ok OP v.error OP v.inputs OP v.outputs
JITSCOPE_SERIALIZE(RunResult, RUNRESULT_FIELDS)
#define NODEEVENT_FIELDS(OP)                                                                                           \
    s OP v.scriptNode OP v.depth OP v.blockDepth OP v.frames OP v.loopPath OP v.location OP v.kind OP v.after OP       \
        v.breakpoint OP v.values
JITSCOPE_SERIALIZE(NodeEvent, NODEEVENT_FIELDS)
#define PAUSE_FIELDS(OP)                                                                                               \
    s OP v.serial OP v.finished OP v.event OP v.values OP v.traceSoFar OP v.atBreakpoint OP v.atFailure OP             \
        v.failure OP v.failureNode OP v.result OP v.trace
JITSCOPE_SERIALIZE(DebugPause, PAUSE_FIELDS)
#define BREAKPOINT_FIELDS(OP) s OP v.line OP v.iteration
JITSCOPE_SERIALIZE(DebugBreakpoint, BREAKPOINT_FIELDS)

#define LAYOUTOPTIONS_FIELDS(OP)                                                                                       \
    s OP v.foldConstants OP v.showBlocks OP v.groupByModule OP v.foldedModules OP v.moduleTypes OP v.foldedNodes OP    \
        v.hideUnreachable OP v.fontName OP v.fontSize OP v.hierarchicalAbove
JITSCOPE_SERIALIZE(LayoutOptions, LAYOUTOPTIONS_FIELDS)
#define LAYOUTEDGE_FIELDS(OP)                                                                                          \
    s OP v.fromNode OP v.toNode OP v.valueId OP v.label OP v.points OP v.labelPos OP v.hasArrow
JITSCOPE_SERIALIZE(LayoutEdge, LAYOUTEDGE_FIELDS)
#define LAYOUTCLUSTER_FIELDS(OP) s OP v.nodeId OP v.blockIndex OP v.module OP v.parentCluster OP v.title OP v.box
JITSCOPE_SERIALIZE(LayoutCluster, LAYOUTCLUSTER_FIELDS)
#define LAYOUTSTATS_FIELDS(OP) s OP v.hierarchical OP v.clusters OP v.dotRuns OP v.reused OP v.cached
JITSCOPE_SERIALIZE(GraphLayout::Stats, LAYOUTSTATS_FIELDS)
#define GRAPHLAYOUT_FIELDS(OP)                                                                                         \
    s OP v.bounds OP v.nodes OP v.edges OP v.clusters OP v.error OP v.cancelled OP v.stats OP v.boxOfNode
JITSCOPE_SERIALIZE(GraphLayout, GRAPHLAYOUT_FIELDS)
#define PYTHONOPTIONS_FIELDS(OP)                                                                                       \
    s OP v.request OP v.python OP v.bridge OP v.returnedValues OP v.definitions OP v.archives OP v.exportCalls OP      \
        v.timeoutMs OP v.maxOutputBytes OP v.warm
JITSCOPE_SERIALIZE(PythonOptions, PYTHONOPTIONS_FIELDS)
#define PYTHONCHILD_FIELDS(OP)                                                                                         \
    s OP v.python OP v.startError OP v.stopped OP v.timeoutMs OP v.crashed OP v.exitCode OP v.stdoutText OP            \
        v.stderrText OP v.outputTruncated OP v.warm
JITSCOPE_SERIALIZE(PythonChild, PYTHONCHILD_FIELDS)

#undef JITSCOPE_SERIALIZE

// Types with enums, written by hand.

QDataStream& operator<<(QDataStream& s, const InputValue& v)
{
    writeEnum(s, v.kind);
    s << v.dtype << v.shape;
    writeEnum(s, v.fill);
    return s << v.fillValue << v.values << v.intValue << v.floatValue << v.boolValue << v.items << v.keys;
}

QDataStream& operator>>(QDataStream& s, InputValue& v)
{
    readEnum(s, v.kind);
    s >> v.dtype >> v.shape;
    readEnum(s, v.fill);
    return s >> v.fillValue >> v.values >> v.intValue >> v.floatValue >> v.boolValue >> v.items >> v.keys;
}

QDataStream& operator<<(QDataStream& s, const ParameterInfo& v)
{
    s << v.name;
    writeEnum(s, v.kind);
    return s << v.type << v.dtype << v.shape << v.value;
}

QDataStream& operator>>(QDataStream& s, ParameterInfo& v)
{
    s >> v.name;
    readEnum(s, v.kind);
    return s >> v.type >> v.dtype >> v.shape >> v.value;
}

QDataStream& operator<<(QDataStream& s, const ModelInfo& v)
{
    s << v.path;
    writeEnum(s, v.kind);
    return s << v.source << v.functions << v.submodules << v.parameters << v.inputSets << v.warnings << v.opLibraries;
}

QDataStream& operator>>(QDataStream& s, ModelInfo& v)
{
    s >> v.path;
    readEnum(s, v.kind);
    v.handle.reset();
    return s >> v.source >> v.functions >> v.submodules >> v.parameters >> v.inputSets >> v.warnings >> v.opLibraries;
}

QDataStream& operator<<(QDataStream& s, const TraceWarning& v)
{
    writeEnum(s, v.kind);
    return s << v.message << v.traceIndex << v.traceNode << v.scriptNode << v.location << v.suggestion << v.detail
             << v.count << v.stack << v.occurrences;
}

QDataStream& operator>>(QDataStream& s, TraceWarning& v)
{
    readEnum(s, v.kind);
    return s >> v.message >> v.traceIndex >> v.traceNode >> v.scriptNode >> v.location >> v.suggestion >> v.detail
        >> v.count >> v.stack >> v.occurrences;
}

QDataStream& operator<<(QDataStream& s, const NodeChange& v)
{
    writeEnum(s, v.op);
    writeEnum(s, v.kind);
    return s << v.baseNode << v.otherNode << v.scriptNode << v.location << v.cause << v.causeAt << v.scope
             << v.divergence;
}

QDataStream& operator>>(QDataStream& s, NodeChange& v)
{
    readEnum(s, v.op);
    readEnum(s, v.kind);
    return s >> v.baseNode >> v.otherNode >> v.scriptNode >> v.location >> v.cause >> v.causeAt >> v.scope
        >> v.divergence;
}

QDataStream& operator<<(QDataStream& s, const Divergence& v)
{
    writeEnum(s, v.kind);
    return s << v.message << v.scope << v.scopeType << v.location << v.stack << v.changes << v.baseNodes << v.otherNodes
             << v.evidence << v.otherRun << v.values << v.observed;
}

QDataStream& operator>>(QDataStream& s, Divergence& v)
{
    readEnum(s, v.kind);
    return s >> v.message >> v.scope >> v.scopeType >> v.location >> v.stack >> v.changes >> v.baseNodes >> v.otherNodes
        >> v.evidence >> v.otherRun >> v.values >> v.observed;
}

QDataStream& operator<<(QDataStream& s, const ExecFrame& v)
{
    writeEnum(s, v.kind);
    return s << v.name << v.line << v.scriptNode << v.iteration << v.iterations << v.branch;
}

QDataStream& operator>>(QDataStream& s, ExecFrame& v)
{
    readEnum(s, v.kind);
    return s >> v.name >> v.line >> v.scriptNode >> v.iteration >> v.iterations >> v.branch;
}

QDataStream& operator<<(QDataStream& s, const SelfCheck& v)
{
    return s << v.status << v.reason << v.set << v.line << v.inputs << v.jitscope << v.pytorch << v.sets;
}

QDataStream& operator>>(QDataStream& s, SelfCheck& v)
{
    return s >> v.status >> v.reason >> v.set >> v.line >> v.inputs >> v.jitscope >> v.pytorch >> v.sets;
}

QDataStream& operator<<(QDataStream& s, const PythonRequest& v)
{
    writeEnum(s, v.mode);
    return s << v.target << v.sets << v.seed << v.strict;
}

QDataStream& operator>>(QDataStream& s, PythonRequest& v)
{
    readEnum(s, v.mode);
    return s >> v.target >> v.sets >> v.seed >> v.strict;
}

QDataStream& operator<<(QDataStream& s, const CheckReport& v)
{
    s << v.ok << v.error << v.file << v.function << v.script << v.traces << v.diffs << v.outputs << v.warnings;
    s << qint32(v.statuses.size());
    for (TraceStatus status : v.statuses)
        writeEnum(s, status);
    return s << v.consistent << v.moduleTypes << v.tracedArchive << v.pairDiffs << v.exported;
}

QDataStream& operator>>(QDataStream& s, CheckReport& v)
{
    s >> v.ok >> v.error >> v.file >> v.function >> v.script >> v.traces >> v.diffs >> v.outputs >> v.warnings;
    qint32 count = 0;
    s >> count;
    v.statuses.clear();
    for (qint32 i = 0; i < count && s.status() == QDataStream::Ok; ++i) {
        TraceStatus status = TraceStatus::Failed;
        readEnum(s, status);
        v.statuses.push_back(status);
    }
    return s >> v.consistent >> v.moduleTypes >> v.tracedArchive >> v.pairDiffs >> v.exported;
}

QDataStream& operator<<(QDataStream& s, const LayoutNode& v)
{
    s << v.nodeId;
    writeEnum(s, v.role);
    s << v.module << v.folded << v.title << v.details;
    writeEnum(s, v.category);
    return s << v.box;
}

QDataStream& operator>>(QDataStream& s, LayoutNode& v)
{
    s >> v.nodeId;
    readEnum(s, v.role);
    s >> v.module >> v.folded >> v.title >> v.details;
    readEnum(s, v.category);
    return s >> v.box;
}

} // namespace jitscope
