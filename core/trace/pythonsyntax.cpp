// What Python's syntax and bindings do differently from TorchScript, read off the script graph.

#include "trace/pythonsyntax_p.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

namespace jitscope {

namespace tj = torch::jit;
using c10::IValue;

namespace {

tj::SourceRange originalRange(const tj::Node* n)
{
    tj::SourceRange r = n->sourceRange();
    if (r.source())
        if (auto orig = r.source()->findSourceRangeThatGenerated(r))
            r = *orig;
    return r;
}

/// The full source line where a node starts.
std::string lineText(const tj::Node* n)
{
    const tj::SourceRange r = originalRange(n);
    if (!r.source())
        return {};
    const std::string text = r.source()->text_str().str();
    const size_t start = std::min(r.start(), text.size());
    const size_t begin = text.rfind('\n', start == 0 ? 0 : start - 1);
    const size_t end = text.find('\n', start);
    return text.substr(begin == std::string::npos ? 0 : begin + 1,
        end == std::string::npos ? std::string::npos : end - (begin == std::string::npos ? 0 : begin + 1));
}

/// The arithmetic and comparisons Python runs on 0-dim tensors for numbers that came from sizes.
enum class NumberOp { Add, Sub, Mul, Div, FloorDivide, Remainder, Pow, Eq, Ne, Lt, Le, Gt, Ge };

struct NumberOpInfo
{
    NumberOp op;
    const char* symbol; ///< Python's operator, for origins ("x.size(0) + 1"); null when not printed
};

const std::unordered_map<c10::Symbol, NumberOpInfo>& numberOps()
{
    static const std::unordered_map<c10::Symbol, NumberOpInfo> ops = {
        { c10::aten::add, { NumberOp::Add, "+" } },
        { c10::aten::sub, { NumberOp::Sub, "-" } },
        { c10::aten::mul, { NumberOp::Mul, "*" } },
        { c10::aten::div, { NumberOp::Div, "/" } },
        { c10::aten::floordiv, { NumberOp::FloorDivide, "//" } },
        { c10::aten::remainder, { NumberOp::Remainder, "%" } },
        { c10::aten::pow, { NumberOp::Pow, nullptr } },
        { c10::aten::eq, { NumberOp::Eq, "==" } },
        { c10::aten::ne, { NumberOp::Ne, "!=" } },
        { c10::aten::lt, { NumberOp::Lt, "<" } },
        { c10::aten::le, { NumberOp::Le, "<=" } },
        { c10::aten::gt, { NumberOp::Gt, ">" } },
        { c10::aten::ge, { NumberOp::Ge, ">=" } },
    };
    return ops;
}

/// The tensor op Python runs for `a <op> b`; `b` is a tensor (Tensor overload) or a number (Scalar overload).
template <typename Other> at::Tensor callBinary(NumberOp op, const at::Tensor& a, const Other& b)
{
    switch (op) {
    case NumberOp::Add:
        return at::add(a, b);
    case NumberOp::Sub:
        return at::sub(a, b);
    case NumberOp::Mul:
        return at::mul(a, b);
    case NumberOp::Div:
        return at::div(a, b);
    case NumberOp::FloorDivide:
        return at::floor_divide(a, b);
    case NumberOp::Remainder:
        return at::remainder(a, b);
    case NumberOp::Pow:
        return at::pow(a, b);
    case NumberOp::Eq:
        return at::eq(a, b);
    case NumberOp::Ne:
        return at::ne(a, b);
    case NumberOp::Lt:
        return at::lt(a, b);
    case NumberOp::Le:
        return at::le(a, b);
    case NumberOp::Gt:
        return at::gt(a, b);
    case NumberOp::Ge:
        return at::ge(a, b);
    }
    return at::Tensor();
}

} // namespace

at::Tensor wrappedNumber(const IValue& number)
{
    at::Tensor t;
    {
        at::AutoDispatchBelowADInplaceOrView guard;
        t = at::scalar_to_tensor(number.toScalar());
    }
    t.unsafeGetTensorImpl()->set_wrapped_number(true);
    return t;
}

bool isNumberOp(c10::Symbol op, const char** symbol)
{
    auto it = numberOps().find(op);
    if (it == numberOps().end())
        return false;
    if (symbol)
        *symbol = it->second.symbol;
    return true;
}

at::Tensor pythonNumberOp(c10::Symbol kind, const IValue& a, const at::Tensor& shadowA, const IValue& b,
    const at::Tensor& shadowB, bool inPlace)
{
    const NumberOp o = numberOps().at(kind).op;
    const bool arithmetic = o == NumberOp::Add || o == NumberOp::Sub || o == NumberOp::Mul || o == NumberOp::Div
        || o == NumberOp::FloorDivide;
    auto asTensor
        = [](const IValue& v, const at::Tensor& shadow) { return shadow.defined() ? shadow : wrappedNumber(v); };
    if (shadowA.defined() && inPlace && (o == NumberOp::Add || o == NumberOp::Sub || o == NumberOp::Mul)) {
        // `n += x.size(1)` with n a tensor already: Tensor.__iadd__, in place.
        at::Tensor self = shadowA;
        const at::Tensor other = asTensor(b, shadowB);
        return o == NumberOp::Add ? self.add_(other) : o == NumberOp::Sub ? self.sub_(other) : self.mul_(other);
    }
    if (shadowA.defined()) {
        if (arithmetic || shadowB.defined())
            return callBinary(o, shadowA, asTensor(b, shadowB));
        return callBinary(o, shadowA, b.toScalar());
    }
    // number OP tensor: Python calls the tensor's reflected method.
    const at::Tensor& tb = shadowB;
    const c10::Scalar sa = a.toScalar();
    switch (o) {
    case NumberOp::Add:
    case NumberOp::Mul:
        return callBinary(o, tb, wrappedNumber(a));
    case NumberOp::Sub:
        return at::rsub(tb, sa);
    case NumberOp::Div:
        return at::mul(at::reciprocal(tb), wrappedNumber(a));
    case NumberOp::FloorDivide:
        return at::floor_divide(wrappedNumber(a), tb);
    case NumberOp::Eq:
    case NumberOp::Ne:
        return callBinary(o, tb, sa);
    case NumberOp::Lt:
        return at::gt(tb, sa);
    case NumberOp::Le:
        return at::ge(tb, sa);
    case NumberOp::Gt:
        return at::lt(tb, sa);
    case NumberOp::Ge:
        return at::le(tb, sa);
    case NumberOp::Pow:
        return at::pow(sa, tb);
    case NumberOp::Remainder:
        return at::remainder(sa, tb);
    }
    return at::Tensor();
}

bool isIndexing(const tj::Node* n)
{
    const tj::SourceRange r = originalRange(n);
    if (!r.source())
        return false;
    const std::string text = r.text().str();
    return text.find('[') != std::string::npos && text.find(".select(") == std::string::npos
        && text.find(".slice(") == std::string::npos;
}

bool isTensorConstructorCall(const tj::Node* n)
{
    // The node's range can be the callee alone (`torch.tensor`): read on to the end of the line.
    const tj::SourceRange r = originalRange(n);
    if (!r.source())
        return false;
    const std::string source = r.source()->text_str().str();
    const size_t start = std::min(r.start(), source.size());
    const std::string text = source.substr(start, source.find('\n', start) - start);
    const size_t open = text.find('(');
    if (open == std::string::npos)
        return false;
    std::string callee = text.substr(0, open);
    while (!callee.empty() && std::isspace(static_cast<unsigned char>(callee.back())))
        callee.pop_back();
    auto endsWith = [&](const std::string& name) {
        return callee.size() >= name.size() && callee.compare(callee.size() - name.size(), name.size(), name) == 0
            && (callee.size() == name.size() || callee[callee.size() - name.size() - 1] == '.');
    };
    return endsWith("tensor") || endsWith("as_tensor");
}

bool callsMethod(const tj::Node* n, const char* method)
{
    // The node's range can end before the call's parentheses (`x.type`): read on to the end of the line.
    const tj::SourceRange r = originalRange(n);
    if (!r.source())
        return false;
    const std::string text = r.source()->text_str().str();
    const size_t start = std::min(r.start(), text.size());
    const std::string rest = text.substr(start, text.find('\n', start) - start);
    const std::string call = std::string(".") + method;
    const size_t at = rest.find(call);
    return at != std::string::npos && rest.find_first_not_of(' ', at + call.size()) != std::string::npos
        && rest[rest.find_first_not_of(' ', at + call.size())] == '(';
}

int writtenArgumentCount(const tj::Node* n, const char* name)
{
    const tj::SourceRange r = originalRange(n);
    if (!r.source())
        return -1;
    const std::string text = r.source()->text_str().str();
    // The node's range can end before the call's parentheses (`x.std`): read on, to the end of the call.
    const size_t start = std::min(r.start(), text.size());
    const std::string call = text.substr(start, std::min<size_t>(text.size() - start, 4096));
    const std::string word = name;
    size_t at = call.find(word);
    while (at != std::string::npos
        && ((at > 0 && (std::isalnum(static_cast<unsigned char>(call[at - 1])) || call[at - 1] == '_'))
            || call.find_first_not_of(" \t", at + word.size()) == std::string::npos
            || call[call.find_first_not_of(" \t", at + word.size())] != '('))
        at = call.find(word, at + 1);
    if (at == std::string::npos || at >= std::max(r.end(), r.start()) - r.start())
        return -1;
    // A method's receiver is an argument too; `torch.std(x)` (or `torch.nn.functional.f(x)`) is a function.
    bool method = false;
    if (at > 0 && call[at - 1] == '.') {
        size_t owner = at - 1;
        while (owner > 0 && (std::isalnum(static_cast<unsigned char>(call[owner - 1])) || call[owner - 1] == '_'
                                || call[owner - 1] == '.'))
            --owner;
        const std::string receiver = call.substr(owner, at - 1 - owner);
        method = receiver != "torch" && receiver.rfind("torch.", 0) != 0 && receiver != "F";
    }
    int depth = 0;
    int count = method ? 1 : 0;
    bool any = false;
    for (size_t i = call.find('(', at + word.size()); i < call.size(); ++i) {
        const char c = call[i];
        if (c == '(' || c == '[' || c == '{') {
            if (depth++ == 0)
                continue;
        } else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0)
                return any ? count + 1 : count;
        } else if (c == ',' && depth == 1) {
            ++count;
            continue;
        }
        if (depth >= 1 && !std::isspace(static_cast<unsigned char>(c)))
            any = true;
    }
    return -1;
}

