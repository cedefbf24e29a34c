// The generic path: an operator with tensor semantics called the way Python's binding would call it (numbers as
// tensors, Python's defaults, TensorLists as tuples), with an operator's own call rules (rulesOf) on the way, and
// the numbers Python held as traced tensors patched into the recorded node as tracer::ArgumentStash does.

// pythonsemantics_p.h needs these before it (it includes no libtorch header).
#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/ir.h>

#include "execute/operatorguard_p.h"
#include "trace/pythonsemantics_p.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>

namespace jitscope {
namespace pythonsemantics {

/// An operator with tensor semantics: runs it the way Python's binding would call it.
void Semantics::runTracedOperator(tj::Node* n, Frame& frame)
{
    const tj::Operator* op = n->maybeOperator();
    if (!op)
        return m_interpreter.runPlain(n, frame);
    const c10::FunctionSchema& schema = op->schema();
    const std::string& name = schema.name();
    const c10::Symbol kind = n->kind();
    std::vector<IValue> args;
    args.reserve(n->inputs().size());
    for (auto* in : n->inputs())
        args.push_back(frame.value(in));
    const OperatorGuard guard(n, args); // every call below, as the interpreter's own operator calls

    const bool scalarOverload = schema.overload_name().find("Scalar") == 0;
    // Python numbers bound to the Tensor overload (argument parser's numbers-as-tensors list).
    if (scalarOverload && allowsNumbersAsTensors(kind) && args.size() >= 2) {
        auto handle = c10::Dispatcher::singleton().findSchema({ name, "Tensor" });
        if (!handle)
            handle = c10::Dispatcher::singleton().findSchema({ name, "" }); // floor_divide's Tensor overload
        if (handle) {
            tj::Stack stack;
            stack.push_back(args[0]);
            stack.push_back(asPythonTensor(args[1], view(frame, n->input(1))));
            // `x.size(0) + t`: TorchScript's builtin for `number + tensor` swaps it into add(t, number); Python's
            // traced size is the left operand of Tensor.__add__.
            if ((kind == c10::aten::add || kind == c10::aten::mul) && view(frame, n->input(1)).hasShadow()) {
                const auto place = n->sourceRange().file_line_col();
                if (place && std::get<0>(*place) == "<string>")
                    std::swap(stack[0], stack[1]);
            }
            for (size_t i = 2; i < args.size(); ++i)
                stack.push_back(args[i]);
            if (stack.size() < handle->schema().arguments().size())
                stack.push_back(IValue(int64_t(1))); // alpha
            handle->callBoxed(stack);
            Interpreter::storeOutputs(n, frame, stack);
            return;
        }
    }
    // A shadowed number given to a Scalar parameter of an op with a Tensor overload: Python passes the tensor.
    if (scalarOverload && args.size() >= 2 && view(frame, n->input(1)).hasShadow()) {
        std::string overload = schema.overload_name();
        overload.replace(0, 6, "Tensor");
        auto handle = c10::Dispatcher::singleton().findSchema({ name, overload });
        if (handle) {
            tj::Stack stack(args.begin(), args.end());
            stack[1] = view(frame, n->input(1)).shadow;
            handle->callBoxed(stack);
            Interpreter::storeOutputs(n, frame, stack);
            return;
        }
    }

    const OperatorRules* own = rulesOf(kind);
    if (own)
        for (CallRule rule : own->call)
            if ((this->*rule)(n, frame, schema, args))
                return;
    if (auto rowsOf = m_iterRows.find(n); rowsOf != m_iterRows.end()) {
        // `for row in x`: Python took the rows from one aten::unbind when the loop started.
        const auto& rows = rowsOf->second;
        const int64_t i = args.at(2).toInt();
        frame.bind(n->output(), rows.at(size_t(i)));
        return;
    }
    // An op on numbers alone (`input.dim() != 4`) is Python arithmetic: nothing is recorded, nothing baked yet.
    const bool recorded = std::any_of(args.begin(), args.end(), [](const IValue& v) { return v.isTensor(); })
        || std::any_of(schema.returns().begin(), schema.returns().end(),
            [](const c10::Argument& r) { return r.type()->kind() == c10::TypeKind::TensorType; });
    for (size_t i = 0; recorded && i < n->inputs().size(); ++i) {
        const PythonView& in = view(frame, n->input(i));
        if ((in.fromSize || in.fromData) && !in.hasShadow() && !in.hasElemShadows() && !args[i].isTensor()) {
            m_warnings.add(WarningKind::BakedConstant,
                warningMessage(WarningKind::BakedConstant,
                    { in.origin.isEmpty()
                            ? QStringLiteral("a value computed from %1")
                                  .arg(in.fromData ? QStringLiteral("tensor data") : QStringLiteral("a shape"))
                            : in.origin,
                        printed(args[i]), i < schema.arguments().size() ? qs(schema.arguments()[i].name()) : QString(),
                        qs(name) },
                    1),
                warningFix(WarningKind::BakedConstant, {}, in.fromData ? 1 : 2), nullptr, in.origin, -1);
        }
    }
    const std::string base = name.substr(name.find("::") + 2);
    fillPythonDefaults(schema, base, args);
    if (own)
        for (CallRule rule : own->completed)
            if ((this->*rule)(n, frame, schema, args))
                return;

    tj::Graph& traceGraph = *tj::tracer::getTracingState()->graph;
    tj::Node* insertPoint = traceGraph.insertPoint();
    tj::Node* before = insertPoint->prev();
    tj::Stack stack(args.begin(), args.end());
    if (op->isC10Op() && args.size() == schema.arguments().size()) {
        auto handle = c10::Dispatcher::singleton().findSchema(schema.operator_name());
        if (handle)
            handle->callBoxed(stack);
        else
            m_interpreter.callOperator(n, stack);
    } else {
        m_interpreter.callOperator(n, stack);
    }
    if (op->isC10Op())
        patchShadowedArguments(n, frame, schema, insertPoint, before);
    Interpreter::storeOutputs(n, frame, stack);
    // Python's bindings return a TensorList as a tuple.
    if (n->outputs().size() == 1 && n->output()->type()->kind() == c10::TypeKind::ListType
        && n->output()->type()->containedType(0)->kind() == c10::TypeKind::TensorType && op->isC10Op())
        EditView(frame, n->output())->pythonTuple = true;
}

/// What tracer::ArgumentStash does for Python's argument parser, done on the recorded node afterwards
/// (the stash itself is not exported by libtorch): numbers that Python held as traced 0-dim tensors become
/// aten::Int/Float/ScalarImplicit of that tensor, inserted right after the tensor's producer.
void Semantics::patchShadowedArguments(
    tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, tj::Node* insertPoint, tj::Node* before)
{
    const auto& params = schema.arguments();
    bool any = false;
    for (size_t i = 0; i < params.size() && i < n->inputs().size(); ++i) {
        const PythonView& s = view(frame, n->input(i));
        any |= s.hasShadow() || s.hasElemShadows();
    }
    if (!any)
        return;
    const c10::Symbol kind = c10::Symbol::fromQualString(schema.name());
    tj::Node* recorded = nullptr;
    for (tj::Node* p = insertPoint->prev(); p != before && p->kind() != c10::prim::Param; p = p->prev()) {
        if (p->kind() == kind) {
            recorded = p;
            break;
        }
    }
    if (!recorded || recorded->inputs().size() < params.size())
        return;
    auto convert = [recorded](const at::Tensor& shadow, c10::Symbol as) -> tj::Value* {
        tj::Value* ten = nullptr;
        {
            // A shadow the trace does not know is baked as a constant at the insert point: that must be before
            // the recorded node that uses it, not after it.
            tj::WithInsertPoint before(recorded);
            ten = tj::tracer::getValueTrace(shadow);
        }
        tj::Graph& g = *ten->owningGraph();
        tj::WithInsertPoint guard(ten->node()->next());
        return g.insert(as, { ten });
    };
    for (size_t i = 0; i < params.size() && i < n->inputs().size(); ++i) {
        const PythonView& s = view(frame, n->input(i));
        c10::TypePtr paramType = params[i].type();
        if (auto opt = paramType->cast<c10::OptionalType>())
            paramType = opt->getElementType();
        const auto kindOfType = paramType->kind();
        if (s.hasShadow()
            && (kindOfType == c10::TypeKind::IntType || kindOfType == c10::TypeKind::FloatType
                || kindOfType == c10::TypeKind::NumberType || kindOfType == c10::TypeKind::SymIntType)) {
            const c10::Symbol as = kindOfType == c10::TypeKind::FloatType ? c10::aten::Float
                : kindOfType == c10::TypeKind::NumberType                 ? c10::aten::ScalarImplicit
                                                                          : c10::aten::Int;
            recorded->replaceInput(i, convert(s.shadow, as));
        } else if (s.hasElemShadows()) {
            tj::Node* list = recorded->input(i)->node();
            if (list->kind() != c10::prim::ListConstruct || list->inputs().size() != s.elems.size())
                continue;
            for (size_t k = 0; k < s.elems.size(); ++k)
                if (s.elems[k].defined())
                    list->replaceInput(k, convert(s.elems[k], c10::aten::Int));
        }
    }
}

} // namespace pythonsemantics
} // namespace jitscope
