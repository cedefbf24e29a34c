#include "pythonview.h"

#include "report/interpreters.h"

#include "checkcontroller.h"
#include "documentcontroller.h"
#include "modeltreemodel.h"
#include "pythonbar.h"
#include "pythoncontroller.h"
#include "sessionstore.h"
#include "sourceview.h"

#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QPlainTextEdit>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTextCharFormat>
#include <QTreeView>

namespace jitscope {

namespace {

QString plural(int n, const QString& one, const QString& many)
{
    return n == 1 ? one : many.arg(n);
}

struct Summary
{
    QString html;
    QString toolTip;
    bool failed = false;
};

Summary summarize(const PythonJobResult& r)
{
    const PythonRun& run = r.run;
    Summary s;
    const QString file = QFileInfo(r.path).fileName().toHtmlEscaped();
    if (r.canceled) {
        s.html = QObject::tr("Canceled: <b>%1</b> did not finish; nothing it recorded is shown.").arg(file);
        s.failed = true;
        return s;
    }
    if (!run.ok) {
        s.html = (run.status == QLatin1String("crashed") ? QObject::tr("<b>%1</b> crashed: %2")
                : run.status == QLatin1String("timeout") ? QObject::tr("<b>%1</b> timed out: %2")
                                                         : QObject::tr("<b>%1</b> could not run: %2"))
                     .arg(file, run.error.message.toHtmlEscaped());
        s.toolTip = run.error.toString();
        s.failed = true;
        return s;
    }
    int traces = 0, scripts = 0, diverged = 0, failedCalls = 0;
    for (const PythonCall& c : run.calls) {
        const QString verdict = r.verdict(c.index);
        (c.api == QLatin1String("script") ? scripts : traces)++;
        diverged += verdict == QLatin1String("diverged");
        failedCalls += verdict == QLatin1String("failed");
    }
    QStringList parts;
    if (traces)
        parts << plural(traces, QObject::tr("1 trace call"), QObject::tr("%1 trace calls"))
                + (diverged ? QObject::tr(" (<b style='color:#cf222e'>%1 diverged</b>)").arg(diverged) : QString());
    if (scripts)
        parts << plural(scripts, QObject::tr("1 script call"), QObject::tr("%1 script calls"));
    if (failedCalls)
        parts << plural(failedCalls, QObject::tr("1 failed"), QObject::tr("%1 failed"));
    int unscriptable = 0;
    for (const PythonModule& m : run.modules)
        unscriptable += !m.scriptOk;
    for (const PythonFunction& f : run.functions)
        unscriptable += !f.scriptOk;
    if (unscriptable)
        parts << plural(unscriptable, QObject::tr("1 class or function does not script"),
            QObject::tr("%1 classes or functions do not script"));
    if (parts.isEmpty())
        parts << QObject::tr("no torch.jit call recorded");
    // Warm: Run Again in a fork of the Python that ran it before, whose torch was imported already.
    const QString ran = (run.warm ? QObject::tr("Ran <b>%1</b> (torch %2, %3 s, warm)")
                                  : QObject::tr("Ran <b>%1</b> (torch %2, %3 s)"))
                            .arg(file, run.torchVersion.toHtmlEscaped())
                            .arg(double(r.elapsedMs) / 1000.0, 0, 'f', 1);
    QString outcome;
    const QString where
        = run.error.location.line > 0 ? QObject::tr(" at line %1").arg(run.error.location.line) : QString();
    const QString message = run.error.message.section(QLatin1Char('\n'), 0, 0).toHtmlEscaped();
    if (const QString module = missingModule(run.error.message); !module.isEmpty()) {
        // The file's imports fail under this interpreter: which module, and where to choose another.
        outcome = QObject::tr("; <b>it imports <code>%1</code>, which %2 does not have</b>: choose another in "
                              "Model \u203a Python Interpreter")
                      .arg(module.toHtmlEscaped(), run.python.toHtmlEscaped());
        s.failed = true;
    } else if (run.status == QLatin1String("error")) {
        const int call = run.failedCall();
        outcome = call >= 0 ? QObject::tr(". The torch.jit.%1 call at line %2 raised, so the rest of the file did not "
                                          "run: %3")
                                  .arg(run.calls[call].api)
                                  .arg(run.calls[call].location.line)
                                  .arg(message)
                            : QObject::tr("; <b>the file raised%1</b>: %2").arg(where, message);
        s.failed = call < 0;
    } else if (run.status == QLatin1String("exit")) {
        outcome = QObject::tr("; it called sys.exit(%1)").arg(run.exitCode);
        s.failed = run.exitCode != 0;
    } else if (run.status != QLatin1String("ok")) {
        outcome = QObject::tr("; <b>it %1</b>: %2")
                      .arg(run.status == QLatin1String("timeout") ? QObject::tr("timed out")
                                                                  : QObject::tr("stopped (%1)").arg(run.status),
                          message);
        s.failed = true;
    }
    s.html = ran + QStringLiteral(": ") + parts.join(QStringLiteral(", ")) + outcome;
    if (!s.html.endsWith(QLatin1Char('.')) && !s.html.endsWith(QLatin1Char('!')))
        s.html += QLatin1Char('.');
    s.toolTip = QObject::tr("Ran with %1").arg(run.python);
    if (!run.error.message.isEmpty())
        s.toolTip += QLatin1Char('\n') + run.error.toString();
    return s;
}

} // namespace

PythonView::PythonView(const Parts& parts, DocumentController* document, CheckController* check,
    PythonController* python, SessionStore* session, QObject* parent)
    : QObject(parent)
    , m_parts(parts)
    , m_document(document)
    , m_check(check)
    , m_python(python)
    , m_session(session)
{
    connect(m_document, &DocumentController::aboutToOpen, this, &PythonView::onAboutToOpen);
    connect(m_document, &DocumentController::loaded, this, &PythonView::onLoaded);
    connect(m_python, &PythonController::started, this, &PythonView::onStarted);
    connect(m_python, &PythonController::finished, this, &PythonView::onFinished);
    connect(m_python, &PythonController::selfCheckFinished, this, &PythonView::onSelfChecked);
    connect(m_parts.bar, &PythonBar::runRequested, this, &PythonView::runWithConsent);
    connect(m_parts.bar, &PythonBar::cancelRequested, m_python, &PythonController::cancel);
    connect(m_parts.bar, &PythonBar::outputRequested, this, [this] {
        if (m_parts.outputDock) {
            m_parts.outputDock->show();
            m_parts.outputDock->raise();
        }
    });
    // A recorded call's row shows that call: chosen with the keyboard or the mouse, or clicked again after the
    // function's own check took its place.
    auto onRow = [this](const QModelIndex& index) {
        const int call = index.isValid() ? index.data(ModelTreeModel::PythonCallRole).toInt() : -1;
        if (call >= 0 && call != shownCall())
            showCall(call);
    };
    connect(m_parts.treeView->selectionModel(), &QItemSelectionModel::currentChanged, this, onRow);
    connect(m_parts.treeView, &QTreeView::clicked, this, onRow);
    connect(m_parts.treeView, &QTreeView::activated, this, onRow);
    // A check of the document's function (the window runs one when a function is shown or laid out again) does
    // not take the place of the recorded call the user looks at, unless the user chose another function.
    auto reshow = [this] {
        if (m_wantedCall < 0 || shownCall() == m_wantedCall)
            return;
        if (m_wantedFunction.isEmpty())
            m_wantedFunction = m_document->currentFunction(); // the run ended before the file's function was shown
        if (m_wantedFunction == m_document->currentFunction())
            showCall(m_wantedCall);
    };
    connect(m_check, &CheckController::finished, this, [reshow](const CheckJobResult& r) {
        if (!r.source.isRecordedCall())
            reshow();
    });
    connect(m_check, &CheckController::cleared, this, reshow);
    // Canceled by the user: the check views show what the user asked for next.
    connect(m_check, &CheckController::canceling, this, &PythonView::forgetShownCall);
    m_parts.treeView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_parts.treeView, &QWidget::customContextMenuRequested, this, &PythonView::showTreeMenu);
    m_parts.output->setReadOnly(true);
    m_parts.output->setPlaceholderText(tr("What a .py file prints when it runs with Python shows here."));
}

