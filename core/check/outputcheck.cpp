// Output comparison of the check: trace 1 run on a check input against the script function, compared as
// torch.testing.assert_close compares.

#include "check/outputcheck_p.h"
#include "execute/runtime_p.h"
#include "ir/torcherror_p.h"
#include "load/modelhandle_p.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/grad_mode.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/inliner.h>

#include <mutex>

#include <QStringList>

#include <sstream>

namespace jitscope {

namespace tj = torch::jit;
using c10::IValue;

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

void flattenTensors(const IValue& v, std::vector<at::Tensor>& out)
{
    if (v.isTensor())
        out.push_back(v.toTensor());
    else if (v.isTuple())
        for (const auto& e : v.toTupleRef().elements())
            flattenTensors(e, out);
    else if (v.isList())
        for (const auto& e : v.toListRef())
            flattenTensors(e, out);
}

/// Compares outputs as torch.testing.assert_close does (rtol/atol).
OutputComparison compareOutputs(
    const std::vector<IValue>& expected, const std::vector<IValue>& actual, double rtol, double atol)
{
    OutputComparison c;
    std::vector<at::Tensor> a, b;
    for (const auto& v : expected)
        flattenTensors(v, a);
    for (const auto& v : actual)
        flattenTensors(v, b);
    if (a.size() != b.size()) {
        c.equal = false;
        c.message = QStringLiteral("%1 tensor outputs expected, %2 produced").arg(a.size()).arg(b.size());
        return c;
    }
    at::NoGradGuard noGrad;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].sizes() != b[i].sizes()) {
            c.equal = false;
            std::ostringstream os;
            os << "output " << i << ": shape " << b[i].sizes() << " instead of " << a[i].sizes();
            c.message = qs(os.str());
            c.where = QStringLiteral("output %1").arg(i);
            return c;
        }
        const at::Tensor x = a[i].to(at::kDouble), y = b[i].to(at::kDouble);
        const at::Tensor diff = (x - y).abs();
        const at::Tensor tol = atol + rtol * x.abs();
        const at::Tensor bad = (diff > tol) | (x.isnan() != y.isnan());
        const qint64 mismatched = bad.sum().item<int64_t>();
        c.total += x.numel();
        c.mismatched += mismatched;
        if (x.numel() > 0) {
            const at::Tensor finiteDiff = at::where(diff.isnan(), at::zeros_like(diff), diff);
            const double maxAbs = finiteDiff.max().item<double>();
            const double maxRel = (finiteDiff / x.abs().clamp_min(1e-300)).max().item<double>();
            if (maxAbs > c.greatestAbsDiff) {
                c.greatestAbsDiff = maxAbs;
                const int64_t flat = finiteDiff.reshape({ -1 }).argmax().item<int64_t>();
                std::vector<int64_t> idx(size_t(x.dim()));
                int64_t rest = flat;
                for (int64_t d = x.dim() - 1; d >= 0; --d) {
                    idx[size_t(d)] = rest % x.size(d);
                    rest /= x.size(d);
                }
                QStringList parts;
                for (auto k : idx)
                    parts << QString::number(k);
                c.where = QStringLiteral("output %1 [%2]").arg(i).arg(parts.join(QStringLiteral(", ")));
            }
            c.greatestRelDiff = std::max(c.greatestRelDiff, maxRel);
        }
    }
    c.equal = c.mismatched == 0;
    if (!c.equal)
        c.message = QStringLiteral("Mismatched elements: %1 / %2 (%3%); greatest absolute difference: %4 at %5 "
                                   "(up to %6 allowed); greatest relative difference: %7 (up to %8 allowed)")
                        .arg(c.mismatched)
                        .arg(c.total)
                        .arg(100.0 * double(c.mismatched) / double(std::max<qint64>(1, c.total)), 0, 'f', 1)
                        .arg(c.greatestAbsDiff)
                        .arg(c.where)
                        .arg(atol)
                        .arg(c.greatestRelDiff)
                        .arg(rtol);
    return c;
}

} // namespace

