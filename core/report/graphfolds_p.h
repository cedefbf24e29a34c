#pragma once

// What the DOT text (dottext.cpp) and the folds a big graph opens with (graphfolds.cpp) both ask of a graph: which
// nodes fold into their users and with what text, which change a value in place, which reach the outputs. Private to
// core/report.

#include "report/irgraph.h"

#include <QHash>
#include <QSet>
#include <QString>
#include <QVector>

namespace jitscope {

/// Decides which nodes fold into their consumers and what text they contribute.
class Folder
{
public:
    Folder(const IrGraph& g, bool enabled);

    bool isFolded(int nodeId) const { return m_folded.contains(nodeId); }
    QString text(int nodeId) const { return m_folded.value(nodeId); }

private:
    const IrGraph& m_g;
    QHash<int, QString> m_folded;
};

/// Ops that change their first input in place (x.relu_(), list.append(v)): value id -> node ids, in program order.
QHash<int, QVector<int>> inPlaceChanges(const IrGraph& g);

/// Nodes whose results reach the outputs (through their inputs, and through the blocks that hold them); a change
/// in place counts as producing the value it changes.
QSet<int> nodesReachingOutputs(const IrGraph& g, const QHash<int, QVector<int>>& mutators);

} // namespace jitscope