/// Python's at::indexing::copy_to, which `x[...] = value` records.
void pythonCopyTo(at::Tensor& dst, const at::Tensor& src)
{
    if (dst.sizes().equals(src.sizes())) {
        dst.copy_(src);
    } else if (src.dim() == 0 && src.device().is_cpu()) {
        dst.fill_(src);
    } else {
        std::vector<int64_t> sizes = src.sizes().vec();
        size_t first = 0;
        while (first < sizes.size() && sizes[first] == 1)
            ++first;
        at::Tensor view = src.view(std::vector<int64_t>(sizes.begin() + long(first), sizes.end()));
        if (!dst.sizes().equals(view.sizes()))
            view = view.expand(dst.sizes());
        dst.copy_(view);
    }
}

/// `x[i] += v`: an in-place op on a subscript, which Python follows with `x[i] = result`.
namespace {

/// The line of @p n holds an augmented assignment operator (`+=`, ...).
bool onAugmentedLine(const tj::Node* n)
{
    const std::string text = lineText(n);
    static const char* const ops[] = { "+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>=" };
    for (const char* op : ops)
        if (text.find(op) != std::string::npos)
            return true;
    return false;
}

} // namespace

bool isAugmentedSubscript(const tj::Node* n)
{
    if (!isIndexing(n) || n->inputs().empty())
        return false;
    return onAugmentedLine(n) && sameStart(n->input(0)->node(), n);
}

