// Two graphs of a check side by side: CompareWidget built, its panes loaded with the pair of graphs chosen, the
// summary, legend and dimming of what did not change.

#include "comparewidget.h"
#include "comparewidget_p.h"

#include "divergencemodel.h"
#include "graphitems.h"
#include "graphpage.h"
#include "graphscene.h"
#include "graphview.h"
#include "report/reportqueries.h"
#include "stackpeek.h"
#include "valuesidesmodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace jitscope {

namespace {

/// A legend entry with its count; entries with nothing to show are greyed out.
QString swatch(DiffStatus status, int count)
{
    const QString label = QStringLiteral("%1 %2").arg(count).arg(diffStatusName(status));
    if (count == 0) // Qt's rich text has no 'inherit': only greyed entries set the text colour
        return QStringLiteral("<span style='color:#c0c4ca'>\u25a0</span>&nbsp;<span style='color:#8c939d'>%1</span>")
            .arg(label);
    return QStringLiteral("<span style='color:%1'>\u25a0</span>&nbsp;%2").arg(diffStatusColor(status).name(), label);
}

QString elidedSet(const QString& text)
{
    return text.size() > 40 ? text.left(39) + QChar(0x2026) : text;
}

} // namespace

CompareWidget::CompareWidget(QWidget* parent)
    : QWidget(parent)
    , m_model(new DivergenceModel(this))
{
    auto* panes = new QSplitter(Qt::Horizontal);
    panes->setChildrenCollapsible(false);
    panes->addWidget(createPane(m_left, Side::Left));
    panes->addWidget(createPane(m_right, Side::Right));
    panes->setHandleWidth(3);

    m_summary = new QLabel;
    m_summary->setTextFormat(Qt::RichText);
    // Long summaries are clipped rather than widening the window.
    m_summary->setMinimumWidth(40);
    m_legend = new QLabel;
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setToolTip(tr("Inserted: only in the right graph. Deleted: only in the left graph. Changed: the same "
                            "place in both, recorded differently."));
    m_dim = new QCheckBox(tr("Dim unchanged"));
    m_dim->setToolTip(tr("Fade the nodes both graphs share so that the differences stand out"));
    m_previous = new QToolButton;
    m_previous->setText(tr("\u25c0 Previous"));
    m_previous->setToolTip(tr("Previous divergence (Shift+F8)"));
    m_previous->setAutoRaise(true);
    m_next = new QToolButton;
    m_next->setText(tr("Next \u25b6"));
    m_next->setToolTip(tr("Next divergence (F8)"));
    m_next->setAutoRaise(true);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(8, 2, 4, 2);
    bar->addWidget(m_summary);
    bar->addSpacing(4);
    bar->addWidget(m_legend);
    bar->addStretch(1);
    bar->addSpacing(12);
    bar->addWidget(m_dim);
    bar->addSpacing(8);
    bar->addWidget(m_previous);
    bar->addWidget(m_next);

    m_table = new QTreeView;
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->setAlternatingRowColors(true);
    m_table->setUniformRowHeights(true);
    m_table->setAllColumnsShowFocus(true);
    m_table->header()->setHighlightSections(false);
    m_table->header()->setStretchLastSection(false);
    m_table->header()->setSectionResizeMode(DivergenceModel::OpColumn, QHeaderView::Interactive);
    m_table->header()->setSectionResizeMode(DivergenceModel::NodeColumn, QHeaderView::Interactive);
    m_table->header()->setSectionResizeMode(DivergenceModel::CauseColumn, QHeaderView::Stretch);
    m_table->header()->setSectionResizeMode(DivergenceModel::LineColumn, QHeaderView::ResizeToContents);
    m_table->setColumnWidth(DivergenceModel::OpColumn, 190);
    m_table->setColumnWidth(DivergenceModel::NodeColumn, 230);

    // Beside the list: a value divergence's values in both runs at its node (the Values panel's view of both).
    m_sidesModel = new ValueSidesModel(this);
    m_sides = new QTreeView;
    m_sides->setObjectName(QStringLiteral("valueSides"));
    m_sides->setModel(m_sidesModel);
    m_sides->setRootIsDecorated(false);
    m_sides->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_sides->setAlternatingRowColors(true);
    m_sides->setUniformRowHeights(true);
    m_sides->setWordWrap(false);
    m_sides->header()->setSectionResizeMode(ValueSidesModel::WhatColumn, QHeaderView::ResizeToContents);
    m_sides->header()->setSectionResizeMode(ValueSidesModel::TraceColumn, QHeaderView::Stretch);
    m_sides->header()->setSectionResizeMode(ValueSidesModel::OtherColumn, QHeaderView::Stretch);
    m_sides->hide();
    auto* lists = new QSplitter(Qt::Horizontal);
    lists->setChildrenCollapsible(false);
    lists->addWidget(m_table);
    lists->addWidget(m_sides);
    lists->setStretchFactor(0, 3);
    lists->setStretchFactor(1, 2);

    auto* bottom = new QWidget;
    m_bottom = bottom;
    auto* bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->setSpacing(0);
    bottomLayout->addLayout(bar);
    bottomLayout->addWidget(lists, 1);

    auto* split = new QSplitter(Qt::Vertical);
    m_split = split;
    split->setChildrenCollapsible(false);
    split->addWidget(panes);
    split->addWidget(bottom);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setSizes({ 600, 170 });

    m_messagePage = new GraphPage(GraphPage::Legend::None);
    m_comparePage = split;
    m_stack = new QStackedWidget;
    m_stack->addWidget(m_messagePage);
    m_stack->addWidget(m_comparePage);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);

    connect(m_dim, &QCheckBox::toggled, this, [this](bool dim) {
        setDimUnchanged(dim);
        Q_EMIT dimUnchangedChanged(dim);
    });
    connect(m_previous, &QToolButton::clicked, this, &CompareWidget::previousChange);
    connect(m_next, &QToolButton::clicked, this, &CompareWidget::nextChange);
    auto activate = [this](const QModelIndex& index) {
        const int change = m_model->changeOf(index);
        if (change >= 0)
            selectChange(change);
        else if (index.isValid())
            selectDivergence(m_model->divergenceOf(index));
    };
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this, activate](const QModelIndex& current) {
            if (!m_syncing && current.isValid())
                activate(current);
        });
    connect(m_table, &QTreeView::clicked, this, activate);
    connect(m_table, &QTreeView::doubleClicked, this,
        [this](const QModelIndex& index) { showDivergenceSource(m_model->divergenceOf(index)); });

    showMessage(
        tr("Nothing to compare yet"), tr("Open a file with input sets to trace a function and compare traces."));
}

