#include "prediction/opportunitiesview.h"

#include "prediction/predicttext.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollBar>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace linkscope::ui {

namespace {

struct SweepOutcome {
    std::shared_ptr<const core::predict::Opportunities> result;
    QString error;
};

// A change's title in parts (the item's data): the kind of change and its target are what tell
// two rows apart — a sweep offers many CPU ops of one straggler, "rank 0's CPU op …" each.
enum Role { TitleRole = Qt::UserRole, KindRole, TargetRole, FactorRole, RankRole, KernelRole };

struct TitleParts {
    QString kind, target, factor, rank; // "CPU op", "aten::mm", " ×0.5", " · rank 0"
};

TitleParts partsOf(const core::predict::Opportunity &o)
{
    const QString title = QString::fromStdString(o.title);
    TitleParts parts;
    const qsizetype times = title.lastIndexOf(QStringLiteral(" ×"));
    QString what = times > 0 ? title.left(times) : title;
    parts.factor = times > 0 ? title.mid(times) : QString();
    const QString rankPrefix = QStringLiteral("rank %1's ").arg(o.rank);
    const auto split = [&](const QString &prefix, const QString &kind) {
        if (!what.startsWith(prefix))
            return false;
        parts.kind = kind;
        parts.target = what.mid(prefix.size());
        return true;
    };
    using Kind = core::predict::OpportunityKind;
    if (o.kind == Kind::CpuOp && what.startsWith(rankPrefix)) {
        what = what.mid(rankPrefix.size());
        parts.rank = QObject::tr(" · rank %1").arg(o.rank);
        if (split(QStringLiteral("CPU op "), QObject::tr("CPU op")))
            return parts;
    } else if (o.kind == Kind::KernelFamily && split(QStringLiteral("GPU kernels "), QObject::tr("GPU kernels"))) {
        return parts;
    }
    // Short titles (all CPU, a stream, the network, a rank's CPU): the whole of it is the target.
    parts.kind.clear();
    parts.target = what;
    parts.rank.clear();
    return parts;
}

// The longest form of the title that fits `width` px: whole, then kind + target + factor (+ rank),
// kind + target, then (a kernel family) the same with the target's qualifiers left out
// ("…::own_name"), then the target (its own name) elided in its middle after the kind.
QString fittedTitle(const QTreeWidgetItem &item, int column, const QFontMetrics &metrics, int width)
{
    const QString title = item.data(column, TitleRole).toString();
    const QString kind = item.data(column, KindRole).toString();
    const QString target = item.data(column, TargetRole).toString();
    const QString factor = item.data(column, FactorRole).toString();
    const QString rank = item.data(column, RankRole).toString();
    const auto fits = [&](const QString &text) { return metrics.horizontalAdvance(text) <= width; };
    if (fits(title))
        return title;
    const QString head = kind.isEmpty() ? QString() : kind + QLatin1Char(' ');
    // The factor goes before the target is cut: a sweep's factor is every row's (the tooltip has it).
    for (const QString &text : {head + target + factor + rank, head + target + factor, head + target})
        if (fits(text))
            return text;
    // A kernel family loses its namespaces first: two of at::native's (anonymous namespace) differ
    // in their own names, which an elision in the middle would cut.
    // (A CPU op's name keeps both its ends instead: "evaluate_function: torch::autograd::X" and
    // "torch::autograd::X" are two ops.)
    const qsizetype scope = item.data(column, KernelRole).toBool() ? target.lastIndexOf(QStringLiteral("::")) : -1;
    const QString own = scope > 0 ? QStringLiteral("…") + target.mid(scope) : target;
    if (scope > 0)
        for (const QString &text : {head + own + factor + rank, head + own + factor, head + own})
            if (fits(text))
                return text;
    const int room = width - metrics.horizontalAdvance(head);
    if (room >= metrics.horizontalAdvance(QStringLiteral("ab…yz")))
        return head + metrics.elidedText(own, Qt::ElideMiddle, room);
    return metrics.elidedText(head + target, Qt::ElideRight, width);
}

} // namespace

