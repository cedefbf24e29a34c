// The .py front end: each top-level def of a .py file compiled as Python's torch.jit.script compiles it, with a
// resolver that resolves names as Python does (torch, torch.nn.functional, math, builtin exceptions; their table in
// pythonnames.cpp), and loadPython() that makes a ModelInfo of the file.
// One of the few translation units that include libtorch.

#include "report/dtype.h"
#include "ir/activity.h"
#include "ir/irsnapshot_p.h"
#include "ir/torcherror_p.h"
#include "load/loader_p.h"
#include "load/model.h"
#include "load/modelhandle_p.h"
#include "load/pysource.h"
#include "load/pythonnames_p.h"
#include "load/sourceguards_p.h"

#include <QRegularExpression>

#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/frontend/error_report.h>
#include <torch/csrc/jit/frontend/function_schema_parser.h>
#include <torch/csrc/jit/frontend/parser.h>
#include <torch/csrc/jit/frontend/resolver.h>
#include <torch/csrc/jit/frontend/schema_matching.h>
#include <torch/csrc/jit/frontend/sugared_value.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/frontend/tree_views.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/irparser.h>
#include <torch/csrc/jit/runtime/custom_operator.h>

#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

namespace jitscope {

namespace tj = torch::jit;

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

/// `torch._C._get_tracing_state()` (torchvision's `_is_tracing()`), and `torch.jit.is_tracing()`, as JitScope compiles
/// them. Python's is the tracer's
/// state: truthy while torch.jit.trace runs the function, None otherwise. PyTorch's script compiler folds its
/// aten::_get_tracing_state to False, and the tracing branch with it; this op answers whether libtorch's tracer is
/// recording (JitScope's trace) and, being CONSERVATIVE, counts as having side effects, so constant propagation
/// keeps the If: a trace takes the branch Python's trace takes, a plain run the other.
const tj::RegisterOperators tracingStateOperator(std::vector<c10::optional<tj::Operator>> { tj::Operator(
    "jitscope::_get_tracing_state() -> bool", [](tj::Stack& stack) { stack.emplace_back(tj::tracer::isTracing()); },
    c10::AliasAnalysisKind::CONSERVATIVE) });

class PyFileCompiler;

/// torch.nn.functional.max_pool2d and friends: Python picks one of two functions by a constant bool argument.
struct BooleanDispatchValue : public tj::SugaredValue
{
    BooleanDispatchValue(PyFileCompiler* compiler, QString path, TorchNameTable::Dispatch dispatch)
        : m_compiler(compiler)
        , m_path(std::move(path))
        , m_dispatch(std::move(dispatch))
    { }
    std::string kind() const override { return "boolean dispatch"; }
    std::shared_ptr<tj::SugaredValue> call(const tj::SourceRange& loc, tj::GraphFunction& caller,
        at::ArrayRef<tj::NamedValue> args, at::ArrayRef<tj::NamedValue> kwargs, size_t n_binders) override;

    PyFileCompiler* m_compiler;
    QString m_path;
    TorchNameTable::Dispatch m_dispatch;
};

/// A Python module or object reached through the file's imports: "torch", "torch.nn.functional", "math".
struct PyPathValue : public tj::SugaredValue
{
    PyPathValue(PyFileCompiler* compiler, QString path)
        : m_compiler(compiler)
        , m_path(std::move(path))
    { }
    std::string kind() const override { return "module '" + m_path.toStdString() + "'"; }
    std::shared_ptr<tj::SugaredValue> attr(
        const tj::SourceRange& loc, tj::GraphFunction& m, const std::string& field) override;
    static std::shared_ptr<tj::SugaredValue> resolve(
        PyFileCompiler* compiler, const QString& path, tj::GraphFunction& m, const tj::SourceRange& loc);