QWidget* CompareWidget::createPane(Pane& pane, Side side)
{
    pane.combo = new QComboBox;
    pane.combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    pane.combo->setMinimumContentsLength(12);
    pane.combo->setToolTip(side == Side::Left ? tr("Graph on the left (the base of the diff)")
                                              : tr("Graph on the right (compared with the left)"));
    pane.info = new QLabel;
    pane.info->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    QPalette muted = pane.info->palette();
    muted.setColor(QPalette::WindowText, QColor(0x6b, 0x72, 0x80));
    pane.info->setPalette(muted);
    pane.page = new GraphPage(GraphPage::Legend::None);
    // Both sides are framed together (syncViewport), not each on its own.
    pane.page->setFramesContents(false);
    pane.scene = pane.page->scene();
    pane.view = pane.page->view();
    pane.view->setRefitOnResize(false);
    // Tops aligned: the graphs start with the same nodes, so they line up when both fit.
    pane.view->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    pane.view->viewport()->installEventFilter(this);
    pane.view->installEventFilter(this);

    auto* header = new QHBoxLayout;
    header->setContentsMargins(6, 3, 6, 3);
    header->addWidget(pane.combo);
    header->addWidget(pane.info, 1);

    // As the page's own layout had it when the header was a sub-layout of it: no spacing.
    header->setSpacing(0);
    auto* headerWidget = new QWidget;
    headerWidget->setLayout(header);
    pane.page->setHeader(headerWidget);

    connect(pane.combo, &QComboBox::activated, this, [this](int) {
        m_userPickedPair = true;
        setPair(m_left.combo->currentData().toInt(), m_right.combo->currentData().toInt());
    });
    connect(pane.scene, &GraphScene::nodeSelected, this, [this, side](int id) { onPaneNodeSelected(side, id); });
    connect(pane.view, &GraphView::zoomChanged, this, [this, side] {
        if (!m_syncing)
            syncViewport(side);
    });
    connect(pane.view->horizontalScrollBar(), &QScrollBar::valueChanged, this, [this, side] {
        if (!m_syncing)
            syncViewport(side);
    });
    connect(pane.view->verticalScrollBar(), &QScrollBar::valueChanged, this, [this, side] {
        if (!m_syncing)
            syncViewport(side);
    });
    return pane.page;
}

