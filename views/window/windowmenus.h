#pragma once

#include <QObject>

class QAction;
class QMenu;

namespace jitscope {

class CheckView;
class DebugUiController;
class DocumentController;
class FindBar;
class GraphPage;
class GraphTabs;
class MainWindow;
class PythonController;
class PythonView;
class SessionStore;
class WorkerClient;

/// The main window's menu bar (File, Edit, View, Model, Check, Debug, Python, Help) and the dialogs its File and
/// Help menus open. The menus act on the window's controllers, and on the window through its public commands.
class WindowMenus : public QObject
{
    Q_OBJECT
public:
    struct Parts
    {
        MainWindow* window = nullptr;
        GraphTabs* tabs = nullptr;
        GraphPage* script = nullptr;
        FindBar* findBar = nullptr;
        CheckView* checkView = nullptr;
        DebugUiController* debug = nullptr;
        PythonController* python = nullptr;
        PythonView* pythonView = nullptr;
        WorkerClient* worker = nullptr; ///< null when the engine runs in process
    };
    /// Fills the window's menu bar.
    WindowMenus(const Parts& parts, DocumentController* document, SessionStore* session, QObject* parent);

    /// View > Group by Module, saved per kind of file (see SessionStore::groupByModule()).
    QAction* groupByModuleAction() const { return m_groupByModuleAction; }
    /// View > Unfold All Modules, enabled while the shown function has folded modules.
    QAction* unfoldAllAction() const { return m_unfoldAllAction; }
    /// View > Dark Theme.
    QAction* darkThemeAction() const { return m_darkAction; }
    /// Model > Export with torch.export (PythonOptions::exportCalls, remembered in the session).
    QAction* exportAction() const { return m_exportAction; }
    /// File > Open Recent, from the session's recent files.
    void updateRecentMenu();

Q_SIGNALS:
    void statusMessage(const QString& text);

private:
    void createFileMenu();
    void createEditMenu();
    void createViewMenu();
    void createPythonMenu();
    void openDialog();
    void exportDialog();
    void about();

    Parts m_parts;
    DocumentController* m_document;
    SessionStore* m_session;
    QMenu* m_recentMenu = nullptr;
    QAction* m_groupByModuleAction = nullptr;
    QAction* m_unfoldAllAction = nullptr;
    QAction* m_darkAction = nullptr;
    QAction* m_exportAction = nullptr;
};

} // namespace jitscope
