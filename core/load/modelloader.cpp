// loadModel(): what kind of file it is (a TorchScript archive, a .pt2 package or a .py file), then archiveloader.cpp,
// pt2loader.cpp or pycompiler.cpp loads it. Includes only libtorch's version and logging headers (cheap to compile).

#include "ir/activity.h"
#include "load/exportedprogram.h"
#include "load/loader_p.h"
#include "load/model.h"

#include <QFile>
#include <QFileInfo>

#include <c10/util/Logging.h>
#include <torch/version.h>

#include <mutex>

namespace jitscope {

namespace {

std::once_flag g_torchInit;

LoadResult withWarnings(LoadResult result, const QVector<Diagnostic>& warnings)
{
    if (result.ok)
        result.model.warnings = warnings + result.model.warnings;
    return result;
}

} // namespace

LoadResult loadFailure(const QString& path, const QString& message, int line, int column)
{
    LoadResult r;
    r.ok = false;
    r.error.message = message;
    r.error.location.file = path;
    r.error.location.line = line;
    r.error.location.column = column;
    return r;
}

LoadResult loadModel(const QString& path, const LoadOptions& options)
{
    std::call_once(g_torchInit, [] {
        // Keep libtorch's own warnings (e.g. about deprecated ops) from reaching stderr mid-report.
        c10::ShowLogInfoToStderr();
    });
    QVector<Diagnostic> libraryWarnings;
    for (const QString& lib : options.opLibraries) {
        const QString err = loadOpLibrary(lib);
        if (err.isEmpty())
            continue;
        if (options.strictOpLibraries)
            return loadFailure(lib, QStringLiteral("cannot load operator library: %1").arg(err));
        libraryWarnings.append({ QStringLiteral("operator library %1 did not load: %2").arg(lib, err), { lib, 0, 0 } });
    }
    activity::setFile(QFile::encodeName(path).constData());
    activity::setPhase(0, "loading");
    QFileInfo info(path);
    if (!info.exists())
        return loadFailure(path, QStringLiteral("no such file"));
    if (info.isDir())
        return loadFailure(path, QStringLiteral("is a directory, not a model file"));
    // A FIFO or a device would block the open or the read forever (or never end).
    if (!info.isFile())
        return loadFailure(path, QStringLiteral("not a regular file (a pipe or a device?)"));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return loadFailure(path, QStringLiteral("cannot open: %1").arg(file.errorString()));
    if (file.size() == 0)
        return loadFailure(path, QStringLiteral("file is empty"));

    const QString suffix = info.suffix().toLower();
    // torch.export.save's packages, whatever their name (torch's examples save to .pt too): read by JitScope itself,
    // before libtorch's zip reader could call one a corrupt checkpoint.
    if (suffix == QLatin1String("pt2") || (file.peek(4) == QByteArrayLiteral("PK\x03\x04") && isExportPackage(path))) {
        file.close();
        return withWarnings(loadExportedProgram(path), libraryWarnings);
    }
    const bool isArchiveName = suffix == QLatin1String("pt") || suffix == QLatin1String("pth")
        || suffix == QLatin1String("zip") || suffix == QLatin1String("ptl") || suffix == QLatin1String("torchscript");
    if (isArchiveName) {
        const QByteArray head = file.read(4);
        file.close();
        return withWarnings(loadArchive(path, head, options), libraryWarnings);
    }
    constexpr qint64 maxSource = 64 * 1024 * 1024;
    if (file.size() > maxSource)
        return loadFailure(path, QStringLiteral("file too large for a Python source (%1 MiB)").arg(file.size() >> 20));
    const QByteArray bytes = file.readAll();
    if (bytes.startsWith("PK\x03\x04")) {
        file.close();
        return withWarnings(loadArchive(path, bytes.left(4), options), libraryWarnings);
    }
    return withWarnings(loadPython(path, bytes, options.inlineCalls), libraryWarnings);
}

QString libtorchVersion()
{
    return QStringLiteral(TORCH_VERSION);
}

} // namespace jitscope
