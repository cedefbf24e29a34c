#pragma once

#include <QJsonObject>
#include <QString>
#include <QVector>

#include <optional>

namespace jitscope {

/// A place in a source file: 1-based line, 0-based column as libtorch prints them.
struct SourceLocation
{
    QString file;
    int line = 0;
    int column = 0;

    bool isValid() const { return line > 0; }
    /// "FILE:LINE:COL", or empty when no place is known.
    QString toString() const;
    bool operator==(const SourceLocation& o) const { return line == o.line && column == o.column && file == o.file; }
    bool operator!=(const SourceLocation& o) const { return !(*this == o); }
};

/// An error with the place it refers to, when known.
struct Diagnostic
{
    QString message;
    SourceLocation location; ///< file always set; line 0 when no place is known

    /// "FILE:LINE:COL: message", or "FILE: message" without a line.
    QString toString() const;
};

/// Shape and dtype of a tensor value where the graph knows them.
struct TensorInfo
{
    QString dtype; ///< "Float", "Long", ... empty when unknown
    std::optional<QVector<qint64>> sizes; ///< unset when the rank is unknown; -1 for an unknown dimension
    QString device;
};

struct IrValue
{
    int id = -1;
    QString name; ///< debug name without the leading '%'
    QString type; ///< type as libtorch prints it
    std::optional<TensorInfo> tensor;
    int producer = -1; ///< node id, or -1 for a graph or block input
    /// An exported program's graph input: what its signature makes of the placeholder ("user input", "parameter",
    /// "buffer", "constant", ...: ExportedInputSpec::kind) and the state it reads ("block.lin.weight"). Empty
    /// elsewhere.
    QString role;
    QString roleTarget;
};

struct IrAttribute
{
    QString name;
    QString kind; ///< libtorch attribute kind: i, f, s, t, is, fs, ss, ty, g, ...
    QString value; ///< value as libtorch prints it inside [...]
    /// A tensor attribute of more than one element (libtorch prints only `<Tensor>`): its values, flattened, as
    /// "[0, 1.5, ...]" up to 64 elements, else "sum=S crc=C"; what tells two tensor constants apart.
    QString data;
};

struct IrBlock
{
    QVector<int> inputs; ///< value ids
    QVector<int> outputs; ///< value ids
    QVector<int> nodes; ///< node ids in order
};

/// One enclosing loop iteration of the script node that recorded a trace node.
struct LoopFrame
{
    int loopNode = -1; ///< the prim::Loop node in the script graph
    int iteration = 0; ///< 0-based
    int line = 0; ///< the loop's source line
};

struct IrNode
{
    int id = -1;
    QString kind; ///< qualified kind, e.g. "aten::add", "prim::Loop"
    QString schema; ///< operator schema when the node has one
    QVector<int> inputs; ///< value ids
    QVector<int> outputs; ///< value ids
    QVector<IrAttribute> attributes;
    QString attributeText; ///< "[value=1]" exactly as libtorch prints the attribute list, or empty
    QVector<IrBlock> blocks;
    SourceLocation location;
    QString scope; ///< module scope as libtorch names it (traced graphs: "__module.layer1/__module.layer1.0")
    QString modulePath; ///< the submodule whose code this is: "layer1.0.conv1", empty for the top module
    int parentNode = -1; ///< the node owning the block this node is in, -1 at top level
    int parentBlock = -1; ///< index of that block within the parent node
    // Provenance, for trace graphs: which script node recorded this node, in which loop iterations.
    int originNode = -1; ///< node id in the script graph of the traced function, -1 if unknown
    QVector<LoopFrame> loopPath; ///< outermost first
    /// Recorded Python traces: the Python stack that recorded the node, innermost first (location is the first),
    /// down to the frame that called torch.jit.trace (not included); torch.nn's call machinery left out.
    QVector<SourceLocation> stack;

    bool hasAttribute(const QString& name) const;
    QString attribute(const QString& name) const;
};

/// A plain-value copy of a torch::jit::Graph: everything outside core works on this.
struct IrGraph
{
    QVector<IrValue> values; ///< indexed by value id
    QVector<IrNode> nodes; ///< indexed by node id, in the order of a depth-first walk
    IrBlock top; ///< the graph's own inputs, outputs and top-level nodes
    /// Per node id, a 64-bit hash of the node's diff signature (see tracediff.h), filled when a trace is
    /// recorded so that diffs of large traces need not walk every node again. Empty when not computed.
    QVector<quint64> signatureHashes;

    const IrValue& value(int id) const { return values.at(id); }
    const IrNode& node(int id) const { return nodes.at(id); }
    bool isEmpty() const { return nodes.isEmpty() && top.inputs.isEmpty(); }

    /// The graph in libtorch's dump format (what print(fn.graph) shows in Python).
    QString toText(bool withSourceLocations = true) const;
    /// One node's line in the dump format (no indentation, no blocks).
    QString nodeLine(int nodeId, bool withSourceLocation = false) const;

    QJsonObject toJson() const;
    /// Parses what toJson() wrote. Returns an empty graph and sets *error on malformed input.
    static IrGraph fromJson(const QJsonObject& json, QString* error = nullptr);
};

enum class ShapeStyle {
    Spaced, ///< "[1, 3, 224, 224]": panels, tooltips and the CLI
    Compact, ///< "[1,3,224,224]": graph labels
};
/// A tensor's shape as JitScope prints it everywhere; a negative (unknown) dimension prints as "?".
QString shapeText(const QVector<qint64>& shape, ShapeStyle style = ShapeStyle::Spaced);
/// @p text on one line (white space simplified) of at most @p max characters, cut with an ellipsis: node lines in
/// status bars and tooltips.
QString elidedText(QString text, int max);

/// How many top-level nodes of @p node's kind run before it in @p g: with the kind, what finds the same node in
/// another recording of the same graph (a replayed trace), as DebugTarget::stopAtOccurrence does.
int kindOccurrence(const IrGraph& g, int node);

/// "layer1.0" for the value self.layer1[0] that a chain of prim::GetAttr reads from a graph input; empty if the
/// value is not such a chain.
QString attributePath(const IrGraph& g, int valueId);

/// A module trace records each submodule call as a prim::CallMethod that no script node executed directly: links
/// the ones without an origin to the script's call of the same submodule (the n-th call to the n-th call), or, when
/// the script graph has its calls inlined, to the first node of that submodule's code.
void linkModuleCalls(IrGraph& trace, const IrGraph& script);

/// Renames every %value in a libtorch dump in order of first appearance (%0, %1, ...) and drops
/// "# file:line:col" comments and trailing blanks, so dumps from different runs compare equal.
QString canonicalizeDump(const QString& dump);

} // namespace jitscope
