#include "report/irgraph.h"

#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>
#include <QStringList>

namespace jitscope {

QString SourceLocation::toString() const
{
    return isValid() ? QStringLiteral("%1:%2:%3").arg(file).arg(line).arg(column) : QString();
}

QString Diagnostic::toString() const
{
    return QStringLiteral("%1: %2").arg(location.isValid() ? location.toString() : location.file, message);
}

bool IrNode::hasAttribute(const QString& name) const
{
    for (const auto& a : attributes)
        if (a.name == name)
            return true;
    return false;
}

QString attributePath(const IrGraph& g, int valueId)
{
    QStringList names;
    for (int v = valueId; v >= 0 && v < g.values.size();) {
        const int producer = g.value(v).producer;
        if (producer < 0)
            break;
        const IrNode& n = g.node(producer);
        if (n.kind != QLatin1String("prim::GetAttr") || n.inputs.isEmpty())
            return {};
        QString name = n.attribute(QStringLiteral("name"));
        if (name.size() >= 2 && name.startsWith(QLatin1Char('"')) && name.endsWith(QLatin1Char('"')))
            name = name.mid(1, name.size() - 2);
        names.prepend(name);
        v = n.inputs.first();
    }
    return names.join(QLatin1Char('.'));
}

void linkModuleCalls(IrGraph& trace, const IrGraph& script)
{
    QHash<QString, QVector<int>> scriptCalls; // submodule path -> its top-level calls in the script, in order
    for (int id : script.top.nodes) {
        const IrNode& n = script.node(id);
        if (n.kind == QLatin1String("prim::CallMethod") && !n.inputs.isEmpty())
            scriptCalls[attributePath(script, n.inputs.first())].append(id);
    }
    QHash<QString, int> seen;
    for (IrNode& n : trace.nodes) {
        if (n.kind != QLatin1String("prim::CallMethod") || n.inputs.isEmpty() || n.originNode >= 0)
            continue;
        const QString path = attributePath(trace, n.inputs.first());
        if (path.isEmpty())
            continue;
        const int nth = seen[path]++;
        const QVector<int> calls = scriptCalls.value(path);
        if (nth < calls.size()) {
            n.originNode = calls.at(nth);
            continue;
        }
        // Inlined: the n-th stretch of top-level nodes from that submodule's code.
        const QString prefix = path + QLatin1Char('.');
        int run = -1;
        bool inside = false;
        for (int id : script.top.nodes) {
            const QString& module = script.node(id).modulePath;
            const bool matches = module == path || module.startsWith(prefix);
            if (matches && !inside && ++run == nth) {
                n.originNode = id;
                break;
            }
            inside = matches;
        }
    }
}

QString IrNode::attribute(const QString& name) const
{
    for (const auto& a : attributes)
        if (a.name == name)
            return a.value;
    return {};
}

namespace {

QString valueRefs(const IrGraph& g, const QVector<int>& ids)
{
    QStringList parts;
    parts.reserve(ids.size());
    for (int id : ids)
        parts << QLatin1Char('%') + g.value(id).name;
    return parts.join(QStringLiteral(", "));
}

QString valuesWithTypes(const IrGraph& g, const QVector<int>& ids, const QString& delim)
{
    QStringList parts;
    parts.reserve(ids.size());
    for (int id : ids) {
        const IrValue& v = g.value(id);
        parts << QStringLiteral("%%1 : %2").arg(v.name, v.type);
    }
    return parts.join(delim);
}

void printNode(const IrGraph& g, int nodeId, int level, bool withLocations, QString& out)
{
    const IrNode& n = g.node(nodeId);
    out += QString(level * 2, QLatin1Char(' '));
    out += g.nodeLine(nodeId, withLocations);
    out += QLatin1Char('\n');
    for (int i = 0; i < n.blocks.size(); ++i) {
        const IrBlock& b = n.blocks[i];
        out += QString((level + 1) * 2, QLatin1Char(' '));
        out += QStringLiteral("block%1(%2):\n").arg(i).arg(valuesWithTypes(g, b.inputs, QStringLiteral(", ")));
        for (int child : b.nodes)
            printNode(g, child, level + 2, withLocations, out);
        out += QString((level + 2) * 2, QLatin1Char(' '));
        out += QStringLiteral("-> (%1)\n").arg(valueRefs(g, b.outputs));
    }
}

QJsonArray intArray(const QVector<int>& v)
{
    QJsonArray a;
    for (int x : v)
        a.append(x);
    return a;
}

QVector<int> toIntVector(const QJsonValue& v)
{
    QVector<int> out;
    for (const auto& x : v.toArray())
        out.push_back(x.toInt(-1));
    return out;
}

QJsonObject blockToJson(const IrBlock& b)
{
    return QJsonObject { { QStringLiteral("inputs"), intArray(b.inputs) },
        { QStringLiteral("outputs"), intArray(b.outputs) }, { QStringLiteral("nodes"), intArray(b.nodes) } };
}

IrBlock blockFromJson(const QJsonObject& o)
{
    IrBlock b;
    b.inputs = toIntVector(o.value(QStringLiteral("inputs")));
    b.outputs = toIntVector(o.value(QStringLiteral("outputs")));
    b.nodes = toIntVector(o.value(QStringLiteral("nodes")));
    return b;
}

} // namespace

QString IrGraph::nodeLine(int nodeId, bool withSourceLocation) const
{
    const IrNode& n = node(nodeId);
    QString line = valuesWithTypes(*this, n.outputs, QStringLiteral(", "));
    line += QStringLiteral(" = ");
    line += n.kind;
    line += n.attributeText;
    line += QLatin1Char('(') + valueRefs(*this, n.inputs) + QLatin1Char(')');
    if (withSourceLocation && n.location.isValid())
        line += QStringLiteral(" # %1:%2:%3").arg(n.location.file).arg(n.location.line).arg(n.location.column);
    return line;
}

QString IrGraph::toText(bool withSourceLocations) const
{
    QString out = QStringLiteral("graph(") + valuesWithTypes(*this, top.inputs, QStringLiteral(",\n      "))
        + QStringLiteral("):\n");
    for (int id : top.nodes)
        printNode(*this, id, 1, withSourceLocations, out);
    out += QStringLiteral("  return (%1)\n").arg(valueRefs(*this, top.outputs));
    return out;
}

QJsonObject IrGraph::toJson() const
{
    QJsonArray jvalues;
    for (const IrValue& v : values) {
        QJsonObject o { { QStringLiteral("id"), v.id }, { QStringLiteral("name"), v.name },
            { QStringLiteral("type"), v.type }, { QStringLiteral("producer"), v.producer } };
        if (!v.role.isEmpty())
            o.insert(QStringLiteral("role"), v.role);
        if (!v.roleTarget.isEmpty())
            o.insert(QStringLiteral("role_target"), v.roleTarget);
        if (v.tensor) {
            QJsonObject t;
            if (!v.tensor->dtype.isEmpty())
                t.insert(QStringLiteral("dtype"), v.tensor->dtype);
            if (v.tensor->sizes) {
                QJsonArray sizes;
                for (qint64 d : *v.tensor->sizes)
                    sizes.append(d < 0 ? QJsonValue() : QJsonValue(d));
                t.insert(QStringLiteral("sizes"), sizes);
            }
            if (!v.tensor->device.isEmpty())
                t.insert(QStringLiteral("device"), v.tensor->device);
            o.insert(QStringLiteral("tensor"), t);
        }
        jvalues.append(o);
    }
    QJsonArray jnodes;
    QJsonArray files;
    QHash<QString, int> fileIndex;
    for (const IrNode& n : nodes) {
        QJsonObject o { { QStringLiteral("id"), n.id }, { QStringLiteral("kind"), n.kind },
            { QStringLiteral("inputs"), intArray(n.inputs) }, { QStringLiteral("outputs"), intArray(n.outputs) },
            { QStringLiteral("parent"), n.parentNode }, { QStringLiteral("parent_block"), n.parentBlock } };
        if (!n.schema.isEmpty())
            o.insert(QStringLiteral("schema"), n.schema);
        if (!n.attributes.isEmpty()) {
            QJsonArray attrs;
            for (const auto& a : n.attributes) {
                QJsonObject ao { { QStringLiteral("name"), a.name }, { QStringLiteral("kind"), a.kind },
                    { QStringLiteral("value"), a.value } };
                if (!a.data.isEmpty())
                    ao.insert(QStringLiteral("data"), a.data);
                attrs.append(ao);
            }
            o.insert(QStringLiteral("attributes"), attrs);
            o.insert(QStringLiteral("attribute_text"), n.attributeText);
        }
        if (!n.blocks.isEmpty()) {
            QJsonArray blocks;
            for (const auto& b : n.blocks)
                blocks.append(blockToJson(b));
            o.insert(QStringLiteral("blocks"), blocks);
        }
        if (n.location.isValid())
            o.insert(QStringLiteral("source"),
                QJsonObject { { QStringLiteral("file"), n.location.file }, { QStringLiteral("line"), n.location.line },
                    { QStringLiteral("column"), n.location.column } });
        if (!n.scope.isEmpty())
            o.insert(QStringLiteral("scope"), n.scope);
        if (!n.modulePath.isEmpty())
            o.insert(QStringLiteral("module"), n.modulePath);
        if (n.originNode >= 0)
            o.insert(QStringLiteral("origin"), n.originNode);
        if (!n.loopPath.isEmpty()) {
            QJsonArray path;
            for (const LoopFrame& f : n.loopPath)
                path.append(QJsonObject { { QStringLiteral("loop"), f.loopNode },
                    { QStringLiteral("iteration"), f.iteration }, { QStringLiteral("line"), f.line } });
            o.insert(QStringLiteral("loop_path"), path);
        }
        if (!n.stack.isEmpty()) {
            // [file index, line, file index, line, ...], the files in the graph's "files" table.
            QJsonArray stack;
            for (const SourceLocation& f : n.stack) {
                auto it = fileIndex.constFind(f.file);
                if (it == fileIndex.constEnd()) {
                    it = fileIndex.insert(f.file, int(files.size()));
                    files.append(f.file);
                }
                stack.append(it.value());
                stack.append(f.line);
            }
            o.insert(QStringLiteral("stack"), stack);
        }
        jnodes.append(o);
    }
    QJsonObject top = blockToJson(this->top);
    return QJsonObject { { QStringLiteral("inputs"), top.value(QStringLiteral("inputs")) },
        { QStringLiteral("outputs"), top.value(QStringLiteral("outputs")) },
        { QStringLiteral("nodes"), top.value(QStringLiteral("nodes")) }, { QStringLiteral("values"), jvalues },
        { QStringLiteral("node_table"), jnodes }, { QStringLiteral("files"), files } };
}

IrGraph IrGraph::fromJson(const QJsonObject& json, QString* error)
{
    auto failWith = [error](const QString& msg) {
        if (error)
            *error = msg;
        return IrGraph {};
    };
    IrGraph g;
    g.top = blockFromJson(json);
    const QJsonArray jvalues = json.value(QStringLiteral("values")).toArray();
    for (int i = 0; i < jvalues.size(); ++i) {
        const QJsonObject o = jvalues[i].toObject();
        IrValue v;
        v.id = o.value(QStringLiteral("id")).toInt(-1);
        if (v.id != i)
            return failWith(QStringLiteral("value %1 has id %2").arg(i).arg(v.id));
        v.name = o.value(QStringLiteral("name")).toString();
        v.type = o.value(QStringLiteral("type")).toString();
        v.producer = o.value(QStringLiteral("producer")).toInt(-1);
        v.role = o.value(QStringLiteral("role")).toString();
        v.roleTarget = o.value(QStringLiteral("role_target")).toString();
        if (o.contains(QStringLiteral("tensor"))) {
            const QJsonObject t = o.value(QStringLiteral("tensor")).toObject();
            TensorInfo info;
            info.dtype = t.value(QStringLiteral("dtype")).toString();
            info.device = t.value(QStringLiteral("device")).toString();
            if (t.contains(QStringLiteral("sizes"))) {
                QVector<qint64> sizes;
                for (const auto& d : t.value(QStringLiteral("sizes")).toArray())
                    sizes.push_back(d.isNull() ? -1 : qint64(d.toDouble()));
                info.sizes = sizes;
            }
            v.tensor = info;
        }
        g.values.push_back(v);
    }
    QStringList files; // the stacks' files, each string shared by every frame naming it
    for (const auto& f : json.value(QStringLiteral("files")).toArray())
        files << f.toString();
    const QJsonArray jnodes = json.value(QStringLiteral("node_table")).toArray();
    for (int i = 0; i < jnodes.size(); ++i) {
        const QJsonObject o = jnodes[i].toObject();
        IrNode n;
        n.id = o.value(QStringLiteral("id")).toInt(-1);
        if (n.id != i)
            return failWith(QStringLiteral("node %1 has id %2").arg(i).arg(n.id));
        n.kind = o.value(QStringLiteral("kind")).toString();
        n.schema = o.value(QStringLiteral("schema")).toString();
        n.inputs = toIntVector(o.value(QStringLiteral("inputs")));
        n.outputs = toIntVector(o.value(QStringLiteral("outputs")));
        n.parentNode = o.value(QStringLiteral("parent")).toInt(-1);
        n.parentBlock = o.value(QStringLiteral("parent_block")).toInt(-1);
        for (const auto& a : o.value(QStringLiteral("attributes")).toArray()) {
            const QJsonObject ao = a.toObject();
            n.attributes.push_back(
                { ao.value(QStringLiteral("name")).toString(), ao.value(QStringLiteral("kind")).toString(),
                    ao.value(QStringLiteral("value")).toString(), ao.value(QStringLiteral("data")).toString() });
        }
        n.attributeText = o.value(QStringLiteral("attribute_text")).toString();
        for (const auto& b : o.value(QStringLiteral("blocks")).toArray())
            n.blocks.push_back(blockFromJson(b.toObject()));
        const QJsonObject src = o.value(QStringLiteral("source")).toObject();
        n.location = { src.value(QStringLiteral("file")).toString(), src.value(QStringLiteral("line")).toInt(),
            src.value(QStringLiteral("column")).toInt() };
        n.scope = o.value(QStringLiteral("scope")).toString();
        n.modulePath = o.value(QStringLiteral("module")).toString();
        n.originNode = o.value(QStringLiteral("origin")).toInt(-1);
        for (const auto& f : o.value(QStringLiteral("loop_path")).toArray()) {
            const QJsonObject fo = f.toObject();
            n.loopPath.push_back({ fo.value(QStringLiteral("loop")).toInt(-1),
                fo.value(QStringLiteral("iteration")).toInt(), fo.value(QStringLiteral("line")).toInt() });
        }
        const QJsonArray stack = o.value(QStringLiteral("stack")).toArray();
        for (int f = 0; f + 1 < stack.size(); f += 2) {
            const int file = stack[f].toInt(-1);
            if (file < 0 || file >= files.size())
                return failWith(QStringLiteral("node %1: stack frame %2 names no file").arg(i).arg(f / 2));
            n.stack.push_back({ files[file], stack[f + 1].toInt(), 0 });
        }
        g.nodes.push_back(n);
    }
    // Every reference must point into the tables, or later code would index out of range.
    auto validValues = [&g](const QVector<int>& ids) {
        for (int id : ids)
            if (id < 0 || id >= g.values.size())
                return false;
        return true;
    };
    auto validNodes = [&g](const QVector<int>& ids) {
        for (int id : ids)
            if (id < 0 || id >= g.nodes.size())
                return false;
        return true;
    };
    if (!validValues(g.top.inputs) || !validValues(g.top.outputs) || !validNodes(g.top.nodes))
        return failWith(QStringLiteral("graph refers to a missing value or node"));
    for (const IrNode& n : g.nodes) {
        if (!validValues(n.inputs) || !validValues(n.outputs))
            return failWith(QStringLiteral("node %1 refers to a missing value").arg(n.id));
        for (const IrBlock& b : n.blocks)
            if (!validValues(b.inputs) || !validValues(b.outputs) || !validNodes(b.nodes))
                return failWith(QStringLiteral("a block of node %1 refers to a missing value or node").arg(n.id));
    }
    return g;
}

QString canonicalizeDump(const QString& dump)
{
    static const QRegularExpression comment(QStringLiteral("\\s+# .*:\\d+:\\d+$"));
    static const QRegularExpression valueRef(QStringLiteral("%([A-Za-z0-9_.]+)"));
    QHash<QString, QString> names;
    QStringList out;
    for (QString line : dump.split(QLatin1Char('\n'))) {
        // A '#' inside a string constant is rare; comments in dumps always follow ") " or "):".
        line.remove(comment);
        while (line.endsWith(QLatin1Char(' ')))
            line.chop(1);
        QString renamed;
        int last = 0;
        auto it = valueRef.globalMatch(line);
        while (it.hasNext()) {
            auto m = it.next();
            renamed += line.mid(last, m.capturedStart() - last);
            const QString name = m.captured(1);
            auto found = names.find(name);
            if (found == names.end())
                found = names.insert(name, QString::number(names.size()));
            renamed += QLatin1Char('%') + found.value();
            last = m.capturedEnd();
        }
        renamed += line.mid(last);
        out << renamed;
    }
    while (!out.isEmpty() && out.last().isEmpty())
        out.removeLast();
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString elidedText(QString text, int max)
{
    text = text.simplified();
    if (text.size() > max)
        text = text.left(max - 1) + QChar(0x2026);
    return text;
}

QString shapeText(const QVector<qint64>& shape, ShapeStyle style)
{
    QStringList dims;
    dims.reserve(shape.size());
    for (qint64 d : shape)
        dims << (d < 0 ? QStringLiteral("?") : QString::number(d));
    return QLatin1Char('[') + dims.join(style == ShapeStyle::Spaced ? QStringLiteral(", ") : QStringLiteral(","))
        + QLatin1Char(']');
}

int kindOccurrence(const IrGraph& g, int node)
{
    const QString kind = g.node(node).kind;
    int occurrence = 0;
    for (int id : g.top.nodes) {
        if (id == node)
            break;
        occurrence += g.node(id).kind == kind;
    }
    return occurrence;
}

} // namespace jitscope
