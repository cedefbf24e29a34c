// loadExportedProgram(): a .pt2 package as a ModelInfo, read by readExportedProgram() (exportedprogram.cpp): its
// one function, forward, whose graph is the program's; its modules, parameters, buffers and constants. No compiled
// code: the model is shown, searched and exported, not run (ModelInfo::handle stays empty). No libtorch.

#include "load/exportedprogram.h"
#include "load/loader_p.h"

#include <QFile>
#include <QFileInfo>

namespace jitscope {

namespace {

/// The program in words for the source panel: what torch prints of an ExportedProgram, in the dump format.
QString programText(const ExportedProgram& ep)
{
    QString text = QStringLiteral("# ExportedProgram read from %1 (%2)\n# saved by torch %3, schema %4.%5\n")
                       .arg(ep.entry, ep.layout, ep.torchVersion)
                       .arg(ep.schemaMajor)
                       .arg(ep.schemaMinor);
    if (ep.models.size() > 1)
        text += QStringLiteral("# the package holds %1 programs: %2\n")
                    .arg(ep.models.size())
                    .arg(ep.models.join(QStringLiteral(", ")));
    text += QStringLiteral("\n# Graph signature:\n");
    for (const QString& line : ep.signatureText())
        text += QStringLiteral("#   ") + line + QLatin1Char('\n');
    text += QStringLiteral("\n# Range constraints:\n");
    if (ep.rangeConstraints.isEmpty())
        text += QStringLiteral("#   none\n");
    for (const RangeConstraint& c : ep.rangeConstraints)
        text += QStringLiteral("#   ") + c.text() + QLatin1Char('\n');
    text += QLatin1Char('\n') + ep.graph.toText(false);
    return text;
}

/// The source files the nodes' places name and that exist here, each after a "# ===== FILE =====" header as an
/// archive's code files are (SourceMap finds a node's line by it): the source panel shows them and a node selected
/// shows its line. At most 40 files of at most 1 MiB each.
QString sourceSections(const IrGraph& graph)
{
    QStringList files;
    for (const IrNode& n : graph.nodes)
        if (n.location.isValid() && !files.contains(n.location.file))
            files << n.location.file;
    QString text;
    int taken = 0;
    for (const QString& path : std::as_const(files)) {
        if (taken == 40)
            break;
        const QFileInfo info(path);
        if (!info.isAbsolute() || !info.isFile() || info.size() > (1 << 20))
            continue;
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            continue;
        QString content = QString::fromUtf8(f.readAll());
        if (!content.endsWith(QLatin1Char('\n')))
            content += QLatin1Char('\n');
        text += QStringLiteral("\n# ===== %1 =====\n").arg(path) + content;
        ++taken;
    }
    return text;
}

} // namespace

LoadResult loadExportedProgram(const QString& path)
{
    const ExportedProgram ep = readExportedProgram(path);
    if (!ep.ok) {
        LoadResult r;
        r.error = ep.error;
        return r;
    }
    LoadResult result;
    result.ok = true;
    ModelInfo& model = result.model;
    model.path = path;
    model.kind = ModelInfo::Kind::ExportedProgram;
    model.source = programText(ep) + sourceSections(ep.graph);
    model.warnings = ep.warnings;
    if (ep.models.size() > 1)
        model.warnings.append(
            { QStringLiteral("the package holds %1 programs; %2 is shown").arg(ep.models.size()).arg(ep.entry),
                { path, 0, 0 } });

    FunctionInfo fn;
    fn.name = QStringLiteral("forward");
    fn.signature = ep.forwardSignature();
    fn.ok = true;
    fn.graph = ep.graph;
    // The program is one graph already: nothing to inline.
    fn.inlined = true;
    for (const IrNode& n : fn.graph.nodes)
        if (n.location.isValid()) {
            fn.location = n.location;
            break;
        }
    model.functions.push_back(fn);

    for (const ExportedModule& m : ep.modules)
        model.submodules.push_back({ m.path, m.typeName, m.path.isEmpty() ? QStringList { fn.name } : QStringList {} });

    QHash<QString, int> inputs; // placeholder name -> value id
    for (int id : ep.graph.top.inputs)
        inputs.insert(ep.graph.value(id).name, id);
    for (const ExportedInputSpec& s : ep.inputs) {
        ParameterInfo p;
        if (s.kind == QLatin1String("parameter"))
            p.kind = ParameterInfo::Kind::Parameter;
        else if (s.kind == QLatin1String("buffer"))
            p.kind = ParameterInfo::Kind::Buffer;
        else if (s.kind == QLatin1String("constant") || s.kind == QLatin1String("custom object")
            || s.kind == QLatin1String("constant input"))
            p.kind = ParameterInfo::Kind::Attribute;
        else
            continue;
        p.name = s.target.isEmpty() ? s.argument : s.target;
        const int id = inputs.value(s.argument, -1);
        if (id >= 0) {
            const IrValue& v = ep.graph.value(id);
            p.type = v.tensor ? QStringLiteral("Tensor") : v.type;
            if (v.tensor) {
                p.dtype = v.tensor->dtype;
                p.shape = v.tensor->sizes.value_or(QVector<qint64>());
            }
        } else if (s.kind == QLatin1String("constant input")) {
            p.value = s.argument;
        }
        model.parameters.push_back(p);
    }
    return result;
}

} // namespace jitscope
