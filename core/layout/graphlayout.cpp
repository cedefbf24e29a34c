#include "layout/graphlayout.h"

#include <QCryptographicHash>
#include <QHash>
#include <QRegularExpression>
#include <QSet>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

namespace jitscope {

namespace {

/// Graphviz keeps global state and is not thread-safe: every call into it goes through this.
std::mutex& graphvizMutex()
{
    static std::mutex m;
    return m;
}

QString dotEscape(const QString& s)
{
    QString out;
    out.reserve(s.size() + 8);
    for (QChar c : s) {
        if (c == QLatin1Char('\x01') || c == QLatin1Char('\x02'))
            continue; // they delimit DotBuild::marked names
        if (c == QLatin1Char('"') || c == QLatin1Char('\\'))
            out += QLatin1Char('\\');
        if (c == QLatin1Char('\n')) {
            out += QStringLiteral("\\l");
            continue;
        }
        out += c;
    }
    return out;
}

/// Argument names from a schema string "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor".
QStringList schemaArgumentNames(const QString& schema)
{
    QStringList names;
    const int open = schema.indexOf(QLatin1Char('('));
    if (open < 0)
        return names;
    int depth = 0;
    QString current;
    for (int i = open + 1; i < schema.size(); ++i) {
        const QChar c = schema[i];
        if (c == QLatin1Char('(') || c == QLatin1Char('[') || c == QLatin1Char('<'))
            ++depth;
        if (c == QLatin1Char(')') || c == QLatin1Char(']') || c == QLatin1Char('>')) {
            if (depth == 0) {
                if (!current.trimmed().isEmpty())
                    names << current.trimmed();
                break;
            }
            --depth;
        }
        if (c == QLatin1Char(',') && depth == 0) {
            names << current.trimmed();
            current.clear();
            continue;
        }
        current += c;
    }
    QStringList out;
    for (QString a : names) {
        if (a == QLatin1String("*"))
            continue;
        a = a.section(QLatin1Char('='), 0, 0).trimmed();
        out << a.section(QLatin1Char(' '), -1);
    }
    return out;
}

QString constantText(const IrNode& n)
{
    if (n.attributes.isEmpty())
        return QStringLiteral("None");
    QString v = n.attributes.first().value;
    if (n.attributes.first().kind == QLatin1String("s"))
        v = QLatin1Char('"') + v + QLatin1Char('"');
    if (v.size() > 40)
        v = v.left(37) + QStringLiteral("...");
    return v;
}

/// Decides which nodes fold into their consumers and what text they contribute.
class Folder
{
public:
    Folder(const IrGraph& g, bool enabled)
        : m_g(g)
    {
        if (!enabled)
            return;
        for (const IrNode& n : g.nodes) {
            if (n.kind == QLatin1String("prim::Constant") && n.outputs.size() == 1) {
                m_folded.insert(n.id, constantText(n));
            } else if (n.kind == QLatin1String("prim::GetAttr") && n.inputs.size() == 1) {
                const int src = g.value(n.inputs.first()).producer;
                QString base;
                if (src >= 0 && m_folded.contains(src)) {
                    base = m_folded.value(src);
                } else {
                    // "self.1" is libtorch's unique name for self: show self.layer1.0.conv1.weight.
                    static const QRegularExpression uniqueSuffix(QStringLiteral("\\.\\d+$"));
                    base = g.value(n.inputs.first()).name;
                    base.remove(uniqueSuffix);
                }
                m_folded.insert(n.id, base + QLatin1Char('.') + n.attribute(QStringLiteral("name")));
            } else if (n.kind == QLatin1String("prim::ListConstruct") && n.blocks.isEmpty()) {
                QStringList items;
                bool all = true;
                for (int in : n.inputs) {
                    const int p = g.value(in).producer;
                    if (p < 0 || g.node(p).kind != QLatin1String("prim::Constant")) {
                        all = false;
                        break;
                    }
                    items << m_folded.value(p);
                }
                if (all)
                    m_folded.insert(n.id, QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']'));
            }
        }
    }