GraphScene* CompareWidget::scene(Side side) const
{
    return pane(side).scene;
}

GraphView* CompareWidget::view(Side side) const
{
    return pane(side).view;
}

QComboBox* CompareWidget::graphCombo(Side side) const
{
    return pane(side).combo;
}

void CompareWidget::showMessage(const QString& title, const QString& text, bool isError)
{
    m_hasReport = false;
    m_report = CheckReport();
    m_traceLayouts.clear();
    m_scriptLayout = GraphLayout();
    m_comparison = Comparison();
    m_model->clear();
    for (Pane* p : { &m_left, &m_right }) {
        p->combo->clear();
        p->info->clear();
        p->scene->clearContents();
    }
    m_summary->clear();
    m_stack->setCurrentWidget(m_messagePage);
    m_messagePage->showMessage(title, text, isError);
}

QString CompareWidget::messageTitle() const
{
    return m_stack->currentWidget() == m_messagePage ? m_messagePage->scene()->messageTitle() : QString();
}

void CompareWidget::setReport(const CheckReport& report, const QVector<GraphLayout>& traceLayouts,
    const GraphLayout& scriptLayout, const GraphLayout& exportLayout)
{
    const int oldLeft = m_comparison.left;
    const int oldRight = m_comparison.right;
    const bool keep = m_hasReport && m_userPickedPair;
    m_report = report;
    m_traceLayouts = traceLayouts;
    m_scriptLayout = scriptLayout;
    m_exportGraph = -1;
    if (!report.exported.graph.nodes.isEmpty() && !report.traces.isEmpty()) {
        // The export is one more graph beside the traces: the engine's diff of trace 1 against it is its pair.
        m_exportGraph = int(report.traces.size());
        TraceResult exported;
        exported.ok = true;
        exported.graph = report.exported.graph;
        exported.inputs = report.traces.first().inputs;
        exported.note = tr("torch.export");
        m_report.traces << exported;
        TraceDiff diff = report.exported.traceDiff;
        diff.base = 0;
        diff.other = m_exportGraph;
        m_report.pairDiffs << diff;
        m_traceLayouts.resize(m_exportGraph);
        m_traceLayouts << exportLayout;
    }
    m_hasReport = true;
    m_stack->setCurrentWidget(m_comparePage);
    fillCombos();

    const int traces = int(m_report.traces.size());
    auto valid = [traces](int g) { return g == Comparison::Script || (g >= 0 && g < traces); };
    if (keep && valid(oldLeft) && valid(oldRight)) {
        setPair(oldLeft, oldRight);
        return;
    }
    m_userPickedPair = false;
    // Trace 1 against the first trace that diverges (another graph, or the same graph computing other values), else
    // the first set trace 1 fails on (its outputs differ: the tab marked red), else trace 2, else the script.
    int right = traces > 1 ? 1 : Comparison::Script;
    auto fails = [&report](int k) {
        return k >= 1 && k - 1 < report.outputs.size()
            && (report.outputs[k - 1].ran ? !report.outputs[k - 1].comparison.equal
                                          : !report.outputs[k - 1].error.isEmpty());
    };
    const auto diverged = std::find_if(report.diffs.cbegin(), report.diffs.cend(),
        [](const TraceDiff& d) { return !d.equal || !d.divergences.isEmpty(); });
    if (diverged != report.diffs.cend()) {
        right = diverged->other;
    } else {
        for (int k = 1; k < traces; ++k)
            if (fails(k)) {
                right = k;
                break;
            }
    }
    setPair(0, right);
}

