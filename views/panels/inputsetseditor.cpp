#include "inputsetseditor.h"

#include "inputsetsmodel.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <functional>

namespace jitscope {

namespace {

const QColor kInvalidBackground(0xff, 0xdd, 0xdd);

/// Edits a set in a monospace line edit that turns red while the text does not parse.
class InputSetDelegate : public QStyledItemDelegate
{
public:
    using Listener = std::function<void(int row, const QString& text)>;

    InputSetDelegate(Listener listener, QObject* parent)
        : QStyledItemDelegate(parent)
        , m_listener(std::move(listener))
    { }

    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex& index) const override
    {
        auto* editor = new QLineEdit(parent);
        editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        editor->setFrame(false);
        const int row = index.row();
        QObject::connect(editor, &QLineEdit::textChanged, editor, [this, editor, row](const QString& text) {
            validate(editor, text);
            m_listener(row, text);
        });
        return editor;
    }

    void setEditorData(QWidget* editor, const QModelIndex& index) const override
    {
        auto* line = static_cast<QLineEdit*>(editor);
        line->setText(index.data(Qt::EditRole).toString());
        validate(line, line->text());
    }

    void destroyEditor(QWidget* editor, const QModelIndex& index) const override
    {
        m_listener(-1, QString());
        QStyledItemDelegate::destroyEditor(editor, index);
    }

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        if (index.column() == InputSetsModel::SetColumn)
            option->font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    }

private:
    static void validate(QLineEdit* editor, const QString& text)
    {
        InputParseError error;
        const bool ok = parseInputSet(text.trimmed(), &error).has_value();
        QPalette palette = editor->parentWidget() ? editor->parentWidget()->palette() : editor->palette();
        if (!ok)
            palette.setColor(QPalette::Base, kInvalidBackground);
        editor->setPalette(palette);
        editor->setToolTip(ok ? QString() : InputSetsModel::errorToolTip(text.trimmed(), error));
    }

    Listener m_listener;
};

QToolButton* toolButton(const QString& text, const QString& toolTip, QWidget* parent)
{
    auto* button = new QToolButton(parent);
    button->setText(text);
    button->setToolTip(toolTip);
    button->setAutoRaise(true);
    return button;
}

} // namespace

InputSetsEditor::InputSetsEditor(QWidget* parent)
    : QWidget(parent)
    , m_model(new InputSetsModel(this))
{
    m_view = new QTableView;
    m_view->setModel(m_model);
    m_view->setItemDelegate(
        new InputSetDelegate([this](int row, const QString& text) { showLiveStatus(row, text); }, m_view));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
        | QAbstractItemView::AnyKeyPressed | QAbstractItemView::SelectedClicked);
    m_view->setWordWrap(false);
    m_view->setAlternatingRowColors(true);
    m_view->horizontalHeader()->setSectionResizeMode(InputSetsModel::SetColumn, QHeaderView::Stretch);
    m_view->horizontalHeader()->setSectionResizeMode(InputSetsModel::InfoColumn, QHeaderView::ResizeToContents);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);

    m_add = toolButton(tr("Add"), tr("Add an input set (a copy of the last one)"), this);
    m_duplicate = toolButton(tr("Duplicate"), tr("Duplicate the selected set"), this);
    m_remove = toolButton(tr("Remove"), tr("Remove the selected set"), this);
    m_up = toolButton(QStringLiteral("\u25b2"), tr("Move the selected set up (the first set is the traced one)"), this);
    m_down = toolButton(QStringLiteral("\u25bc"), tr("Move the selected set down"), this);
    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->setSpacing(2);
    for (QToolButton* b : { m_add, m_duplicate, m_remove, m_up, m_down })
        buttons->addWidget(b);
    buttons->addStretch(1);

    m_status = new QLabel;
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_status->setContentsMargins(2, 0, 2, 0);

    m_reset = new QPushButton(tr("Use File's Sets"));
    m_reset->setToolTip(tr("Forget the edits and use the file's inputs and check_inputs"));
    m_check = new QPushButton(tr("Check"));
    m_check->setToolTip(tr("Trace the function on every set and compare the traces (Ctrl+R)"));
    m_check->setDefault(true);
    QFont bold = m_check->font();
    bold.setBold(true);
    m_check->setFont(bold);
    auto* bottom = new QHBoxLayout;
    bottom->setContentsMargins(0, 0, 0, 0);
    bottom->addWidget(m_reset);
    bottom->addStretch(1);
    bottom->addWidget(m_check);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addLayout(buttons);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_status);
    layout->addLayout(bottom);

    connect(m_add, &QToolButton::clicked, this, [this] { selectRow(m_model->addSet(), true); });
    connect(m_duplicate, &QToolButton::clicked, this, [this] { selectRow(m_model->duplicateSet(currentRow())); });
    connect(m_remove, &QToolButton::clicked, this, [this] {
        const int row = currentRow();
        if (m_model->removeSet(row))
            selectRow(qMin(row, m_model->rowCount() - 1));
    });
    connect(m_up, &QToolButton::clicked, this, [this] { selectRow(m_model->moveSet(currentRow(), -1)); });
    connect(m_down, &QToolButton::clicked, this, [this] { selectRow(m_model->moveSet(currentRow(), +1)); });
    connect(m_check, &QPushButton::clicked, this, &InputSetsEditor::checkRequested);
    connect(m_status, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link == QLatin1String("suggestion"))
            addSuggestion();
    });
    connect(m_reset, &QPushButton::clicked, this, &InputSetsEditor::resetRequested);

    connect(m_model, &QAbstractItemModel::modelReset, this, &InputSetsEditor::updateState);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &InputSetsEditor::updateState);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &InputSetsEditor::updateState);
    connect(m_model, &QAbstractItemModel::rowsMoved, this, &InputSetsEditor::updateState);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &InputSetsEditor::updateState);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &InputSetsEditor::updateState);
    setEdited(false);
    updateState();
}