    bool isFolded(int nodeId) const { return m_folded.contains(nodeId); }
    QString text(int nodeId) const { return m_folded.value(nodeId); }

private:
    const IrGraph& m_g;
    QHash<int, QString> m_folded;
};

struct DotBuild
{
    /// What the hierarchical layout needs on top of the DOT text: names written as "\x01n12\x02" (node),
    /// "\x01e3\x02" (empty block's point), "\x01cluster_4\x02" (control-flow cluster), so that the text of each
    /// module's items can be renamed to local names; and each module cluster's contents in program order.
    struct Item
    {
        QString text; ///< DOT statements of one top-level node (with its blocks) or folded module box
        int child = -1; ///< >= 0: the module cluster (index into clusters) placed here instead of text
    };
    bool marked = false;
    QString header; ///< "digraph G {" and the default attributes
    QHash<int, QVector<Item>> contents; ///< module cluster index (-1 for the whole graph) -> its items in order
    QVector<int> moduleClusterOfNode; ///< index into nodes -> innermost module cluster holding it, -1 for none
    QVector<QPair<int, int>> invisibleEdges; ///< layout-only edges between node indices
    QString dot;
    QVector<LayoutNode> nodes; ///< in the order of their "n<i>" names
    QVector<LayoutEdge> edges; ///< in the order of their "id" attributes
    QVector<LayoutCluster> clusters; ///< in the order of their "cluster_<i>" names
    QHash<int, int> boxOfNode; ///< GraphLayout::boxOfNode
};

QString shapeLabel(const IrValue& v)
{
    if (v.tensor && v.tensor->sizes) {
        QStringList dims;
        for (qint64 d : *v.tensor->sizes)
            dims << (d < 0 ? QStringLiteral("?") : QString::number(d));
        return QLatin1Char('[') + dims.join(QLatin1Char(',')) + QLatin1Char(']');
    }
    return {};
}

constexpr int kBoundedPlacementNodes = 300;

/// Ops that change their first input in place (x.relu_(), list.append(v)): value id -> node ids, in program order.
QHash<int, QVector<int>> inPlaceChanges(const IrGraph& g)
{
    QHash<int, QVector<int>> mutators;
    for (const IrNode& n : g.nodes) {
        const QString op = n.kind.section(QStringLiteral("::"), 1);
        const bool inPlace = (op.endsWith(QLatin1Char('_')) && !op.endsWith(QLatin1String("__")))
            || op == QLatin1String("append") || op == QLatin1String("extend") || op == QLatin1String("insert")
            || op == QLatin1String("_set_item") || op == QLatin1String("__setitem__");
        if (inPlace && !n.inputs.isEmpty())
            mutators[n.inputs.first()].push_back(n.id);
    }
    return mutators;
}

/// Nodes whose results reach the outputs (through their inputs, and through the blocks that hold them); a change
/// in place counts as producing the value it changes.
QSet<int> nodesReachingOutputs(const IrGraph& g, const QHash<int, QVector<int>>& mutators)
{
    QSet<int> reaching;
    QVector<int> work;
    auto markNode = [&](int id) {
        if (id >= 0 && !reaching.contains(id)) {
            reaching.insert(id);
            work.push_back(id);
        }
    };
    auto markValue = [&](int valueId) {
        markNode(g.value(valueId).producer);
        for (int m : mutators.value(valueId))
            markNode(m);
    };
    for (int out : g.top.outputs)
        markValue(out);
    while (!work.isEmpty()) {
        const IrNode& n = g.node(work.takeLast());
        for (int in : n.inputs)
            markValue(in);
        for (const IrBlock& blk : n.blocks)
            for (int out : blk.outputs)
                markValue(out);
        markNode(n.parentNode);
    }
    return reaching;
}

DotBuild buildDot(const IrGraph& g, const LayoutOptions& opt, bool marked = false)
{
    DotBuild b;
    b.marked = marked;
    auto ref = [marked](const char* kind, int index) {
        const QString name = QLatin1String(kind) + QString::number(index);
        return marked ? QLatin1Char('\x01') + name + QLatin1Char('\x02') : name;
    };
    Folder folder(g, opt.foldConstants);
    QHash<int, int> layoutIndex; // node id -> index in b.nodes
    QHash<int, int> inputIndex; // graph input value id -> index in b.nodes

    QString& dot = b.dot;
    b.header = QStringLiteral(
        "digraph G {\n  graph [rankdir=TB, nodesep=0.25, ranksep=0.35, fontname=\"%1\", fontsize=%2];\n"
        "  node [shape=box, style=\"rounded\", fontname=\"%1\", fontsize=%2, margin=\"0.12,0.05\", "
        "height=0.3];\n  edge [fontname=\"%1\", fontsize=%3, arrowsize=0.6];\n")
                   .arg(opt.fontName)
                   .arg(opt.fontSize)
                   .arg(opt.fontSize * 0.8);
    dot += b.header;

    const QHash<int, QVector<int>> mutators = inPlaceChanges(g);
    const QSet<int> reaching = opt.hideUnreachable ? nodesReachingOutputs(g, mutators) : QSet<int>();
    auto hidden = [&](int id) { return opt.hideUnreachable && !reaching.contains(id); };

    // Graph inputs that anything visible uses.
    QSet<int> usedValues;
    for (const IrNode& n : g.nodes)
        if (!folder.isFolded(n.id) && !hidden(n.id))
            for (int in : n.inputs)
                usedValues.insert(in);
    for (int out : g.top.outputs)
        usedValues.insert(out);
    for (int in : g.top.inputs) {
        if (!usedValues.contains(in))
            continue;
        LayoutNode ln;
        ln.role = LayoutNode::Role::GraphInputs;
        ln.title = g.value(in).name;
        // Complete tensor types are long ("Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu)"): show
        // dtype and shape, as edges do.
        const IrValue& v = g.value(in);
        ln.details << (v.tensor && v.tensor->sizes && !v.tensor->dtype.isEmpty() ? v.tensor->dtype + shapeLabel(v)
                                                                                 : v.type);
        ln.category = OpCategory::Input;
        inputIndex.insert(in, b.nodes.size());
        const QString text = QStringLiteral("  %1 [label=\"%2\\n%3\\l\", shape=box, style=\"rounded,filled\"];\n")
                                 .arg(ref("n", b.nodes.size()), dotEscape(ln.title), dotEscape(ln.details.first()));
        dot += text;
        if (marked)
            b.contents[-1].append({ text });
        b.nodes.push_back(ln);
    }

    // Grouped by module: the DOT text of each top-level node (or folded module box) with the module whose code it
    // is, in program order. Clusters are written around runs of consecutive items of a module, so a module called
    // twice (ResNet's relu; a ModuleList's entries with the caller's code between) gets a cluster per call: one
    // cluster around both would span, and push aside, everything between.
    struct TopItem
    {
        QString module;
        QString text;
        int firstNode = 0, endNode = 0; ///< the range of b.nodes the text declares
    };
    QVector<TopItem> topItems;
    // Folded submodules: every node whose top-level ancestor belongs to one becomes that module's box.
    auto foldedModuleOf = [&](int id) -> QString {
        int top = id;
        while (g.node(top).parentNode >= 0)
            top = g.node(top).parentNode;
        const QString& path = g.node(top).modulePath;
        for (const QString& f : opt.foldedModules)
            if (path == f || path.startsWith(f + QLatin1Char('.')))
                return f;
        return {};
    };
    QHash<QString, int> moduleBoxes; // folded module -> index in b.nodes
    auto moduleBox = [&](const QString& module) {
        auto it = moduleBoxes.find(module);
        if (it != moduleBoxes.end())
            return it.value();
        LayoutNode ln;
        ln.role = LayoutNode::Role::Module;
        ln.module = module;
        ln.title = module;
        ln.category = OpCategory::Call;
        QString label = dotEscape(module);
        if (const QString type = opt.moduleTypes.value(module); !type.isEmpty()) {
            ln.details << type;
            label += QStringLiteral("\\n") + dotEscape(type);
        }
        const int index = b.nodes.size();
        b.nodes.push_back(ln);
        const QString text
            = QStringLiteral("  %1 [label=\"%2\", style=\"rounded,bold\"];\n").arg(ref("n", index), label);
        const QString parent = module.contains(QLatin1Char('.')) ? module.section(QLatin1Char('.'), 0, -2) : QString();
        if (opt.groupByModule)
            topItems.append({ parent, text, index, index + 1 });
        else
            dot += text;
        moduleBoxes.insert(module, index);
        return index;
    };
    std::function<void(const IrBlock&, int, int)> emitBlock = [&](const IrBlock& block, int depth, int parentCluster) {
        const QString indent(2 * depth, QLatin1Char(' '));
        for (int id : block.nodes) {
            const IrNode& n = g.node(id);
            if (folder.isFolded(id) || hidden(id))
                continue;
            if (depth == 0 && !opt.foldedModules.isEmpty()) {
                const QString folded = foldedModuleOf(id);
                if (!folded.isEmpty()) {
                    layoutIndex.insert(id, moduleBox(folded));
                    continue;
                }
            }
            const int textStart = dot.size();
            // Top-level nodes of submodules are collected per module and written inside its cluster below.
            struct Bucket
            {
                QString& dot;
                bool active;
                int start;
                QVector<TopItem>& items;
                QString module;
                const QVector<LayoutNode>& nodes;
                int firstNode;
                ~Bucket()
                {
                    if (!active)
                        return;
                    items.append({ module, dot.mid(start), firstNode, int(nodes.size()) });
                    dot.truncate(start);
                }
            } bucket { dot, opt.groupByModule && depth == 0, textStart, topItems, n.modulePath, b.nodes,
                int(b.nodes.size()) };
            LayoutNode ln;
            ln.nodeId = id;
            ln.title = n.kind;
            ln.category = opCategory(n.kind);
            QStringList argNames = schemaArgumentNames(n.schema);
            if (n.kind == QLatin1String("prim::Loop"))
                argNames = { QStringLiteral("max_trip_count"), QStringLiteral("initial_condition") };
            for (int i = 0; i < n.inputs.size(); ++i) {
                const int p = g.value(n.inputs[i]).producer;
                if (p >= 0 && folder.isFolded(p)) {
                    const QString name = i < argNames.size() ? argNames[i] : QStringLiteral("arg%1").arg(i);
                    ln.details << name + QLatin1Char('=') + folder.text(p);
                }
            }
            for (const IrAttribute& a : n.attributes)
                if (n.kind != QLatin1String("prim::Constant"))
                    ln.details << a.name + QLatin1Char('=') + a.value.left(40);
            if (n.location.isValid() && !n.blocks.isEmpty())
                ln.details << QStringLiteral("line %1").arg(n.location.line);
            const int index = b.nodes.size();
            layoutIndex.insert(id, index);
            QString label = dotEscape(ln.title) + QStringLiteral("\\n");
            for (const QString& d : ln.details)
                label += dotEscape(d) + QStringLiteral("\\l");

            const bool foldedBlocks = !n.blocks.isEmpty() && opt.foldedNodes.contains(id);
            if (foldedBlocks) {
                int hidden = 0;
                std::function<void(const IrNode&)> count = [&](const IrNode& c) {
                    for (const IrBlock& blk : c.blocks)
                        for (int child : blk.nodes) {
                            hidden += !folder.isFolded(child);
                            count(g.node(child));
                        }
                };
                count(n);
                ln.folded = true;
                ln.details << QStringLiteral("folded: %1 nodes").arg(hidden);
                label += dotEscape(ln.details.last()) + QStringLiteral("\\l");
            }
            if (!n.blocks.isEmpty() && opt.showBlocks && !foldedBlocks) {
                const int cluster = b.clusters.size();
                LayoutCluster c;
                c.nodeId = id;
                c.blockIndex = -1;
                c.parentCluster = parentCluster;
                c.title = n.kind == QLatin1String("prim::Loop") ? QStringLiteral("loop") : QStringLiteral("if");
                if (n.location.isValid())
                    c.title += QStringLiteral(" (line %1)").arg(n.location.line);
                b.clusters.push_back(c);
                dot += indent + QStringLiteral("  subgraph %1 {\n").arg(ref("cluster_", cluster));
                dot += indent
                    + QStringLiteral("    label=\"%1\"; labeljust=l; style=rounded;\n").arg(dotEscape(c.title));
                dot += indent + QStringLiteral("    %1 [label=\"%2\"];\n").arg(ref("n", index), label);
                b.nodes.push_back(ln);
                for (int bi = 0; bi < n.blocks.size(); ++bi) {
                    const int sub = b.clusters.size();
                    LayoutCluster bc;
                    bc.nodeId = id;
                    bc.blockIndex = bi;
                    bc.parentCluster = cluster;
                    bc.title = n.kind == QLatin1String("prim::Loop") ? QStringLiteral("body")
                        : bi == 0                                    ? QStringLiteral("then")
                                                                     : QStringLiteral("else");
                    b.clusters.push_back(bc);
                    dot += indent + QStringLiteral("    subgraph %1 {\n").arg(ref("cluster_", sub));
                    dot += indent
                        + QStringLiteral("      label=\"%1\"; labeljust=l; style=\"rounded,dashed\";\n").arg(bc.title);
                    // An empty block still needs something to hold its place.
                    bool anyVisible = false;
                    for (int child : n.blocks[bi].nodes)
                        anyVisible |= !folder.isFolded(child);
                    if (!anyVisible)
                        dot += indent
                            + QStringLiteral("      %1 [label=\"\", shape=point, width=0.05];\n").arg(ref("e", sub));
                    emitBlock(n.blocks[bi], depth + 3, sub);
                    dot += indent + QStringLiteral("    }\n");
                }
                dot += indent + QStringLiteral("  }\n");
            } else {
                dot += indent + QStringLiteral("  %1 [label=\"%2\"];\n").arg(ref("n", index), label);
                b.nodes.push_back(ln);
            }
        }
    };
    emitBlock(g.top, 0, -1);
    // Nodes inside folded control-flow nodes were never visited: their edges attach to the folded node.
    for (int folded : opt.foldedNodes) {
        if (!layoutIndex.contains(folded))
            continue;
        const int box = layoutIndex.value(folded);
        std::function<void(const IrNode&)> mapInside = [&](const IrNode& c) {
            for (const IrBlock& blk : c.blocks)
                for (int child : blk.nodes) {
                    layoutIndex.insert(child, box);
                    mapInside(g.node(child));
                }
        };
        mapInside(g.node(folded));
    }
    if (!opt.foldedModules.isEmpty()) {
        // Nodes inside the blocks of folded nodes were never visited: they belong to the module's box too.
        for (const IrNode& n : g.nodes) {
            if (layoutIndex.contains(n.id) || folder.isFolded(n.id) || hidden(n.id))
                continue;
            const QString folded = foldedModuleOf(n.id);
            if (!folded.isEmpty())
                layoutIndex.insert(n.id, moduleBox(folded));
        }
    }
    if (opt.groupByModule) {
        // Open and close clusters as the module path changes from item to item: layer1 > layer1.0 > layer1.0.conv1.
        QStringList open; // module paths of the clusters open now, outermost first
        QVector<int> openIndex; // their indices in b.clusters
        for (const TopItem& item : std::as_const(topItems)) {
            const QString& module = item.module;
            QStringList chain; // "layer1", "layer1.0", "layer1.0.conv1"
            const QStringList parts = module.isEmpty() ? QStringList() : module.split(QLatin1Char('.'));
            for (int k = 1; k <= parts.size(); ++k)
                chain << parts.mid(0, k).join(QLatin1Char('.'));
            int common = 0;
            while (common < open.size() && common < chain.size() && open[common] == chain[common])
                ++common;
            while (open.size() > common) {
                open.removeLast();
                openIndex.removeLast();
                dot += QString(2 * (open.size() + 1), QLatin1Char(' ')) + QStringLiteral("}\n");
            }
            for (int k = common; k < chain.size(); ++k) {
                LayoutCluster c;
                c.nodeId = -1;
                c.blockIndex = -1;
                c.parentCluster = openIndex.isEmpty() ? -1 : openIndex.last();
                c.module = chain[k];
                c.title = chain[k];
                if (const QString type = opt.moduleTypes.value(chain[k]); !type.isEmpty())
                    c.title += QStringLiteral(" \u00b7 ") + type;
                if (marked)
                    b.contents[c.parentCluster].append({ QString(), int(b.clusters.size()) });
                const QString indent(2 * (k + 1), QLatin1Char(' '));
                dot += indent + QStringLiteral("subgraph cluster_%1 {\n").arg(b.clusters.size());
                dot += indent
                    + QStringLiteral("  label=\"%1\"; labeljust=l; style=\"rounded\";\n").arg(dotEscape(c.title));
                open << chain[k];
                openIndex << b.clusters.size();
                b.clusters.push_back(c);
            }
            dot += item.text;
            if (marked) {
                const int cluster = openIndex.isEmpty() ? -1 : openIndex.last();
                b.contents[cluster].append({ item.text });
                if (b.moduleClusterOfNode.size() < item.endNode)
                    b.moduleClusterOfNode.resize(item.endNode, -1);
                for (int i = item.firstNode; i < item.endNode; ++i)
                    b.moduleClusterOfNode[i] = cluster;
            }
        }
        while (!open.isEmpty()) {
            open.removeLast();
            dot += QString(2 * (open.size() + 1), QLatin1Char(' ')) + QStringLiteral("}\n");
        }
    }

    LayoutNode out;
    out.role = LayoutNode::Role::GraphOutputs;
    out.title = QStringLiteral("return");
    out.category = OpCategory::Output;
    const int outIndex = b.nodes.size();
    const QString outText
        = QStringLiteral("  %1 [label=\"return\", style=\"rounded,filled\"];\n").arg(ref("n", outIndex));
    dot += outText;
    if (marked)
        b.contents[-1].append({ outText });
    b.nodes.push_back(out);

    auto sourceOf = [&](int valueId) -> int {
        if (inputIndex.contains(valueId))
            return inputIndex.value(valueId);
        int p = g.value(valueId).producer;
        if (p >= 0 && layoutIndex.contains(p))
            return layoutIndex.value(p);
        return -1;
    };
    // Block inputs (loop counters, carried values) come from the control node that owns the block.
    QHash<int, int> blockInputOwner;
    for (const IrNode& n : g.nodes)
        for (const IrBlock& blk : n.blocks)
            for (int in : blk.inputs)
                blockInputOwner.insert(in, n.id);

    QSet<QPair<int, int>> foldedPairs;
    auto addEdge = [&](int from, int to, int valueId) {
        const bool folded
            = b.nodes[from].role == LayoutNode::Role::Module || b.nodes[to].role == LayoutNode::Role::Module;
        if (folded) {
            if (foldedPairs.contains({ from, to }))
                return;
            foldedPairs.insert({ from, to });
        }
        LayoutEdge e;
        e.fromNode = from;
        e.toNode = to;
        e.valueId = valueId;
        e.label = shapeLabel(g.value(valueId));
        const int id = b.edges.size();
        dot += QStringLiteral("  %1 -> %2 [id=\"%3\"%4];\n")
                   .arg(ref("n", from), ref("n", to))
                   .arg(id)
                   .arg(e.label.isEmpty() ? QString() : QStringLiteral(", label=\"%1\"").arg(e.label));
        b.edges.push_back(e);
    };
    // A value that ops change in place (list.append(v), x.relu_()) comes to each use from the last change before
    // it: DenseNet's features list then flows append by append into each layer's cat, not from one hub.
    auto sourceAt = [&](int valueId, int userId) -> int {
        const auto changes = mutators.constFind(valueId);
        if (changes != mutators.cend()) {
            // Node ids ascend in program order.
            for (auto it = std::lower_bound(changes->begin(), changes->end(), userId); it != changes->begin();) {
                --it;
                if (layoutIndex.contains(*it))
                    return layoutIndex.value(*it);
            }
        }
        return sourceOf(valueId);
    };
    for (const IrNode& n : g.nodes) {
        if (!layoutIndex.contains(n.id))
            continue;
        QSet<int> seen;
        for (int in : n.inputs) {
            if (seen.contains(in))
                continue;
            seen.insert(in);
            int from = sourceAt(in, n.id);
            if (from < 0 && blockInputOwner.contains(in) && layoutIndex.contains(blockInputOwner.value(in)))
                from = layoutIndex.value(blockInputOwner.value(in));
            if (from >= 0 && from != layoutIndex.value(n.id))
                addEdge(from, layoutIndex.value(n.id), in);
        }
    }
    for (int v : g.top.outputs) {
        const int from = sourceAt(v, std::numeric_limits<int>::max());
        if (from >= 0)
            addEdge(from, outIndex, v);
    }
    // For the layout only: what a loop's or an if's blocks return flows into the users of its outputs. The drawn
    // edge leaves the header; without these dot ranks the users right under the header, beside the blocks.
    QHash<int, QVector<int>> users; // value id -> layout indices of the nodes using it
    for (const IrNode& n : g.nodes)
        if (layoutIndex.contains(n.id))
            for (int in : n.inputs)
                users[in].push_back(layoutIndex.value(n.id));
    for (int v : g.top.outputs)
        users[v].push_back(outIndex);
    QSet<QPair<int, int>> invisible;
    for (const IrNode& n : g.nodes) {
        if (n.blocks.isEmpty() || !layoutIndex.contains(n.id))
            continue;
        const int header = layoutIndex.value(n.id);
        QSet<int> targets;
        for (int out : n.outputs)
            for (int user : users.value(out))
                if (user != header)
                    targets.insert(user);
        if (targets.isEmpty())
            continue;
        for (const IrBlock& blk : n.blocks)
            for (int out : blk.outputs) {
                const int from = sourceOf(out);
                if (from < 0 || from == header || inputIndex.contains(out))
                    continue;
                for (int to : std::as_const(targets))
                    if (to != from && !invisible.contains({ from, to })) {
                        invisible.insert({ from, to });
                        dot += QStringLiteral("  %1 -> %2 [style=invis];\n").arg(ref("n", from), ref("n", to));
                        b.invisibleEdges.append({ from, to });
                    }
            }
    }
    // Big graphs: dot's x placement (network simplex) dominates, 6 of DenseNet-201's 6.5 s. Bounding its iterations
    // by the node count gives a layout of about the same width in a quarter of the time.
    if (b.nodes.size() > kBoundedPlacementNodes)
        dot += QStringLiteral("  graph [nslimit=1];\n");
    dot += QStringLiteral("}\n");
    b.boxOfNode = layoutIndex;
    if (marked)
        b.moduleClusterOfNode.resize(b.nodes.size(), -1);
    // What folds into its users (a constant, a list construct) shows in the first box found down its consumers.
    QHash<int, QVector<int>> consumers; // value id -> nodes using it
    for (const IrNode& n : g.nodes)
        for (int in : n.inputs)
            consumers[in].append(n.id);
    for (const IrNode& n : g.nodes) {
        if (layoutIndex.contains(n.id) || !folder.isFolded(n.id))
            continue;
        QVector<int> queue { n.id };
        QSet<int> seen { n.id };
        int box = -1;
        for (int i = 0; i < queue.size() && i < 64 && box < 0; ++i) {
            for (int output : g.node(queue.at(i)).outputs) {
                for (int consumer : consumers.value(output)) {
                    if (box < 0 && layoutIndex.contains(consumer))
                        box = layoutIndex.value(consumer);
                    else if (!seen.contains(consumer)) {
                        seen.insert(consumer);
                        queue.append(consumer);
                    }
                }
                if (box >= 0)
                    break;
            }
        }
        if (box >= 0)
            b.boxOfNode.insert(n.id, box);
    }
    return b;
}

} // namespace