bool isAugmentedAssignment(const tj::Node* n)
{
    const std::string text = lineText(n);
    const size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos)
        return false;
    size_t end = first;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
        ++end;
    const size_t op = text.find_first_not_of(' ', end);
    if (end == first || op == std::string::npos || op + 1 >= text.size())
        return false;
    return std::strchr("+-*", text[op]) && text[op + 1] == '=';
}

bool isWhileLoop(const tj::Node* loop)
{
    const std::string text = lineText(loop);
    const size_t first = text.find_first_not_of(" \t");
    return first != std::string::npos && text.compare(first, 6, "while ") == 0;
}

bool sameStart(const tj::Node* a, const tj::Node* b)
{
    const auto& ra = a->sourceRange();
    const auto& rb = b->sourceRange();
    return ra.source() && ra.source() == rb.source() && ra.start() == rb.start();
}

namespace {

/// The tensors a loop's trip count is the length of: `len(x)`, or for zip()/enumerate() `min([len(x), ...])`.
std::vector<const tj::Value*> iteratedTensors(const tj::Node* loop)
{
    std::vector<const tj::Value*> tensors;
    const tj::Node* trip = loop->input(0)->node();
    auto lenOfTensor = [&](const tj::Node* n) {
        if (n->kind() == c10::aten::len && n->input(0)->type()->cast<c10::TensorType>())
            tensors.push_back(n->input(0));
    };
    if (trip->kind() == c10::prim::min && trip->inputs().size() == 1
        && trip->input(0)->node()->kind() == c10::prim::ListConstruct) {
        for (const tj::Value* v : trip->input(0)->node()->inputs())
            lenOfTensor(v->node());
    } else {
        lenOfTensor(trip);
    }
    return tensors;
}

} // namespace

