#pragma once

#include <QHash>
#include <QPlainTextEdit>
#include <QSet>

class QHelpEvent;

namespace jitscope {

/// Read-only Python source with line numbers, syntax colours, a current line (the selected node's) and
/// error lines (compile errors).
class SourceView : public QPlainTextEdit
{
    Q_OBJECT
public:
    explicit SourceView(QWidget* parent = nullptr);

    void setSource(const QString& text);
    /// Marks 1-based @p line as current and scrolls it into the middle of the view; 0 clears the mark.
    void highlightLine(int line);
    int highlightedLine() const { return m_currentLine; }
    /// Lines drawn with an error background (and a red gutter number) until the next setSource().
    void setErrorLines(const QSet<int>& lines);
    /// Lines with a warning marker in the gutter (the message as its tooltip) and a light background, until the
    /// next setSource() or setWarningLines().
    void setWarningLines(const QHash<int, QString>& messages);
    QHash<int, QString> warningLines() const { return m_warningLines; }
    /// The 1-based line at viewport y coordinate @p y, or 0.
    int lineAt(int y) const;

    int lineNumberAreaWidth() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    friend class LineNumberArea;
    void paintLineNumbers(QPaintEvent* event);
    bool lineNumberToolTip(QHelpEvent* event);
    void updateLineNumberAreaWidth();
    void updateLineNumberArea(const QRect& rect, int dy);
    void updateExtraSelections();

    QWidget* m_lineNumberArea = nullptr;
    int m_currentLine = 0;
    QSet<int> m_errorLines;
    QHash<int, QString> m_warningLines;
};

} // namespace jitscope
