#include "report/divergence.h"

namespace jitscope {

namespace {

struct DivergenceKindInfo
{
    DivergenceKind kind;
    const char* name;
    const char* title;
};

constexpr DivergenceKindInfo kDivergenceKinds[] = {
    { DivergenceKind::LoopUnrolled, "loop-unrolled", "Loop unrolled a different number of times" },
    { DivergenceKind::BranchFrozen, "branch-frozen", "Branch frozen" },
    { DivergenceKind::NumberBaked, "number-baked", "Python number baked in" },
    { DivergenceKind::TensorConstant, "tensor-constant", "Tensor constant baked in" },
    { DivergenceKind::ModuleState, "module-state", "Module state changed between calls" },
    { DivergenceKind::Value, "value", "Same graph, other values" },
    { DivergenceKind::Unexplained, "unexplained", "Unexplained" },
};

} // namespace

QString divergenceKindName(DivergenceKind kind)
{
    for (const auto& k : kDivergenceKinds)
        if (k.kind == kind)
            return QString::fromLatin1(k.name);
    return {};
}

bool divergenceKindFromName(const QString& name, DivergenceKind* kind)
{
    for (const auto& k : kDivergenceKinds)
        if (name == QLatin1String(k.name)) {
            *kind = k.kind;
            return true;
        }
    return false;
}

QString divergenceKindTitle(DivergenceKind kind)
{
    for (const auto& k : kDivergenceKinds)
        if (k.kind == kind)
            return QString::fromLatin1(k.title);
    return {};
}

ChangesByNode changesByNode(const TraceDiff& diff)
{
    ChangesByNode by;
    for (int i = 0; i < diff.changes.size(); ++i) {
        if (diff.changes[i].baseNode >= 0)
            by.base.insert(diff.changes[i].baseNode, i);
        if (diff.changes[i].otherNode >= 0)
            by.other.insert(diff.changes[i].otherNode, i);
    }
    return by;
}

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

} // namespace jitscope