OpportunitiesView::OpportunitiesView(QWidget *parent) : QWidget(parent), m_job(1)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto *row = new QHBoxLayout;
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_find = new QPushButton(tr("Find what to fix first"), this);
    m_find->setToolTip(tr("Replay the job once per candidate change — each kernel family and stream on a critical path "
                          "×0.5, communication, the network, each straggler's CPU, the longest CPU ops, all CPU — and "
                          "rank them by how much they shorten the job's step"));
    row->addWidget(m_status, 1);
    row->addWidget(m_find);
    layout->addLayout(row);
    m_list = new QTreeWidget(this);
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAlternatingRowColors(true);
    m_list->setColumnCount(ColumnCount);
    m_list->setHeaderLabels({tr("#"), tr("Change"), tr("Job step"), tr("Ops (on path)"), tr("What moved on the path")});
    m_list->headerItem()->setToolTip(GainColumn, tr("The job's predicted step (its slowest rank's) under the change, and "
                                                    "the time it saves"));
    m_list->headerItem()->setToolTip(OpsColumn, tr("Ops the change touches, and of them on a critical path before it"));
    m_list->headerItem()->setToolTip(MovedColumn, tr("What moved on the job's critical path (also in each change's "
                                                     "tooltip)"));
    // The Change column takes the room the step leaves (what moved and the ops are further right, and
    // in each row's tooltip); each title is fitted to it (fittedTitle), not cut at its end. In a dock
    // 400 px wide the ops in view too left the change ~130 px: two of at::native's kernel families
    // read alike.
    m_list->header()->moveSection(OpsColumn, MovedColumn);
    m_list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(ChangeColumn, QHeaderView::Interactive);
    m_list->header()->setStretchLastSection(true);
    m_list->setTextElideMode(Qt::ElideRight);
    layout->addWidget(m_list, 1);
    connect(m_list->header(), &QHeaderView::sectionResized, this, [this](int column) {
        if (column == ChangeColumn)
            fitChangeTexts();
    });
    connect(m_find, &QPushButton::clicked, this, &OpportunitiesView::find);
    connect(m_list, &QTreeWidget::itemActivated, this,
            [this](QTreeWidgetItem *item) { choose(m_list->indexOfTopLevelItem(item)); });
    connect(m_list, &QTreeWidget::itemClicked, this,
            [this](QTreeWidgetItem *item) { choose(m_list->indexOfTopLevelItem(item)); });
    setGraph(nullptr);
}

void OpportunitiesView::setGraph(std::shared_ptr<const core::predict::SimJob> job)
{
    if (job == m_graph)
        return;
    m_job.cancel();
    m_graph = std::move(job);
    m_result.reset();
    m_list->clear();
    m_find->setEnabled(m_graph != nullptr);
    m_status->setText(m_graph ? tr("Which change would shorten the step most?") : tr("No prediction yet."));
}

void OpportunitiesView::find()
{
    if (!m_graph)
        return;
    m_find->setEnabled(false);
    m_status->setText(tr("Replaying each candidate change…"));
    const std::shared_ptr<const core::predict::SimJob> graph = m_graph;
    m_job.run(
        [graph](const JobToken &) {
            SweepOutcome out;
            try {
                core::predict::OpportunityOptions options;
                options.threads = 1; // a core left for the GUI
                out.result = std::make_shared<const core::predict::Opportunities>(
                    core::predict::findOpportunities(*graph, options));
            } catch (const std::exception &e) {
                out.error = QString::fromLocal8Bit(e.what());
            }
            return out;
        },
        [this](SweepOutcome out) { show(std::move(out.result), out.error); });
}

QString OpportunitiesView::statusText() const { return m_status->text(); }

