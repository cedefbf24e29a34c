// suggestInputSet(): an input set guessed from the parameter each tensor argument meets first, for a model whose
// file records none.

#include "load/loader_p.h"
#include "load/model.h"

#include <QStringList>

namespace jitscope {

std::optional<InputSuggestion> suggestInputSet(const ModelInfo& model, const FunctionInfo& function)
{
    // Guessed on the inlined graph: forward's first op is in a submodule.
    std::optional<FunctionInfo> inlined;
    if (!function.inlined) {
        inlined = function;
        if (!inlineFunction(model.handle, *inlined))
            return std::nullopt;
    }
    const FunctionInfo& fn = inlined ? *inlined : function;
    const IrGraph& g = fn.graph;
    // Parameters are named from the root module; a submodule's method reads them from its own self.
    const QString prefix = ownerPrefix(fn.name);
    auto parameterShape = [&](int valueId, QString* name) -> QVector<qint64> {
        const QString path = attributePath(g, valueId);
        if (path.isEmpty())
            return {};
        *name = prefix + path;
        for (const ParameterInfo& p : model.parameters)
            if (p.name == *name)
                return p.shape;
        return {};
    };
    auto dims = [](const QVector<qint64>& shape) {
        QStringList parts;
        for (qint64 d : shape)
            parts << QString::number(d);
        return parts;
    };
    // Uses that only look at the tensor (shape checks) say nothing: the first real use decides.
    static const QStringList looks { QStringLiteral("aten::size"), QStringLiteral("aten::dim"),
        QStringLiteral("aten::len"), QStringLiteral("prim::shape"), QStringLiteral("aten::numel"),
        QStringLiteral("prim::device"), QStringLiteral("prim::dtype"), QStringLiteral("aten::__is__"),
        QStringLiteral("aten::__isnot__"), QStringLiteral("prim::isinstance") };
    QStringList args, reasons;
    for (int input : g.top.inputs) {
        const IrValue& v = g.value(input);
        if (v.type.startsWith(QLatin1String("__torch__.")))
            continue; // self
        if (v.type != QLatin1String("Tensor"))
            return std::nullopt;
        const IrNode* user = nullptr;
        for (const IrNode& n : g.nodes) {
            if (n.inputs.contains(input) && !looks.contains(n.kind)) {
                user = &n;
                break;
            }
        }
        if (!user || user->inputs.size() < 2)
            return std::nullopt;
        const QString op = user->kind.section(QStringLiteral("::"), 1);
        // embedding(weight, indices); the others take the input first and the weight second.
        const bool embedding = op == QLatin1String("embedding");
        if (user->inputs.at(embedding ? 1 : 0) != input)
            return std::nullopt;
        QString name;
        const QVector<qint64> weight = parameterShape(user->inputs.at(embedding ? 0 : 1), &name);
        QString arg;
        // A traced archive records aten::_convolution, whatever the rank: its weight's rank tells.
        const bool traced = op == QLatin1String("_convolution") && weight.size() >= 3 && weight.size() <= 5;
        if (((op == QLatin1String("conv1d") || op == QLatin1String("conv2d") || op == QLatin1String("conv3d"))
                && weight.size() == op.mid(4, 1).toInt() + 2)
            || traced) {
            // [out, in / groups, k...]: a first layer has groups = 1. Images are 224 wide, other signals shorter.
            const int spatial = traced ? int(weight.size()) - 2 : op.mid(4, 1).toInt();
            QStringList shape { QStringLiteral("1"), QString::number(weight.at(1)) };
            const int side = weight.at(1) == 3 ? 224 : 64;
            for (int i = 0; i < spatial; ++i)
                shape << QString::number(spatial == 3 && i == 0 ? 16 : side);
            arg = QStringLiteral("f32[%1]").arg(shape.join(QLatin1Char(',')));
        } else if (op == QLatin1String("linear") && weight.size() == 2) {
            arg = QStringLiteral("f32[1,%1]").arg(weight.at(1));
        } else if (embedding && weight.size() == 2) {
            arg = QStringLiteral("i64[1,16]=zeros");
        } else {
            return std::nullopt;
        }
        args << arg;
        reasons << QStringLiteral("%1 [%2]").arg(name, dims(weight).join(QStringLiteral(", ")));
    }
    if (args.isEmpty())
        return std::nullopt;
    return InputSuggestion { args.join(QStringLiteral("; ")), reasons.join(QStringLiteral(", ")) };
}

} // namespace jitscope