void CompareWidget::fillCombos()
{
    for (Pane* p : { &m_left, &m_right }) {
        const QSignalBlocker blocker(p->combo);
        p->combo->clear();
        for (int k = 0; k < m_report.traces.size(); ++k) {
            const TraceResult& t = m_report.traces.at(k);
            QString text = k == m_exportGraph ? tr("Export (torch.export)")
                                              : tr("Trace %1 \u00b7 %2").arg(k + 1).arg(elidedSet(t.inputs.toString()));
            if (!t.ok)
                text += tr(" (failed)");
            p->combo->addItem(text, k);
            p->combo->setItemData(p->combo->count() - 1, t.inputs.toString(), Qt::ToolTipRole);
        }
        p->combo->addItem(tr("Script graph"), int(Comparison::Script));
        p->combo->setEnabled(true);
    }
}

void CompareWidget::syncCombos()
{
    for (Side side : { Side::Left, Side::Right }) {
        Pane& p = pane(side);
        const QSignalBlocker blocker(p.combo);
        p.combo->setCurrentIndex(p.combo->findData(graphOn(side)));
    }
}

const IrGraph& CompareWidget::graphOf(int graph) const
{
    static const IrGraph empty;
    if (graph == Comparison::Script)
        return m_report.script;
    return graph >= 0 && graph < m_report.traces.size() ? m_report.traces.at(graph).graph : empty;
}

QString CompareWidget::graphName(int graph) const
{
    if (graph >= 0 && graph == m_exportGraph)
        return tr("the export");
    return graph == Comparison::Script ? tr("the script") : tr("trace %1").arg(graph + 1);
}

void CompareWidget::loadPane(Side side, int graph)
{
    Pane& p = pane(side);
    if (graph == Comparison::Script) {
        if (!m_scriptLayout.error.isEmpty() || m_scriptLayout.nodes.isEmpty())
            p.scene->showMessage(tr("No script graph"), m_scriptLayout.error, !m_scriptLayout.error.isEmpty());
        else
            p.scene->setGraph(m_report.script, m_scriptLayout);
        p.info->setText(tr("%1 nodes").arg(m_report.script.nodes.size()));
        return;
    }
    const TraceResult& t = m_report.traces.at(graph);
    const GraphLayout layout = m_traceLayouts.value(graph);
    if (!t.ok) {
        p.page->showMessage(tr("Tracing failed on input set %1").arg(graph + 1), t.error.message, true);
        p.info->setText(tr("failed"));
    } else if (p.page->showLayout(
                   t.graph, layout, tr("trace %1").arg(graph + 1), tr("Trace %1 is empty").arg(graph + 1))
        == GraphPage::Shown::Graph) {
        p.scene->setNodeWarnings(traceWarningNodes(m_report, graph));
        p.info->setText(tr("%1 nodes").arg(t.graph.nodes.size()));
    } else {
        p.info->clear();
    }
}

void CompareWidget::setPair(int left, int right)
{
    if (!m_hasReport)
        return;
    FlagGuard guard(m_syncing);
    m_comparison = Comparison::between(m_report, left, right);
    loadPane(Side::Left, left);
    loadPane(Side::Right, right);
    m_left.scene->setNodeStatuses(m_comparison.leftStatus);
    m_right.scene->setNodeStatuses(m_comparison.rightStatus);
    if (m_comparison.isTracePair())
        m_model->setDiff(m_comparison.diff, graphOf(left), graphOf(right));
    else
        m_model->clear();
    applyDimming();
    showDivergenceList(m_model->rowCount() > 0);
    syncCombos();
    updateSummary();
    m_autoFrame = true;
    frameBoth();
    showValueSides(-1);
    // The same graph, other values: the node where they part ways, marked on both sides, its values beside the list.
    if (m_comparison.isTracePair() && m_comparison.diff.equal && m_model->divergenceCount() > 0)
        selectDivergence(0);
    Q_EMIT pairChanged(left, right);
}

