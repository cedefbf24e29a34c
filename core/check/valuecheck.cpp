// Where trace 1 and the script function part ways on a check input set whose outputs differ (JitScope's own check:
// both run by the executor). Each run's node values are seen as they are made (valuesample_p.h: tensors whole up to
// Seen::kWhole elements, else a strided sample and the mean), trace nodes are matched to the script node executions that
// recorded them by provenance (IrNode::originNode and loopPath), and the first trace node whose value the script
// never computes while its tensor operands agree is named, with the cause by kind: the same question and the same
// answer as the bridge's comparison of a recorded trace with the Python code (jitscope_bridge_values.py).

#include "check/opkinds_p.h"
#include "check/outputcheck_p.h"
#include "check/valuesample_p.h"
#include "execute/runtime_p.h"
#include "ir/torcherror_p.h"
#include "load/modelhandle_p.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>

#include <QHash>
#include <QSet>

#include <algorithm>
#include <map>
#include <mutex>

namespace jitscope {

namespace tj = torch::jit;
using c10::IValue;

namespace {

/// A script node's execution: where (its script node and enclosing loop iterations), its kind, what it made and
/// what it took (numbers and small tensors only: what a trace constant is compared with).
struct Execution
{
    QString kind;
    std::vector<Seen> outputs;
    std::vector<Seen> inputs; ///< numbers and small tensors (Other for the rest)
    std::vector<Print> took; ///< every input
};

using Key = std::pair<int, std::vector<int>>;

Key keyOf(int node, const QVector<LoopFrame>& loops)
{
    std::vector<int> path;
    for (const LoopFrame& l : loops) {
        path.push_back(l.loopNode);
        path.push_back(l.iteration);
    }
    return { node, path };
}

bool smallInput(const IValue& v)
{
    return !v.isTensor() || (v.toTensor().defined() && v.toTensor().numel() <= 64);
}

/// The script function's run: every operator node's execution, by script node and loop iterations.
class ScriptRecorder : public InterpreterHooks
{
public:
    explicit ScriptRecorder(const Interpreter& interpreter)
        : m_interpreter(interpreter)
    { }

    // What a node took, before it runs: an in-place op (dropout_, add_) changes its operand as it runs.
    void beforeNode(tj::Node* n, Frame& frame) override
    {
        if (!recorded(n))
            return;
        // Where it runs, read now: after it ran, the position is still the last node of its blocks or callee.
        const Position& at = m_interpreter.position();
        auto& [key, e] = m_running[n];
        key = keyOf(at.scriptNode, at.loops);
        e = Execution();
        for (const tj::Value* i : n->inputs()) {
            const IValue* v = frame.find(i);
            e.inputs.push_back(v && smallInput(*v) ? see(*v) : Seen());
            e.took.push_back(v ? print(*v) : Print());
        }
    }

    void afterNode(tj::Node* n, Frame& frame) override
    {
        const auto it = m_running.find(n);
        if (it == m_running.end())
            return;
        auto [key, e] = std::move(it->second);
        m_running.erase(it);
        e.kind = QString::fromStdString(n->kind().toQualString());
        for (const tj::Value* o : n->outputs()) {
            const IValue* v = frame.find(o);
            e.outputs.push_back(v ? see(*v) : Seen());
        }
        runs[key].push_back(std::move(e));
    }

    std::map<Key, std::vector<Execution>> runs;

private:
    bool recorded(const tj::Node* n) const
    {
        return m_interpreter.position().scriptNode >= 0 && n->kind() != c10::prim::Constant && n->blocks().empty();
    }

    const Interpreter& m_interpreter;
    /// Begun, not ended (a call's node spans its callee): where each runs, and what it took.
    std::unordered_map<const tj::Node*, std::pair<Key, Execution>> m_running;
};

/// Trace 1's run: each node's outputs by its id in trace 1's IrGraph, in execution order.
class TraceRecorder : public InterpreterHooks
{
public:
    explicit TraceRecorder(const Interpreter& interpreter)
        : m_interpreter(interpreter)
    { }

