#pragma once

#include <QPlainTextEdit>
#include <QSet>

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

    int lineNumberAreaWidth() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    friend class LineNumberArea;
    void paintLineNumbers(QPaintEvent* event);
    void updateLineNumberAreaWidth();
    void updateLineNumberArea(const QRect& rect, int dy);
    void updateExtraSelections();

    QWidget* m_lineNumberArea = nullptr;
    int m_currentLine = 0;
    QSet<int> m_errorLines;
};

} // namespace jitscope