    PyFileCompiler* m_compiler;
    QString m_path;
};

// inputs/dtype.h records c10::ScalarType's values without including torch.
static_assert(int(c10::ScalarType::Float) == 6 && int(c10::ScalarType::Double) == 7 && int(c10::ScalarType::Half) == 5
    && int(c10::ScalarType::BFloat16) == 15 && int(c10::ScalarType::Long) == 4 && int(c10::ScalarType::Int) == 3
    && int(c10::ScalarType::Short) == 2 && int(c10::ScalarType::Char) == 1 && int(c10::ScalarType::Byte) == 0
    && int(c10::ScalarType::Bool) == 11);

std::optional<int64_t> torchConstant(const QString& name)
{
    // dtypes, as Python's resolver turns them into ints (c10::ScalarType): the input dtypes from their table
    if (const DtypeInfo* d = dtypeFromTorchName(name))
        return d->scalarType;
    static const std::map<QString, int64_t> constants = {
        // ... and those no input set makes
        { QStringLiteral("complex32"), int64_t(c10::ScalarType::ComplexHalf) },
        { QStringLiteral("chalf"), int64_t(c10::ScalarType::ComplexHalf) },
        { QStringLiteral("complex64"), int64_t(c10::ScalarType::ComplexFloat) },
        { QStringLiteral("cfloat"), int64_t(c10::ScalarType::ComplexFloat) },
        { QStringLiteral("complex128"), int64_t(c10::ScalarType::ComplexDouble) },
        { QStringLiteral("cdouble"), int64_t(c10::ScalarType::ComplexDouble) },
        { QStringLiteral("qint8"), int64_t(c10::ScalarType::QInt8) },
        { QStringLiteral("quint8"), int64_t(c10::ScalarType::QUInt8) },
        { QStringLiteral("qint32"), int64_t(c10::ScalarType::QInt32) },
        // layouts
        { QStringLiteral("strided"), int64_t(c10::Layout::Strided) },
        { QStringLiteral("sparse_coo"), int64_t(c10::Layout::Sparse) },
        // memory formats
        { QStringLiteral("contiguous_format"), int64_t(c10::MemoryFormat::Contiguous) },
        { QStringLiteral("preserve_format"), int64_t(c10::MemoryFormat::Preserve) },
        { QStringLiteral("channels_last"), int64_t(c10::MemoryFormat::ChannelsLast) },
        { QStringLiteral("channels_last_3d"), int64_t(c10::MemoryFormat::ChannelsLast3d) },
    };
    auto it = constants.find(name);
    if (it == constants.end())
        return std::nullopt;
    return it->second;
}

std::shared_ptr<tj::SugaredValue> builtin(const std::string& qualName)
{
    return std::make_shared<tj::BuiltinFunction>(c10::Symbol::fromQualString(qualName), c10::nullopt);
}

std::shared_ptr<tj::SugaredValue> pythonFunctionValue(
    PyFileCompiler* compiler, const QString& path, const tj::SourceRange& loc);

std::shared_ptr<tj::SugaredValue> PyPathValue::resolve(
    PyFileCompiler* compiler, const QString& path, tj::GraphFunction& m, const tj::SourceRange& loc)
{
    static const QStringList modules = {
        QStringLiteral("torch"),
        QStringLiteral("torch.nn"),
        QStringLiteral("torch.nn.functional"),
        QStringLiteral("torch.jit"),
        QStringLiteral("torch.linalg"),
        QStringLiteral("torch.fft"),
        QStringLiteral("torch.special"),
        QStringLiteral("math"),
        QStringLiteral("torch.autograd"),
        QStringLiteral("torch._C"),
    };
    if (modules.contains(path))
        return std::make_shared<PyPathValue>(compiler, path);
    const TorchNameTable& table = torchNames();
    if (table.functions.contains(path) || table.overloads.contains(path))
        return pythonFunctionValue(compiler, path, loc);
    if (table.dispatches.contains(path))
        return std::make_shared<BooleanDispatchValue>(compiler, path, table.dispatches.value(path));
    if (auto it = table.builtins.find(path); it != table.builtins.end())
        return builtin(it.value());
    const int dot = path.lastIndexOf(QLatin1Char('.'));
    if (dot < 0)
        return nullptr;
    const QString parent = path.left(dot);
    const QString name = path.mid(dot + 1);
    const std::string n = name.toStdString();
    if (parent == QLatin1String("torch")) {
        if (auto c = torchConstant(name))
            return std::make_shared<tj::SimpleValue>(m.graph()->insertConstant(*c, loc));
        if (name == QLatin1String("Tensor") || name == QLatin1String("Size") || name == QLatin1String("dtype")
            || name == QLatin1String("Generator"))
            return nullptr; // types: left to the type parser and the emitter's own builtins
        return builtin("aten::" + n);
    }
    if (parent == QLatin1String("math")) {
        if (auto c = mathConstant(name))
            return std::make_shared<tj::SimpleValue>(m.graph()->insertConstant(*c, loc));
        return builtin("aten::" + n);
    }
    if (parent == QLatin1String("torch.nn.functional") || parent == QLatin1String("torch.autograd"))
        return builtin("aten::" + n);
    if (parent == QLatin1String("torch.linalg"))
        return builtin("aten::linalg_" + n);
    if (parent == QLatin1String("torch.fft"))
        return builtin("aten::fft_" + n);
    if (parent == QLatin1String("torch.special"))
        return builtin("aten::special_" + n);
    if (parent == QLatin1String("torch._C")) {
        if (name == QLatin1String("_get_tracing_state") || name == QLatin1String("_is_tracing"))
            return builtin("jitscope::_get_tracing_state");
        return nullptr;
    }
    if (parent == QLatin1String("torch.jit")) {
        if (name == QLatin1String("annotate"))
            return tj::SpecialFormValue::create(c10::prim::annotate);
        if (name == QLatin1String("isinstance"))
            return tj::SpecialFormValue::create(c10::prim::isinstance);
        if (name == QLatin1String("is_scripting"))
            return builtin("aten::" + n);
        // torch.jit.is_tracing() is torch._C._is_tracing() in Python (torchvision's public ops ask it before they
        // log); PyTorch's script compiler calls a function that returns False.
        if (name == QLatin1String("is_tracing"))
            return builtin("jitscope::_get_tracing_state");
        if (name == QLatin1String("_unwrap_optional"))
            return builtin("aten::_unwrap_optional");
        return nullptr;
    }
    return nullptr;
}

std::shared_ptr<tj::SugaredValue> PyPathValue::attr(
    const tj::SourceRange& loc, tj::GraphFunction& m, const std::string& field)
{
    auto v = resolve(m_compiler, m_path + QLatin1Char('.') + qs(field), m, loc);
    if (!v)
        throw tj::ErrorReport(loc) << "JitScope cannot resolve '" << m_path.toStdString() << "." << field
                                   << "' in TorchScript";
    return v;
}

bool isComparison(int kind)
{
    switch (kind) {
    case '<':
    case '>':
    case tj::TK_LE:
    case tj::TK_GE:
    case tj::TK_EQ:
    case tj::TK_NE:
    case tj::TK_IS:
    case tj::TK_ISNOT:
    case tj::TK_IN:
        return true;
    default:
        return false;
    }
}

/// libtorch's C++ parser and Python's frontend (what torch.jit.script uses) build different trees for a few
/// constructs; this rewrites the C++ tree into Python's so that the graphs come out the same:
/// - `-1` is one constant for the C++ parser, a unary minus on 1 for Python (constant propagation folds it
///   later, which orders the graph's constants differently);
/// - `a < b < c` is `(a < b) < c` for the C++ parser, `(a < b) and (b < c)` for Python.
class PythonFrontendRewriter
{
public:
    tj::TreeRef rewrite(const tj::TreeRef& tree)
    {
        if (tree->isAtom())
            return tree;
        if (tree->kind() == tj::TK_CONST) {
            const std::string text = tj::Const(tree).text();
            if (!text.empty() && text[0] == '-') {
                const auto& range = tree->range();
                return tj::Compound::create(tj::TK_UNARY_MINUS, range, { tj::Const::create(range, text.substr(1)) });
            }
            return tree;
        }
        tj::TreeList children;
        bool changed = false;
        for (const auto& child : tree->trees()) {
            children.push_back(rewrite(child));
            changed |= children.back().get() != child.get();
        }
        if (isComparison(tree->kind()) && children.size() == 2) {
            const tj::TreeRef& lhs = children[0];
            const tj::Tree* lastComparison = nullptr;
            if (isComparison(lhs->kind()))
                lastComparison = lhs.get();
            else if (m_chains.count(lhs.get()))
                lastComparison = lhs->trees()[1].get();
            if (lastComparison) {
                const tj::TreeRef middle = lastComparison->trees()[1];
                auto next = tj::Compound::create(tree->kind(), tree->range(), { middle, children[1] });
                auto chain = tj::Compound::create(tj::TK_AND, tree->range(), { lhs, next });
                m_chains.insert(chain.get());
                m_keepAlive.push_back(chain);
                return chain;
            }
        }
        if (!changed)
            return tree;
        return tj::Compound::create(tree->kind(), tree->range(), std::move(children));
    }

private:
    std::set<const tj::Tree*> m_chains;
    std::vector<tj::TreeRef> m_keepAlive;
};

/// A Python exception class (ValueError, ...): raising it records its qualified name as Python does.
struct PyExceptionValue : public tj::ExceptionValue
{
    explicit PyExceptionValue(const std::string& name)
        : tj::ExceptionValue(name)
        , m_qualifiedName("builtins." + name)
    { }
    std::string kind() const override { return "Python exception"; }
    std::shared_ptr<tj::SugaredValue> call(const tj::SourceRange& loc, tj::GraphFunction& caller,
        at::ArrayRef<tj::NamedValue> args, at::ArrayRef<tj::NamedValue> kwargs, size_t) override
    {
        tj::Graph& g = *caller.graph();
        tj::Value* message = nullptr;
        if (args.empty()) {
            message = tj::insertConstant(g, "", loc);
        } else if (args.size() == 1) {
            message = args.at(0).value(g);
        } else {
            std::vector<tj::Value*> values;
            for (const auto& a : args)
                values.push_back(a.value(g));
            for (const auto& k : kwargs)
                values.push_back(k.value(g));
            message = g.insertNode(g.createTuple(values))->output();
        }
        tj::Value* qualified = tj::insertConstant(g, m_qualifiedName, loc);
        return std::make_shared<tj::ExceptionMessageValue>(message, qualified);
    }

