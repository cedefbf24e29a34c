#pragma once

#include "report/interpreters.h"

#include <QDialog>
#include <QFutureWatcher>
#include <QVector>

class QLabel;
class QTreeWidget;

namespace jitscope {

/// Model > Python Interpreter: the interpreters found (the active environments, ~/.virtualenvs, conda's envs,
/// pyenv's versions, the engine's) with their torch versions, and Browse... for another. The window remembers the
/// choice for the folder of the file (as VS Code does); "Default" leaves it to resolvePython().
class InterpreterDialog : public QDialog
{
    Q_OBJECT
public:
    /// @p chosen: the folder's interpreter, empty for the default; @p folder names it in the text.
    explicit InterpreterDialog(const QString& chosen, const QString& folder, QWidget* parent = nullptr);

    /// The interpreter chosen, empty for the default.
    QString interpreter() const;
    /// Adds @p path (Browse...), its torch asked off the GUI thread, and selects it.
    void addInterpreter(const QString& path);
    QTreeWidget* list() const { return m_list; }
    /// True while the interpreters are being found and asked for their torch.
    bool isSearching() const { return m_search.isRunning(); }

Q_SIGNALS:
    void searched();

private:
    enum Columns { PathColumn, TorchColumn, FoundColumn, NumColumns };
    void showFound(const QVector<PythonInterpreter>& found);
    void addRow(const PythonInterpreter& python);
    void browse();

    QString m_chosen;
    QTreeWidget* m_list = nullptr;
    QLabel* m_status = nullptr;
    QFutureWatcher<QVector<PythonInterpreter>> m_search;
};

} // namespace jitscope