OpCategory opCategory(const QString& kind)
{
    const QString op = kind.section(QStringLiteral("::"), 1);
    const QString ns = kind.section(QStringLiteral("::"), 0, 0);
    if (kind == QLatin1String("prim::Constant"))
        return OpCategory::Constant;
    if (kind == QLatin1String("prim::Loop") || kind == QLatin1String("prim::If")
        || kind == QLatin1String("prim::RaiseException") || kind == QLatin1String("aten::warn"))
        return OpCategory::ControlFlow;
    if (kind == QLatin1String("prim::CallMethod") || kind == QLatin1String("prim::CallFunction"))
        return OpCategory::Call;
    if (kind == QLatin1String("prim::GetAttr") || kind == QLatin1String("prim::SetAttr"))
        return OpCategory::Attribute;
    if (ns == QLatin1String("prim")
        && (op.startsWith(QLatin1String("List")) || op.startsWith(QLatin1String("Tuple"))
            || op.startsWith(QLatin1String("Dict"))))
        return OpCategory::Container;
    static const QRegularExpression conv(
        QStringLiteral("^_?(conv|convolution|linear|matmul|mm|bmm|addmm|einsum|baddbmm)"));
    static const QRegularExpression norm(
        QStringLiteral("(batch_norm|layer_norm|group_norm|instance_norm|norm$|normalize)"));
    static const QRegularExpression act(QStringLiteral(
        "^(relu|relu6|gelu|silu|sigmoid|tanh|softmax|log_softmax|hardtanh|hardswish|hardsigmoid|leaky_relu|elu|selu|"
        "mish|softplus|threshold|prelu|glu|dropout|feature_dropout)_?$"));
    static const QRegularExpression pool(QStringLiteral("pool|upsample|interpolate"));
    static const QRegularExpression shape(QStringLiteral(
        "^(view|reshape|flatten|unflatten|squeeze|unsqueeze|permute|transpose|t|contiguous|size|dim|expand|expand_as|"
        "select|slice|index|index_select|narrow|cat|stack|chunk|split|split_with_sizes|unbind|repeat|flip|roll|numel|"
        "len|__getitem__|gather|scatter|masked_select|movedim|unsafe_chunk|tensor_split|view_as|reshape_as|"
        "NumToTensor|Int|Float|Bool|ScalarImplicit|device|dtype|to|type_as|detach|clone)_?$"));
    static const QRegularExpression create(QStringLiteral(
        "^(zeros|ones|full|empty|rand|randn|randint|arange|linspace|tensor|as_tensor|eye|zeros_like|ones_like|"
        "full_like|empty_like|rand_like|randn_like|new_zeros|new_ones|new_full|new_empty|scalar_tensor)$"));
    if (conv.match(op).hasMatch())
        return OpCategory::ConvLinear;
    if (norm.match(op).hasMatch())
        return OpCategory::Normalization;
    if (act.match(op).hasMatch())
        return OpCategory::Activation;
    if (pool.match(op).hasMatch())
        return OpCategory::Pooling;
    if (create.match(op).hasMatch())
        return OpCategory::Creation;
    if (shape.match(op).hasMatch())
        return OpCategory::ShapeView;
    if (ns == QLatin1String("aten"))
        return OpCategory::Arithmetic;
    return OpCategory::Other;
}

