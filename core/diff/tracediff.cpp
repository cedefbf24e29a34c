#include "diff/tracediff.h"

#include <QHash>
#include <QRegularExpression>

#include <dtl/dtl.hpp>

namespace jitscope {

namespace {

/// Tensor types lose their shape and dtype ("Float(3, 4, strides=[4, 1], ...)" -> "Tensor"), as PyTorch's
/// check erases shape information before comparing traces; other types are unchanged.
QString eraseShape(const QString& type)
{
    static const QRegularExpression tensor(
        QStringLiteral("\\b(Float|Double|Half|BFloat16|Long|Int|Short|Char|Byte|Bool|"
                       "ComplexFloat|ComplexDouble|QInt8|QUInt8)\\([^()]*\\)"));
    QString t = type;
    t.replace(tensor, QStringLiteral("Tensor"));
    return t;
}

/// A node's attributes as compared. A tensor constant also counts with its dtype: PyTorch's check compares tensor
/// constants with assert_close, value and dtype ("{0}" of Float and of Double differ), and prints no dtype.
QString attributeKey(const IrGraph& g, const IrNode& n)
{
    if (n.outputs.size() == 1 && n.kind == QLatin1String("prim::Constant")) {
        const IrValue& v = g.value(n.outputs[0]);
        if (v.tensor) // and its values (libtorch prints `<Tensor>` for any of more than one element)
            return n.attributeText + QLatin1Char('/') + v.type.section(QLatin1Char('('), 0, 0)
                + (n.attributes.isEmpty() ? QString() : n.attributes.first().data);
    }
    return n.attributeText;
}

} // namespace

QString nodeSignature(const IrGraph& g, int nodeId)
{
    const IrNode& n = g.node(nodeId);
    QString sig = n.kind;
    sig += attributeKey(g, n);
    sig += QLatin1Char('(');
    for (int i = 0; i < n.inputs.size(); ++i) {
        if (i)
            sig += QLatin1Char(',');
        const IrValue& v = g.value(n.inputs[i]);
        if (v.producer < 0) {
            const int index = g.top.inputs.indexOf(v.id);
            sig += index >= 0 ? QStringLiteral("in%1").arg(index) : QStringLiteral("blk");
        } else {
            const IrNode& p = g.node(v.producer);
            sig += p.kind;
            if (p.kind == QLatin1String("prim::Constant"))
                sig += attributeKey(g, p);
            const int out = p.outputs.indexOf(v.id);
            if (out > 0)
                sig += QStringLiteral(":%1").arg(out);
        }
    }
    sig += QStringLiteral(")->");
    for (int i = 0; i < n.outputs.size(); ++i) {
        if (i)
            sig += QLatin1Char(',');
        const IrValue& v = g.value(n.outputs[i]);
        sig += v.tensor ? QStringLiteral("Tensor") : eraseShape(v.type);
    }
    return sig;
}

namespace {

/// Type as compared: tensors lose shape and dtype (see eraseShape), without building strings for them.
QString comparedType(const IrValue& v)
{
    if (v.tensor)
        return QStringLiteral("Tensor");
    return v.type.startsWith(QLatin1Char('(')) ? eraseShape(v.type) : v.type;
}

/// FNV-1a over the UTF-16 code units: short strings (op kinds, attribute lists) hash in a few cycles each.
inline quint64 fnv(QStringView s)
{
    quint64 h = 0xcbf29ce484222325ULL;
    for (QChar c : s)
        h = (h ^ c.unicode()) * 0x100000001b3ULL;
    return h;
}

inline quint64 mix(quint64 h, quint64 v)
{
    return (h ^ v) * 0x100000001b3ULL + (h >> 29);
}

/// nodeSignature() as 64-bit hashes for every node, computed without allocating: diffing a large trace hashes
/// every node, and each node's kind and attributes are hashed once (inputs reuse their producer's).
QVector<quint64> nodeHashes(const IrGraph& g)
{
    const size_t count = size_t(g.nodes.size());
    std::vector<quint64> kindHash(count), local(count);
    std::vector<char> constant(count);
    static const quint64 constantKind = fnv(QStringLiteral("prim::Constant"));
    for (size_t i = 0; i < count; ++i) {
        const IrNode& n = g.nodes[int(i)];
        kindHash[i] = fnv(n.kind);
        constant[i] = kindHash[i] == constantKind && n.kind == QLatin1String("prim::Constant");
        local[i] = n.attributeText.isEmpty() ? kindHash[i] : mix(kindHash[i], fnv(n.attributeText));
        if (constant[i] && n.outputs.size() == 1 && g.values[n.outputs[0]].tensor)
            local[i] = mix(local[i], fnv(attributeKey(g, n)));
    }
    QVector<quint64> hashes(int(count), 0);
    for (size_t i = 0; i < count; ++i) {
        const IrNode& n = g.nodes[int(i)];
        quint64 h = mix(0xcbf29ce484222325ULL, local[i]);
        for (int in : n.inputs) {
            const IrValue& v = g.values[in];
            if (v.producer < 0) {
                h = mix(h, quint64(0x1000 + g.top.inputs.indexOf(v.id)));
                continue;
            }
            // A constant input counts with its value; other producers by kind and output position.
            const size_t p = size_t(v.producer);
            h = mix(h, constant[p] ? local[p] : kindHash[p]);
            const QVector<int>& outs = g.nodes[int(p)].outputs;
            if (outs.size() > 1)
                h = mix(h, quint64(outs.indexOf(v.id)));
        }
        for (int out : n.outputs) {
            const IrValue& v = g.values[out];
            h = mix(h, v.tensor ? quint64(0x7e45) : qHash(comparedType(v), 5));
        }
        hashes[int(i)] = h;
    }
    return hashes;
}

} // namespace

void computeSignatureHashes(IrGraph& graph)
{
    graph.signatureHashes = nodeHashes(graph);
}

QStringList signatureLines(const IrGraph& g)
{
    QStringList lines;
    lines.reserve(g.top.nodes.size());
    for (int id : g.top.nodes)
        lines << nodeSignature(g, id);
    return lines;
}

TraceDiff diffTraces(const IrGraph& base, const IrGraph& other)
{
    TraceDiff diff;
    auto hashes = [](const IrGraph& g) {
        const QVector<quint64> all = g.signatureHashes.size() == g.nodes.size() ? g.signatureHashes : nodeHashes(g);
        std::vector<quint64> seq;
        seq.reserve(size_t(g.top.nodes.size()));
        for (int id : g.top.nodes)
            seq.push_back(all[id]);
        return seq;
    };
    const std::vector<quint64> a = hashes(base);
    const std::vector<quint64> b = hashes(other);

    // Common prefix and suffix need no diffing (most traces differ in a small middle part).
    size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix])
        ++prefix;
    size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix
        && a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
        ++suffix;
    const std::vector<quint64> midA(a.begin() + long(prefix), a.end() - long(suffix));
    const std::vector<quint64> midB(b.begin() + long(prefix), b.end() - long(suffix));
    if (midA.empty() && midB.empty()) {
        // Same nodes; still compare the outputs returned.
        diff.equal = base.top.outputs.size() == other.top.outputs.size();
        return diff;
    }

    diff.changes.reserve(int(std::max(midA.size(), midB.size())));
    dtl::Diff<quint64> d(midA, midB);
    d.compose();
    const auto ses = d.getSes().getSequence();
    std::vector<int> pendingDeletes;
    std::vector<int> pendingInserts;
    auto flush = [&]() {
        const size_t paired = std::min(pendingDeletes.size(), pendingInserts.size());
        for (size_t i = 0; i < paired; ++i) {
            NodeChange c;
            c.op = NodeChange::Op::Change;
            c.baseNode = base.top.nodes[pendingDeletes[i]];
            c.otherNode = other.top.nodes[pendingInserts[i]];
            diff.changes.push_back(c);
        }
        for (size_t i = paired; i < pendingDeletes.size(); ++i) {
            NodeChange c;
            c.op = NodeChange::Op::Delete;
            c.baseNode = base.top.nodes[pendingDeletes[i]];
            diff.changes.push_back(c);
        }
        for (size_t i = paired; i < pendingInserts.size(); ++i) {
            NodeChange c;
            c.op = NodeChange::Op::Insert;
            c.otherNode = other.top.nodes[pendingInserts[i]];
            diff.changes.push_back(c);
        }
        pendingDeletes.clear();
        pendingInserts.clear();
    };
    for (const auto& e : ses) {
        switch (e.second.type) {
        case dtl::SES_DELETE:
            pendingDeletes.push_back(int(prefix) + int(e.second.beforeIdx) - 1);
            break;
        case dtl::SES_ADD:
            pendingInserts.push_back(int(prefix) + int(e.second.afterIdx) - 1);
            break;
        default:
            flush();
            break;
        }
    }
    flush();
    diff.equal = diff.changes.isEmpty();
    return diff;
}

} // namespace jitscope
