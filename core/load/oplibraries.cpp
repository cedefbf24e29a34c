// Libraries of custom operators. An archive calls them as `ops.NAMESPACE.op(...)` in its code; a namespace libtorch
// lacks (torchvision::nms, roi_align: every torchvision detection model) is looked for where the engine's torch's
// Python keeps its packages, then $JITSCOPE_PYTHON's (the namespace's package: torchvision/_C*.so), without running
// any of that package's code: Python is asked for its sys.path and its libpython only. An installed JitScope has no
// engine Python (its libtorch is its own copy): it asks the user's (resolvePython(): $JITSCOPE_PYTHON, the active
// virtual or conda environment's, python3 on PATH). Libraries stay loaded for the process; which namespaces each one
// registered is remembered, so a later load names the library its archive's operators come from.
//
// A library is read before it is opened: one built for another libtorch (Debian's torchvision needs
// libtorch_cpu.so.1.13) is refused with both versions named instead of being loaded beside the engine's. A wheel's
// library may need the wheel's other torch libraries (torchvision 0.29's _C_stable.so needs libtorch_python.so and
// libtorch_cuda.so): those are opened first from the engine's own torch lib/ folder or, for those an installed
// JitScope does not carry, from the lib/ of the torch package beside the library's package when that torch is the
// engine's version; and libtorch_python.so's libpython from the Python whose package the library is (nothing of it
// runs: it only resolves symbols). Those libraries' own libtorch_cpu.so and libc10.so are the engine's, already
// loaded (the loader matches them by soname).

#include "load/loader_p.h"
#include "load/model.h"
#include "report/interpreters.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>

#include <torch/csrc/jit/runtime/operator.h>
#include <torch/version.h>

#include <dlfcn.h>
#include <elf.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>