void PythonView::onAboutToOpen(const QString& path)
{
    const bool reloading = m_document->isReloading() && m_python->path() == path;
    m_wantedCall = -1;
    m_python->clear();
    m_parts.tree->clearPythonRun();
    if (!DocumentController::isSourceFile(path)) {
        m_parts.bar->hideBar();
        return;
    }
    // A file run once runs again when it changes on disk; consent is asked once per file (or folder).
    if (m_alwaysAllowed || reloading || m_session->pythonConsent(path) != SessionStore::PythonConsent::None)
        m_python->run(path);
    else
        m_parts.bar->ask(QFileInfo(path).fileName(), m_python->interpreter());
}

void PythonView::runWithConsent(bool folder)
{
    const QString path = m_document->currentFile();
    if (path.isEmpty() || !DocumentController::isSourceFile(path))
        return;
    if (m_parts.bar->state() == PythonBar::State::Asking)
        m_session->allowPython(path, folder);
    m_python->run(path);
}

void PythonView::onStarted(const QString& path, const QString& interpreter)
{
    m_parts.bar->showRunning(QFileInfo(path).fileName(), interpreter);
    m_parts.output->setPlainText(tr("$ %1 %2\n(running)\n").arg(interpreter, QFileInfo(path).fileName()));
    Q_EMIT statusMessage(tr("Running %1 with %2\u2026").arg(QFileInfo(path).fileName(), interpreter));
}

