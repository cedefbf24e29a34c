#include "modeltreemodel.h"

#include <algorithm>
#include <functional>

#include <QBrush>
#include <QColor>
#include <QFont>

namespace jitscope {

namespace {

QString parameterDetails(const ParameterInfo& p)
{
    QStringList parts;
    parts << p.type;
    if (!p.dtype.isEmpty())
        parts << p.dtype;
    if (!p.dtype.isEmpty() || !p.shape.isEmpty())
        parts << shapeText(p.shape);
    if (!p.value.isEmpty())
        parts << QLatin1String("= ") + p.value;
    if (p.kind == ParameterInfo::Kind::Buffer)
        parts << QLatin1Char('(') + toText(p.kind) + QLatin1Char(')');
    return parts.join(QLatin1Char(' '));
}

// The Name column already shows the name: "forward(self, x: Tensor) -> Tensor" becomes "(self, x: Tensor) -> Tensor".
QString signatureWithoutName(const FunctionInfo& fn)
{
    const QString base = fn.name.section(QLatin1Char('.'), -1);
    if (fn.signature.startsWith(base + QLatin1Char('(')))
        return fn.signature.mid(base.size());
    return fn.signature;
}

/// The module whose method @p function is ("backbone.1" for "backbone.1.forward"), empty for the root's.
QString ownerPath(const QString& function)
{
    const int dot = function.lastIndexOf(QLatin1Char('.'));
    return dot < 0 ? QString() : function.left(dot);
}

QString shortTypeName(QString name)
{
    if (name.startsWith(QLatin1String("__torch__.")))
        name.remove(0, int(qstrlen("__torch__.")));
    return name;
}

} // namespace

ModelTreeModel::ModelTreeModel(QObject* parent)
    : QAbstractItemModel(parent)
{ }

int ModelTreeModel::addRow(int parent, Row row)
{
    row.parent = parent;
    const int id = m_rows.size();
    QVector<int>& siblings = parent < 0 ? m_topLevel : m_rows[parent].children;
    row.rowInParent = siblings.size();
    siblings.append(id);
    m_rows.append(std::move(row));
    return id;
}

int ModelTreeModel::addErrorRow(int parent, const Diagnostic& error, const QString& functionName)
{
    Row e;
    e.kind = ItemKind::CompileError;
    e.name = error.message.trimmed().section(QLatin1Char('\n'), 0, 0);
    e.details = error.location.line > 0 ? tr("line %1").arg(error.location.line) : QString();
    e.toolTip = error.toString();
    e.functionName = functionName;
    e.line = error.location.line;
    e.error = true;
    return addRow(parent, e);
}

void ModelTreeModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_topLevel.clear();
    m_functionRows.clear();
    m_model = ModelInfo();
    m_hasModel = false;
    m_python = PythonRun();
    m_verdicts.clear();
    m_hasPython = false;
    endResetModel();
}

void ModelTreeModel::setModel(const ModelInfo& model)
{
    m_model = model;
    m_hasModel = true;
    rebuild();
}

void ModelTreeModel::setPythonRun(const PythonRun& run, const QStringList& verdicts)
{
    m_python = run;
    m_verdicts = verdicts;
    m_hasPython = true;
    rebuild();
}

void ModelTreeModel::clearPythonRun()
{
    if (!m_hasPython)
        return;
    m_python = PythonRun();
    m_verdicts.clear();
    m_hasPython = false;
    rebuild();
}

QModelIndex ModelTreeModel::indexOfCall(int call) const
{
    for (int id = 0; id < m_rows.size(); ++id)
        if (m_rows.at(id).kind == ItemKind::PythonCall && m_rows.at(id).call == call)
            return createIndex(m_rows.at(id).rowInParent, 0, quintptr(id));
    return {};
}

