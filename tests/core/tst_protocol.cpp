// The frames between the window and its model worker, and every value that crosses them: written and read back,
// field by field. Each dump() below names every field of its type, so a field the protocol forgets to carry shows
// up as a difference (the synthetic values set every field to something other than its default).

#include "check/check.h"
#include "debug/debugsession.h"
#include "layout/layout.h"
#include "load/model.h"
#include "report/protocol.h"
#include "testutil.h"

#include <QJsonDocument>
#include <QMetaEnum>
#include <QRegularExpression>
#include <QTest>
#include <QtEndian>

#include <type_traits>

using namespace jitscope;
using namespace jitscope::protocol;

namespace {

template <typename T> T roundTrip(const T& value)
{
    T back {};
    const QByteArray bytes = pack(value);
    if (!unpack(bytes, back))
        qWarning("unpack failed");
    return back;
}

QString join(const QStringList& parts)
{
    return parts.join(QLatin1Char('|'));
}

template <typename T> QString numbers(const QVector<T>& v)
{
    QStringList parts;
    for (const T& x : v)
        if constexpr (std::is_floating_point_v<T>)
            parts << QString::number(x, 'g', 17);
        else
            parts << QString::number(x);
    return QLatin1Char('[') + parts.join(QLatin1Char(',')) + QLatin1Char(']');
}

template <typename T, typename F> QString list(const QVector<T>& v, F f)
{
    QStringList parts;
    for (const T& x : v)
        parts << f(x);
    return QLatin1Char('{') + parts.join(QLatin1Char(';')) + QLatin1Char('}');
}

QString dump(const SourceLocation& v)
{
    return join({ v.file, QString::number(v.line), QString::number(v.column) });
}

QString dump(const Diagnostic& v)
{
    return join({ v.message, dump(v.location) });
}

QString dump(const IrBlock& v)
{
    return join({ numbers(v.inputs), numbers(v.outputs), numbers(v.nodes) });
}

QString dump(const IrGraph& g)
{
    QStringList parts;
    for (const IrValue& v : g.values) {
        QString tensor = QStringLiteral("-");
        if (v.tensor)
            tensor = join({ v.tensor->dtype, v.tensor->device,
                v.tensor->sizes ? numbers(*v.tensor->sizes) : QStringLiteral("unranked") });
        parts << join({ QString::number(v.id), v.name, v.type, tensor, QString::number(v.producer) });
    }
    for (const IrNode& n : g.nodes) {
        parts << join({ QString::number(n.id), n.kind, n.schema, numbers(n.inputs), numbers(n.outputs),
            list(n.attributes,
                [](const IrAttribute& a) {
                    return join({ a.name, a.kind, a.value });
                }),
            n.attributeText, list(n.blocks, [](const IrBlock& b) { return dump(b); }), dump(n.location), n.scope,
            n.modulePath, QString::number(n.parentNode), QString::number(n.parentBlock), QString::number(n.originNode),
            list(n.loopPath, [](const LoopFrame& f) {
                return join({ QString::number(f.loopNode), QString::number(f.iteration), QString::number(f.line) });
            }) });
    }
    parts << dump(g.top) << numbers(g.signatureHashes);
    return parts.join(QLatin1Char('\n'));
}

QString dump(const InputValue& v)
{
    return join({ QString::number(int(v.kind)), v.dtype, numbers(v.shape), QString::number(int(v.fill)),
        QString::number(v.fillValue), numbers(v.values), QString::number(v.intValue), QString::number(v.floatValue),
        QString::number(v.boolValue), list(v.items, [](const InputValue& i) { return dump(i); }),
        v.keys.join(QLatin1Char(',')) });
}

QString dump(const InputSet& v)
{
    return join({ list(v.args, [](const InputValue& a) { return dump(a); }), QString::number(v.line) });
}

QString dump(const FunctionInfo& f)
{
    return join({ f.name, f.signature, dump(f.location), QString::number(f.ok), dump(f.error), dump(f.graph),
        numbers(f.inlinedIds), QString::number(f.inlined) });
}

QString dump(const ModelInfo& m)
{
    return join({ m.path, QString::number(int(m.kind)), m.source,
        list(m.functions, [](const FunctionInfo& f) { return dump(f); }),
        list(m.submodules,
            [](const SubmoduleInfo& s) {
                return join({ s.path, s.typeName, s.methods.join(QLatin1Char(',')) });
            }),
        list(m.parameters,
            [](const ParameterInfo& p) {
                return join({ p.name, QString::number(int(p.kind)), p.type, p.dtype, numbers(p.shape), p.value });
            }),
        list(m.inputSets, [](const InputSet& s) { return dump(s); }),
        list(m.warnings, [](const Diagnostic& d) { return dump(d); }), list(m.opLibraries, [](const OpLibrary& l) {
            return join({ l.path, l.namespaces.join(QLatin1Char(',')), QString::number(int(l.found)) });
        }) });
}

QString dump(const ValueSummary& v)
{
    return join({ v.kind, v.dtype, numbers(v.shape), QString::number(v.sum, 'g', 17), v.text,
        list(v.items, [](const ValueSummary& i) { return dump(i); }), v.device, QString::number(v.min, 'g', 17),
        QString::number(v.max, 'g', 17), QString::number(v.mean, 'g', 17), QString::number(v.std, 'g', 17),
        QString::number(v.nanCount), QString::number(v.infCount), numbers(v.preview), QString::number(v.sliceRows),
        QString::number(v.sliceColumns), numbers(v.slice) });
}

QString dump(const TraceWarning& w)
{
    return join({ QString::number(int(w.kind)), w.message, QString::number(w.traceIndex), QString::number(w.traceNode),
        QString::number(w.scriptNode), dump(w.location), w.suggestion, w.detail, QString::number(w.count) });
}

QString dump(const TraceResult& t)
{
    return join({ QString::number(t.ok), dump(t.error), dump(t.inputs), dump(t.graph),
        list(t.warnings, [](const TraceWarning& w) { return dump(w); }),
        list(t.outputs, [](const ValueSummary& v) { return dump(v); }), t.note });
}

QString dump(const NodeChange& c)
{
    return join({ QString::number(int(c.op)), QString::number(c.baseNode), QString::number(c.otherNode),
        QString::number(c.scriptNode), dump(c.location), c.cause });
}

QString dump(const OutputCheck& o)
{
    const OutputComparison& c = o.comparison;
    return join({ QString::number(o.ran), o.error, QString::number(c.equal), c.message, QString::number(c.mismatched),
        QString::number(c.total), QString::number(c.greatestAbsDiff, 'g', 17),
        QString::number(c.greatestRelDiff, 'g', 17), c.where,
        list(o.outputs, [](const ValueSummary& v) { return dump(v); }), o.bakedSizes.join(QLatin1Char('|')) });
}

QString dump(const CheckReport& r)
{
    return join({ QString::number(r.ok), dump(r.error), r.file, r.function, dump(r.script),
        list(r.traces, [](const TraceResult& t) { return dump(t); }),
        list(r.diffs,
            [](const TraceDiff& d) {
                return join({ QString::number(d.base), QString::number(d.other), QString::number(d.equal),
                    list(d.changes, [](const NodeChange& c) { return dump(c); }) });
            }),
        list(r.outputs, [](const OutputCheck& o) { return dump(o); }),
        list(r.warnings, [](const TraceWarning& w) { return dump(w); }),
        list(r.statuses, [](TraceStatus s) { return QString::number(int(s)); }), QString::number(r.consistent),
        QString::number(r.tracedArchive),
        list(r.pairDiffs,
            [](const TraceDiff& d) {
                return join({ QString::number(d.base), QString::number(d.other), QString::number(d.equal),
                    list(d.changes, [](const NodeChange& c) { return dump(c); }) });
            }) });
}

QString dump(const QRectF& r)
{
    return numbers(QVector<double> { r.x(), r.y(), r.width(), r.height() });
}

QString dump(const QPointF& p)
{
    return numbers(QVector<double> { p.x(), p.y() });
}

QString dump(const GraphLayout& l)
{
    const QString nodes = list(l.nodes, [](const LayoutNode& n) {
        return join({ QString::number(n.nodeId), QString::number(int(n.role)), n.module, QString::number(n.folded),
            n.title, n.details.join(QLatin1Char(',')), QString::number(int(n.category)), dump(n.box) });
    });
    const QString edges = list(l.edges, [](const LayoutEdge& e) {
        return join({ QString::number(e.fromNode), QString::number(e.toNode), QString::number(e.valueId), e.label,
            list(e.points, [](const QPointF& p) { return dump(p); }), dump(e.labelPos), QString::number(e.hasArrow) });
    });
    const QString clusters = list(l.clusters, [](const LayoutCluster& c) {
        return join({ QString::number(c.nodeId), QString::number(c.blockIndex), c.module,
            QString::number(c.parentCluster), c.title, dump(c.box) });
    });
    QStringList boxes;
    for (auto it = l.boxOfNode.cbegin(); it != l.boxOfNode.cend(); ++it)
        boxes << QStringLiteral("%1:%2").arg(it.key()).arg(it.value());
    boxes.sort();
    return join({ dump(l.bounds), nodes, edges, clusters, l.error, QString::number(l.cancelled),
        QString::number(l.stats.hierarchical), QString::number(l.stats.clusters), QString::number(l.stats.dotRuns),
        QString::number(l.stats.reused), QString::number(l.stats.cached), boxes.join(QLatin1Char(',')) });
}

QString dump(const ExecFrame& f)
{
    return join({ QString::number(int(f.kind)), f.name, QString::number(f.line), QString::number(f.scriptNode),
        QString::number(f.iteration), QString::number(f.iterations), QString::number(f.branch) });
}

QString dump(const NamedValue& v)
{
    return join({ v.name, dump(v.value) });
}

QString dump(const DebugSession::Pause& p)
{
    const NodeEvent& e = p.event;
    const QString event = join({ QString::number(e.scriptNode), QString::number(e.depth), QString::number(e.blockDepth),
        list(e.frames, [](const ExecFrame& f) { return dump(f); }),
        list(e.loopPath,
            [](const LoopFrame& f) {
                return join({ QString::number(f.loopNode), QString::number(f.iteration), QString::number(f.line) });
            }),
        dump(e.location), e.kind, QString::number(e.after), QString::number(e.breakpoint),
        list(e.values, [](const NamedValue& v) { return dump(v); }) });
    const RunResult& r = p.result;
    return join({ QString::number(p.serial), QString::number(p.finished), event,
        list(p.values, [](const NamedValue& v) { return dump(v); }), dump(p.traceSoFar),
        QString::number(p.atBreakpoint), QString::number(p.atFailure), p.failure, QString::number(p.failureNode),
        QString::number(r.ok), dump(r.error), dump(r.inputs),
        list(r.outputs, [](const ValueSummary& v) { return dump(v); }), dump(p.trace) });
}

SourceLocation somewhere(int line)
{
    return { QStringLiteral("/m/model.py"), line, line + 2 };
}

/// A graph whose every field is set.
IrGraph fullGraph()
{
    IrGraph g;
    IrValue in;
    in.id = 0;
    in.name = QStringLiteral("x");
    in.type = QStringLiteral("Float(2, 3)");
    in.tensor = TensorInfo { QStringLiteral("Float"), QVector<qint64> { 2, -1 }, QStringLiteral("cpu") };
    IrValue out;
    out.id = 1;
    out.name = QStringLiteral("y");
    out.type = QStringLiteral("Tensor");
    out.tensor = TensorInfo { QStringLiteral("Long"), std::nullopt, QStringLiteral("cuda:0") };
    out.producer = 0;
    g.values = { in, out };
    IrNode n;
    n.id = 0;
    n.kind = QStringLiteral("aten::mul");
    n.schema = QStringLiteral("aten::mul.Tensor(Tensor self, Tensor other) -> Tensor");
    n.inputs = { 0, 0 };
    n.outputs = { 1 };
    n.attributes = { { QStringLiteral("value"), QStringLiteral("i"), QStringLiteral("1") } };
    n.attributeText = QStringLiteral("[value=1]");
    n.blocks = { IrBlock { { 0 }, { 1 }, { 0 } } };
    n.location = somewhere(7);
    n.scope = QStringLiteral("__module.layer1");
    n.modulePath = QStringLiteral("layer1");
    n.parentNode = 3;
    n.parentBlock = 1;
    n.originNode = 4;
    n.loopPath = { LoopFrame { 2, 5, 6 } };
    g.nodes = { n };
    g.top = IrBlock { { 0 }, { 1 }, { 0 } };
    g.signatureHashes = { 0xfedcba9876543210ull };
    return g;
}

ValueSummary fullSummary()
{
    ValueSummary v;
    v.kind = QStringLiteral("tensor");
    v.dtype = QStringLiteral("float32");
    v.shape = { 2, 3 };
    v.sum = 1.5;
    v.text = QStringLiteral("tensor(...)");
    v.device = QStringLiteral("cpu");
    v.min = -1;
    v.max = 2;
    v.mean = 0.25;
    v.std = 0.75;
    v.nanCount = 3;
    v.infCount = 4;
    v.preview = { 0.5, 1.5 };
    v.sliceRows = 2;
    v.sliceColumns = 3;
    v.slice = { 1.f, 2.f };
    ValueSummary item;
    item.kind = QStringLiteral("int");
    item.text = QStringLiteral("3");
    v.items = { item };
    return v;
}

TraceWarning fullWarning()
{
    TraceWarning w;
    w.kind = WarningKind::ShapeDependentLoop;
    w.message = QStringLiteral("loop over x.size(0)");
    w.traceIndex = 2;
    w.traceNode = 5;
    w.scriptNode = 6;
    w.location = somewhere(3);
    w.suggestion = QStringLiteral("script it");
    w.detail = QStringLiteral("x.size(0)");
    w.count = 4;
    return w;
}

InputValue fullInput()
{
    InputValue t = InputValue::tensor(QStringLiteral("i64"), { 2, 2 }, InputValue::Fill::Values);
    t.fillValue = 2.5;
    t.values = { 1, 2, 3, 4 };
    InputValue d;
    d.kind = InputValue::Kind::Dict;
    d.items = { t, InputValue::integer(-7), InputValue::real(0.5), InputValue::boolean(true) };
    d.keys = { QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d") };
    d.intValue = 9;
    d.floatValue = 1.25;
    d.boolValue = true;
    return d;
}

/// A frame with @p magic and @p version in its header, built by hand.
QByteArray frameWith(quint32 magic, quint16 version)
{
    QByteArray body;
    QDataStream out(&body, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_0);
    out << magic << version << quint16(MessageType::Answer) << quint64(1) << QByteArray("x");
    QByteArray frame(4, Qt::Uninitialized);
    qToBigEndian<quint32>(quint32(body.size()), frame.data());
    return frame + body;
}

} // namespace

class TestProtocol : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    /// docs/worker-protocol.md has a row for every message, in MessageType's order (the wire's numbers, from 1), and
    /// for every DebugOp; and no row for anything else.
    void everyMessageDocumented()
    {
        const QString doc = test::readText(QStringLiteral(JITSCOPE_SOURCE_DIR "/docs/worker-protocol.md"));
        QVERIFY(!doc.isEmpty());
        static const QRegularExpression row(QStringLiteral("^\\| `(\\w+)` \\|"), QRegularExpression::MultilineOption);
        QStringList rows;
        for (auto it = row.globalMatch(doc); it.hasNext();)
            rows << it.next().captured(1);
        const QMetaEnum messages = QMetaEnum::fromType<MessageType>();
        const QMetaEnum ops = QMetaEnum::fromType<DebugOp>();
        QStringList documented, declared;
        for (const QString& name : rows)
            if (messages.keyToValue(name.toLatin1().constData()) >= 0)
                documented << name;
            else
                QVERIFY2(ops.keyToValue(name.toLatin1().constData()) >= 0,
                    qPrintable(name + QStringLiteral(": documented, but no message or DebugOp of protocol.h")));
        for (int k = 0; k < messages.keyCount(); ++k) {
            QCOMPARE(messages.value(k), k + 1);
            declared << QLatin1String(messages.key(k));
        }
        QCOMPARE(documented.join(QLatin1Char(' ')), declared.join(QLatin1Char(' ')));
        for (int k = 0; k < ops.keyCount(); ++k)
            QVERIFY2(rows.contains(QLatin1String(ops.key(k))), ops.key(k));
    }