namespace {

/// What became of torch.export in a run, for the status bar: off, skipped and why, or the first call's summary.
QString exportWords(const PythonJobResult& r, bool asked)
{
    if (!asked)
        return PythonView::tr(" Not exported: Model \u203a Export with torch.export is off.");
    for (const CheckReport& report : r.reports) {
        const ExportReport& e = report.exported;
        if (!e.requested)
            continue;
        if (e.status == QLatin1String("skipped") || e.status == QLatin1String("error"))
            return PythonView::tr(" Export skipped: %1").arg(e.reason.isEmpty() ? e.status : e.reason);
        return QStringLiteral(" ") + e.summary() + QLatin1Char('.');
    }
    return {};
}

} // namespace

void PythonView::onFinished(const PythonJobResult& r)
{
    if (r.path != m_document->currentFile())
        return;
    const Summary s = summarize(r);
    m_parts.bar->showDone(s.html, s.toolTip, s.failed);
    showOutput(r);
    if (r.canceled) {
        Q_EMIT statusMessage(tr("Python run canceled"));
        Q_EMIT runShown();
        return;
    }
    QStringList verdicts;
    for (int k = 0; k < r.run.calls.size(); ++k)
        verdicts << r.verdict(k);
    m_parts.tree->setPythonRun(r.run, verdicts);
    expandTree();
    applyErrorLines();
    // The interpreter and its torch, as the CLI's reports name them.
    const QString given = m_python->options().python;
    const PythonInterpreter chosen = choosePython(given);
    Q_EMIT statusMessage(tr("%1 Ran with %2.")
                             .arg(m_parts.bar->text(),
                                 interpreterText({ r.run.python,
                                     chosen.path != r.run.python ? QString()
                                         : given.isEmpty()       ? chosen.chosenBy
                                                                 : QStringLiteral("folder"),
                                     r.run.torchVersion }))
        + exportWords(r, m_python->options().exportCalls));
    const int call = r.firstCallToShow();
    if (call >= 0) {
        showCall(call);
        if (r.verdict(call) == QLatin1String("diverged") && m_parts.tabs && m_parts.compare)
            m_parts.tabs->setCurrentWidget(m_parts.compare);
    }
    Q_EMIT runShown();
}

