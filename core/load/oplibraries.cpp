// Libraries of custom operators. An archive calls them as `ops.NAMESPACE.op(...)` in its code; a namespace libtorch
// lacks (torchvision::nms, roi_align: every torchvision detection model) is looked for where the configured Python
// keeps its packages (the namespace's package: torchvision/_C*.so), without running any of that package's code:
// Python is asked for its sys.path only. Libraries stay loaded for the process; which namespaces each one
// registered is remembered, so a later load names the library its archive's operators come from.

#include "load/loader_p.h"
#include "load/model.h"

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

#include <dlfcn.h>

#include <algorithm>
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

/// dlopen()s @p path (once per process) and notes the namespaces it registered. Registry locked by the caller.
QString openLocked(Registry& r, const QString& path)
{
    if (r.namespacesOf.contains(path))
        return {};
    if (r.errors.contains(path))
        return r.errors.value(path);
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

QStringList askPythonForPath()
{
    QString python = qEnvironmentVariable("JITSCOPE_PYTHON");
    if (python.isEmpty())
        python = QStringLiteral("/usr/bin/python3");
    QProcess p;
    p.setWorkingDirectory(QDir::rootPath());
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start(python, { QStringLiteral("-c"), QStringLiteral("import sys; print('\\n'.join(sys.path))") });
    QStringList dirs;
    if (p.waitForStarted(5000) && p.waitForFinished(10000) && p.exitStatus() == QProcess::NormalExit
        && p.exitCode() == 0) {
        const QStringList lines = QString::fromLocal8Bit(p.readAllStandardOutput()).split(QLatin1Char('\n'));
        for (const QString& line : lines) {
            const QString dir = line.trimmed();
            if (!dir.isEmpty() && QFileInfo(dir).isDir() && !dirs.contains(dir))
                dirs << dir;
        }
        return dirs;
    }
    if (p.state() != QProcess::NotRunning) {
        p.kill();
        p.waitForFinished(1000);
    }
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
            r.searchDirs = askPythonForPath();
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
            message
                += QStringLiteral("; looked for the %1 package of the system's Python: %2").arg(ns, searchedText(dirs));
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
