#include "stackpeek.h"

#include "sourceview.h"

#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QVBoxLayout>

namespace jitscope {

namespace {

constexpr qint64 kMaxFileBytes = 8 << 20; ///< a source file larger than this is not shown

} // namespace

StackPeek::StackPeek(QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Divergence Source"));
    m_title = new QLabel;
    m_title->setTextFormat(Qt::PlainText);
    m_title->setWordWrap(true);
    m_list = new QListWidget;
    m_list->setToolTip(tr("The cause's Python stack, innermost first, down to your line"));
    m_source = new SourceView;
    m_source->setDebugActionsEnabled(false);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_list);
    split->addWidget(m_source);
    split->setStretchFactor(1, 3);
    split->setSizes({ 260, 640 });
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(split, 1);
    resize(960, 560);
    connect(m_list, &QListWidget::currentRowChanged, this, &StackPeek::showFrame);
}

void StackPeek::showDivergence(const Divergence& divergence)
{
    m_frames = divergence.stack;
    if (m_frames.isEmpty() && divergence.location.isValid())
        m_frames << divergence.location;
    m_title->setText(QStringLiteral("[%1] %2").arg(divergenceKindName(divergence.kind), divergence.message));
    m_list->blockSignals(true);
    m_list->clear();
    for (const SourceLocation& f : std::as_const(m_frames)) {
        auto* item = new QListWidgetItem(QStringLiteral("%1:%2").arg(QFileInfo(f.file).fileName()).arg(f.line));
        item->setToolTip(f.file);
        m_list->addItem(item);
    }
    m_list->blockSignals(false);
    if (!m_frames.isEmpty())
        m_list->setCurrentRow(0);
    else
        showFrame(-1);
}

void StackPeek::showFrame(int index)
{
    if (index < 0 || index >= m_frames.size()) {
        m_file.clear();
        m_source->setSource(QString());
        return;
    }
    const SourceLocation& f = m_frames[index];
    if (f.file != m_file) {
        QFile file(f.file);
        QString text;
        if (file.size() <= kMaxFileBytes && file.open(QIODevice::ReadOnly))
            text = QString::fromUtf8(file.readAll());
        else
            text = tr("# %1 cannot be read").arg(f.file);
        m_source->setSource(text);
        m_file = f.file;
    }
    m_source->highlightLine(f.line);
    if (m_list->currentRow() != index)
        m_list->setCurrentRow(index);
}

int StackPeek::frameCount() const
{
    return int(m_frames.size());
}

} // namespace jitscope
