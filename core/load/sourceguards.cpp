// Guards in front of libtorch's TorchScript front end: what crashed it (stack overflows in its recursive parser and
// compiler, SIGFPE in its constant folding) refused first, with the place and Python's own reason.

#include "load/sourceguards_p.h"

#include "ir/torcherror_p.h"

#include <torch/csrc/jit/frontend/parser.h>
#include <torch/csrc/jit/frontend/tree_views.h>

#include <limits>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace jitscope {

namespace tj = torch::jit;

namespace {

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

void refuseHostileTree(const torch::jit::Def& def)
{
    refuseDeepTreeImpl(def.tree());
    TrappingFolds().check(def);
}

void refuseHostileArchiveSource(const QString& text, const QString& entry)
{
    refuseHostileText(text, 1, entry);
    refuseHostileClassBodies(text, entry);
    std::vector<tj::TreeRef> trees;
    try {
        // As libtorch's SourceImporter reads a code file: an optional op_version_set line, imports, then classes and
        // functions.
        tj::Parser parser(std::make_shared<tj::Source>(text.toStdString(), entry.toStdString(), 1));
        auto& lexer = parser.lexer();
        if (lexer.cur().kind == tj::TK_IDENT && lexer.cur().text() == "op_version_set") {
            while (lexer.cur().kind != tj::TK_NEWLINE && lexer.cur().kind != tj::TK_EOF)
                lexer.next();
            lexer.nextIf(tj::TK_NEWLINE);
        }
        while (lexer.nextIf(tj::TK_IMPORT)) {
            while (lexer.cur().kind != tj::TK_NEWLINE && lexer.cur().kind != tj::TK_EOF)
                lexer.next();
            lexer.nextIf(tj::TK_NEWLINE);
        }
        while (lexer.cur().kind == tj::TK_CLASS_DEF || lexer.cur().kind == tj::TK_DEF)
            trees.push_back(
                lexer.cur().kind == tj::TK_DEF ? parser.parseFunction(/*is_method=*/false) : parser.parseClass());
    } catch (const std::exception&) {
        // Not code this check understands: libtorch reports it when it loads the archive.
    }
    for (const auto& tree : trees) {
        try {
            refuseDeepTreeImpl(tree);
        } catch (const std::exception& e) {
            throw LocatedError { diagnosticFromTorchError(e.what(), entry) };
        }
    }
}

} // namespace jitscope
