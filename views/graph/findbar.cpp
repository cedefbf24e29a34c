#include "findbar.h"

#include "graphscene.h"
#include "graphview.h"

#include <QGuiApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSet>
#include <QToolButton>

namespace jitscope {

FindBar::FindBar(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 3, 6, 3);
    layout->setSpacing(4);
    m_edit = new QLineEdit;
    m_edit->setPlaceholderText(tr("Find node: kind, value name or line"));
    m_edit->setClearButtonEnabled(true);
    m_edit->setMaximumWidth(360);
    m_count = new QLabel;
    m_count->setMinimumWidth(80);
    auto button = [this](const QString& text, const QString& toolTip, void (FindBar::*slot)()) {
        auto* b = new QToolButton;
        b->setText(text);
        b->setToolTip(toolTip);
        b->setAutoRaise(true);
        connect(b, &QToolButton::clicked, this, slot);
        return b;
    };
    layout->addWidget(new QLabel(tr("Find:")));
    layout->addWidget(m_edit, 1);
    layout->addWidget(button(QStringLiteral("\u25b2"), tr("Previous hit (Shift+F3)"), &FindBar::findPrevious));
    layout->addWidget(button(QStringLiteral("\u25bc"), tr("Next hit (F3)"), &FindBar::findNext));
    layout->addWidget(m_count);
    layout->addStretch();
    auto* close = new QToolButton;
    close->setText(QStringLiteral("\u2715"));
    close->setToolTip(tr("Close (Esc)"));
    close->setAutoRaise(true);
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    layout->addWidget(close);
    connect(m_edit, &QLineEdit::textChanged, this, &FindBar::refresh);
    connect(m_edit, &QLineEdit::returnPressed, this, [this] {
        if (QGuiApplication::keyboardModifiers() & Qt::ShiftModifier)
            findPrevious();
        else
            findNext();
    });
    updateCount();
}

QList<int> FindBar::findNodes(const GraphScene* scene, const QString& query)
{
    QList<int> hits;
    const QString q = query.trimmed();
    if (!scene || q.isEmpty() || !scene->hasGraph())
        return hits;
    static const QRegularExpression lineQuery(
        QStringLiteral("^(?:line\\s*)?(\\d+)$"), QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch lineMatch = lineQuery.match(q);
    const int line = lineMatch.hasMatch() ? lineMatch.captured(1).toInt() : -1;
    const bool valueOnly = q.startsWith(QLatin1Char('%'));
    const QString name = valueOnly ? q.mid(1) : q;
    const IrGraph& graph = scene->graph();
    QSet<int> seen;
    for (const IrNode& node : graph.nodes) {
        bool match = false;
        if (line >= 0) {
            match = node.location.line == line;
        } else {
            if (!valueOnly)
                match = node.kind.contains(q, Qt::CaseInsensitive);
            for (int i = 0; !match && i < node.outputs.size(); ++i) {
                const int v = node.outputs.at(i);
                if (v >= 0 && v < graph.values.size())
                    match = valueOnly ? graph.value(v).name.startsWith(name, Qt::CaseInsensitive)
                                      : graph.value(v).name.contains(name, Qt::CaseInsensitive);
            }
        }
        if (!match)
            continue;
        const int shown = scene->displayedNode(node.id);
        if (shown >= 0 && !seen.contains(shown)) {
            seen.insert(shown);
            hits.append(shown);
        }
    }
    return hits;
}

void FindBar::setTarget(GraphScene* scene, GraphView* view)
{
    if (scene == m_scene && view == m_view)
        return;
    disconnect(m_sceneConnection);
    m_scene = scene;
    m_view = view;
    if (scene)
        m_sceneConnection = connect(scene, &GraphScene::contentsReplaced, this, &FindBar::refresh);
    refresh();
}

void FindBar::setQuery(const QString& query)
{
    if (m_edit->text() == query)
        refresh();
    else
        m_edit->setText(query);
}

QString FindBar::query() const
{
    return m_edit->text();
}

void FindBar::activate()
{
    show();
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
}

void FindBar::refresh()
{
    m_hits = findNodes(m_scene, m_edit->text());
    m_current = -1;
    updateCount();
    Q_EMIT hitsChanged();
}

void FindBar::findNext()
{
    if (!m_hits.isEmpty())
        goTo((m_current + 1) % m_hits.size());
}

void FindBar::findPrevious()
{
    if (!m_hits.isEmpty())
        goTo(m_current <= 0 ? m_hits.size() - 1 : m_current - 1);
}

void FindBar::goTo(int index)
{
    m_current = index;
    const int nodeId = m_hits.at(index);
    if (m_scene)
        m_scene->selectNode(nodeId);
    if (m_view)
        m_view->centerOnNode(nodeId);
    updateCount();
}

QString FindBar::countText() const
{
    return m_count->text();
}

void FindBar::updateCount()
{
    if (m_edit->text().trimmed().isEmpty())
        m_count->setText(QString());
    else if (m_hits.isEmpty())
        m_count->setText(tr("No hits"));
    else if (m_current < 0)
        m_count->setText(m_hits.size() == 1 ? tr("1 hit") : tr("%1 hits").arg(m_hits.size()));
    else
        m_count->setText(tr("%1 of %2").arg(m_current + 1).arg(m_hits.size()));
}

void FindBar::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape) {
        hide();
        event->accept();
        return;
    }
    QWidget::keyPressEvent(event);
}

} // namespace jitscope
