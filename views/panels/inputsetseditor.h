#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;
class QToolButton;

namespace jitscope {

class InputSetsModel;

/// The input sets panel: a table of sets in the SET syntax, validated as they are typed, with buttons to add,
/// duplicate, remove and reorder sets, and a Check button that reruns the check on them.
class InputSetsEditor : public QWidget
{
    Q_OBJECT
public:
    explicit InputSetsEditor(QWidget* parent = nullptr);

    InputSetsModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QPushButton* checkButton() const { return m_check; }
    /// "Use File's Sets", shown while the sets differ from the file's.
    QPushButton* resetButton() const { return m_reset; }
    bool isEdited() const { return m_edited; }
    /// Whether the sets differ from the file's (saved in the session): offers to go back to the file's sets.
    void setEdited(bool edited);
    QString statusText() const;
    /// A set guessed for a file that records none (suggestInputSet()), offered while there are no sets: one click
    /// adds it. Empty clears it.
    void setSuggestion(const QString& set, const QString& reason);
    /// Adds the suggested set (the status line's link).
    void addSuggestion();

Q_SIGNALS:
    void checkRequested();
    /// The user asked for the file's own sets back.
    void resetRequested();

private:
    void updateState();
    void showLiveStatus(int row, const QString& text);
    int currentRow() const;
    void selectRow(int row, bool edit = false);

    InputSetsModel* m_model = nullptr;
    QTableView* m_view = nullptr;
    QLabel* m_status = nullptr;
    QToolButton* m_add = nullptr;
    QToolButton* m_duplicate = nullptr;
    QToolButton* m_remove = nullptr;
    QToolButton* m_up = nullptr;
    QToolButton* m_down = nullptr;
    QPushButton* m_reset = nullptr;
    QPushButton* m_check = nullptr;
    bool m_edited = false;
    QString m_suggestion;
    QString m_suggestionReason;
};

} // namespace jitscope