    void framesCutFromAStream()
    {
        const Message a { MessageType::Check, 42, pack(QStringLiteral("forward"), 3) };
        const Message b { MessageType::Heartbeat, 0, QByteArray(100000, 'z') };
        const QByteArray stream = encode(a) + encode(b);
        FrameReader reader;
        QVector<Message> got;
        // Byte by byte at first, then in big pieces: a pipe hands over whatever it has.
        for (int i = 0; i < 50; ++i) {
            reader.append(stream.mid(i, 1));
            while (auto m = reader.next())
                got << *m;
        }
        reader.append(stream.mid(50));
        while (auto m = reader.next())
            got << *m;
        QVERIFY2(reader.error().isEmpty(), qPrintable(reader.error()));
        QCOMPARE(got.size(), 2);
        QCOMPARE(got[0].type, MessageType::Check);
        QCOMPARE(got[0].id, quint64(42));
        QString function;
        int model = 0;
        QVERIFY(unpack(got[0].payload, function, model));
        QCOMPARE(function, QStringLiteral("forward"));
        QCOMPARE(model, 3);
        QCOMPARE(got[1].type, MessageType::Heartbeat);
        QCOMPARE(got[1].payload, b.payload);
    }

    void badFrames_data()
    {
        QTest::addColumn<QByteArray>("frame");
        QTest::addColumn<QString>("expected");
        QTest::addRow("other version")
            << frameWith(kMagic, kVersion + 1)
            << QStringLiteral("protocol version %1, but this side speaks version %2").arg(kVersion + 1).arg(kVersion);
        QTest::addRow("wrong magic") << frameWith(0x12345678, kVersion) << QStringLiteral("0x12345678");
        QByteArray huge(8, '\xff');
        QTest::addRow("oversized") << huge << QStringLiteral("the stream is corrupt");
    }

