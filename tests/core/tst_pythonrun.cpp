// The Python bridge runs .py files under the system's PyTorch (the oracle itself) in a child process: what it
// records of real torch.jit.trace/script calls, and every way a user's file can go wrong.

#include "bridge/pythoncheck.h"
#include "bridge/runpython.h"
#include "testutil.h"
#include "tracetext.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <thread>

using namespace jitscope;

namespace {

QString pyFile(const char* name)
{
    return test::dataDir() + QStringLiteral("/python/") + QLatin1String(name);
}

int countKind(const IrGraph& g, const QString& kind, int line = 0)
{
    int n = 0;
    for (const IrNode& node : g.nodes)
        n += node.kind == kind && (line == 0 || node.location.line == line);
    return n;
}

const PythonMethod* method(const PythonModule& m, const QString& name)
{
    for (const PythonMethod& pm : m.methods)
        if (pm.name == name)
            return &pm;
    return nullptr;
}

/// The bridge's IR snapshot prints back as PyTorch printed the graph (value names, module scopes and source
/// comments aside: the scopes are IrNode::scope).
void verifyPrintsAsPyTorch(const IrGraph& graph, const QString& text)
{
    QVERIFY(!text.isEmpty());
    QVERIFY(!graph.isEmpty());
    QCOMPARE(test::comparableTrace(graph.toText()), test::comparableTrace(text));
}

const QString kRecordModule = QStringLiteral(JITSCOPE_SOURCE_DIR "/resources/python/jitscope_bridge_record.py");

QJsonObject recordSchema()
{
    return QJsonDocument::fromJson(
        test::readText(QStringLiteral(JITSCOPE_SOURCE_DIR "/resources/python/jitscope_record_schema.json")).toUtf8())
        .object();
}

QJsonObject schemaDef(const QJsonObject& schema, const QString& ref)
{
    return schema.value(QStringLiteral("$defs")).toObject().value(ref.section(QLatin1Char('/'), -1)).toObject();
}

/// The fields the schema declares, as paths the reader's are written in ("calls[].traces[].replay.archive"), and
/// those the reader must read: each field with an x-reader whose parents have one too, in the first form of an anyOf
/// (the one recordExample() makes).
struct SchemaFields
{
    QSet<QString> all;
    QSet<QString> read;
};

void walkSchema(const QJsonObject& schema, const QJsonObject& s, const QString& path, bool readable, QStringList& refs,
    SchemaFields& out)
{
    if (s.contains(QLatin1String("$ref"))) {
        const QString ref = s.value(QLatin1String("$ref")).toString();
        if (refs.contains(ref))
            return;
        refs << ref;
        walkSchema(schema, schemaDef(schema, ref), path, readable, refs, out);
        refs.removeLast();
        return;
    }
    const QJsonArray anyOf = s.value(QLatin1String("anyOf")).toArray();
    for (int k = 0; k < anyOf.size(); ++k)
        walkSchema(schema, anyOf[k].toObject(), path, readable && k == 0, refs, out);
    if (s.value(QLatin1String("items")).isObject())
        walkSchema(schema, s.value(QLatin1String("items")).toObject(), path + QLatin1String("[]"), readable, refs, out);
    if (s.value(QLatin1String("additionalProperties")).isObject())
        walkSchema(schema, s.value(QLatin1String("additionalProperties")).toObject(), path + QLatin1String("{}"), false,
            refs, out);
    const QJsonObject properties = s.value(QLatin1String("properties")).toObject();
    for (auto it = properties.constBegin(); it != properties.constEnd(); ++it) {
        const QString field = path.isEmpty() ? it.key() : path + QLatin1Char('.') + it.key();
        const bool read = readable && it.value().toObject().contains(QLatin1String("x-reader"));
        out.all.insert(field);
        if (read)
            out.read.insert(field);
        walkSchema(schema, it.value().toObject(), field, read, refs, out);
    }
}

/// A record with every field the schema declares (one item per array, the first form of each anyOf and enum), for
/// the reader to read them all.
QJsonValue recordExample(const QJsonObject& schema, const QJsonObject& s, QStringList& refs)
{
    if (s.contains(QLatin1String("$ref"))) {
        const QString ref = s.value(QLatin1String("$ref")).toString();
        if (refs.contains(ref))
            return QJsonValue(QJsonValue::Undefined);
        refs << ref;
        const QJsonValue v = recordExample(schema, schemaDef(schema, ref), refs);
        refs.removeLast();
        return v;
    }
    if (s.contains(QLatin1String("anyOf")))
        return recordExample(schema, s.value(QLatin1String("anyOf")).toArray().first().toObject(), refs);
    if (s.contains(QLatin1String("enum")))
        return s.value(QLatin1String("enum")).toArray().first();
    const QJsonValue t = s.value(QLatin1String("type"));
    const QString type = t.isArray() ? t.toArray().first().toString() : t.toString();
    if (type == QLatin1String("array")) {
        QJsonArray a;
        const QJsonValue item = recordExample(schema, s.value(QLatin1String("items")).toObject(), refs);
        if (!item.isUndefined())
            a.append(item);
        return a;
    }
    if (type == QLatin1String("string"))
        return QStringLiteral("x");
    if (type == QLatin1String("integer"))
        return 1;
    if (type == QLatin1String("number"))
        return 1.5;
    if (type == QLatin1String("boolean"))
        return true;
    QJsonObject o;
    const QJsonObject properties = s.value(QLatin1String("properties")).toObject();
    for (auto it = properties.constBegin(); it != properties.constEnd(); ++it) {
        const QJsonValue v = recordExample(schema, it.value().toObject(), refs);
        if (!v.isUndefined())
            o.insert(it.key(), v);
    }
    if (s.value(QLatin1String("additionalProperties")).isObject()) {
        const QJsonValue v = recordExample(schema, s.value(QLatin1String("additionalProperties")).toObject(), refs);
        if (!v.isUndefined())
            o.insert(QStringLiteral("key"), v);
    }
    return o;
}

/// jitscope_bridge_record.py on @p arguments, under the tests' Python: its exit code and output.
QPair<int, QString> recordModule(const QStringList& arguments)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral(JITSCOPE_TEST_PYTHON), QStringList { kRecordModule } + arguments);
    if (!p.waitForFinished(120000))
        return { -1, QStringLiteral("did not finish") };
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAll()) };
}

} // namespace

class TestPythonRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // Every bridge this test runs checks its record against jitscope_record_schema.json before it writes it, and
        // writes none when it does not match (the run then fails with the mismatch).
        qputenv("JITSCOPE_BRIDGE_VALIDATE", "1");
    }

    /// The bridge's side of the record's contract: what it writes into a run's folder (result.json, calls.jsonl and
    /// progress.json, and request.json from JitScope) matches the schema, read by the validator from outside.
    void recordsMatchTheirSchema_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("request"); ///< PythonRequest::Mode
        QTest::addColumn<QString>("target");
        QTest::addRow("module, script and trace calls") << "export_module.py" << 0 << "";
        QTest::addRow("values part ways, replay saved") << "values/baked_slice.py" << 0 << "";
        QTest::addRow("crashed: calls.jsonl and progress.json") << "crashes_in_trace.py" << 0 << "";
        QTest::addRow("a request checked") << "three_sets.py" << int(PythonRequest::Mode::Check) << "accumulate";
        QTest::addRow("a request run") << "three_sets.py" << int(PythonRequest::Mode::Run) << "accumulate";
    }

    void recordsMatchTheirSchema()
    {
        QFETCH(QString, file);
        QFETCH(int, request);
        QFETCH(QString, target);
        PythonOptions options;
        options.request.mode = PythonRequest::Mode(request);
        options.request.target = target;
        for (const char* set : { "f32[2,3]", "f32[4,3]" })
            if (request != 0)
                options.request.sets << *parseInputSet(QLatin1String(set));
        const PythonRun run = runPythonFile(pyFile(qPrintable(file)), options);
        QVERIFY2(run.ok || run.status == QLatin1String("crashed"), qPrintable(run.error.toString() + run.stderrText));
        QVERIFY(!run.error.message.contains(QLatin1String("does not match")));
        QStringList written = QDir(run.folder).entryList({ QStringLiteral("*.json"), QStringLiteral("*.jsonl") });
        QVERIFY2(written.size() >= 2, qPrintable(written.join(QLatin1Char(' '))));
        if (request != 0)
            QVERIFY(written.contains(QLatin1String("request.json")));
        const auto [code, output] = recordModule({ run.folder });
        QVERIFY2(code == 0, qPrintable(output));
    }

    /// The reader's side: every field parsePythonRecord() and readPythonRun() read (run over a record with every
    /// field the schema declares, and over what a crashed run leaves) is in the schema with the reader named, and
    /// every field the schema says JitScope reads is read.
    void readerReadsTheSchemasFields()
    {
        const QJsonObject schema = recordSchema();
        QVERIFY(!schema.isEmpty());
        SchemaFields fields;
        QStringList refs;
        walkSchema(schema, schema, QString(), true, refs, fields);
        walkSchema(
            schema, schemaDef(schema, QStringLiteral("progress")), QStringLiteral("progress.json"), true, refs, fields);
        QVERIFY(fields.read.contains(QStringLiteral("calls[].traces[].replay.archive")));
        QVERIFY(!fields.read.contains(QStringLiteral("calls[].methods")));

        QJsonObject record = recordExample(schema, schema, refs).toObject();
        record.insert(QStringLiteral("record_version"), schema.value(QLatin1String("x-record-version")));
        const QJsonObject call = recordExample(schema, schemaDef(schema, QStringLiteral("call")), refs).toObject();
        QJsonObject progress = recordExample(schema, schemaDef(schema, QStringLiteral("progress")), refs).toObject();
        progress.insert(QStringLiteral("index"), call.value(QLatin1String("index")).toInt() + 1); // the call running
        QTemporaryDir crashed;
        QFile calls(crashed.filePath(QStringLiteral("calls.jsonl")));
        QFile progressFile(crashed.filePath(QStringLiteral("progress.json")));
        QVERIFY(calls.open(QIODevice::WriteOnly) && progressFile.open(QIODevice::WriteOnly));
        calls.write(QJsonDocument(call).toJson(QJsonDocument::Compact) + '\n');
        progressFile.write(QJsonDocument(progress).toJson());
        calls.close();
        progressFile.close();

        bool parsed = false;
        PythonRun salvaged;
        PythonProgress running;
        const QSet<QString> read = pythonRecordFieldsRead([&] {
            PythonRun run;
            parsed = parsePythonRecord(QJsonDocument(record).toJson(), run, nullptr);
            PythonChild child;
            child.crashed = true;
            salvaged = readPythonRun(QStringLiteral("/x.py"), child, nullptr, crashed.path());
            running = readPythonProgress(crashed.path()); // the CLI's progress line, while Python runs
        });
        QVERIFY(parsed);
        QVERIFY(running.valid);
        QCOMPARE(salvaged.calls.size(), 1);
        QVERIFY2(salvaged.error.message.contains(QLatin1String("during torch.jit.trace at line 1 (x)")),
            qPrintable(salvaged.error.message));
        QStringList unknown, unnamed, unread;
        for (const QString& f : read) {
            if (!fields.all.contains(f))
                unknown << f;
            else if (!fields.read.contains(f))
                unnamed << f;
        }
        for (const QString& f : fields.read)
            if (!read.contains(f))
                unread << f;
        QStringList wrong;
        for (auto [what, list] : { std::pair { "read, but not in the schema", &unknown },
                 std::pair { "read, but without an x-reader in the schema", &unnamed },
                 std::pair { "with an x-reader in the schema, but not read", &unread } })
            if (!list->isEmpty()) {
                list->sort();
                wrong << QLatin1String(what) + QStringLiteral(": ") + list->join(QLatin1Char(' '));
            }
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QLatin1Char('\n'))));
    }

    /// MAJOR.MINOR: a newer minor version only adds fields and is read; another major version is refused, naming both.
    void recordVersions_data()
    {
        QTest::addColumn<QByteArray>("record");
        QTest::addColumn<QString>("error"); ///< empty: read
        QTest::addRow("this version") << QByteArray("{\"record_version\": \"1.0\", \"status\": \"ok\"}") << "";
        QTest::addRow("a newer minor version, a field this reader does not know")
            << QByteArray("{\"record_version\": \"1.7\", \"status\": \"ok\", \"new_field\": [1]}") << "";
        QTest::addRow("a newer major version") << QByteArray("{\"record_version\": \"2.0\", \"status\": \"ok\"}")
                                               << "result.json of record version 2.0: this JitScope reads 1.x";
        QTest::addRow("an older major version") << QByteArray("{\"record_version\": \"0.3\"}")
                                                << "result.json of record version 0.3: this JitScope reads 1.x";
        QTest::addRow("no version (a bridge from before versions)")
            << QByteArray("{\"protocol\": 1}") << "result.json without a record version: this JitScope reads 1.x";
        QTest::addRow("not a version") << QByteArray("{\"record_version\": \"one\"}")
                                       << "result.json of record version one: this JitScope reads 1.x";
    }

    void recordVersions()
    {
        QFETCH(QByteArray, record);
        QFETCH(QString, error);
        PythonRun run;
        QString why;
        QCOMPARE(parsePythonRecord(record, run, &why), error.isEmpty());
        QCOMPARE(why, error);
        if (error.isEmpty())
            QCOMPARE(run.status, QStringLiteral("ok"));
    }

    /// The bridge writes the schema's version, whose major version is the one the reader reads.
    void schemaVersionIsTheReaders()
    {
        const QString version = recordSchema().value(QLatin1String("x-record-version")).toString();
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d+\\.\\d+$")).match(version).hasMatch(), qPrintable(version));
        QCOMPARE(version.section(QLatin1Char('.'), 0, 0).toInt(), kPythonRecordMajorVersion);
        const PythonRun run = runPythonFile(pyFile("exits.py"));
        const QJsonObject written
            = QJsonDocument::fromJson(test::readText(run.folder + QStringLiteral("/result.json")).toUtf8()).object();
        QCOMPARE(written.value(QLatin1String("record_version")).toString(), version);
    }

    /// docs/python-record.md lists the schema's fields as jitscope_bridge_record.py --markdown prints them.
    void documentListsTheSchema()
    {
        const QString path = QStringLiteral(JITSCOPE_SOURCE_DIR "/docs/python-record.md");
        const QString doc = test::readText(path);
        const QString begin = QStringLiteral("<!-- fields: jitscope_bridge_record.py --markdown -->\n");
        const QString end = QStringLiteral("<!-- end of fields -->");
        const qsizetype from = doc.indexOf(begin);
        const qsizetype to = doc.indexOf(end);
        QVERIFY2(from >= 0 && to > from, "the doc's generated section");
        const auto [code, tables] = recordModule({ QStringLiteral("--markdown") });
        QCOMPARE(code, 0);
        const QString actual = doc.left(from + begin.size()) + tables + doc.mid(to);
        QVERIFY2(test::matchesGolden(actual, doc, path),
            "docs/python-record.md lists other fields than the schema: see docs/python-record.md.actual");
    }

    void moduleWithTraceAndScriptCalls()
    {
        const QString file = pyFile("export_module.py");
        const PythonRun run = runPythonFile(file);
        QVERIFY2(run.ok, qPrintable(run.error.toString() + run.stderrText));
        // The file's own trace call raises PyTorch's TracingCheckError, at its line.
        QCOMPARE(run.status, QStringLiteral("error"));
        QCOMPARE(run.error.location.line, 43);
        QVERIFY(run.error.message.startsWith(QLatin1String("TracingCheckError: Tracing failed sanity checks!")));
        QVERIFY(run.stdoutText.contains(QLatin1String("tracing MyModule")));
        QVERIFY(!run.torchVersion.isEmpty());

        QCOMPARE(run.calls.size(), 2);
        const PythonCall& script = run.calls[0];
        QCOMPARE(script.api, QStringLiteral("script"));
        QCOMPARE(script.location.line, 41);
        QCOMPARE(script.target, QStringLiteral("MyModule.forward"));
        QVERIFY(script.ok);
        verifyPrintsAsPyTorch(script.graph, script.text);

        const PythonCall& trace = run.calls[1];
        QCOMPARE(trace.api, QStringLiteral("trace"));
        QCOMPARE(trace.location.line, 43);
        QCOMPARE(trace.location.file, QFileInfo(file).canonicalFilePath());
        QVERIFY(!trace.ok);
        QVERIFY(trace.checked);
        QVERIFY(!trace.checkPassed);
        QVERIFY(trace.checkMessage.contains(QLatin1String("Graphs differed across invocations!")));
        QVERIFY(!trace.checkMessage.contains(QLatin1String("jitscope_bridge.py")));
        QCOMPARE(trace.exampleInputs, QStringLiteral("f32[3,4]"));
        QCOMPARE(trace.checkInputs, QStringList { QStringLiteral("f32[4,4]") });
        // One real trace per input set: the loop at line 19 unrolled 3 and 4 times.
        QCOMPARE(trace.traces.size(), 2);
        QCOMPARE(trace.traces[0].inputs, QStringLiteral("f32[3,4]"));
        QCOMPARE(trace.traces[1].inputs, QStringLiteral("f32[4,4]"));
        QCOMPARE(countKind(trace.traces[0].graph, QStringLiteral("aten::add"), 19), 3);
        QCOMPARE(countKind(trace.traces[1].graph, QStringLiteral("aten::add"), 19), 4);
        for (const PythonTrace& t : trace.traces) {
            verifyPrintsAsPyTorch(t.graph, t.text);
            // `if x.sum() > 0` froze the branch: PyTorch's TracerWarning at the user's line.
            QCOMPARE(t.warnings.size(), 1);
            QCOMPARE(t.warnings[0].category, QStringLiteral("TracerWarning"));
            QVERIFY(t.warnings[0].message.startsWith(QLatin1String("Converting a tensor to a Python boolean")));
            QCOMPARE(t.warnings[0].location.line, 20);
            QVERIFY(t.warnings[0].userCode);
            // Submodule code carries its module scope.
            bool linear = false;
            for (const IrNode& n : t.graph.nodes)
                linear |= n.kind == QLatin1String("prim::CallMethod") || n.modulePath == QLatin1String("lin");
            QVERIFY(linear);
        }

        QCOMPARE(run.modules.size(), 1);
        const PythonModule& m = run.modules[0];
        QCOMPARE(m.className, QStringLiteral("MyModule"));
        QCOMPARE(m.line, 8);
        QCOMPARE(m.instances, QStringList { QStringLiteral("model") });
        QVERIFY(m.scriptOk);
        QVERIFY(!m.archive.isEmpty());
        QVERIFY(QFile::exists(run.folder + QLatin1Char('/') + m.archive));
        const PythonMethod* forward = method(m, QStringLiteral("forward"));
        const PythonMethod* exported = method(m, QStringLiteral("another_forward"));
        const PythonMethod* helper = method(m, QStringLiteral("helper"));
        const PythonMethod* ignored = method(m, QStringLiteral("show"));
        const PythonMethod* unused = method(m, QStringLiteral("unused_path"));
        QVERIFY(forward && exported && helper && ignored && unused);
        QCOMPARE(forward->how, QStringLiteral("forward"));
        QCOMPARE(exported->how, QStringLiteral("export"));
        QCOMPARE(helper->how, QStringLiteral("implicit"));
        QVERIFY(!ignored->compiled);
        QCOMPARE(ignored->modifier, QStringLiteral("ignore"));
        QCOMPARE(unused->modifier, QStringLiteral("unused"));
        QVERIFY(unused->graph.isEmpty());
        for (const PythonMethod* pm : { forward, exported, helper })
            verifyPrintsAsPyTorch(pm->graph, pm->text);
        QStringList attributes;
        for (const auto& a : m.attributes)
            attributes << a.name + QStringLiteral(": ") + a.type;
        QVERIFY2(attributes.contains(QStringLiteral("counts: Dict[str, int]")), qPrintable(attributes.join(", ")));
        QVERIFY(attributes.contains(QStringLiteral("steps: int")));
        QCOMPARE(m.constants.size(), 1);
        QCOMPARE(m.constants[0].name, QStringLiteral("scale"));
        QCOMPARE(m.constants[0].value, QStringLiteral("2"));
    }

    void pythonOnlyFunctions()
    {
        const PythonRun run = runPythonFile(pyFile("python_only.py"));
        QVERIFY2(run.ok, qPrintable(run.error.toString() + run.stderrText));
        QCOMPARE(run.calls.size(), 2);
        // `*x.shape[1:2]` does not script (PyTorch's error at its line and column) but traces.
        QCOMPARE(run.functions.size(), 2);
        const PythonFunction& fill = run.functions[0];
        QCOMPARE(fill.name, QStringLiteral("fill_row_zero"));
        QVERIFY(!fill.scriptOk);
        QCOMPARE(fill.scriptError.location.line, 6);
        QCOMPARE(fill.scriptError.location.column, 22);
        QCOMPARE(fill.scriptError.message,
            QStringLiteral("cannot statically infer the expected size of a list in this context"));
        const PythonCall& traced = run.calls[0];
        QVERIFY(traced.ok);
        QVERIFY(countKind(traced.graph, QStringLiteral("aten::rand")) == 1);
        QVERIFY(countKind(traced.graph, QStringLiteral("aten::copy_")) == 1);
        verifyPrintsAsPyTorch(traced.graph, traced.text);
        // torch.rand makes the outputs differ: PyTorch's check says so.
        QVERIFY(traced.checked);
        QVERIFY(!traced.checkPassed);
        QVERIFY(traced.checkMessage.startsWith(QLatin1String("Output nr 1. of the traced function does not match")));
        // len(x) is baked: PyTorch warns at line 11, and the check inputs' trace records another constant.
        const PythonCall& counted = run.calls[1];
        QVERIFY(!counted.ok);
        QCOMPARE(counted.traces.size(), 2);
        QCOMPARE(counted.traces[0].warnings.size(), 1);
        QVERIFY(counted.traces[0].warnings[0].message.startsWith(QLatin1String("Using len to get tensor shape")));
        QCOMPARE(counted.traces[0].warnings[0].location.line, 11);
        QCOMPARE(counted.traces[0].graph.node(0).attribute(QStringLiteral("value")), QStringLiteral("1"));
        QCOMPARE(counted.traces[1].graph.node(0).attribute(QStringLiteral("value")), QStringLiteral("2"));
    }

    void badFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("status");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("message");
        QTest::addRow("raises") << "raises.py"
                                << "error" << 5 << "ValueError: shape (2, 3) is not supported";
        QTest::addRow("missing package") << "missing_import.py"
                                         << "error" << 2
                                         << "ModuleNotFoundError: No module named 'jitscope_no_such_package'";
        QTest::addRow("sys.exit") << "exits.py"
                                  << "exit" << 0 << "";
        QTest::addRow("kills itself") << "kills_itself.py"
                                      << "crashed" << 0 << "Python stopped abnormally (killed by a signal)";
    }

    void badFiles()
    {
        QFETCH(QString, file);
        QFETCH(QString, status);
        QFETCH(int, line);
        QFETCH(QString, message);
        const PythonRun run = runPythonFile(pyFile(qPrintable(file)));
        QCOMPARE(run.status, status);
        QCOMPARE(run.error.location.line, line);
        QCOMPARE(run.error.message, message);
        if (status == QLatin1String("exit")) {
            QCOMPARE(run.exitCode, 3);
            QVERIFY(run.stdoutText.contains(QLatin1String("leaving early")));
        }
        if (line > 0)
            QCOMPARE(QFileInfo(run.error.location.file).fileName(), file);
    }

    /// Python crashing in the middle of a recorded call (PyTorch's own check segfaults on huge traces): the call
    /// it was in and the place faulthandler printed are named, and the calls recorded before are kept.
    void crashKeepsTheCallsBefore()
    {
        const PythonRun run = runPythonFile(pyFile("crashes_in_trace.py"));
        QVERIFY(!run.ok);
        QCOMPARE(run.status, QStringLiteral("crashed"));
        QVERIFY2(run.error.message.startsWith(
                     QLatin1String("Python stopped abnormally (killed by a signal): Fatal Python error: Segmentation "
                                   "fault, during torch.jit.trace at line 18 (tracing); the 1 call(s) recorded before "
                                   "it are kept")),
            qPrintable(run.error.message));
        QCOMPARE(run.error.location.line, 13); // ctypes.string_at(0), in crash()
        QCOMPARE(QFileInfo(run.error.location.file).fileName(), QStringLiteral("crashes_in_trace.py"));
        QCOMPARE(run.calls.size(), 1);
        QCOMPARE(run.calls[0].location.line, 17);
        QVERIFY(run.calls[0].ok);
        QVERIFY(run.calls[0].traces.value(0).ok);
    }

    void endlessLoopTimesOutAndCancels()
    {
        PythonOptions options;
        options.timeoutMs = 1500;
        QElapsedTimer clock;
        clock.start();
        const PythonRun timedOut = runPythonFile(pyFile("endless.py"), options);
        const qint64 timeoutMs = clock.elapsed();
        QCOMPARE(timedOut.status, QStringLiteral("timeout"));
        QVERIFY(timedOut.error.message.startsWith(QLatin1String("Python did not finish within 1.5 s")));
        QVERIFY2(timeoutMs < 10000, qPrintable(QString::number(timeoutMs)));

        std::atomic<bool> cancel { false };
        options.timeoutMs = 0;
        options.cancel = &cancel;
        std::thread canceller([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(800));
            cancel = true;
        });
        clock.restart();
        const PythonRun cancelled = runPythonFile(pyFile("endless.py"), options);
        const qint64 cancelMs = clock.elapsed();
        canceller.join();
        QCOMPARE(cancelled.status, QStringLiteral("cancelled"));
        QVERIFY2(cancelMs < 10000, qPrintable(QString::number(cancelMs)));
        qInfo("timeout 1500 ms: stopped after %lld ms; cancel at 800 ms: stopped after %lld ms", timeoutMs, cancelMs);
    }

    void megabytesOfOutputAreCapped()
    {
        PythonOptions options;
        options.maxOutputBytes = 64 * 1024;
        const PythonRun run = runPythonFile(pyFile("chatty.py"), options);
        QCOMPARE(run.status, QStringLiteral("ok"));
        QVERIFY(run.outputTruncated);
        QVERIFY(run.stdoutText.size() < 70 * 1024);
        QVERIFY(run.stdoutText.startsWith(QLatin1String("line 0 of")));
        QVERIFY(run.stdoutText.contains(QLatin1String("bytes left out")));
        QVERIFY(run.stdoutText.trimmed().endsWith(
            QLatin1String("line 199999 of a very chatty script that prints megabytes")));
    }

    void leavesNoFolderBehind()
    {
        QString folder;
        {
            const PythonRun run = runPythonFile(pyFile("exits.py"));
            folder = run.folder;
            QVERIFY(QFileInfo(folder).isDir());
        }
        QVERIFY(!folder.isEmpty());
        QVERIFY(!QFileInfo::exists(folder));
        QVERIFY(!QFileInfo::exists(test::dataDir() + QStringLiteral("/python/__pycache__")));
    }

    void missingInterpreterIsAnError()
    {
        PythonOptions options;
        options.python = QStringLiteral("/nonexistent/python3");
        const PythonRun run = runPythonFile(pyFile("exits.py"), options);
        QVERIFY(!run.ok);
        QVERIFY(run.error.message.startsWith(QLatin1String("cannot start /nonexistent/python3")));
    }

    /// Divergences between real traces explained from the user's lines and PyTorch's warnings alone.
    void divergencesExplained_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("call");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("cause");
        QTest::addRow("loop over a shape")
            << "export_module.py" << 1 << 19
            << "loop at line 18 (`for i in range(x.size(0)):`) unrolled 3 times in trace 1 but 4 times in trace 2 "
               "(observed): the tracer records every iteration, so the trip count was baked from the inputs "
               "(`range(x.size(0))` is `range(0, 3)` in trace 1, `range(0, 4)` in trace 2)";
        QTest::addRow("len baked") << "python_only.py" << 1 << 11
                                   << "`len()` of a tensor at line 11 (`return torch.arange(len(x))`) baked as a "
                                      "constant";
        QTest::addRow("frozen branch") << "branch.py" << 0 << 7
                                       << "branch at line 6 (`if x.sum() > 0:`) frozen by a tensor-to-bool "
                                          "conversion: trace 1 and trace 2 took different paths (observed): "
                                          "`x.sum() > 0` is `3.0 > 0` in trace 1, `-3.0 > 0` in trace 2";
    }

    void divergencesExplained()
    {
        QFETCH(QString, file);
        QFETCH(int, call);
        QFETCH(int, line);
        QFETCH(QString, cause);
        const QString path = pyFile(qPrintable(file));
        const PythonRun run = runPythonFile(path);
        QVERIFY2(run.calls.size() > call, qPrintable(run.error.toString() + run.stderrText));
        const CheckReport check = checkRecordedCall(run, run.calls[call], test::readText(path));
        QVERIFY(!check.consistent);
        QCOMPARE(check.diffs.size(), 1);
        QStringList causes;
        bool found = false;
        for (const NodeChange& c : check.diffs[0].changes) {
            QVERIFY2(!c.cause.isEmpty(), "every change has a cause");
            causes << QStringLiteral("%1: %2").arg(c.location.line).arg(c.cause);
            found |= c.location.line == line && c.cause == cause;
        }
        QVERIFY2(found, qPrintable(causes.join(QLatin1Char('\n'))));
    }

    /// Every pair of recorded traces explained from the user's lines names the pair's own traces: trace 2 against
    /// trace 3, not trace 1.
    void pairsNameTheirTraces()
    {
        const QString path = pyFile("three_sets.py");
        const QString source = test::readText(path);
        const PythonRun run = runPythonFile(path);
        QVERIFY2(run.calls.size() == 1, qPrintable(run.error.toString() + run.stderrText));
        const CheckReport check = checkRecordedCall(run, run.calls[0], source, true); // as for the window
        QCOMPARE(check.traces.size(), 3);
        QCOMPARE(check.pairDiffs.size(), 1);
        const TraceDiff& pair = check.pairDiffs.first();
        QCOMPARE(pair.base, 1);
        QCOMPARE(pair.other, 2);
        QVERIFY(!pair.equal);
        QStringList texts;
        bool found = false;
        for (const NodeChange& c : pair.changes) {
            texts << c.cause;
            found |= c.cause
                == QLatin1String("loop at line 8 (`for i in range(x.size(0)):`) unrolled 3 times in trace 2 but 4 "
                                 "times in trace 3: the tracer records every iteration, so the trip count was baked "
                                 "from the inputs");
        }
        for (const Divergence& d : pair.divergences)
            texts << d.message << d.evidence;
        const QString all = texts.join(QLatin1Char('\n'));
        QVERIFY2(found, qPrintable(all));
        QVERIFY2(!all.contains(QLatin1String("trace 1")), qPrintable(all));
        // The diffs against trace 1 still name it.
        for (const TraceDiff& d : check.diffs)
            for (const NodeChange& c : d.changes)
                QVERIFY2(c.cause.contains(QLatin1String("in trace 1 but")), qPrintable(c.cause));
    }

    /// Same graph (or not), other numbers: the first value where trace 1 and the Python code part ways on the set
    /// whose outputs differ, at trace 1's node, with both values and one cause. Real PyTorch is the oracle of which
    /// values differ: its own check's message names the output shapes that the values at the node lead to.
    void valuesPartWays_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("op"); ///< trace 1's node, empty when the divergence has none
        QTest::addColumn<QString>("module");
        QTest::addColumn<QStringList>("says"); ///< in the message, in order
        QTest::addColumn<QString>("pytorch"); ///< in PyTorch's own message of the set's output comparison
        QTest::addRow("size computed in float32")
            << "values/resize_rounding.py" << "aten::upsample_linear1d" << "resize"
            << QStringList { "float32[1x3x63] in the trace, float32[1x3x62] in Python",
                   "computes with tensor arithmetic (aten::size, aten::mul, aten::floor, in float32) where Python "
                   "computes it with floats (trace: [63])" }
            << "torch.Size([4, 61]) != torch.Size([4, 60])";
        QTest::addRow("torchvision's resize")
            << "values/detection_resize.py" << "aten::upsample_bilinear2d" << "model.transform"
            << QStringList { "(GeneralizedRCNNTransform): float32[1x3x211x640] in the trace, float32[1x3x211x639] in "
                             "Python: its operand 1 is a number the trace computes with tensor arithmetic",
                   "where Python computes it with floats (trace: [211, 640])" }
            << "Mismatched elements";
        QTest::addRow("constant from numpy")
            << "values/numpy_constant.py" << "aten::sub" << "norm"
            << QStringList { "its operand 1 is a constant trace 1 baked in from the traced input" }
            << "Mismatched elements: 8 / 8";
        QTest::addRow("dropout in train mode")
            << "values/dropout_train.py" << "aten::dropout" << "drop"
            << QStringList { "the Python code run twice on this set differs too: `dropout` in module `drop` (Dropout)",
                   "so the check cannot pass as written" }
            << "Mismatched elements: 12 / 12";
        // At the slice, not at the relu after it: its operand agrees, its end is trace 1's.
        QTest::addRow("slice end baked")
            << "values/baked_slice.py" << "aten::slice" << "" // a traced function: the top module
            << QStringList { "`aten::slice` in the top module: its operand 3 is a constant trace 1 baked in from the "
                             "traced input (end = 28)",
                   "where Python computes float32[3x42]" }
            << "torch.Size([3, 28]) != torch.Size([3, 42])";
    }

    void valuesPartWays()
    {
        QFETCH(QString, file);
        QFETCH(QString, op);
        QFETCH(QString, module);
        QFETCH(QStringList, says);
        QFETCH(QString, pytorch);
        const QString path = pyFile(qPrintable(file));
        const PythonRun run = runPythonFile(path);
        QVERIFY2(run.calls.size() == 1, qPrintable(run.error.toString() + run.stderrText));
        const PythonCall& call = run.calls[0];
        // The last set is the one whose outputs differ; a set before it that passes is not looked into.
        const int k = int(call.traces.size()) - 1;
        QVERIFY(k >= 1);
        for (int passing = 1; passing < k; ++passing) {
            QVERIFY(call.traces[passing].outputsEqual);
            QVERIFY(!call.traces[passing].values.present);
        }
        QVERIFY2(call.traces[k].outputsMessage.contains(pytorch), qPrintable(call.traces[k].outputsMessage));
        QVERIFY2(call.traces[k].values.present && call.traces[k].values.error.isEmpty(),
            qPrintable(call.traces[k].values.error));
        const CheckReport check = checkRecordedCall(run, call, test::readText(path));
        QCOMPARE(check.diffs.size(), k);
        const TraceDiff& d = check.diffs[k - 1];
        const Divergence* value = nullptr;
        for (const Divergence& v : d.divergences)
            if (v.kind == DivergenceKind::Value)
                value = &v;
        QVERIFY2(value, "a divergence of kind value");
        QCOMPARE(value->scope, module);
        int from = 0;
        for (const QString& s : says) {
            const int at = value->message.indexOf(s, from);
            QVERIFY2(at >= 0, qPrintable(value->message + QStringLiteral("\n lacks: ") + s));
            from = at + s.size();
        }
        QCOMPARE(value->baseNodes.size(), 1);
        const IrNode& node = check.traces[0].graph.node(value->baseNodes[0]);
        QCOMPARE(node.kind, op);
        // At the model's own line, with the user's frames down to it.
        QVERIFY(value->location.isValid());
        QVERIFY2(std::any_of(value->stack.cbegin(), value->stack.cend(),
                     [&](const SourceLocation& f) { return f.file == path; }),
            "the stack reaches the user's file");
        // PyTorch's own words stand under it, where its check compared this set.
        QVERIFY2(std::any_of(value->evidence.cbegin(), value->evidence.cend(),
                     [](const QString& e) { return e.startsWith(QLatin1String("PyTorch's check: Output nr 1.")); }),
            qPrintable(value->evidence.join(QLatin1Char('\n'))));
    }

    void recordedCallsAsCheckReports_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("statuses");
        QTest::addColumn<QString>("warnings"); ///< kind@line:trace node's line, in order
        QTest::addRow("frozen branch") << "branch.py"
                                       << "reference,diverged"
                                       << "tensor-to-bool@6:7,tensor-to-bool@6:9";
        QTest::addRow("a write through NumPy: same graph, other numbers")
            << "numpy_roundtrip.py"
            << "reference,wrong-output"
            << "tensor-to-number@8:-,tensor-to-number@8:-,output-mismatch@12:-";
        QTest::addRow("loop over a shape") << "export_module.py"
                                           << "reference,diverged"
                                           << "";
    }

    void recordedCallsAsCheckReports()
    {
        QFETCH(QString, file);
        QFETCH(QString, statuses);
        QFETCH(QString, warnings);
        const QString path = pyFile(qPrintable(file));
        const PythonRun run = runPythonFile(path);
        int index = -1;
        for (const PythonCall& c : run.calls)
            if (index < 0 && !c.traces.isEmpty())
                index = c.index;
        QVERIFY2(index >= 0, qPrintable(run.error.toString() + run.stderrText));
        const PythonCall& call = run.calls[index];
        const CheckReport r = checkRecordedCall(run, call, test::readText(path));
        QVERIFY(r.ok);
        QCOMPARE(r.file, call.location.file);
        QCOMPARE(r.function, call.target);
        QCOMPARE(r.traces.size(), call.traces.size());
        QCOMPARE(r.outputs.size(), call.traces.size() - 1);
        QStringList got;
        for (TraceStatus s : r.statuses)
            got << (s == TraceStatus::Reference  ? QStringLiteral("reference")
                    : s == TraceStatus::Same     ? QStringLiteral("same")
                    : s == TraceStatus::Diverged ? QStringLiteral("diverged")
                    : s == TraceStatus::Failed   ? QStringLiteral("failed")
                                                 : QStringLiteral("wrong-output"));
        QCOMPARE(got.join(QLatin1Char(',')), statuses);
        QVERIFY(!r.consistent);
        QCOMPARE(r.verdict(), QStringLiteral("diverged"));
        if (warnings.isEmpty())
            return;
        QStringList kinds;
        for (const TraceWarning& w : r.warnings) {
            const IrGraph& g = r.traces[w.traceIndex].graph;
            kinds << QStringLiteral("%1@%2:%3")
                         .arg(w.kindName())
                         .arg(w.location.line)
                         .arg(w.traceNode >= 0 ? QString::number(g.node(w.traceNode).location.line)
                                               : QStringLiteral("-"));
        }
        QCOMPARE(kinds.join(QLatin1Char(',')), warnings);
    }

    void consistentTracesHaveNoChanges()
    {
        PythonCall call;
        PythonTrace t;
        t.ok = true;
        t.graph = IrGraph::fromJson(QJsonObject {});
        call.traces = { t, t };
        const CheckReport check = checkRecordedCall(PythonRun(), call);
        QVERIFY(check.consistent);
        QCOMPARE(check.diffs.size(), 1);
        QVERIFY(check.diffs[0].changes.isEmpty());
    }

    void malformedRecordsAreRefused()
    {
        PythonRun run;
        QString error;
        QVERIFY(!parsePythonRecord("not json", run, &error));
        QVERIFY(error.startsWith(QLatin1String("the bridge's record is not JSON")));
    }
};

QTEST_GUILESS_MAIN(TestPythonRun)
#include "tst_pythonrun.moc"