OutputCheck runTracedArchive(
    const ModelInfo& model, const QString& function, const InputSet& inputs, const ExecOptions& options)
{
    OutputCheck check;
    PreparedRun p = prepareRun(model, function, inputs, options);
    if (!p.error.isEmpty()) {
        check.error = p.error;
        return check;
    }
    // The graph with its calls inlined, as FunctionInfo::graph holds it (the same copy and Inline, so its nodes
    // are numbered as the report's script graph): a node that fails deep in a submodule is named there.
    std::shared_ptr<tj::Graph> graph;
    {
        std::lock_guard<std::mutex> lock(model.handle->mutex);
        graph = tj::toGraphFunction(*p.fn).graph()->copy();
        tj::Inline(*graph);
    }
    FailureWatch watch;
    Interpreter interpreter(options);
    interpreter.indexScriptGraph(*graph, {});
    interpreter.addHooks(&watch);
    try {
        at::NoGradGuard noGrad;
        const std::vector<IValue> outputs = interpreter.run(*graph, p.arguments(p.inputs));
        for (const IValue& v : outputs) {
            if (v.isTuple())
                for (const IValue& e : v.toTupleRef().elements())
                    check.outputs.push_back(summarize(e));
            else
                check.outputs.push_back(summarize(v));
        }
        check.ran = true;
    } catch (const std::exception& e) {
        check.error
            = QStringLiteral("the traced archive failed on this input set: %1").arg(torchErrorMessage(e.what()));
        check.failure.error = torchErrorMessage(e.what()).section(QLatin1Char('\n'), 0, 0);
        if (watch.node) {
            check.failure.node = interpreter.scriptId(watch.node);
            check.failure.operands = watch.operands;
        }
    }
    return check;
}

OutputCheck checkTraceOutputs(const ModelInfo& model, const QString& function, TracedProgram& trace,
    const InputSet& inputs, const ExecOptions& options, double rtol, double atol)
{
    OutputCheck check;
    PreparedRun p = prepareRun(model, function, inputs, options);
    if (!p.error.isEmpty()) {
        check.error = p.error;
        return check;
    }
    std::vector<IValue> traced, scripted;
    try {
        FailedNode failed;
        try {
            traced = runTracedProgram(trace, p.clonedInputs(), options, &failed);
        } catch (...) {
            check.failure.node = failed.node;
            check.failure.operands = failed.operands;
            throw;
        }
    } catch (const std::exception& e) {
        check.error = QStringLiteral("the trace failed on this input set: %1").arg(torchErrorMessage(e.what()));
        check.failure.error = torchErrorMessage(e.what()).section(QLatin1Char('\n'), 0, 0);
        return check;
    }
    try {
        at::NoGradGuard noGrad;
        Interpreter interpreter(options);
        auto graph = tj::toGraphFunction(*p.fn).graph();
        interpreter.indexScriptGraph(*graph, p.inlinedIds);
        scripted = interpreter.run(*graph, p.arguments(p.clonedInputs()));
    } catch (const std::exception& e) {
        check.error
            = QStringLiteral("the script function failed on this input set: %1").arg(torchErrorMessage(e.what()));
        return check;
    }
    // As torch.jit.trace's check: the top-level outputs that are tensors, compared pairwise (zip).
    auto topLevelTensors = [](std::vector<IValue> values) {
        if (values.size() == 1 && values[0].isTuple())
            values = values[0].toTupleRef().elements().vec();
        std::vector<IValue> tensors;
        for (const auto& v : values)
            if (v.isTensor())
                tensors.push_back(v);
        return tensors;
    };
    auto t = topLevelTensors(traced), f = topLevelTensors(scripted);
    const size_t n = std::min(t.size(), f.size());
    t.resize(n);
    f.resize(n);
    check.ran = true;
    check.comparison = compareOutputs(f, t, rtol, atol);
    return check;
}

} // namespace jitscope
