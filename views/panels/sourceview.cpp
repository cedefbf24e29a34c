#include "sourceview.h"

#include <QContextMenuEvent>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QPainterPath>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSyntaxHighlighter>
#include <QTextBlock>
#include <QToolTip>

namespace jitscope {

namespace {

const QColor kWarningMarker(0xf5, 0xb7, 0x00);
const QColor kExecutionArrow(0xf2, 0xb7, 0x05);
const QColor kBreakpointColor(0xe5, 0x14, 0x00);
/// Line backgrounds, gutter and syntax colours for a light or a dark base colour. The markers (breakpoint
/// disc, execution arrow, warning triangle) keep their hues on both.
struct SourceColors
{
    QColor currentLine, errorLine, warningLine, executionLine, gutterBackground, gutterText, errorNumber, currentNumber;
    QColor keyword, builtin, number, string, comment, defName, decorator;

    static const SourceColors& forDark(bool dark)
    {
        static const SourceColors light { { 0xdd, 0xeb, 0xff }, { 0xff, 0xe3, 0xe3 }, { 0xff, 0xf4, 0xd1 },
            { 0xff, 0xf3, 0xb0 }, { 0xf3, 0xf4, 0xf6 }, { 0x9c, 0xa3, 0xaf }, { 0xcf, 0x22, 0x2e },
            { 0x1f, 0x6f, 0xeb }, { 0x8a, 0x2b, 0xb2 }, { 0x00, 0x5c, 0xc5 }, { 0x09, 0x86, 0x58 },
            { 0xa3, 0x15, 0x15 }, { 0x6a, 0x73, 0x7d }, { 0x79, 0x5e, 0x26 }, { 0xb3, 0x5e, 0x00 } };
        static const SourceColors darkColors { { 0x1f, 0x33, 0x4d }, { 0x4d, 0x1f, 0x24 }, { 0x45, 0x3a, 0x14 },
            { 0x4a, 0x42, 0x10 }, { 0x22, 0x27, 0x2e }, { 0x6e, 0x76, 0x81 }, { 0xff, 0x7b, 0x72 },
            { 0x58, 0xa6, 0xff }, { 0xd2, 0xa8, 0xff }, { 0x79, 0xc0, 0xff }, { 0x7e, 0xe7, 0x87 },
            { 0xff, 0xa6, 0x57 }, { 0x8b, 0x94, 0x9e }, { 0xe3, 0xb3, 0x41 }, { 0xff, 0xa6, 0x57 } };
        return dark ? darkColors : light;
    }
};

bool isDarkBase(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

// Gutter columns: breakpoints and the execution arrow, then warnings, then the line number.
constexpr qreal kBreakpointColumn = 9;
constexpr qreal kWarningColumn = 22;

QTextCharFormat charFormat(const QColor& color, bool bold = false, bool italic = false)
{
    QTextCharFormat f;
    f.setForeground(color);
    if (bold)
        f.setFontWeight(QFont::Bold);
    f.setFontItalic(italic);
    return f;
}

/// Just enough Python colouring to read TorchScript sources: keywords, builtins, numbers, strings (including
/// triple-quoted strings across lines), comments and decorators.
class PythonHighlighter : public QSyntaxHighlighter
{
public:
    explicit PythonHighlighter(QTextDocument* document)
        : QSyntaxHighlighter(document)
    {
        static const char* const keywords[]
            = { "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else",
                  "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not",
                  "or", "pass", "raise", "return", "try", "while", "with", "yield", "None", "True", "False" };
        QStringList words;
        for (const char* k : keywords)
            words << QLatin1String(k);
        m_keyword = QRegularExpression(QLatin1String("\\b(") + words.join(QLatin1Char('|')) + QLatin1String(")\\b"));
        m_builtin = QRegularExpression(QStringLiteral(
            "\\b(self|int|float|bool|str|list|tuple|dict|len|range|print|isinstance|super|torch|Tensor|Optional|"
            "List|Tuple|Dict)\\b"));
        m_number = QRegularExpression(
            QStringLiteral("\\b(0[xX][0-9a-fA-F_]+|[0-9][0-9_]*\\.?[0-9_]*([eE][-+]?[0-9]+)?j?)\\b"));
        m_defName = QRegularExpression(QStringLiteral("\\b(?:def|class)\\s+([A-Za-z_][A-Za-z0-9_]*)"));
        m_decorator = QRegularExpression(QStringLiteral("^\\s*@[A-Za-z_][A-Za-z0-9_.]*"));

        setColors(SourceColors::forDark(false));
    }

    /// Recolours the whole document, e.g. after the application switched to a dark palette.
    void setColors(const SourceColors& c)
    {
        m_keywordFormat = charFormat(c.keyword, true);
        m_builtinFormat = charFormat(c.builtin);
        m_numberFormat = charFormat(c.number);
        m_stringFormat = charFormat(c.string);
        m_commentFormat = charFormat(c.comment, false, true);
        m_defNameFormat = charFormat(c.defName, true);
        m_decoratorFormat = charFormat(c.decorator);
    }

protected:
    void highlightBlock(const QString& text) override
    {
        applyRegex(text, m_number, m_numberFormat, 0);
        applyRegex(text, m_builtin, m_builtinFormat, 0);
        applyRegex(text, m_keyword, m_keywordFormat, 0);
        applyRegex(text, m_defName, m_defNameFormat, 1);
        applyRegex(text, m_decorator, m_decoratorFormat, 0);
        scanStringsAndComments(text);
    }

private:
    enum State { Normal = 0, InTripleSingle = 1, InTripleDouble = 2 };

    void applyRegex(const QString& text, const QRegularExpression& re, const QTextCharFormat& f, int group)
    {
        auto it = re.globalMatch(text);
        while (it.hasNext()) {
            const auto match = it.next();
            setFormat(int(match.capturedStart(group)), int(match.capturedLength(group)), f);
        }
    }

    // Strings and comments win over everything else, so they are scanned last, character by character.
    void scanStringsAndComments(const QString& text)
    {
        int state = previousBlockState() < 0 ? Normal : previousBlockState();
        int i = 0;
        const int n = int(text.size());
        if (state != Normal) {
            const QString delim = state == InTripleDouble ? QStringLiteral("\"\"\"") : QStringLiteral("'''");
            const int end = int(text.indexOf(delim));
            if (end < 0) {
                setFormat(0, n, m_stringFormat);
                setCurrentBlockState(state);
                return;
            }
            setFormat(0, end + 3, m_stringFormat);
            i = end + 3;
            state = Normal;
        }
        while (i < n) {
            const QChar c = text.at(i);
            if (c == QLatin1Char('#')) {
                setFormat(i, n - i, m_commentFormat);
                break;
            }
            if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
                const QString triple(3, c);
                if (text.mid(i, 3) == triple) {
                    const int end = int(text.indexOf(triple, i + 3));
                    if (end < 0) {
                        setFormat(i, n - i, m_stringFormat);
                        state = c == QLatin1Char('"') ? InTripleDouble : InTripleSingle;
                        break;
                    }
                    setFormat(i, end + 3 - i, m_stringFormat);
                    i = end + 3;
                    continue;
                }
                int j = i + 1;
                while (j < n && text.at(j) != c) {
                    if (text.at(j) == QLatin1Char('\\'))
                        ++j;
                    ++j;
                }
                const int end = qMin(j + 1, n);
                setFormat(i, end - i, m_stringFormat);
                i = end;
                continue;
            }
            ++i;
        }
        setCurrentBlockState(state);
    }

    QRegularExpression m_keyword, m_builtin, m_number, m_defName, m_decorator;
    QTextCharFormat m_keywordFormat, m_builtinFormat, m_numberFormat, m_stringFormat, m_commentFormat, m_defNameFormat,
        m_decoratorFormat;
};

} // namespace

class LineNumberArea : public QWidget
{
public:
    explicit LineNumberArea(SourceView* view)
        : QWidget(view)
        , m_view(view)
    { }
    QSize sizeHint() const override { return QSize(m_view->lineNumberAreaWidth(), 0); }

protected:
    void paintEvent(QPaintEvent* event) override { m_view->paintLineNumbers(event); }
    bool event(QEvent* event) override
    {
        if (event->type() == QEvent::ToolTip && m_view->lineNumberToolTip(static_cast<QHelpEvent*>(event)))
            return true;
        return QWidget::event(event);
    }
    void mousePressEvent(QMouseEvent* event) override { m_view->gutterPressed(event); }
    void contextMenuEvent(QContextMenuEvent* event) override
    {
        const int line = m_view->lineAt(event->pos().y());
        if (line <= 0 || !m_view->m_debugActions)
            return;
        QMenu menu;
        m_view->addDebugEntries(&menu, line);
        menu.exec(event->globalPos());
    }

private:
    SourceView* m_view;
};

SourceView::SourceView(QWidget* parent)
    : QPlainTextEdit(parent)
    , m_lineNumberArea(new LineNumberArea(this))
{
    setReadOnly(true);
    setLineWrapMode(NoWrap);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_lineNumberArea->setCursor(Qt::PointingHandCursor);
    m_lineNumberArea->setToolTip(QString()); // tooltips come from lineNumberToolTip()
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setStyleHint(QFont::Monospace);
    setFont(mono);
    m_highlighter = new PythonHighlighter(document());
    applyPalette();

    connect(this, &QPlainTextEdit::blockCountChanged, this, &SourceView::updateLineNumberAreaWidth);
    connect(this, &QPlainTextEdit::updateRequest, this, &SourceView::updateLineNumberArea);
    updateLineNumberAreaWidth();
}

void SourceView::changeEvent(QEvent* event)
{
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void SourceView::applyPalette()
{
    const bool dark = isDarkBase(palette());
    if (!m_highlighter || dark == m_dark)
        return;
    m_dark = dark;
    static_cast<PythonHighlighter*>(m_highlighter)->setColors(SourceColors::forDark(dark));
    m_highlighter->rehighlight();
    updateExtraSelections();
    m_lineNumberArea->update();
}

bool SourceView::isDarkTheme() const
{
    return m_dark;
}

void SourceView::setSource(const QString& text)
{
    m_currentLine = 0;
    m_executionLine = 0;
    m_errorLines.clear();
    m_warningLines.clear();
    setPlainText(text);
    updateExtraSelections();
}

int SourceView::lineNumberAreaWidth() const
{
    int digits = 1;
    for (int max = qMax(1, blockCount()); max >= 10; max /= 10)
        ++digits;
    digits = qMax(digits, 3);
    // The extra room on the left holds breakpoints, the execution arrow and warning markers.
    return 34 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits;
}

void SourceView::updateLineNumberAreaWidth()
{
    setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
}

void SourceView::updateLineNumberArea(const QRect& rect, int dy)
{
    if (dy)
        m_lineNumberArea->scroll(0, dy);
    else
        m_lineNumberArea->update(0, rect.y(), m_lineNumberArea->width(), rect.height());
    if (rect.contains(viewport()->rect()))
        updateLineNumberAreaWidth();
}

void SourceView::resizeEvent(QResizeEvent* event)
{
    QPlainTextEdit::resizeEvent(event);
    const QRect cr = contentsRect();
    m_lineNumberArea->setGeometry(QRect(cr.left(), cr.top(), lineNumberAreaWidth(), cr.height()));
}

void SourceView::paintLineNumbers(QPaintEvent* event)
{
    QPainter painter(m_lineNumberArea);
    const SourceColors& colors = SourceColors::forDark(m_dark);
    painter.fillRect(event->rect(), colors.gutterBackground);
    painter.setFont(font());

    QTextBlock block = firstVisibleBlock();
    int number = block.blockNumber() + 1;
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    int bottom = top + qRound(blockBoundingRect(block).height());
    const int width = m_lineNumberArea->width() - 6;
    while (block.isValid() && top <= event->rect().bottom()) {
        if (block.isVisible() && bottom >= event->rect().top()) {
            QFont f = font();
            if (m_errorLines.contains(number)) {
                painter.setPen(colors.errorNumber);
                f.setBold(true);
            } else if (number == m_currentLine) {
                painter.setPen(colors.currentNumber);
                f.setBold(true);
            } else {
                painter.setPen(colors.gutterText);
            }
            painter.setFont(f);
            if (m_warningLines.contains(number)) {
                const qreal h = fontMetrics().height();
                const qreal size = qMin(11.0, h - 3);
                const QPointF c(kWarningColumn, top + h / 2.0);
                QPainterPath triangle;
                triangle.moveTo(c + QPointF(0, -size / 2));
                triangle.lineTo(c + QPointF(size / 2, size / 2 - 0.5));
                triangle.lineTo(c + QPointF(-size / 2, size / 2 - 0.5));
                triangle.closeSubpath();
                painter.save();
                painter.setRenderHint(QPainter::Antialiasing);
                painter.setPen(QPen(kWarningMarker.darker(140), 1));
                painter.setBrush(kWarningMarker);
                painter.drawPath(triangle);
                painter.restore();
            }
            if (m_breakpoints.contains(number) || number == m_executionLine)
                paintDebugMarkers(&painter, number, top);
            painter.drawText(
                0, top, width, fontMetrics().height(), Qt::AlignRight | Qt::AlignVCenter, QString::number(number));
        }
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
        ++number;
    }
}

int SourceView::lineAt(int y) const
{
    QTextBlock block = firstVisibleBlock();
    qreal top = blockBoundingGeometry(block).translated(contentOffset()).top();
    while (block.isValid()) {
        const qreal bottom = top + blockBoundingRect(block).height();
        if (y >= top && y < bottom)
            return block.blockNumber() + 1;
        if (top > y)
            break;
        block = block.next();
        top = bottom;
    }
    return 0;
}

bool SourceView::lineNumberToolTip(QHelpEvent* event)
{
    const int line = lineAt(event->pos().y());
    QStringList parts;
    if (line == m_executionLine && line > 0)
        parts << tr("Execution is paused here");
    if (m_breakpoints.contains(line)) {
        const int iteration = m_breakpoints.value(line);
        parts << (iteration > 0 ? tr("Breakpoint, only in iteration %1 of the innermost loop").arg(iteration)
                                : tr("Breakpoint (click to remove)"));
    }
    if (!m_warningLines.value(line).isEmpty())
        parts << m_warningLines.value(line);
    const QString message = parts.join(QLatin1Char('\n'));
    if (message.isEmpty()) {
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    QToolTip::showText(event->globalPos(), message, m_lineNumberArea);
    return true;
}

QRect SourceView::lineRect(int line) const
{
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (!block.isValid() || !block.isVisible())
        return {};
    const QRectF r = blockBoundingGeometry(block).translated(contentOffset());
    if (r.bottom() < 0 || r.top() > viewport()->height())
        return {};
    return QRect(0, qRound(r.top()), viewport()->width(), qRound(r.height()));
}

int SourceView::cursorLine() const
{
    return textCursor().blockNumber() + 1;
}

void SourceView::setBreakpoints(const QMap<int, int>& breakpoints)
{
    m_breakpoints = breakpoints;
    m_lineNumberArea->update();
}

void SourceView::setExecutionLine(int line)
{
    m_executionLine = line > 0 && line <= blockCount() ? line : 0;
    updateExtraSelections();
    m_lineNumberArea->update();
    if (m_executionLine == 0)
        return;
    // Scroll without moving the text cursor: Run to Cursor reads the cursor's line. Unwrapped lines make the
    // vertical scroll bar count lines.
    const int first = verticalScrollBar()->value();
    const int visible = qMax(1, viewport()->height() / qMax(1, fontMetrics().height()));
    if (m_executionLine - 1 < first || m_executionLine > first + visible - 1)
        verticalScrollBar()->setValue(qMax(0, m_executionLine - 1 - visible / 2));
}

void SourceView::paintDebugMarkers(QPainter* painter, int line, int top)
{
    const qreal h = fontMetrics().height();
    const QPointF c(kBreakpointColumn, top + h / 2.0);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    if (m_breakpoints.contains(line)) {
        const qreal r = qMin(5.5, h / 2 - 1);
        painter->setPen(QPen(kBreakpointColor.darker(130), 1));
        painter->setBrush(kBreakpointColor);
        painter->drawEllipse(c, r, r);
        if (m_breakpoints.value(line) > 0) {
            // Limited to one iteration: a white bar, as debuggers mark conditional breakpoints.
            painter->setPen(QPen(Qt::white, 1.6));
            painter->drawLine(c + QPointF(-r / 2, 0), c + QPointF(r / 2, 0));
        }
    }
    if (line == m_executionLine) {
        const qreal a = qMin(6.0, h / 2 - 0.5);
        QPainterPath arrow;
        arrow.moveTo(c + QPointF(-a - 1, -a / 2.2));
        arrow.lineTo(c + QPointF(0, -a / 2.2));
        arrow.lineTo(c + QPointF(0, -a));
        arrow.lineTo(c + QPointF(a + 1, 0));
        arrow.lineTo(c + QPointF(0, a));
        arrow.lineTo(c + QPointF(0, a / 2.2));
        arrow.lineTo(c + QPointF(-a - 1, a / 2.2));
        arrow.closeSubpath();
        painter->setPen(QPen(kExecutionArrow.darker(150), 1));
        painter->setBrush(kExecutionArrow);
        painter->drawPath(arrow);
    }
    painter->restore();
}

void SourceView::gutterPressed(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const int line = lineAt(event->pos().y());
    if (line > 0)
        Q_EMIT breakpointToggleRequested(line);
}

void SourceView::addDebugEntries(QMenu* menu, int line)
{
    const bool has = m_breakpoints.contains(line);
    menu->addAction(has ? tr("Remove Breakpoint at Line %1").arg(line) : tr("Add Breakpoint at Line %1").arg(line),
        this, [this, line] { Q_EMIT breakpointToggleRequested(line); });
    menu->addAction(
        tr("Break Only in Iteration\u2026"), this, [this, line] { Q_EMIT breakpointConditionRequested(line); });
    menu->addAction(tr("Run to Line %1").arg(line), this, [this, line] { Q_EMIT runToLineRequested(line); });
}

void SourceView::contextMenuEvent(QContextMenuEvent* event)
{
    QMenu* menu = createStandardContextMenu(event->pos());
    const int line = lineAt(event->pos().y());
    if (m_debugActions && line > 0) {
        QAction* first = menu->actions().value(0);
        QMenu entries;
        addDebugEntries(&entries, line);
        for (QAction* action : entries.actions()) {
            action->setParent(menu);
            menu->insertAction(first, action);
        }
        menu->insertSeparator(first);
    }
    menu->exec(event->globalPos());
    delete menu;
}

void SourceView::setWarningLines(const QHash<int, QString>& messages)
{
    m_warningLines = messages;
    updateExtraSelections();
    m_lineNumberArea->update();
}

void SourceView::highlightLine(int line)
{
    m_currentLine = line > 0 && line <= blockCount() ? line : 0;
    updateExtraSelections();
    if (m_currentLine > 0) {
        QTextCursor cursor(document()->findBlockByNumber(m_currentLine - 1));
        setTextCursor(cursor);
        centerCursor();
    }
    m_lineNumberArea->update();
}

void SourceView::setErrorLines(const QSet<int>& lines)
{
    m_errorLines = lines;
    updateExtraSelections();
    m_lineNumberArea->update();
}

void SourceView::updateExtraSelections()
{
    const SourceColors& colors = SourceColors::forDark(m_dark);
    QList<QTextEdit::ExtraSelection> selections;
    auto addLine = [&](int line, const QColor& color) {
        const QTextBlock block = document()->findBlockByNumber(line - 1);
        if (!block.isValid())
            return;
        QTextEdit::ExtraSelection selection;
        selection.format.setBackground(color);
        selection.format.setProperty(QTextFormat::FullWidthSelection, true);
        selection.cursor = QTextCursor(block);
        selections.append(selection);
    };
    for (auto it = m_warningLines.cbegin(); it != m_warningLines.cend(); ++it) {
        if (!m_errorLines.contains(it.key()) && it.key() != m_currentLine)
            addLine(it.key(), colors.warningLine);
    }
    for (int line : std::as_const(m_errorLines))
        addLine(line, colors.errorLine);
    if (m_currentLine > 0)
        addLine(
            m_currentLine, m_errorLines.contains(m_currentLine) ? colors.errorLine.darker(108) : colors.currentLine);
    if (m_executionLine > 0)
        addLine(m_executionLine, colors.executionLine);
    setExtraSelections(selections);
}

} // namespace jitscope
