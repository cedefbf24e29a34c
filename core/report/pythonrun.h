#pragma once

// What running a user's .py file under PyTorch recorded (its torch.jit calls, traces, warnings), and how it is asked
// for.

#include "report/checkreport.h"
#include "report/inputset.h"
#include "report/irgraph.h"

#include <QHash>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QVector>

#include <atomic>
#include <functional>
#include <memory>

namespace jitscope {

/// Owns the folder of a run's archives (a temporary folder, removed with the last PythonRun that holds it).
struct PythonRunFolder;

/// After the file ran, trace, check or run one of its functions or module methods on input sets (the CLI's
/// `--fn NAME --inputs SET ...` with `--python`). The bridge makes the inputs from the sets as JitScope's executor
/// makes them (the same numbers after the same seed).
struct PythonRequest
{
    enum class Mode { None, Trace, Check, Run };
    Mode mode = Mode::None;
    QString target; ///< "fn", "MyModule.forward" (the instance the file creates, or a fresh one), "MyModule.helper"
    QVector<InputSet> sets; ///< empty: the file's own `inputs` and `check_inputs` values
    quint64 seed = 0; ///< torch.manual_seed before each set is made
    bool strict = true; ///< torch.jit.trace's strict
};

/// Where a running bridge is (its progress.json, readPythonProgress()): the call, and what it does on which set.
struct PythonProgress
{
    bool valid = false; ///< the bridge wrote one (it has reached a torch.jit call)
    int call = 0; ///< 1-based
    int callsExpected = 0; ///< the torch.jit calls written in the file; 0: unknown (a request)
    QString api; ///< "trace", "trace_module", "script"
    QString target; ///< "MyModule.forward"
    SourceLocation location; ///< the call's line
    QString phase; ///< the bridge's words ("PyTorch's check tracing check input 1")
    QString step; ///< "tracing", "check-tracing", "check-comparing", "values"
    int check = 0; ///< the check set worked on, 1-based (0: the example inputs)
    int checks = 0; ///< the call's check sets