    void badFrames()
    {
        QFETCH(QByteArray, frame);
        QFETCH(QString, expected);
        FrameReader reader;
        reader.append(frame);
        QVERIFY(!reader.next());
        QVERIFY2(reader.error().contains(expected), qPrintable(reader.error()));
        // A good frame after a bad one is not read: the stream is out of step.
        reader.append(encode({ MessageType::Answer, 1, {} }));
        QVERIFY(!reader.next());
    }

    void shortPayloadIsAnError()
    {
        CheckReport report;
        QVERIFY(!unpack(pack(QStringLiteral("only a string")), report));
    }

    void everyFieldCrosses()
    {
        const IrGraph g = fullGraph();
        QCOMPARE(dump(roundTrip(g)), dump(g));

        const ValueSummary v = fullSummary();
        QCOMPARE(dump(roundTrip(v)), dump(v));

        InputSet set;
        set.args = { fullInput(), InputValue::tensor(QStringLiteral("f16"), { 1 }, InputValue::Fill::Arange) };
        set.line = 12;
        QCOMPARE(dump(roundTrip(set)), dump(set));

        const TraceWarning w = fullWarning();
        QCOMPARE(dump(roundTrip(w)), dump(w));

        ModelInfo m;
        m.path = QStringLiteral("/m/model.pt");
        m.kind = ModelInfo::Kind::Archive;
        m.source = QStringLiteral("def forward(self, x):\n    return x * x\n");
        FunctionInfo f;
        f.name = QStringLiteral("layer1.forward");
        f.signature = QStringLiteral("forward(self, x: Tensor) -> Tensor");
        f.location = somewhere(1);
        f.ok = true;
        f.error = { QStringLiteral("not really"), somewhere(2) };
        f.graph = g;
        f.inlinedIds = { 0, -1, 1 };
        f.inlined = true;
        m.functions = { f };
        m.submodules
            = { { QStringLiteral("layer1"), QStringLiteral("__torch__.Block"), { QStringLiteral("forward") } } };
        m.parameters = { { QStringLiteral("layer1.weight"), ParameterInfo::Kind::Buffer, QStringLiteral("Tensor"),
            QStringLiteral("float32"), { 4, 3 }, QStringLiteral("...") } };
        m.inputSets = { set };
        m.warnings = { { QStringLiteral("could not read inputs"), somewhere(9) } };
        m.opLibraries = { { QStringLiteral("/lib/torchvision/_C.so"), { QStringLiteral("torchvision") }, true } };
        LoadResult load { true, m, { QStringLiteral("none"), somewhere(4) } };
        const LoadResult back = roundTrip(load);
        QCOMPARE(back.ok, true);
        QCOMPARE(dump(back.model), dump(m));
        QCOMPARE(dump(back.error), dump(load.error));
        QVERIFY(!back.model.handle);

        LoadOptions options { { QStringLiteral("/lib/ops.so") }, true };
        const LoadOptions optionsBack = roundTrip(options);
        QCOMPARE(optionsBack.opLibraries, options.opLibraries);
        QCOMPARE(optionsBack.inlineCalls, true);
        QCOMPARE(optionsBack.strictOpLibraries, true);
        options.strictOpLibraries = false;
        QCOMPARE(roundTrip(options).strictOpLibraries, false);

        const std::optional<InputSuggestion> suggestion
            = InputSuggestion { QStringLiteral("f32[1,3,224,224]"), QStringLiteral("conv1.weight [64, 3, 7, 7]") };
        const auto suggestionBack = roundTrip(suggestion);
        QVERIFY(suggestionBack);
        QCOMPARE(suggestionBack->set, suggestion->set);
        QCOMPARE(suggestionBack->reason, suggestion->reason);
        QVERIFY(!roundTrip(std::optional<InputSuggestion>()));

        CheckOptions check;
        check.rtol = 0.5;
        check.atol = 0.25;
        check.exec.seed = 77;
        check.exec.maxMemory = 12345;
        check.exec.timeoutMs = 999;
        check.exec.strict = false;
        check.inlineCalls = false;
        check.everyPair = true;
        const CheckOptions checkBack = roundTrip(check);
        QCOMPARE(checkBack.rtol, 0.5);
        QCOMPARE(checkBack.atol, 0.25);
        QCOMPARE(checkBack.exec.seed, quint64(77));
        QCOMPARE(checkBack.exec.maxMemory, qint64(12345));
        QCOMPARE(checkBack.exec.timeoutMs, 999);
        QCOMPARE(checkBack.exec.strict, false);
        QCOMPARE(checkBack.inlineCalls, std::optional<bool>(false));
        QCOMPARE(checkBack.everyPair, true);
        QCOMPARE(roundTrip(CheckOptions()).inlineCalls, std::optional<bool>());

        CheckReport r;
        r.ok = true;
        r.error = { QStringLiteral("e"), somewhere(5) };
        r.file = m.path;
        r.function = f.name;
        r.script = g;
        TraceResult t { true, { QStringLiteral("t"), somewhere(6) }, set, g, { w }, { v }, QStringLiteral("raw") };
        r.traces = { t, t };
        NodeChange change { NodeChange::Op::Insert, 1, 2, 3, somewhere(8), QStringLiteral("loop ran 3 times") };
        r.diffs = { TraceDiff { 0, 1, false, { change } } };
        r.pairDiffs = { TraceDiff { 1, 2, false, { change } } };
        OutputCheck out { true, QStringLiteral("err"),
            { false, QStringLiteral("differs"), 3, 10, 0.5, 0.125, QStringLiteral("output 0 [1, 2]") } };
        out.outputs = { v };
        out.bakedSizes = { QStringLiteral("the traced archive resizes set 2 to set 1's size") };
        r.outputs = { out };
        r.tracedArchive = true;
        r.warnings = { w };
        r.statuses = { TraceStatus::Reference, TraceStatus::WrongOutput };
        r.consistent = false;
        QCOMPARE(dump(roundTrip(r)), dump(r));

        DebugSession::Pause pause;
        pause.serial = 12;
        pause.finished = true;
        pause.event.scriptNode = 3;
        pause.event.depth = 1;
        pause.event.blockDepth = 2;
        pause.event.frames = { ExecFrame { ExecFrame::Kind::Loop, QStringLiteral("loop"), 5, 4, 2, 3, 1 } };
        pause.event.loopPath = { LoopFrame { 4, 2, 5 } };
        pause.event.location = somewhere(6);
        pause.event.kind = QStringLiteral("aten::mul");
        pause.event.after = true;
        pause.event.breakpoint = true;
        pause.event.values = { { QStringLiteral("y"), v } };
        pause.values = { { QStringLiteral("x"), v }, { QStringLiteral("%3"), ValueSummary() } };
        pause.traceSoFar = g;
        pause.atBreakpoint = true;
        pause.atFailure = true;
        pause.failure = QStringLiteral("index 2 is out of range");
        pause.failureNode = 7;
        pause.result = { true, { QStringLiteral("r"), somewhere(2) }, set, { v } };
        pause.trace = t;
        QCOMPARE(dump(roundTrip(pause)), dump(pause));
        // A debug session's target, a replay of trace 1 or not.
        for (const bool replay : { false, true }) {
            DebugSession::Target target { QStringLiteral("f"), set, !replay, std::nullopt };
            if (replay)
                target.recordedOn = *parseInputSet(QStringLiteral("f32[2,3]"));
            const DebugSession::Target back = roundTrip(target);
            QCOMPARE(back.function, target.function);
            QCOMPARE(dump(back.inputs), dump(target.inputs));
            QCOMPARE(back.tracing, target.tracing);
            QCOMPARE(back.isReplay(), replay);
            if (replay)
                QCOMPARE(back.recordedOn->toString(), QStringLiteral("f32[2,3]"));
        }
        const QVector<DebugSession::Breakpoint> breakpoints { { 7, 2 }, { 9, -1 } };
        const auto breakpointsBack = roundTrip(breakpoints);
        QCOMPARE(breakpointsBack.size(), 2);
        QCOMPARE(breakpointsBack[0].line, 7);
        QCOMPARE(breakpointsBack[0].iteration, 2);
        QCOMPARE(breakpointsBack[1].iteration, -1);

        const HeartbeatInfo beat { QStringLiteral("running aten::mul"), 1500, 99, 2 };
        const HeartbeatInfo beatBack = roundTrip(beat);
        QCOMPARE(beatBack.activity, beat.activity);
        QCOMPARE(beatBack.operatorMs, beat.operatorMs);
        QCOMPARE(beatBack.operatorCalls, beat.operatorCalls);
        QCOMPARE(beatBack.busy, beat.busy);
    }

