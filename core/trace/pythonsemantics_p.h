#pragma once

// Private to the pythonsemantics*.cpp files: what the families of Python's tracing semantics share (the view a note
// holds, the Semantics class with its table of operator rules). See pythontracingsemantics_p.h for what they do.
// It names libtorch's types but includes none of its headers, as no header of core/ may (tst_layering): a file
// includes <ATen/ATen.h> and <torch/csrc/jit/ir/ir.h> before it.

#include "trace/pythonsyntax_p.h"
#include "trace/pythontracingsemantics_p.h"
#include "trace/tracewarningsink_p.h"

#include <QStringList>

#include <optional>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace jitscope {
namespace pythonsemantics {

namespace tj = torch::jit;
using c10::IValue;

inline QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

/// Python's view of a runtime value, where it differs from TorchScript's.
struct PythonView : ValueNote
{
    at::Tensor shadow; ///< defined when the value is a number Python would have as a traced 0-dim tensor
    std::vector<at::Tensor> elems; ///< for int lists: per-element shadows (undefined where none)
    bool fromSize = false; ///< value derives from a tensor's shape (for explaining baked constants)
    bool fromData = false; ///< value derives from tensor data (bool(), item(), ...)
    bool pythonTuple = false; ///< a TensorList Python's binding would have returned as a tuple
    /// tuples holding shadowed values, lists holding lists of them (torchvision's List[List[int]] of sizes):
    /// their elements' notes
    std::shared_ptr<std::vector<NotePtr>> items;
    QString origin; ///< Python-like text of where the value came from ("x.size(0)")

    bool hasShadow() const { return shadow.defined(); }
    bool hasElemShadows() const
    {
        for (const auto& e : elems)
            if (e.defined())
                return true;
        return false;
    }
    bool carriesPythonView() const { return hasShadow() || hasElemShadows() || items || pythonTuple; }
};

/// The view a note holds (these semantics are the only hooks that attach notes); an empty one for none.
inline const PythonView& viewOf(const NotePtr& note)
{
    static const PythonView none;
    return note ? static_cast<const PythonView&>(*note) : none;
}

/// Edits the view of a bound value: a copy, set back when the scope ends (notes are shared, never changed).
class EditView
{
public:
    EditView(Frame& frame, const tj::Value* v)
        : m_frame(frame)
        , m_value(v)
        , m_view(std::make_shared<PythonView>(viewOf(frame.note(v))))
    { }
    ~EditView() { m_frame.setNote(m_value, std::move(m_view)); }
    PythonView* operator->() { return m_view.get(); }
    PythonView& operator*() { return *m_view; }

private:
    Frame& m_frame;
    const tj::Value* m_value;
    std::shared_ptr<PythonView> m_view;
};

inline bool isIntLike(const IValue& v)
{
    return v.isInt() || v.isDouble() || v.isBool();
}

/// Python's view of a number: its shadow tensor, or a wrapped 0-dim tensor as the argument parser makes.
inline at::Tensor asPythonTensor(const IValue& value, const PythonView& view)
{
    return view.hasShadow() ? view.shadow : wrappedNumber(value);
}

inline QString printed(const IValue& v)
{
    std::ostringstream os;
    os << v;
    return qs(os.str());
}

/// The operands of a number op some of which Python holds as traced 0-dim tensors (Semantics::emulateNumberOp).
struct NumberOperands
{
    std::vector<IValue> values;
    std::vector<NotePtr> notes;
};

class Semantics;

/// An operator's rule: true when it ran the node (outputs bound), false to leave it to the next step.
using Rule = bool (Semantics::*)(tj::Node*, Frame&);
/// A rule on the traced call of an operator, with its arguments as Python's binding gets them: true when it ran the
/// call (outputs bound); it may change the arguments and return false to go on.
using CallRule = bool (Semantics::*)(tj::Node*, Frame&, const c10::FunctionSchema&, std::vector<IValue>& args);
/// A rule on a number op of traced sizes (TorchScript's result already computed, @p out its view): true when it set
/// the result's view.
using NumberRule = bool (Semantics::*)(tj::Node*, const NumberOperands&, PythonView& out);

/// The rules of one operator, per step of running it (Semantics::runOperator), each list tried in table order.
struct OperatorRules
{
    std::vector<Rule> node; ///< first, on the node as TorchScript has it
    std::vector<NumberRule> number; ///< when every operand is a number and some are traced sizes
    std::vector<Rule> tensor; ///< an operator with tensor semantics, before its traced call
    std::vector<CallRule> call; ///< the traced call, arguments as TorchScript passes them
    std::vector<CallRule> completed; ///< the traced call, after Python's defaults were filled in
};

class Semantics final : public PythonTracingSemantics
{
public:
    Semantics(Interpreter& interpreter, TraceWarningSink& warnings)
        : m_interpreter(interpreter)
        , m_warnings(warnings)
    { }

    void setModuleScopes(std::unordered_map<const c10::ivalue::Object*, std::string> scopes) override
    {
        m_moduleScopes = std::move(scopes);
    }
    std::string nameFor(const at::Tensor& t) const override;
    IValue pythonValue(const IValue& value, const NotePtr& note) const override;

    // ----- hooks (pythontracingsemantics.cpp)

