// The DOT text of a graph as the layout draws it: toDot(), and dotBuild() with what the hierarchical layout needs.

#include "report/graphfolds_p.h"
#include "report/graphlayout.h"
#include "report/graphlayout_p.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <functional>
#include <limits>

namespace jitscope {

namespace {

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

/// An exported program's graph input that is the model's state (IrValue::role), not an input the caller gives.
bool isStateInput(const IrValue& v)
{
    return v.role == QLatin1String("parameter") || v.role == QLatin1String("buffer")
        || v.role == QLatin1String("constant") || v.role == QLatin1String("custom object");
}

QString shapeLabel(const IrValue& v)
{
    if (v.tensor && v.tensor->sizes) {
        // A size the type names by a symbol (an exported program's "Float(s0, 4)") is shown by it, not as "?".
        QStringList typed;
        if (v.tensor->sizes->contains(-1) && v.type.endsWith(QLatin1Char(')'))) {
            const int open = int(v.type.indexOf(QLatin1Char('(')));
            if (open > 0)
                for (const QString& part : v.type.mid(open + 1, v.type.size() - open - 2).split(QStringLiteral(", ")))
                    if (!part.contains(QLatin1Char('='))) // strides=[...], device=...
                        typed << part;
            if (typed.size() != v.tensor->sizes->size())
                typed.clear(); // an expression with a comma in it: not one name a dimension
        }
        QStringList dims;
        for (int i = 0; i < v.tensor->sizes->size(); ++i) {
            const qint64 d = v.tensor->sizes->at(i);
            const QString name = typed.value(i);
            dims << (d >= 0                                         ? QString::number(d)
                    : !name.isEmpty() && name != QLatin1String("*") ? name
                                                                    : QStringLiteral("?"));
        }
        return QLatin1Char('[') + dims.join(QLatin1Char(',')) + QLatin1Char(']');
    }
    return {};
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
        if (!usedValues.contains(in) || (opt.foldConstants && isStateInput(g.value(in))))
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
                const IrValue& in = g.value(n.inputs[i]);
                const int p = in.producer;
                if (p >= 0 && folder.isFolded(p)) {
                    const QString name = i < argNames.size() ? argNames[i] : QStringLiteral("arg%1").arg(i);
                    ln.details << name + QLatin1Char('=') + folder.text(p);
                } else if (p < 0 && opt.foldConstants && isStateInput(in)) {
                    // An exported program's parameter, buffer or constant: named in its user, as a folded
                    // GetAttr chain names TorchScript's.
                    ln.details << (i < argNames.size() ? argNames[i] + QLatin1Char('=') : QString())
                            + (in.roleTarget.isEmpty() ? in.name : in.roleTarget);
                }
            }
            for (const IrAttribute& a : n.attributes)
                // An exported program's overload says something only when it is not the default one.
                if (n.kind != QLatin1String("prim::Constant")
                    && !(a.name == QLatin1String("overload") && a.value == QLatin1String("default")))
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
    // Ifs and loops of one module's code one after another in program order: independent ones (the checks that
    // start a scripted F.interpolate) would otherwise stand side by side, as wide as all of them together.
    auto lastBoxIn = [&](int id) {
        int last = layoutIndex.value(id, -1);
        std::function<void(const IrNode&)> walk = [&](const IrNode& n) {
            for (const IrBlock& blk : n.blocks)
                for (int child : blk.nodes) {
                    const int box = layoutIndex.value(child, -1);
                    if (box >= 0 && b.nodes[box].nodeId == child && (last < 0 || child > b.nodes[last].nodeId))
                        last = box;
                    walk(g.node(child));
                }
        };
        if (last >= 0 && b.nodes[last].nodeId == id)
            walk(g.node(id));
        return last;
    };
    std::function<void(const IrBlock&)> chainControlFlow = [&](const IrBlock& blk) {
        int previous = -1; // node id of the last if or loop drawn as itself in this block
        for (int id : blk.nodes) {
            const IrNode& n = g.node(id);
            if (n.blocks.isEmpty())
                continue;
            const int header = layoutIndex.value(id, -1);
            if (header < 0 || b.nodes[header].nodeId != id)
                continue;
            if (previous >= 0 && g.node(previous).modulePath == n.modulePath) {
                const int from = lastBoxIn(previous);
                if (from >= 0 && from != header && !invisible.contains({ from, header })) {
                    invisible.insert({ from, header });
                    dot += QStringLiteral("  %1 -> %2 [style=invis];\n").arg(ref("n", from), ref("n", header));
                    b.invisibleEdges.append({ from, header });
                }
            }
            previous = id;
            for (const IrBlock& inner : n.blocks)
                chainControlFlow(inner);
        }
    };
    chainControlFlow(g.top);
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

QString toDot(const IrGraph& graph, const LayoutOptions& options)
{
    return buildDot(graph, options).dot;
}

DotBuild dotBuild(const IrGraph& graph, const LayoutOptions& options, bool marked)
{
    return buildDot(graph, options, marked);
}

} // namespace jitscope
