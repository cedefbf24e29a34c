#pragma once

#include "report/checkreport.h"
#include "comparison.h"
#include "report/graphlayout.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSplitter;
class QStackedWidget;
class QTreeView;
class QToolButton;

namespace jitscope {

class DivergenceModel;
class ValueSidesModel;
class StackPeek;
class GraphPage;
class GraphScene;
class GraphView;

/// Two graphs of a check side by side (trace 1 and trace k by default; any two traces, or a trace and the
/// script), with zoom and pan kept in step, the inserted, deleted and changed nodes coloured, and the list of
/// divergences below. Selecting a node selects its counterpart on the other side: the node it is paired with in
/// the diff, the script node that recorded it, or the trace nodes a script node recorded, by loop iteration.
class CompareWidget : public QWidget
{
    Q_OBJECT
public:
    enum class Side { Left, Right };

    explicit CompareWidget(QWidget* parent = nullptr);

    /// Shows the graphs of @p report; @p traceLayouts[k] is the layout of trace k, @p scriptLayout the script's.
    /// Keeps the pair the user chose when it still exists, else compares trace 1 with the first that diverges.
    /// A call exported with torch.export (CheckReport::exported.graph) is one more graph to pick, exportGraph(),
    /// laid out by @p exportLayout, and trace 1 against it is the engine's diff (ExportReport::traceDiff).
    void setReport(const CheckReport& report, const QVector<GraphLayout>& traceLayouts,
        const GraphLayout& scriptLayout, const GraphLayout& exportLayout = {});
    /// The graph index of the exported program in the combos and setPair(), -1 when the report has none.
    int exportGraph() const { return m_exportGraph; }
    /// Shows a message instead of the comparison (no check yet, check running, check failed).
    void showMessage(const QString& title, const QString& text, bool isError = false);
    /// The message card's title, empty while a comparison is shown.
    QString messageTitle() const;
    bool hasReport() const { return m_hasReport; }
    const CheckReport& report() const { return m_report; }

    /// Compares graph @p left with graph @p right (trace indexes, or Comparison::Script).
    void setPair(int left, int right);
    const Comparison& comparison() const { return m_comparison; }
    int graphOn(Side side) const { return side == Side::Left ? m_comparison.left : m_comparison.right; }

    GraphScene* scene(Side side) const;
    GraphView* view(Side side) const;
    QComboBox* graphCombo(Side side) const;
    DivergenceModel* divergenceModel() const { return m_model; }
    /// The window showing a divergence's source and stack; null until first opened.
    StackPeek* stackPeek() const { return m_peek; }
    QTreeView* divergenceView() const { return m_table; }
    /// The current value divergence's values in both runs, side by side (hidden for other divergences).
    QTreeView* valueSidesView() const { return m_sides; }
    ValueSidesModel* valueSidesModel() const { return m_sidesModel; }
    QString summaryText() const;
    /// The nodes that differ per module, most first (the summary's tooltip); empty without differences.
    QString moduleCountsText() const;

    void setDimUnchanged(bool dim);
    bool dimsUnchanged() const;

    /// Selects node @p nodeId of graph @p graph on the side showing it, and its counterpart on the other.
    void selectNode(int graph, int nodeId);

public Q_SLOTS:
    /// The next divergence (F8) and the previous one (Shift+F8), wrapping around.
    void nextChange();
    void previousChange();
    /// Selects and centres the nodes of change @p changeIndex (a TraceDiff::changes index) on both sides.
    void selectChange(int changeIndex);
    /// Selects divergence @p d: its nodes highlighted on both sides, the first centred.
    void selectDivergence(int d);
    /// Opens divergence @p d's place and stack read-only, library files too (a double-click on its row).
    void showDivergenceSource(int d);

Q_SIGNALS:
    /// The user selected node @p nodeId of graph @p graph (trace index or Comparison::Script); -1 when cleared.
    void nodeSelected(int graph, int nodeId);
    /// Change @p changeIndex of divergenceModel() became current.
    void changeSelected(int changeIndex);
    /// Divergence @p d of divergenceModel() became current.
    void divergenceSelected(int d);
    void pairChanged(int left, int right);
    void dimUnchangedChanged(bool dim);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Pane
    {
        QComboBox* combo = nullptr;
        QLabel* info = nullptr;
        GraphPage* page = nullptr;
        GraphScene* scene = nullptr;
        GraphView* view = nullptr;
    };
    QWidget* createPane(Pane& pane, Side side);
    Pane& pane(Side side) { return side == Side::Left ? m_left : m_right; }
    const Pane& pane(Side side) const { return side == Side::Left ? m_left : m_right; }
    void loadPane(Side side, int graph);
    void fillCombos();
    void syncCombos();
    void onPaneNodeSelected(Side side, int nodeId);
    void syncViewport(Side from);
    void frameBoth();
    void scheduleFrame();
    void updateSummary();
    void applyDimming();
    void showDivergenceList(bool show);
    void showValueSides(int d);
    void centreSides(int leftNode, int rightNode);
    const IrGraph& graphOf(int graph) const;
    QString graphName(int graph) const;

    Pane m_left;
    Pane m_right;
    QStackedWidget* m_stack = nullptr; ///< the message page or the comparison
    QWidget* m_comparePage = nullptr;
    QSplitter* m_split = nullptr;
    QWidget* m_bottom = nullptr;
    QList<int> m_savedSplit;
    GraphPage* m_messagePage = nullptr; ///< a message instead of the comparison
    DivergenceModel* m_model = nullptr;
    QTreeView* m_table = nullptr;
    ValueSidesModel* m_sidesModel = nullptr;
    QTreeView* m_sides = nullptr;
    StackPeek* m_peek = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_legend = nullptr;
    QCheckBox* m_dim = nullptr;
    QToolButton* m_previous = nullptr;
    QToolButton* m_next = nullptr;

    CheckReport m_report;
    QVector<GraphLayout> m_traceLayouts;
    GraphLayout m_scriptLayout;
    int m_exportGraph = -1;
    Comparison m_comparison;
    bool m_hasReport = false;
    bool m_userPickedPair = false;
    bool m_syncing = false; ///< set while this widget moves or selects in its panes, so they do not echo
    bool m_autoFrame = true; ///< reframe both sides on resize until the user zooms or pans
    bool m_framePending = false;
};

} // namespace jitscope