void PythonView::onSelfChecked(const SelfCheckJobResult& r)
{
    if (r.path != m_document->currentFile() || !m_python->hasResult())
        return;
    const PythonRun& run = m_python->result().run;
    QStringList lines;
    for (int k = 0; k < r.checks.size(); ++k)
        lines << QStringLiteral("line %1, %2: %3")
                     .arg(run.calls.value(r.calls[k]).location.line)
                     .arg(run.calls.value(r.calls[k]).target, selfCheckText(r.checks[k]));
    const QString tip = tr("Self-check: JitScope traced each recorded call of a function it compiles with its own "
                           "executor, on the same sets, and compared with PyTorch's trace.\n")
        + lines.join(QLatin1Char('\n'));
    const QVector<int> defects = r.defects();
    if (!defects.isEmpty()) {
        m_parts.bar->setBadge(tr("<span style='color:#cf222e'>\u26a0 JitScope defect: its own trace of %1 differs "
                                 "from PyTorch's</span>")
                                  .arg(run.calls.value(defects.first()).target.toHtmlEscaped()),
            tip);
        Q_EMIT statusMessage(
            tr("Self-check: %1")
                .arg(selfCheckText(r.checks[r.calls.indexOf(defects.first())]).section(QLatin1Char('\n'), 0, 0)));
    } else if (r.agreeing() > 0) {
        m_parts.bar->setBadge(tr("<span style='color:#2da44e'>\u2714 self-check</span>"), tip);
    } else {
        m_parts.bar->setBadge(QString(), QString());
    }
}

void PythonView::onLoaded()
{
    // The model's rows were rebuilt (the Python ones with them) and the error lines are the built-in compiler's:
    // PyTorch's own say what scripting the file really does.
    if (!m_python->hasResult() || m_python->result().path != m_document->currentFile())
        return;
    expandTree();
    applyErrorLines();
}

void PythonView::showCall(int call)
{
    if (!m_python->hasResult())
        return;
    const PythonJobResult& r = m_python->result();
    if (call < 0 || call >= r.reports.size() || r.reports[call].traces.isEmpty())
        return;
    m_wantedCall = call;
    m_wantedFunction = m_document->currentFunction();
    m_check->showReport(r.reports[call], CheckSource::recordedCall(call));
    const QModelIndex index = m_parts.tree->indexOfCall(call);
    if (index.isValid() && m_parts.treeView->currentIndex() != index)
        m_parts.treeView->setCurrentIndex(index);
    if (const int line = r.run.calls[call].location.line; line > 0)
        m_parts.source->highlightLine(line);
}

bool PythonView::openArchive(int index, bool module)
{
    if (!m_python->hasResult())
        return false;
    const PythonRun& run = m_python->result().run;
    QString archive, what;
    if (!module && index >= 0 && index < run.calls.size()) {
        archive = run.calls[index].archive;
        what = QStringLiteral("line%1.%2").arg(run.calls[index].location.line).arg(run.calls[index].target);
    } else if (module && index >= 0 && index < run.modules.size()) {
        archive = run.modules[index].archive;
        what = run.modules[index].className;
    }
    if (archive.isEmpty() || run.folder.isEmpty())
        return false;
    const QString from = QDir(run.folder).filePath(archive);
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/recorded");
    if (!QDir().mkpath(dir))
        return false;
    const QString to = QDir(dir).filePath(
        QStringLiteral("%1.%2.pt").arg(QFileInfo(m_python->result().path).completeBaseName(), what));
    QFile::remove(to);
    if (!QFile::copy(from, to)) {
        Q_EMIT statusMessage(tr("Cannot copy the recorded archive to %1").arg(to));
        return false;
    }
    m_document->open(to);
    return true;
}

void PythonView::showTreeMenu(const QPoint& pos)
{
    const QModelIndex index = m_parts.treeView->indexAt(pos);
    if (!index.isValid() || !m_python->hasResult())
        return;
    const PythonRun& run = m_python->result().run;
    const auto kind = ModelTreeModel::ItemKind(index.data(ModelTreeModel::ItemKindRole).toInt());
    QMenu menu;
    if (kind == ModelTreeModel::ItemKind::PythonCall) {
        const int call = index.data(ModelTreeModel::PythonCallRole).toInt();
        menu.addAction(tr("Show in the Check Views"), this, [this, call] { showCall(call); })
            ->setEnabled(
                call < m_python->result().reports.size() && !m_python->result().reports[call].traces.isEmpty());
        QAction* open
            = menu.addAction(tr("Open the Result as an Archive (Debug It)"), this, [this, call] { openArchive(call); });
        open->setEnabled(call >= 0 && call < run.calls.size() && !run.calls[call].archive.isEmpty());
    } else if (kind == ModelTreeModel::ItemKind::PythonClass) {
        const QString name = index.data().toString();
        for (int k = 0; k < run.modules.size(); ++k)
            if (run.modules[k].className == name)
                menu.addAction(tr("Open the Scripted Module as an Archive (Debug It)"), this,
                        [this, k] { openArchive(k, true); })
                    ->setEnabled(!run.modules[k].archive.isEmpty());
    }
    if (!menu.isEmpty())
        menu.exec(m_parts.treeView->viewport()->mapToGlobal(pos));
}

