// Guards in front of libtorch's TorchScript front end: what crashed it (stack overflows in its recursive parser and
// compiler, SIGFPE in its constant folding) refused first, with the place and Python's own reason.

#include "load/sourceguards_p.h"

#include <QRegularExpression>

#include <torch/csrc/jit/frontend/tree_views.h>

#include <limits>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace jitscope {

namespace tj = torch::jit;

namespace {

/// Python's tokenizer refuses more than 200 open brackets ("too many nested parentheses"); TorchScript's recursive
/// parser and compiler overflow the stack at a few thousand. Checked on the text before it reaches them.
void refuseDeepNestingImpl(const QString& text, int firstLine, const QString& path)
{
    constexpr int maxLevel = 200;
    int depth = 0, line = firstLine, column = 0;
    QChar quote;
    bool triple = false;
    for (int i = 0; i < text.size(); ++i, ++column) {
        const QChar c = text[i];
        if (c == QLatin1Char('\n')) {
            ++line;
            column = -1;
            if (!triple)
                quote = QChar();
            continue;
        }
        if (!quote.isNull()) {
            if (c == QLatin1Char('\\'))
                ++i, ++column;
            else if (c == quote && (!triple || text.mid(i, 3) == QString(3, quote))) {
                if (triple)
                    i += 2, column += 2;
                quote = QChar();
            }
            continue;
        }
        if (c == QLatin1Char('#')) {
            while (i + 1 < text.size() && text[i + 1] != QLatin1Char('\n'))
                ++i;
            continue;
        }
        if (c == QLatin1Char('\'') || c == QLatin1Char('"')) {
            quote = c;
            triple = text.mid(i, 3) == QString(3, c);
            if (triple)
                i += 2, column += 2;
        } else if (c == QLatin1Char('(') || c == QLatin1Char('[') || c == QLatin1Char('{')) {
            if (++depth > maxLevel)
                throw LocatedError { Diagnostic {
                    QStringLiteral("too many nested parentheses (Python allows %1 levels)").arg(maxLevel),
                    SourceLocation { path, line, column } } };
        } else if (c == QLatin1Char(')') || c == QLatin1Char(']') || c == QLatin1Char('}')) {
            depth = std::max(0, depth - 1);
        }
    }
}

/// Python's compiler stops at a few thousand levels of expression nesting ("RecursionError: maximum recursion depth
/// exceeded during compilation"); TorchScript's recursive compiler overflows the stack a little further. Measured
/// without recursion, on the parsed tree, before anything recursive walks it.
void refuseDeepTreeImpl(const tj::TreeRef& root)
{
    constexpr size_t maxDepth = 2000;
    std::vector<std::pair<tj::TreeRef, size_t>> stack { { root, 1 } };
    while (!stack.empty()) {
        auto [t, depth] = stack.back();
        stack.pop_back();
        if (t->isAtom())
            continue;
        if (depth > maxDepth)
            throw tj::ErrorReport(t->range()) << "expression too deeply nested (more than " << maxDepth
                                              << " levels; Python refuses it too: RecursionError during compilation)";
        for (const auto& sub : t->trees())
            stack.emplace_back(sub, depth + 1);
    }
}

/// A long run of prefix operators (`not not not ... x`, `- - - x`) recurses in TorchScript's parser itself, before
/// a tree exists to measure. Counted on the text.
void refuseUnaryRunsImpl(const QString& text, int firstLine, const QString& path)
{
    constexpr int maxRun = 1000;
    static const QRegularExpression unary(QStringLiteral(R"((?:(?:\bnot\b|[-+~])\s*){1001})"));
    const auto m = unary.match(text);
    if (!m.hasMatch())
        return;
    const int start = m.capturedStart();
    const int line = firstLine + int(text.left(start).count(QLatin1Char('\n')));
    const int column = start - (text.lastIndexOf(QLatin1Char('\n'), start) + 1);
    throw LocatedError { Diagnostic {
        QStringLiteral("more than %1 prefix operators in a row (Python refuses it too)").arg(maxRun),
        SourceLocation { path, line, column } } };
}

/// Integer arithmetic that TorchScript folds at compile time and that traps on x86 (SIGFPE): INT64_MIN // -1 and
/// INT64_MIN % -1 of constants, as `a = -9223372036854775807 - 1; b = a // -1`. Found by folding the def's int
/// constants (names assigned once at the def's top level) the way its constant propagation will.
class TrappingFolds
{
public:
    void check(const tj::Def& def)
    {
        for (const auto& stmt : def.statements())
            visit(stmt.tree(), /*topLevel=*/true);
    }

private:
    std::optional<int64_t> eval(const tj::TreeRef& t)
    {
        switch (t->kind()) {
        case tj::TK_CONST: {
            const tj::Const c(t);
            if (!c.isIntegral())
                return std::nullopt;
            try {
                return c.asIntegral();
            } catch (const std::exception&) {
                return std::nullopt;
            }
        }
        case tj::TK_UNARY_MINUS: {
            const auto v = eval(t->trees()[0]);
            if (!v || *v == std::numeric_limits<int64_t>::min())
                return std::nullopt;
            return -*v;
        }
        case tj::TK_VAR: {
            const auto it = m_values.find(tj::Var(t).name().name());
            return it == m_values.end() ? std::nullopt : it->second;
        }
        case '+':
        case '-':
        case '*':
        case '%':
        case tj::TK_FLOOR_DIV: {
            const auto a = eval(t->trees()[0]);
            const auto b = eval(t->trees()[1]);
            if (!a || !b)
                return std::nullopt;
            int64_t r = 0;
            switch (t->kind()) {
            case '+':
                return __builtin_add_overflow(*a, *b, &r) ? std::nullopt : std::optional<int64_t>(r);
            case '-':
                return __builtin_sub_overflow(*a, *b, &r) ? std::nullopt : std::optional<int64_t>(r);
            case '*':
                return __builtin_mul_overflow(*a, *b, &r) ? std::nullopt : std::optional<int64_t>(r);
            default:
                break;
            }
            if (*b == 0)
                return std::nullopt;
            const bool floorDiv = t->kind() == tj::TK_FLOOR_DIV;
            if (*a == std::numeric_limits<int64_t>::min() && *b == -1)
                throw tj::ErrorReport(t->range())
                    << "integer overflow: " << *a << (floorDiv ? " // " : " % ")
                    << "-1 does not fit in a 64-bit int (libtorch's constant folding would crash on it)";
            const int64_t q = *a / *b, m = *a % *b;
            if (floorDiv)
                return m != 0 && ((m < 0) != (*b < 0)) ? q - 1 : q;
            return m != 0 && ((m < 0) != (*b < 0)) ? m + *b : m;
        }
        default:
            return std::nullopt;
        }
    }

