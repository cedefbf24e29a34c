#include "ir/irsnapshot_p.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/ir/scope.h>

#include <QHash>
#include <QSet>

#include <array>
#include <functional>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace jitscope {
namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString attributeValue(const torch::jit::Node* n, torch::jit::Symbol name)
{
    using torch::jit::AttributeKind;
    std::ostringstream os;
    switch (n->kindOf(name)) {
    case AttributeKind::i:
        os << n->i(name);
        break;
    case AttributeKind::f:
        os << n->f(name);
        break;
    case AttributeKind::s:
        os << n->s(name);
        break;
    case AttributeKind::is: {
        const auto& v = n->is(name);
        os << '[';
        for (size_t i = 0; i < v.size(); ++i)
            os << (i ? ", " : "") << v[i];
        os << ']';
        break;
    }
    case AttributeKind::fs: {
        const auto& v = n->fs(name);
        os << '[';
        for (size_t i = 0; i < v.size(); ++i)
            os << (i ? ", " : "") << v[i];
        os << ']';
        break;
    }
    case AttributeKind::ss: {
        const auto& v = n->ss(name);
        os << '[';
        for (size_t i = 0; i < v.size(); ++i)
            os << (i ? ", " : "") << v[i];
        os << ']';
        break;
    }
    case AttributeKind::ty:
        os << n->ty(name)->repr_str();
        break;
    case AttributeKind::t: {
        const auto& t = n->t(name);
        if (t.numel() == 1)
            os << t.item();
        else
            os << t.toString() << t.sizes();
        break;
    }
    case AttributeKind::ival:
        os << n->ival(name);
        break;
    default:
        os << "<" << torch::jit::toString(n->kindOf(name)) << ">";
        break;
    }
    return qs(os.str());
}