std::vector<tj::Node*> tensorIterationSelects(tj::Node* loop)
{
    std::vector<tj::Node*> selects;
    const std::vector<const tj::Value*> tensors = iteratedTensors(loop);
    // `for i in range(len(x)): x[i]` compiles alike; Python selects there.
    if (tensors.empty() || lineText(loop).find("range(") != std::string::npos)
        return selects;
    tj::Block* body = loop->blocks().at(0);
    for (const tj::Value* x : tensors) {
        for (tj::Node* b : body->nodes()) {
            if (b->kind() == c10::aten::select && b->input(0) == x && b->input(2) == body->inputs()[0]) {
                auto dim = tj::toIValue(b->input(1));
                if (dim && dim->isInt() && dim->toInt() == 0) {
                    selects.push_back(b);
                    break;
                }
            }
        }
    }
    return selects;
}

bool isIterationCount(const tj::Node* len)
{
    if (len->output()->uses().empty())
        return false;
    for (const auto& use : len->output()->uses()) {
        tj::Node* user = use.user;
        if (user->kind() == c10::prim::ListConstruct && user->output()->uses().size() == 1
            && user->output()->uses()[0].user->kind() == c10::prim::min) {
            const tj::Node* min = user->output()->uses()[0].user;
            for (const auto& minUse : min->output()->uses())
                if (minUse.user->kind() != c10::prim::Loop || minUse.offset != 0
                    || tensorIterationSelects(minUse.user).empty())
                    return false;
            continue;
        }
        if (user->kind() != c10::prim::Loop || use.offset != 0 || tensorIterationSelects(user).empty())
            return false;
    }
    return true;
}

bool isBuiltinRsubNeg(const tj::Node* n)
{
    if (n->kind() != c10::aten::neg || n->output()->uses().size() != 1)
        return false;
    const tj::Node* user = n->output()->uses()[0].user;
    const auto flc = n->sourceRange().file_line_col();
    return user->kind() == c10::aten::add && user->input(0) == n->output() && flc && std::get<0>(*flc) == "<string>";
}

bool allowsNumbersAsTensors(c10::Symbol op)
{
    static const std::unordered_set<c10::Symbol> allowed = [] {
        std::unordered_set<c10::Symbol> ops;
        for (const char* name :
            { "add", "add_", "div", "div_", "divide", "divide_", "mul", "mul_", "multiply", "multiply_", "sub", "sub_",
                "subtract", "subtract_", "true_divide", "true_divide_", "floor_divide", "floor_divide_" })
            ops.insert(c10::Symbol::aten(name));
        return ops;
    }();
    return allowed.count(op) > 0;
}

void fillPythonDefaults(const c10::FunctionSchema& schema, const std::string& base, std::vector<IValue>& args)
{
    const auto& params = schema.arguments();
    auto index = [&](const char* argName) -> int {
        for (size_t i = 0; i < params.size(); ++i)
            if (params[i].name() == argName)
                return int(i);
        return -1;
    };
    const int dtype = index("dtype"), layout = index("layout"), device = index("device"), pin = index("pin_memory");
    if (device < 0 || size_t(std::max({ dtype, layout, device, pin })) >= args.size())
        return;
    const bool selfTensor = !args.empty() && args[0].isTensor();
    if (base == "to") {
        // Tensor.to(device) in Python: dispatch_to(self, device, self.dtype) with self's options.
        if (selfTensor && schema.overload_name() == "dtype_layout") {
            const at::Tensor& self = args[0].toTensor();
            if (dtype >= 0 && args[dtype].isNone())
                args[dtype] = IValue(int64_t(self.scalar_type()));
            if (layout >= 0 && args[layout].isNone())
                args[layout] = IValue(int64_t(self.layout()));
        }
        return;
    }
    if (pin < 0)
        return;
    const bool like = base.size() > 5 && base.compare(base.size() - 5, 5, "_like") == 0;
    const bool method = base.rfind("new_", 0) == 0;
    if ((like || method) && selfTensor) {
        // torch 2.x's bindings pass what was written: self's dtype, layout and device stay None in the trace (1.13's
        // filled them in from self). pin_memory is still False.
    } else if (selfTensor) {
        return;
    } else if (args[device].isNone()) {
        args[device] = IValue(c10::Device(c10::kCPU));
    }
    if (args[pin].isNone())
        args[pin] = IValue(false);
}