    /// A Python run is asked of the worker and ended there (ModelEngine::runPython()): its options cross whole but
    /// for the cancel flag, and how its child ended comes back whole; the window reads the record itself.
    void pythonRunsCross()
    {
        PythonOptions options;
        options.request.mode = PythonRequest::Mode::Check;
        options.request.target = QStringLiteral("Net.forward");
        options.request.sets = { *parseInputSet(QStringLiteral("f32[2,3]; 4")) };
        options.request.seed = 7;
        options.request.strict = false;
        options.python = QStringLiteral("/opt/py/bin/python3");
        options.bridge = QStringLiteral("/opt/bridge.py");
        options.returnedValues = true;
        options.definitions = false;
        options.archives = false;
        options.timeoutMs = 1234;
        options.maxOutputBytes = 99;
        options.warm = true;
        const std::atomic<bool> cancel { true };
        options.cancel = &cancel;
        const PythonOptions back = roundTrip(options);
        QCOMPARE(back.request.mode, PythonRequest::Mode::Check);
        QCOMPARE(back.request.target, options.request.target);
        QCOMPARE(back.request.sets.size(), 1);
        QCOMPARE(dump(back.request.sets[0]), dump(options.request.sets[0]));
        QCOMPARE(back.request.seed, quint64(7));
        QCOMPARE(back.request.strict, false);
        QCOMPARE(back.python, options.python);
        QCOMPARE(back.bridge, options.bridge);
        QCOMPARE(back.returnedValues, true);
        QCOMPARE(back.definitions, false);
        QCOMPARE(back.archives, false);
        QCOMPARE(back.timeoutMs, 1234);
        QCOMPARE(back.warm, true);
        QCOMPARE(back.maxOutputBytes, qint64(99));
        QVERIFY(!back.cancel);

        PythonChild child;
        child.python = options.python;
        child.startError = QStringLiteral("cannot start");
        child.stopped = QStringLiteral("timeout");
        child.timeoutMs = 5000;
        child.crashed = true;
        child.exitCode = 3;
        child.stdoutText = QStringLiteral("out");
        child.stderrText = QStringLiteral("Fatal Python error: Segmentation fault");
        child.outputTruncated = true;
        child.warm = true;
        const PythonChild childBack = roundTrip(child);
        QCOMPARE(childBack.python, child.python);
        QCOMPARE(childBack.startError, child.startError);
        QCOMPARE(childBack.stopped, child.stopped);
        QCOMPARE(childBack.timeoutMs, child.timeoutMs);
        QCOMPARE(childBack.crashed, true);
        QCOMPARE(childBack.exitCode, 3);
        QCOMPARE(childBack.stdoutText, child.stdoutText);
        QCOMPARE(childBack.stderrText, child.stderrText);
        QCOMPARE(childBack.outputTruncated, true);
        QCOMPARE(childBack.warm, true);
    }