void ModelTreeModel::addPythonRows()
{
    const PythonRun& run = m_python;
    Row top;
    top.kind = ItemKind::Group;
    top.groupOf = ItemKind::PythonCall;
    top.name = tr("Python");
    top.details = run.torchVersion.isEmpty() ? run.python : tr("torch %1").arg(run.torchVersion);
    top.toolTip = tr("What the file did when it ran with %1").arg(run.python);
    const int python = addRow(-1, top);
    auto group = [this, python](const QString& name, ItemKind kind, int count) {
        Row g;
        g.kind = ItemKind::Group;
        g.groupOf = kind;
        g.name = name;
        g.details = QString::number(count);
        return addRow(python, g);
    };

    const int calls = group(tr("Recorded calls"), ItemKind::PythonCall, run.calls.size());
    for (const PythonCall& c : run.calls) {
        Row row;
        row.kind = ItemKind::PythonCall;
        row.call = c.index;
        row.name = QStringLiteral("torch.jit.%1(%2)").arg(c.api, c.target);
        const QString verdict = m_verdicts.value(c.index);
        QStringList details { tr("line %1").arg(c.location.line) };
        if (!c.traces.isEmpty())
            details << (c.traces.size() == 1 ? tr("1 input set") : tr("%1 input sets").arg(c.traces.size()));
        if (!verdict.isEmpty())
            details << verdict;
        row.details = details.join(QStringLiteral(" \u00b7 "));
        QStringList tip { QStringLiteral("line %1: torch.jit.%2(%3)").arg(c.location.line).arg(c.api, c.target) };
        if (!c.exampleInputs.isEmpty())
            tip << tr("example inputs: %1").arg(c.exampleInputs);
        for (const QString& ci : c.checkInputs)
            tip << tr("check inputs: %1").arg(ci);
        if (c.checked)
            tip << (c.checkPassed
                    ? tr("PyTorch's check passed")
                    : tr("PyTorch's check failed: %1").arg(c.checkMessage.section(QLatin1Char('\n'), 0, 1)));
        if (!c.ok)
            tip << c.error.toString();
        row.toolTip = tip.join(QLatin1Char('\n'));
        row.line = c.location.line;
        row.error = !c.ok || verdict == QLatin1String("diverged") || verdict == QLatin1String("failed");
        const int id = addRow(calls, row);
        if (!c.ok)
            addErrorRow(id, c.error);
        // The traced model's submodules, nested by path as the traces' module clusters are.
        QStringList paths = c.moduleTypes.keys();
        std::sort(paths.begin(), paths.end());
        QHash<QString, int> rowOfPath;
        for (const QString& path : paths) {
            const int dot = path.lastIndexOf(QLatin1Char('.'));
            Row module;
            module.kind = ItemKind::PythonMember;
            module.call = c.index;
            module.name = path.mid(dot + 1);
            module.details = c.moduleTypes.value(path);
            module.toolTip = QStringLiteral("%1 \u00b7 %2").arg(path, module.details);
            rowOfPath.insert(path, addRow(dot < 0 ? id : rowOfPath.value(path.left(dot), id), module));
        }
    }

    const int classes = group(tr("Classes"), ItemKind::PythonClass, run.modules.size());
    for (const PythonModule& m : run.modules) {
        Row row;
        row.kind = ItemKind::PythonClass;
        row.name = m.className;
        QStringList details;
        if (!m.instances.isEmpty())
            details << tr("instance %1").arg(m.instances.join(QStringLiteral(", ")));
        details << (m.scriptOk ? tr("scripts") : tr("does not script"));
        row.details = details.join(QStringLiteral(" \u00b7 "));
        row.toolTip = tr("class %1, line %2").arg(m.className).arg(m.line);
        row.line = m.line;
        row.error = !m.scriptOk;
        const int id = addRow(classes, row);
        if (!m.scriptOk)
            addErrorRow(id, m.scriptError);
        for (const PythonMethod& pm : m.methods) {
            Row r;
            r.kind = ItemKind::PythonMember;
            r.name = pm.name;
            QStringList d;
            if (pm.compiled)
                d << (pm.how == QLatin1String("implicit") ? tr("compiled (called from compiled code)")
                                                          : tr("compiled (%1)").arg(pm.how));
            else
                d << tr("not compiled");
            if (!pm.modifier.isEmpty())
                d << QStringLiteral("@torch.jit.%1").arg(pm.modifier);
            r.details = d.join(QStringLiteral(" \u00b7 "));
            r.toolTip = tr("%1.%2, line %3").arg(m.className, pm.name).arg(pm.line);
            r.line = pm.line;
            addRow(id, r);
        }
        for (const PythonModule::Attribute& a : m.attributes) {
            Row r;
            r.kind = ItemKind::PythonMember;
            r.name = a.name;
            r.details = a.value.isEmpty() ? a.type : QStringLiteral("%1 = %2").arg(a.type, a.value);
            r.toolTip = tr("attribute %1: %2").arg(a.name, r.details);
            addRow(id, r);
        }
        for (const PythonModule::Attribute& a : m.constants) {
            Row r;
            r.kind = ItemKind::PythonMember;
            r.name = a.name;
            r.details = tr("Final = %1").arg(a.value);
            r.toolTip = tr("constant %1 = %2").arg(a.name, a.value);
            addRow(id, r);
        }
    }

    const int functions = group(tr("Functions"), ItemKind::PythonFunction, run.functions.size());
    for (const PythonFunction& f : run.functions) {
        Row row;
        row.kind = ItemKind::PythonFunction;
        row.name = f.name;
        QStringList d { f.scriptOk ? tr("scripts") : tr("does not script") };
        if (!f.modifier.isEmpty())
            d << QStringLiteral("@torch.jit.%1").arg(f.modifier);
        row.details = d.join(QStringLiteral(" \u00b7 "));
        row.toolTip = tr("def %1, line %2").arg(f.name).arg(f.line);
        row.line = f.line;
        row.error = !f.scriptOk;
        const int id = addRow(functions, row);
        if (!f.scriptOk)
            addErrorRow(id, f.scriptError);
    }
}

