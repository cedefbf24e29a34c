#pragma once

#include <QHash>
#include <QMap>
#include <QPlainTextEdit>
#include <QSet>

class QHelpEvent;
class QSyntaxHighlighter;
class QMenu;
class QPainter;
class QMouseEvent;

namespace jitscope {

/// Read-only Python source with line numbers, syntax colours, a current line (the selected node's) and
/// error lines (compile errors). For the debugger: breakpoints as red dots in the gutter (a click on the gutter asks
/// to toggle one), the execution line with an arrow, and debug entries in the context menu.
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
    /// The rectangle of 1-based @p line in viewport (and gutter) coordinates; empty when it is not visible.
    QRect lineRect(int line) const;
    /// The 1-based line of the text cursor.
    int cursorLine() const;

    /// Breakpoints to draw: line -> 1-based loop iteration they are limited to, -1 for every iteration.
    void setBreakpoints(const QMap<int, int>& breakpoints);
    QMap<int, int> breakpoints() const { return m_breakpoints; }
    /// Marks the line execution is paused at with an arrow in the gutter and scrolls it into view when it is not
    /// visible; 0 clears it. Leaves the text cursor alone.
    void setExecutionLine(int line);
    int executionLine() const { return m_executionLine; }
    /// Whether the context menu offers the debug entries (the window has a function to debug).
    void setDebugActionsEnabled(bool enabled) { m_debugActions = enabled; }

    /// True when the palette's base colour is dark and the view uses its dark syntax and line colours.
    bool isDarkTheme() const;

    /// The gutter with line numbers and markers (a click there toggles a breakpoint).
    QWidget* lineNumberArea() const { return m_lineNumberArea; }
    int lineNumberAreaWidth() const;

Q_SIGNALS:
    /// The user clicked the gutter at @p line, or chose Toggle Breakpoint.
    void breakpointToggleRequested(int line);
    /// The user chose Break Only in Iteration… for @p line.
    void breakpointConditionRequested(int line);
    /// The user chose Run to Line for @p line.
    void runToLineRequested(int line);

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    friend class LineNumberArea;
    void paintLineNumbers(QPaintEvent* event);
    bool lineNumberToolTip(QHelpEvent* event);
    void gutterPressed(QMouseEvent* event);
    void paintDebugMarkers(QPainter* painter, int line, int top);
    void addDebugEntries(QMenu* menu, int line);
    void updateLineNumberAreaWidth();
    void updateLineNumberArea(const QRect& rect, int dy);
    void updateExtraSelections();
    void applyPalette();

    QWidget* m_lineNumberArea = nullptr;
    QSyntaxHighlighter* m_highlighter = nullptr;
    bool m_dark = false;
    int m_currentLine = 0;
    QSet<int> m_errorLines;
    QHash<int, QString> m_warningLines;
    QMap<int, int> m_breakpoints;
    int m_executionLine = 0;
    bool m_debugActions = false;
};

} // namespace jitscope
