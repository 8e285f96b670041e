#include "docks/warningsdock.h"

#include "ground/eventselection.h"
#include "ground/timeformat.h"
#include "timeline/tooltipfit.h"

#include <QEvent>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace linkscope::ui {

WarningsDock::WarningsDock(EventSelection *selection, QWidget *parent)
    : QDockWidget(tr("Warnings"), parent), m_selection(selection)
{
    setObjectName(QStringLiteral("WarningsDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    m_summary = new QLabel(tr("No trace loaded"), body);
    m_list = new QTreeWidget(body);
    m_list->setColumnCount(3);
    m_list->setHeaderLabels({tr("Warning"), tr("Event"), tr("File")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setWordWrap(false);
    m_list->setTextElideMode(Qt::ElideMiddle);
    QHeaderView *header = m_list->header();
    header->setStretchLastSection(false);
    // The message takes what the event and the file leave; those two have a width of their own
    // (their text in full in the tooltip), so a long event name never collapses the message to "…".
    header->setSectionResizeMode(0, QHeaderView::Stretch);
    header->setSectionResizeMode(1, QHeaderView::Interactive);
    header->setSectionResizeMode(2, QHeaderView::Interactive);
    header->setMinimumSectionSize(40);
    header->resizeSection(1, fontMetrics().horizontalAdvance(QLatin1Char('x')) * 18);
    header->resizeSection(2, fontMetrics().horizontalAdvance(QLatin1Char('x')) * 14);
    keepToolTipsOnScreen(m_list->viewport()); // a message in full can be long: kept inside the screen
    layout->addWidget(m_summary);
    layout->addWidget(m_list, 1);
    setWidget(body);
    connect(m_list, &QTreeWidget::itemActivated, this,
            [this](QTreeWidgetItem *item) { activate(m_list->indexOfTopLevelItem(item)); });
    connect(m_list, &QTreeWidget::itemClicked, this,
            [this](QTreeWidgetItem *item) { activate(m_list->indexOfTopLevelItem(item)); });
}

void WarningsDock::changeEvent(QEvent *event)
{
    QDockWidget::changeEvent(event);
    if (event->type() != QEvent::PaletteChange)
        return;
    // The event column is a link: in the link colour of the theme now in use.
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        if (QTreeWidgetItem *item = m_list->topLevelItem(i); !item->text(1).isEmpty())
            item->setForeground(1, palette().brush(QPalette::Link));
}

void WarningsDock::setDocument(DocumentPtr doc)
{
    m_doc = std::move(doc);
    m_warnings.clear();
    m_list->clear();
    if (!m_doc) {
        m_summary->setText(tr("No trace loaded"));
        return;
    }
    if (m_doc->host())
        m_warnings.insert(m_warnings.end(), m_doc->host()->warnings.begin(), m_doc->host()->warnings.end());
    m_warnings.insert(m_warnings.end(), m_doc->device().warnings.begin(), m_doc->device().warnings.end());
    m_warnings.insert(m_warnings.end(), m_doc->links().warnings.begin(), m_doc->links().warnings.end());
    QList<QTreeWidgetItem *> items;
    int withEvent = 0;
    for (std::size_t i = 0; i < m_warnings.size(); ++i) {
        const core::Diagnostic &d = m_warnings[i];
        auto *item = new QTreeWidgetItem;
        item->setText(0, QString::fromStdString(d.message));
        item->setToolTip(0, QString::fromStdString(d.toString()));
        const core::EventIndex event = eventOf(static_cast<int>(i));
        if (event.valid()) {
            ++withEvent;
            item->setText(
                1, tr("%1 at %2").arg(m_doc->eventName(event), formatDuration(m_doc->event(event).ts - m_doc->startTime())));
            item->setToolTip(1, tr("Click to show it on the timeline"));
            QFont link = item->font(1);
            link.setUnderline(true);
            item->setFont(1, link);
            item->setForeground(1, palette().brush(QPalette::Link));
        }
        item->setText(2, QFileInfo(QString::fromStdString(d.file)).fileName());
        item->setToolTip(2, QString::fromStdString(d.file));
        items << item;
    }
    m_list->addTopLevelItems(items);
    m_summary->setText(m_warnings.empty()
                           ? tr("No warnings")
                           : tr("%n warning(s) while loading and linking", nullptr, count())
                                 + (withEvent > 0 ? tr("; %L1 about one event (click to show it)").arg(withEvent) : QString()));
}

core::EventIndex WarningsDock::eventOf(int row) const
{
    if (!m_doc || row < 0 || row >= count())
        return core::kNone;
    const core::EventIndex event = m_warnings[static_cast<std::size_t>(row)].event;
    return event.in(m_doc->eventCount()) ? event : core::EventIndex(core::kNone);
}

void WarningsDock::activate(int row)
{
    const core::EventIndex event = eventOf(row);
    if (event.isNone())
        return;
    if (m_selection)
        m_selection->select(event);
    emit frameRequested(event);
}

} // namespace linkscope::ui
