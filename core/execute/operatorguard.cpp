// Integer division on x86 traps (SIGFPE) when the quotient does not fit: INT64_MIN / -1. libtorch's CPU kernels
// for floor_divide, div with a rounding mode, remainder and fmod divide without checking, and TorchScript's int
// floordiv/remainder do too; Python's own ints have no such limit, so nothing upstream refuses it.

#include "execute/interpreter_p.h"
#include "execute/memorybudget_p.h"
#include "execute/operatorguard_p.h"
#include "ir/activity.h"
#include "ir/irsnapshot_p.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/ir/ir.h>

#include <limits>
#include <string>
#include <unordered_map>

namespace jitscope {

namespace tj = torch::jit;
using c10::IValue;

namespace {

bool inUserCode(const tj::SourceRange& range)
{
    return range.source() && range.source()->filename() && !range.source()->filename()->empty()
        && range.source()->filename()->front() != '<';
}

/// The user's `//` that a node of a builtin's own TorchScript stands for. Tensor `a // b` compiles to the body of
/// TorchScript's builtin floordiv (aten::floor_divide at `<string>:3:9`, print(fn.graph) shows it so in Python too),
/// and the compiler keeps no call site. The nodes around it in its block that are in the user's code bound where the
/// expression is: its operands come first, so the `//` is the first one after the node before it, or, when an
/// operand is computed by that node (`a // (b + c)`), the last one before it. Empty when there is none.
SourceLocation builtinCallSite(const tj::Node* n)
{
    const tj::Block* block = n->owningBlock();
    if (!block)
        return {};
    const tj::Node* before = nullptr;
    for (const tj::Node* p = n->prev(); p && p != block->param_node(); p = p->prev())
        if (inUserCode(p->sourceRange())) {
            before = p;
            break;
        }
    const tj::Node* after = nullptr;
    for (const tj::Node* q = n->next(); q && q != block->return_node(); q = q->next())
        if (inUserCode(q->sourceRange())) {
            after = q;
            break;
        }
    const tj::Node* anchor = before ? before : after;
    if (!anchor)
        return {};
    const auto source = anchor->sourceRange().source();
    const std::string text = source->text_str().str();
    const size_t from = before ? before->sourceRange().end() : 0;
    const size_t to = after && after->sourceRange().source() == source ? after->sourceRange().start() : text.size();
    // A `//` outside a comment (strings are rare around an operator and not told apart here).
    const auto isOperator = [&](size_t at) {
        const size_t lineStart = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
        return text.find('#', lineStart) >= at;
    };
    size_t at = std::string::npos;
    for (size_t k = text.find("//", from); k != std::string::npos && k < to; k = text.find("//", k + 2))
        if (isOperator(k)) {
            at = k;
            break;
        }
    if (at == std::string::npos && before) {
        const size_t start = before->sourceRange().start();
        for (size_t k = text.rfind("//", start); k != std::string::npos;
             k = k ? text.rfind("//", k - 1) : std::string::npos) {
            if (source->lineno_for_offset(k) + 1 < source->lineno_for_offset(start))
                break; // not the statement's line or the one before
            if (isOperator(k)) {
                at = k;
                break;
            }
        }
    }
    if (at == std::string::npos)
        return {};
    return sourceLocationOf(tj::SourceRange(source, at, at + 2));
}

/// Where @p n is in the user's code. A node of a builtin's own TorchScript (`a // b` inlines aten::floordiv's body)
/// is in file "<string>" and keeps no call stack: the call site is found in the text around it
/// (builtinCallSite()), else the error names the model's file without a line rather than the builtin's.
SourceLocation userLocationOf(const tj::Node* n)
{
    SourceLocation loc = Interpreter::locationOf(n);
    if (loc.file.startsWith(QLatin1Char('<'))) {
        if (auto callstack = n->callstack()) {
            for (const auto& entry : (*callstack)->vec()) {
                const SourceLocation site = sourceLocationOf(std::get<1>(entry));
                if (site.isValid() && !site.file.startsWith(QLatin1Char('<')))
                    return site;
            }
        }
        return builtinCallSite(n);
    }
    return loc;
}

/// Where @p n is, for the activity: remembered per node (Interpreter::locationOf maps archive code back to the user's
/// source, too slow for every call). The node's source and offset confirm a remembered entry.
struct ActivityPlace
{
    const void* source = nullptr;
    size_t start = 0;
    std::string file;
    int line = 0;
};

const ActivityPlace& placeOf(const tj::Node* n)
{
    thread_local std::unordered_map<const tj::Node*, ActivityPlace> places;
    const auto& range = n->sourceRange();
    const void* source = range.source().get();
    auto it = places.find(n);
    if (it != places.end() && it->second.source == source && it->second.start == range.start())
        return it->second;
    if (places.size() > 100000)
        places.clear();
    const SourceLocation loc = userLocationOf(n);
    ActivityPlace& place = places[n];
    place = ActivityPlace { source, range.start(), loc.file.toStdString(), loc.line };
    return place;
}

enum class Division { None, Floor, Remainder, Fmod, Trunc, Divmod };

Division divisionOf(const tj::Node* n, const std::vector<IValue>& stack)
{
    static const std::unordered_map<c10::Symbol, Division> ops = {
        { c10::Symbol::fromQualString("aten::floor_divide"), Division::Floor },
        { c10::Symbol::fromQualString("aten::floor_divide_"), Division::Floor },
        { c10::Symbol::fromQualString("aten::floordiv"), Division::Floor },
        { c10::Symbol::fromQualString("aten::remainder"), Division::Remainder },
        { c10::Symbol::fromQualString("aten::remainder_"), Division::Remainder },
        { c10::Symbol::fromQualString("aten::fmod"), Division::Fmod },
        { c10::Symbol::fromQualString("aten::fmod_"), Division::Fmod },
        { c10::Symbol::fromQualString("aten::divmod"), Division::Divmod },
        { c10::Symbol::fromQualString("aten::div"), Division::Trunc },
        { c10::Symbol::fromQualString("aten::div_"), Division::Trunc },
    };
    const auto it = ops.find(n->kind());
    if (it == ops.end() || n->inputs().size() < 2)
        return Division::None;
    if (it->second != Division::Trunc)
        return it->second;
    // div divides as integers only with a rounding mode: div(a, b, rounding_mode='floor' | 'trunc').
    for (size_t i = 2; i < stack.size(); ++i)
        if (stack[i].isString())
            return stack[i].toStringRef() == "floor" ? Division::Floor : Division::Trunc;
    return Division::None;
}

/// The smallest value of the integer type the division computes in, or 0 when it does not divide integers.
int64_t integerMinimum(const IValue& a, const IValue& b)
{
    if (a.isInt() && b.isInt())
        return std::numeric_limits<int64_t>::min();
    if (!a.isTensor() || !(b.isTensor() || b.isInt() || b.isScalar()))
        return 0;
    const at::Tensor& t = a.toTensor();
    if (!t.defined())
        return 0;
    const at::ScalarType type = b.isTensor() ? at::result_type(t, b.toTensor()) : at::result_type(t, b.toScalar());
    if (type != t.scalar_type())
        return 0;
    if (type == at::kLong)
        return std::numeric_limits<int64_t>::min();
    if (type == at::kInt)
        return std::numeric_limits<int32_t>::min();
    return 0;
}

bool holds(const IValue& v, int64_t value)
{
    if (v.isInt())
        return v.toInt() == value;
    if (v.isTensor()) {
        const at::Tensor& t = v.toTensor();
        if (!t.defined() || !at::isIntegralType(t.scalar_type(), /*includeBool=*/false) || t.numel() == 0)
            return false;
        // Computed outside the trace: nothing is recorded.
        const auto state = tj::tracer::getTracingState();
        if (state)
            tj::tracer::setTracingState(nullptr);
        const bool found = t.eq(value).any().item<bool>();
        if (state)
            tj::tracer::setTracingState(state);
        return found;
    }
    if (v.isScalar() && v.toScalar().isIntegral(false))
        return v.toScalar().toLong() == value;
    return false;
}

void refuseTrappingDivision(const tj::Node* n, const std::vector<IValue>& stack)
{
    const Division division = divisionOf(n, stack);
    if (division == Division::None)
        return;
    if (stack.size() < n->inputs().size())
        return;
    const size_t first = stack.size() - n->inputs().size();
    const IValue& a = stack[first];
    const IValue& b = stack[first + 1];
    const int64_t minimum = integerMinimum(a, b);
    if (minimum == 0 || !holds(b, -1) || !holds(a, minimum))
        return;
    static const char* const spelled[] = { "", "//", "%", "fmod", "div(rounding_mode='trunc')", "divmod" };
    const char* type = minimum == std::numeric_limits<int64_t>::min() ? "int64" : "int32";
    throw NodeError(std::string(n->kind().toQualString()) + ": integer overflow: " + std::to_string(minimum) + " "
            + spelled[int(division)] + " -1 does not fit in " + type + " (libtorch's kernel would crash on it: SIGFPE)",
        userLocationOf(n));
}

} // namespace

OperatorGuard::OperatorGuard(const tj::Node* n, const std::vector<IValue>& stack)
{
    const ActivityPlace& place = placeOf(n);
    activity::setOperator(n->kind().toQualString(), place.file.c_str(), place.line);
    try {
        refuseTrappingDivision(n, stack);
        if (const std::string over = MemoryBudget::check(); !over.empty())
            throw NodeError(std::string(n->kind().toQualString()) + ": " + over, userLocationOf(n));
    } catch (...) {
        activity::clearOperator();
        throw;
    }
}

OperatorGuard::~OperatorGuard()
{
    activity::clearOperator();
}

RunWatch::RunWatch(int timeoutMs)
    : m_previous(activity::setDeadline(timeoutMs))
{ }

RunWatch::~RunWatch()
{
    activity::restoreDeadline(m_previous);
}

} // namespace jitscope
