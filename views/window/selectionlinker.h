#pragma once

#include <QObject>

class QTabWidget;

namespace jitscope {

class CheckController;
class CheckView;
class CompareWidget;
class DebugController;
class DocumentController;
class GraphPage;
class LiveTraceTab;
class NodeInspector;
class SourceView;
class WarningsModel;

/// Keeps the selections of the script graph, the trace tabs, the Live trace tab, Compare, the Warnings panel, the
/// Inspector and the source in step: a trace node selects the script node that recorded it and its line; a script
/// node marks every trace node it recorded (tagged with its loop iteration) and its line; a warning shows its node.
/// Each selection describes itself in the status bar.
class SelectionLinker : public QObject
{
    Q_OBJECT
public:
    struct Parts
    {
        QTabWidget* tabs = nullptr;
        GraphPage* script = nullptr;
        CheckView* traces = nullptr;
        CompareWidget* compare = nullptr;
        WarningsModel* warnings = nullptr;
        SourceView* source = nullptr;
        NodeInspector* inspector = nullptr;
        LiveTraceTab* live = nullptr;
        DebugController* debugger = nullptr;
    };
    SelectionLinker(const Parts& parts, const DocumentController* document, const CheckController* check,
        QObject* parent = nullptr);

    /// Does what clicking warning @p row does: shows its trace node, or the nodes its script node recorded, and its
    /// source line.
    void activateWarning(int row);
    /// The trace tab last looked at, whose linked nodes the status lists.
    void setActiveTrace(int trace) { m_activeTrace = trace; }
    int activeTrace() const { return m_activeTrace; }
    /// Marks again what the selected script node recorded (a trace was replaced).
    void relink();

Q_SIGNALS:
    void statusMessage(const QString& text);

private:
    void onScriptNodeSelected(int nodeId);
    void onTraceNodeSelected(int trace, int nodeId);
    void onExportNodeSelected(int nodeId);
    void onCompareNodeSelected(int graph, int nodeId);
    void onChangeSelected(int changeIndex);
    void onDivergenceSelected(int d);
    void onLiveTraceNodeSelected(int nodeId);
    void onInspectorScriptNode(int nodeId);
    void onInspectorTraceNode(int trace, int nodeId);
    /// Marks the trace nodes script node @p nodeId recorded in every trace tab; returns the listing for the status.
    QString linkScriptNode(int nodeId);
    QString describeTraceNode(int trace, int nodeId) const;

    Parts m_parts;
    const DocumentController* m_document = nullptr;
    const CheckController* m_check = nullptr;
    int m_activeTrace = 0;
    bool m_linking = false; ///< set while one selection updates the others
};

} // namespace jitscope
