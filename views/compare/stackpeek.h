#pragma once

#include "report/divergence.h"

#include <QDialog>

class QLabel;
class QListWidget;

namespace jitscope {

class SourceView;

/// A divergence's place and stack, read-only: each frame (innermost first, down to the user's line) in a list and
/// the selected one's file at its line, torchvision's and torch.nn's files as well as the user's. What the window
/// opens for a divergence whose cause is in library code.
class StackPeek : public QDialog
{
    Q_OBJECT
public:
    explicit StackPeek(QWidget* parent = nullptr);

    /// Shows @p divergence's stack (its location alone when it has none), the first frame selected.
    void showDivergence(const Divergence& divergence);
    /// Selects frame @p index: its file shown at its line.
    void showFrame(int index);

    int frameCount() const;
    SourceView* sourceView() const { return m_source; }
    /// The file shown, empty when none could be read.
    QString shownFile() const { return m_file; }

private:
    QVector<SourceLocation> m_frames;
    QListWidget* m_list = nullptr;
    QLabel* m_title = nullptr;
    SourceView* m_source = nullptr;
    QString m_file;
};

} // namespace jitscope