QString opCategoryName(OpCategory c)
{
    switch (c) {
    case OpCategory::Input:
        return QStringLiteral("input");
    case OpCategory::Output:
        return QStringLiteral("output");
    case OpCategory::Constant:
        return QStringLiteral("constant");
    case OpCategory::ConvLinear:
        return QStringLiteral("convolution/linear");
    case OpCategory::Normalization:
        return QStringLiteral("normalisation");
    case OpCategory::Activation:
        return QStringLiteral("activation");
    case OpCategory::Pooling:
        return QStringLiteral("pooling");
    case OpCategory::ShapeView:
        return QStringLiteral("shape/view");
    case OpCategory::Arithmetic:
        return QStringLiteral("arithmetic");
    case OpCategory::ControlFlow:
        return QStringLiteral("control flow");
    case OpCategory::Creation:
        return QStringLiteral("tensor creation");
    case OpCategory::Call:
        return QStringLiteral("call");
    case OpCategory::Attribute:
        return QStringLiteral("attribute");
    case OpCategory::Container:
        return QStringLiteral("container");
    case OpCategory::Other:
        return QStringLiteral("other");
    }
    return {};
}

int GraphLayout::indexOfNode(int nodeId) const
{
    for (int i = 0; i < nodes.size(); ++i)
        if (nodes[i].nodeId == nodeId && nodes[i].role == LayoutNode::Role::Node)
            return i;
    return -1;
}

