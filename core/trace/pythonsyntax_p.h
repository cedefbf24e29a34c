#pragma once

// Private to trace/: what Python's syntax and bindings do differently from TorchScript, read off the script graph's
// nodes and their source text. Torch types only forward-declared.

#include <string>
#include <unordered_map>
#include <vector>

namespace c10 {
struct IValue;
struct FunctionSchema;
struct Symbol;
} // namespace c10

namespace at {
class Tensor;
} // namespace at

namespace torch {
namespace jit {
struct Block;
struct Node;
} // namespace jit
} // namespace torch

namespace jitscope {

/// True when the node comes from subscript syntax (x[...]) rather than a method call (x.select(...)).
bool isIndexing(const torch::jit::Node* n);

/// True when the node's source is a call of torch.tensor or torch.as_tensor (`torch.tensor([0, 2])`), not a value
/// TorchScript made a tensor of itself (the list of `x[[0, 2]]`, the number of `x[i] = 0`).
bool isTensorConstructorCall(const torch::jit::Node* n);

/// True when the node's source is a call of the method @p method (`x.type(...)` for "type").
bool callsMethod(const torch::jit::Node* n, const char* method);

/// The number of arguments Python's bindings get in the node's call of @p name, the receiver of a method call
/// included (`x.std()` and `torch.std(x)`: 1, `x.std(1, True)`: 3), or -1 when the node's source is no such call.
int writtenArgumentCount(const torch::jit::Node* n, const char* name);

/// `x[i] += v`: an in-place op on a subscript, which Python follows with `x[i] = result`.
bool isAugmentedSubscript(const torch::jit::Node* n);

/// A prim::Loop written as `while ...:` (not a `for`, which TorchScript may also give a condition).
bool isWhileLoop(const torch::jit::Node* loop);

/// Both nodes start at the same place of the same source.
bool sameStart(const torch::jit::Node* a, const torch::jit::Node* b);

/// `for row in x` compiles to a loop over len(x) selecting x[i] (zip() and enumerate() over min() of such lengths);
/// Python iterates over x.unbind(0). The select nodes of such a loop, one per iterated tensor; none for other loops.
std::vector<torch::jit::Node*> tensorIterationSelects(torch::jit::Node* loop);

/// True when every use of the `len(x)` node @p len is the trip count of such a loop (Python's iteration, not len).
bool isIterationCount(const torch::jit::Node* len);

/// TorchScript's builtin `number - tensor` is `-tensor + number`; Python records aten::rsub. True for that neg.
bool isBuiltinRsubNeg(const torch::jit::Node* n);

/// The ops whose Scalar overload Python's argument parser replaces by the Tensor overload (numbers as tensors).
bool allowsNumbersAsTensors(c10::Symbol op);

/// A Python number as Python's argument parser hands it to a Tensor parameter: a wrapped 0-dim tensor.
at::Tensor wrappedNumber(const c10::IValue& number);

/// True for the number operators (add, sub, ..., comparisons) Python runs as 0-dim tensor ops when an operand is a
/// traced size; @p symbol receives Python's operator ("+", null when not printed as one).
bool isNumberOp(c10::Symbol op, const char** symbol = nullptr);

/// What Python computes for the number op @p op on `a` and `b` when either is a traced 0-dim tensor (its shadow
/// defined): the tensor op, or the reflected one for `number op tensor`. @p inPlace: `a op= b` (Tensor.__iadd__ and
/// friends change `a`'s tensor in place).
at::Tensor pythonNumberOp(c10::Symbol op, const c10::IValue& a, const at::Tensor& shadowA, const c10::IValue& b,
    const at::Tensor& shadowB, bool inPlace = false);

/// `name += ...`, `name -= ...`, `name *= ...`: an augmented assignment to a plain variable on the node's line.
bool isAugmentedAssignment(const torch::jit::Node* n);

/// Python's at::indexing::copy_to, which `x[...] = value` records.
void pythonCopyTo(at::Tensor& dst, const at::Tensor& src);

/// Python's bindings fill TensorOptions that TorchScript leaves as None.
void fillPythonDefaults(const c10::FunctionSchema& schema, const std::string& base, std::vector<c10::IValue>& args);

/// The order Python evaluates blocks in, computed once per block. It differs from TorchScript's in one place: for
/// `x[a, b:f(n)]` Python computes every index (f(n)) before it applies any of them, while TorchScript interleaves.
class PythonOrder
{
public:
    const std::vector<torch::jit::Node*>& of(torch::jit::Block* block);

private:
    std::unordered_map<const torch::jit::Block*, std::vector<torch::jit::Node*>> m_orders;
};

} // namespace jitscope
