#pragma once

#include <QObject>

class QPlainTextEdit;
class QTabWidget;
class QTreeView;
class QWidget;

namespace jitscope {

class CheckController;
class DocumentController;
class ModelTreeModel;
class PythonBar;
class PythonController;
class SessionStore;
class SourceView;
struct PythonJobResult;
struct SelfCheckJobResult;

/// Shows what running a .py file under Python did: asks for consent on the bar above the source (remembered per
/// file or folder in SessionStore) and runs it then, or at once when consent was given; shows the run going and
/// its summary on the bar, what the file printed in the Python Output panel, the recorded calls, classes and
/// functions in the Model tree, PyTorch's scripting errors on their lines, and a recorded trace call's traces,
/// divergences and warnings in the check views (CheckController::showReport) when its row is chosen; the first
/// that diverged is shown when the run ends. Follows the controllers' signals.
class PythonView : public QObject
{
    Q_OBJECT
public:
    struct Parts
    {
        PythonBar* bar = nullptr;
        QPlainTextEdit* output = nullptr;
        QWidget* outputDock = nullptr; ///< raised by the bar's Output button
        ModelTreeModel* tree = nullptr;
        QTreeView* treeView = nullptr;
        SourceView* source = nullptr;
        QTabWidget* tabs = nullptr;
        QWidget* compare = nullptr;
    };
    PythonView(const Parts& parts, DocumentController* document, CheckController* check, PythonController* python,
        SessionStore* session, QObject* parent = nullptr);

    /// Consent given outside the window (`jitscope --python`): .py files run without asking.
    void setAlwaysAllowed(bool allowed) { m_alwaysAllowed = allowed; }
    /// Runs the open file now (the user consented; @p folder: for its whole folder, remembered).
    void runWithConsent(bool folder);
    /// Shows recorded call @p call (an index into PythonRun::calls) in the check views.
    void showCall(int call);
    /// Opens what recorded call @p call returned (or, with @p module, what scripting class @p call of
    /// PythonRun::modules gave), saved by torch.jit.save, as the document: an archive the built-in executor and
    /// the debugger run. The archive is copied out of the run's temporary folder first. False when there is none.
    bool openArchive(int call, bool module = false);
    /// The call shown in the check views, or -1.
    int shownCall() const;
    /// The check views show the current function's own check from now on (Run Check, a function chosen), not a
    /// recorded call.
    void forgetShownCall() { m_wantedCall = -1; }

Q_SIGNALS:
    void statusMessage(const QString& text);
    /// A run ended and its result is shown.
    void runShown();

private:
    void onAboutToOpen(const QString& path);
    void onLoaded();
    void onStarted(const QString& path, const QString& interpreter);
    void onFinished(const PythonJobResult& result);
    void onSelfChecked(const SelfCheckJobResult& result);
    void showOutput(const PythonJobResult& result);
    void applyErrorLines();
    void expandTree();
    void showTreeMenu(const QPoint& pos);

    Parts m_parts;
    DocumentController* m_document = nullptr;
    CheckController* m_check = nullptr;
    PythonController* m_python = nullptr;
    SessionStore* m_session = nullptr;
    bool m_alwaysAllowed = false;
    int m_wantedCall = -1; ///< the recorded call the check views show, again after a check of the function
    QString m_wantedFunction; ///< the document's function when it was chosen: choosing another forgets the call
};

} // namespace jitscope
