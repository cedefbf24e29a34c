// A traced archive checked on other input sets: is a graph a trace, and which sizes of the set it was traced on
// did it bake in. Plain IrGraph work, no libtorch (the run itself is in outputcheck.cpp).

#include "check/check.h"

#include <QRegularExpression>
#include <QSet>

namespace jitscope {

namespace {

/// The arguments whose value is a size or an index along a dimension: a constant there that equals a dimension of
/// the traced input is that input's size baked in.
const QSet<QString>& sizeArguments()
{
    static const QSet<QString> names = {
        QStringLiteral("size"),
        QStringLiteral("output_size"),
        QStringLiteral("shape"),
        QStringLiteral("sizes"),
        QStringLiteral("split_size"),
        QStringLiteral("split_sizes"),
        QStringLiteral("start"),
        QStringLiteral("end"),
        QStringLiteral("length"),
        QStringLiteral("repeats"),
        QStringLiteral("pad"),
    };
    return names;
}

/// The argument names of an operator schema, by position: "aten::view(Tensor(a) self, int[] size) -> Tensor(a)"
/// gives self, size.
QStringList schemaArgumentNames(const QString& schema)
{
    const int open = schema.indexOf(QLatin1Char('('));
    if (open < 0)
        return {};
    QStringList names;
    int depth = 0;
    QString part;
    auto flush = [&] {
        QString decl = part.section(QLatin1Char('='), 0, 0).trimmed();
        part.clear();
        if (decl.isEmpty() || decl == QLatin1String("*"))
            return;
        names << decl.section(QLatin1Char(' '), -1);
    };
    for (int i = open + 1; i < schema.size(); ++i) {
        const QChar c = schema[i];
        if (c == QLatin1Char('(') || c == QLatin1Char('[')) {
            ++depth;
        } else if (c == QLatin1Char(')') || c == QLatin1Char(']')) {
            if (depth == 0) {
                flush();
                break;
            }
            --depth;
        } else if (c == QLatin1Char(',') && depth == 0) {
            flush();
            continue;
        }
        part += c;
    }
    return names;
}

/// The integers a constant int or int[] node holds; empty for anything else.
QVector<qint64> constantInts(const IrGraph& g, int valueId)
{
    const IrValue& v = g.value(valueId);
    if (v.producer < 0)
        return {};
    const IrNode& n = g.node(v.producer);
    if (n.kind != QLatin1String("prim::Constant") || !n.hasAttribute(QStringLiteral("value")))
        return {};
    if (v.type != QLatin1String("int") && v.type != QLatin1String("int[]"))
        return {};
    QVector<qint64> ints;
    static const QRegularExpression number(QStringLiteral("-?\\d+"));
    for (auto it = number.globalMatch(n.attribute(QStringLiteral("value"))); it.hasNext();)
        ints << it.next().captured().toLongLong();
    return ints;
}

/// The integers a size argument takes as constants: a constant int or list, or the constant items of a list
/// built in the graph (prim::ListConstruct).
QVector<qint64> constantSize(const IrGraph& g, int valueId)
{
    const IrValue& v = g.value(valueId);
    if (v.producer >= 0 && g.node(v.producer).kind == QLatin1String("prim::ListConstruct")) {
        QVector<qint64> ints;
        for (int item : g.node(v.producer).inputs)
            ints += constantInts(g, item);
        return ints;
    }
    return constantInts(g, valueId);
}

struct TensorDims
{
    QString name; ///< "image", the graph input (or "input 1")
    QVector<qint64> shape;
};

void collectTensors(const InputValue& v, const QString& name, QVector<TensorDims>& out)
{
    if (v.kind == InputValue::Kind::Tensor) {
        out.push_back({ name, v.shape });
        return;
    }
    for (int i = 0; i < v.items.size(); ++i)
        collectTensors(v.items[i], QStringLiteral("%1[%2]").arg(name).arg(i), out);
}

QVector<TensorDims> tensorsOf(const IrGraph& g, const InputSet& set)
{
    // The graph's inputs after the module (self), by position as the set gives its arguments.
    QStringList names;
    for (int id : g.top.inputs)
        if (!g.value(id).type.startsWith(QLatin1String("__torch__")))
            names << g.value(id).name.section(QLatin1Char('.'), 0, 0);
    QVector<TensorDims> tensors;
    for (int i = 0; i < set.args.size(); ++i)
        collectTensors(set.args[i], i < names.size() ? names[i] : QStringLiteral("input %1").arg(i + 1), tensors);
    return tensors;
}

QString listText(const QVector<qint64>& ints)
{
    QStringList parts;
    for (qint64 i : ints)
        parts << QString::number(i);
    return ints.size() == 1 ? parts.first() : QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}

} // namespace

bool isTracedGraph(const IrGraph& graph)
{
    // Scripted code a trace called (torchvision's batched_nms is @torch.jit._script_if_tracing) keeps its columns.
    int located = 0, atColumnZero = 0;
    for (int id : graph.top.nodes) {
        const IrNode& n = graph.node(id);
        if (!n.location.isValid())
            continue;
        ++located;
        atColumnZero += n.location.column == 0;
    }
    return located > 0 && atColumnZero * 10 >= located * 9;
}

QVector<TraceWarning> bakedInputSizes(
    const IrGraph& trace, const InputSet& first, const InputSet& other, int otherIndex)
{
    const QVector<TensorDims> a = tensorsOf(trace, first), b = tensorsOf(trace, other);
    // Set 1's dimensions that set k does not share: value -> "image.size(1)" and what it is on set k.
    struct Dim
    {
        QStringList names;
        QStringList there;
    };
    QHash<qint64, Dim> changed;
    for (int i = 0; i < std::min(a.size(), b.size()); ++i) {
        if (a[i].shape.size() != b[i].shape.size())
            continue;
        for (int d = 0; d < a[i].shape.size(); ++d) {
            const qint64 size = a[i].shape[d];
            if (size <= 1 || size == b[i].shape[d])
                continue;
            Dim& dim = changed[size];
            dim.names << QStringLiteral("%1.size(%2)").arg(a[i].name).arg(d);
            dim.there << QString::number(b[i].shape[d]);
        }
    }
    QVector<TraceWarning> warnings;
    if (changed.isEmpty())
        return warnings;
    const QString setName = QStringLiteral("set %1 (%2)").arg(otherIndex + 1).arg(other.toString());
    for (const IrNode& n : trace.nodes) {
        if (n.kind == QLatin1String("prim::Constant") || n.kind == QLatin1String("prim::ListConstruct")
            || n.schema.isEmpty())
            continue;
        const QStringList args = schemaArgumentNames(n.schema);
        for (int p = 0; p < n.inputs.size() && p < args.size(); ++p) {
            if (!sizeArguments().contains(args[p]))
                continue;
            const QVector<qint64> ints = constantSize(trace, n.inputs[p]);
            QStringList from, there;
            for (qint64 i : ints) {
                const auto it = changed.constFind(i);
                if (it == changed.constEnd() || from.contains(it->names.join(QStringLiteral(" and "))))
                    continue;
                from << it->names.join(QStringLiteral(" and "));
                there << it->there.join(QStringLiteral(" and "));
            }
            if (from.isEmpty())
                continue;
            const bool resize = n.kind.contains(QLatin1String("upsample"))
                || n.kind.contains(QLatin1String("interpolate")) || n.kind.contains(QLatin1String("resize"));
            TraceWarning w;
            w.kind = WarningKind::BakedConstant;
            w.traceIndex = otherIndex;
            w.scriptNode = n.id;
            w.location = n.location;
            w.message
                = QStringLiteral("%1: %2 %3 of %4 is baked in, from set 1 (%5 of set 1: %6 on set %7)")
                      .arg(resize ? QStringLiteral("the traced archive resizes %1 to set 1's size").arg(setName)
                                  : QStringLiteral("the traced archive computes with set 1's size on %1").arg(setName),
                          args[p], listText(ints), n.kind, from.join(QStringLiteral(", ")),
                          there.join(QStringLiteral(", ")))
                      .arg(otherIndex + 1);
            w.suggestion = warningFix(WarningKind::BakedConstant, {}, 2);
            warnings.push_back(w);
            break;
        }
    }
    return warnings;
}

} // namespace jitscope
