#pragma once

#include <QObject>

class QLabel;
class QTabWidget;

namespace jitscope {

class CheckController;
class CheckView;
class CompareWidget;
class FindBar;
class GraphPage;
class GraphScene;
class GraphView;
class LiveTraceTab;
class SelectionLinker;

/// The graph tabs in the window's centre (Script, one per trace of the check, Compare, the Live trace): which one
/// shows (the start view once a file's first check is done, the tab the user was on before a reload), and the find
/// bar and the status bar's zoom label, which follow the current one.
class GraphTabs : public QObject
{
    Q_OBJECT
public:
    /// The graph tabs, for --view and the screenshot mode (Export: the recorded call's exported program;
    /// CompareExport: Compare of trace 1 against it).
    enum class View { Script, Trace, Compare, LiveTrace, Export, CompareExport };
    struct Parts
    {
        QTabWidget* tabs = nullptr;
        GraphPage* script = nullptr;
        CompareWidget* compare = nullptr;
        CheckView* checkView = nullptr;
        LiveTraceTab* liveTrace = nullptr;
        FindBar* findBar = nullptr;
        QLabel* zoomLabel = nullptr;
    };
    GraphTabs(const Parts& parts, const CheckController* check, SelectionLinker* linker, QObject* parent);

    /// The graph of the current tab (in Compare, the right side's); the script's when the tab has none.
    GraphView* currentGraphView() const;
    GraphScene* currentGraphScene() const;
    /// Makes a graph tab current (Trace: trace 1's).
    void showView(View view);
    View currentView() const;
    /// The tab to show once the first check of the next opened file is done; without one, Compare is shown when
    /// the traces diverge (unless the user picked a tab meanwhile).
    void setStartView(View view);
    /// The find bar searches the current tab's graph.
    void updateFindTarget();

    /// A file is about to open (@p reloading: the open file again): its first check picks the tab.
    void fileOpening(bool reloading);
    /// The open file is about to be loaded again: once checked, back to the tab the user is on.
    void rememberTab();
    /// A function's script graph is shown: a new function starts on it unless the user picked a tab.
    void functionShown(bool newFunction);
    /// A check's result is shown: the start view, or the tab before a reload.
    void checkShown();

private:
    void followZoom(GraphView* view);

    Parts m_parts;
    const CheckController* m_check;
    SelectionLinker* m_linker;
    bool m_restoreTabPending = false; ///< a reload: back to the tab the user was on once checked
    View m_restoreView = View::Script;
    int m_restoreTrace = 0;
    bool m_userChoseTab = false;
    bool m_startViewPending = false;
    bool m_hasStartView = false;
    View m_startView = View::Compare;
};

} // namespace jitscope