int PythonView::shownCall() const
{
    return m_check->source().isRecordedCall() ? m_check->source().call : -1;
}

void PythonView::showOutput(const PythonJobResult& r)
{
    QPlainTextEdit* out = m_parts.output;
    out->clear();
    QTextCharFormat normal;
    QTextCharFormat dim;
    dim.setForeground(QColor(0x57, 0x60, 0x6a));
    QTextCharFormat error;
    error.setForeground(QColor(0xcf, 0x22, 0x2e));
    QTextCursor c(out->document());
    c.insertText(tr("$ %1 %2").arg(r.run.python.isEmpty() ? m_python->interpreter() : r.run.python, r.path), dim);
    if (!r.run.torchVersion.isEmpty())
        c.insertText(tr("    (torch %1)").arg(r.run.torchVersion), dim);
    c.insertText(QStringLiteral("\n"), dim);
    // TorchScript's own deprecation notice (torch 2.11+), once for the run, apart from the model's warnings.
    for (const QString& notice : r.run.notices)
        c.insertText(tr("note: torch %1 says: %2\n").arg(r.run.torchVersion, notice), dim);
    if (!r.run.stdoutText.isEmpty())
        c.insertText(r.run.stdoutText, normal);
    if (!r.run.stderrText.isEmpty())
        c.insertText(r.run.stderrText, error);
    if (r.run.outputTruncated)
        c.insertText(tr("\n[output cut: only its first and last part are kept]\n"), dim);
    QString end;
    if (r.canceled)
        end = tr("canceled");
    else if (!r.run.ok)
        end = tr("%1: %2").arg(r.run.status == QLatin1String("crashed") || r.run.status == QLatin1String("timeout")
                ? r.run.status
                : tr("could not run"),
            r.run.error.message);
    else if (r.run.status == QLatin1String("ok"))
        end = tr("finished in %1 s").arg(double(r.elapsedMs) / 1000.0, 0, 'f', 1);
    else if (r.run.status == QLatin1String("exit"))
        end = tr("sys.exit(%1)").arg(r.run.exitCode);
    else
        end = tr("%1: %2").arg(r.run.status, r.run.error.toString());
    if (!c.atBlockStart())
        c.insertText(QStringLiteral("\n"));
    c.insertText(QStringLiteral("[%1]\n").arg(end), dim);
}

void PythonView::applyErrorLines()
{
    if (!m_python->hasResult())
        return;
    const PythonRun& run = m_python->result().run;
    QSet<int> lines;
    for (const PythonModule& m : run.modules)
        if (!m.scriptOk && m.scriptError.location.line > 0)
            lines.insert(m.scriptError.location.line);
    for (const PythonFunction& f : run.functions)
        if (!f.scriptOk && f.scriptError.location.line > 0)
            lines.insert(f.scriptError.location.line);
    if (run.status == QLatin1String("error") && run.error.location.line > 0 && run.failedCall() < 0)
        lines.insert(run.error.location.line);
    m_parts.source->setErrorLines(lines);
}

void PythonView::expandTree()
{
    QTreeView* view = m_parts.treeView;
    const QModelIndex python = m_parts.tree->groupIndex(ModelTreeModel::ItemKind::PythonCall);
    view->expand(python);
    for (int k = 0; k < m_parts.tree->rowCount(python); ++k)
        view->expand(m_parts.tree->index(k, 0, python));
    view->expand(m_parts.tree->groupIndex(ModelTreeModel::ItemKind::Function));
    view->expand(m_parts.tree->groupIndex(ModelTreeModel::ItemKind::InputSet));
}

} // namespace jitscope
