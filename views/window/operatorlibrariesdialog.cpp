#include "operatorlibrariesdialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace jitscope {

OperatorLibrariesDialog::OperatorLibrariesDialog(
    const QStringList& libraries, const QStringList& runOnly, QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Operator Libraries"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Shared libraries of custom operators that every model is loaded with. An archive "
                                "that calls torchvision:: (or other) operators finds the library that defines them "
                                "in the system's Python's packages without this list; add libraries kept "
                                "elsewhere here. A library that does not load is named when a model needs it."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_list = new QListWidget(this);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    layout->addWidget(m_list, 1);
    auto* buttons = new QHBoxLayout;
    auto* add = new QPushButton(tr("&Add\u2026"), this);
    m_remove = new QPushButton(tr("&Remove"), this);
    buttons->addWidget(add);
    buttons->addWidget(m_remove);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    if (!runOnly.isEmpty()) {
        auto* run = new QLabel(tr("For this run only (--load-ops): %1").arg(runOnly.join(QStringLiteral(", "))), this);
        run->setWordWrap(true);
        run->setTextInteractionFlags(Qt::TextSelectableByMouse);
        layout->addWidget(run);
    }
    auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    layout->addWidget(box);
    connect(box, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(add, &QPushButton::clicked, this, &OperatorLibrariesDialog::chooseFiles);
    connect(m_remove, &QPushButton::clicked, this, &OperatorLibrariesDialog::removeSelected);
    connect(m_list, &QListWidget::itemSelectionChanged, this, &OperatorLibrariesDialog::updateButtons);
    addLibraries(libraries);
    updateButtons();
    resize(640, 360);
}

QStringList OperatorLibrariesDialog::libraries() const
{
    QStringList paths;
    for (int i = 0; i < m_list->count(); ++i)
        paths << m_list->item(i)->text();
    return paths;
}

void OperatorLibrariesDialog::addLibraries(const QStringList& paths)
{
    const QStringList have = libraries();
    for (const QString& path : paths) {
        const QString absolute = QFileInfo(path).absoluteFilePath();
        if (path.isEmpty() || have.contains(absolute) || !m_list->findItems(absolute, Qt::MatchExactly).isEmpty())
            continue;
        auto* item = new QListWidgetItem(absolute, m_list);
        if (!QFileInfo(absolute).isFile())
            item->setToolTip(tr("No such file: the library is skipped when a model loads"));
    }
    updateButtons();
}

void OperatorLibrariesDialog::removeSelected()
{
    qDeleteAll(m_list->selectedItems());
    updateButtons();
}

void OperatorLibrariesDialog::chooseFiles()
{
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Add Operator Libraries"), QString(), tr("Shared libraries (*.so *.so.*);;All files (*)"));
    addLibraries(files);
}

void OperatorLibrariesDialog::updateButtons()
{
    m_remove->setEnabled(!m_list->selectedItems().isEmpty());
}

} // namespace jitscope
