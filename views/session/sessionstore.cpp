#include "sessionstore.h"
#include "sessionfile.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSettings>
#include <QStandardPaths>

namespace jitscope {

namespace {

constexpr int kMaxRecentFiles = 10;
const char kSessionFile[] = "sessions.json";
const char kRecentFilesKey[] = "recentFiles";
const char kGeometryKey[] = "mainWindow/geometry";
const char kStateKey[] = "mainWindow/state";
const char kDarkThemeKey[] = "view/darkTheme";
const char kExportCallsKey[] = "python/exportCalls";
const char kGroupArchivesKey[] = "view/groupArchivesByModule";
const char kGroupSourcesKey[] = "view/groupSourcesByModule";
const char kOperatorLibrariesKey[] = "model/operatorLibraries";
const char kPythonFilesKey[] = "python/allowedFiles";
const char kPythonFoldersKey[] = "python/allowedFolders";
const char kInterpretersKey[] = "python/interpreters"; // a map: folder -> interpreter

QSettings settings()
{
    return QSettings(QStringLiteral("JitScope"), QStringLiteral("JitScope"));
}

/// The session file as read, Ok when there is none.
SessionFile readFile()
{
    QFile file(SessionStore::inputSetsPath());
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return readSessionFile(file.readAll());
}

} // namespace

std::optional<QJsonObject> SessionStore::readSessions()
{
    const SessionFile f = readFile();
    if (f.status == SessionFile::Status::Ok)
        return f.inputSets;
    // Kept for the user (or the newer JitScope that wrote it), out of the way of this one.
    const QString path = inputSetsPath();
    const QString aside = path + QStringLiteral(".corrupt-")
        + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
    const bool renamed = QFile::rename(path, aside);
    m_setAside = renamed
        ? tr("The saved input sets could not be read (%1); the file was kept as %2.").arg(f.problem, aside)
        : tr("The saved input sets could not be read (%1) nor set aside as %2.").arg(f.problem, aside);
    Q_EMIT setAside(m_setAside);
    if (!renamed)
        return std::nullopt; // still in the way: not to be overwritten
    return QJsonObject();
}

SessionStore::SessionStore(QObject* parent)
    : QObject(parent)
{ }

QString SessionStore::inputSetsPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QLatin1Char('/')
        + QLatin1String(kSessionFile);
}

void SessionStore::setPersistent(bool persistent)
{
    m_persistent = persistent;
    if (!persistent)
        return;
    readSessions(); // a file that cannot be read is set aside now, with its message
    QSettings s = settings();
    m_groupArchives = s.value(QLatin1String(kGroupArchivesKey), m_groupArchives).toBool();
    m_groupSources = s.value(QLatin1String(kGroupSourcesKey), m_groupSources).toBool();
    m_operatorLibraries = s.value(QLatin1String(kOperatorLibrariesKey)).toStringList();
    for (const QString& f : s.value(QLatin1String(kPythonFilesKey)).toStringList())
        m_pythonFiles.insert(f);
    for (const QString& f : s.value(QLatin1String(kPythonFoldersKey)).toStringList())
        m_pythonFolders.insert(f);
    const QVariantMap interpreters = s.value(QLatin1String(kInterpretersKey)).toMap();
    for (auto it = interpreters.cbegin(); it != interpreters.cend(); ++it)
        m_interpreters.insert(it.key(), it.value().toString());
}

