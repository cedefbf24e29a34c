#pragma once

#include "report/irgraph.h"

#include <QTextBrowser>
#include <QUrl>

namespace jitscope {

/// The Inspector dock: everything known about the selected node (kind, schema, typed inputs and outputs,
/// attributes, source location, module) and links to its counterparts: for a trace node the script node that
/// recorded it, for a script node the trace nodes it recorded in each trace. Links are "script:ID" and
/// "trace:K:ID" anchors; clicking one emits scriptNodeClicked() or traceNodeClicked().
class NodeInspector : public QTextBrowser
{
    Q_OBJECT
public:
    explicit NodeInspector(QWidget* parent = nullptr);

    /// Shows script node @p nodeId of @p script; @p traces are the check's trace graphs (null when failed).
    void showScriptNode(const IrGraph& script, int nodeId, const QVector<const IrGraph*>& traces);
    /// Shows node @p nodeId of trace @p trace (0-based); @p script resolves its origin node, may be null.
    void showTraceNode(int trace, const IrGraph& graph, int nodeId, const IrGraph* script);
    void clearNode();

    /// The node shown: its kind, or empty.
    QString nodeKind() const { return m_kind; }
    /// The links of the page shown, in order.
    QList<QUrl> links() const { return m_links; }
    /// Does what clicking @p link does.
    void activateLink(const QUrl& link);

Q_SIGNALS:
    void scriptNodeClicked(int nodeId);
    void traceNodeClicked(int trace, int nodeId);

private:
    QString nodeDetails(const IrGraph& graph, const IrNode& node) const;
    QString link(const QString& href, const QString& text);

    QString m_kind;
    QList<QUrl> m_links;
};

} // namespace jitscope