QString toDot(const IrGraph& graph, const LayoutOptions& options)
{
    return buildDot(graph, options).dot;
}

namespace {

void readClusters(Agraph_t* g, double height, QVector<LayoutCluster>& clusters)
{
    for (Agraph_t* sub = agfstsubg(g); sub; sub = agnxtsubg(sub)) {
        const QString name = QString::fromUtf8(agnameof(sub));
        if (name.startsWith(QLatin1String("cluster_"))) {
            bool ok = false;
            const int index = name.mid(8).toInt(&ok);
            if (ok && index >= 0 && index < clusters.size()) {
                const boxf bb = GD_bb(sub);
                clusters[index].box = QRectF(bb.LL.x, height - bb.UR.y, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
            }
        }
        readClusters(sub, height, clusters);
    }
}

/// One module cluster laid out on its own: its frame's top-left at (0, 0), y down, everything by local names.
struct ClusterGeometry
{
    QSizeF size;
    QVector<QRectF> nodes; ///< "n<j>"
    QVector<QRectF> children; ///< child module placeholders "c<j>"
    QVector<QRectF> clusters; ///< control-flow clusters "cluster_<j>"
    QVector<QVector<QPointF>> edges; ///< by local edge id
    QVector<QPointF> labels;
};
using GeometryPtr = std::shared_ptr<const ClusterGeometry>;

} // namespace

struct LayoutCache::Private
{
    mutable std::mutex mutex;
    int capacity = 0;
    quint64 clock = 0;
    struct Entry
    {
        GeometryPtr geometry;
        quint64 used = 0;
    };
    QHash<QByteArray, Entry> entries;

    GeometryPtr find(const QByteArray& key)
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = entries.find(key);
        if (it == entries.end())
            return {};
        it->used = ++clock;
        return it->geometry;
    }
    void insert(const QByteArray& key, GeometryPtr geometry)
    {
        std::lock_guard<std::mutex> lock(mutex);
        entries.insert(key, { std::move(geometry), ++clock });
        if (entries.size() <= capacity)
            return;
        // Drop the least recently used quarter at once, not one entry per insert.
        std::vector<quint64> used;
        used.reserve(entries.size());
        for (const Entry& e : std::as_const(entries))
            used.push_back(e.used);
        const size_t drop = used.size() - size_t(capacity) * 3 / 4;
        std::nth_element(used.begin(), used.begin() + drop, used.end());
        const quint64 threshold = used[drop];
        for (auto it = entries.begin(); it != entries.end();)
            it = it->used < threshold ? entries.erase(it) : std::next(it);
    }
};