int InputSetsEditor::currentRow() const
{
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? current.row() : -1;
}

void InputSetsEditor::selectRow(int row, bool edit)
{
    if (row < 0 || row >= m_model->rowCount())
        return;
    const QModelIndex index = m_model->index(row, InputSetsModel::SetColumn);
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
    if (edit)
        m_view->edit(index);
    updateState();
}

void InputSetsEditor::setEdited(bool edited)
{
    m_edited = edited;
    m_reset->setVisible(edited);
}

QString InputSetsEditor::statusText() const
{
    return m_status->text();
}

void InputSetsEditor::showLiveStatus(int row, const QString& text)
{
    if (row < 0) {
        updateState();
        return;
    }
    InputParseError error;
    const std::optional<InputSet> set = parseInputSet(text.trimmed(), &error);
    if (set) {
        m_status->setText(
            tr("Set %1: valid, %2")
                .arg(row + 1)
                .arg(QLocale::c().formattedDataSize(set->byteSize(), 1, QLocale::DataSizeTraditionalFormat)));
    } else {
        m_status->setText(QStringLiteral("<span style='color:#a40e26'>%1</span>")
                              .arg(tr("Set %1, character %2: %3")
                                       .arg(row + 1)
                                       .arg(error.position + 1)
                                       .arg(error.message.toHtmlEscaped())));
    }
}

void InputSetsEditor::setSuggestion(const QString& set, const QString& reason)
{
    m_suggestion = set;
    m_suggestionReason = reason;
    updateState();
}

void InputSetsEditor::addSuggestion()
{
    if (m_suggestion.isEmpty() || m_model->rowCount() > 0)
        return;
    selectRow(m_model->addSet(m_suggestion));
}

void InputSetsEditor::updateState()
{
    const int rows = m_model->rowCount();
    const int row = currentRow();
    m_duplicate->setEnabled(row >= 0);
    m_remove->setEnabled(row >= 0);
    m_up->setEnabled(row > 0);
    m_down->setEnabled(row >= 0 && row + 1 < rows);

    const int invalid = m_model->firstInvalidRow();
    if (rows == 0 && !m_suggestion.isEmpty()) {
        m_status->setText(tr("No input sets: this file records no input shapes. <a href=\"suggestion\">Add "
                             "<tt>%1</tt></a>, guessed from %2.")
                              .arg(m_suggestion.toHtmlEscaped(), m_suggestionReason.toHtmlEscaped()));
    } else if (rows == 0) {
        m_status->setText(tr("No input sets: add one (for example <tt>f32[2,3]</tt>) to trace the function."));
    } else if (invalid >= 0) {
        const QModelIndex index = m_model->index(invalid, 0);
        m_status->setText(QStringLiteral("<span style='color:#a40e26'>%1</span>")
                              .arg(tr("Set %1, character %2: %3")
                                       .arg(invalid + 1)
                                       .arg(index.data(InputSetsModel::ErrorPositionRole).toInt() + 1)
                                       .arg(index.data(InputSetsModel::ErrorRole).toString().toHtmlEscaped())));
    } else {
        m_status->setText(rows == 1 ? tr("1 set: traced, nothing to check it against.")
                                    : tr("%1 sets: set 1 is traced, the others check it.").arg(rows));
    }
    m_check->setEnabled(rows > 0 && invalid < 0);
    m_check->setToolTip(invalid >= 0 ? tr("Fix the invalid set first")
                                     : tr("Trace the function on every set and compare the traces (Ctrl+R)"));
}

} // namespace jitscope