namespace {

QString cleanPath(const QString& path)
{
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

QStringList sorted(const QSet<QString>& set)
{
    QStringList list(set.cbegin(), set.cend());
    list.sort();
    return list;
}

} // namespace

SessionStore::PythonConsent SessionStore::pythonConsent(const QString& path) const
{
    const QString file = cleanPath(path);
    if (m_pythonFiles.contains(file))
        return PythonConsent::File;
    for (QString dir = QFileInfo(file).path();; dir = QFileInfo(dir).path()) {
        if (m_pythonFolders.contains(dir))
            return PythonConsent::Folder;
        if (QDir(dir).isRoot() || dir.isEmpty() || dir == QLatin1String("."))
            break;
    }
    return PythonConsent::None;
}

void SessionStore::allowPython(const QString& path, bool folder)
{
    const QString file = cleanPath(path);
    if (folder)
        m_pythonFolders.insert(QFileInfo(file).path());
    else
        m_pythonFiles.insert(file);
    if (!m_persistent)
        return;
    QSettings s = settings();
    s.setValue(QLatin1String(kPythonFilesKey), sorted(m_pythonFiles));
    s.setValue(QLatin1String(kPythonFoldersKey), sorted(m_pythonFolders));
}

void SessionStore::revokePython(const QString& path)
{
    const QString file = cleanPath(path);
    m_pythonFiles.remove(file);
    for (QString dir = QFileInfo(file).path();; dir = QFileInfo(dir).path()) {
        m_pythonFolders.remove(dir);
        if (QDir(dir).isRoot() || dir.isEmpty() || dir == QLatin1String("."))
            break;
    }
    if (!m_persistent)
        return;
    QSettings s = settings();
    s.setValue(QLatin1String(kPythonFilesKey), sorted(m_pythonFiles));
    s.setValue(QLatin1String(kPythonFoldersKey), sorted(m_pythonFolders));
}

QStringList SessionStore::recentFiles() const
{
    return settings().value(QLatin1String(kRecentFilesKey)).toStringList();
}

void SessionStore::addRecentFile(const QString& path)
{
    if (!m_persistent)
        return;
    QSettings s = settings();
    QStringList files = s.value(QLatin1String(kRecentFilesKey)).toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    s.setValue(QLatin1String(kRecentFilesKey), files);
}

void SessionStore::clearRecentFiles()
{
    settings().remove(QLatin1String(kRecentFilesKey));
}

std::optional<QStringList> SessionStore::inputSets(const QString& modelPath) const
{
    if (!m_persistent)
        return std::nullopt;
    const SessionFile f = readFile();
    if (f.status != SessionFile::Status::Ok)
        return std::nullopt;
    const QJsonValue value = f.inputSets.value(modelPath);
    if (!value.isArray())
        return std::nullopt;
    QStringList texts;
    for (const QJsonValue& v : value.toArray())
        texts << v.toString();
    return texts;
}

bool SessionStore::setInputSets(const QString& modelPath, const std::optional<QStringList>& texts)
{
    if (!m_persistent)
        return false;
    std::optional<QJsonObject> read = readSessions();
    if (!read)
        return false;
    QJsonObject& sessions = *read;
    if (texts)
        sessions.insert(modelPath, QJsonArray::fromStringList(*texts));
    else
        sessions.remove(modelPath);
    QDir().mkpath(QFileInfo(inputSetsPath()).absolutePath());
    // Atomically, so that a crash never leaves half a file.
    QSaveFile file(inputSetsPath());
    if (!file.open(QIODevice::WriteOnly))
        return false;
    const QByteArray bytes = writeSessionFile(sessions);
    return file.write(bytes) == bytes.size() && file.commit();
}

void SessionStore::setGroupByModule(bool source, bool group)
{
    (source ? m_groupSources : m_groupArchives) = group;
    if (m_persistent)
        settings().setValue(QLatin1String(source ? kGroupSourcesKey : kGroupArchivesKey), group);
}

QString SessionStore::pythonInterpreter(const QString& folder) const
{
    return m_interpreters.value(cleanPath(folder));
}

void SessionStore::setPythonInterpreter(const QString& folder, const QString& python)
{
    if (python.isEmpty())
        m_interpreters.remove(cleanPath(folder));
    else
        m_interpreters.insert(cleanPath(folder), python);
    if (!m_persistent)
        return;
    QVariantMap map;
    for (auto it = m_interpreters.cbegin(); it != m_interpreters.cend(); ++it)
        map.insert(it.key(), it.value());
    settings().setValue(QLatin1String(kInterpretersKey), map);
}

void SessionStore::setOperatorLibraries(const QStringList& libraries)
{
    m_operatorLibraries = libraries;
    if (m_persistent)
        settings().setValue(QLatin1String(kOperatorLibrariesKey), libraries);
}

bool SessionStore::darkTheme() const
{
    return settings().value(QLatin1String(kDarkThemeKey), false).toBool();
}

bool SessionStore::exportCalls() const
{
    return settings().value(QLatin1String(kExportCallsKey), true).toBool();
}

void SessionStore::setExportCalls(bool exportCalls)
{
    if (m_persistent)
        settings().setValue(QLatin1String(kExportCallsKey), exportCalls);
}

void SessionStore::setDarkTheme(bool dark)
{
    if (m_persistent)
        settings().setValue(QLatin1String(kDarkThemeKey), dark);
}

QByteArray SessionStore::windowGeometry() const
{
    return settings().value(QLatin1String(kGeometryKey)).toByteArray();
}

QByteArray SessionStore::windowState() const
{
    return settings().value(QLatin1String(kStateKey)).toByteArray();
}

void SessionStore::saveWindow(const QByteArray& geometry, const QByteArray& state)
{
    if (!m_persistent)
        return;
    QSettings s = settings();
    s.setValue(QLatin1String(kGeometryKey), geometry);
    s.setValue(QLatin1String(kStateKey), state);
}

} // namespace jitscope
