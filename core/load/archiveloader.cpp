// TorchScript archives (torch.jit.save output): torch::jit::load without the tensor data of parameters and buffers
// (read when a run needs it), then every module's methods, submodules, parameters, buffers, attributes and constants
// collected into a ModelInfo, and the archive's code/ records as its source. One of the few translation units that
// include libtorch.

#include "ir/activity.h"
#include "ir/irsnapshot_p.h"
#include "ir/torcherror_p.h"
#include "load/debugtablecheck_p.h"
#include "load/loader_p.h"
#include "load/model.h"
#include "load/modelhandle_p.h"
#include "load/picklecheck_p.h"
#include "load/sourceguards_p.h"

#include <QFile>
#include <QRegularExpression>

#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/version.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <optional>
#include <sstream>
#include <unordered_set>

namespace jitscope {

namespace tj = torch::jit;

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString tensorDtype(const at::Tensor& t)
{
    return qs(c10::toString(t.scalar_type()));
}

/// Appends @p v to @p out, a tensor as its dtype and shape ("Float[2, 3]", as the parameter rows show tensors), never
/// its data: printing the data read every element (a whole weight dict, then cut to 80 characters), and read past
/// a storage whose record is shorter than its pickle says (a crash found by fuzz_archive). Stops once @p out is
/// past @p budget characters.
void appendShortValue(const c10::IValue& v, QString& out, int budget)
{
    if (out.size() > budget)
        return;
    const auto appendAll = [&](const auto& items, const char* open, const char* close) {
        out += QLatin1String(open);
        bool first = true;
        for (const auto& item : items) {
            if (out.size() > budget)
                break;
            if (!first)
                out += QStringLiteral(", ");
            first = false;
            appendShortValue(item, out, budget);
        }
        out += QLatin1String(close);
    };
    if (v.isTensor()) {
        const at::Tensor& t = v.toTensor();
        QStringList dims;
        if (t.defined())
            for (int64_t d : t.sizes())
                dims << QString::number(d);
        out += t.defined() ? tensorDtype(t) + QLatin1Char('[') + dims.join(QStringLiteral(", ")) + QLatin1Char(']')
                           : QStringLiteral("None");
    } else if (v.isList()) {
        appendAll(v.toListRef(), "[", "]");
    } else if (v.isTuple()) {
        appendAll(v.toTupleRef().elements(), "(", ")");
    } else if (v.isGenericDict()) {
        out += QLatin1Char('{');
        bool first = true;
        for (const auto& entry : v.toGenericDict()) {
            if (out.size() > budget)
                break;
            if (!first)
                out += QStringLiteral(", ");
            first = false;
            appendShortValue(entry.key(), out, budget);
            out += QStringLiteral(": ");
            appendShortValue(entry.value(), out, budget);
        }
        out += QLatin1Char('}');
    } else {
        std::ostringstream os;
        os << v;
        out += qs(os.str());
    }
}

QString shortValue(const c10::IValue& v)
{
    QString s;
    appendShortValue(v, s, 80);
    if (s.size() > 80)
        s = s.left(77) + QStringLiteral("...");
    return s;
}

/// Reads no tensor data: values show their tensors as dtype and shape (shortValue), so the data a view load left
/// unread stays so.
void collectModule(const tj::Module& module, const QString& prefix, ModelInfo& model, bool inlineCalls)
{
    const auto type = module.type();
    SubmoduleInfo sub;
    sub.path = prefix;
    sub.typeName = qs(type->name() ? type->name()->qualifiedName() : type->str());
    for (auto* method : type->methods()) {
        const QString mname = qs(method->name());
        sub.methods << mname;
        FunctionInfo fn;
        fn.name = prefix.isEmpty() ? mname : prefix + QLatin1Char('.') + mname;
        try {
            auto& gf = tj::toGraphFunction(*method);
            fn.signature = signatureText(mname, method->getSchema());
            // Submodule methods are inlined on demand (inlineFunction).
            fn.inlined = inlineCalls && prefix.isEmpty();
            fn.graph = snapshotOf(*gf.graph(), fn.inlined, &fn.inlinedIds);
            fn.ok = true;
            for (const auto& node : fn.graph.nodes) {
                if (node.location.isValid()) {
                    fn.location = node.location;
                    break;
                }
            }
        } catch (const std::exception& e) {
            fn.error = diagnosticFromTorchError(e.what(), model.path);
        }
        model.functions.push_back(fn);
    }
    model.submodules.push_back(sub);

    const auto object = module._ivalue();
    for (size_t i = 0; i < type->numAttributes(); ++i) {
        const auto& attrType = type->getAttribute(i);
        if (attrType->is_module())
            continue;
        ParameterInfo p;
        const QString name = qs(type->getAttributeName(i));
        p.name = prefix.isEmpty() ? name : prefix + QLatin1Char('.') + name;
        p.kind = type->is_parameter(i)
            ? ParameterInfo::Kind::Parameter
            : (type->is_buffer(i) ? ParameterInfo::Kind::Buffer : ParameterInfo::Kind::Attribute);
        p.type = qs(attrType->annotation_str());
        const c10::IValue value = object->getSlot(i);
        if (value.isTensor()) {
            const at::Tensor t = value.toTensor();
            if (t.defined()) {
                p.dtype = tensorDtype(t);
                for (auto d : t.sizes())
                    p.shape.push_back(d);
            }
        } else {
            p.value = shortValue(value);
        }
        model.parameters.push_back(p);
    }
    for (size_t i = 0; i < type->numConstants(); ++i) {
        ParameterInfo p;
        const QString name = qs(type->getConstantName(i));
        p.name = prefix.isEmpty() ? name : prefix + QLatin1Char('.') + name;
        p.kind = ParameterInfo::Kind::Attribute;
        const c10::IValue value = type->getConstant(i);
        p.type = QStringLiteral("Final[%1]").arg(qs(value.type()->annotation_str()));
        p.value = shortValue(value);
        model.parameters.push_back(p);
    }
    for (const auto& child : module.named_children()) {
        const QString childPath = prefix.isEmpty() ? qs(child.name) : prefix + QLatin1Char('.') + qs(child.name);
        collectModule(child.value, childPath, model, inlineCalls);
    }
}

QString archiveCode(const QString& path)
{
    QString code;
    try {
        caffe2::serialize::PyTorchStreamReader reader(path.toStdString());
        for (const auto& record : reader.getAllRecords()) {
            if (record.find("code/") == std::string::npos || record.size() < 3
                || record.compare(record.size() - 3, 3, ".py") != 0)
                continue;
            auto [data, size] = reader.getRecord(record);
            const auto* bytes = static_cast<const char*>(data.get());
            code += QStringLiteral("# ===== %1 =====\n").arg(qs(record));
            code += QString::fromUtf8(bytes, qsizetype(size));
            if (!code.endsWith(QLatin1Char('\n')))
                code += QLatin1Char('\n');
        }
    } catch (const std::exception&) {
        // The code is informative only; the load itself reports real problems.
    }
    return code;
}

bool endsWith(const std::string& s, const char* suffix)
{
    const size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

/// The archive as PyTorchStreamReader reads it for torch::jit::load, except the payloads of its data/ records (the
/// tensor data of parameters, buffers and tensor attributes): a read of one leaves the buffer as the allocator gave
/// it (fresh pages: no disk read, no resident memory) and is remembered, so that readData() reads the payloads into
/// those buffers when a run needs the values. That works because libtorch 1.13 reads each storage's record once,
/// into the buffer the storage then keeps (readArchiveAndTensors), a stored record in one read at its payload's
/// offset (miniz), and checks no CRC (PyTorch builds miniz without).
class ViewReader final : public caffe2::serialize::ReadAdapterInterface
{
public:
    /// Null when the file cannot be opened or is no archive: torch::jit::load(path) then says why.
    static std::shared_ptr<ViewReader> open(const QString& path)
    {
        std::shared_ptr<ViewReader> r(new ViewReader);
        r->m_path = path;
        r->m_fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (r->m_fd < 0 || ::fstat(r->m_fd, &st) != 0)
            return nullptr;
        r->m_size = size_t(st.st_size);
        std::unordered_set<uint64_t> payloads;
        try {
            caffe2::serialize::PyTorchStreamReader reader(r); // nothing marked yet: reads everything it asks
            for (const auto& record : reader.getAllRecords())
                if (record.rfind("data/", 0) == 0)
                    payloads.insert(reader.getRecordOffset(record));
        } catch (const std::exception&) {
            return nullptr;
        }
        // An empty record's payload offset is where the next entry's header starts (or the central directory):
        // a read there is the header's, and must be served. A payload that merely starts with a zip signature is
        // read like any other entry, which is only slower.
        for (auto it = payloads.begin(); it != payloads.end();) {
            char signature[4] = {};
            const bool header = r->readAt(*it, signature, 4) == 4 && signature[0] == 'P' && signature[1] == 'K'
                && signature[2] < 8 && signature[3] < 8;
            it = header ? payloads.erase(it) : std::next(it);
        }
        r->m_payloads = std::move(payloads);
        return r;
    }

    ~ViewReader() override
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }

    size_t size() const override { return m_size; }

    size_t read(uint64_t pos, void* buf, size_t n, const char* what) const override
    {
        Q_UNUSED(what);
        if (m_payloads.count(pos) && pos + n <= m_size) {
            m_skipped.push_back({ pos, buf, n });
            return n;
        }
        return readAt(pos, buf, n);
    }

    bool skippedAny() const { return !m_skipped.empty(); }

    /// Reads every payload skipped into its buffer. False with @p error when the file no longer holds them.
    bool readData(QString* error)
    {
        for (const Skipped& s : m_skipped) {
            if (readAt(s.pos, s.buffer, s.size) != s.size) {
                *error = QStringLiteral("%1: cannot read the parameters' data (%2): the file changed on disk since it "
                                        "was opened; open it again")
                             .arg(m_path, errno ? qs(std::strerror(errno)) : QStringLiteral("the file is shorter"));
                return false;
            }
        }
        m_skipped.clear();
        return true;
    }

private:
    ViewReader() = default;

    size_t readAt(uint64_t pos, void* buf, size_t n) const
    {
        size_t done = 0;
        errno = 0;
        while (done < n) {
            const ssize_t got = ::pread(m_fd, static_cast<char*>(buf) + done, n - done, off_t(pos + done));
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                break;
            done += size_t(got);
        }
        return done;
    }

    struct Skipped
    {
        uint64_t pos;
        void* buffer;
        size_t size;
    };
    QString m_path;
    int m_fd = -1;
    size_t m_size = 0;
    std::unordered_set<uint64_t> m_payloads; ///< where the data/ records' payloads start
    mutable std::vector<Skipped> m_skipped;
};

/// What crashes torch::jit::load rather than failing it, found before it runs: pickles whose stack underflows or
/// that nest too deep (picklecheck.cpp), and code files with too deep nesting or untyped class-body assignments
/// (sourceguards.cpp). The message names the archive's entry. Archives the reader cannot open are left to
/// torch::jit::load's own error.
std::optional<LoadResult> refuseHostileArchive(const QString& path)
{
    std::unique_ptr<caffe2::serialize::PyTorchStreamReader> reader;
    std::vector<std::string> records;
    try {
        reader = std::make_unique<caffe2::serialize::PyTorchStreamReader>(path.toStdString());
        records = reader->getAllRecords();
    } catch (const std::exception&) {
        return std::nullopt;
    }
    for (const auto& record : records) {
        const bool pickle = endsWith(record, ".pkl") || endsWith(record, ".debug_pkl");
        const bool code = endsWith(record, ".py") && record.find("code/") != std::string::npos;
        if (!pickle && !code)
            continue;
        at::DataPtr data;
        size_t size = 0;
        try {
            std::tie(data, size) = reader->getRecord(record);
        } catch (const std::exception& e) {
            return loadFailure(
                path, QStringLiteral("%1: cannot read this entry (%2)").arg(qs(record), torchErrorMessage(e.what())));
        }
        const auto* bytes = static_cast<const char*>(data.get());
        if (pickle) {
            const PickleProblem problem = checkPickle(bytes, size);
            if (!problem.ok)
                return loadFailure(path,
                    QStringLiteral("%1: byte %2: %3 (a corrupt or hostile pickle)")
                        .arg(qs(record))
                        .arg(problem.offset)
                        .arg(qs(problem.message)));
            if (endsWith(record, ".debug_pkl")) {
                const std::string table = checkDebugTable(bytes, size);
                if (!table.empty())
                    return loadFailure(path,
                        QStringLiteral("%1: %2 (a corrupt debug table: torch::jit::load would read past it)")
                            .arg(qs(record), qs(table)));
            }
            continue;
        }
        try {
            refuseHostileArchiveSource(QString::fromUtf8(bytes, qsizetype(size)), qs(record));
        } catch (const LocatedError& e) {
            return loadFailure(path, e.diagnostic.toString());
        }
    }
    return std::nullopt;
}

/// "2.15.0+cpu" -> {2, 15, 0}
QVector<int> versionNumbers(const QString& version)
{
    QVector<int> numbers;
    for (const QString& part : version.section(QLatin1Char('+'), 0, 0).split(QLatin1Char('.'))) {
        bool ok = false;
        const int n = part.toInt(&ok);
        if (!ok)
            break;
        numbers << n;
    }
    return numbers;
}

bool newerThanEngine(const QString& version)
{
    const QVector<int> theirs = versionNumbers(version);
    const QVector<int> ours = versionNumbers(QStringLiteral(TORCH_VERSION));
    return !theirs.isEmpty() && std::lexicographical_compare(ours.begin(), ours.end(), theirs.begin(), theirs.end());
}

/// What torch saved the archive, when JitScope's bridge saved it (its extra file "jitscope_producer": "torch X").
QString archiveProducer(const QString& path)
{
    try {
        caffe2::serialize::PyTorchStreamReader reader(path.toStdString());
        if (!reader.hasRecord("extra/jitscope_producer"))
            return {};
        auto [data, size] = reader.getRecord("extra/jitscope_producer");
        return QString::fromUtf8(static_cast<const char*>(data.get()), int(std::min<size_t>(size, 64))).trimmed();
    } catch (const std::exception&) {
        return {};
    }
}

} // namespace

