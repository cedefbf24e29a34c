#pragma once

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QStringList>

#include <optional>

namespace jitscope {

/// What JitScope remembers between runs: recent files, window geometry and dock state, the theme, Group by Module
/// per kind of file (QSettings, which replaces its file atomically), and the input sets edited per model file (a
/// versioned JSON file in the app data directory, sessionfile.h, written with QSaveFile). A corrupt file, or one of a
/// newer version, is never fatal and never overwritten: it is renamed "sessions.json.corrupt-<timestamp>" and
/// setAside() says so. Until setPersistent(true) nothing is read or written: a window made by a test or for a
/// screenshot leaves the user's settings alone.
class SessionStore : public QObject
{
    Q_OBJECT
public:
    explicit SessionStore(QObject* parent = nullptr);

    bool isPersistent() const { return m_persistent; }
    /// Reads the settings (theme, Group by Module) and from then on saves every change.
    void setPersistent(bool persistent);

    QStringList recentFiles() const;
    /// Puts @p path first in the recent files (at most 10); nothing unless persistent.
    void addRecentFile(const QString& path);
    void clearRecentFiles();

    /// The input sets last edited for @p modelPath, if any were saved (and persistent).
    std::optional<QStringList> inputSets(const QString& modelPath) const;
    /// Saves @p texts for @p modelPath, or forgets them when unset; false when the file cannot be written.
    bool setInputSets(const QString& modelPath, const std::optional<QStringList>& texts);

    /// Group by Module for .py files (@p source) or archives: archives open grouped, .py files as written.
    bool groupByModule(bool source) const { return source ? m_groupSources : m_groupArchives; }
    void setGroupByModule(bool source, bool group);
    /// The libraries of custom operators every model loads with (Model > Operator Libraries), in QSettings.
    QStringList operatorLibraries() const { return m_operatorLibraries; }
    void setOperatorLibraries(const QStringList& libraries);

    /// Consent to run a .py file's code under Python (the bridge): given for the file itself, or for a folder that
    /// holds it. Kept in memory, and in QSettings when persistent.
    enum class PythonConsent { None, File, Folder };
    PythonConsent pythonConsent(const QString& path) const;
    /// Remembers consent for the file @p path, or (@p folder) for its folder and everything below it.
    void allowPython(const QString& path, bool folder);
    /// Forgets the consent given for @p path, its folder and the folders above it.
    void revokePython(const QString& path);

    /// The interpreter chosen for the .py files of @p folder (Model > Python Interpreter, remembered per folder as
    /// VS Code does); empty: the default (resolvePython()). Kept in memory, and in QSettings when persistent.
    QString pythonInterpreter(const QString& folder) const;
    void setPythonInterpreter(const QString& folder, const QString& python);

    bool darkTheme() const;
    void setDarkTheme(bool dark);
    /// Model > Export with torch.export: a Python run exports each recorded trace call too (on unless turned off).
    bool exportCalls() const;
    void setExportCalls(bool exportCalls);
    QByteArray windowGeometry() const;
    QByteArray windowState() const;
    void saveWindow(const QByteArray& geometry, const QByteArray& state);

    /// Where input sets are kept: "<AppDataLocation>/sessions.json".
    static QString inputSetsPath();

    /// The message of the last file set aside, empty when none was.
    QString setAsideMessage() const { return m_setAside; }

Q_SIGNALS:
    /// The session file could not be read and was renamed, with what to tell the user.
    void setAside(const QString& message);

private:
    /// The input sets of the session file; one that cannot be read is set aside (and reads as empty); none when it
    /// could not even be renamed.
    std::optional<QJsonObject> readSessions();
    QString m_setAside;

    bool m_persistent = false;
    bool m_groupArchives = true;
    bool m_groupSources = false;
    QStringList m_operatorLibraries;
    QSet<QString> m_pythonFiles; ///< absolute, cleaned paths
    QSet<QString> m_pythonFolders;
    QHash<QString, QString> m_interpreters; ///< folder (absolute, cleaned) -> interpreter
};

} // namespace jitscope
