#pragma once

#include <QFrame>

class QLabel;
class QProgressBar;
class QToolButton;

namespace jitscope {

/// The bar above the source of a .py file about running it under the system's PyTorch: it asks first ("Run with
/// Python", "Always for This Folder"), then shows the run going (with Cancel) and what it came to (with Run Again
/// and the output). Like an editor's info bar: it never opens a dialog.
class PythonBar : public QFrame
{
    Q_OBJECT
public:
    enum class State { Hidden, Asking, Running, Done, Failed };
    explicit PythonBar(QWidget* parent = nullptr);

    /// Asks whether to run @p fileName with @p interpreter.
    void ask(const QString& fileName, const QString& interpreter);
    void showRunning(const QString& fileName, const QString& interpreter);
    /// The run ended: @p html says what it did (@p failed: the file raised, exited, crashed or timed out).
    void showDone(const QString& html, const QString& toolTip, bool failed);
    void hideBar();
    /// A small mark under the message (the self-check's verdict); empty @p html removes it.
    void setBadge(const QString& html, const QString& toolTip);
    QString badgeText() const;

    State state() const { return m_state; }
    /// The bar's message as plain text.
    QString text() const;

    QToolButton* runButton() const { return m_run; }
    QToolButton* folderButton() const { return m_folder; }
    QToolButton* cancelButton() const { return m_cancel; }
    QToolButton* outputButton() const { return m_output; }

Q_SIGNALS:
    /// The user consented: for this file, or (@p folder) for every file of its folder.
    void runRequested(bool folder);
    void cancelRequested();
    void outputRequested();

private:
    void setState(State state);

    State m_state = State::Hidden;
    QLabel* m_icon = nullptr;
    QLabel* m_label = nullptr;
    QLabel* m_badge = nullptr;
    QProgressBar* m_busy = nullptr;
    QToolButton* m_run = nullptr;
    QToolButton* m_folder = nullptr;
    QToolButton* m_cancel = nullptr;
    QToolButton* m_output = nullptr;
    QToolButton* m_close = nullptr;
};

} // namespace jitscope
