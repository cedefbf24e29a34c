// The op categories a graph's boxes are coloured by, and GraphLayout's own queries.

#include "report/graphlayout.h"

#include <QRegularExpression>

namespace jitscope {

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

} // namespace jitscope
