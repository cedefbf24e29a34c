#pragma once

#include <QObject>
#include <QVector>

#include <functional>

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QTabWidget;
class QToolButton;
class QTreeView;
class QWidget;

namespace jitscope {

class CheckController;
class CompareWidget;
class DocumentController;
class GraphPage;
class InputSetsModel;
class SourceView;
class WarningsModel;
struct CheckJobResult;

/// Shows the check: one tab per trace (titled by its input set, a dot saying how it compares with trace 1), the
/// Compare tab, the Warnings panel, warning marks in the source and on script nodes, and in the status bar the
/// progress, a Cancel button and the verdict. Follows CheckController's signals.
class CheckView : public QObject
{
    Q_OBJECT
public:
    struct Parts
    {
        QTabWidget* tabs = nullptr;
        GraphPage* script = nullptr;
        CompareWidget* compare = nullptr;
        WarningsModel* warnings = nullptr;
        QTreeView* warningsView = nullptr;
        SourceView* source = nullptr;
        InputSetsModel* inputSets = nullptr;
    };
    CheckView(const Parts& parts, const DocumentController* document, CheckController* check, QObject* parent);

    /// The Warnings dock's view on @p model: what and where first, the long message last.
    static QTreeView* createWarningsView(WarningsModel* model);

    /// Fills the Check menu: Run (@p runCheck), Cancel, Next/Previous Divergence, Dim Unchanged Nodes.
    void createActions(QMenu* menu, std::function<void()> runCheck);
    /// torch.jit.trace's strict for the checks from now on, shown by Check > Trace with strict=False.
    void setStrict(bool strict);

    /// The status bar widgets, left to right: progress text, progress bar, Cancel, verdict.
    QVector<QWidget*> statusWidgets() const;
    /// The trace tabs follow the Script tab, and the Live trace tab when there is one.
    void setFirstTraceTab(int index) { m_firstTraceTab = index; }

    int traceCount() const { return int(m_pages.size()); }
    GraphPage* tracePage(int trace) const { return trace >= 0 && trace < m_pages.size() ? m_pages.at(trace) : nullptr; }
    /// The trace whose page @p page is, or -1.
    int traceOfPage(const QWidget* page) const;
    /// The Export tab (a recorded call exported with torch.export: its program's graph, or why export failed), or
    /// null.
    GraphPage* exportPage() const { return m_exportPage; }
    /// The text of the check's verdict in the status bar.
    QString verdictText() const;

Q_SIGNALS:
    /// A node of trace @p trace's tab was selected.
    void traceNodeSelected(int trace, int nodeId);
    /// A node of the Export tab's graph (CheckReport::exported.graph) was selected.
    void exportNodeSelected(int nodeId);
    /// A trace tab was made; the window follows its zoom.
    void pageAdded(GraphPage* page);
    /// A check's result (or its cancellation) is shown.
    void shown(const CheckJobResult& result);
    void statusMessage(const QString& text);

private:
    void onStarted(const QString& function, int sets, bool relayoutOnly);
    void onProgress(int value, const QString& text);
    void onFinished(const CheckJobResult& result);
    void onCleared(const QString& title, const QString& text, bool isError);
    void hideProgress();
    void showReport();
    void rebuildTraceTabs();
    void removeTraceTabs();
    void addExportTab();
    void setVerdict(const QString& html, const QString& toolTip);

    Parts m_parts;
    const DocumentController* m_document = nullptr;
    CheckController* m_check = nullptr;
    QVector<GraphPage*> m_pages;
    GraphPage* m_exportPage = nullptr;
    int m_firstTraceTab = 1;
    QLabel* m_label = nullptr;
    QProgressBar* m_progress = nullptr;
    QToolButton* m_cancel = nullptr;
    QLabel* m_verdict = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_strictAction = nullptr; ///< Check > Trace with strict=False
};

} // namespace jitscope
