#include "tracediff.h"

#include <QHash>
#include <QRegularExpression>

#include <dtl/dtl.hpp>

namespace jitscope {

QString nodeChangeOpName(NodeChange::Op op)
{
    switch (op) {
    case NodeChange::Op::Insert:
        return QStringLiteral("insert");
    case NodeChange::Op::Delete:
        return QStringLiteral("delete");
    case NodeChange::Op::Change:
        return QStringLiteral("change");
    }
    return {};
}

namespace {

/// Tensor types lose their shape and dtype ("Float(3, 4, strides=[4, 1], ...)" -> "Tensor"), as PyTorch's
/// check erases shape information before comparing traces; other types are unchanged.
QString eraseShape(const QString& type)
{
    static const QRegularExpression tensor(QStringLiteral("\\b(Float|Double|Half|BFloat16|Long|Int|Short|Char|Byte|Bool|"
                                                          "ComplexFloat|ComplexDouble|QInt8|QUInt8)\\([^()]*\\)"));
    QString t = type;
    t.replace(tensor, QStringLiteral("Tensor"));
    return t;
}

} // namespace

QString nodeSignature(const IrGraph& g, int nodeId)
{
    const IrNode& n = g.node(nodeId);
    QString sig = n.kind;
    sig += n.attributeText;
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
                sig += p.attributeText;
            const int out = p.outputs.indexOf(v.id);
            if (out > 0)
                sig += QStringLiteral(":%1").arg(out);
        }
    }
    sig += QStringLiteral(")->");
    for (int i = 0; i < n.outputs.size(); ++i) {
        if (i)
            sig += QLatin1Char(',');
        sig += eraseShape(g.value(n.outputs[i]).type);
    }
    return sig;
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
    // Intern signatures: dtl then compares ints.
    QHash<QString, int> ids;
    auto intern = [&ids](const IrGraph& g) {
        std::vector<int> seq;
        seq.reserve(size_t(g.top.nodes.size()));
        for (int id : g.top.nodes) {
            const QString sig = nodeSignature(g, id);
            auto it = ids.find(sig);
            if (it == ids.end())
                it = ids.insert(sig, ids.size());
            seq.push_back(it.value());
        }
        return seq;
    };
    const std::vector<int> a = intern(base);
    const std::vector<int> b = intern(other);

    // Common prefix and suffix need no diffing (most traces differ in a small middle part).
    size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix])
        ++prefix;
    size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix
           && a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
        ++suffix;
    const std::vector<int> midA(a.begin() + long(prefix), a.end() - long(suffix));
    const std::vector<int> midB(b.begin() + long(prefix), b.end() - long(suffix));
    if (midA.empty() && midB.empty()) {
        // Same nodes; still compare the outputs returned.
        diff.equal = base.top.outputs.size() == other.top.outputs.size();
        return diff;
    }

    dtl::Diff<int> d(midA, midB);
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