    /// A layout and its options cross whole: the window draws what the worker's Graphviz laid out.
    void layoutsCross()
    {
        LoadOptions load;
        load.inlineCalls = true;
        const LoadResult r = loadModel(test::dataDir() + QStringLiteral("/archives/dense_residual.pt"), load);
        QVERIFY2(r.ok, qPrintable(r.error.toString()));
        const FunctionInfo* fn = r.model.defaultFunction();
        QVERIFY(fn);
        LayoutOptions options;
        options.groupByModule = true;
        options.hideUnreachable = true;
        options.foldConstants = false;
        options.foldedNodes = { 3, 9 };
        options.moduleTypes = submoduleTypes(r.model, fn->name);
        options.fontName = QStringLiteral("DejaVu Sans");
        options.fontSize = 11.5;
        options.hierarchicalAbove = 7;
        const LayoutOptions optionsBack = roundTrip(options);
        QCOMPARE(optionsBack.groupByModule, options.groupByModule);
        QCOMPARE(optionsBack.hideUnreachable, options.hideUnreachable);
        QCOMPARE(optionsBack.foldConstants, options.foldConstants);
        QCOMPARE(optionsBack.showBlocks, options.showBlocks);
        QCOMPARE(optionsBack.foldedNodes, options.foldedNodes);
        QCOMPARE(optionsBack.moduleTypes, options.moduleTypes);
        QCOMPARE(optionsBack.fontName, options.fontName);
        QCOMPARE(optionsBack.fontSize, options.fontSize);
        QCOMPARE(optionsBack.hierarchicalAbove, options.hierarchicalAbove);
        options.foldedModules = overviewFolds(fn->graph, options, 0, 1000);
        QVERIFY(!options.foldedModules.isEmpty());
        QCOMPARE(roundTrip(options).foldedModules, options.foldedModules);

        for (const LayoutOptions& o : { options, optionsBack }) {
            const GraphLayout layout = layoutGraph(fn->graph, o);
            QVERIFY2(layout.error.isEmpty(), qPrintable(layout.error));
            QVERIFY(!layout.nodes.isEmpty() && !layout.edges.isEmpty());
            QCOMPARE(dump(roundTrip(layout)), dump(layout));
        }
        GraphLayout failed;
        failed.error = QStringLiteral("the model worker stopped: crashed (SIGSEGV) while running graphviz::dot");
        failed.cancelled = true;
        QCOMPARE(dump(roundTrip(failed)), dump(failed));
    }

