// CompareWidget's selection across its two sides: a node and its counterpart, a change or divergence and its nodes,
// stepping through them, their values and source.

#include "comparewidget.h"
#include "comparewidget_p.h"

#include "divergencemodel.h"
#include "graphscene.h"
#include "graphview.h"
#include "report/reportqueries.h"
#include "stackpeek.h"
#include "valuesidesmodel.h"

#include <QTreeView>

namespace jitscope {

void CompareWidget::selectNode(int graph, int nodeId)
{
    for (Side side : { Side::Left, Side::Right }) {
        if (graphOn(side) == graph) {
            Pane& p = pane(side);
            p.scene->selectNode(p.scene->displayedNode(nodeId));
            p.view->centerOnNode(p.scene->selectedNodeId());
            return;
        }
    }
}

void CompareWidget::onPaneNodeSelected(Side side, int nodeId)
{
    if (m_syncing || !m_hasReport)
        return;
    FlagGuard guard(m_syncing);
    const Side otherSide = side == Side::Left ? Side::Right : Side::Left;
    Pane& here = pane(side);
    Pane& there = pane(otherSide);
    const int graph = graphOn(side);
    const int otherGraph = graphOn(otherSide);
    here.scene->setLinkedNodes({});
    there.scene->setLinkedNodes({});

    if (nodeId >= 0 && graph >= 0 && otherGraph >= 0 && graph != otherGraph) {
        // Trace against trace: the node the diff pairs it with.
        const QHash<int, int>& pairs = side == Side::Left ? m_comparison.leftToRight : m_comparison.rightToLeft;
        const int counterpart = there.scene->displayedNode(pairs.value(nodeId, -1));
        there.scene->selectNode(counterpart);
        if (counterpart >= 0)
            there.view->centerOnNode(counterpart);
        const int change = m_model->changeOfNode(nodeId, side == Side::Right);
        if (change >= 0) {
            FlagGuard guard(m_syncing);
            const QModelIndex index = m_model->changeIndex(change);
            m_table->expand(index.parent());
            m_table->setCurrentIndex(index);
            m_table->scrollTo(index);
        } else {
            m_table->clearSelection();
        }
    } else if (nodeId >= 0 && graph >= 0 && otherGraph == Comparison::Script) {
        // Trace against script: the script node that recorded it.
        const IrGraph& trace = graphOf(graph);
        const int origin = nodeId < trace.nodes.size() ? trace.node(nodeId).originNode : -1;
        const int shown = there.scene->displayedNode(origin);
        there.scene->selectNode(shown);
        if (shown >= 0)
            there.view->centerOnNode(shown);
    } else if (nodeId >= 0 && graph == Comparison::Script && otherGraph >= 0) {
        // Script against trace: every node it recorded, tagged with its loop iteration.
        QHash<int, QString> tags;
        int first = -1;
        for (const LinkedNode& linked : traceNodesOf(graphOf(otherGraph), m_report.script, nodeId)) {
            const int shown = there.scene->displayedNode(linked.node);
            if (shown < 0 || tags.contains(shown))
                continue;
            tags.insert(shown, linked.iteration);
            if (first < 0)
                first = shown;
        }
        there.scene->selectNode(-1);
        there.scene->setLinkedNodes(tags);
        if (first >= 0)
            there.view->centerOnNode(first);
    } else {
        there.scene->selectNode(-1);
    }
    Q_EMIT nodeSelected(graph, nodeId);
}

void CompareWidget::selectChange(int changeIndex)
{
    if (changeIndex < 0 || changeIndex >= m_model->changeCount())
        return;
    FlagGuard guard(m_syncing);
    showValueSides(-1);
    const NodeChange& change = m_model->change(changeIndex);
    const int leftNode = m_left.scene->displayedNode(change.baseNode);
    const int rightNode = m_right.scene->displayedNode(change.otherNode);
    m_left.scene->setLinkedNodes({});
    m_right.scene->setLinkedNodes({});
    m_left.scene->selectNode(leftNode);
    m_right.scene->selectNode(rightNode);
    centreSides(leftNode, rightNode);

    const QModelIndex index = m_model->changeIndex(changeIndex);
    m_table->expand(index.parent());
    if (m_table->currentIndex() != index)
        m_table->setCurrentIndex(index);
    m_table->scrollTo(index);
    Q_EMIT changeSelected(changeIndex);
}

void CompareWidget::centreSides(int leftNode, int rightNode)
{
    // Centre the side that has the node; the other follows to the same place (the graphs share their top part).
    auto centreOn = [](Pane& p, int node) {
        if (NodeItem* item = p.scene->nodeItem(node))
            p.view->centerOn(item);
    };
    if (rightNode >= 0)
        centreOn(m_right, rightNode);
    if (leftNode >= 0)
        centreOn(m_left, leftNode);
    if (rightNode < 0 && leftNode >= 0)
        m_right.view->centerOn(m_left.view->mapToScene(m_left.view->viewport()->rect().center()));
    if (leftNode < 0 && rightNode >= 0)
        m_left.view->centerOn(m_right.view->mapToScene(m_right.view->viewport()->rect().center()));
}

void CompareWidget::selectDivergence(int d)
{
    if (d < 0 || d >= m_model->divergenceCount())
        return;
    FlagGuard guard(m_syncing);
    const Divergence& divergence = m_model->divergence(d);
    // Every node of the divergence stands out on its side; the first of each is selected and centred.
    auto mark = [](Pane& p, const QVector<int>& nodes) {
        QHash<int, QString> tags;
        int first = -1;
        for (int node : nodes) {
            const int shown = p.scene->displayedNode(node);
            if (shown < 0 || tags.contains(shown))
                continue;
            tags.insert(shown, QString());
            if (first < 0)
                first = shown;
        }
        p.scene->selectNode(first);
        p.scene->setLinkedNodes(tags);
        return first;
    };
    const int leftNode = mark(m_left, divergence.baseNodes);
    const int rightNode = mark(m_right, divergence.otherNodes);
    centreSides(leftNode, rightNode);
    const QModelIndex index = m_model->divergenceIndex(d);
    if (m_table->currentIndex() != index)
        m_table->setCurrentIndex(index);
    m_table->scrollTo(index);
    showValueSides(d);
    Q_EMIT divergenceSelected(d);
}

void CompareWidget::showValueSides(int d)
{
    const bool values = d >= 0 && d < m_model->divergenceCount() && !m_model->divergence(d).values.isEmpty();
    if (values)
        m_sidesModel->setDivergence(m_model->divergence(d), m_model->diff().other);
    else
        m_sidesModel->clear();
    m_sides->setVisible(values);
}

void CompareWidget::showDivergenceSource(int d)
{
    if (d < 0 || d >= m_model->divergenceCount())
        return;
    if (!m_peek)
        m_peek = new StackPeek(this);
    m_peek->showDivergence(m_model->divergence(d));
    m_peek->show();
    m_peek->raise();
}

void CompareWidget::nextChange()
{
    const int count = m_model->divergenceCount();
    if (count == 0)
        return;
    const int current = m_model->divergenceOf(m_table->currentIndex());
    selectDivergence(current >= 0 ? (current + 1) % count : 0);
}

void CompareWidget::previousChange()
{
    const int count = m_model->divergenceCount();
    if (count == 0)
        return;
    const int current = m_model->divergenceOf(m_table->currentIndex());
    selectDivergence(current >= 0 ? (current + count - 1) % count : count - 1);
}

} // namespace jitscope