LayoutCache::LayoutCache(int capacity)
    : m_d(std::make_unique<Private>())
{
    m_d->capacity = std::max(1, capacity);
}

LayoutCache::~LayoutCache() = default;

int LayoutCache::size() const
{
    std::lock_guard<std::mutex> lock(m_d->mutex);
    return int(m_d->entries.size());
}

void LayoutCache::clear()
{
    std::lock_guard<std::mutex> lock(m_d->mutex);
    m_d->entries.clear();
}

namespace {

/// Local names of one cluster's DOT text, in order of appearance: "\x01n12\x02" -> "n0".
struct LocalNames
{
    QHash<int, int> node, cluster, point;
    QVector<int> nodeGlobal, clusterGlobal; ///< local -> index into DotBuild::nodes / clusters
};

void localize(const QString& text, LocalNames& names, QString& out)
{
    const QStringView view(text);
    qsizetype pos = 0;
    while (true) {
        const qsizetype open = view.indexOf(QChar(1), pos);
        if (open < 0) {
            out += view.mid(pos);
            return;
        }
        out += view.mid(pos, open - pos);
        const qsizetype close = view.indexOf(QChar(2), open);
        const QStringView name = view.mid(open + 1, close - open - 1);
        auto local = [](QHash<int, int>& map, QVector<int>* global, int index) {
            auto it = map.find(index);
            if (it == map.end()) {
                it = map.insert(index, int(map.size()));
                if (global)
                    global->append(index);
            }
            return QString::number(it.value());
        };
        if (name.startsWith(u"cluster_"))
            out += QStringLiteral("cluster_") + local(names.cluster, &names.clusterGlobal, name.mid(8).toInt());
        else if (name.startsWith(u'n'))
            out += QLatin1Char('n') + local(names.node, &names.nodeGlobal, name.mid(1).toInt());
        else
            out += QLatin1Char('e') + local(names.point, nullptr, name.mid(1).toInt());
        pos = close + 1;
    }
}

void readClusterBoxes(Agraph_t* g, double height, double left, QVector<QRectF>& boxes)
{
    for (Agraph_t* sub = agfstsubg(g); sub; sub = agnxtsubg(sub)) {
        const QString name = QString::fromUtf8(agnameof(sub));
        if (name.startsWith(QLatin1String("cluster_"))) {
            bool ok = false;
            const int index = name.mid(8).toInt(&ok);
            if (ok && index >= 0 && index < boxes.size()) {
                const boxf bb = GD_bb(sub);
                boxes[index] = QRectF(bb.LL.x - left, height - bb.UR.y, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
            }
        }
        readClusterBoxes(sub, height, left, boxes);
    }
}

/// Runs dot on one cluster's text (a caller holds graphvizMutex()). Null and @p error set on failure.
GeometryPtr layoutCluster(
    GVC_t* gvc, const QString& text, int nodes, int children, int clusters, int edges, QString* error)
{
    const QByteArray dot = text.toUtf8();
    Agraph_t* g = agmemread(dot.constData());
    if (!g) {
        *error = QStringLiteral("Graphviz could not parse the generated graph");
        return {};
    }
    if (gvLayout(gvc, g, "dot") != 0) {
        agclose(g);
        *error = QStringLiteral("Graphviz layout failed");
        return {};
    }
    auto geometry = std::make_shared<ClusterGeometry>();
    geometry->nodes.resize(nodes);
    geometry->children.resize(children);
    geometry->clusters.resize(clusters);
    geometry->edges.resize(edges);
    geometry->labels.resize(edges);
    const boxf bb = GD_bb(g);
    const double height = bb.UR.y, left = bb.LL.x;
    geometry->size = QSizeF(bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    auto at = [&](pointf p) { return QPointF(p.x - left, height - p.y); };
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
        const char* name = agnameof(n);
        bool ok = false;
        const int index = QByteArray(name + 1).toInt(&ok);
        QVector<QRectF>* boxes = name[0] == 'n' ? &geometry->nodes : name[0] == 'c' ? &geometry->children : nullptr;
        if (ok && boxes && index >= 0 && index < boxes->size()) {
            const QPointF c = at(ND_coord(n));
            const double w = ND_width(n) * 72.0, h = ND_height(n) * 72.0;
            (*boxes)[index] = QRectF(c.x() - w / 2, c.y() - h / 2, w, h);
        }
        for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e)) {
            const int id = QByteArray(agget(e, const_cast<char*>("id"))).toInt(&ok);
            if (!ok || id < 0 || id >= edges || !ED_spl(e))
                continue;
            const splines* spl = ED_spl(e);
            for (int bi = 0; bi < spl->size; ++bi) {
                const bezier& bz = spl->list[bi];
                for (size_t pi = 0; pi < bz.size; ++pi)
                    geometry->edges[id].push_back(at(bz.list[pi]));
                if (bz.eflag)
                    geometry->edges[id].push_back(at(bz.ep));
            }
            if (ED_label(e))
                geometry->labels[id] = at(ED_label(e)->pos);
        }
    }
    readClusterBoxes(g, height, left, geometry->clusters);
    gvFreeLayout(gvc, g);
    agclose(g);
    return geometry;
}

