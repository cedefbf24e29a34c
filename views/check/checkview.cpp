#include "checkview.h"

#include "checkcontroller.h"
#include "comparewidget.h"
#include "documentcontroller.h"
#include "graphitems.h"
#include "graphpage.h"
#include "graphscene.h"
#include "graphview.h"
#include "inputsetsmodel.h"
#include "report/reportqueries.h"
#include "sourceview.h"
#include "warningsmodel.h"

#include <QAction>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QProgressBar>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QToolButton>
#include <QTreeView>

namespace jitscope {

namespace {

QIcon dotIcon(const QColor& color)
{
    QPixmap pixmap(16, 16);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(color.darker(130));
    p.setBrush(color);
    p.drawEllipse(QRectF(3.5, 3.5, 9, 9));
    p.end();
    return QIcon(pixmap);
}

QColor verdictColor(TraceStatus verdict)
{
    switch (verdict) {
    case TraceStatus::Reference:
        return QColor(0x8c, 0x93, 0x9d);
    case TraceStatus::Same:
        return QColor(0x2d, 0xa4, 0x4e);
    case TraceStatus::Diverged:
        return QColor(0xe3, 0x9b, 0x00);
    case TraceStatus::WrongOutput:
    case TraceStatus::Failed:
        return QColor(0xcf, 0x22, 0x2e);
    }
    return {};
}

} // namespace

QTreeView* CheckView::createWarningsView(WarningsModel* model)
{
    auto* view = new QTreeView;
    view->setModel(model);
    view->setRootIsDecorated(false);
    view->setUniformRowHeights(true);
    view->setAlternatingRowColors(true);
    view->setAllColumnsShowFocus(true);
    view->setTextElideMode(Qt::ElideRight);
    view->header()->setStretchLastSection(false);
    view->header()->setSectionResizeMode(WarningsModel::MessageColumn, QHeaderView::Stretch);
    view->header()->setSectionResizeMode(WarningsModel::LineColumn, QHeaderView::ResizeToContents);
    // Narrow docks: what and where first, the long message last where it can stretch.
    view->header()->moveSection(WarningsModel::MessageColumn, WarningsModel::NumColumns - 1);
    return view;
}

CheckView::CheckView(const Parts& parts, const DocumentController* document, CheckController* check, QObject* parent)
    : QObject(parent)
    , m_parts(parts)
    , m_document(document)
    , m_check(check)
{
    m_label = new QLabel;
    m_label->hide();
    m_progress = new QProgressBar;
    m_progress->setMaximumWidth(120);
    m_progress->setMaximumHeight(14);
    m_progress->setTextVisible(false);
    m_progress->hide();
    m_cancel = new QToolButton;
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(tr("Stop the check"));
    m_cancel->setAutoRaise(true);
    m_cancel->hide();
    connect(m_cancel, &QToolButton::clicked, m_check, &CheckController::cancel);
    m_verdict = new QLabel;
    m_verdict->setTextFormat(Qt::RichText);
    m_verdict->setContentsMargins(6, 0, 6, 0);

    connect(m_check, &CheckController::started, this, &CheckView::onStarted);
    connect(m_check, &CheckController::progress, this, &CheckView::onProgress);
    connect(m_check, &CheckController::finished, this, &CheckView::onFinished);
    connect(m_check, &CheckController::cleared, this, &CheckView::onCleared);
    connect(m_check, &CheckController::canceling, this, [this] {
        m_label->setText(tr("Canceling\u2026"));
        m_cancel->setEnabled(false);
    });
}

void CheckView::createActions(QMenu* menu, std::function<void()> runCheck)
{
    QAction* runCheckAction = menu->addAction(tr("&Run Check"), this, runCheck);
    runCheckAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    runCheckAction->setStatusTip(tr("Trace the function on every input set and compare the traces"));
    m_cancelAction = menu->addAction(tr("&Cancel Check"), m_check, &CheckController::cancel);
    m_cancelAction->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    m_cancelAction->setEnabled(false);
    menu->addSeparator();
    QAction* next = menu->addAction(tr("&Next Divergence"), this, [this] {
        m_parts.tabs->setCurrentWidget(m_parts.compare);
        m_parts.compare->nextChange();
    });
    next->setShortcut(QKeySequence(Qt::Key_F8));
    QAction* previous = menu->addAction(tr("&Previous Divergence"), this, [this] {
        m_parts.tabs->setCurrentWidget(m_parts.compare);
        m_parts.compare->previousChange();
    });
    previous->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F8));
    QAction* strict = menu->addAction(tr("Trace with &strict=False"));
    strict->setCheckable(true);
    strict->setChecked(!m_check->strict());
    strict->setStatusTip(tr("Let the traced function return dicts and lists (torch.jit.trace(..., strict=False)), as "
                            "torchvision's segmentation and detection models do"));
    connect(strict, &QAction::toggled, this, [this, runCheck](bool nonStrict) {
        m_check->setStrict(!nonStrict);
        if (m_check->hasReport() || m_check->isChecking())
            runCheck();
    });
    m_strictAction = strict;
    menu->addSeparator();
    QAction* dim = menu->addAction(tr("&Dim Unchanged Nodes"));
    dim->setCheckable(true);
    dim->setChecked(m_parts.compare->dimsUnchanged());
    connect(dim, &QAction::toggled, m_parts.compare, &CompareWidget::setDimUnchanged);
    connect(m_parts.compare, &CompareWidget::dimUnchangedChanged, dim, &QAction::setChecked);
    connect(m_check, &CheckController::started, m_cancelAction, [this] { m_cancelAction->setEnabled(true); });
    connect(m_check, &CheckController::cleared, m_cancelAction, [this] { m_cancelAction->setEnabled(false); });
    connect(m_check, &CheckController::finished, m_cancelAction, [this] { m_cancelAction->setEnabled(false); });
}