namespace jitscope {

namespace {

struct Registry
{
    std::mutex mutex;
    QHash<QString, QString> errors; ///< library -> why it did not load (libraries tried and failed)
    QHash<QString, QStringList> namespacesOf; ///< library loaded -> the namespaces it registered
    QHash<QString, QString> providerOf; ///< namespace -> the library that registered it
    std::optional<QStringList> searchDirs;
    QHash<QString, QString> libpythonOf; ///< package folder -> the libpython of the Python whose sys.path it is
};

Registry& registry()
{
    static Registry r;
    return r;
}

/// Every namespace some operator is registered in (JIT operators, which include the dispatcher's).
QSet<QString> registeredNamespaces()
{
    QSet<QString> namespaces;
    for (const auto& op : torch::jit::getAllOperators()) {
        const std::string& name = op->schema().name();
        const size_t colon = name.find("::");
        if (colon != std::string::npos)
            namespaces.insert(QString::fromStdString(name.substr(0, colon)));
    }
    return namespaces;
}

/// The DT_NEEDED entries of an ELF shared library (64-bit, little-endian: the machines JitScope runs on), or
/// nothing when @p path is not one (dlopen() then says why).
QStringList neededLibraries(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const qint64 size = f.size();
    uchar* data = size > qint64(sizeof(Elf64_Ehdr)) ? f.map(0, size) : nullptr;
    if (!data)
        return {};
    const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(data);
    if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64
        || eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr)
        || eh->e_shoff + quint64(eh->e_shnum) * sizeof(Elf64_Shdr) > quint64(size))
        return {};
    const auto* sections = reinterpret_cast<const Elf64_Shdr*>(data + eh->e_shoff);
    QStringList needed;
    for (int i = 0; i < eh->e_shnum; ++i) {
        const Elf64_Shdr& dyn = sections[i];
        if (dyn.sh_type != SHT_DYNAMIC || dyn.sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr& strtab = sections[dyn.sh_link];
        if (dyn.sh_offset + dyn.sh_size > quint64(size) || strtab.sh_offset + strtab.sh_size > quint64(size))
            return {};
        const auto* entries = reinterpret_cast<const Elf64_Dyn*>(data + dyn.sh_offset);
        for (quint64 k = 0; k < dyn.sh_size / sizeof(Elf64_Dyn) && entries[k].d_tag != DT_NULL; ++k)
            if (entries[k].d_tag == DT_NEEDED && entries[k].d_un.d_val < strtab.sh_size) {
                const char* name = reinterpret_cast<const char*>(data + strtab.sh_offset + entries[k].d_un.d_val);
                needed << QString::fromLatin1(name, int(qstrnlen(name, strtab.sh_size - entries[k].d_un.d_val)));
            }
    }
    return needed;
}

/// The folder of the engine's own libtorch_cpu.so (a torch wheel's lib/).
QString engineTorchLibDir()
{
    Dl_info info {};
    if (dladdr(reinterpret_cast<void*>(&torch::jit::getAllOperators), &info) == 0 || !info.dli_fname)
        return {};
    return QFileInfo(QFile::decodeName(info.dli_fname)).absolutePath();
}

bool isTorchLibrary(const QString& soname)
{
    return soname.startsWith(QLatin1String("libtorch")) || soname.startsWith(QLatin1String("libc10"))
        || soname.startsWith(QLatin1String("libshm"));
}

bool askPython(Registry& r, const QString& python, QStringList* dirs);

/// The Pythons whose packages are searched: the engine's torch's, then $JITSCOPE_PYTHON's; an installed program's,
/// the user's.
QStringList pythonsToAsk()
{
    const QString engine = enginePython();
    if (engine.isEmpty())
        return { resolvePython().path };
    QStringList pythons { engine };
    const QString user = qEnvironmentVariable("JITSCOPE_PYTHON");
    if (!user.isEmpty() && user != engine)
        pythons << user;
    return pythons;
}

/// The torch package beside the package of the library @p path (site-packages/torchvision/_C.so ->
/// site-packages/torch), and its version (torch/version.py's, without the local part: 2.14.1); empty when none.
QString neighbourTorch(const QString& path, QString* version)
{
    QDir dir = QFileInfo(path).dir();
    for (int up = 0; up < 4 && dir.cdUp(); ++up) {
        QFile file(dir.filePath(QStringLiteral("torch/version.py")));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        static const QRegularExpression line(
            QStringLiteral(R"(^__version__\s*=\s*['"]([0-9][0-9.]*))"), QRegularExpression::MultilineOption);
        *version = line.match(QString::fromUtf8(file.read(64 * 1024))).captured(1);
        return dir.filePath(QStringLiteral("torch"));
    }
    return {};
}

/// Before @p path is opened: refuses a library built for another libtorch, and opens the engine's torch libraries it
/// needs (and libpython for libtorch_python.so). Registry locked by the caller.
QString prepareLocked(Registry& r, const QString& path)
{
    const QStringList needed = neededLibraries(path);
    const QString libDir = engineTorchLibDir();
    QString neighbourVersion;
    const QString neighbour = neighbourTorch(path, &neighbourVersion);
    QHash<QString, QString> from; ///< torch library needed -> the file opened for it
    QStringList foreign;
    for (const QString& soname : needed) {
        if (!isTorchLibrary(soname))
            continue;
        if (soname.endsWith(QLatin1String(".so")) && !libDir.isEmpty()
            && QFileInfo::exists(libDir + QLatin1Char('/') + soname))
            from.insert(soname, libDir + QLatin1Char('/') + soname);
        else if (soname.endsWith(QLatin1String(".so")) && neighbourVersion == QLatin1String(TORCH_VERSION)
            && QFileInfo::exists(neighbour + QStringLiteral("/lib/") + soname))
            from.insert(soname, neighbour + QStringLiteral("/lib/") + soname);
        else
            foreign << soname;
    }
    if (!foreign.isEmpty() && !neighbourVersion.isEmpty() && neighbourVersion != QLatin1String(TORCH_VERSION))
        return QStringLiteral("built for torch %1 (%2), not the engine's %3 (it needs %4); use the %5 package of a "
                              "torch %3")
            .arg(neighbourVersion, neighbour, QStringLiteral(TORCH_VERSION), foreign.join(QStringLiteral(", ")),
                QFileInfo(path).dir().dirName());
    if (!foreign.isEmpty())
        return QStringLiteral("built for another libtorch than the engine's %1 (it needs %2); use the %3 package of "
                              "a torch %1 (make deps installs torchvision beside it)")
            .arg(QStringLiteral(TORCH_VERSION), foreign.join(QStringLiteral(", ")),
                QFileInfo(path).dir().dirName());
    for (const QString& soname : needed) {
        if (!isTorchLibrary(soname))
            continue;
        if (soname == QLatin1String("libtorch_python.so")) {
            auto libpythonFor = [&r, &path] {
                for (auto it = r.libpythonOf.cbegin(); it != r.libpythonOf.cend(); ++it)
                    if (path.startsWith(it.key() + QLatin1Char('/')))
                        return it.value();
                return QString();
            };
            QString libpython = libpythonFor();
            if (libpython.isEmpty()) {
                // A library given with --load-ops, or found through $JITSCOPE_OPS_PATH: the Pythons not asked yet.
                QStringList dirs;
                const QStringList pythons = pythonsToAsk();
                askPython(r, pythons.first(), &dirs);
                const QString engineDir = dirs.value(0);
                for (const QString& python : pythons.mid(1))
                    askPython(r, python, &dirs);
                libpython = libpythonFor();
                if (libpython.isEmpty() && !engineDir.isEmpty()) // a library copied elsewhere: the engine's Python's
                    libpython = r.libpythonOf.value(QFileInfo(engineDir).canonicalFilePath());
            }
            if (libpython.isEmpty() || !dlopen(QFile::encodeName(libpython).constData(), RTLD_NOW | RTLD_GLOBAL))
                return QStringLiteral("it needs libtorch_python.so, which needs the libpython of the Python it was "
                                      "installed for (%1)")
                    .arg(libpython.isEmpty() ? QStringLiteral("not found") : libpython);
        }
        const QString lib = from.value(soname);
        if (!dlopen(QFile::encodeName(lib).constData(), RTLD_NOW | RTLD_GLOBAL)) {
            const char* why = dlerror();
            return QStringLiteral("%1 did not load: %2").arg(lib, why ? QString::fromLocal8Bit(why) : QString());
        }
    }
    return {};
}

/// dlopen()s @p path (once per process) and notes the namespaces it registered. Registry locked by the caller.
QString openLocked(Registry& r, const QString& path)
{
    if (r.namespacesOf.contains(path))
        return {};
    if (r.errors.contains(path))
        return r.errors.value(path);
    if (const QString refused = prepareLocked(r, path); !refused.isEmpty()) {
        r.errors.insert(path, refused);
        return refused;
    }
    const QSet<QString> before = registeredNamespaces();
    void* handle = dlopen(QFile::encodeName(path).constData(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
        const char* why = dlerror();
        QString error = why ? QString::fromLocal8Bit(why) : QStringLiteral("dlopen failed");
        // dlerror() starts with the path; the messages built from it name the library already.
        if (error.startsWith(path + QLatin1String(": ")))
            error = error.mid(path.size() + 2);
        r.errors.insert(path, error);
        return error;
    }
    QStringList added = (registeredNamespaces() - before).values();
    added.sort();
    r.namespacesOf.insert(path, added);
    for (const QString& ns : std::as_const(added))
        r.providerOf.insert(ns, path);
    return {};
}

/// The package folders of @p python's sys.path, noting its libpython for each; false when it cannot be asked.
bool askPython(Registry& r, const QString& python, QStringList* dirs)
{
    QProcess p;
    p.setWorkingDirectory(QDir::rootPath());
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start(python,
        { QStringLiteral("-c"),
            QStringLiteral("import os, sys, sysconfig; v = sysconfig.get_config_var; "
                           "print(os.path.join(v('LIBDIR') or '', v('LDLIBRARY') or '')); "
                           "print('\\n'.join(sys.path))") });
    if (!p.waitForStarted(5000) || !p.waitForFinished(10000) || p.exitStatus() != QProcess::NormalExit
        || p.exitCode() != 0) {
        if (p.state() != QProcess::NotRunning) {
            p.kill();
            p.waitForFinished(1000);
        }
        return false;
    }
    QStringList lines = QString::fromLocal8Bit(p.readAllStandardOutput()).split(QLatin1Char('\n'));
    const QString libpython = lines.isEmpty() ? QString() : lines.takeFirst().trimmed();
    for (const QString& line : std::as_const(lines)) {
        const QString dir = line.trimmed();
        if (dir.isEmpty() || !QFileInfo(dir).isDir() || dirs->contains(dir))
            continue;
        *dirs << dir;
        if (QFileInfo(libpython).isFile() && libpython.contains(QLatin1String("libpython")))
            r.libpythonOf.insert(QFileInfo(dir).canonicalFilePath(), libpython);
    }
    return true;
}

/// The engine's torch's Python first (its packages are built for the engine's libtorch), then $JITSCOPE_PYTHON's; an
/// installed program's, the user's.
QStringList askPythonForPath(Registry& r)
{
    QStringList dirs;
    bool asked = false;
    const QStringList pythons = pythonsToAsk();
    for (const QString& python : pythons)
        asked = askPython(r, python, &dirs) || asked;
    if (asked)
        return dirs;
    // No Python to ask: where Debian's and pip's packages go.
    for (const QString& root : { QStringLiteral("/usr/local/lib"), QStringLiteral("/usr/lib") }) {
        const QStringList versions
            = QDir(root).entryList({ QStringLiteral("python3*") }, QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        for (const QString& v : versions)
            for (const QString& sub : { QStringLiteral("dist-packages"), QStringLiteral("site-packages") }) {
                const QString dir = root + QLatin1Char('/') + v + QLatin1Char('/') + sub;
                if (QFileInfo(dir).isDir())
                    dirs << dir;
            }
    }
    return dirs;
}

QStringList searchDirsLocked(Registry& r)
{
    if (!r.searchDirs) {
        if (qEnvironmentVariableIsSet("JITSCOPE_OPS_PATH")) {
            QStringList dirs;
            for (const QString& dir : qEnvironmentVariable("JITSCOPE_OPS_PATH").split(QLatin1Char(':')))
                if (!dir.isEmpty())
                    dirs << dir;
            r.searchDirs = dirs;
        } else {
            r.searchDirs = askPythonForPath(r);
        }
    }
    return *r.searchDirs;
}

/// torchvision/_C*.so first (a package's compiled core), then the package's other libraries, then NS*.so beside it.
int candidateRank(const QString& fileName, const QString& ns)
{
    if (fileName.startsWith(QLatin1String("_C")))
        return 0;
    if (fileName.startsWith(QLatin1String("lib") + ns) || fileName.startsWith(QLatin1Char('_') + ns))
        return 1;
    return 2;
}

QStringList candidatesIn(const QStringList& dirs, const QString& ns)
{
    constexpr int maxCandidates = 8;
    QStringList found;
    for (const QString& dir : dirs) {
        QStringList here;
        const QString package = dir + QLatin1Char('/') + ns;
        if (QFileInfo(package).isDir()) {
            QDirIterator it(package, { QStringLiteral("*.so"), QStringLiteral("*.so.*") }, QDir::Files,
                QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString file = it.next();
                // The package and two levels below it (torchaudio/lib/libtorchaudio.so), not its vendored trees.
                if (file.mid(package.size()).count(QLatin1Char('/')) <= 3)
                    here << file;
            }
        }
        const QStringList beside
            = QDir(dir).entryList({ ns + QStringLiteral("*.so") }, QDir::Files | QDir::Readable, QDir::Name);
        for (const QString& f : beside)
            here << dir + QLatin1Char('/') + f;
        std::stable_sort(here.begin(), here.end(), [&ns](const QString& a, const QString& b) {
            const int ra = candidateRank(QFileInfo(a).fileName(), ns);
            const int rb = candidateRank(QFileInfo(b).fileName(), ns);
            return ra != rb ? ra < rb : a < b;
        });
        for (const QString& f : std::as_const(here)) {
            const QString canonical = QFileInfo(f).canonicalFilePath();
            if (!canonical.isEmpty() && !found.contains(canonical))
                found << canonical;
        }
        if (found.size() >= maxCandidates)
            break;
    }
    return found.mid(0, maxCandidates);
}

/// The operators an archive's code calls, by namespace: `ops.torchvision.nms(` -> torchvision: nms (not the module
/// path in `__torch__.torchvision.ops.boxes.nms`).
QMap<QString, QStringList> calledOperators(const QString& code)
{
    static const QRegularExpression call(
        QStringLiteral("(?<![A-Za-z0-9_.])ops\\.([A-Za-z_][A-Za-z0-9_]*)\\.([A-Za-z_][A-Za-z0-9_]*)"));
    QMap<QString, QStringList> ops;
    auto it = call.globalMatch(code);
    while (it.hasNext()) {
        const auto m = it.next();
        QStringList& names = ops[m.captured(1)];
        if (!names.contains(m.captured(2)))
            names << m.captured(2);
    }
    return ops;
}

QString searchedText(const QStringList& dirs)
{
    if (dirs.isEmpty())
        return QStringLiteral("no package folders to search (JITSCOPE_OPS_PATH is empty, or no Python to ask)");
    QStringList shown = dirs.mid(0, 4);
    QString text = QStringLiteral("found none in %1").arg(shown.join(QStringLiteral(", ")));
    if (dirs.size() > shown.size())
        text += QStringLiteral(" and %1 more folders").arg(dirs.size() - shown.size());
    return text;
}

} // namespace

QString loadOpLibrary(const QString& path)
{
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return openLocked(r, QFileInfo(path).absoluteFilePath());
}

QStringList opLibraryCandidates(const QString& ns)
{
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return candidatesIn(searchDirsLocked(r), ns);
}

QString resolveOpLibraries(const QString& code, const LoadOptions& options, QVector<OpLibrary>* used)
{
    const QMap<QString, QStringList> called = calledOperators(code);
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    QSet<QString> present = registeredNamespaces();
    QStringList missing;
    for (auto it = called.cbegin(); it != called.cend(); ++it)
        if (!present.contains(it.key()))
            missing << it.key();
    QVector<QPair<QString, QString>> failures; ///< library, why
    for (const QString& lib : options.opLibraries) {
        const QString path = QFileInfo(lib).absoluteFilePath();
        if (r.errors.contains(path))
            failures.append({ path, r.errors.value(path) });
    }
    for (const QString& ns : std::as_const(missing)) {
        const QStringList dirs = searchDirsLocked(r);
        const QStringList candidates = candidatesIn(dirs, ns);
        QStringList loadedElse; ///< candidates that loaded but registered no operator of ns
        for (const QString& candidate : candidates) {
            const QString error = openLocked(r, candidate);
            if (!error.isEmpty())
                failures.append({ candidate, error });
            else if (r.providerOf.value(ns) == candidate)
                break;
            else
                loadedElse << candidate;
        }
        present = registeredNamespaces();
        if (present.contains(ns))
            continue;
        QString message = QStringLiteral("unknown operator %1::%2: no library of %1:: operators is loaded")
                              .arg(ns, called.value(ns).value(0));
        for (const auto& f : std::as_const(failures))
            message += QStringLiteral("; %1 did not load: %2").arg(f.first, f.second);
        for (const QString& lib : std::as_const(loadedElse))
            message += QStringLiteral("; %1 loaded but defines no %2:: operators").arg(lib, ns);
        if (candidates.isEmpty())
            message += QStringLiteral("; looked for the %1 package in %2: %3")
                           .arg(ns,
                               enginePython().isEmpty()
                                   ? QStringLiteral("the packages of %1 (your Python)").arg(resolvePython().path)
                                   : QStringLiteral("the engine's Python's packages"),
                               searchedText(dirs));
        message += QStringLiteral("; load the library that defines them with --load-ops LIB.so (in the window: Model "
                                  "> Operator Libraries)");
        return message;
    }
    if (used) {
        QSet<QString> given;
        for (const QString& lib : options.opLibraries)
            given.insert(QFileInfo(lib).absoluteFilePath());
        QMap<QString, OpLibrary> byPath;
        for (auto it = called.cbegin(); it != called.cend(); ++it) {
            const QString lib = r.providerOf.value(it.key());
            if (lib.isEmpty())
                continue;
            OpLibrary& entry = byPath[lib];
            entry.path = lib;
            entry.namespaces << it.key();
            entry.found = !given.contains(lib);
        }
        for (const OpLibrary& lib : std::as_const(byPath))
            used->append(lib);
    }
    return {};
}

} // namespace jitscope