    void afterNode(tj::Node* n, Frame& frame) override
    {
        const int id = m_interpreter.scriptId(n);
        if (id < 0 || n->kind() == c10::prim::Constant)
            return;
        std::vector<Seen> outs;
        std::vector<Print> printed;
        for (const tj::Value* o : n->outputs()) {
            const IValue* v = frame.find(o);
            outs.push_back(v ? see(*v) : Seen());
            printed.push_back(v ? print(*v) : Print());
        }
        prints[id] = std::move(printed);
        // The constants it takes (materialised by the run): what a baked tensor is compared with.
        for (const tj::Value* i : n->inputs()) {
            if (i->node()->kind() != c10::prim::Constant)
                continue;
            const int constant = m_interpreter.scriptId(i->node());
            const IValue* v = frame.find(i);
            if (constant >= 0 && v && !values.count(constant))
                values[constant] = { see(*v) };
        }
        order.push_back(id);
        values[id] = std::move(outs);
    }

    std::vector<int> order;
    std::unordered_map<int, std::vector<Seen>> values;
    std::unordered_map<int, std::vector<Print>> prints;

private:
    const Interpreter& m_interpreter;
};

/// What an in-place op writes into when it changes @p kind's result: its first operand, for the views and for the
/// ops that share their operand's storage (detach, alias).
bool writesThrough(const QString& kind)
{
    return viewKinds().contains(kind) || kind == QLatin1String("aten::detach") || kind == QLatin1String("aten::alias");
}

QString moduleText(const QString& path, const QHash<QString, QString>& types)
{
    if (path.isEmpty())
        return QStringLiteral("the top module");
    const QString type = types.value(path);
    return type.isEmpty() ? QStringLiteral("module `%1`").arg(path)
                          : QStringLiteral("module `%1` (%2)").arg(path, type);
}

QString shapeOf(const Seen& s)
{
    return s.text().section(QLatin1Char(' '), 0, 0);
}

/// The script's runs and trace 1's run on one set, compared.
struct Comparison
{
    const IrGraph& trace;
    const TraceRecorder& traced;
    const ScriptRecorder& script;
    double rtol;
    double atol;
    QHash<QString, QString> moduleTypes;

    enum class Status { Unknown, Match, Other };
    QHash<int, Status> status;
    QHash<int, const Execution*> counterpart;
    QSet<int> numbers; ///< trace nodes whose outputs are numbers (sizes and their arithmetic)
    QSet<int> tainted; ///< differ, or made from values that differ
    QSet<int> strayed; ///< took a tensor the script's node did not take
    QSet<int> unrun; ///< recorded from script code the script function does not run on this set (another branch)
    const IrGraph* scriptGraph = nullptr;

    int producerOf(int value) const { return trace.value(value).producer; }
    bool isConstant(int node) const { return node >= 0 && trace.node(node).kind == QLatin1String("prim::Constant"); }

    /// One output of a node of trace 1 as the run saw it, by value id (a constant's as the run materialised it).
    template <typename T>
    const T& outputOf(const std::unordered_map<int, std::vector<T>>& byNode, int value) const
    {
        static const T none;
        const int p = producerOf(value);
        const auto it = byNode.find(p);
        if (p < 0 || it == byNode.end() || it->second.empty())
            return none;
        const int index = int(trace.node(p).outputs.indexOf(value));
        return index >= 0 && size_t(index) < it->second.size() ? it->second[size_t(index)] : it->second.front();
    }
    const Seen& valueOf(int value) const { return outputOf(traced.values, value); }
    const Print& printOf(int value) const { return outputOf(traced.prints, value); }

    /// The first number node of the tainted arithmetic @p producer ends in: the one that differs while what it is
    /// computed from agrees.
    int rootOf(int producer) const
    {
        QSet<int> chain;
        QVector<int> stack { producer };
        while (!stack.isEmpty()) {
            const int id = stack.takeLast();
            if (id < 0 || chain.contains(id) || !numbers.contains(id) || !tainted.contains(id))
                continue;
            chain.insert(id);
            for (int v : trace.node(id).inputs)
                stack << producerOf(v);
        }
        for (int id : traced.order)
            if (chain.contains(id) && status.value(id) == Status::Other) {
                const IrNode& n = trace.node(id);
                if (std::none_of(n.inputs.cbegin(), n.inputs.cend(),
                        [&](int v) { return tainted.contains(producerOf(v)); }))
                    return id;
            }
        return producer;
    }