/// LayoutOptions::hierarchicalAbove: each module cluster laid out by dot on its own, bottom up, its child modules
/// as fixed-size boxes; then the levels composed top down. An edge is routed by the layout of the innermost
/// cluster holding both its ends; where an end is deeper, a straight segment joins the border of the child box the
/// edge meets to the node (edges enter and leave a module through its border).
GraphLayout layoutHierarchically(const DotBuild& b, const LayoutOptions& options)
{
    GraphLayout layout;
    layout.nodes = b.nodes;
    layout.edges = b.edges;
    layout.clusters = b.clusters;
    layout.boxOfNode = b.boxOfNode;
    layout.stats.hierarchical = true;

    const int clusterCount = int(b.clusters.size());
    const QVector<int>& moduleOf = b.moduleClusterOfNode;
    auto parentOf = [&](int c) { return b.clusters[c].parentCluster; };
    QVector<int> depth(clusterCount, 0); // module clusters only; parents come before their children
    for (int c = 0; c < clusterCount; ++c)
        if (!b.clusters[c].module.isEmpty())
            depth[c] = parentOf(c) < 0 ? 1 : depth[parentOf(c)] + 1;
    auto depthOf = [&](int c) { return c < 0 ? 0 : depth[c]; };
    auto commonCluster = [&](int x, int y) {
        while (x != y) {
            const int dx = depthOf(x), dy = depthOf(y);
            if (dx >= dy)
                x = parentOf(x);
            if (dy >= dx)
                y = parentOf(y);
        }
        return x;
    };
    // The child of @p level holding node @p index, -1 when the node is the level's own.
    auto childHolding = [&](int index, int level) {
        int c = moduleOf[index];
        if (c == level)
            return -1;
        while (parentOf(c) != level)
            c = parentOf(c);
        return c;
    };
    QHash<int, QVector<int>> edgesAt; // level (module cluster, -1 for the whole graph) -> edge indices
    for (int e = 0; e < b.edges.size(); ++e)
        edgesAt[commonCluster(moduleOf[b.edges[e].fromNode], moduleOf[b.edges[e].toNode])].append(e);
    QHash<int, QVector<QPair<int, int>>> invisibleAt;
    for (const auto& pair : b.invisibleEdges)
        invisibleAt[commonCluster(moduleOf[pair.first], moduleOf[pair.second])].append(pair);
    // In a fixed order (buildDot finds them through a QSet): equal modules must give equal text.
    for (auto& pairs : invisibleAt)
        std::sort(pairs.begin(), pairs.end());

    struct Level
    {
        LocalNames names;
        QVector<int> children; ///< local placeholder -> module cluster
        QVector<int> edges; ///< local edge id -> edge index
        GeometryPtr geometry;
        QPointF offset; ///< where the frame's (0, 0) is in the whole layout
    };
    QVector<Level> levels(clusterCount + 1); // cluster c at c + 1, the whole graph at 0
    const double pad = 8;
    const double titleHeight = options.fontSize * 1.4 + 8;
    auto placeholderSize = [&](int c) {
        const QSizeF content = levels[c + 1].geometry->size;
        const double titleWidth = b.clusters[c].title.size() * options.fontSize * 0.6 + 2 * pad;
        return QSizeF(std::max(content.width() + 2 * pad, titleWidth), content.height() + titleHeight + pad);
    };

    QVector<int> order; // children before parents: module clusters by falling index, then the whole graph
    for (int c = clusterCount - 1; c >= 0; --c)
        if (!b.clusters[c].module.isEmpty())
            order << c;
    order << -1;

    GVC_t* gvc = nullptr;
    auto finish = [&] {
        if (gvc) {
            std::lock_guard<std::mutex> lock(graphvizMutex());
            gvFreeContext(gvc);
        }
    };
    LayoutCache::Private* cache = options.cache ? options.cache->d() : nullptr;
    QHash<QByteArray, GeometryPtr> laidOut; // this call's layouts by key
    for (int c : order) {
        if (options.cancel && options.cancel->load()) {
            finish();
            layout.cancelled = true;
            layout.error = QStringLiteral("Layout cancelled");
            return layout;
        }
        Level& level = levels[c + 1];
        QString text = b.header;
        QHash<int, int> childIndex; // module cluster -> local placeholder
        for (const DotBuild::Item& item : b.contents.value(c)) {
            if (item.child < 0) {
                localize(item.text, level.names, text);
                continue;
            }
            childIndex.insert(item.child, int(level.children.size()));
            const QSizeF size = placeholderSize(item.child);
            text += QStringLiteral("  c%1 [label=\"\", shape=box, fixedsize=true, width=%2, height=%3];\n")
                        .arg(level.children.size())
                        .arg(size.width() / 72.0, 0, 'f', 3)
                        .arg(size.height() / 72.0, 0, 'f', 3);
            level.children.append(item.child);
        }
        auto endName = [&](int index) {
            const int child = childHolding(index, c);
            return child < 0 ? QLatin1Char('n') + QString::number(level.names.node.value(index))
                             : QLatin1Char('c') + QString::number(childIndex.value(child));
        };
        for (int e : edgesAt.value(c)) {
            const LayoutEdge& edge = b.edges[e];
            text += QStringLiteral("  %1 -> %2 [id=\"%3\"%4];\n")
                        .arg(endName(edge.fromNode), endName(edge.toNode))
                        .arg(level.edges.size())
                        .arg(edge.label.isEmpty() ? QString() : QStringLiteral(", label=\"%1\"").arg(edge.label));
            level.edges.append(e);
        }
        for (const auto& [from, to] : invisibleAt.value(c))
            text += QStringLiteral("  %1 -> %2 [style=invis];\n").arg(endName(from), endName(to));
        if (level.names.nodeGlobal.size() + level.children.size() > kBoundedPlacementNodes)
            text += QStringLiteral("  graph [nslimit=1];\n");
        text += QStringLiteral("}\n");

        // The structural key: the text as laid out, with the module's own path masked (its weights' names show
        // it: "self.layer1.0.conv1.weight"), kept at its length so that the boxes keep their size.
        QString keyText = text;
        if (c >= 0)
            keyText.replace(b.clusters[c].module, QString(b.clusters[c].module.size(), QChar(0x2022)));
        const QByteArray key = QCryptographicHash::hash(keyText.toUtf8(), QCryptographicHash::Sha1);
        ++layout.stats.clusters;
        if (const auto it = laidOut.constFind(key); it != laidOut.cend()) {
            level.geometry = it.value();
            ++layout.stats.reused;
            continue;
        }
        if (cache && (level.geometry = cache->find(key))) {
            ++layout.stats.cached;
            laidOut.insert(key, level.geometry);
            continue;
        }
        QString error;
        {
            std::lock_guard<std::mutex> lock(graphvizMutex());
            if (!gvc)
                gvc = gvContext();
            level.geometry = layoutCluster(gvc, text, int(level.names.nodeGlobal.size()), int(level.children.size()),
                int(level.names.clusterGlobal.size()), int(level.edges.size()), &error);
        }
        if (!level.geometry) {
            finish();
            layout.error = error;
            return layout;
        }
        ++layout.stats.dotRuns;
        laidOut.insert(key, level.geometry);
        if (cache)
            cache->insert(key, level.geometry);
    }
    finish();

    // Compose top down: each child's frame centred in its box, under its title.
    layout.bounds = QRectF(QPointF(0, 0), levels[0].geometry->size);
    for (int k = order.size() - 1; k >= 0; --k) {
        const int c = order[k];
        const Level& level = levels[c + 1];
        const ClusterGeometry& geometry = *level.geometry;
        for (int j = 0; j < level.names.nodeGlobal.size(); ++j)
            layout.nodes[level.names.nodeGlobal[j]].box = geometry.nodes[j].translated(level.offset);
        for (int j = 0; j < level.names.clusterGlobal.size(); ++j)
            layout.clusters[level.names.clusterGlobal[j]].box = geometry.clusters[j].translated(level.offset);
        for (int j = 0; j < level.children.size(); ++j) {
            const int child = level.children[j];
            const QRectF box = geometry.children[j].translated(level.offset);
            layout.clusters[child].box = box;
            const QSizeF content = levels[child + 1].geometry->size;
            levels[child + 1].offset
                = QPointF(box.left() + (box.width() - content.width()) / 2, box.top() + titleHeight);
        }
    }
    auto straight = [](QVector<QPointF>& points, QPointF from, QPointF to) {
        points << from + (to - from) / 3 << from + (to - from) * 2 / 3 << to;
    };
    for (int c : std::as_const(order)) {
        const Level& level = levels[c + 1];
        for (int j = 0; j < level.edges.size(); ++j) {
            LayoutEdge& edge = layout.edges[level.edges[j]];
            QVector<QPointF> points = level.geometry->edges[j];
            for (QPointF& p : points)
                p += level.offset;
            edge.labelPos = level.geometry->labels[j] + level.offset;
            if (points.isEmpty()) {
                edge.points = points;
                continue;
            }
            if (moduleOf[edge.toNode] != c) {
                if (points.size() >= 5 && (points.size() - 2) % 3 == 0)
                    points.removeLast(); // the tip on the child's border: the edge goes on to the node
                const QRectF to = layout.nodes[edge.toNode].box;
                straight(points, points.last(), QPointF(to.center().x(), to.top()));
            }
            if (moduleOf[edge.fromNode] != c) {
                const QRectF from = layout.nodes[edge.fromNode].box;
                QVector<QPointF> start { QPointF(from.center().x(), from.bottom()) };
                straight(start, start.first(), points.first());
                start.removeLast();
                points = start + points;
            }
            edge.points = points;
        }
    }
    return layout;
}

} // namespace