QString newerTorchNote(const QString& archive, const QString& producer)
{
    QString by = producer.isEmpty() ? archiveProducer(archive) : producer;
    if (by.startsWith(QLatin1String("torch ")))
        by = by.mid(6);
    if (by.isEmpty() || !newerThanEngine(by))
        return {};
    return QStringLiteral("it was saved by torch %1, newer than JitScope's libtorch %2, which cannot read everything "
                          "%1 writes (build JitScope against that torch: make TORCH_PYTHON=/path/to/its/python)")
        .arg(by, QStringLiteral(TORCH_VERSION));
}

namespace {

/// Why an archive libtorch refused may come from a newer torch: an operator or a format version it does not know.
QString engineNote(const std::string& what)
{
    const QString text = QString::fromStdString(what);
    if (text.contains(QLatin1String("Unknown builtin op: aten::")) || text.contains(QLatin1String("Unknown builtin op: prim::"))
        || text.contains(QLatin1String("file format version")) || text.contains(QLatin1String("Unknown type name")))
        return QStringLiteral("; the archive may come from a torch newer than JitScope's libtorch %1")
            .arg(QStringLiteral(TORCH_VERSION));
    return {};
}

} // namespace

LoadResult loadArchive(const QString& path, const QByteArray& head, const LoadOptions& options)
{
    const bool inlineCalls = options.inlineCalls;
    if (!head.startsWith("PK\x03\x04") && !head.startsWith("PK\x05\x06"))
        return loadFailure(path, QStringLiteral("not a TorchScript archive (not a zip file)"));
    activity::setPhase(0, "checking the archive's pickles and code");
    if (auto refused = refuseHostileArchive(path))
        return *refused;
    const QString code = archiveCode(path);
    activity::setPhase(0, "finding the libraries of the archive's custom operators");
    QVector<OpLibrary> opLibraries;
    if (const QString missing = resolveOpLibraries(code, options, &opLibraries); !missing.isEmpty())
        return loadFailure(path, missing);
    activity::setPhase(0, "loading the archive (torch::jit::load)");
    // Viewing needs the parameters' shapes and dtypes, not their values: the load leaves the data unread
    // (ViewReader) and the handle reads it when a run needs it. A class's __setstate__ runs during the load on the
    // values it is given: such archives are loaded with their data.
    const std::shared_ptr<ViewReader> view
        = code.contains(QLatin1String("def __setstate__")) ? nullptr : ViewReader::open(path);
    tj::Module module;
    try {
        module = view ? tj::load(std::shared_ptr<caffe2::serialize::ReadAdapterInterface>(view))
                      : tj::load(path.toStdString());
    } catch (const std::exception& e) {
        const std::string what = e.what();
        static const QRegularExpression unknownOp(
            QStringLiteral("Unknown builtin op: ([A-Za-z0-9_]+::[A-Za-z0-9_.]+)"));
        auto m = unknownOp.match(qs(what));
        const QString newer = newerTorchNote(path);
        if (m.hasMatch()) {
            QString op = m.captured(1);
            while (op.endsWith(QLatin1Char('.')))
                op.chop(1);
            if (op.startsWith(QLatin1String("aten::")) || op.startsWith(QLatin1String("prim::")))
                return loadFailure(path,
                    QStringLiteral("unknown operator %1: JitScope's libtorch %2 has no such operator; %3")
                        .arg(op, QStringLiteral(TORCH_VERSION),
                            newer.isEmpty() ? QStringLiteral("the archive was probably saved by a newer torch")
                                            : newer));
            return loadFailure(path,
                QStringLiteral("unknown operator %1: the libraries loaded do not define it; load the library that "
                               "defines it with --load-ops LIB.so (in the window: Model > Operator Libraries)")
                    .arg(op));
        }
        QString msg = torchErrorMessage(what.c_str());
        if (msg.contains(QLatin1String("PytorchStreamReader")) || msg.contains(QLatin1String("archive"))
            || msg.contains(QLatin1String("constants.pkl")) || msg.contains(QLatin1String("file not found")))
            msg = QStringLiteral("not a valid TorchScript archive (%1)").arg(msg);
        if (!newer.isEmpty())
            msg += QStringLiteral("; ") + newer;
        else
            msg += engineNote(what);
        return loadFailure(path, msg);
    }
    LoadResult result;
    result.ok = true;
    result.model.path = path;
    result.model.kind = ModelInfo::Kind::Archive;
    activity::setPhase(0, "reading the archive's modules");
    auto handle = std::make_shared<ModelHandle>();
    if (view && view->skippedAny())
        handle->readData = [view](QString* error) { return view->readData(error); };
    try {
        collectModule(module, QString(), result.model, inlineCalls);
    } catch (const std::exception& e) {
        return loadFailure(path, torchErrorMessage(e.what()));
    }
    result.model.source = code;
    result.model.opLibraries = opLibraries;
    handle->module = std::make_unique<tj::Module>(module);
    result.model.handle = handle;
    return result;
}

std::once_flag g_torchInit;

} // namespace jitscope