    /// "call 2/3 `forward` (models.py:41): check set 2 of 3, comparing values": the CLI's progress line.
    QString text() const;
};

/// How to run a user's .py file under the system's PyTorch (resources/python/jitscope_bridge.py, in a child process).
struct PythonOptions
{
    PythonRequest request;
    QString python; ///< the interpreter; empty: resolvePython()'s (interpreters.h: $JITSCOPE_PYTHON, a venv...)
    QString bridge; ///< the bridge script; empty: $JITSCOPE_BRIDGE, else the installed or source-tree copy
    bool returnedValues = false; ///< run each recorded trace on its own set for PythonTrace::returned (`trace`)
    /// List the file's classes and functions, each scripted as torch.jit.script would (PythonRun::modules,
    /// functions): seconds for a big model, and a check of the recorded calls as text or JSON needs none of it.
    bool definitions = true;
    bool archives = true; ///< torch.jit.save each recorded result (PythonCall::archive), for the debugger
    /// Export each traced call with torch.export too (PythonCall::exported; `check --python --export`), its program
    /// saved with torch.export.save beside the record when `archives` is set.
    bool exportCalls = false;
    int timeoutMs = 600 * 1000; ///< the child is killed after this long (0: no limit)
    const std::atomic<bool>* cancel = nullptr; ///< polled every 50 ms; the child is killed when set
    /// Called on the waiting thread each time the bridge reports another step (progress.json); unset: not read.
    std::function<void(const PythonProgress&)> onProgress;
    qint64 maxOutputBytes = qint64(1) << 20; ///< of the file's stdout and of its stderr kept (head and tail)
    /// Run it in a fork of a warm server of this interpreter (torch and what the file's last run imported already
    /// imported: core/bridge/warmpython.h) when one can take it, else cold. The window's runs; never the CLI's.
    bool warm = false;
};

/// One frame of the Python stack a warning was raised in.
struct PythonFrame
{
    SourceLocation location; ///< column 0
    QString function;
};

/// A TracerWarning (or any other warning) a call raised, at the place Python reported it.
struct PythonWarning
{
    QString category; ///< "TracerWarning", "UserWarning", ...
    QString message;
    SourceLocation location; ///< column 0: Python's warnings carry lines only
    bool userCode = false; ///< raised in the user's code, not inside torch
    /// The Python stack where it was raised, innermost first, down to the code torch.jit.trace called (the
    /// user's forward): torch/__init__.py:853, torchvision/ops/boxes.py:72, ..., the user's line.
    QVector<PythonFrame> stack;
    /// The innermost frame in the user's own files (the file run, or one beside it) when that is not
    /// `location` itself: the line of theirs that led there. Invalid when none or the same.
    SourceLocation userLocation;
    int count = 1; ///< raised this many times at the same place with the same stack (folded into one)
    /// Python's filters as they stood hid it (PyTorch hides the TracerWarnings of torch.nn and torchvision); it was
    /// raised all the same, and may be the reason a trace differs.
    bool hidden = false;
};

/// One trace of a recorded torch.jit.trace call, on the example inputs or on one check input.
struct PythonTrace
{
    QString inputs; ///< the input set in JitScope's SET syntax (dtypes and shapes; values are the file's own)
    bool ok = false;
    Diagnostic error;
    IrGraph graph; ///< as torch.jit.trace recorded it, nodes with the user's lines and module scopes
    QString text; ///< print(traced.graph)
    QVector<PythonWarning> warnings;
    /// Check inputs (not the example inputs): trace 1 run on this set against the Python code, as torch.jit.trace's
    /// check compares them (torch.testing.assert_close with the call's check_tolerance).
    bool outputsCompared = false;
    bool outputsEqual = true;
    QString outputsMessage; ///< assert_close's message, or why the outputs could not be compared
    qint64 outputsElements = 0; ///< the tensor elements compared, when they matched
    QString returned; ///< what the trace returned on its own set, as `jitscope-cli run` prints values
    /// Traced here, not by PyTorch's check: the check stopped before this set (or the call did not check).
    bool tracedHere = false;
    /// The example inputs traced again by PyTorch's check (torch.jit.trace without check_inputs) where that trace
    /// differs from the first: the model changed between the two calls.
    bool repeat = false;
    /// Trace 1 failed on this set: trace 1 and this set's inputs as the bridge saved them (file names in the run's
    /// folder: torch.jit.save, torch.save of the arguments' tuple), for the debugger to run trace 1 on them node by
    /// node; empty when not saved (replayError says why when saving failed).
    QString replayArchive;
    QString replayMethod; ///< the traced method in replayArchive ("forward")
    QString replayInputs;
    QString replayError;
    ValueDivergence values; ///< where trace 1 and Python part ways on this set (outputs differ)
    ObservedParting parting; ///< where this run's Python went another way than trace 1's (its graph differs)
};

/// An attribute of a submodule that the call changed (torchvision's MultiScaleRoIAlign sets `scales` on its first
/// call; a YOLO head caches its grid): values as text, tensors by dtype, shape and sum.
struct PythonStateChange
{
    QString module; ///< path from the traced module, empty for itself
    QString attribute;
    QString before;
    QString after;
};

/// A torch.jit.trace / trace_module / script call the file made.
struct PythonCall
{
    int index = 0;
    QString api; ///< "trace", "trace_module", "script"
    SourceLocation location; ///< the call's line in the user's file
    QString target; ///< "fn", "MyModule.forward"
    QString targetKind; ///< "function", "module", "method"
    int targetLine = 0; ///< where the function or class is defined
    bool ok = false;
    Diagnostic error; ///< PyTorch's exception (a TracingCheckError, a compile error) at the user's place
    QString exampleInputs; ///< SET syntax
    QStringList checkInputs;
    QString text; ///< print(result.graph)
    IrGraph graph;
    QVector<PythonTrace> traces; ///< trace calls: one per input set, the example inputs first
    QVector<PythonWarning> warnings; ///< raised during the call itself (the trace and PyTorch's own check)
    /// The class of each submodule of a traced module by path ("rpn.head" -> "RPNHead"), as the traces' module
    /// scopes name them.
    QHash<QString, QString> moduleTypes;
    /// The submodules' attributes the call changed, from before it to after it (its traces and PyTorch's check).
    QVector<PythonStateChange> stateChanges;
    /// The call itself raised (the trace, not PyTorch's check of it): a broken export, whatever else it recorded.
    bool raised() const { return !ok && !checked; }
    bool checked = false; ///< PyTorch checked the trace (check_trace, with or without check_inputs)
    bool checkPassed = true;
    QString checkMessage; ///< PyTorch's own text: "Tracing failed sanity checks! ..." or the output mismatch
    QString archive; ///< torch.jit.save of the result, empty when it could not be saved
    bool requested = false; ///< made for a PythonRequest, not by the file
    /// PythonOptions::exportCalls: the call exported with torch.export beside its trace (its sets' trace column is
    /// filled by the check, buildCheckReport()).
    ExportReport exported;
};

/// What a PythonRequest gave.
struct PythonRequestResult
{
    bool served = false; ///< the bridge got to it (the file ran; it did not call sys.exit or raise)
    bool ok = false;
    Diagnostic error; ///< the target is unknown, the inputs could not be made, the function raised (Mode::Run)
    QString target; ///< as resolved: "MyModule.forward" for a variable holding a MyModule
    PythonCall call; ///< Trace and Check: the trace call, one trace per set (PyTorch's own check for Check)
    QString outputs; ///< Run: what the function returned, as `jitscope-cli run` prints values
    /// Trace and Check with rich inputs (dicts, lists, tuples, scalars): the place in the arguments of each tensor
    /// the traced adapter takes, in order ("[0][0]['image']"); empty when the target took the tensors itself.
    QStringList flattened;
    QVector<PythonWarning> warnings; ///< Run: raised while it ran
};

struct PythonMethod
{
    QString name;
    int line = 0;
    QString modifier; ///< "export", "ignore", "unused" or empty
    bool compiled = false;
    QString how; ///< compiled methods: "forward", "export" or "implicit" (called from a compiled one)
    IrGraph graph;
    QString text;
};

struct PythonModule
{
    QString className;
    int line = 0;
    QStringList instances; ///< the file's variables holding one
    QString scriptedInstance; ///< the variable scripted, or "fresh" (constructed without arguments), or empty
    QVector<PythonMethod> methods;
    struct Attribute
    {
        QString name;
        QString type;
        QString value;
    };
    QVector<Attribute> attributes;
    QVector<Attribute> constants; ///< Final (the type inside Final[...]) and __constants__ (the value's type)
    bool scriptOk = false;
    Diagnostic scriptError;
    QString archive;
};

struct PythonFunction
{
    QString name;
    int line = 0;
    QString modifier;
    bool scriptOk = false;
    Diagnostic scriptError;
    IrGraph graph;
    QString text;
};

/// What running a .py file under PyTorch recorded. Complete: nothing refers back into the child process; the
/// archives live in `folder` while the PythonRun that owns it lives.
struct PythonRun
{
    bool ok = false; ///< the bridge ran and wrote its record (the file itself may still have raised)
    Diagnostic error; ///< why not, or the file's own exception (with its line) when status is "error"
    QString status; ///< "ok", "error" (the file raised), "exit" (sys.exit), "crashed", "timeout", "cancelled"
    int exitCode = 0; ///< sys.exit's code
    QString python; ///< the interpreter used
    /// How it was chosen (PythonInterpreter::chosenBy: "option", "VIRTUAL_ENV", ...): set by the caller that chose
    /// it (the CLI, the window), empty when unknown.
    QString pythonChosenBy;
    QString torchVersion;
    bool warm = false; ///< it ran in a fork of a warm server (PythonOptions::warm): no `import torch` of its own
    /// What the run's torch said of TorchScript itself, once each ("`torch.jit.trace` is deprecated...", torch 2.11+):
    /// never one of a call's warnings.
    QStringList notices;
    QString stdoutText; ///< the file's output, at most PythonOptions::maxOutputBytes each (head and tail)
    QString stderrText;
    bool outputTruncated = false;
    QVector<PythonCall> calls;
    QVector<PythonModule> modules;
    QVector<PythonFunction> functions;
    QString inputs; ///< the file's `inputs` variable in SET syntax, empty if none or not expressible
    QStringList checkInputs;
    PythonRequestResult request; ///< when PythonOptions::request asked for something
    /// The recorded call whose exception is the file's own (status "error": a TracingCheckError or a compile error
    /// of the file's torch.jit call, which stopped the rest of the file), or -1 when the file itself raised.
    int failedCall() const;
    QString folder; ///< where the archives are (deleted with the last copy of the run's handle)
    std::shared_ptr<const PythonRunFolder> folderHandle;
};

/// How the bridge's child process ended (runPythonChild(), in the engine): with the record it left in its folder,
/// what readPythonRun() makes a PythonRun of. Crosses from the model worker to the window.
struct PythonChild
{
    QString python; ///< the interpreter
    QString startError; ///< it did not start: why (no such file, the bridge is missing, the interpreter failed)
    QString stopped; ///< "cancelled" or "timeout" when it was killed for that
    int timeoutMs = 0; ///< the limit it ran under
    bool crashed = false; ///< ended by a signal
    int exitCode = 0;
    QString stdoutText; ///< PythonRun::stdoutText
    QString stderrText;
    bool outputTruncated = false;
    bool warm = false; ///< it ran in a fork of a warm server (PythonOptions::warm)
};

/// A temporary folder for a run's record and archives, removed with the last PythonRun holding it; @p path is set
/// to it. Null with @p error when it cannot be made.
std::shared_ptr<const PythonRunFolder> makePythonRunFolder(QString* path, QString* error);

/// The run of @p path from how its child ended and the record it wrote into @p where (@p folder owns it, and is
/// kept by the run): parsed, or what a crashed run left (the calls recorded before it, where Python was).
PythonRun readPythonRun(
    const QString& path, const PythonChild& child, std::shared_ptr<const PythonRunFolder> folder, const QString& where);

/// The major version of the bridge's record this JitScope reads (docs/python-record.md; the record's fields and
/// version are resources/python/jitscope_record_schema.json's): a record of another major version is refused, one of
/// a newer minor version read (it only adds fields).
constexpr int kPythonRecordMajorVersion = 1;

/// Parses the bridge's result.json into @p run. False with @p error on malformed input or another major version
/// ("result.json of record version 2.0: this JitScope reads 1.x").
bool parsePythonRecord(const QByteArray& json, PythonRun& run, QString* error = nullptr);

/// The record's fields that parsePythonRecord() and readPythonRun() read on this thread while @p read runs, as paths
/// ("calls[].traces[].replay.archive", "input_sets.check_inputs[].set", "progress.json.phase"): what tst_pythonrun
/// holds to the schema.
QSet<QString> pythonRecordFieldsRead(const std::function<void()>& read);

/// Reads a finished run back from its record (result.json in @p folder, PythonRun::folder) into @p run: what the
/// model worker does with a run the window made. False with @p error ("the run's record could not be read: ...").
bool readPythonRecord(const QString& folder, PythonRun& run, QString* error);

/// What the bridge running in @p folder last wrote to its progress.json (invalid when nothing yet).
PythonProgress readPythonProgress(const QString& folder);

/// The interpreter and bridge script that options select (for messages and --version).
QString pythonInterpreter(const PythonOptions& options);
QString bridgeScript(const PythonOptions& options);

} // namespace jitscope