void OpportunitiesView::show(std::shared_ptr<const core::predict::Opportunities> result, const QString &error)
{
    m_find->setEnabled(m_graph != nullptr);
    m_result = std::move(result);
    m_list->clear();
    if (!m_result) {
        m_status->setText(tr("No opportunities: %1").arg(error));
        return;
    }
    const core::predict::Opportunities &o = *m_result;
    m_status->setText(
        tr("%n change(s) replayed in %1 s on the job's step of %2 (rank %3 ends last). Click one to see it as a what-if.",
           nullptr, int(o.ranked.size()))
            .arg(QLocale().toString(o.sweepMs / 1000.0, 'f', 2), msText(o.baselineMakespanNs))
            .arg(o.criticalRank));
    QStringList notOffered;
    for (const core::predict::NotOffered &n : o.notOffered)
        notOffered << QString::fromStdString(n.candidate + ": " + n.why);
    m_status->setToolTip(notOffered.isEmpty() ? QString() : tr("Not offered:\n%1").arg(notOffered.join(QLatin1Char('\n'))));
    int n = 0;
    for (const core::predict::Opportunity &c : o.ranked) {
        auto *item = new QTreeWidgetItem(m_list);
        item->setText(OrderColumn, QString::number(++n));
        const TitleParts parts = partsOf(c);
        item->setData(ChangeColumn, TitleRole, QString::fromStdString(c.title));
        item->setData(ChangeColumn, KindRole, parts.kind);
        item->setData(ChangeColumn, TargetRole, parts.target);
        item->setData(ChangeColumn, FactorRole, parts.factor);
        item->setData(ChangeColumn, RankRole, parts.rank);
        item->setData(ChangeColumn, KernelRole, c.kind == core::predict::OpportunityKind::KernelFamily);
        item->setText(ChangeColumn, QString::fromStdString(c.title));
        item->setToolTip(
            ChangeColumn,
            QString::fromStdString(c.title) + QLatin1Char('\n')
                + tr("Ops it touches: %L1, %L2 of them on a critical path").arg(qulonglong(c.nodes)).arg(qulonglong(c.onPath))
                + QLatin1Char('\n') + tr("What moved on the path: %1").arg(QString::fromStdString(c.moved())) + QLatin1Char('\n')
                + tr("linkscope predict %1").arg(QString::fromStdString([&] {
                      std::string args;
                      for (const std::string &a : c.args)
                          args += (args.empty() ? "" : " ") + a;
                      return args;
                  }())));
        item->setText(GainColumn,
                      c.finished ? tr("%1 (%2)").arg(msText(c.makespanNs), changePctText(-c.gainPct())) : tr("did not finish"));
        item->setText(OpsColumn,
                      tr("%1 (%2)").arg(QLocale().toString(qulonglong(c.nodes)), QLocale().toString(qulonglong(c.onPath))));
        item->setText(MovedColumn, QString::fromStdString(c.moved()));
        item->setToolTip(MovedColumn, item->text(MovedColumn));
        for (int col : {OrderColumn, GainColumn, OpsColumn})
            item->setTextAlignment(col, Qt::AlignRight | Qt::AlignVCenter);
    }
    fitColumns();
}

void OpportunitiesView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitColumns();
}

void OpportunitiesView::fitColumns()
{
    QHeaderView *header = m_list->header();
    for (int c : {OrderColumn, GainColumn, OpsColumn})
        m_list->resizeColumnToContents(c);
    const int others = header->sectionSize(OrderColumn) + header->sectionSize(GainColumn);
    const int least = m_list->fontMetrics().averageCharWidth() * 10;
    // The vertical scroll bar a long list is about to get is not in the viewport's width yet.
    const int rows = m_list->topLevelItemCount();
    const bool scrolls = rows > 0 && rows * m_list->sizeHintForRow(0) > m_list->viewport()->height();
    const int bar = scrolls && !m_list->verticalScrollBar()->isVisible() ? m_list->verticalScrollBar()->sizeHint().width() : 0;
    const int width = std::max(least, m_list->viewport()->width() - bar - others);
    if (header->sectionSize(ChangeColumn) != width)
        header->resizeSection(ChangeColumn, width); // fits the texts (sectionResized)
    else
        fitChangeTexts();
}

void OpportunitiesView::fitChangeTexts()
{
    // The item view's margins either side of a cell's text.
    const int margin = 2 * (m_list->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_list) + 1) + 2;
    const int width = m_list->header()->sectionSize(ChangeColumn) - margin;
    for (int r = 0; r < m_list->topLevelItemCount(); ++r) {
        QTreeWidgetItem *item = m_list->topLevelItem(r);
        item->setText(ChangeColumn, fittedTitle(*item, ChangeColumn, m_list->fontMetrics(), width));
    }
}

QString OpportunitiesView::changeText(int row) const
{
    const QTreeWidgetItem *item = m_list->topLevelItem(row);
    return item ? item->text(ChangeColumn) : QString();
}

void OpportunitiesView::choose(int row)
{
    if (!m_result || row < 0 || std::size_t(row) >= m_result->ranked.size())
        return;
    const core::predict::Opportunity &c = m_result->ranked[std::size_t(row)];
    m_list->setCurrentItem(m_list->topLevelItem(row));
    emit chosen(c.whatIf, QString::fromStdString(c.title));
}

bool OpportunitiesView::waitUntilFound(int timeoutMs)
{
    return processEventsWhile([this] { return m_job.busy(); }, timeoutMs);
}

} // namespace linkscope::ui