    /// An operand of @p node made of constants alone (what trace 1 baked in) that is not what the script's node took
    /// there: its index, and both values as text; -1 when none.
    int bakedOperand(int node, QString* traced, QString* script) const
    {
        const Execution* e = counterpart.value(node);
        if (!e)
            return -1;
        const IrNode& n = trace.node(node);
        for (int i = 0; i < n.inputs.size() && size_t(i) < e->inputs.size(); ++i) {
            const Seen& value = valueOf(n.inputs[i]);
            const Seen& theirs = e->inputs[size_t(i)];
            if (madeOfConstants(producerOf(n.inputs[i])) && comparablePair(value, theirs)
                && !close(value, theirs, rtol, atol)) {
                *traced = value.text();
                *script = theirs.text();
                return i;
            }
        }
        return -1;
    }

    /// A constant, or a value computed from constants alone (torch.tensor(x.shape) is aten::to of a constant): what
    /// trace 1 baked in, whatever the inputs.
    bool madeOfConstants(int node) const
    {
        if (isConstant(node))
            return true;
        if (node < 0)
            return false;
        if (const auto it = constantOnly.constFind(node); it != constantOnly.constEnd())
            return *it;
        // Producers come first in a trace's order: each node is decided once, from its inputs' answers.
        const IrNode& n = trace.node(node);
        const bool made = !nondeterministicKinds().contains(n.kind) && !n.inputs.isEmpty()
            && std::all_of(n.inputs.cbegin(), n.inputs.cend(),
                [&](int v) { return producerOf(v) != node && madeOfConstants(producerOf(v)); });
        constantOnly.insert(node, made);
        return made;
    }
    mutable QHash<int, bool> constantOnly;

    void compare()
    {
        QSet<int> executed; // script nodes that ran on this set, in any loop iteration
        QHash<QString, QVector<const Execution*>> byKind;
        for (const auto& [key, runs] : script.runs) {
            executed.insert(key.first);
            for (const Execution& e : runs)
                byKind[e.kind] << &e;
        }
        std::map<std::pair<Key, QString>, int> occurrences;
        for (int id : traced.order) {
            const IrNode& n = trace.node(id);
            const std::vector<Seen>& outs = traced.values.at(id);
            const bool allNumbers = !outs.empty() && std::all_of(outs.cbegin(), outs.cend(), [](const Seen& s) {
                return s.kind == Seen::Kind::Numbers || (s.kind == Seen::Kind::Tensor && s.shape.empty());
            });
            if (allNumbers)
                numbers.insert(id);
            Status st = Status::Unknown;
            if (n.originNode >= 0) {
                const Key key = keyOf(n.originNode, n.loopPath);
                const int occurrence = occurrences[{ key, n.kind }]++;
                auto it = script.runs.find(key);
                if (it != script.runs.end()) {
                    int k = 0;
                    for (const Execution& e : it->second) {
                        if (e.kind != n.kind)
                            continue;
                        if (k++ < occurrence)
                            continue;
                        counterpart.insert(id, &e);
                        st = Status::Match;
                        for (size_t i = 0; i < outs.size() && i < e.outputs.size(); ++i)
                            if (comparablePair(outs[i], e.outputs[i]) && !close(outs[i], e.outputs[i], rtol, atol))
                                st = Status::Other;
                        // A tensor operand that agrees with its own counterpart but is not what the script's node
                        // took (a loop ran another number of times, a branch chose another value): the node is
                        // made of other values, not the first to differ.
                        for (int i = 0; i < n.inputs.size() && size_t(i) < e.took.size(); ++i) {
                            const int p = producerOf(n.inputs[i]);
                            if (p >= 0 && !numbers.contains(p) && !madeOfConstants(p)
                                && !samePrint(printOf(n.inputs[i]), e.took[size_t(i)], rtol, atol))
                                strayed.insert(id);
                        }
                        break;
                    }
                }
            }
            if (st == Status::Unknown && n.originNode >= 0 && !executed.contains(n.originNode)
                && !isConstant(id)) {
                // Code the script does not run here; but a value it computes elsewhere all the same (the same x / 0.1
                // in the other branch) is no divergence yet.
                const Execution* same = nullptr;
                for (const Execution* e : byKind.value(n.kind))
                    if (!same && e->outputs.size() == outs.size()
                        && std::equal(outs.cbegin(), outs.cend(), e->outputs.cbegin(), [&](const Seen& a, const Seen& b) {
                               return comparablePair(a, b) && close(a, b, rtol, atol);
                           }))
                        same = e;
                if (same) {
                    st = Status::Match;
                    counterpart.insert(id, same);
                } else {
                    unrun.insert(id);
                    tainted.insert(id);
                }
            }
            status.insert(id, st);
            bool fromTainted = false;
            for (int v : n.inputs)
                fromTainted |= tainted.contains(producerOf(v));
            if (st == Status::Other || (st == Status::Unknown && fromTainted))
                tainted.insert(id);
        }
    }

