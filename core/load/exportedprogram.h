#pragma once

// torch.export's ExportedProgram, read from a .pt2 file (torch.export.save) or from its JSON alone, by JitScope
// itself: no Python runs and no libtorch is involved. What is read and which layouts: docs/pt2.md.

#include "report/irgraph.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace jitscope {

/// One entry of the graph signature's input_specs: what a placeholder of the graph stands for.
struct ExportedInputSpec
{
    /// "user input", "parameter", "buffer", "constant" (a tensor constant), "custom object", "token",
    /// "constant input" (a non-tensor input fixed at export)
    QString kind;
    QString argument; ///< the placeholder's name in the graph ("p_block_lin_weight", "x"); empty for a constant input
    QString target; ///< the state it reads: "block.lin.weight"; empty for a user input
    bool persistent = true; ///< buffers: saved in the state dict
};

/// One entry of the signature's output_specs.
struct ExportedOutputSpec
{
    /// "user output", "loss output", "buffer mutation", "parameter mutation", "gradient to parameter",
    /// "gradient to user input", "user input mutation", "token"
    QString kind;
    QString argument; ///< the graph output's name ("add"), or its value as text when a constant
    QString target; ///< what a mutation or gradient is of: "scale"
};

/// A symbol's range, as torch.export's range_constraints hold it.
struct RangeConstraint
{
    QString symbol; ///< "s0", "s77"
    std::optional<qint64> min, max; ///< unset: unbounded
    /// "s0: 2 <= s0 <= 1024", "s0: s0 >= 2", "s0: unbounded".
    QString text() const;
};

/// A module of the exported model: module_call_graph's entries, with the class nn_module_stack names.
struct ExportedModule
{
    QString path; ///< "" for the root, "block.lin"
    QString typeName; ///< "torch.nn.modules.linear.Linear"; empty when no node of the module names it
};

/// An ExportedProgram as plain values. Produced by readExportedProgram(), passed by value.
struct ExportedProgram
{
    QString path; ///< the file, or the name readExportedProgramJson() was given
    QString entry; ///< the JSON's entry in the package: "m/models/model.json", "serialized_exported_program.json"
    /// "models/NAME.json" (torch 2.8 and later: torch.export.pt2_archive) or "serialized_exported_program.json"
    /// (torch 2.1 to 2.7); empty for JSON read alone.
    QString layout;
    QStringList models; ///< the package's programs (models/*.json) when it holds more than one; entry is the one read
    bool ok = false;
    Diagnostic error; ///< when !ok: names the file (and entry) and what is wrong
    QVector<Diagnostic> warnings; ///< what was read past (an argument kind this reader does not know, ...)

    /// The graph as trace nodes are: kinds "aten::linear" (the overload in the attribute "overload"), non-tensor
    /// arguments as attributes, scope and modulePath from nn_module_stack, location and stack from stack_trace
    /// (innermost frame first); placeholders are the graph's inputs, IrValue::role saying what the signature makes
    /// of each; symbolic sizes in the value types ("Float(s0, 4)", the TensorInfo size -1).
    IrGraph graph;
    QVector<ExportedInputSpec> inputs;
    QVector<ExportedOutputSpec> outputs;
    QVector<RangeConstraint> rangeConstraints;
    QVector<ExportedModule> modules; ///< module_call_graph's order, root first
    QString torchVersion; ///< "2.14.1+cu130"; "<=2.4" when the file does not say (as torch reads it)
    int schemaMajor = 0, schemaMinor = 0;
    QStringList verifiers; ///< "TRAINING", "ATEN", ...

    /// The signature in words, one line each: "parameter p_block_lin_weight <- block.lin.weight".
    QStringList signatureText() const;
    /// "forward(x: Float(s0, 4)) -> Float(s0, 3)": the user inputs and outputs.
    QString forwardSignature() const;
};

/// The newest schema major version the reader knows (torch/_export/serde/schema.py's SCHEMA_VERSION[0]); a file of a
/// newer major version is refused, as torch's own deserializer refuses it.
constexpr int kExportSchemaMajor = 8;

/// Reads a .pt2 package. Never throws; a truncated or corrupt file, a schema newer than the reader's, or a package of
/// another kind (AOTInductor's compiled model) gives !ok and one error naming the file and what is wrong.
ExportedProgram readExportedProgram(const QString& path);
/// The same from the package's bytes (the fuzz target; .pt2 files kept in memory); @p name names it in messages.
ExportedProgram readExportedProgramData(const QByteArray& zip, const QString& name);
/// Reads the ExportedProgram JSON alone (a package's models/NAME.json); @p name names it in messages.
ExportedProgram readExportedProgramJson(const QByteArray& json, const QString& name);

/// True when the zip's entries are an exported program's or an AOTInductor package's (so a .pt file that is
/// one goes to readExportedProgram(), not to the TorchScript loader). False for anything else, and for what is
/// not a zip.
bool isExportPackage(const QString& path);

} // namespace jitscope
