#include "valuespanel.h"

#include "valuesmodel.h"

#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

namespace jitscope {

ValuesPanel::ValuesPanel(QWidget* parent)
    : QSplitter(Qt::Horizontal, parent)
{
    m_valuesModel = new ValuesModel(this);
    m_valuesView = new QTreeView;
    m_valuesView->setModel(m_valuesModel);
    m_valuesView->setUniformRowHeights(true);
    m_valuesView->setAlternatingRowColors(true);
    m_valuesView->setAllColumnsShowFocus(true);
    m_valuesView->setTextElideMode(Qt::ElideRight);
    m_valuesView->header()->setStretchLastSection(false);
    m_valuesView->header()->setDefaultSectionSize(64);
    m_valuesView->setColumnWidth(ValuesModel::NameColumn, 110);
    m_valuesView->setColumnWidth(ValuesModel::ValueColumn, 190);
    m_valuesView->setColumnWidth(ValuesModel::TypeColumn, 52);
    m_valuesView->setColumnWidth(ValuesModel::ShapeColumn, 80);
    m_valuesView->setColumnWidth(ValuesModel::DTypeColumn, 64);
    m_valuesView->setColumnWidth(ValuesModel::DeviceColumn, 52);
    for (int column :
        { ValuesModel::MinColumn, ValuesModel::MaxColumn, ValuesModel::MeanColumn, ValuesModel::StdColumn })
        m_valuesView->setColumnWidth(column, 76);
    m_valuesView->setColumnWidth(ValuesModel::NanColumn, 40);
    m_valuesView->setColumnWidth(ValuesModel::InfColumn, 40);
    connect(
        m_valuesView->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& current) {
            if (!m_pickingValue && current.isValid() && !current.parent().isValid())
                m_currentValue = current.siblingAtColumn(0).data(ValuesModel::NameRole).toString();
            onValueCurrentChanged(current);
        });
    // Each pause resets the model: keep the value of the same name current and its row expanded, as debuggers do.
    connect(m_valuesModel, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        m_expandedValues.clear();
        for (int row = 0; row < m_valuesModel->rowCount(); ++row) {
            const QModelIndex index = m_valuesModel->index(row, 0);
            if (m_valuesView->isExpanded(index))
                m_expandedValues << index.data(ValuesModel::NameRole).toString();
        }
    });
    connect(m_valuesModel, &QAbstractItemModel::modelReset, this, [this] {
        for (const QString& name : std::as_const(m_expandedValues)) {
            if (const int row = m_valuesModel->rowOfName(name); row >= 0)
                m_valuesView->expand(m_valuesModel->index(row, 0));
        }
        int row = m_valuesModel->rowOfName(m_currentValue);
        // Nothing picked yet: the detail pane shows the first tensor that changed, else the first tensor.
        for (int pass = 0; pass < 2 && row < 0; ++pass) {
            for (int r = 0; r < m_valuesModel->rowCount() && row < 0; ++r) {
                const QModelIndex index = m_valuesModel->index(r, 0);
                if (index.data(ValuesModel::KindRole).toString() == QLatin1String("tensor")
                    && (pass == 1 || index.data(ValuesModel::ChangedRole).toBool()))
                    row = r;
            }
        }
        if (row >= 0) {
            // Not the user's pick: the next pause picks again unless the user picks meanwhile.
            const bool guard = m_pickingValue;
            m_pickingValue = true;
            m_valuesView->setCurrentIndex(m_valuesModel->index(row, 0));
            m_pickingValue = guard;
        } else {
            onValueCurrentChanged(QModelIndex());
        }
    });

    auto* detail = new QWidget;
    auto* detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(6, 4, 6, 4);
    m_heatMapLabel = new QLabel;
    m_heatMapLabel->setAlignment(Qt::AlignCenter);
    m_heatMapLabel->setMinimumSize(120, 90);
    m_heatMapLabel->setWordWrap(true);
    m_valueDetailLabel = new QLabel;
    m_valueDetailLabel->setWordWrap(true);
    m_valueDetailLabel->setTextFormat(Qt::RichText);
    m_valueDetailLabel->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_valueDetailLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    detailLayout->addWidget(m_heatMapLabel, 1);
    detailLayout->addWidget(m_valueDetailLabel);
    auto* splitter = this;
    splitter->addWidget(m_valuesView);
    splitter->addWidget(detail);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 0);
    splitter->setSizes({ 700, 200 });
    onValueCurrentChanged(QModelIndex());
}

void ValuesPanel::onValueCurrentChanged(const QModelIndex& index)
{
    const ValueSummary* v = m_valuesModel->summary(index);
    if (!v || v->kind != QLatin1String("tensor") || v->preview.isEmpty()) {
        m_heatMapLabel->setPixmap(QPixmap());
        m_heatMapLabel->setText(
            QStringLiteral("<span style='color:#6b7280'>%1</span>")
                .arg(v ? tr("No picture for this value") : tr("Select a tensor to see its values")));
        m_valueDetailLabel->setText(v
                ? QStringLiteral("%1 = %2").arg(
                    index.siblingAtColumn(0).data(ValuesModel::NameRole).toString(), v->text.toHtmlEscaped())
                : QString());
        return;
    }
    const QImage image = ValuesModel::heatMap(*v);
    QStringList dims;
    for (qint64 d : v->shape)
        dims << QString::number(d);
    QString text = QStringLiteral("<b>%1</b> %2[%3]<br/>min %4 \u00b7 max %5<br/>mean %6 \u00b7 std %7<br/>sum %8")
                       .arg(index.siblingAtColumn(0).data(ValuesModel::NameRole).toString().toHtmlEscaped(), v->dtype,
                           dims.join(QLatin1Char(',')), ValuesModel::number(v->min), ValuesModel::number(v->max),
                           ValuesModel::number(v->mean), ValuesModel::number(v->std), ValuesModel::number(v->sum));
    if (v->nanCount > 0 || v->infCount > 0)
        text += QStringLiteral("<br/><span style='color:#cf222e'>%1 NaN \u00b7 %2 Inf</span>")
                    .arg(v->nanCount)
                    .arg(v->infCount);
    if (image.isNull()) {
        m_heatMapLabel->setPixmap(QPixmap());
        m_heatMapLabel->setText(QStringLiteral("<span style='color:#6b7280'>%1</span>").arg(tr("1-D: no heat map")));
    } else {
        // Square cells, nearest neighbour: each element stays one readable block.
        const QSize room = m_heatMapLabel->size().boundedTo(QSize(400, 400)).expandedTo(QSize(120, 90));
        const int cell = qMax(1, qMin(room.width() / image.width(), room.height() / image.height()));
        m_heatMapLabel->setPixmap(QPixmap::fromImage(image.scaled(image.size() * cell)));
        QString slice = QStringLiteral("[");
        for (int d = 0; d + 2 < v->shape.size(); ++d)
            slice += QStringLiteral("0, ");
        slice += QStringLiteral(":%1, :%2]").arg(v->sliceRows).arg(v->sliceColumns);
        text += tr("<br/><span style='color:#6b7280'>heat map of %1</span>").arg(slice);
    }
    m_valueDetailLabel->setText(text);
}

// The live trace: Pause::traceSoFar laid out off the GUI thread, the nodes recorded since the last pause marked.

} // namespace jitscope