void CheckView::setStrict(bool strict)
{
    m_check->setStrict(strict);
    if (m_strictAction) {
        const QSignalBlocker blocker(m_strictAction);
        m_strictAction->setChecked(!strict);
    }
}

QVector<QWidget*> CheckView::statusWidgets() const
{
    return { m_label, m_progress, m_cancel, m_verdict };
}

int CheckView::traceOfPage(const QWidget* page) const
{
    for (int k = 0; k < m_pages.size(); ++k) {
        if (m_pages.at(k) == page)
            return k;
    }
    return -1;
}

void CheckView::onStarted(const QString& function, int sets, bool relayoutOnly)
{
    m_label->setText(relayoutOnly ? tr("Laying out traces\u2026") : tr("Checking\u2026"));
    m_label->show();
    m_progress->setRange(0, 0);
    m_progress->show();
    m_cancel->show();
    m_cancel->setEnabled(true);
    setVerdict(QString(), QString());
    if (!m_check->hasReport())
        m_parts.compare->showMessage(sets == 1 ? tr("Tracing %1 on 1 input set\u2026").arg(function)
                                               : tr("Checking %1 on %2 input sets\u2026").arg(function).arg(sets),
            tr("Each set is traced as torch.jit.trace would; the traces are then compared node by node and the "
               "first trace is run on every other set."));
}

void CheckView::onProgress(int value, const QString& text)
{
    if (!text.isEmpty())
        m_label->setText(text + QStringLiteral("\u2026"));
    // Tracing has no steps to report: a busy bar; laying out counts traces.
    if (value <= 1) {
        m_progress->setRange(0, 0);
    } else {
        m_progress->setRange(0, qMax(1, int(m_parts.inputSets->rowCount())));
        m_progress->setValue(value - 1);
    }
}

void CheckView::hideProgress()
{
    m_label->hide();
    m_progress->hide();
    m_cancel->hide();
}