    std::string m_qualifiedName;
};

class PyFileCompiler
{
public:
    PyFileCompiler(const PyFileScan& scan, QString path)
        : m_scan(scan)
        , m_path(std::move(path))
        , m_cu(std::make_shared<tj::CompilationUnit>())
    { }

    /// Compiles a def (and, on demand, the defs it calls). Returns nullptr and records the error on failure.
    tj::Function* compile(const PyDef& def);
    /// The def compiled again, into a compilation unit of its own, with @p types (TorchScript type expressions)
    /// for the parameters that have no annotation; "" keeps a parameter as it is. Throws on errors.
    tj::Function* compileRetyped(
        const PyDef& def, const std::vector<std::string>& types, std::shared_ptr<tj::CompilationUnit>& unit);
    const std::map<QString, Diagnostic>& errors() const { return m_errors; }
    const std::shared_ptr<tj::CompilationUnit>& cu() const { return m_cu; }

    std::shared_ptr<tj::SugaredValue> resolveName(
        const std::string& name, tj::GraphFunction& m, const tj::SourceRange& loc);
    /// A Python-defined function of torch (F.relu, ...) from its recorded graph and schema.
    tj::Function* pythonFunction(const QString& path);
    /// Every overload of an @overload-ed torch function (F.interpolate, ...); schema matching picks one.
    std::vector<tj::StrongFunctionPtr> pythonOverloads(const QString& path);

private:
    tj::Function* functionFromRecord(const TorchNameTable::Function& spec, bool mangle);
    std::map<QString, tj::Function*> m_pythonFunctions;
    std::map<QString, std::vector<tj::Function*>> m_pythonOverloads;
    const PyFileScan& m_scan;
    QString m_path;
    std::shared_ptr<tj::CompilationUnit> m_cu;
    std::map<QString, tj::Function*> m_compiled;
    std::map<QString, Diagnostic> m_errors;
    std::set<QString> m_inProgress;
};

struct PyFileResolver : public tj::Resolver
{
    explicit PyFileResolver(PyFileCompiler* compiler)
        : m_compiler(compiler)
    { }
    std::shared_ptr<tj::SugaredValue> resolveValue(
        const std::string& name, tj::GraphFunction& m, const tj::SourceRange& loc) override
    {
        return m_compiler->resolveName(name, m, loc);
    }
    c10::TypePtr resolveType(const std::string&, const tj::SourceRange&) override { return nullptr; }

