#include "cli.h"
#include "cli_p.h"
#include "reports.h"

#include "load/exportedprogram.h"
#include "load/model.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <optional>

namespace jitscope::cli {

int commandList(Args& args, const LoadOptions& options, QTextStream& out, QTextStream& err)
{
    const QString format = args.takeValue({ QStringLiteral("--format"), QStringLiteral("-f") }, QStringLiteral("text"));
    checkFormat(format, { QStringLiteral("text"), QStringLiteral("json") });
    const QString path = fileArgument(args, QStringLiteral("list"));
    const ModelInfo model = load(path, options);
    const bool archive = model.kind == ModelInfo::Kind::Archive;
    const bool exported = model.kind == ModelInfo::Kind::ExportedProgram;
    // An exported program's signature, range constraints and versions (read again: ModelInfo keeps the graph).
    std::optional<ExportedProgram> program;
    if (exported)
        program = readExportedProgram(path);
    const FunctionInfo* firstError = nullptr;
    for (const FunctionInfo& f : model.functions)
        if (!f.ok && !firstError)
            firstError = &f;
    // A file without input sets (any archive) gets one guessed from forward's first parameters.
    std::optional<InputSuggestion> suggestion;
    if (model.inputSets.isEmpty() && !exported) { // an exported program is not run
        if (const FunctionInfo* fn = model.defaultFunction(); fn && fn->ok)
            suggestion = suggestInputSet(model, *fn);
    }

    if (format == QLatin1String("json")) {
        QJsonArray fns, subs, params, sets, warnings;
        for (const FunctionInfo& f : model.functions) {
            QJsonObject o { { QStringLiteral("name"), f.name }, { QStringLiteral("ok"), f.ok } };
            if (f.ok) {
                o.insert(QStringLiteral("signature"), f.signature);
                o.insert(QStringLiteral("nodes"), f.graph.nodes.size());
            } else {
                o.insert(QStringLiteral("error"), diagnosticJson(f.error));
            }
            if (f.location.isValid())
                o.insert(QStringLiteral("line"), f.location.line);
            fns.append(o);
        }
        for (const SubmoduleInfo& s : model.submodules)
            subs.append(QJsonObject { { QStringLiteral("path"), s.path }, { QStringLiteral("type"), s.typeName },
                { QStringLiteral("methods"), QJsonArray::fromStringList(s.methods) } });
        for (const ParameterInfo& p : model.parameters) {
            QJsonObject o { { QStringLiteral("name"), p.name }, { QStringLiteral("kind"), toText(p.kind) },
                { QStringLiteral("type"), p.type } };
            if (!p.dtype.isEmpty()) {
                o.insert(QStringLiteral("dtype"), p.dtype);
                QJsonArray shape;
                for (qint64 d : p.shape)
                    shape.append(d);
                o.insert(QStringLiteral("shape"), shape);
            }
            if (!p.value.isEmpty())
                o.insert(QStringLiteral("value"), p.value);
            params.append(o);
        }
        for (const InputSet& s : model.inputSets)
            sets.append(QJsonObject { { QStringLiteral("set"), s.toString() }, { QStringLiteral("line"), s.line } });
        QJsonArray libraries;
        for (const OpLibrary& lib : model.opLibraries)
            libraries.append(QJsonObject { { QStringLiteral("path"), lib.path },
                { QStringLiteral("namespaces"), QJsonArray::fromStringList(lib.namespaces) },
                { QStringLiteral("found"), lib.found } });
        for (const Diagnostic& d : model.warnings)
            warnings.append(diagnosticJson(d));
        QJsonObject o { { QStringLiteral("file"), model.path }, { QStringLiteral("kind"), toText(model.kind) },
            { QStringLiteral("functions"), fns }, { QStringLiteral("submodules"), subs },
            { QStringLiteral("parameters"), params }, { QStringLiteral("input_sets"), sets },
            { QStringLiteral("warnings"), warnings }, { QStringLiteral("libtorch"), libtorchVersion() } };
        if (!libraries.isEmpty())
            o.insert(QStringLiteral("operator_libraries"), libraries);
        if (program && program->ok) {
            QJsonArray inputs, outputs, ranges;
            for (const ExportedInputSpec& s : program->inputs)
                inputs.append(QJsonObject { { QStringLiteral("kind"), s.kind }, { QStringLiteral("name"), s.argument },
                    { QStringLiteral("target"), s.target } });
            for (const ExportedOutputSpec& s : program->outputs)
                outputs.append(QJsonObject { { QStringLiteral("kind"), s.kind }, { QStringLiteral("name"), s.argument },
                    { QStringLiteral("target"), s.target } });
            for (const RangeConstraint& c : program->rangeConstraints) {
                QJsonObject r { { QStringLiteral("symbol"), c.symbol }, { QStringLiteral("text"), c.text() } };
                r.insert(QStringLiteral("min"), c.min ? QJsonValue(*c.min) : QJsonValue());
                r.insert(QStringLiteral("max"), c.max ? QJsonValue(*c.max) : QJsonValue());
                ranges.append(r);
            }
            o.insert(QStringLiteral("exported_program"),
                QJsonObject { { QStringLiteral("entry"), program->entry },
                    { QStringLiteral("layout"), program->layout },
                    { QStringLiteral("torch_version"), program->torchVersion },
                    { QStringLiteral("schema_version"),
                        QStringLiteral("%1.%2").arg(program->schemaMajor).arg(program->schemaMinor) },
                    { QStringLiteral("inputs"), inputs }, { QStringLiteral("outputs"), outputs },
                    { QStringLiteral("range_constraints"), ranges } });
        }
        if (suggestion)
            o.insert(QStringLiteral("suggested_input_set"),
                QJsonObject {
                    { QStringLiteral("set"), suggestion->set }, { QStringLiteral("from"), suggestion->reason } });
        out << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
    } else {
        out << model.path << QStringLiteral(": ")
            << (archive           ? QStringLiteral("TorchScript archive")
                       : exported ? QStringLiteral("exported program")
                                  : QStringLiteral("Python source"))
            << QStringLiteral(" (libtorch %1)").arg(libtorchVersion()) << '\n';
        out << (archive ? "methods:\n" : "functions:\n");
        for (const FunctionInfo& f : model.functions) {
            if (f.ok) {
                out << "  " << (archive ? f.name.section(QLatin1Char('.'), 0, -2) : QString());
                if (archive && f.name.contains(QLatin1Char('.')))
                    out << '.';
                out << f.signature;
                if (!archive && f.location.isValid())
                    out << "  (line " << f.location.line << ')';
                out << '\n';
            } else {
                out << "  " << f.name << "  ERROR " << f.error.location.line << ':' << f.error.location.column << ": "
                    << f.error.message << '\n';
            }
        }
        if (!model.submodules.isEmpty()) {
            out << "submodules:\n";
            for (const SubmoduleInfo& s : model.submodules)
                out << "  " << (s.path.isEmpty() ? QStringLiteral("<root>") : s.path) << "  " << s.typeName << '\n';
        }
        if (!model.opLibraries.isEmpty()) {
            out << "operator libraries:\n";
            for (const OpLibrary& lib : model.opLibraries)
                out << "  " << lib.path << "  " << lib.namespaces.join(QStringLiteral(":: "))
                    << "::  " << (lib.found ? "(found in the system's Python)" : "(--load-ops)") << '\n';
        }
        if (!model.parameters.isEmpty()) {
            out << "parameters:\n";
            for (const ParameterInfo& p : model.parameters) {
                out << "  " << p.name << "  " << toText(p.kind) << "  " << p.type;
                if (!p.dtype.isEmpty())
                    out << "  " << p.dtype << shapeText(p.shape);
                if (!p.value.isEmpty())
                    out << "  = " << p.value;
                out << '\n';
            }
        }
        if (!model.inputSets.isEmpty()) {
            out << "input sets:\n";
            for (const InputSet& s : model.inputSets)
                out << "  " << s.toString() << "  (line " << s.line << ")\n";
        }
        if (program && program->ok) {
            out << "exported program: " << program->entry << ", saved by torch " << program->torchVersion << ", schema "
                << program->schemaMajor << '.' << program->schemaMinor << '\n';
            out << "signature:\n";
            for (const QString& line : program->signatureText())
                out << "  " << line << '\n';
            out << "range constraints:\n";
            if (program->rangeConstraints.isEmpty())
                out << "  none\n";
            for (const RangeConstraint& c : program->rangeConstraints)
                out << "  " << c.text() << '\n';
        }
        if (suggestion)
            out << "suggested input set: " << suggestion->set << "  (guessed from " << suggestion->reason << ")\n";
        for (const Diagnostic& d : model.warnings)
            out << "warning: " << d.toString() << '\n';
    }
    out.flush();
    if (firstError) {
        err << "jitscope-cli: error: " << firstError->error.toString() << '\n';
        return ExitError;
    }
    return ExitOk;
}

} // namespace jitscope::cli