void CheckView::onFinished(const CheckJobResult& r)
{
    hideProgress();
    if (!r.source.isRecordedCall() && r.function != m_document->currentFunction())
        return;
    if (!r.canceled) {
        showReport();
        if (r.checkMs > 0 || r.layoutMs > 0)
            m_verdict->setToolTip(m_verdict->toolTip()
                + tr("\nTraced and checked in %1 ms, laid out in %2 ms.").arg(r.checkMs).arg(r.layoutMs));
    }
    Q_EMIT shown(r);
}

void CheckView::onCleared(const QString& title, const QString& text, bool isError)
{
    hideProgress();
    removeTraceTabs();
    m_parts.compare->showMessage(title, text, isError);
    m_parts.warnings->clear();
    m_parts.source->setWarningLines({});
    m_parts.script->scene()->setNodeWarnings({});
    setVerdict(QString(), QString());
}

void CheckView::showReport()
{
    const CheckReport& report = m_check->report();
    QStringList setTexts;
    for (const TraceResult& t : report.traces)
        setTexts << t.inputs.toString();

    if (!report.ok) {
        removeTraceTabs();
        QString text = report.error.toString().trimmed();
        if (m_check->strict() && text.contains(QLatin1String("strict=False")))
            text += QLatin1String("\n\n")
                + tr("To trace it with strict=False, turn on Check \u203a Trace with strict=False.");
        m_parts.compare->showMessage(tr("Could not trace %1").arg(report.function), text, true);
        TraceWarning w;
        w.kind = WarningKind::CheckFailed;
        w.message = report.error.message;
        w.location = report.error.location;
        m_parts.warnings->setWarnings({ w }, m_parts.inputSets->texts());
        const int line = m_document->sourceLineFor(w.location);
        m_parts.source->setWarningLines(line > 0 ? QHash<int, QString> { { line, w.message } } : QHash<int, QString>());
        setVerdict(QStringLiteral("<span style='color:#cf222e'>\u2716 check failed</span>"), w.message);
        return;
    }

    rebuildTraceTabs();
    const bool external = m_check->source().isRecordedCall();
    const GraphLayout scriptLayout
        = external ? m_check->externalScriptLayout() : m_document->cachedLayout(report.function);
    m_parts.compare->setReport(report, m_check->traceLayouts(), scriptLayout, m_check->exportLayout());
    // A report made elsewhere (a recorded Python call) brings its own script graph: the Script tab shows it when
    // the document shows none (a file the built-in compiler made nothing of).
    if (external && m_document->shownFunction().isEmpty() && !report.script.nodes.isEmpty())
        m_parts.script->showLayout(report.script, scriptLayout, tr("the script graph of %1").arg(report.function),
            tr("%1's script graph is empty").arg(report.function));
    m_parts.warnings->setWarnings(report.warnings, setTexts);
    m_parts.warningsView->resizeColumnToContents(WarningsModel::KindColumn);
    m_parts.warningsView->resizeColumnToContents(WarningsModel::InputSetColumn);

    QHash<int, QStringList> byLine;
    for (const TraceWarning& w : report.warnings) {
        const int line = m_document->sourceLineFor(w.location);
        const QString text
            = QStringLiteral("%1 (set %2): %3").arg(warningKindName(w.kind)).arg(w.traceIndex + 1).arg(w.message);
        if (line > 0 && !byLine[line].contains(text))
            byLine[line] << text;
    }
    QHash<int, QString> marks;
    for (auto it = byLine.cbegin(); it != byLine.cend(); ++it)
        marks.insert(it.key(), it.value().join(QLatin1Char('\n')));
    m_parts.source->setWarningLines(marks);

    // The script nodes the warnings blame (a loop, a branch) get a badge in the Script tab too.
    GraphScene* script = m_parts.script->scene();
    QHash<int, QString> scriptWarnings;
    for (const TraceWarning& w : report.warnings) {
        if (w.scriptNode < 0)
            continue;
        const int shown = script->displayedNode(w.scriptNode);
        QString& text = scriptWarnings[shown];
        const QString line = QStringLiteral("%1: %2").arg(warningKindName(w.kind), w.message);
        if (shown >= 0 && !text.contains(line))
            text += (text.isEmpty() ? QString() : QStringLiteral("\n")) + line;
    }
    scriptWarnings.remove(-1);
    script->setNodeWarnings(scriptWarnings);

    const int traces = int(report.traces.size());
    const int warnings = int(report.warnings.size());
    const QString counts = (traces == 1 ? tr("1 trace") : tr("%1 traces").arg(traces)) + QStringLiteral(", ")
        + (warnings == 1 ? tr("1 warning") : tr("%1 warnings").arg(warnings));
    if (report.consistent) {
        setVerdict(QStringLiteral("<span style='color:%1'>\u2714 consistent</span> \u00b7 ")
                       .arg(diffStatusColor(DiffStatus::Inserted).name())
                + counts,
            traces > 1 ? tr("Every trace records the same graph as trace 1, and trace 1 computes what the script "
                            "function computes on every input set.")
                       : tr("One input set: nothing to compare the trace with. Add check inputs to compare."));
        return;
    }
    QStringList differing;
    for (int k = 1; k < traces; ++k) {
        if (report.status(k) != TraceStatus::Same)
            differing << QString::number(k + 1);
    }
    setVerdict(QStringLiteral("<span style='color:#cf222e'><b>\u2716 diverged</b></span> \u00b7 ") + counts,
        tr("The trace recorded on input set 1 does not hold for input set(s) %1: see the Compare tab and the "
           "Warnings panel.")
            .arg(differing.join(QLatin1String(", "))));
}