    PyFileCompiler* m_compiler;
};

std::shared_ptr<tj::SugaredValue> PyFileCompiler::resolveName(
    const std::string& name, tj::GraphFunction& m, const tj::SourceRange& loc)
{
    const QString qname = qs(name);
    if (const PyDef* def = m_scan.def(qname)) {
        if (def->isIgnored())
            throw tj::ErrorReport(loc) << "'" << name
                                       << "' is marked @torch.jit.ignore/@torch.jit.unused and runs in Python, "
                                          "which JitScope cannot run";
        if (m_inProgress.count(qname))
            throw tj::ErrorReport(loc) << "recursive call to '" << name << "' is not supported by TorchScript";
        tj::Function* fn = compile(*def);
        if (!fn) {
            const Diagnostic& e = m_errors.at(qname);
            throw tj::ErrorReport(loc) << "'" << name << "' failed to compile (line " << e.location.line
                                       << "): " << e.message.toStdString();
        }
        return std::make_shared<tj::FunctionValue>(fn);
    }
    const QString alias = m_scan.aliases.value(qname);
    if (!alias.isEmpty())
        return PyPathValue::resolve(this, alias, m, loc);
    if (auto it = m_scan.globals.find(qname); it != m_scan.globals.end())
        throw tj::ErrorReport(loc)
            << "python value of type '" << it.value().toStdString()
            << "' cannot be used as a value. Perhaps it is a closed over global variable? If "
               "so, please consider passing it in as an argument or use a local varible instead.";
    if (isBuiltinException(qname))
        return std::make_shared<PyExceptionValue>(name);
    return nullptr;
}

/// Python keeps `padding: BroadcastingList2[int] = 0` as the scalar 0 in the schema (the emitter then builds
/// the list in the graph); the schema parser expands it to [0, 0]. Put the scalar back.
c10::FunctionSchema scalarBroadcastDefaults(const c10::FunctionSchema& schema, const std::string& text)
{
    std::vector<c10::Argument> args;
    bool changed = false;
    for (const auto& a : schema.arguments()) {
        const auto& def = a.default_value();
        const size_t pos = text.find(" " + a.name() + "=");
        if (a.N() && def && def->isList() && pos != std::string::npos && text[pos + a.name().size() + 2] != '['
            && !def->toListRef().empty()) {
            args.emplace_back(a.name(), a.type(), a.N(), def->toListRef().front(), a.kwarg_only(),
                a.alias_info() ? c10::optional<c10::AliasInfo>(*a.alias_info()) : c10::nullopt);
            changed = true;
        } else {
            args.push_back(a);
        }
    }
    return changed ? schema.cloneWithArguments(std::move(args)) : schema;
}

tj::Function* PyFileCompiler::pythonFunction(const QString& path)
{
    if (auto it = m_pythonFunctions.find(path); it != m_pythonFunctions.end())
        return it->second;
    tj::Function* fn = functionFromRecord(torchNames().functions.find(path).value(), false);
    m_pythonFunctions[path] = fn;
    return fn;
}

std::vector<tj::StrongFunctionPtr> PyFileCompiler::pythonOverloads(const QString& path)
{
    auto it = m_pythonOverloads.find(path);
    if (it == m_pythonOverloads.end()) {
        std::vector<tj::Function*> fns;
        for (const auto& spec : torchNames().overloads.value(path))
            fns.push_back(functionFromRecord(spec, /*mangle=*/true));
        it = m_pythonOverloads.emplace(path, fns).first;
    }
    std::vector<tj::StrongFunctionPtr> out;
    for (tj::Function* f : it->second)
        out.emplace_back(m_cu, f);
    return out;
}

tj::Function* PyFileCompiler::functionFromRecord(const TorchNameTable::Function& spec, bool mangle)
{
    // libtorch's IR parser cannot read nodes without outputs ("   = aten::warn(...)") that its own printer
    // writes, and rejects an output on an op whose schema has none. Such nodes are parsed under a stand-in
    // kind with a placeholder output, then rebuilt with their real kind. prim::If/Loop have no schema, so
    // they keep their kind (and their blocks) and only lose the placeholder.
    static const std::string placeholder = "jitscope_no_output_";
    static const std::string standInNamespace = "jitscope_noout";
    std::string text;
    std::istringstream in(spec.graph);
    int counter = 0;
    for (std::string line; std::getline(in, line);) {
        const size_t first = line.find_first_not_of(' ');
        if (first != std::string::npos && first > 0 && line.compare(first, 2, "= ") == 0) {
            std::string rest = line.substr(first + 2);
            const size_t colons = rest.find("::");
            const bool controlFlow = rest.rfind("prim::If", 0) == 0 || rest.rfind("prim::Loop", 0) == 0;
            if (!controlFlow && colons != std::string::npos)
                rest = standInNamespace + "::" + rest.substr(0, colons) + "__" + rest.substr(colons + 2);
            line = line.substr(0, first - 1) + "%" + placeholder + std::to_string(counter++) + " : NoneType = " + rest;
        }
        text += line + "\n";
    }
    auto graph = std::make_shared<tj::Graph>();
    // The parser does not keep value names: find the placeholders through its name map.
    std::unordered_map<std::string, tj::Value*> names;
    tj::parseIR(text, graph.get(), names, /*parse_tensor_constants=*/true);
    for (int k = 0; k < counter; ++k) {
        auto found = names.find(placeholder + std::to_string(k));
        if (found == names.end())
            continue;
        tj::Node* node = found->second->node();
        const std::string kind = node->kind().toQualString();
        if (kind.rfind(standInNamespace + "::", 0) != 0) {
            node->eraseOutput(found->second->offset());
            continue;
        }
        std::string real = kind.substr(standInNamespace.size() + 2);
        real.replace(real.find("__"), 2, "::");
        tj::Node* rebuilt = graph->create(c10::Symbol::fromQualString(real), node->inputs(), 0);
        rebuilt->copyAttributes(*node);
        rebuilt->insertBefore(node);
        node->destroy();
    }
    tj::Function* fn = m_cu->create_function(c10::QualifiedName(spec.qualifiedName), graph, mangle);
    tj::toGraphFunction(*fn).setSchema(scalarBroadcastDefaults(tj::parseSchema(spec.schema), spec.schema));
    return fn;
}

std::shared_ptr<tj::SugaredValue> pythonFunctionValue(
    PyFileCompiler* compiler, const QString& path, const tj::SourceRange& loc)
{
    try {
        if (torchNames().overloads.contains(path))
            return std::make_shared<tj::FunctionValue>(compiler->pythonOverloads(path));
        return std::make_shared<tj::FunctionValue>(compiler->pythonFunction(path));
    } catch (const tj::ErrorReport&) {
        throw;
    } catch (const std::exception& e) {
        throw tj::ErrorReport(loc) << "JitScope cannot use " << path.toStdString() << ": "
                                   << torchErrorMessage(e.what()).toStdString();
    }
}

std::shared_ptr<tj::SugaredValue> BooleanDispatchValue::call(const tj::SourceRange& loc, tj::GraphFunction& caller,
    at::ArrayRef<tj::NamedValue> args, at::ArrayRef<tj::NamedValue> kwargs, size_t n_binders)
{
    // Mirrors Python's BooleanDispatchValue: the flag must be a constant where it is given.
    tj::Graph& graph = *caller.graph();
    c10::optional<bool> flag;
    tj::ErrorReport error(loc);
    if (m_dispatch.index < args.size()) {
        flag = tj::constant_as<bool>(args.at(m_dispatch.index).value(graph));
        error << "Argument for boolean dispatch at position " << m_dispatch.index << " was not constant";
    } else if (auto i = tj::findInputWithName(m_dispatch.argName, kwargs)) {
        flag = tj::constant_as<bool>(kwargs[*i].value(graph));
        error << "Keyword argument '" << m_dispatch.argName << "' for boolean dispatch at position was not constant";
    } else {
        flag = m_dispatch.defaultValue;
    }
    if (!flag)
        throw error;
    auto target = pythonFunctionValue(m_compiler, *flag ? m_dispatch.ifTrue : m_dispatch.ifFalse, loc);
    return target->call(loc, caller, args, kwargs, n_binders);
}

tj::Function* PyFileCompiler::compile(const PyDef& def)
{
    if (auto it = m_compiled.find(def.name); it != m_compiled.end())
        return it->second;
    if (m_errors.count(def.name))
        return nullptr;
    m_inProgress.insert(def.name);
    tj::Function* result = nullptr;
    try {
        activity::setPhase(def.defLine, "compiling `def %s`", def.name.toUtf8().constData());
        const QString text = m_scan.defSource(def);
        refuseHostileText(text, def.defLine, m_path);
        auto source = std::make_shared<tj::Source>(text.toStdString(), m_path.toStdString(), size_t(def.defLine));
        tj::Parser parser(source);
        const tj::TreeRef parsed = parser.parseFunction(/*is_method=*/false);
        refuseHostileTree(tj::Def(parsed)); // before anything recursive walks the tree
        auto tree = tj::Def(PythonFrontendRewriter().rewrite(parsed));
        auto resolver = std::make_shared<PyFileResolver>(this);
        auto fns = m_cu->define(c10::QualifiedName("__torch__"), {}, {}, { tree }, { resolver }, nullptr);
        result = fns.at(0);
        m_compiled[def.name] = result;
    } catch (const LocatedError& e) {
        m_errors[def.name] = e.diagnostic;
    } catch (const std::exception& e) {
        Diagnostic d = diagnosticFromTorchError(e.what(), m_path);
        if (d.location.line == 0)
            d.location.line = def.defLine;
        m_errors[def.name] = d;
    }
    m_inProgress.erase(def.name);
    return result;
}

tj::Function* PyFileCompiler::compileRetyped(
    const PyDef& def, const std::vector<std::string>& types, std::shared_ptr<tj::CompilationUnit>& unit)
{
    const QString text = m_scan.defSource(def);
    refuseHostileText(text, def.defLine, m_path);
    auto source = std::make_shared<tj::Source>(text.toStdString(), m_path.toStdString(), size_t(def.defLine));
    tj::Parser parser(source);
    const tj::TreeRef parsed = parser.parseFunction(/*is_method=*/false);
    refuseHostileTree(tj::Def(parsed));
    tj::Def tree = tj::Def(PythonFrontendRewriter().rewrite(parsed));
    const tj::Decl decl = tree.decl();
    std::vector<tj::Param> params;
    size_t i = 0;
    for (const tj::Param& param : decl.params()) {
        if (i < types.size() && !types[i].empty() && !param.type().present()) {
            tj::Parser typeParser(std::make_shared<tj::Source>(types[i]));
            params.push_back(param.withType(tj::Maybe<tj::Expr>::create(param.range(), typeParser.parseExp())));
        } else {
            params.push_back(param);
        }
        ++i;
    }
    tree = tree.withDecl(
        tj::Decl::create(decl.range(), tj::List<tj::Param>::create(decl.range(), params), decl.return_type()));
    unit = std::make_shared<tj::CompilationUnit>();
    auto resolver = std::make_shared<PyFileResolver>(this);
    auto fns = unit->define(c10::QualifiedName("__torch__"), {}, {}, { tree }, { resolver }, nullptr);
    tj::Function* fn = fns.at(0);
    fn->getSchema(); // compiles now, while this compiler's state is at hand
    tj::toGraphFunction(*fn).graph();
    return fn;
}

/// Offset of the first byte that breaks UTF-8, or -1 when the whole buffer is valid.
int firstInvalidUtf8(const QByteArray& bytes)
{
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.constData());
    const int n = bytes.size();
    for (int i = 0; i < n;) {
        const unsigned char c = p[i];
        int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        if (len == 0 || (len == 2 && c < 0xC2) || i + len > n)
            return i;
        for (int k = 1; k < len; ++k)
            if ((p[i + k] & 0xC0) != 0x80)
                return i;
        i += len;
    }
    return -1;
}

} // namespace