/// CRC-32 (zlib's polynomial, as Python's zlib.crc32 computes it).
quint32 crc32(const unsigned char* data, size_t size)
{
    static const auto table = [] {
        std::array<quint32, 256> t {};
        for (quint32 i = 0; i < 256; ++i) {
            quint32 c = i;
            for (int k = 0; k < 8; ++k)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    quint32 crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < size; ++i)
        crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

/// IrAttribute::data of a tensor attribute of more than one element: its values up to 64 of them, else a CRC-32
/// of its bytes (the bridge writes the same for a recorded trace).
QString attributeData(const torch::jit::Node* n, torch::jit::Symbol name)
{
    if (n->kindOf(name) != torch::jit::AttributeKind::t)
        return {};
    const at::Tensor& t = n->t(name);
    if (t.numel() <= 1 || t.is_complex() || !t.device().is_cpu() || t.is_quantized() || t.is_sparse())
        return {};
    if (t.numel() > 64) {
        const at::Tensor c = t.contiguous();
        const quint32 crc = crc32(static_cast<const unsigned char*>(c.data_ptr()), c.numel() * c.element_size());
        return QStringLiteral("n=%1 crc=%2").arg(c.numel()).arg(crc, 8, 16, QLatin1Char('0'));
    }
    std::ostringstream os;
    os << '[';
    const at::Tensor flat = t.reshape({ -1 });
    if (t.is_floating_point()) {
        const at::Tensor d = flat.to(at::kDouble);
        const double* v = d.data_ptr<double>();
        for (int64_t i = 0; i < d.numel(); ++i)
            os << (i ? ", " : "") << v[i];
    } else {
        const at::Tensor l = flat.to(at::kLong);
        const int64_t* v = l.data_ptr<int64_t>();
        for (int64_t i = 0; i < l.numel(); ++i)
            os << (i ? ", " : "") << v[i];
    }
    os << ']';
    return qs(os.str());
}

class Snapshotter
{
public:
    IrGraph graph;
    std::function<void(const torch::jit::Node*, IrNode&)> decorate;
    c10::ClassTypePtr selfType; ///< the module whose method the graph is, to name inlined submodules by path

    int valueId(const torch::jit::Value* v, int producer)
    {
        auto it = m_ids.find(v);
        if (it != m_ids.end())
            return it->second;
        IrValue value;
        value.id = graph.values.size();
        value.name = qs(v->debugName());
        std::ostringstream os;
        os << *v->type();
        value.type = qs(os.str());
        value.producer = producer;
        if (auto tt = v->type()->cast<c10::TensorType>()) {
            TensorInfo info;
            if (auto st = tt->scalarType())
                info.dtype = qs(c10::toString(*st));
            if (auto sizes = tt->symbolic_sizes().sizes()) {
                QVector<qint64> dims;
                for (const auto& d : *sizes)
                    dims.push_back(d.is_static() ? d.static_size() : -1);
                info.sizes = dims;
            }
            if (auto dev = tt->device())
                info.device = qs(dev->str());
            value.tensor = info;
        }
        m_ids.emplace(v, value.id);
        graph.values.push_back(value);
        return value.id;
    }

    void addBlock(const torch::jit::Block* b, IrBlock& out, int parentNode, int parentBlock)
    {
        for (auto* in : b->inputs())
            out.inputs.push_back(valueId(in, -1));
        for (auto* n : b->nodes())
            out.nodes.push_back(addNode(n, parentNode, parentBlock));
        for (auto* o : b->outputs())
            out.outputs.push_back(valueId(o, -1));
    }

    int addNode(const torch::jit::Node* n, int parentNode, int parentBlock)
    {
        const int id = graph.nodes.size();
        graph.nodes.push_back({});
        IrNode node;
        node.id = id;
        node.kind = qs(n->kind().toQualString());
        if (auto schema = n->maybeSchema()) {
            std::ostringstream os;
            os << *schema;
            node.schema = qs(os.str());
        }
        for (auto* in : n->inputs())
            node.inputs.push_back(valueId(in, -1));
        for (auto* out : n->outputs())
            node.outputs.push_back(valueId(out, id));
        if (n->hasAttributes()) {
            // Node::printAttributes is private: print the bare node line and cut the attribute list out of it.
            std::ostringstream os;
            n->print(os, 0, nullptr, /*print_source_locations=*/false, /*print_attributes=*/true,
                /*print_scopes=*/false, /*print_body=*/false);
            const std::string line = os.str();
            std::string inputs;
            for (size_t i = 0; i < n->inputs().size(); ++i)
                inputs += (i ? ", %" : "%") + n->inputs()[i]->debugName();
            const std::string head = " = " + std::string(n->kind().toQualString());
            const size_t start = line.find(head);
            const size_t tail = inputs.size() + 2;
            if (start != std::string::npos && line.size() >= start + head.size() + tail)
                node.attributeText = qs(line.substr(start + head.size(), line.size() - start - head.size() - tail));
            for (auto name : n->attributeNames()) {
                IrAttribute a;
                a.name = qs(name.toUnqualString());
                a.kind = qs(torch::jit::toString(n->kindOf(name)));
                a.value = attributeValue(n, name);
                a.data = attributeData(n, name);
                node.attributes.push_back(a);
            }
        }
        node.location = sourceLocationOf(n);
        node.scope = qs(n->scopeName());
        // Which submodule's code a node is: inlined script graphs keep it in the call stack's module
        // instances ("layer1", "0", "conv1"), traced graphs in the scope ("__module.layer1/__module.layer1.0").
        if (auto cs = n->callstack()) {
            QStringList path;
            c10::ClassTypePtr type = selfType;
            for (const auto& entry : (*cs)->vec()) {
                const auto& info = std::get<2>(entry);
                if (!info || info->instance_name() == "SELF") // a method of the same module
                    continue;
                path << submoduleStep(type, info->instance_name(), info->class_type());
                type = info->class_type();
            }
            node.modulePath = path.join(QLatin1Char('.'));
        } else if (!node.scope.isEmpty()) {
            QString last = node.scope.section(QLatin1Char('/'), -1);
            if (last.startsWith(QLatin1String("__module.")))
                node.modulePath = last.mid(9);
        }
        node.parentNode = parentNode;
        node.parentBlock = parentBlock;
        for (size_t i = 0; i < n->blocks().size(); ++i) {
            IrBlock block;
            addBlock(n->blocks()[i], block, id, int(i));
            node.blocks.push_back(block);
        }
        if (decorate)
            decorate(n, node);
        graph.nodes[id] = node;
        return id;
    }

private:
    /// The path from a module of type `parent` to its submodule `name` of type `child`. The call stack names only
    /// the last attribute of the chain that reached the callee: a ModuleList or ModuleDict entry is "0", not
    /// "layers.0" (`getattr(self.layers, "0")`). Find the container that holds it.
    static QString submoduleStep(
        const c10::ClassTypePtr& parent, const std::string& name, const c10::ClassTypePtr& child)
    {
        if (!parent || !child || parent->hasAttribute(name))
            return qs(name);
        for (size_t i = 0; i < parent->numAttributes(); ++i) {
            const auto holder = parent->getAttribute(i)->cast<c10::ClassType>();
            if (holder && holder->is_module() && holder->hasAttribute(name) && *holder->getAttribute(name) == *child)
                return qs(parent->getAttributeName(i) + "." + name);
        }
        return qs(name);
    }

    std::unordered_map<const torch::jit::Value*, int> m_ids;
};

/// The longest leading run two dotted module paths share: "layer1.0" for "layer1.0.conv1" and "layer1.0.bn1".
QString commonModule(const QString& a, const QString& b)
{
    const QStringList x = a.split(QLatin1Char('.'), Qt::SkipEmptyParts);
    const QStringList y = b.split(QLatin1Char('.'), Qt::SkipEmptyParts);
    int k = 0;
    while (k < x.size() && k < y.size() && x[k] == y[k])
        ++k;
    return x.mid(0, k).join(QLatin1Char('.'));
}

/// Inlining leaves some control nodes of a submodule's code without a call stack (BatchNorm's `if self.training`,
/// F.batch_norm's guard): one whose blocks hold only that module's code (constants aside) is that module's. A user's
/// own if around two calls of one module holds the user's code too, and stays the caller's. Children have higher ids
/// than their parent, so walking backwards sees them first.
void attributeControlNodesByBlocks(IrGraph& g)
{
    for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
        IrNode& n = *it;
        if (n.blocks.isEmpty() || !n.modulePath.isEmpty())
            continue;
        std::optional<QString> common;
        bool callerCode = false;
        for (const IrBlock& b : n.blocks)
            for (int child : b.nodes) {
                const IrNode& c = g.nodes[child];
                if (c.modulePath.isEmpty())
                    callerCode |= c.kind != QLatin1String("prim::Constant");
                else
                    common = common ? commonModule(*common, c.modulePath) : c.modulePath;
            }
        if (!callerCode)
            n.modulePath = common.value_or(QString());
    }
}

/// Some guard code inlined from a submodule keeps no call stack at all, blocks included (BatchNorm's `if
/// self.training and self.track_running_stats`, F.batch_norm's batch-size check): a top-level control node with no
/// module between two stretches of one module's code, from a source file submodule code comes from, is that
/// module's. Its blocks' nodes go with it.
void attributeOrphanControlNodes(IrGraph& g)
{
    QSet<QString> moduleFiles; // source files of submodule code (torch/nn/modules/batchnorm.py, ...)
    for (const IrNode& n : g.nodes)
        if (!n.modulePath.isEmpty() && n.location.isValid())
            moduleFiles.insert(n.location.file);
    if (moduleFiles.isEmpty())
        return; // not an inlined graph
    auto isOrphan = [&](const IrNode& n) { return n.modulePath.isEmpty() && !n.blocks.isEmpty(); };
    const QVector<int>& top = g.top.nodes;
    // The module of the nearest top-level node before (step -1) or after (+1) that is not a constant or an orphan.
    auto moduleAround = [&](int index, int step) -> QString {
        for (int k = index + step; k >= 0 && k < top.size(); k += step) {
            const IrNode& m = g.nodes[top[k]];
            if (m.kind == QLatin1String("prim::Constant") || isOrphan(m))
                continue;
            return m.modulePath;
        }
        return {};
    };
    QVector<QPair<int, QString>> assigned;
    for (int i = 0; i < top.size(); ++i) {
        const IrNode& n = g.nodes[top[i]];
        if (!isOrphan(n) || !n.location.isValid())
            continue;
        const QString module = commonModule(moduleAround(i, -1), moduleAround(i, +1));
        if (!module.isEmpty() && moduleFiles.contains(n.location.file))
            assigned.append({ n.id, module });
    }
    for (const auto& orphan : std::as_const(assigned)) {
        const QString& module = orphan.second; // not a structured binding: clang 14 (the fuzz build) cannot capture one
        std::function<void(int)> assign = [&](int nodeId) {
            IrNode& m = g.nodes[nodeId];
            if (m.modulePath.isEmpty())
                m.modulePath = module;
            for (const IrBlock& b : m.blocks)
                for (int child : b.nodes)
                    assign(child);
        };
        assign(orphan.first);
    }
}

} // namespace

