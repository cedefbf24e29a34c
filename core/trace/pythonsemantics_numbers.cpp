// Number arithmetic on traced sizes: Python runs it on the 0-dim tensors its tracer handed out (`x.size(0) * 2` is
// Tensor.__mul__), so next to TorchScript's int or float result the semantics keep the tensor Python would hold.

// pythonsemantics_p.h needs these before it (it includes no libtorch header).
#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/ir.h>

#include "ir/irsnapshot_p.h"
#include "trace/pythonsemantics_p.h"

#include <torch/csrc/jit/frontend/tracer.h>

#include <algorithm>
#include <cctype>

namespace jitscope {
namespace pythonsemantics {

namespace {

/// torch.nn.functional.multi_head_attention_forward: `if isinstance(embed_dim, torch.Tensor): head_dim =
/// embed_dim.div(num_heads, rounding_mode='trunc') else: head_dim = embed_dim // num_heads`. Traced, embed_dim is a
/// tensor and Python takes the first branch; scripted, embed_dim is an int, the compiler drops that branch, and the
/// archive keeps the `//` alone.
bool isTensorCheckedDivision(const tj::Node* n)
{
    const tj::SourceRange range = originalSourceRange(n);
    if (range.text().str() != "embed_dim // num_heads")
        return false;
    const auto place = range.file_line_col();
    return place && QString::fromStdString(std::get<0>(*place)).endsWith(QLatin1String("torch/nn/functional.py"));
}

} // namespace

/// Runs int/float arithmetic on shadowed numbers as Python would run it on 0-dim tensors (an operator's number
/// rules first). Returns true when handled.
bool Semantics::emulateNumberOp(tj::Node* n, Frame& frame)
{
    const size_t nin = n->inputs().size();
    if (nin == 0 || nin > 2)
        return false;
    // Most ops take no shadowed number: ruled out before anything is copied.
    bool anyShadow = false;
    for (auto* v : n->inputs())
        anyShadow |= view(frame, v).hasShadow();
    if (!anyShadow)
        return false;
    NumberOperands operands;
    bool allNumbers = true;
    for (auto* v : n->inputs()) {
        operands.values.push_back(frame.value(v));
        operands.notes.push_back(frame.note(v));
        allNumbers &= isIntLike(operands.values.back());
    }
    if (!allNumbers)
        return false;
    // Compute the TorchScript result first: it is what the program goes on with.
    m_interpreter.runPlain(n, frame);
    EditView out(frame, n->output());
    if (const OperatorRules* own = rulesOf(n->kind()))
        for (NumberRule rule : own->number)
            if ((this->*rule)(n, operands, *out))
                return true;
    const PythonView& a = viewOf(operands.notes[0]);
    if (nin == 1) {
        // float(), math functions: Python converts the tensor to a number, baked from here on.
        m_warnings.addConversion(QStringLiteral("float"));
        out->fromSize = true;
        out->origin = a.origin;
        return true;
    }
    if (!isNumberOp(n->kind())) {
        m_warnings.addConversion(QStringLiteral("float"));
        out->fromSize = true;
        return true;
    }
    setNumberResult(n, operands,
        pythonNumberOp(n->kind(), operands.values[0], a.shadow, operands.values[1], viewOf(operands.notes[1]).shadow,
            a.hasShadow() && isAugmentedAssignment(n)),
        *out);
    return true;
}

/// The traced result @p shadow of a number op, with Python's text of it (`x.size(0) * 2`).
void Semantics::setNumberResult(tj::Node* n, const NumberOperands& operands, const at::Tensor& shadow, PythonView& out)
{
    const char* symbol = nullptr;
    isNumberOp(n->kind(), &symbol);
    out.shadow = shadow;
    out.fromSize = true;
    QStringList texts;
    for (size_t i = 0; i < operands.values.size(); ++i) {
        const QString& origin = viewOf(operands.notes[i]).origin;
        texts << (origin.isEmpty() ? printed(operands.values[i]) : origin);
    }
    if (texts.size() == 2 && symbol)
        out.origin = QStringLiteral("%1 %2 %3").arg(texts[0], QLatin1String(symbol), texts[1]);
}

bool Semantics::negateNumber(tj::Node* n, const NumberOperands& operands, PythonView& out)
{
    if (operands.values.size() != 1)
        return false;
    const PythonView& a = viewOf(operands.notes[0]);
    setNumberResult(n, operands, at::neg(a.shadow), out);
    out.origin = QLatin1Char('-') + (a.origin.isEmpty() ? printed(operands.values[0]) : a.origin);
    return true;
}

/// int() of a traced size: baked, with the conversion's warning, but for TorchScript's own bool -> int of a number
/// operand.
bool Semantics::intOfNumber(tj::Node* n, const NumberOperands& operands, PythonView& out)
{
    if (operands.values.size() != 1)
        return false;
    const PythonView& a = viewOf(operands.notes[0]);
    if (operands.values[0].isBool() && !n->output()->uses().empty()
        && std::all_of(n->output()->uses().begin(), n->output()->uses().end(),
            [n](const tj::Use& u) { return sameStart(u.user, n); })) {
        // TorchScript's own bool -> int for a number operand (`x * (x.size(0) > 1)`): Python (torch 2.x) hands
        // the comparison's traced bool tensor on.
        out.shadow = a.shadow;
        out.fromSize = true;
        out.origin = a.origin;
        return true;
    }
    m_warnings.addConversion(QStringLiteral("integer"));
    out.fromSize = true;
    out.origin = a.origin;
    return true;
}

namespace {

bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\';
}

bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

/// Whether @p range is the whole argument of a call of `int` (`int(x.size(0))`, `int(x.shape[0] // 2)`; a method
/// call's range is its callee's, `x.size`, and its arguments follow it).
bool isIntCallArgument(const tj::SourceRange& range)
{
    const auto source = range.source();
    if (!source)
        return false;
    const auto text = source->text_str();
    size_t end = range.end();
    // A method call's node has the callee's range (`x.size`): its arguments follow.
    if (end < text.size() && text[end] == '(') {
        int depth = 0;
        for (; end < text.size(); ++end) {
            depth += text[end] == '(' ? 1 : text[end] == ')' ? -1 : 0;
            if (depth == 0)
                break;
        }
        ++end;
    }
    while (end < text.size() && isBlank(text[end]))
        ++end;
    if (end >= text.size() || text[end] != ')')
        return false;
    size_t start = std::min(range.start(), text.size());
    while (start > 0 && isBlank(text[start - 1]))
        --start;
    if (start == 0 || text[start - 1] != '(')
        return false;
    --start;
    while (start > 0 && isBlank(text[start - 1]))
        --start;
    if (start < 3 || text.substr(start - 3, 3) != "int")
        return false;
    return start == 3 || !isNameChar(text[start - 4]);
}

} // namespace

/// `int(x.size(0))`: TorchScript compiles int() of an int to nothing, so no node of the script graph stands for it;
/// Python calls Tensor.__int__ on the 0-dim tensor its tracer handed out, which raises the conversion's TracerWarning
/// and hands on a plain number, baked into the trace from there on (torch 2.x). Called after every node: the
/// number a node computes at the whole argument of an `int(...)` loses its traced tensor.
void Semantics::bakeIntCall(tj::Node* n, Frame& frame)
{
    if (n->outputs().size() != 1 || n->output()->type()->kind() != c10::TypeKind::IntType)
        return;
    if (!view(frame, n->output()).hasShadow() || !isIntCallArgument(originalSourceRange(n)))
        return;
    {
        EditView out(frame, n->output());
        out->shadow = at::Tensor();
    }
    m_warnings.addConversion(QStringLiteral("integer"), n);
}

/// Python's max(a, b) / min(a, b) compare with the tensors' > / < (a bool of a tensor) and return the chosen operand
/// itself: a traced size stays traced.
bool Semantics::chooseNumber(tj::Node* n, const NumberOperands& operands, PythonView& out)
{
    if (operands.values.size() != 2)
        return false;
    const auto& values = operands.values;
    const bool second = n->kind() == c10::prim::max
        ? values[1].toScalar().to<double>() > values[0].toScalar().to<double>()
        : values[1].toScalar().to<double>() < values[0].toScalar().to<double>();
    m_warnings.addConversion(QStringLiteral("boolean"));
    const PythonView& chosen = viewOf(operands.notes[second ? 1 : 0]);
    out.shadow = chosen.shadow;
    out.fromSize = true;
    out.origin = chosen.origin;
    return true;
}

/// Only TorchScript's own desugaring (a `for` with `continue`) combines conditions on sizes like this.
bool Semantics::combineConditions(tj::Node*, const NumberOperands& operands, PythonView& out)
{
    if (operands.values.size() != 2)
        return false;
    out.fromSize = true;
    return true;
}

/// `embed_dim // num_heads` of multi_head_attention_forward: Python's tensor branch (isTensorCheckedDivision).
bool Semantics::tensorCheckedDivision(tj::Node* n, const NumberOperands& operands, PythonView& out)
{
    if (operands.values.size() != 2)
        return false;
    const PythonView& a = viewOf(operands.notes[0]);
    if (!isTensorCheckedDivision(n) || !a.hasShadow() || viewOf(operands.notes[1]).hasShadow()
        || !operands.values[1].isInt())
        return false;
    // the number as Python passes it: a tensor
    setNumberResult(n, operands, a.shadow.div(wrappedNumber(operands.values[1]), "trunc"), out);
    return true;
}

/// TorchScript's builtin `number - tensor` is `-tensor + number`: the neg is computed without recording; the add
/// that follows records aten::rsub instead.
bool Semantics::builtinRsubNeg(tj::Node* n, Frame& frame)
{
    if (!isBuiltinRsubNeg(n))
        return false;
    auto resume = tj::tracer::pauseTracing();
    m_interpreter.runPlain(n, frame);
    resume();
    m_rsubOperand[n->output()] = frame.value(n->input());
    return true;
}

bool Semantics::builtinRsubAdd(tj::Node* n, Frame& frame)
{
    if (!m_rsubOperand.count(n->input(0)))
        return false;
    const IValue self = m_rsubOperand[n->input(0)];
    const IValue& other = frame.value(n->input(1));
    at::Tensor result = other.isTensor()
        ? at::rsub(self.toTensor(), other.toTensor(), frame.value(n->input(2)).toScalar())
        : at::rsub(self.toTensor(), other.toScalar(), frame.value(n->input(2)).toScalar());
    frame.bind(n->output(), result);
    return true;
}

} // namespace pythonsemantics
} // namespace jitscope