void CheckView::setVerdict(const QString& html, const QString& toolTip)
{
    m_verdict->setText(html);
    m_verdict->setToolTip(toolTip);
    m_verdict->setVisible(!html.isEmpty());
}

QString CheckView::verdictText() const
{
    return m_verdict->text();
}

void CheckView::removeTraceTabs()
{
    for (GraphPage* page : std::as_const(m_pages)) {
        page->scene()->disconnect(this);
        page->view()->disconnect();
        m_parts.tabs->removeTab(m_parts.tabs->indexOf(page));
        page->deleteLater();
    }
    m_pages.clear();
    if (m_exportPage) {
        m_exportPage->scene()->disconnect(this);
        m_exportPage->view()->disconnect();
        m_parts.tabs->removeTab(m_parts.tabs->indexOf(m_exportPage));
        m_exportPage->deleteLater();
        m_exportPage = nullptr;
    }
}

static QString exportFindingText(const ExportFinding& f)
{
    QStringList lines;
    lines << QStringLiteral("%1 (%2): %3").arg(f.kind, f.type, f.message);
    if (f.userLocation.isValid())
        lines << QStringLiteral("at line %1: %2").arg(f.userLocation.line).arg(f.userText.trimmed());
    if (f.libraryLocation.isValid())
        lines << QStringLiteral("in %1:%2: %3")
                     .arg(QFileInfo(f.libraryLocation.file).fileName())
                     .arg(f.libraryLocation.line)
                     .arg(f.libraryText.trimmed());
    if (!f.expression.isEmpty())
        lines << QStringLiteral("expression: %1").arg(f.expression);
    if (!f.guard.isEmpty())
        lines << QStringLiteral("guard: %1").arg(f.guard);
    if (!f.suggestedFix.isEmpty())
        lines << QStringLiteral("suggested fix: %1").arg(f.suggestedFix.trimmed());
    return lines.join(QLatin1Char('\n'));
}

