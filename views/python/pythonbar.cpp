#include "pythonbar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QStyle>
#include <QTextDocument>
#include <QToolButton>
#include <QVBoxLayout>

namespace jitscope {

PythonBar::PythonBar(QWidget* parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("pythonBar"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    // The message on its own row, the buttons under it: the Source dock is often narrow.
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(6, 4, 4, 4);
    outer->setSpacing(2);
    auto* top = new QHBoxLayout;
    top->setSpacing(6);
    outer->addLayout(top);
    m_icon = new QLabel;
    top->addWidget(m_icon, 0, Qt::AlignTop);
    m_label = new QLabel;
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::RichText);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_label->setMinimumWidth(120);
    top->addWidget(m_label, 1);
    // The self-check's mark, under the message.
    m_badge = new QLabel;
    m_badge->setTextFormat(Qt::RichText);
    m_badge->setWordWrap(true);
    m_badge->setContentsMargins(22, 0, 0, 0);
    m_badge->hide();
    outer->addWidget(m_badge);
    auto* layout = new QHBoxLayout;
    layout->setSpacing(4);
    outer->addLayout(layout);
    layout->addStretch(1);
    m_busy = new QProgressBar;
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(80);
    m_busy->setMaximumHeight(12);
    m_busy->setTextVisible(false);
    layout->addWidget(m_busy);
    auto button = [layout](const QString& text, const QString& tip) {
        auto* b = new QToolButton;
        b->setText(text);
        b->setToolTip(tip);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        layout->addWidget(b);
        return b;
    };
    m_run = button(tr("Run with Python"), tr("Run this file's code under the system's PyTorch, in its own process"));
    m_folder = button(tr("Always for This Folder"), tr("Run every .py file of this folder (and below) when opened"));
    m_cancel = button(tr("Cancel"), tr("Stop the Python process"));
    m_output = button(tr("Output"), tr("Show what the file printed"));
    m_close = new QToolButton;
    m_close->setText(QStringLiteral("\u2715"));
    m_close->setToolTip(tr("Hide this bar until the next file"));
    m_close->setAutoRaise(true);
    top->addWidget(m_close, 0, Qt::AlignTop);
    connect(m_run, &QToolButton::clicked, this, [this] { Q_EMIT runRequested(false); });
    connect(m_folder, &QToolButton::clicked, this, [this] { Q_EMIT runRequested(true); });
    connect(m_cancel, &QToolButton::clicked, this, &PythonBar::cancelRequested);
    connect(m_output, &QToolButton::clicked, this, &PythonBar::outputRequested);
    connect(m_close, &QToolButton::clicked, this, &QWidget::hide);
    setState(State::Hidden);
}

void PythonBar::setState(State state)
{
    m_state = state;
    setVisible(state != State::Hidden);
    m_busy->setVisible(state == State::Running);
    m_cancel->setVisible(state == State::Running);
    m_folder->setVisible(state == State::Asking);
    m_run->setVisible(state == State::Asking || state == State::Done || state == State::Failed);
    m_run->setText(state == State::Asking ? tr("Run with Python") : tr("Run Again"));
    m_output->setVisible(state == State::Done || state == State::Failed);
    const QStyle::StandardPixmap icon
        = state == State::Failed ? QStyle::SP_MessageBoxWarning : QStyle::SP_MessageBoxInformation;
    m_icon->setPixmap(style()->standardIcon(icon).pixmap(16, 16));
    QPalette p = palette();
    const QColor base = state == State::Failed ? QColor(0xff, 0xeb, 0xe9) : QColor(0xdd, 0xf4, 0xff);
    p.setColor(QPalette::Window, p.color(QPalette::Base).lightness() < 128 ? base.darker(420) : base);
    setPalette(p);
}

void PythonBar::ask(const QString& fileName, const QString& interpreter)
{
    setBadge(QString(), QString());
    m_label->setText(tr("<b>%1</b> is Python: run it to record its <code>torch.jit.trace</code> and "
                        "<code>torch.jit.script</code> calls, its classes and what PyTorch makes of them? Its code "
                        "runs with <code>%2</code>, in its own process.")
                         .arg(fileName.toHtmlEscaped(), interpreter.toHtmlEscaped()));
    m_label->setToolTip(QString());
    setState(State::Asking);
}

void PythonBar::showRunning(const QString& fileName, const QString& interpreter)
{
    setBadge(QString(), QString());
    m_label->setText(
        tr("Running <b>%1</b> with <code>%2</code>\u2026").arg(fileName.toHtmlEscaped(), interpreter.toHtmlEscaped()));
    m_label->setToolTip(QString());
    setState(State::Running);
}

void PythonBar::showDone(const QString& html, const QString& toolTip, bool failed)
{
    m_label->setText(html);
    m_label->setToolTip(toolTip);
    setState(failed ? State::Failed : State::Done);
}

void PythonBar::hideBar()
{
    setState(State::Hidden);
}

void PythonBar::setBadge(const QString& html, const QString& toolTip)
{
    m_badge->setText(html);
    m_badge->setToolTip(toolTip);
    m_badge->setVisible(!html.isEmpty());
}

QString PythonBar::badgeText() const
{
    QTextDocument doc;
    doc.setHtml(m_badge->text());
    return doc.toPlainText();
}

QString PythonBar::text() const
{
    QTextDocument doc;
    doc.setHtml(m_label->text());
    return doc.toPlainText();
}

} // namespace jitscope