    void visit(const tj::TreeRef& t, bool topLevel)
    {
        if (t->kind() == tj::TK_ASSIGN) {
            const tj::Assign assign(t);
            std::optional<int64_t> value;
            if (assign.rhs().present()) {
                visit(assign.rhs().get().tree(), false);
                value = eval(assign.rhs().get().tree());
            }
            for (const auto& lhs : assign.lhs_list())
                if (lhs.kind() == tj::TK_VAR) {
                    const std::string name = tj::Var(lhs).name().name();
                    // Known only when assigned once, unconditionally: else it is no constant for the compiler.
                    const bool first = !m_assigned.count(name);
                    m_assigned.insert(name);
                    if (topLevel && first && assign.lhs_list().size() == 1)
                        m_values[name] = value;
                    else
                        m_values[name] = std::nullopt;
                }
            return;
        }
        if (t->kind() == tj::TK_FLOOR_DIV || t->kind() == '%')
            eval(t);
        const bool block = t->kind() == tj::TK_IF || t->kind() == tj::TK_WHILE || t->kind() == tj::TK_FOR
            || t->kind() == tj::TK_WITH;
        for (const auto& sub : t->trees())
            visit(sub, topLevel && !block && t->kind() == tj::TK_LIST);
    }

    std::unordered_map<std::string, std::optional<int64_t>> m_values;
    std::set<std::string> m_assigned;
};

} // namespace

void refuseHostileText(const QString& text, int firstLine, const QString& path)
{
    refuseDeepNestingImpl(text, firstLine, path);
    refuseUnaryRunsImpl(text, firstLine, path);
}

void refuseHostileTree(const torch::jit::Def& def)
{
    refuseDeepTreeImpl(def.tree());
    TrappingFolds().check(def);
}

} // namespace jitscope
