// readExportedProgram(): a .pt2 package (torch.export.save) read by JitScope itself. The package is a zip
// (zipreader.cpp, every field checked); the program is the JSON of torch/_export/serde/schema.py's ExportedProgram,
// read with Qt's JSON parser and turned into an IrGraph whose nodes look like trace nodes. Hostile input: every
// field is checked for its type, every name a node uses must be defined before it, and sizes and depths are
// bounded; what is wrong is one error naming the file, the entry and the place. No libtorch (fuzz_pt2 compiles it).

#include "load/exportedprogram.h"
#include "load/zipreader_p.h"

#include <QBuffer>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRegularExpression>

#include <algorithm>
#include <limits>

namespace jitscope {

namespace {

/// At most this much JSON is read (resnet18's program is 170 KB; parsed, Qt's JSON takes a few times its size).
constexpr qint64 kMaxJson = 256LL * 1024 * 1024;
constexpr int kMaxNodes = 2000000;
constexpr int kMaxSubgraphDepth = 32;

/// Thrown inside the reader, caught at its entry points: the message of the one error.
struct ReadError
{
    QString message;
};

[[noreturn]] void bad(const QString& message)
{
    throw ReadError { message };
}

/// A JSON number as an int64, out-of-range values clamped (a cast of them would be undefined).
qint64 toInt64(const QJsonValue& v)
{
    const double d = v.toDouble();
    if (!(d > -9.2e18))
        return std::numeric_limits<qint64>::min();
    if (!(d < 9.2e18))
        return std::numeric_limits<qint64>::max();
    return v.toInteger(qint64(d));
}

QString scalarTypeName(int t)
{
    switch (t) {
    case 1:
        return QStringLiteral("Byte");
    case 2:
        return QStringLiteral("Char");
    case 3:
        return QStringLiteral("Short");
    case 4:
        return QStringLiteral("Int");
    case 5:
        return QStringLiteral("Long");
    case 6:
        return QStringLiteral("Half");
    case 7:
        return QStringLiteral("Float");
    case 8:
        return QStringLiteral("Double");
    case 9:
        return QStringLiteral("ComplexHalf");
    case 10:
        return QStringLiteral("ComplexFloat");
    case 11:
        return QStringLiteral("ComplexDouble");
    case 12:
        return QStringLiteral("Bool");
    case 13:
        return QStringLiteral("BFloat16");
    case 28:
        return QStringLiteral("UInt16");
    case 29:
        return QStringLiteral("Float8_e4m3fn");
    case 30:
        return QStringLiteral("Float8_e5m2");
    case 31:
        return QStringLiteral("Float8_e4m3fnuz");
    case 32:
        return QStringLiteral("Float8_e5m2fnuz");
    case 33:
        return QStringLiteral("Float8_e8m0fnu");
    case 34:
        return QStringLiteral("UInt32");
    case 35:
        return QStringLiteral("UInt64");
    default:
        return QStringLiteral("ScalarType%1").arg(t);
    }
}

QString layoutName(int l)
{
    static const char* const names[]
        = { "Unknown", "SparseCoo", "SparseCsr", "SparseCsc", "SparseBsr", "SparseBsc", "_mkldnn", "Strided" };
    return l >= 0 && l < 8 ? QString::fromLatin1(names[l]) : QStringLiteral("Layout%1").arg(l);
}

QString memoryFormatName(int m)
{
    static const char* const names[]
        = { "Unknown", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format" };
    return m >= 0 && m < 5 ? QStringLiteral("torch.") + QString::fromLatin1(names[m])
                           : QStringLiteral("MemoryFormat%1").arg(m);
}

// --- sympy's srepr ("Mul(Integer(2), Symbol('s0', integer=True))") made infix ("2*s0"). Newer torch writes
// expressions so, older torch as str(); text that is not a call is kept as it is.

struct SymParser
{
    const QString& s;
    int i = 0;
    int depth = 0;

    void skip()
    {
        while (i < s.size() && s[i].isSpace())
            ++i;
    }
    /// One argument: a call, a quoted string, a number or a name, with its precedence (0 sum, 1 product, 2 atom).
    std::optional<std::pair<QString, int>> term()
    {
        if (++depth > 200)
            return std::nullopt;
        skip();
        if (i >= s.size())
            return std::nullopt;
        if (s[i] == QLatin1Char('\'') || s[i] == QLatin1Char('"')) {
            const QChar q = s[i];
            const int end = s.indexOf(q, i + 1);
            if (end < 0)
                return std::nullopt;
            const QString text = s.mid(i + 1, end - i - 1);
            i = end + 1;
            --depth;
            return std::make_pair(text, 2);
        }
        const int start = i;
        while (i < s.size()
            && (s[i].isLetterOrNumber() || s[i] == QLatin1Char('_') || s[i] == QLatin1Char('.')
                || s[i] == QLatin1Char('-')))
            ++i;
        if (i == start)
            return std::nullopt;
        const QString name = s.mid(start, i - start);
        skip();
        if (i >= s.size() || s[i] != QLatin1Char('(')) {
            --depth;
            return std::make_pair(name, name.startsWith(QLatin1Char('-')) ? 1 : 2);
        }
        ++i;
        QVector<std::pair<QString, int>> args;
        for (;;) {
            skip();
            if (i < s.size() && s[i] == QLatin1Char(')')) {
                ++i;
                break;
            }
            // keyword arguments (integer=True) say what the symbol is, not what it is called
            const int save = i;
            while (i < s.size() && (s[i].isLetterOrNumber() || s[i] == QLatin1Char('_')))
                ++i;
            bool keyword = false;
            if (i < s.size() && s[i] == QLatin1Char('=') && i > save)
                keyword = true, ++i;
            else
                i = save;
            auto a = term();
            if (!a)
                return std::nullopt;
            if (!keyword)
                args.push_back(*a);
            skip();
            if (i < s.size() && s[i] == QLatin1Char(','))
                ++i;
            else if (i >= s.size() || s[i] != QLatin1Char(')'))
                return std::nullopt;
        }
        --depth;
        auto wrap = [](const std::pair<QString, int>& a, int prec) {
            return a.second < prec ? QLatin1Char('(') + a.first + QLatin1Char(')') : a.first;
        };
        if ((name == QLatin1String("Symbol") || name == QLatin1String("Integer") || name == QLatin1String("Float")
                || name == QLatin1String("Dummy"))
            && args.size() == 1)
            return std::make_pair(args[0].first, args[0].first.startsWith(QLatin1Char('-')) ? 1 : 2);
        if (name == QLatin1String("Rational") && args.size() == 2)
            return std::make_pair(args[0].first + QLatin1Char('/') + args[1].first, 1);
        if (name == QLatin1String("Add") && !args.isEmpty()) {
            QString out = args[0].first;
            for (int k = 1; k < args.size(); ++k) {
                const QString t = args[k].first;
                out += t.startsWith(QLatin1Char('-')) ? QStringLiteral(" - ") + t.mid(1) : QStringLiteral(" + ") + t;
            }
            return std::make_pair(out, 0);
        }
        if (name == QLatin1String("Mul") && !args.isEmpty()) {
            QStringList parts;
            for (const auto& a : args)
                parts << wrap(a, 1);
            if (parts.size() == 2 && parts[0] == QLatin1String("-1"))
                return std::make_pair(QLatin1Char('-') + parts[1], 1);
            return std::make_pair(parts.join(QLatin1Char('*')), 1);
        }
        if (name == QLatin1String("Pow") && args.size() == 2)
            return std::make_pair(wrap(args[0], 2) + QStringLiteral("**") + wrap(args[1], 2), 2);
        QStringList parts;
        for (const auto& a : args)
            parts << a.first;
        return std::make_pair(name + QLatin1Char('(') + parts.join(QStringLiteral(", ")) + QLatin1Char(')'), 2);
    }
};

QString symText(const QString& expr)
{
    if (!expr.contains(QLatin1Char('(')))
        return expr;
    SymParser p { expr };
    auto t = p.term();
    p.skip();
    if (!t || p.i != expr.size())
        return expr;
    return t->first;
}

// --- typed access to the JSON, each failure naming where it is

struct Reader
{
    ExportedProgram& ep;
    QString where; ///< "m/models/model.json": the prefix of every message

    QJsonObject object(const QJsonValue& v, const QString& what) const
    {
        if (!v.isObject())
            bad(QStringLiteral("%1 is not an object").arg(what));
        return v.toObject();
    }
    QJsonArray array(const QJsonValue& v, const QString& what) const
    {
        if (!v.isArray())
            bad(QStringLiteral("%1 is not a list").arg(what));
        return v.toArray();
    }
    QString string(const QJsonValue& v, const QString& what) const
    {
        if (!v.isString())
            bad(QStringLiteral("%1 is not a string").arg(what));
        return v.toString();
    }
    qint64 integer(const QJsonValue& v, const QString& what) const
    {
        if (!v.isDouble())
            bad(QStringLiteral("%1 is not a number").arg(what));
        return toInt64(v);
    }
    /// A union (one key, "as_tensor": {...}): its key and value.
    std::pair<QString, QJsonValue> union_(const QJsonValue& v, const QString& what) const
    {
        const QJsonObject o = object(v, what);
        // Serialized unions hold one field; older writers wrote {"type": ..., "value": ...}.
        if (o.size() == 2 && o.contains(QStringLiteral("type")) && o.contains(QStringLiteral("value")))
            return { o.value(QStringLiteral("type")).toString(), o.value(QStringLiteral("value")) };
        if (o.size() != 1)
            bad(QStringLiteral("%1 is not a union of one field (it has %2)").arg(what).arg(o.size()));
        return { o.begin().key(), o.begin().value() };
    }
};

QString symIntText(const Reader& r, const QJsonValue& v, const QString& what, qint64* concrete)
{
    const auto [key, value] = r.union_(v, what);
    if (key == QLatin1String("as_int")) {
        *concrete = r.integer(value, what);
        return QString::number(*concrete);
    }
    *concrete = -1;
    if (key == QLatin1String("as_expr")) {
        if (value.isString()) // torch 2.1
            return symText(value.toString());
        const QJsonObject e = r.object(value, what);
        return symText(r.string(e.value(QStringLiteral("expr_str")), what + QStringLiteral(".expr_str")));
    }
    if (key == QLatin1String("as_name"))
        return r.string(value, what);
    bad(QStringLiteral("%1: a size of unknown kind '%2'").arg(what, key));
}

/// Builds the IrGraph of a Graph and its subgraphs.
struct GraphBuilder
{
    Reader& r;
    IrGraph& g;
    int nodeCount = 0;

    struct Scope
    {
        QHash<QString, int> values; ///< names defined in this graph
        const Scope* parent = nullptr;
        QJsonObject tensorValues, symIntValues, symBoolValues, symFloatValues, customObjValues;
        int lookup(const QString& name) const
        {
            for (const Scope* s = this; s; s = s->parent)
                if (auto it = s->values.find(name); it != s->values.end())
                    return it.value();
            return -1;
        }
    };

    int newValue(Scope& scope, const QString& name, int producer, const QString& what)
    {
        if (scope.values.contains(name))
            bad(QStringLiteral("%1: the value '%2' is defined twice").arg(what, name));
        IrValue v;
        v.id = int(g.values.size());
        v.name = name;
        v.producer = producer;
        describe(scope, v, what);
        g.values.push_back(v);
        scope.values.insert(name, v.id);
        return v.id;
    }

    void describe(const Scope& scope, IrValue& v, const QString& what)
    {
        if (scope.tensorValues.contains(v.name)) {
            const QString w = QStringLiteral("tensor_values.%1").arg(v.name);
            const QJsonObject meta = r.object(scope.tensorValues.value(v.name), w);
            TensorInfo t;
            t.dtype = scalarTypeName(int(r.integer(meta.value(QStringLiteral("dtype")), w + QStringLiteral(".dtype"))));
            QVector<qint64> sizes;
            QStringList dims;
            const QJsonArray jsizes = r.array(meta.value(QStringLiteral("sizes")), w + QStringLiteral(".sizes"));
            for (int k = 0; k < jsizes.size(); ++k) {
                qint64 c = -1;
                dims << symIntText(r, jsizes[k], QStringLiteral("%1.sizes[%2]").arg(w).arg(k), &c);
                sizes << c;
            }
            t.sizes = sizes;
            const QJsonValue device = meta.value(QStringLiteral("device"));
            if (device.isObject()) {
                t.device = device.toObject().value(QStringLiteral("type")).toString();
                const QJsonValue index = device.toObject().value(QStringLiteral("index"));
                if (index.isDouble())
                    t.device += QLatin1Char(':') + QString::number(index.toInteger());
            }
            QString extra;
            if (const QJsonValue l = meta.value(QStringLiteral("layout")); l.isDouble() && l.toInt() != 7)
                extra = QStringLiteral(", layout=") + layoutName(l.toInt());
            if (!t.device.isEmpty() && t.device != QLatin1String("cpu"))
                extra += QStringLiteral(", device=") + t.device;
            v.type = t.dtype + QLatin1Char('(') + dims.join(QStringLiteral(", ")) + extra + QLatin1Char(')');
            v.tensor = t;
        } else if (scope.symIntValues.contains(v.name)) {
            qint64 c = -1;
            const QString e
                = symIntText(r, scope.symIntValues.value(v.name), QStringLiteral("sym_int_values.%1").arg(v.name), &c);
            v.type = QStringLiteral("SymInt(%1)").arg(e);
        } else if (scope.symBoolValues.contains(v.name)) {
            v.type = QStringLiteral("SymBool");
        } else if (scope.symFloatValues.contains(v.name)) {
            v.type = QStringLiteral("SymFloat");
        } else if (scope.customObjValues.contains(v.name)) {
            v.type = scope.customObjValues.value(v.name).toObject().value(QStringLiteral("class_fqn")).toString();
        } else {
            for (const Scope* s = scope.parent; s; s = s->parent) // a subgraph may use its parent's metadata
                if (s->tensorValues.contains(v.name) || s->symIntValues.contains(v.name)) {
                    describe(*s, v, what);
                    return;
                }
            v.type = QStringLiteral("Tensor");
        }
    }

    /// A constant argument as text, as FX prints it.
    QString constantText(const QString& key, const QJsonValue& value, const QString& what)
    {
        auto list = [&](auto item) {
            QStringList items;
            const QJsonArray a = r.array(value, what);
            for (int k = 0; k < a.size(); ++k)
                items << item(a[k], QStringLiteral("%1[%2]").arg(what).arg(k));
            return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
        };
        auto number = [&](const QJsonValue& v, const QString& w) {
            if (v.isString()) // inf, -inf, nan
                return v.toString();
            if (!v.isDouble())
                bad(QStringLiteral("%1 is not a number").arg(w));
            const double d = v.toDouble();
            if (!key.contains(QLatin1String("float")))
                return QString::number(toInt64(v));
            // As Python's repr: the shortest text that reads back, a whole number with ".0".
            QString text = QString::number(d, 'g', QLocale::FloatingPointShortest);
            if (!text.contains(QLatin1Char('.')) && !text.contains(QLatin1Char('e'))
                && !text.contains(QLatin1Char('n')))
                text += QStringLiteral(".0");
            return text;
        };
        auto boolean = [&](const QJsonValue& v, const QString& w) {
            if (!v.isBool())
                bad(QStringLiteral("%1 is not a bool").arg(w));
            return v.toBool() ? QStringLiteral("True") : QStringLiteral("False");
        };
        auto symbolic = [&](const QJsonValue& v, const QString& w) {
            const auto [k, inner] = r.union_(v, w);
            if (k == QLatin1String("as_name"))
                return r.string(inner, w);
            if (k == QLatin1String("as_bool"))
                return boolean(inner, w);
            return number(inner, w);
        };
        if (key == QLatin1String("as_none"))
            return QStringLiteral("None");
        if (key == QLatin1String("as_int") || key == QLatin1String("as_float"))
            return number(value, what);
        if (key == QLatin1String("as_ints") || key == QLatin1String("as_floats"))
            return list(number);
        if (key == QLatin1String("as_int_lists") || key == QLatin1String("as_float_lists"))
            return list([&](const QJsonValue& v, const QString& w) {
                QStringList items;
                for (const QJsonValue& x : r.array(v, w))
                    items << number(x, w);
                return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
            });
        if (key == QLatin1String("as_bool"))
            return boolean(value, what);
        if (key == QLatin1String("as_bools"))
            return list(boolean);
        if (key == QLatin1String("as_string"))
            return QLatin1Char('\'') + r.string(value, what) + QLatin1Char('\'');
        if (key == QLatin1String("as_strings"))
            return list([&](const QJsonValue& v, const QString& w) {
                return QLatin1Char('\'') + r.string(v, w) + QLatin1Char('\'');
            });
        if (key == QLatin1String("as_scalar_type"))
            return QStringLiteral("torch.") + scalarTypeName(int(r.integer(value, what))).toLower();
        if (key == QLatin1String("as_layout"))
            return QStringLiteral("torch.") + layoutName(int(r.integer(value, what))).toLower();
        if (key == QLatin1String("as_memory_format"))
            return memoryFormatName(int(r.integer(value, what)));
        if (key == QLatin1String("as_device")) {
            const QJsonObject d = r.object(value, what);
            QString text = d.value(QStringLiteral("type")).toString();
            if (d.value(QStringLiteral("index")).isDouble())
                text += QLatin1Char(':') + QString::number(d.value(QStringLiteral("index")).toInteger());
            return QStringLiteral("device(type='%1')").arg(text);
        }
        if (key == QLatin1String("as_sym_int") || key == QLatin1String("as_sym_float")
            || key == QLatin1String("as_sym_bool"))
            return symbolic(value, what);
        if (key == QLatin1String("as_sym_ints") || key == QLatin1String("as_sym_floats")
            || key == QLatin1String("as_sym_bools"))
            return list(symbolic);
        if (key == QLatin1String("as_operator"))
            return r.string(value, what);
        if (key == QLatin1String("as_complex")) {
            const QJsonObject c = r.object(value, what);
            return QStringLiteral("complex(%1, %2)")
                .arg(c.value(QStringLiteral("real")).toDouble())
                .arg(c.value(QStringLiteral("imag")).toDouble());
        }
        if (r.ep.warnings.size() < 20) // one unknown kind is likely everywhere: the first few say it
            r.ep.warnings.append(
                { QStringLiteral("%1: an argument of kind '%2' this reader does not know, shown as its key")
                        .arg(what, key),
                    { r.ep.path, 0, 0 } });
        return QLatin1Char('<') + key + QLatin1Char('>');
    }

    /// The value names an argument refers to (tensors, symbolic values, custom objects), in order; *text is the
    /// argument as FX prints it when it also holds constants (a list with None entries, symbolic sizes).
    QStringList referencedNames(const QString& key, const QJsonValue& value, const QString& what, QString* text)
    {
        auto name = [&](const QJsonValue& v, const QString& w) {
            return r.string(r.object(v, w).value(QStringLiteral("name")), w + QStringLiteral(".name"));
        };
        if (key == QLatin1String("as_tensor") || key == QLatin1String("as_custom_obj"))
            return { name(value, what) };
        if (key == QLatin1String("as_tensors")) {
            QStringList names;
            const QJsonArray a = r.array(value, what);
            for (int k = 0; k < a.size(); ++k)
                names << name(a[k], QStringLiteral("%1[%2]").arg(what).arg(k));
            return names;
        }
        if (key == QLatin1String("as_nested_tensors")) {
            QStringList names;
            for (const QJsonValue& inner : r.array(value, what))
                for (const QJsonValue& t : r.array(inner, what))
                    names << name(t, what);
            return names;
        }
        if (key == QLatin1String("as_optional_tensor") || key == QLatin1String("as_optional_tensors")) {
            const QJsonArray a
                = key == QLatin1String("as_optional_tensor") ? QJsonArray { value } : r.array(value, what);
            QStringList names, items;
            for (int k = 0; k < a.size(); ++k) {
                const auto [k2, inner] = r.union_(a[k], QStringLiteral("%1[%2]").arg(what).arg(k));
                if (k2 == QLatin1String("as_tensor")) {
                    names << name(inner, what);
                    items << QLatin1Char('%') + names.last();
                } else {
                    items << QStringLiteral("None");
                }
            }
            if (key == QLatin1String("as_optional_tensors") && names.size() != items.size())
                *text = QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
            else if (names.isEmpty())
                *text = QStringLiteral("None");
            return names;
        }
        if (key == QLatin1String("as_sym_int") || key == QLatin1String("as_sym_float")
            || key == QLatin1String("as_sym_bool") || key == QLatin1String("as_sym_ints")
            || key == QLatin1String("as_sym_floats") || key == QLatin1String("as_sym_bools")) {
            const bool isList = key.endsWith(QLatin1Char('s'));
            const QJsonArray a = isList ? r.array(value, what) : QJsonArray { value };
            QStringList names;
            bool constants = false;
            for (int k = 0; k < a.size(); ++k) {
                const auto [k2, inner] = r.union_(a[k], QStringLiteral("%1[%2]").arg(what).arg(k));
                if (k2 == QLatin1String("as_name"))
                    names << r.string(inner, what);
                else
                    constants = true;
            }
            if (constants)
                *text = constantText(key, value, what);
            return names;
        }
        *text = constantText(key, value, what);
        return {};
    }

    int outputValue(Scope& scope, int node, const QJsonValue& out, const QString& what)
    {
        const auto [key, value] = r.union_(out, what);
        QString text;
        const QStringList names = referencedNames(key, value, what, &text);
        for (const QString& n : names)
            g.nodes[node].outputs << newValue(scope, n, node, what);
        return int(names.size());
    }

    /// The kind of a target: "torch.ops.aten.linear.default" -> ("aten::linear", "default").
    static std::pair<QString, QString> kindOf(const QString& target)
    {
        static const QString ops = QStringLiteral("torch.ops.");
        if (target.startsWith(ops)) {
            const QStringList parts = target.mid(ops.size()).split(QLatin1Char('.'));
            if (parts.size() >= 3)
                return { parts[0] + QStringLiteral("::") + parts.mid(1, parts.size() - 2).join(QLatin1Char('.')),
                    parts.last() };
            if (parts.size() == 2)
                return { parts[0] + QStringLiteral("::") + parts[1], {} };
        }
        // Python callables: "_operator.getitem", "torch._assert", "math.ceil".
        const int dot = target.lastIndexOf(QLatin1Char('.'));
        if (dot > 0)
            return { target.left(dot) + QStringLiteral("::") + target.mid(dot + 1), {} };
        return { target, {} };
    }

    /// nn_module_stack "key,path,type;key,path,type": commas inside brackets belong to the path.
    static QVector<QStringList> moduleStack(const QString& text)
    {
        QVector<QStringList> entries;
        for (const QString& item : text.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
            QStringList parts;
            int depth = 0, start = 0;
            for (int k = 0; k < item.size(); ++k) {
                const QChar c = item[k];
                if (c == QLatin1Char('[') || c == QLatin1Char('('))
                    ++depth;
                else if (c == QLatin1Char(']') || c == QLatin1Char(')'))
                    --depth;
                else if (c == QLatin1Char(',') && depth == 0) {
                    parts << item.mid(start, k - start);
                    start = k + 1;
                }
            }
            parts << item.mid(start);
            if (parts.size() == 3)
                entries << parts;
        }
        return entries;
    }

    /// "L['self'].layers[0]" and "self.layers.0" as "layers.0".
    static QString modulePath(QString path)
    {
        static const QRegularExpression self(QStringLiteral("^(L\\['self'\\]|L__self__|self)\\.?"));
        static const QRegularExpression index(QStringLiteral("\\[['\"]?([^\\]'\"]*)['\"]?\\]"));
        path.remove(self);
        path.replace(index, QStringLiteral(".\\1"));
        if (path.startsWith(QLatin1Char('.')))
            path.remove(0, 1);
        return path;
    }

    /// stack_trace: "File \"X\", line N, in f\n    code\n  File ..." outermost first.
    static QVector<SourceLocation> stackOf(const QString& trace)
    {
        static const QRegularExpression frame(QStringLiteral("File \"([^\"]*)\", line (\\d+)"));
        QVector<SourceLocation> frames;
        for (auto it = frame.globalMatch(trace); it.hasNext();) {
            const auto m = it.next();
            frames.prepend({ m.captured(1), m.captured(2).toInt(), 0 });
        }
        return frames;
    }

    void buildNodes(const QJsonObject& graph, Scope& scope, IrBlock& block, int parent, int parentBlock,
        const QString& what, int depth, QHash<QString, QString>* moduleTypes)
    {
        const QJsonArray nodes = r.array(graph.value(QStringLiteral("nodes")), what + QStringLiteral(".nodes"));
        for (int k = 0; k < nodes.size(); ++k) {
            if (++nodeCount > kMaxNodes)
                bad(QStringLiteral("more than %1 nodes").arg(kMaxNodes));
            const QJsonObject jn = r.object(nodes[k], QStringLiteral("%1.nodes[%2]").arg(what).arg(k));
            const QString target
                = r.string(jn.value(QStringLiteral("target")), QStringLiteral("%1.nodes[%2].target").arg(what).arg(k));
            const QString nodeName = jn.value(QStringLiteral("name")).toString();
            const QString w = nodeName.isEmpty() ? QStringLiteral("%1.nodes[%2] (%3)").arg(what).arg(k).arg(target)
                                                 : QStringLiteral("node '%1' (%2)").arg(nodeName, target);
            IrNode n;
            n.id = int(g.nodes.size());
            n.parentNode = parent;
            n.parentBlock = parentBlock;
            const auto [kind, overload] = kindOf(target);
            n.kind = kind;
            QStringList attrTexts;
            if (!overload.isEmpty()) {
                n.attributes.append({ QStringLiteral("overload"), QStringLiteral("s"), overload, {} });
                attrTexts << QStringLiteral("overload=\"%1\"").arg(overload);
            }
            const QJsonObject meta = jn.value(QStringLiteral("metadata")).toObject();
            if (const QString st = meta.value(QStringLiteral("stack_trace")).toString(); !st.isEmpty()) {
                n.stack = stackOf(st);
                // The innermost frame of a file: FX's generated code ("<eval_with_key>.23") is no place to show.
                for (const SourceLocation& frame : std::as_const(n.stack))
                    if (!frame.file.startsWith(QLatin1Char('<'))) {
                        n.location = frame;
                        break;
                    }
            }
            if (const QString ms = meta.value(QStringLiteral("nn_module_stack")).toString(); !ms.isEmpty()) {
                QStringList scopes;
                for (const QStringList& e : moduleStack(ms)) {
                    // What torch's passes give a node they create with no module (torch/_export/passes/
                    // _node_metadata_hook.py): no module at all.
                    if (e[0] == QLatin1String("_empty_nn_module_stack_from_metadata_hook"))
                        continue;
                    const QString path = modulePath(e[1]);
                    if (moduleTypes && !moduleTypes->contains(path))
                        moduleTypes->insert(path, e[2]);
                    if (path.isEmpty())
                        continue;
                    scopes << QStringLiteral("__module.") + path;
                    n.modulePath = path;
                }
                n.scope = scopes.join(QLatin1Char('/'));
            } else if (parent >= 0) {
                n.modulePath = g.nodes[parent].modulePath;
                n.scope = g.nodes[parent].scope;
            }
            g.nodes.push_back(n);
            block.nodes << n.id;
            const QJsonArray inputs = r.array(jn.value(QStringLiteral("inputs")), w + QStringLiteral(".inputs"));
            for (int a = 0; a < inputs.size(); ++a) {
                const QJsonObject named = r.object(inputs[a], QStringLiteral("%1.inputs[%2]").arg(w).arg(a));
                // Higher-order operators' arguments have no names ("").
                QString argName = named.value(QStringLiteral("name")).toString();
                if (argName.isEmpty())
                    argName = QStringLiteral("arg%1").arg(a);
                const QString aw = QStringLiteral("%1, argument '%2'").arg(w, argName);
                const auto [key, value] = r.union_(named.value(QStringLiteral("arg")), aw);
                if (key == QLatin1String("as_graph")) {
                    if (depth >= kMaxSubgraphDepth)
                        bad(QStringLiteral("%1: subgraphs nested more than %2 deep").arg(aw).arg(kMaxSubgraphDepth));
                    const QJsonObject ga = r.object(value, aw);
                    const QJsonObject sub = r.object(ga.value(QStringLiteral("graph")), aw + QStringLiteral(".graph"));
                    IrBlock b;
                    Scope inner = scopeOf(sub, &scope, aw);
                    const int blockIndex = int(g.nodes[n.id].blocks.size());
                    g.nodes[n.id].blocks.push_back({});
                    buildGraph(sub, inner, b, n.id, blockIndex, aw, depth + 1, moduleTypes);
                    g.nodes[n.id].blocks[blockIndex] = b;
                    g.nodes[n.id].attributes.append(
                        { argName, QStringLiteral("g"), ga.value(QStringLiteral("name")).toString(), {} });
                    continue;
                }
                QString text;
                const QStringList names = referencedNames(key, value, aw, &text);
                for (const QString& name : names) {
                    const int id = scope.lookup(name);
                    if (id < 0)
                        bad(QStringLiteral("%1 uses '%2', which no node or input defines before it").arg(aw, name));
                    g.nodes[n.id].inputs << id;
                }
                if (!text.isEmpty()) {
                    g.nodes[n.id].attributes.append({ argName, QStringLiteral("s"), text, {} });
                    attrTexts << argName + QLatin1Char('=') + text;
                }
            }
            g.nodes[n.id].attributeText = attrTexts.isEmpty()
                ? QString()
                : QLatin1Char('[') + attrTexts.join(QStringLiteral(", ")) + QLatin1Char(']');
            const QJsonArray outputs = r.array(jn.value(QStringLiteral("outputs")), w + QStringLiteral(".outputs"));
            for (int o = 0; o < outputs.size(); ++o)
                outputValue(scope, n.id, outputs[o], QStringLiteral("%1.outputs[%2]").arg(w).arg(o));
        }
    }

    Scope scopeOf(const QJsonObject& graph, const Scope* parent, const QString& what)
    {
        Scope s;
        s.parent = parent;
        auto dict = [&](const char* key) {
            const QJsonValue v = graph.value(QLatin1String(key));
            if (v.isUndefined() || v.isNull())
                return QJsonObject();
            return r.object(v, QStringLiteral("%1.%2").arg(what, QLatin1String(key)));
        };
        s.tensorValues = dict("tensor_values");
        s.symIntValues = dict("sym_int_values");
        s.symBoolValues = dict("sym_bool_values");
        s.symFloatValues = dict("sym_float_values");
        s.customObjValues = dict("custom_obj_values");
        return s;
    }

    void buildGraph(const QJsonObject& graph, Scope& scope, IrBlock& block, int parent, int parentBlock,
        const QString& what, int depth, QHash<QString, QString>* moduleTypes)
    {
        const QJsonArray inputs = r.array(graph.value(QStringLiteral("inputs")), what + QStringLiteral(".inputs"));
        for (int k = 0; k < inputs.size(); ++k) {
            const QString w = QStringLiteral("%1.inputs[%2]").arg(what).arg(k);
            const auto [key, value] = r.union_(inputs[k], w);
            QString text;
            const QStringList names = referencedNames(key, value, w, &text);
            if (names.isEmpty()) {
                // A constant input (torch 2.5+: constant_input specs): a value named by its text.
                IrValue v;
                v.id = int(g.values.size());
                v.name = QStringLiteral("constant%1").arg(k);
                v.type = text;
                g.values.push_back(v);
                block.inputs << v.id;
                continue;
            }
            for (const QString& n : names)
                block.inputs << newValue(scope, n, -1, w);
        }
        buildNodes(graph, scope, block, parent, parentBlock, what, depth, moduleTypes);
        const QJsonArray outputs = r.array(graph.value(QStringLiteral("outputs")), what + QStringLiteral(".outputs"));
        for (int k = 0; k < outputs.size(); ++k) {
            const QString w = QStringLiteral("%1.outputs[%2]").arg(what).arg(k);
            const auto [key, value] = r.union_(outputs[k], w);
            QString text;
            const QStringList names = referencedNames(key, value, w, &text);
            for (const QString& name : names) {
                const int id = scope.lookup(name);
                if (id < 0)
                    bad(QStringLiteral("%1 is '%2', which no node or input defines").arg(w, name));
                block.outputs << id;
            }
            if (names.isEmpty()) {
                // A constant output (None, an int): a prim::Constant as TorchScript would have.
                IrNode c;
                c.id = int(g.nodes.size());
                c.kind = QStringLiteral("prim::Constant");
                c.parentNode = parent;
                c.parentBlock = parentBlock;
                IrValue v;
                v.id = int(g.values.size());
                v.name = QStringLiteral("output%1").arg(k);
                v.producer = c.id;
                v.type = text == QLatin1String("None") ? QStringLiteral("NoneType") : QStringLiteral("Scalar");
                if (text != QLatin1String("None")) {
                    c.attributes.append({ QStringLiteral("value"), QStringLiteral("s"), text, {} });
                    c.attributeText = QStringLiteral("[value=%1]").arg(text);
                }
                c.outputs << v.id;
                g.values.push_back(v);
                g.nodes.push_back(c);
                block.nodes << c.id;
                block.outputs << v.id;
            }
        }
    }
};

QString inputKind(const QString& key)
{
    static const QHash<QString, QString> kinds {
        { QStringLiteral("user_input"), QStringLiteral("user input") },
        { QStringLiteral("parameter"), QStringLiteral("parameter") },
        { QStringLiteral("buffer"), QStringLiteral("buffer") },
        { QStringLiteral("tensor_constant"), QStringLiteral("constant") },
        { QStringLiteral("custom_obj"), QStringLiteral("custom object") },
        { QStringLiteral("token"), QStringLiteral("token") },
        { QStringLiteral("constant_input"), QStringLiteral("constant input") },
    };
    return kinds.value(key);
}

QString outputKind(const QString& key)
{
    static const QHash<QString, QString> kinds {
        { QStringLiteral("user_output"), QStringLiteral("user output") },
        { QStringLiteral("loss_output"), QStringLiteral("loss output") },
        { QStringLiteral("buffer_mutation"), QStringLiteral("buffer mutation") },
        { QStringLiteral("parameter_mutation"), QStringLiteral("parameter mutation") },
        { QStringLiteral("gradient_to_parameter"), QStringLiteral("gradient to parameter") },
        { QStringLiteral("gradient_to_user_input"), QStringLiteral("gradient to user input") },
        { QStringLiteral("user_input_mutation"), QStringLiteral("user input mutation") },
        { QStringLiteral("token"), QStringLiteral("token") },
    };
    return kinds.value(key);
}

/// The name an Argument (or TensorArgument, TokenArgument, CustomObjArgument) of a spec refers to.
QString specArgument(const Reader& r, const QJsonValue& arg, const QString& what)
{
    const QJsonObject o = r.object(arg, what);
    if (o.contains(QStringLiteral("name")) && o.size() <= 2) // TensorArgument, CustomObjArgument
        return o.value(QStringLiteral("name")).toString();
    const auto [key, value] = r.union_(arg, what);
    if (value.isObject())
        return value.toObject()
            .value(QStringLiteral("name"))
            .toString(value.toObject().value(QStringLiteral("as_name")).toString());
    if (key == QLatin1String("as_none"))
        return QStringLiteral("None");
    return value.toVariant().toString();
}

void readSignature(Reader& r, const QJsonObject& gm)
{
    const QJsonValue sig = gm.value(QStringLiteral("signature"));
    if (sig.isUndefined() || sig.isNull())
        return;
    const QJsonObject s = r.object(sig, QStringLiteral("graph_module.signature"));
    const QJsonArray ins
        = r.array(s.value(QStringLiteral("input_specs")), QStringLiteral("graph_module.signature.input_specs"));
    for (int k = 0; k < ins.size(); ++k) {
        const QString w = QStringLiteral("graph_module.signature.input_specs[%1]").arg(k);
        const auto [key, value] = r.union_(ins[k], w);
        ExportedInputSpec spec;
        spec.kind = inputKind(key);
        if (spec.kind.isEmpty()) {
            r.ep.warnings.append(
                { QStringLiteral("%1: an input spec of kind '%2' this reader does not know").arg(w, key),
                    { r.ep.path, 0, 0 } });
            spec.kind = key;
        }
        const QJsonObject o = r.object(value, w);
        if (o.contains(QStringLiteral("arg")))
            spec.argument = specArgument(r, o.value(QStringLiteral("arg")), w + QStringLiteral(".arg"));
        for (const char* t : { "parameter_name", "buffer_name", "tensor_constant_name", "custom_obj_name", "name" })
            if (o.value(QLatin1String(t)).isString()) {
                spec.target = o.value(QLatin1String(t)).toString();
                break;
            }
        if (key == QLatin1String("constant_input")) {
            const auto [ck, cv] = r.union_(o.value(QStringLiteral("value")), w + QStringLiteral(".value"));
            spec.argument = ck == QLatin1String("as_none") ? QStringLiteral("None") : cv.toVariant().toString();
        }
        spec.persistent = o.value(QStringLiteral("persistent")).toBool(true);
        r.ep.inputs << spec;
    }
    const QJsonArray outs
        = r.array(s.value(QStringLiteral("output_specs")), QStringLiteral("graph_module.signature.output_specs"));
    for (int k = 0; k < outs.size(); ++k) {
        const QString w = QStringLiteral("graph_module.signature.output_specs[%1]").arg(k);
        const auto [key, value] = r.union_(outs[k], w);
        ExportedOutputSpec spec;
        spec.kind = outputKind(key);
        if (spec.kind.isEmpty()) {
            r.ep.warnings.append(
                { QStringLiteral("%1: an output spec of kind '%2' this reader does not know").arg(w, key),
                    { r.ep.path, 0, 0 } });
            spec.kind = key;
        }
        const QJsonObject o = r.object(value, w);
        spec.argument = specArgument(r, o.value(QStringLiteral("arg")), w + QStringLiteral(".arg"));
        for (const char* t : { "buffer_name", "parameter_name", "user_input_name" })
            if (o.value(QLatin1String(t)).isString()) {
                spec.target = o.value(QLatin1String(t)).toString();
                break;
            }
        r.ep.outputs << spec;
    }
}

void readProgram(Reader& r, const QJsonObject& root)
{
    ExportedProgram& ep = r.ep;
    // The version first: a newer major version is refused before anything else is read, as torch refuses it.
    const QJsonValue version = root.value(QStringLiteral("schema_version"));
    if (version.isObject()) {
        ep.schemaMajor
            = int(r.integer(version.toObject().value(QStringLiteral("major")), QStringLiteral("schema_version.major")));
        ep.schemaMinor
            = int(r.integer(version.toObject().value(QStringLiteral("minor")), QStringLiteral("schema_version.minor")));
    } else if (version.isDouble()) { // torch 2.1: one number
        ep.schemaMajor = version.toInt();
    } else if (ep.schemaMajor == 0) {
        bad(QStringLiteral("no schema_version: not an ExportedProgram's JSON"));
    }
    ep.torchVersion = root.value(QStringLiteral("torch_version")).toString(QStringLiteral("<=2.4"));
    if (ep.schemaMajor > kExportSchemaMajor)
        bad(QStringLiteral(
            "schema version %1.%2 is newer than this reader's (%3.x): saved by torch %4; a newer JitScope "
            "reads it")
                .arg(ep.schemaMajor)
                .arg(ep.schemaMinor)
                .arg(kExportSchemaMajor)
                .arg(ep.torchVersion));
    for (const QJsonValue& v : root.value(QStringLiteral("verifiers")).toArray())
        ep.verifiers << v.toString();
    if (root.value(QStringLiteral("dialect")).isString()) // before verifiers (torch 2.3)
        ep.verifiers << root.value(QStringLiteral("dialect")).toString();

    const QJsonObject gm = r.object(root.value(QStringLiteral("graph_module")), QStringLiteral("graph_module"));
    readSignature(r, gm);

    const QJsonObject graph = r.object(gm.value(QStringLiteral("graph")), QStringLiteral("graph_module.graph"));
    GraphBuilder b { r, ep.graph };
    GraphBuilder::Scope scope = b.scopeOf(graph, nullptr, QStringLiteral("graph_module.graph"));
    QHash<QString, QString> moduleTypes;
    b.buildGraph(graph, scope, ep.graph.top, -1, -1, QStringLiteral("graph_module.graph"), 0, &moduleTypes);

    // The signature's kinds on the placeholders.
    for (const ExportedInputSpec& spec : std::as_const(ep.inputs)) {
        const int id = scope.values.value(spec.argument, -1);
        if (id < 0)
            continue;
        ep.graph.values[id].role = spec.kind;
        ep.graph.values[id].roleTarget = spec.target;
    }

    const QJsonObject ranges = root.value(QStringLiteral("range_constraints")).toObject();
    for (auto it = ranges.begin(); it != ranges.end(); ++it) {
        const QString w = QStringLiteral("range_constraints.%1").arg(it.key());
        const QJsonObject o = r.object(it.value(), w);
        RangeConstraint c;
        c.symbol = symText(it.key());
        // torch before int_oo wrote "infinity" as the largest int64 (less one or two), or as a huge float.
        auto bound = [&](const char* key) -> std::optional<qint64> {
            const QJsonValue v = o.value(QLatin1String(key));
            if (!v.isDouble())
                return std::nullopt;
            const double d = v.toDouble();
            if (d >= 9.2e18 || d <= -9.2e18)
                return std::nullopt;
            return v.toInteger(qint64(d));
        };
        c.min = bound("min_val");
        c.max = bound("max_val");
        ep.rangeConstraints << c;
    }

    QStringList fqns;
    for (const QJsonValue& e : gm.value(QStringLiteral("module_call_graph")).toArray())
        if (const QJsonValue f = e.toObject().value(QStringLiteral("fqn")); f.isString())
            fqns << GraphBuilder::modulePath(f.toString());
    for (auto it = moduleTypes.cbegin(); it != moduleTypes.cend(); ++it)
        if (!fqns.contains(it.key()))
            fqns << it.key();
    if (!fqns.contains(QString()))
        fqns.prepend(QString());
    // Root first, then as the call graph lists them (their call order), the rest sorted.
    std::stable_sort(
        fqns.begin(), fqns.end(), [](const QString& a, const QString& b) { return a.isEmpty() && !b.isEmpty(); });
    for (const QString& path : std::as_const(fqns))
        ep.modules.append({ path, moduleTypes.value(path) });
}

ExportedProgram parseJson(ExportedProgram ep, const QByteArray& json)
{
    Reader r { ep, ep.entry.isEmpty() ? QString() : ep.entry };
    try {
        QJsonParseError pe;
        const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
        if (pe.error != QJsonParseError::NoError)
            bad(QStringLiteral("not valid JSON: %1 at byte %2").arg(pe.errorString()).arg(pe.offset));
        if (!doc.isObject())
            bad(QStringLiteral("not an ExportedProgram (the JSON is not an object)"));
        readProgram(r, doc.object());
        ep.ok = true;
    } catch (const ReadError& e) {
        ep = ExportedProgram { ep.path, ep.entry, ep.layout, ep.models };
        ep.error.message = r.where.isEmpty() ? e.message : QStringLiteral("%1: %2").arg(r.where, e.message);
        ep.error.location.file = ep.path;
    }
    return ep;
}

ExportedProgram failure(const QString& path, const QString& message)
{
    ExportedProgram ep;
    ep.path = path;
    ep.error = { message, { path, 0, 0 } };
    return ep;
}

/// What the package's entries make of it.
struct PackageLayout
{
    QString prefix; ///< "m/": the top folder, or empty
    QStringList models; ///< models/*.json entries
    QString legacy; ///< serialized_exported_program.json
    bool aotInductor = false;
    bool torchScript = false;
};

PackageLayout layoutOf(const ZipReader& zip)
{
    PackageLayout l;
    static const QRegularExpression model(QStringLiteral("^(?:([^/]+)/)?models/([^/]+)\\.json$"));
    for (const ZipReader::Entry& e : zip.entries()) {
        if (const auto m = model.match(e.name); m.hasMatch()) {
            l.models << e.name;
            l.prefix = m.captured(1).isEmpty() ? QString() : m.captured(1) + QLatin1Char('/');
        } else if (e.name == QLatin1String("serialized_exported_program.json")
            || e.name.endsWith(QLatin1String("/serialized_exported_program.json"))) {
            l.legacy = e.name;
        } else if (e.name.contains(QLatin1String("data/aotinductor/"))) {
            l.aotInductor = true;
        } else if (e.name == QLatin1String("data.pkl") || e.name.endsWith(QLatin1String("/data.pkl"))
            || e.name.contains(QLatin1String("/code/__torch__/"))) {
            l.torchScript = true;
        }
    }
    std::sort(l.models.begin(), l.models.end());
    return l;
}

ExportedProgram readPackage(QIODevice* device, const QString& path)
{
    ZipReader zip(device);
    QString error;
    if (!zip.open(&error))
        return failure(path, error);
    const PackageLayout l = layoutOf(zip);
    ExportedProgram ep;
    ep.path = path;
    if (!l.models.isEmpty()) {
        // torch.export.save names its one program "model".
        const QString preferred = l.prefix + QStringLiteral("models/model.json");
        ep.entry = l.models.contains(preferred) ? preferred : l.models.first();
        ep.layout = QStringLiteral("models/NAME.json");
        if (l.models.size() > 1)
            ep.models = l.models;
    } else if (!l.legacy.isEmpty()) {
        ep.entry = l.legacy;
        ep.layout = QStringLiteral("serialized_exported_program.json");
    } else if (l.aotInductor) {
        return failure(path,
            QStringLiteral(
                "an AOTInductor package (torch._inductor.aoti_compile_and_package: compiled code, no graph), "
                "not an exported program; JitScope reads .pt2 files of torch.export.save"));
    } else if (l.torchScript) {
        return failure(path, QStringLiteral("a TorchScript archive, not an exported program (open it as a .pt file)"));
    } else {
        return failure(path,
            QStringLiteral("a zip without an exported program: no models/NAME.json (torch 2.8+) or "
                           "serialized_exported_program.json (torch 2.1 to 2.7) in its %1 entries")
                .arg(zip.entries().size()));
    }
    const ZipReader::Entry* entry = zip.find(ep.entry);
    std::optional<QByteArray> json = zip.read(*entry, kMaxJson, &error);
    if (!json)
        return failure(path, error);
    // The older layout says its schema version in a file of its own ("8.3"), as torch 2.1-2.7's load read it.
    if (!l.legacy.isEmpty() && l.models.isEmpty()) {
        const QString versionName
            = l.legacy.left(l.legacy.lastIndexOf(QLatin1Char('/')) + 1) + QStringLiteral("version");
        if (const ZipReader::Entry* v = zip.find(versionName)) {
            if (auto text = zip.read(*v, 64, &error)) {
                const QStringList parts = QString::fromLatin1(*text).trimmed().split(QLatin1Char('.'));
                bool okMajor = false;
                const int major = parts.value(0).toInt(&okMajor);
                if (okMajor && major > kExportSchemaMajor)
                    return failure(path,
                        QStringLiteral(
                            "%1: schema version %2 is newer than this reader's (%3.x); a newer JitScope reads it")
                            .arg(versionName, QString::fromLatin1(*text).trimmed())
                            .arg(kExportSchemaMajor));
            }
        }
    }
    return parseJson(ep, *json);
}

} // namespace

QString RangeConstraint::text() const
{
    if (min && max)
        return QStringLiteral("%1: %2 <= %1 <= %3").arg(symbol).arg(*min).arg(*max);
    if (min)
        return QStringLiteral("%1: %1 >= %2").arg(symbol).arg(*min);
    if (max)
        return QStringLiteral("%1: %1 <= %2").arg(symbol).arg(*max);
    return QStringLiteral("%1: unbounded").arg(symbol);
}

QStringList ExportedProgram::signatureText() const
{
    QStringList lines;
    for (const ExportedInputSpec& s : inputs)
        lines << QStringLiteral("input %1 %2%3")
                     .arg(s.kind, s.argument, s.target.isEmpty() ? QString() : QStringLiteral(" <- ") + s.target);
    for (const ExportedOutputSpec& s : outputs)
        lines << QStringLiteral("output %1 %2%3")
                     .arg(s.kind, s.argument, s.target.isEmpty() ? QString() : QStringLiteral(" -> ") + s.target);
    return lines;
}

QString ExportedProgram::forwardSignature() const
{
    QStringList args, outs;
    for (int id : graph.top.inputs) {
        const IrValue& v = graph.value(id);
        if (v.role.isEmpty() || v.role == QLatin1String("user input"))
            args << v.name + QStringLiteral(": ") + v.type;
    }
    QHash<QString, QString> outputKinds;
    for (const ExportedOutputSpec& s : outputs)
        outputKinds.insert(s.argument, s.kind);
    for (int id : graph.top.outputs) {
        const IrValue& v = graph.value(id);
        const QString kind = outputKinds.value(v.name);
        if (kind.isEmpty() || kind == QLatin1String("user output"))
            outs << v.type;
    }
    return QStringLiteral("forward(%1) -> %2")
        .arg(args.join(QStringLiteral(", ")),
            outs.size() == 1 ? outs.first() : QLatin1Char('(') + outs.join(QStringLiteral(", ")) + QLatin1Char(')'));
}

ExportedProgram readExportedProgram(const QString& path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return failure(path, QStringLiteral("no such file"));
    if (!info.isFile())
        return failure(path, QStringLiteral("not a regular file"));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return failure(path, QStringLiteral("cannot open: %1").arg(file.errorString()));
    return readPackage(&file, path);
}

ExportedProgram readExportedProgramData(const QByteArray& zip, const QString& name)
{
    QBuffer buffer;
    buffer.setData(zip);
    buffer.open(QIODevice::ReadOnly);
    return readPackage(&buffer, name);
}

ExportedProgram readExportedProgramJson(const QByteArray& json, const QString& name)
{
    ExportedProgram ep;
    ep.path = name;
    if (json.size() > kMaxJson)
        return failure(name,
            QStringLiteral("%1 MiB of JSON, more than the %2 MiB read").arg(json.size() >> 20).arg(kMaxJson >> 20));
    return parseJson(ep, json);
}

bool isExportPackage(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    ZipReader zip(&file);
    if (!zip.open(nullptr))
        return false;
    const PackageLayout l = layoutOf(zip);
    return !l.torchScript && (!l.models.isEmpty() || !l.legacy.isEmpty() || l.aotInductor);
}

} // namespace jitscope
