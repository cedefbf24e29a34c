#include "report/tracewarning.h"

#include <array>

namespace jitscope {

namespace {

/// One row per kind, in the enum's order: everything the rest of JitScope says about a kind.
struct KindInfo
{
    WarningKind kind;
    const char* name;
    WarningSeverity severity;
    std::array<const char*, 2> messages; ///< variants; null: the message comes from elsewhere (libtorch, the user)
    std::array<const char*, 3> fixes;
};

constexpr const char* kConversion = "Converting a tensor to a Python %1 might cause the trace to be incorrect. We "
                                    "can't record the data flow of Python values, so this value will be treated "
                                    "as a constant in the future. This means that the trace might not generalize "
                                    "to other inputs!";

const KindInfo kKinds[] = {
    { WarningKind::TensorToBool, "tensor-to-bool", WarningSeverity::Warning, { kConversion, nullptr },
        { "use torch.where (or script the function) instead of branching on a tensor value", nullptr, nullptr } },
    { WarningKind::TensorToNumber, "tensor-to-number", WarningSeverity::Warning, { kConversion, nullptr },
        { "keep the value a tensor instead of converting it to a Python number", nullptr, nullptr } },
    { WarningKind::TensorToIndex, "tensor-to-index", WarningSeverity::Warning, { nullptr, nullptr },
        { nullptr, nullptr, nullptr } },
    { WarningKind::LenOfTensor, "len-of-tensor", WarningSeverity::Warning,
        { "Using len to get tensor shape might cause the trace to be incorrect. Recommended usage would be "
          "tensor.shape[0]. Passing a tensor of different shape might lead to errors or silently give incorrect "
          "results.",
            nullptr },
        { "use %1.shape[0] (recorded dynamically) instead of len(%1), which is baked in as the constant %2", nullptr,
            nullptr } },
    { WarningKind::IteratingTensor, "iterating-tensor", WarningSeverity::Warning,
        { "Iterating over a tensor might cause the trace to be incorrect. Passing a tensor of different shape won't "
          "change the number of iterations executed (and might lead to errors or silently give incorrect results).",
            nullptr },
        { "iterate over range(%1.size(0)) in a scripted function, or use a batched op", nullptr, nullptr } },
    { WarningKind::BakedConstant, "baked-constant", WarningSeverity::Warning,
        { "torch.tensor results are registered as constants in the trace. You can safely ignore this warning if you "
          "use this function to create tensors out of constant variables that would be the same every time you call "
          "this function. In any other case, this might cause the trace to be incorrect.",
            "%1 is baked into the trace as the constant %2 (argument '%3' of %4)" },
        { "build the tensor from traced values (e.g. torch.stack) if it depends on the inputs",
            "keep the value a tensor so the trace records how it is computed",
            "use x.size(d) / x.shape[d] (recorded dynamically) instead of len(x), x.dim() or Python arithmetic on "
            "shapes" } },
    { WarningKind::ShapeDependentLoop, "shape-dependent-loop", WarningSeverity::Warning,
        { "loop at line %1 unrolled %2 times: trip count %3", nullptr },
        { "script the loop (torch.jit.script) or use a vectorised op; a trace repeats exactly %1 iterations for "
          "every input",
            nullptr, nullptr } },
    { WarningKind::DataDependentLoop, "data-dependent-loop", WarningSeverity::Warning,
        { "loop at line %1 unrolled %2 times: its condition depends on tensor values", nullptr },
        { "script the loop (torch.jit.script); a trace repeats exactly %1 iterations", nullptr, nullptr } },
    { WarningKind::ShapeDependentBranch, "shape-dependent-branch", WarningSeverity::Warning,
        { "branch at line %1 frozen to its %2 branch: its condition %3 depends on an input's shape", nullptr },
        { "script this function (torch.jit.script) or trace it for each shape it will see", nullptr, nullptr } },
    { WarningKind::DataDependentBranch, "data-dependent-branch", WarningSeverity::Warning,
        { "branch at line %1 frozen to its %2 branch: its condition %3 depends on tensor values", nullptr },
        { "use torch.where or script this function so that both branches stay in the graph", nullptr, nullptr } },
    { WarningKind::InPlaceOnInput, "in-place-on-input", WarningSeverity::Warning,
        { "%1 modifies the input %%2 in place: the trace records it, but callers of the traced function see their "
          "tensor changed",
            nullptr },
        { "clone the input first (x = x.clone()) or use the out-of-place op", nullptr, nullptr } },
    { WarningKind::InPlaceOnView, "in-place-on-view", WarningSeverity::Warning,
        { "%1 modifies a view (%2) in place: the trace writes through to the viewed tensor only for the shapes seen "
          "while tracing",
            nullptr },
        { "build the result out of place (torch.cat, torch.where, index_put)", nullptr, nullptr } },
    { WarningKind::NondeterministicOp, "nondeterministic-op", WarningSeverity::Warning,
        { "Trace had nondeterministic nodes. Did you forget call .eval() on your model? Nodes: %1", nullptr },
        { "call .eval() on the model, or expect outputs to differ from run to run", nullptr, nullptr } },
    { WarningKind::UserWarning, "user-warning", WarningSeverity::Warning, { nullptr, nullptr },
        { nullptr, nullptr, nullptr } },
    { WarningKind::Tracer, "tracer", WarningSeverity::Warning, { nullptr, nullptr }, { nullptr, nullptr, nullptr } },
    { WarningKind::RawTrace, "raw-trace", WarningSeverity::Warning,
        { "the tracer's cleanup passes failed (%1); this is the raw recorded graph, without the cleanup "
          "torch.jit.trace would have done",
            nullptr },
        { "the graph may keep dead nodes and module scopes that a successful trace would have removed", nullptr,
            nullptr } },
    { WarningKind::TraceFailed, "trace-failed", WarningSeverity::Error,
        { "tracing failed on input set %1 (%2): %3", nullptr }, { nullptr, nullptr, nullptr } },
    { WarningKind::OutputMismatch, "output-mismatch", WarningSeverity::Error,
        { "Output nr 1. of the traced function does not match the corresponding output of the Python function on "
          "input set %1 (%2). Detailed error: %3",
            // A recorded call's, beside PyTorch's own words: set, what differs.
            "trace 1 run on set %1 does not compute what the Python code computes: %2" },
        { "the trace recorded for input set 1 computes something else for input set %1: see the divergences above",
            nullptr, nullptr } },
    { WarningKind::CheckFailed, "check-failed", WarningSeverity::Error, { nullptr, nullptr },
        { nullptr, nullptr, nullptr } },
};

const KindInfo& info(WarningKind kind)
{
    static_assert(sizeof(kKinds) / sizeof(kKinds[0]) == size_t(WarningKind::CheckFailed) + 1, "one row per kind");
    return kKinds[size_t(kind)];
}

QString filled(const char* text, const QStringList& args)
{
    if (!text)
        return QString();
    QString s = QString::fromUtf8(text);
    // One marker at a time, as QString::arg chains do.
    for (const QString& a : args)
        s = s.arg(a);
    return s;
}

} // namespace

QString warningKindName(WarningKind kind)
{
    return QString::fromLatin1(info(kind).name);
}

bool warningKindFromName(const QString& name, WarningKind* kind)
{
    for (const KindInfo& k : kKinds) {
        if (name == QLatin1String(k.name)) {
            *kind = k.kind;
            return true;
        }
    }
    return false;
}

WarningSeverity warningSeverity(WarningKind kind)
{
    return info(kind).severity;
}

QString warningMessage(WarningKind kind, const QStringList& args, int variant)
{
    const auto& texts = info(kind).messages;
    return variant >= 0 && size_t(variant) < texts.size() ? filled(texts[size_t(variant)], args) : QString();
}

QString warningFix(WarningKind kind, const QStringList& args, int variant)
{
    const auto& texts = info(kind).fixes;
    return variant >= 0 && size_t(variant) < texts.size() ? filled(texts[size_t(variant)], args) : QString();
}

} // namespace jitscope