    void realModels_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addRow("py with check_inputs") << QStringLiteral(JITSCOPE_SOURCE_DIR "/examples/loop_in_traced_fn.py");
        QTest::addRow("archive with submodules") << test::dataDir() + QStringLiteral("/archives/conv_block.pt");
    }

    /// A loaded model and its check report, as the worker sends them: the same fields, the same JSON form.
    void realModels()
    {
        QFETCH(QString, path);
        LoadOptions options;
        options.inlineCalls = true;
        const LoadResult load = loadModel(path, options);
        QVERIFY2(load.ok, qPrintable(load.error.toString()));
        const LoadResult back = roundTrip(load);
        QCOMPARE(dump(back.model), dump(load.model));

        QVector<InputSet> sets = load.model.inputSets;
        if (sets.isEmpty()) {
            const FunctionInfo* fn = load.model.defaultFunction();
            QVERIFY(fn);
            const auto suggestion = suggestInputSet(load.model, *fn);
            QVERIFY(suggestion);
            const auto parsed = parseInputSet(suggestion->set);
            QVERIFY(parsed);
            sets = { *parsed, *parsed };
        }
        const CheckReport report = checkModel(load.model, QString(), sets);
        QVERIFY2(report.ok, qPrintable(report.error.toString()));
        const CheckReport reportBack = roundTrip(report);
        QCOMPARE(dump(reportBack), dump(report));
        QCOMPARE(QJsonDocument(checkReportJson(reportBack)).toJson(), QJsonDocument(checkReportJson(report)).toJson());
    }
};

QTEST_GUILESS_MAIN(TestProtocol)
#include "tst_protocol.moc"
