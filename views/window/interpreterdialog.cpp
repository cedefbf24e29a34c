#include "interpreterdialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace jitscope {

InterpreterDialog::InterpreterDialog(const QString& chosen, const QString& folder, QWidget* parent)
    : QDialog(parent)
    , m_chosen(chosen)
{
    setWindowTitle(tr("Python Interpreter"));
    auto* layout = new QVBoxLayout(this);
    const PythonInterpreter byDefault = resolvePython();
    auto* intro = new QLabel(tr("The Python that runs the .py files of %1 (remembered for that folder). The default "
                                "is %2.")
                                 .arg(folder.toHtmlEscaped(), interpreterText(byDefault).toHtmlEscaped()),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_list = new QTreeWidget(this);
    m_list->setColumnCount(NumColumns);
    m_list->setHeaderLabels({ tr("Interpreter"), tr("torch"), tr("Found as") });
    m_list->setRootIsDecorated(false);
    m_list->header()->setSectionResizeMode(PathColumn, QHeaderView::Stretch);
    layout->addWidget(m_list, 1);
    auto* defaultItem = new QTreeWidgetItem(m_list, { tr("Default"), QString(), chosenByText(byDefault.chosenBy) });
    defaultItem->setToolTip(PathColumn, byDefault.path);
    if (chosen.isEmpty())
        m_list->setCurrentItem(defaultItem);
    auto* buttons = new QHBoxLayout;
    auto* browseButton = new QPushButton(tr("&Browse\u2026"), this);
    buttons->addWidget(browseButton);
    m_status = new QLabel(tr("Looking for interpreters and their torch\u2026"), this);
    buttons->addWidget(m_status, 1);
    layout->addLayout(buttons);
    auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    layout->addWidget(box);
    connect(box, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browseButton, &QPushButton::clicked, this, &InterpreterDialog::browse);
    if (!chosen.isEmpty())
        addRow({ chosen, QStringLiteral("option") });
    // Each interpreter imports torch once (seconds when cold): off the GUI thread.
    connect(&m_search, &QFutureWatcher<QVector<PythonInterpreter>>::finished, this, [this] {
        showFound(m_search.result());
        Q_EMIT searched();
    });
    m_search.setFuture(QtConcurrent::run([] { return findInterpreters(); }));
    resize(760, 380);
}

QString InterpreterDialog::interpreter() const
{
    const QTreeWidgetItem* item = m_list->currentItem();
    return item ? item->data(PathColumn, Qt::UserRole).toString() : m_chosen;
}

void InterpreterDialog::addRow(const PythonInterpreter& python)
{
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_list->topLevelItem(i);
        if (item->data(PathColumn, Qt::UserRole).toString() != python.path)
            continue;
        if (!python.torch.isEmpty() || !python.torchError.isEmpty())
            item->setText(TorchColumn, python.torch.isEmpty() ? tr("none") : python.torch);
        return;
    }
    auto* item = new QTreeWidgetItem(m_list,
        { python.path, python.torch.isEmpty() && !python.torchError.isEmpty() ? tr("none") : python.torch,
            chosenByText(python.chosenBy) });
    item->setData(PathColumn, Qt::UserRole, python.path);
    if (!python.torchError.isEmpty())
        item->setToolTip(TorchColumn, python.torchError);
    if (python.path == m_chosen)
        m_list->setCurrentItem(item);
}

void InterpreterDialog::showFound(const QVector<PythonInterpreter>& found)
{
    for (const PythonInterpreter& p : found)
        addRow(p);
    // The chosen one, when it is none of those found: its torch too.
    if (!m_chosen.isEmpty())
        addInterpreter(m_chosen);
    m_status->setText(tr("%n interpreter(s) found", nullptr, int(found.size())));
}

void InterpreterDialog::addInterpreter(const QString& path)
{
    PythonInterpreter p { path, QStringLiteral("option") };
    QString error;
    p.torch = torchVersionOf(path, &error); // cached after the search; a browsed one asks once
    p.torchError = error;
    addRow(p);
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        if (m_list->topLevelItem(i)->data(PathColumn, Qt::UserRole).toString() == path)
            m_list->setCurrentItem(m_list->topLevelItem(i));
}

void InterpreterDialog::browse()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Python Interpreter"), QStringLiteral("/usr/bin"));
    if (!path.isEmpty())
        addInterpreter(path);
}

} // namespace jitscope