void CompareWidget::updateSummary()
{
    const int left = m_comparison.left;
    const int right = m_comparison.right;
    const int rows = m_model->rowCount();
    m_previous->setEnabled(rows > 0);
    m_next->setEnabled(rows > 0);
    m_legend->setVisible(rows > 0);
    m_dim->setVisible(rows > 0);
    QString text;
    if (left == right) {
        text = tr("Both sides show %1.").arg(graphName(left));
    } else if (left == Comparison::Script || right == Comparison::Script) {
        text = tr("Script and trace side by side: select a node to see the nodes it recorded, by loop iteration.");
    } else if (!m_report.traces.at(left).ok || !m_report.traces.at(right).ok) {
        text = tr("No diff: %1 failed.").arg(graphName(m_report.traces.at(left).ok ? right : left));
    } else if (m_exportGraph >= 0 && (left == m_exportGraph || right == m_exportGraph) && m_comparison.diff.equal
        && rows > 0) {
        text = tr("%1 and %2 run the same operators at the same lines, and differ in kind: <b>%n divergence(s)</b>",
            nullptr, rows)
                   .arg(graphName(left), graphName(right));
    } else if (m_comparison.isTracePair() && m_comparison.diff.equal && rows > 0) {
        text = tr("%1 and %2 record the same graph, but the values part ways: <b>%n divergence(s)</b>", nullptr, rows)
                   .arg(graphName(left), graphName(right));
    } else if (rows == 0) {
        text = tr("<span style='color:%3'>\u2714</span> %1 and %2 record the same graph.")
                   .arg(graphName(left), graphName(right), diffStatusColor(DiffStatus::Inserted).name());
    } else {
        // The counts per kind are in the legend beside the summary.
        const int changes = m_model->changeCount();
        text = (rows == 1 ? tr("<b>1 divergence</b>") : tr("<b>%1 divergences</b>").arg(rows))
            + (changes == 1 ? tr(", 1 node:") : tr(", %1 nodes:").arg(changes));
        m_legend->setText(QStringLiteral("%1&nbsp;&nbsp; %2&nbsp;&nbsp; %3")
                              .arg(swatch(DiffStatus::Inserted, m_comparison.count(NodeChange::Op::Insert)),
                                  swatch(DiffStatus::Deleted, m_comparison.count(NodeChange::Op::Delete)),
                                  swatch(DiffStatus::Changed, m_comparison.count(NodeChange::Op::Change))));
    }
    m_summary->setText(text);
    m_summary->setToolTip(moduleCountsText());
}

QString CompareWidget::moduleCountsText() const
{
    // How many nodes differ in each module, most first: where a big model's differences are.
    QHash<QString, int> counts;
    for (const NodeChange& c : m_model->diff().changes)
        ++counts[c.scope.isEmpty() ? tr("(top module)") : c.scope];
    QVector<QPair<int, QString>> order;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        order.push_back({ -it.value(), it.key() });
    std::sort(order.begin(), order.end());
    QStringList rows;
    for (const auto& [negative, module] : std::as_const(order).mid(0, 12))
        rows << tr("%1: %n node(s)", nullptr, -negative).arg(module.toHtmlEscaped());
    if (order.size() > 12)
        rows << tr("%n more module(s)", nullptr, int(order.size()) - 12);
    return rows.isEmpty() ? QString()
                          : tr("<b>Nodes that differ, by module</b><br>") + rows.join(QStringLiteral("<br>"));
}

QString CompareWidget::summaryText() const
{
    return m_summary->text();
}

void CompareWidget::setDimUnchanged(bool dim)
{
    if (m_dim->isChecked() != dim) {
        m_dim->setChecked(dim);
        return;
    }
    applyDimming();
}

void CompareWidget::applyDimming()
{
    // Only a comparison with differences has something to stand out; both sides fade alike.
    const bool dim = m_dim->isChecked() && m_model->rowCount() > 0;
    m_left.scene->setDimUnchanged(dim);
    m_right.scene->setDimUnchanged(dim);
}

void CompareWidget::showDivergenceList(bool show)
{
    if (m_table->isHidden() == !show)
        return;
    if (!show) {
        if (!m_table->isHidden())
            m_savedSplit = m_split->sizes();
        m_table->hide();
        // The bar stays for the summary; the panes take the rest.
        m_bottom->setMaximumHeight(m_bottom->layout()->itemAt(0)->sizeHint().height());
    } else {
        m_bottom->setMaximumHeight(QWIDGETSIZE_MAX);
        m_table->show();
        if (!m_savedSplit.isEmpty())
            m_split->setSizes(m_savedSplit);
    }
}

bool CompareWidget::dimsUnchanged() const
{
    return m_dim->isChecked();
}

} // namespace jitscope