IrGraph snapshotGraph(const torch::jit::Graph& g, const std::function<void(const torch::jit::Node*, IrNode&)>& decorate)
{
    Snapshotter s;
    s.decorate = decorate;
    if (!g.inputs().empty())
        if (auto self = g.inputs()[0]->type()->cast<c10::ClassType>(); self && self->is_module())
            s.selfType = self;
    s.addBlock(g.block(), s.graph.top, -1, -1);
    attributeControlNodesByBlocks(s.graph);
    attributeOrphanControlNodes(s.graph);
    return std::move(s.graph);
}

void forEachNode(torch::jit::Block* block, const std::function<void(torch::jit::Node*)>& visit)
{
    for (torch::jit::Node* n : block->nodes()) {
        visit(n);
        for (torch::jit::Block* sub : n->blocks())
            forEachNode(sub, visit);
    }
}

torch::jit::SourceRange originalSourceRange(const torch::jit::SourceRange& range)
{
    if (range.source())
        if (auto orig = range.source()->findSourceRangeThatGenerated(range))
            return *orig;
    return range;
}

torch::jit::SourceRange originalSourceRange(const torch::jit::Node* node)
{
    return originalSourceRange(node->sourceRange());
}

SourceLocation sourceLocationOf(const torch::jit::SourceRange& range)
{
    SourceLocation loc;
    if (auto flc = originalSourceRange(range).file_line_col()) {
        loc.file = qs(std::get<0>(*flc));
        loc.line = int(std::get<1>(*flc));
        loc.column = int(std::get<2>(*flc));
    }
    return loc;
}

SourceLocation sourceLocationOf(const torch::jit::Node* node)
{
    return sourceLocationOf(node->sourceRange());
}

QString signatureText(const QString& name, const c10::FunctionSchema& schema)
{
    QStringList args;
    for (const auto& a : schema.arguments()) {
        QString s = qs(a.name());
        if (a.name() == "self") {
            args << s;
            continue;
        }
        s += QStringLiteral(": ") + qs(a.type()->annotation_str());
        if (a.default_value()) {
            std::ostringstream os;
            os << *a.default_value();
            s += QStringLiteral(" = ") + qs(os.str());
        }
        args << s;
    }
    QStringList rets;
    for (const auto& r : schema.returns())
        rets << qs(r.type()->annotation_str());
    QString ret = rets.size() == 1 ? rets.first() : QStringLiteral("Tuple[%1]").arg(rets.join(QStringLiteral(", ")));
    if (rets.isEmpty())
        ret = QStringLiteral("None");
    return QStringLiteral("%1(%2) -> %3").arg(name, args.join(QStringLiteral(", ")), ret);
}

} // namespace jitscope