LoadResult loadPython(const QString& path, const QByteArray& bytes, bool inlineCalls)
{
    // Reject what is not text before anything else reads it.
    if (bytes.contains('\0'))
        return loadFailure(
            path, QStringLiteral("binary file, not Python source (NUL byte at offset %1)").arg(bytes.indexOf('\0')));
    const int bad = firstInvalidUtf8(bytes);
    if (bad >= 0) {
        const QByteArray before = bytes.left(bad);
        return loadFailure(path,
            QStringLiteral("not valid UTF-8 text (byte 0x%1)").arg(uchar(bytes[bad]), 2, 16, QLatin1Char('0')),
            int(before.count('\n')) + 1, int(bad - (before.lastIndexOf('\n') + 1)));
    }
    QString source = QString::fromUtf8(bytes);
    if (source.startsWith(QChar(0xFEFF)))
        source.remove(0, 1);

    PyFileScan scan = scanPythonSource(source, path);
    if (scan.syntaxError.location.line > 0)
        return loadFailure(
            path, scan.syntaxError.message, scan.syntaxError.location.line, scan.syntaxError.location.column);

    LoadResult result;
    result.ok = true;
    ModelInfo& model = result.model;
    model.path = path;
    model.kind = ModelInfo::Kind::PythonSource;
    model.source = source;
    model.inputSets = scan.inputSets;
    model.warnings = scan.problems;

    // The compiler stays with the handle: a def is compiled again when a trace gives an unannotated parameter a
    // tuple or list (compileWithTypes).
    auto keptScan = std::make_shared<PyFileScan>(scan);
    auto keptCompiler = std::make_shared<PyFileCompiler>(*keptScan, path);
    PyFileCompiler& compiler = *keptCompiler;
    auto handle = std::make_shared<ModelHandle>();
    handle->cu = compiler.cu();
    auto retyped
        = std::make_shared<std::map<std::string, std::pair<std::shared_ptr<tj::CompilationUnit>, tj::Function*>>>();
    handle->compileWithTypes = [keptScan, keptCompiler, retyped, path](const QString& name,
                                   const std::vector<std::string>& types, QString* error) -> tj::Function* {
        const PyDef* def = keptScan->def(name);
        if (!def)
            return nullptr;
        std::string key = name.toStdString();
        for (const std::string& t : types)
            key += "\n" + t;
        if (auto it = retyped->find(key); it != retyped->end())
            return it->second.second;
        try {
            std::shared_ptr<tj::CompilationUnit> unit;
            tj::Function* fn = keptCompiler->compileRetyped(*def, types, unit);
            retyped->emplace(key, std::make_pair(unit, fn));
            return fn;
        } catch (const LocatedError& e) {
            if (error)
                *error = e.diagnostic.message;
        } catch (const std::exception& e) {
            if (error)
                *error = diagnosticFromTorchError(e.what(), path).message;
        }
        return nullptr;
    };
    handle->sourceText = source;
    model.handle = handle;
    for (const PyDef& def : scan.defs) {
        FunctionInfo fn;
        fn.name = def.name;
        fn.location = { path, def.defLine, 0 };
        if (def.isIgnored()) {
            fn.ok = false;
            fn.error = { QStringLiteral("'%1' is marked @%2: it runs in Python, not TorchScript")
                             .arg(def.name, def.decorators.join(QStringLiteral(", @"))),
                fn.location };
            model.functions.push_back(fn);
            continue;
        }
        try {
            if (tj::Function* f = compiler.compile(def)) {
                handle->functions.insert(def.name, f);
                fn.signature = signatureText(def.name, f->getSchema());
                fn.graph = snapshotOf(*tj::toGraphFunction(*f).graph(), inlineCalls, &fn.inlinedIds);
                fn.inlined = inlineCalls;
                fn.ok = true;
            } else {
                fn.error = compiler.errors().at(def.name);
            }
        } catch (const std::exception& e) {
            fn.error = diagnosticFromTorchError(e.what(), path);
        }
        model.functions.push_back(fn);
    }
    for (const PyDef& cls : scan.classes) {
        model.warnings.push_back({ QStringLiteral("class '%1' skipped: classes and nn.Modules in .py files are not "
                                                  "compiled; open a torch.jit.save archive of the module instead")
                                       .arg(cls.name),
            { path, cls.defLine, 0 } });
    }
    return result;
}

} // namespace jitscope