static QString exportDetails(const ExportReport& e)
{
    QStringList lines { e.summary() };
    if (!e.dynamic.isEmpty())
        lines << QStringLiteral("dynamic: %1 (%2)").arg(e.dynamic.join(QStringLiteral("; ")), e.dynamicBy);
    for (const ExportFact& f : e.ranges)
        lines << QStringLiteral("range: %1").arg(f.text);
    for (const ExportFact& f : e.specializations)
        lines << QStringLiteral("specialized: %1%2")
                     .arg(f.text, f.location.isValid() ? QStringLiteral(" (line %1)").arg(f.location.line) : QString());
    for (const ExportSetRow& row : e.sets)
        lines << QStringLiteral("set %1: trace %2, export %3%4")
                     .arg(row.set)
                     .arg(
                         row.trace, row.status, row.message.isEmpty() ? QString() : QStringLiteral(": ") + row.message);
    for (const ExportFinding& f : e.findings)
        lines << exportFindingText(f);
    if (!e.programError.isEmpty())
        lines << QStringLiteral("program: %1").arg(e.programError);
    return lines.join(QLatin1Char('\n'));
}

void CheckView::addExportTab()
{
    const ExportReport& e = m_check->report().exported;
    if (!e.requested)
        return;
    auto* page = new GraphPage;
    const bool failed = e.graph.nodes.isEmpty();
    const QString details = exportDetails(e);
    if (failed)
        page->showMessage(e.summary(), details, e.status != QLatin1String("skipped"));
    else
        page->showLayout(e.graph, m_check->exportLayout(), tr("the export"), tr("The exported graph is empty"));
    connect(page->scene(), &GraphScene::nodeSelected, this, [this](int id) { Q_EMIT exportNodeSelected(id); });
    Q_EMIT pageAdded(page);
    const QColor color = failed || e.status != QLatin1String("exported") ? QColor(0xcf, 0x22, 0x2e)
        : std::any_of(
              e.sets.cbegin(), e.sets.cend(), [](const ExportSetRow& r) { return r.status != QLatin1String("passes"); })
        ? QColor(0xe3, 0x9b, 0x00)
        : QColor(0x2d, 0xa4, 0x4e);
    const int index
        = m_parts.tabs->insertTab(m_firstTraceTab + int(m_pages.size()), page, dotIcon(color), tr("Export"));
    m_parts.tabs->setTabToolTip(index, tr("torch.export of the call\n%1").arg(details));
    m_exportPage = page;
}

void CheckView::rebuildTraceTabs()
{
    QTabWidget* tabs = m_parts.tabs;
    const CheckReport& report = m_check->report();
    const int current = tabs->currentIndex();
    const int first = m_firstTraceTab;
    const bool onTrace = current >= first && current < first + m_pages.size();
    {
        // Removing the current tab makes another current: not a choice of the user, nothing to follow.
        const QSignalBlocker blocker(tabs);
        removeTraceTabs();
    }
    for (int k = 0; k < report.traces.size(); ++k) {
        const TraceResult& trace = report.traces.at(k);
        auto* page = new GraphPage;
        if (!trace.ok)
            page->showMessage(tr("Tracing failed on input set %1").arg(k + 1), trace.error.toString().trimmed(), true);
        else if (page->showLayout(trace.graph, m_check->traceLayouts().value(k), tr("trace %1").arg(k + 1),
                     tr("Trace %1 is empty").arg(k + 1))
            == GraphPage::Shown::Graph)
            page->scene()->setNodeWarnings(traceWarningNodes(report, k));
        connect(page->scene(), &GraphScene::nodeSelected, this, [this, k](int id) { Q_EMIT traceNodeSelected(k, id); });
        Q_EMIT pageAdded(page);

        // A dot says how this trace compares with trace 1: the same, different, or failed.
        const TraceStatus verdict = report.status(k);
        const QString set = trace.inputs.toString();
        const QString title = tr("Trace %1 \u00b7 %2").arg(k + 1).arg(elidedText(set, 16));
        const int index = tabs->insertTab(first + k, page, dotIcon(verdictColor(verdict)), title);
        tabs->setTabToolTip(index, tr("Trace %1 on input set %2\n%3").arg(k + 1).arg(set, traceStatusText(verdict)));
        m_pages.append(page);
    }
    addExportTab();
    if (onTrace && !m_pages.isEmpty())
        tabs->setCurrentIndex(qMin(current, first + int(m_pages.size()) - 1));
}

} // namespace jitscope