    /// The first node that differs while its tensor operands agree (a number operand may differ: that is its
    /// cause); the first number that does when no tensor does.
    int firstDivergence() const
    {
        // Only what the outputs are made of: a module's counter bumped in place (BatchNorm's num_batches_tracked in
        // train mode) differs too, but makes no output differ.
        QSet<int> feeds;
        auto walk = [&](int from) {
            QVector<int> stack { from };
            while (!stack.isEmpty()) {
                const int id = stack.takeLast();
                if (id < 0 || feeds.contains(id))
                    continue;
                feeds.insert(id);
                for (int v : trace.node(id).inputs)
                    stack << producerOf(v);
            }
        };
        const QSet<int> outputs(trace.top.outputs.cbegin(), trace.top.outputs.cend());
        for (int v : trace.top.outputs)
            walk(producerOf(v));
        // An in-place op writes into what it changes, through the views it was taken by (`x[0] = ...` copies into a
        // select of x): it feeds the outputs when that tensor does.
        for (bool grew = true; grew;) {
            grew = false;
            for (int id : traced.order) {
                const IrNode& n = trace.node(id);
                if (feeds.contains(id) || !n.kind.endsWith(QLatin1Char('_')) || n.kind.endsWith(QLatin1String("__"))
                    || n.inputs.isEmpty())
                    continue;
                int base = n.inputs.first();
                while (producerOf(base) >= 0 && writesThrough(trace.node(producerOf(base)).kind)
                    && !trace.node(producerOf(base)).inputs.isEmpty())
                    base = trace.node(producerOf(base)).inputs.first();
                if (outputs.contains(base) || feeds.contains(producerOf(base))) {
                    walk(id);
                    grew = true;
                }
            }
        }
        int firstNumber = -1;
        for (int id : traced.order) {
            if (!feeds.contains(id))
                continue;
            const IrNode& n = trace.node(id);
            // Code the script function does not run here, recorded from what it does: the branch taken while
            // tracing.
            if (unrun.contains(id) && !numbers.contains(id)
                && std::none_of(n.inputs.cbegin(), n.inputs.cend(),
                    [&](int v) { return tainted.contains(producerOf(v)); }))
                return id;
            if (status.value(id) != Status::Other || strayed.contains(id))
                continue;
            bool tensorsAgree = true;
            bool allAgree = true;
            for (int v : n.inputs) {
                const int p = producerOf(v);
                if (!tainted.contains(p))
                    continue;
                allAgree = false;
                if (!numbers.contains(p))
                    tensorsAgree = false;
            }
            if (!numbers.contains(id) && tensorsAgree)
                return id;
            if (numbers.contains(id) && allAgree && firstNumber < 0)
                firstNumber = id;
        }
        return firstNumber;
    }