namespace {

/// The node's source is a list display or comprehension (`[f(g) for g in gs]`), whose nodes (the loop's
/// __getitem__ and append) share its range: not a subscript.
bool isListDisplay(const tj::Node* n)
{
    const tj::SourceRange r = originalRange(n);
    if (!r.source())
        return false;
    const std::string text = r.text().str();
    const size_t first = text.find_first_not_of(" \t\n");
    return first != std::string::npos && text[first] == '[';
}

/// `x[i] op= v`: Python reads x[i] before it evaluates v (a plain `x[i] = v` evaluates v first). TorchScript may
/// emit v's nodes before the subscript's: they move down to just before the in-place op.
void deferAugmentedValues(std::vector<tj::Node*>& order)
{
    for (size_t i = 0; i < order.size(); ++i) {
        tj::Node* op = order[i];
        const char* kind = op->kind().toQualString();
        const size_t length = std::strlen(kind);
        if (length < 2 || kind[length - 1] != '_' || !isAugmentedSubscript(op))
            continue;
        const tj::SourceRange subscript = op->input(0)->node()->sourceRange();
        if (!subscript.source())
            continue;
        const std::string text = subscript.source()->text_str().str();
        // The statement's nodes share its range: the subscript ends at the bracket that closes its first one.
        size_t end = text.find('[', subscript.start());
        for (int depth = 0; end < text.size(); ++end) {
            depth += text[end] == '[' || text[end] == '(' ? 1 : text[end] == ']' || text[end] == ')' ? -1 : 0;
            if (depth == 0)
                break;
        }
        if (end >= text.size())
            continue;
        std::vector<size_t> moved;
        std::unordered_set<const tj::Value*> outputs;
        for (size_t j = 0; j < i; ++j) {
            const tj::SourceRange r = order[j]->sourceRange();
            if (order[j]->kind() == c10::prim::Constant || r.source() != subscript.source() || r.start() <= end
                || r.start() > text.size() || text.find('\n', end) < r.start())
                continue;
            moved.push_back(j);
            for (auto* o : order[j]->outputs())
                outputs.insert(o);
        }
        if (moved.empty())
            continue;
        // Only when nothing between them and the op reads them.
        bool safe = true;
        for (size_t j = moved.front(); j < i && safe; ++j) {
            if (std::find(moved.begin(), moved.end(), j) != moved.end())
                continue;
            for (auto* in : order[j]->inputs())
                safe &= outputs.count(in) == 0;
        }
        if (!safe)
            continue;
        std::vector<tj::Node*> values, rest;
        for (size_t j = moved.front(); j < i; ++j)
            (std::find(moved.begin(), moved.end(), j) != moved.end() ? values : rest).push_back(order[j]);
        size_t k = moved.front();
        for (tj::Node* n : rest)
            order[k++] = n;
        for (tj::Node* n : values)
            order[k++] = n;
    }
}

} // namespace

const std::vector<tj::Node*>& PythonOrder::of(tj::Block* block)
{
    auto it = m_orders.find(block);
    if (it != m_orders.end())
        return it->second;
    std::vector<tj::Node*> order(block->nodes().begin(), block->nodes().end());
    for (size_t i = 0; i < order.size(); ++i) {
        tj::Node* first = order[i];
        if (!isIndexing(first) || first->kind() == c10::prim::Constant || isListDisplay(first))
            continue;
        const tj::SourceRange range = first->sourceRange();
        // The subscript's own nodes share its range; find where they end.
        size_t last = i;
        for (size_t j = i + 1; j < order.size(); ++j)
            if (order[j]->sourceRange() == range)
                last = j;
        if (last == i)
            continue;
        std::unordered_set<const tj::Value*> produced;
        std::vector<tj::Node*> group, hoisted;
        for (size_t j = i; j <= last; ++j) {
            tj::Node* n = order[j];
            bool dependsOnGroup = false;
            for (auto* in : n->inputs())
                dependsOnGroup |= produced.count(in) > 0;
            if (n->sourceRange() == range || dependsOnGroup || !n->blocks().empty()) {
                group.push_back(n);
                for (auto* o : n->outputs())
                    produced.insert(o);
            } else {
                hoisted.push_back(n);
            }
        }
        if (hoisted.empty())
            continue;
        size_t k = i;
        for (tj::Node* n : hoisted)
            order[k++] = n;
        for (tj::Node* n : group)
            order[k++] = n;
        i = last;
    }
    deferAugmentedValues(order);
    return m_orders.emplace(block, std::move(order)).first->second;
}

} // namespace jitscope