void ModelTreeModel::rebuild()
{
    beginResetModel();
    m_rows.clear();
    m_topLevel.clear();
    m_functionRows.clear();
    if (m_hasPython)
        addPythonRows();
    if (!m_hasModel) {
        endResetModel();
        return;
    }
    const ModelInfo& model = m_model;

    auto addGroup = [this](const QString& name, ItemKind kind, int count) {
        Row group;
        group.kind = ItemKind::Group;
        group.groupOf = kind;
        group.name = name;
        group.details = QString::number(count);
        return addRow(-1, group);
    };

    const int functions = addGroup(tr("Functions"), ItemKind::Function, model.functions.size());
    // An archive's methods grouped by module path, as the graph's clusters are: the root's methods first, then
    // "backbone · IntermediateLayerGetter" > "1 · InvertedResidual" > ... > forward.
    QHash<QString, QString> typeOf;
    for (const SubmoduleInfo& sub : model.submodules)
        typeOf.insert(sub.path, sub.typeName);
    QHash<QString, int> rowOfModule;
    std::function<int(const QString&)> moduleRow = [&](const QString& path) -> int {
        if (path.isEmpty())
            return functions;
        if (const auto it = rowOfModule.constFind(path); it != rowOfModule.cend())
            return it.value();
        const int dot = path.lastIndexOf(QLatin1Char('.'));
        const int parent = moduleRow(dot < 0 ? QString() : path.left(dot));
        Row row;
        row.kind = ItemKind::Submodule;
        row.name = path.mid(dot + 1);
        const QString type = typeOf.value(path);
        row.details = type.section(QLatin1Char('.'), -1);
        row.toolTip = type.isEmpty() ? path : QStringLiteral("%1 \u00b7 %2").arg(path, shortTypeName(type));
        const int id = addRow(parent, row);
        rowOfModule.insert(path, id);
        return id;
    };
    const bool archive = model.kind == ModelInfo::Kind::Archive;
    auto ownerOf = [archive](const FunctionInfo& fn) { return archive ? ownerPath(fn.name) : QString(); };
    QVector<const FunctionInfo*> ordered;
    for (const FunctionInfo& fn : model.functions)
        if (ownerOf(fn).isEmpty())
            ordered << &fn;
    for (const FunctionInfo& fn : model.functions)
        if (!ownerOf(fn).isEmpty())
            ordered << &fn;
    for (const FunctionInfo* fn : std::as_const(ordered)) {
        const QString owner = ownerOf(*fn);
        Row row;
        row.kind = ItemKind::Function;
        row.name = owner.isEmpty() ? fn->name : fn->name.mid(owner.size() + 1);
        row.details = signatureWithoutName(*fn);
        row.toolTip = fn->signature.isEmpty() ? fn->name
            : owner.isEmpty()                 ? fn->signature
                                              : owner + QLatin1Char('.') + fn->signature;
        row.functionName = fn->name;
        row.line = fn->location.line;
        row.error = !fn->ok;
        const int id = addRow(moduleRow(owner), row);
        m_functionRows.insert(fn->name, id);
        if (!fn->ok)
            addErrorRow(id, fn->error, fn->name);
    }

    const int submodules = addGroup(tr("Submodules"), ItemKind::Submodule, model.submodules.size());
    for (const SubmoduleInfo& sub : model.submodules) {
        Row row;
        row.kind = ItemKind::Submodule;
        row.name = sub.path.isEmpty() ? tr("(root)") : sub.path;
        row.details = shortTypeName(sub.typeName);
        row.toolTip = sub.typeName;
        const int id = addRow(submodules, row);
        for (const QString& method : sub.methods) {
            Row m;
            m.kind = ItemKind::Method;
            m.name = method;
            const QString qualified = sub.path.isEmpty() ? method : sub.path + QLatin1Char('.') + method;
            if (const FunctionInfo* fn = model.function(qualified)) {
                m.functionName = fn->name;
                m.details = signatureWithoutName(*fn);
                m.line = fn->location.line;
                m.error = !fn->ok;
            }
            addRow(id, m);
        }
    }

    const int parameters = addGroup(tr("Parameters"), ItemKind::Parameter, model.parameters.size());
    for (const ParameterInfo& p : model.parameters) {
        Row row;
        row.kind = ItemKind::Parameter;
        row.name = p.name;
        row.details = parameterDetails(p);
        row.toolTip = p.name + QLatin1String(": ") + row.details;
        addRow(parameters, row);
    }

    // The sets the file itself holds (a .py file's `inputs` and `check_inputs`); the Input Sets panel holds the
    // ones checked. An archive holds none: no group that would read "0" beside a panel of sets.
    if (archive && model.inputSets.isEmpty()) {
        endResetModel();
        return;
    }
    const int inputSets = addGroup(tr("File's input sets"), ItemKind::InputSet, model.inputSets.size());
    for (int i = 0; i < model.inputSets.size(); ++i) {
        const InputSet& set = model.inputSets.at(i);
        Row row;
        row.kind = ItemKind::InputSet;
        row.name = tr("Set %1").arg(i + 1);
        row.details = set.toString();
        row.toolTip = set.line > 0 ? tr("line %1: %2").arg(set.line).arg(row.details) : row.details;
        row.line = set.line;
        addRow(inputSets, row);
    }

    endResetModel();
}