    void bound(const tj::Value* v, const IValue& value) override;
    const std::vector<tj::Node*>* blockOrder(tj::Block* block) override { return &m_order.of(block); }
    void afterNode(tj::Node* n, Frame& frame) override;
    void enterBranch(tj::Node* n, Frame& frame, bool taken) override;
    void enterLoop(tj::Node* n, Frame& frame) override;
    void loopIteration(tj::Node* n, Frame& frame, int64_t) override;
    void leaveLoop(tj::Node* n, Frame& frame, int64_t iterations) override;
    void enterCall(tj::Node* n, const IValue* self) override;
    void leaveCall(tj::Node*) override;
    bool runOperator(tj::Node* n, Frame& frame) override;

private:
    /// The rules of an operator with rules of its own (the one table, pythontracingsemantics.cpp); null for none.
    static const OperatorRules* rulesOf(c10::Symbol op);

    const PythonView& view(Frame& frame, const tj::Value* v) const { return viewOf(frame.note(v)); }
    QString describe(const tj::Value* v, Frame& frame) const;

    // Containers: Python's view travels with the elements (pythontracingsemantics.cpp).
    void tupleConstruct(tj::Node* n, Frame& frame);
    void tupleElements(tj::Node* n, Frame& frame);
    void listConstruct(tj::Node* n, Frame& frame);
    bool holdsNestedViews(c10::ArrayRef<tj::Value*> values, Frame& frame) const;
    void listUnpack(tj::Node* n, Frame& frame);

    // Shape queries (pythonsemantics_sizes.cpp).
    bool sizeOf(tj::Node* n, Frame& frame);
    bool numelOf(tj::Node* n, Frame& frame);
    bool lenOf(tj::Node* n, Frame& frame);
    bool dimOf(tj::Node* n, Frame& frame);
    bool numToTensor(tj::Node* n, Frame& frame);

    // Lists of traced sizes (pythonsemantics_lists.cpp).
    bool listItem(tj::Node* n, Frame& frame);
    bool sizeList(tj::Node* n, Frame& frame);
    bool listMutation(tj::Node* n, Frame& frame);
    /// The items of a builtin's one list argument whose elements are traced sizes, the builtin run as libtorch
    /// runs it; nullopt (nothing run) for any other argument.
    std::optional<std::vector<IValue>> tracedListItems(tj::Node* n, Frame& frame, NotePtr* note);
    bool listMaxMin(tj::Node* n, Frame& frame);
    bool listSum(tj::Node* n, Frame& frame);

    // Tensors to Python values (pythonsemantics_conversions.cpp).
    bool toPython(tj::Node* n, Frame& frame);

    // Number arithmetic on traced sizes (pythonsemantics_numbers.cpp).
    bool emulateNumberOp(tj::Node* n, Frame& frame);
    void setNumberResult(tj::Node* n, const NumberOperands& operands, const at::Tensor& shadow, PythonView& out);
    bool negateNumber(tj::Node* n, const NumberOperands& operands, PythonView& out);
    bool intOfNumber(tj::Node* n, const NumberOperands& operands, PythonView& out);
    void bakeIntCall(tj::Node* n, Frame& frame);
    bool chooseNumber(tj::Node* n, const NumberOperands& operands, PythonView& out);
    bool combineConditions(tj::Node* n, const NumberOperands& operands, PythonView& out);
    bool tensorCheckedDivision(tj::Node* n, const NumberOperands& operands, PythonView& out);
    bool builtinRsubNeg(tj::Node* n, Frame& frame);
    bool builtinRsubAdd(tj::Node* n, Frame& frame);

    // Tensor construction (pythonsemantics_construction.cpp).
    bool tensorFromData(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args);

    // Subscripts (pythonsemantics_indexing.cpp).
    bool subscriptCopy(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args);
    bool indexByNumberTensor(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args);
    bool augmentedIndexPut(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args);
    bool indexPutValue(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args);
    bool unsqueezeIndex(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args);
    bool sliceOrSelectIndex(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args);
    void restoreAugmentedSubscript(tj::Node* n, Frame& frame);
    at::Tensor pythonSubscriptView(const tj::Value* v, const tj::Node* n, Frame& frame, const at::Tensor& fallback);

    // Python functions in front of operators (pythonsemantics_bindings.cpp).
    bool toDevice(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args);
    bool toOther(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args);
    bool numberPower(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args);
    bool vectorNorm(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args);
    bool correctionOverload(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args);
    bool splitBySize(tj::Node* n, Frame& frame);
    bool splitWithSizes(tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, std::vector<IValue>& args);

    // The generic path: an operator called as Python's binding calls it (pythonsemantics_generic.cpp).
    void runTracedOperator(tj::Node* n, Frame& frame);
    void patchShadowedArguments(
        tj::Node* n, Frame& frame, const c10::FunctionSchema& schema, tj::Node* insertPoint, tj::Node* before);

    struct LoopState
    {
        bool dataDependent = false;
    };

    Interpreter& m_interpreter;
    TraceWarningSink& m_warnings;
    PythonOrder m_order;
    std::unordered_map<const c10::TensorImpl*, std::string> m_names;
    std::unordered_map<const tj::Value*, IValue> m_rsubOperand;
    std::unordered_map<const c10::ivalue::Object*, std::string> m_moduleScopes;
    /// The select node of a `for row in x` loop -> x's rows, unbound when the loop started
    std::unordered_map<const tj::Node*, std::vector<at::Tensor>> m_iterRows;
    std::vector<LoopState> m_loops; ///< the loops running, innermost last
    std::vector<std::shared_ptr<tj::Graph>> m_scopes; ///< per call: the trace graph a module scope was pushed on
};

} // namespace pythonsemantics
} // namespace jitscope