    /// The number nodes a number operand is computed by, in execution order, and the float dtypes they compute in.
    QStringList arithmetic(int producer, QStringList* dtypes) const
    {
        QSet<int> chain;
        QVector<int> stack { producer };
        while (!stack.isEmpty()) {
            const int id = stack.takeLast();
            if (id < 0 || chain.contains(id) || isConstant(id) || !numbers.contains(id))
                continue;
            chain.insert(id);
            for (int v : trace.node(id).inputs)
                stack << producerOf(v);
        }
        QStringList kinds;
        for (int id : traced.order) {
            if (!chain.contains(id))
                continue;
            const QString kind = trace.node(id).kind;
            if (!kinds.contains(kind) && kind != QLatin1String("prim::ListConstruct"))
                kinds << kind;
            for (const Seen& s : traced.values.at(id))
                if (s.kind == Seen::Kind::Tensor && s.floating && !dtypes->contains(s.dtype))
                    *dtypes << s.dtype;
        }
        return kinds;
    }

    ValueDivergence describe(int id) const
    {
        ValueDivergence d;
        d.present = true;
        const IrNode& n = trace.node(id);
        d.node = id;
        d.op = n.kind;
        d.module = n.modulePath;
        const std::vector<Seen>& outs = traced.values.at(id);
        const Execution* e = counterpart.value(id);
        size_t which = 0;
        for (size_t i = 0; e && i < outs.size() && i < e->outputs.size(); ++i)
            if (comparablePair(outs[i], e->outputs[i]) && !close(outs[i], e->outputs[i], rtol, atol)) {
                which = i;
                break;
            }
        const Seen none;
        const Seen& mine = which < outs.size() ? outs[which] : none;
        const Seen& theirs = e && which < e->outputs.size() ? e->outputs[which] : none;
        d.traceValue = mine.text();
        d.otherValue = theirs.text();
        d.otherOp = e ? e->kind : QString();
        const QString where = moduleText(n.modulePath, moduleTypes);
        QString cause;
        QString because;
        for (int i = 0; i < n.inputs.size(); ++i) {
            const int p = producerOf(n.inputs[i]);
            const Seen& value = valueOf(n.inputs[i]);
            const Seen* script = e && size_t(i) < e->inputs.size() && comparable(e->inputs[size_t(i)])
                ? &e->inputs[size_t(i)]
                : nullptr;
            const bool differs = script && comparablePair(value, *script) && !close(value, *script, rtol, atol);
            // Side by side: the operands that differ, and the tensors that agree (the same value in both runs).
            if (comparable(value) && (differs || tainted.contains(p) || (value.kind == Seen::Kind::Tensor && !isConstant(p))))
                d.operandRows << ValueRow { QStringLiteral("operand %1").arg(i), value.text(),
                    script             ? script->text()
                        : (e && !tainted.contains(p)) ? value.text()
                                                      : QString() };
            if (p < 0 || (!differs && !tainted.contains(p))) {
                if (p >= 0 && value.kind == Seen::Kind::Tensor && !numbers.contains(p) && !isConstant(p))
                    d.operands << QStringLiteral("operand %1: %2 %3")
                                      .arg(i)
                                      .arg(value.text(), e ? QStringLiteral("in both") : QStringLiteral("in the trace"));
                continue;
            }
            const QString scriptText = script ? script->text() : QStringLiteral("another value");
            // A number: the first of its arithmetic that differs, and an operand of it trace 1 baked, if any.
            QString baked, scriptBaked;
            const int root = numbers.contains(p) ? rootOf(p) : -1;
            const int j = root >= 0 ? bakedOperand(root, &baked, &scriptBaked) : -1;
            if (differs && madeOfConstants(p)) {
                // A constant trace 1 recorded (a number, a list of them, a tensor) where the script computes another
                // value on this set.
                d.operands << QStringLiteral("operand %1 (constant): %2 in the trace, %3 in the script function")
                                  .arg(i)
                                  .arg(value.text(), scriptText);
                if (cause.isEmpty()) {
                    cause = QStringLiteral("constant");
                    because = QStringLiteral("`%1` in %2: its operand %3 is a constant trace 1 baked in from the "
                                             "traced input (%4) where the script function computes %5 on this set")
                                  .arg(n.kind, where)
                                  .arg(i)
                                  .arg(value.text(), scriptText);
                }
            } else if (j >= 0) {
                // The number is computed from a constant trace 1 baked in (torch.tensor(x.shape)[0]).
                d.operands << QStringLiteral("operand %1 (number): %2 in the trace, %3 in the script function, "
                                             "computed by `%4` from its operand %5, a constant trace 1 baked in (%6; "
                                             "the script function: %7)")
                                  .arg(i)
                                  .arg(value.text(), scriptText, trace.node(root).kind)
                                  .arg(j)
                                  .arg(baked, scriptBaked);
                if (cause.isEmpty()) {
                    cause = QStringLiteral("constant");
                    because = QStringLiteral("`%1` in %2: its operand %3 (%4 in the trace, %5 in the script function) "
                                             "is computed from a constant trace 1 baked in from the traced input: "
                                             "`%6` takes %7 where the script function takes %8 on this set")
                                  .arg(n.kind, where)
                                  .arg(i)
                                  .arg(value.text(), scriptText, trace.node(root).kind, baked, scriptBaked);
                }
            } else if (numbers.contains(p)) {
                QStringList dtypes;
                const QStringList kinds = arithmetic(p, &dtypes);
                const QString inDtypes
                    = dtypes.isEmpty() ? QString() : QStringLiteral(", in %1").arg(dtypes.join(QLatin1Char('/')));
                d.operands << QStringLiteral("operand %1 (number): %2 in the trace, computed by %3%4; %5 in the "
                                             "script function")
                                  .arg(i)
                                  .arg(value.text(), kinds.join(QStringLiteral(", ")), inDtypes, scriptText);
                if (cause.isEmpty()) {
                    cause = QStringLiteral("size");
                    const QString shapes = QStringLiteral("`%1` in %2: %3 in the trace, %4 in the script function: ")
                                               .arg(n.kind, where, shapeOf(mine),
                                                   theirs.kind == Seen::Kind::Other ? QStringLiteral("no such value")
                                                                                    : shapeOf(theirs));
                    // In floating point: float32 tensor arithmetic against Python's float64 (90 * 0.7 floors to 63
                    // in one, 62 in the other); in integers: sizes that trace 1 chose (a dimension, a max, an index
                    // decided while tracing) where the script computes from this set's.
                    because = shapes
                        + (dtypes.isEmpty()
                                  ? QStringLiteral("its operand %1 is a number the trace computes from the sizes trace "
                                                   "1 chose (%2: %3) where the script function computes %4 on this "
                                                   "set: which dimensions to take was decided while tracing")
                                        .arg(i)
                                        .arg(kinds.mid(0, 6).join(QStringLiteral(", ")), value.text(), scriptText)
                                  : QStringLiteral("its operand %1 is a number the trace computes with tensor "
                                                   "arithmetic (%2%3) where the script function computes it with "
                                                   "Python numbers (trace: %4, script function: %5)")
                                        .arg(i)
                                        .arg(kinds.mid(0, 6).join(QStringLiteral(", ")), inDtypes, value.text(),
                                            scriptText));
                }
            }
        }
        if (cause.isEmpty() && unrun.contains(id)) {
            // The if whose other branch the script function takes on this set.
            int branch = n.originNode;
            while (scriptGraph && branch >= 0 && branch < scriptGraph->nodes.size()
                && scriptGraph->node(branch).kind != QLatin1String("prim::If"))
                branch = scriptGraph->node(branch).parentNode;
            const bool known = scriptGraph && branch >= 0 && branch < scriptGraph->nodes.size();
            cause = QStringLiteral("branch");
            because = QStringLiteral("`%1` in %2 is code the script function does not run on this set: trace 1 "
                                     "recorded the branch taken while tracing%3, where the script function takes the "
                                     "other (a fast path for tracing, or a condition trace 1 froze)")
                          .arg(n.kind, where,
                              known ? QStringLiteral(" (the if at line %1)")
                                          .arg(scriptGraph->node(branch).location.line)
                                    : QString());
        }
        if (cause.isEmpty()) {
            cause = QStringLiteral("op");
            because = QStringLiteral("`%1` in %2 computes other values from operands that agree (%3 in the trace, %4 "
                                     "in the script function): a branch or fast path the trace took chose otherwise")
                          .arg(n.kind, where, shapeOf(mine),
                              theirs.kind == Seen::Kind::Other ? QStringLiteral("no such value") : shapeOf(theirs));
        }
        d.cause = cause;
        d.message = because;
        return d;
    }
};

} // namespace

ValueDivergence findValueDivergence(const ModelInfo& model, const QString& function, TracedProgram& trace,
    const IrGraph& traceGraph, const IrGraph& scriptGraph, const InputSet& inputs, const ExecOptions& options,
    double rtol, double atol, const QHash<QString, QString>& moduleTypes)
{
    ValueDivergence d;
    PreparedRun p = prepareRun(model, function, inputs, options);
    if (!p.error.isEmpty()) {
        d.present = true;
        d.error = p.error;
        return d;
    }
    std::shared_ptr<tj::Graph> graph;
    {
        std::lock_guard<std::mutex> lock(model.handle->mutex);
        graph = tj::toGraphFunction(*p.fn).graph();
    }
    // As the check ran them: trace 1, then the script function, the random state carried from one to the next.
    std::unique_ptr<TraceRecorder> traced;
    auto runScript = [&](ScriptRecorder*& into, std::unique_ptr<ScriptRecorder>& owner) {
        Interpreter interpreter(options);
        owner = std::make_unique<ScriptRecorder>(interpreter);
        into = owner.get();
        interpreter.indexScriptGraph(*graph, p.inlinedIds, p.inlinedIndex);
        interpreter.addHooks(owner.get());
        at::NoGradGuard noGrad;
        interpreter.run(*graph, p.arguments(p.clonedInputs()));
    };
    std::unique_ptr<ScriptRecorder> script, again;
    ScriptRecorder* scriptRun = nullptr;
    try {
        runTracedProgram(trace, p.clonedInputs(), options, nullptr, [&](Interpreter& interpreter) {
            traced = std::make_unique<TraceRecorder>(interpreter);
            interpreter.addHooks(traced.get());
        });
        runScript(scriptRun, script);
    } catch (const std::exception& e) {
        d.present = true;
        d.error = QStringLiteral("the runs that compare values failed: %1")
                      .arg(torchErrorMessage(e.what()).section(QLatin1Char('\n'), 0, 0));
        return d;
    }
    Comparison c { traceGraph, *traced, *script, rtol, atol, moduleTypes };
    c.scriptGraph = &scriptGraph;
    c.compare();
    const int at = c.firstDivergence();
    if (at < 0)
        return d;
    d = c.describe(at);
    // Where the script function made its value: the script node that recorded trace 1's (the node itself, or the
    // call whose callee made it: the user's line calling F.dropout).
    const int origin = traceGraph.node(at).originNode;
    const IrNode* made = origin >= 0 && origin < scriptGraph.nodes.size() ? &scriptGraph.node(origin) : nullptr;
    if (made && made->location.isValid()
        && (made->kind == d.op || made->kind == QLatin1String("prim::CallFunction")
            || made->kind == QLatin1String("prim::CallMethod")))
        d.otherAt = made->location;
    // A random op (dropout, or an op with a dropout inside, as scaled_dot_product_attention in train mode): the
    // script function run again (the random state moved on) differs there too.
    if (nondeterministicKinds().contains(traceGraph.node(at).kind) || d.cause == QLatin1String("op")) {
        try {
            ScriptRecorder* againRun = nullptr;
            runScript(againRun, again);
            const Execution* first = c.counterpart.value(at);
            const IrNode& n = traceGraph.node(at);
            const auto it = again->runs.find(keyOf(n.originNode, n.loopPath));
            const Execution* second = nullptr;
            if (it != again->runs.end())
                for (const Execution& e : it->second)
                    if (e.kind == n.kind && !second)
                        second = &e;
            if (first && second && !first->outputs.empty() && !second->outputs.empty()
                && !close(first->outputs.front(), second->outputs.front(), rtol, atol)) {
                d.cause = QStringLiteral("nondeterministic");
                d.randomNode = at;
                d.message = QStringLiteral("the script function run twice on this set differs too: `%1` in %2 gives "
                                           "other values each run (%3, then %4), so the check cannot pass as written")
                                .arg(n.kind, moduleText(n.modulePath, moduleTypes), first->outputs.front().text(),
                                    second->outputs.front().text());
            }
        } catch (const std::exception&) {
            // It ran once already: the finding stands without the second run's word.
        }
    }
    return d;
}

} // namespace jitscope
