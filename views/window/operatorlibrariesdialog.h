#pragma once

#include <QDialog>
#include <QStringList>

class QListWidget;
class QPushButton;

namespace jitscope {

/// Model > Operator Libraries: the shared libraries of custom operators every model loads with, remembered across
/// runs. An archive's torchvision:: (or other) operators are found without them in the system's Python's packages;
/// these are for libraries kept elsewhere.
class OperatorLibrariesDialog : public QDialog
{
    Q_OBJECT
public:
    /// @p runOnly: the libraries of this run only (--load-ops), shown and not edited.
    explicit OperatorLibrariesDialog(
        const QStringList& libraries, const QStringList& runOnly = {}, QWidget* parent = nullptr);

    QStringList libraries() const;
    /// Adds @p paths (absolute), skipping those listed already.
    void addLibraries(const QStringList& paths);
    /// Removes the selected rows.
    void removeSelected();

    QListWidget* list() const { return m_list; }

private:
    void chooseFiles();
    void updateButtons();

    QListWidget* m_list = nullptr;
    QPushButton* m_remove = nullptr;
};

} // namespace jitscope