GraphLayout layoutGraph(const IrGraph& graph, const LayoutOptions& options)
{
    DotBuild build = buildDot(graph, options, options.groupByModule);
    if (build.marked) {
        if (build.nodes.size() > options.hierarchicalAbove)
            return layoutHierarchically(build, options);
        build.dot.remove(QChar(1));
        build.dot.remove(QChar(2));
    }
    GraphLayout layout;
    layout.nodes = build.nodes;
    layout.edges = build.edges;
    layout.clusters = build.clusters;
    layout.boxOfNode = build.boxOfNode;

    std::lock_guard<std::mutex> lock(graphvizMutex());
    GVC_t* gvc = gvContext();
    const QByteArray dot = build.dot.toUtf8();
    Agraph_t* g = agmemread(dot.constData());
    if (!g) {
        gvFreeContext(gvc);
        layout.error = QStringLiteral("Graphviz could not parse the generated graph");
        return layout;
    }
    if (gvLayout(gvc, g, "dot") != 0) {
        agclose(g);
        gvFreeContext(gvc);
        layout.error = QStringLiteral("Graphviz layout failed");
        return layout;
    }
    layout.stats.dotRuns = 1;
    const boxf bb = GD_bb(g);
    const double height = bb.UR.y;
    layout.bounds = QRectF(bb.LL.x, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
        const QString name = QString::fromUtf8(agnameof(n));
        if (!name.startsWith(QLatin1Char('n')))
            continue;
        bool ok = false;
        const int index = name.mid(1).toInt(&ok);
        if (!ok || index < 0 || index >= layout.nodes.size())
            continue;
        const pointf c = ND_coord(n);
        const double w = ND_width(n) * 72.0, h = ND_height(n) * 72.0;
        layout.nodes[index].box = QRectF(c.x - w / 2, height - c.y - h / 2, w, h);
        for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e)) {
            const int id = QString::fromUtf8(agget(e, const_cast<char*>("id"))).toInt(&ok);
            if (!ok || id < 0 || id >= layout.edges.size() || !ED_spl(e))
                continue;
            LayoutEdge& edge = layout.edges[id];
            const splines* spl = ED_spl(e);
            for (int bi = 0; bi < spl->size; ++bi) {
                const bezier& bz = spl->list[bi];
                for (size_t pi = 0; pi < bz.size; ++pi)
                    edge.points.push_back(QPointF(bz.list[pi].x, height - bz.list[pi].y));
                if (bz.eflag)
                    edge.points.push_back(QPointF(bz.ep.x, height - bz.ep.y));
            }
            if (ED_label(e))
                edge.labelPos = QPointF(ED_label(e)->pos.x, height - ED_label(e)->pos.y);
        }
    }
    readClusters(g, height, layout.clusters);
    gvFreeLayout(gvc, g);
    agclose(g);
    gvFreeContext(gvc);
    return layout;
}

QStringList overviewFolds(const IrGraph& graph, const LayoutOptions& options, int bigBoxes, int overviewBoxes)
{
    // What becomes a box: every node shown but what folds into its users (constants, attribute reads, int lists),
    // counted by the module path of its top-level ancestor (folding a module folds the blocks of its nodes too).
    const QSet<int> reaching
        = options.hideUnreachable ? nodesReachingOutputs(graph, inPlaceChanges(graph)) : QSet<int>();
    const Folder folder(graph, options.foldConstants);
    QHash<QString, int> boxesByModule;
    int boxes = 0;
    int deepest = 0;
    for (const IrNode& n : graph.nodes) {
        if (folder.isFolded(n.id) || (options.hideUnreachable && !reaching.contains(n.id)))
            continue;
        int top = n.id;
        while (graph.node(top).parentNode >= 0)
            top = graph.node(top).parentNode;
        const QString& module = graph.node(top).modulePath;
        ++boxesByModule[module];
        ++boxes;
        if (!module.isEmpty())
            deepest = std::max(deepest, int(module.count(QLatin1Char('.'))) + 1);
    }
    if (boxes <= bigBoxes || deepest == 0)
        return {};
    QStringList best;
    for (int depth = 1; depth <= deepest; ++depth) {
        QSet<QString> folded;
        int shown = 0;
        for (auto it = boxesByModule.cbegin(); it != boxesByModule.cend(); ++it) {
            const QStringList parts = it.key().isEmpty() ? QStringList() : it.key().split(QLatin1Char('.'));
            if (parts.size() >= depth)
                folded.insert(parts.mid(0, depth).join(QLatin1Char('.')));
            else
                shown += it.value();
        }
        if (shown + folded.size() > overviewBoxes)
            break;
        best = QStringList(folded.begin(), folded.end());
    }
    best.sort();
    return best;
}

QByteArray renderDotToSvg(const QString& dot, QString* error)
{
    std::lock_guard<std::mutex> lock(graphvizMutex());
    GVC_t* gvc = gvContext();
    const QByteArray text = dot.toUtf8();
    Agraph_t* g = agmemread(text.constData());
    QByteArray svg;
    if (!g) {
        if (error)
            *error = QStringLiteral("Graphviz could not parse the DOT text");
    } else if (gvLayout(gvc, g, "dot") != 0) {
        if (error)
            *error = QStringLiteral("Graphviz layout failed");
        agclose(g);
    } else {
        char* data = nullptr;
        unsigned int length = 0;
        if (gvRenderData(gvc, g, "svg", &data, &length) == 0 && data)
            svg = QByteArray(data, qsizetype(length));
        else if (error)
            *error = QStringLiteral("Graphviz could not render SVG");
        if (data)
            gvFreeRenderData(data);
        gvFreeLayout(gvc, g);
        agclose(g);
    }
    gvFreeContext(gvc);
    return svg;
}

QString graphvizVersion()
{
    std::lock_guard<std::mutex> lock(graphvizMutex());
    GVC_t* gvc = gvContext();
    const QString v = QString::fromUtf8(gvcVersion(gvc));
    gvFreeContext(gvc);
    return v;
}

} // namespace jitscope