QModelIndex ModelTreeModel::indexOfFunction(const QString& name) const
{
    const auto it = m_functionRows.constFind(name);
    if (it == m_functionRows.cend())
        return {};
    return createIndex(m_rows.at(it.value()).rowInParent, 0, quintptr(it.value()));
}

QModelIndex ModelTreeModel::groupIndex(ItemKind kind) const
{
    for (int id : m_topLevel) {
        if (m_rows.at(id).groupOf == kind)
            return createIndex(m_rows.at(id).rowInParent, 0, quintptr(id));
    }
    return {};
}

const ModelTreeModel::Row* ModelTreeModel::rowFor(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    const auto id = index.internalId();
    return id < quintptr(m_rows.size()) ? &m_rows.at(int(id)) : nullptr;
}

QModelIndex ModelTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= NumColumns)
        return {};
    if (parent.isValid() && parent.column() != 0)
        return {};
    const QVector<int>* children = &m_topLevel;
    if (parent.isValid()) {
        const Row* p = rowFor(parent);
        if (!p)
            return {};
        children = &p->children;
    }
    if (row >= children->size())
        return {};
    return createIndex(row, column, quintptr(children->at(row)));
}

QModelIndex ModelTreeModel::parent(const QModelIndex& child) const
{
    const Row* row = rowFor(child);
    if (!row || row->parent < 0)
        return {};
    return createIndex(m_rows.at(row->parent).rowInParent, 0, quintptr(row->parent));
}

int ModelTreeModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return m_topLevel.size();
    if (parent.column() != 0)
        return 0;
    const Row* row = rowFor(parent);
    return row ? row->children.size() : 0;
}

int ModelTreeModel::columnCount(const QModelIndex&) const
{
    return NumColumns;
}

QVariant ModelTreeModel::data(const QModelIndex& index, int role) const
{
    const Row* row = rowFor(index);
    if (!row)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        return index.column() == NameColumn ? row->name : row->details;
    case Qt::ToolTipRole:
        return row->toolTip.isEmpty() ? QVariant() : QVariant(row->toolTip);
    case Qt::ForegroundRole:
        if (row->error)
            return QBrush(QColor(0xcf, 0x22, 0x2e));
        if (index.column() == DetailsColumn && row->kind != ItemKind::Group)
            return QBrush(QColor(0x57, 0x60, 0x6a));
        return {};
    case Qt::FontRole:
        if (row->kind == ItemKind::Group) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case FunctionNameRole:
        return row->functionName;
    case SourceLineRole:
        return row->line;
    case ItemKindRole:
        return int(row->kind);
    case IsErrorRole:
        return row->error;
    case PythonCallRole:
        return row->call;
    default:
        return {};
    }
}

QVariant ModelTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case DetailsColumn:
        return tr("Details");
    default:
        return {};
    }
}

Qt::ItemFlags ModelTreeModel::flags(const QModelIndex& index) const
{
    if (!rowFor(index))
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable
        | (rowCount(index) == 0 ? Qt::ItemNeverHasChildren : Qt::NoItemFlags);
}

} // namespace jitscope
