#include "prediction/predictdock.h"

#include "predict/opportunities.h"

#include "ground/eventstyle.h"
#include "prediction/jobwhatiftabs.h"
#include "prediction/predicttext.h"
#include "prediction/whatifpanel.h"
#include "timeline/timelinepalette.h"

#include <QAction>
#include <QActionGroup>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace linkscope::ui {

namespace {

using core::predict::Breakdown;

QString percentOf(std::int64_t part, std::int64_t total)
{
    return QLocale().toString(total ? 100.0 * double(part) / double(total) : 0.0, 'f', 1) + QStringLiteral(" %");
}

struct Share {
    QString name;
    std::int64_t ns;
    QColor color;
};

std::vector<Share> sharesOf(const Breakdown &b)
{
    return {{QObject::tr("cpu"), b.cpuNs, eventColor(EventStyle::CpuOp)},
            {QObject::tr("gpu"), b.gpuNs, eventColor(EventStyle::Kernel)},
            {QObject::tr("comm"), b.commNs, eventColor(EventStyle::NcclKernel)},
            {QObject::tr("other rank"), b.otherRankNs, eventColor(EventStyle::GpuAnnotation)},
            {QObject::tr("idle"), b.idleNs, QColor(0xa0, 0xa4, 0xaa)}};
}

} // namespace

// The breakdown as one stacked bar, each share in the colour of its kind of op on the timeline.
class BreakdownBar : public QWidget {
public:
    explicit BreakdownBar(QWidget *parent) : QWidget(parent) { setMinimumHeight(14); }
    void setBreakdown(const Breakdown &b)
    {
        m_shares = sharesOf(b);
        m_total = b.total();
        update();
    }
    QSize sizeHint() const override { return {200, 14}; }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter painter(this);
        const QRect box = rect().adjusted(0, 1, -1, -1);
        painter.fillRect(box, palette::current().laneShade);
        if (m_total > 0) {
            double x = box.left();
            for (const Share &s : m_shares) {
                const double w = box.width() * double(s.ns) / double(m_total);
                painter.fillRect(QRectF(x, box.top(), w, box.height()), s.color);
                x += w;
            }
        }
        painter.setPen(palette::current().separator);
        painter.drawRect(box);
    }

private:
    std::vector<Share> m_shares;
    std::int64_t m_total = 0;
};

PredictDock::PredictDock(PredictionController *controller, EventSelection *selection, QWidget *parent)
    : QDockWidget(tr("Prediction"), parent), m_controller(controller), m_selection(selection)
{
    setObjectName(QStringLiteral("PredictDock"));
    auto *body = new QWidget(this);
    m_bodyLayout = new QVBoxLayout(body);
    m_bodyLayout->setContentsMargins(6, 4, 6, 4);
    // The open pair's prediction; with a job open, a tab beside the job's what-if tools.
    m_pairPage = new QWidget(body);
    auto *layout = new QVBoxLayout(m_pairPage);
    layout->setContentsMargins(0, 0, 0, 0);
    m_bodyLayout->addWidget(m_pairPage, 1);
    m_pairScroll = new QScrollArea(this);
    m_pairScroll->setWidgetResizable(true);
    m_pairScroll->setFrameShape(QFrame::NoFrame);
    m_pairScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_pairScroll->hide();

    m_pathAction = new QAction(tr("Critical path"), this);
    m_pathAction->setCheckable(true);
    m_pathAction->setToolTip(tr("Highlight on the timeline the ops on the predicted step's critical path, joined in "
                                "path order; the rest is dimmed"));
    auto *header = new QHBoxLayout;
    m_summary = new QLabel(body);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *pathButton = new QToolButton(body);
    pathButton->setDefaultAction(m_pathAction);
    // Whose path the timeline draws: the baseline's or the current what-if's.
    auto *which = new QActionGroup(this);
    m_baselinePath = new QAction(tr("Baseline"), which);
    m_baselinePath->setToolTip(tr("Draw the critical path of the pair as measured (the baseline)"));
    m_whatIfPath = new QAction(tr("What-if"), which);
    m_whatIfPath->setToolTip(tr("Draw the critical path under the current what-if (the What if tab's), from its replay"));
    for (QAction *a : {m_baselinePath, m_whatIfPath})
        a->setCheckable(true);
    m_baselinePath->setChecked(true);
    auto *pathColumn = new QVBoxLayout;
    pathColumn->setSpacing(0);
    pathColumn->addWidget(pathButton, 0, Qt::AlignRight);
    auto *pathRow = new QHBoxLayout;
    pathRow->setSpacing(0);
    auto *pathLabel = new QLabel(tr("Path:"), body);
    pathLabel->setToolTip(tr("Which critical path the timeline draws"));
    pathRow->addWidget(pathLabel);
    for (QAction *a : {m_baselinePath, m_whatIfPath}) {
        auto *b = new QToolButton(body);
        b->setDefaultAction(a);
        b->setAutoRaise(true);
        pathRow->addWidget(b);
    }
    pathColumn->addLayout(pathRow);
    header->addWidget(m_summary, 1);
    header->addLayout(pathColumn);
    layout->addLayout(header);
    m_correction = new QLabel(body);
    m_correction->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_correction->hide();
    layout->addWidget(m_correction);
    m_chakraStep = new ChakraStepPredictor(this);
    m_chakra = new QLabel(body);
    m_chakra->setWordWrap(true);
    m_chakra->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_chakra->setToolTip(tr("The same traces linked by Chakra 1.0's rule (External id; the GPU ops it drops left out), "
                            "exported and replayed as the links shown are: the step Chakra's graph would predict. "
                            "Compared with the step of the links shown, corrections included"));
    m_chakra->hide();
    layout->addWidget(m_chakra);
    m_bar = new BreakdownBar(body);
    layout->addWidget(m_bar);
    m_breakdown = new QLabel(body);
    m_breakdown->setWordWrap(true);
    m_breakdown->setTextFormat(Qt::RichText);
    layout->addWidget(m_breakdown);

    m_top = new QTableWidget(0, 3, body);
    m_top->setHorizontalHeaderLabels({tr("Top ops on the path"), tr("Time on it"), tr("Share")});
    m_top->verticalHeader()->hide();
    m_top->verticalHeader()->setDefaultSectionSize(m_top->fontMetrics().height() + 6);
    m_top->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 3; ++c)
        m_top->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_top->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_top->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_top->setWordWrap(false);
    m_top->setTextElideMode(Qt::ElideRight); // names start with what tells them apart
    m_top->setMinimumHeight(m_top->verticalHeader()->defaultSectionSize() * 5 + m_top->horizontalHeader()->sizeHint().height());

    // Below the step and its breakdown, the what-if and the top ops in tabs: the step, the breakdown
    // and the what-if read together without scrolling (issue 40, item 5).
    m_pairTabs = new QTabWidget(body);
    m_pairTabs->setDocumentMode(true);
    auto *whatIfPage = new QWidget(m_pairTabs);
    auto *whatIfLayout = new QVBoxLayout(whatIfPage);
    whatIfLayout->setContentsMargins(0, 4, 0, 0);
    m_whatIf = new WhatIfPanel(controller, whatIfPage);
    whatIfLayout->addWidget(m_whatIf);
    m_pairTabs->addTab(whatIfPage, tr("What if"));
    m_pairTabs->addTab(m_top, tr("Top ops on the path"));
    m_pairTabs->setTabToolTip(0, tr("A change replayed on the graph as you type: the step, and the breakdown, top ops and "
                                    "path beside the baseline's"));
    m_pairTabs->setTabToolTip(1, tr("The names that take most of the predicted step's critical path"));
    layout->addWidget(m_pairTabs, 1);
    // Scrolls rather than squeezing the tables when the dock is short.
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(body);
    scroll->setMinimumWidth(body->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width());
    setWidget(scroll);

    connect(m_pathAction, &QAction::toggled, this, [this] { emit pathHighlightChanged(highlightedPath()); });
    connect(which, &QActionGroup::triggered, this,
            [this](QAction *a) { setPathShown(a == m_whatIfPath ? PathShown::WhatIf : PathShown::Baseline); });
    // The what-if's path follows the form as it is replayed.
    connect(m_whatIf, &WhatIfPanel::applied, this, [this](const WhatIfOutcome &w) {
        m_whatIfPath->setToolTip(
            w.pathKnown ? tr("Draw the critical path under the current what-if (%1), from its replay").arg(w.description)
                        : tr("Draw the critical path under the current what-if: none is replayed yet (the baseline's "
                             "is drawn meanwhile)"));
        if (m_pathAction->isChecked() && pathShown() == PathShown::WhatIf)
            emit pathHighlightChanged(highlightedPath());
    });
    connect(controller, &PredictionController::buildStarted, this, &PredictDock::showPrediction);
    connect(controller, &PredictionController::predicted, this, [this] {
        showPrediction();
        m_whatIf->refresh();
        emit pathHighlightChanged(highlightedPath());
        showChakraStep();
    });
    connect(m_chakraStep, &ChakraStepPredictor::changed, this, &PredictDock::showChakraStep);
    if (m_selection)
        connect(m_selection, &EventSelection::changed, this,
                [this](core::EventIndex event) { m_whatIf->setSelectedEvent(m_doc.get(), event); });
    showPrediction();
}

void PredictDock::setDocument(DocumentPtr doc)
{
    m_doc = std::move(doc);
    m_chakraStep->setDocument(m_doc);
    showChakraStep();
}

QString PredictDock::chakraText() const { return m_chakra->isHidden() ? QString() : m_chakra->text(); }

void PredictDock::showChakraStep()
{
    const std::shared_ptr<const ChakraStep> chakra = m_chakraStep->step();
    const PredictionPtr p = m_controller->prediction();
    QString text;
    if (chakra && !chakra->finished)
        text = tr("under Chakra 1.0's links: the replay did not finish (%1)").arg(chakra->stuck);
    else if (chakra && p && p->finished() && chakra->stepNs == p->stepNs())
        text = tr("under Chakra 1.0's links: %1 (the same as the links shown)").arg(msText(chakra->stepNs));
    else if (chakra && p && p->finished() && p->stepNs() > 0) {
        const double pct = 100.0 * double(chakra->stepNs - p->stepNs()) / double(p->stepNs());
        const QString sign = pct > 0   ? QStringLiteral("+")
                             : pct < 0 ? QStringLiteral("−")
                                       : QStringLiteral("±"); // ±: under 0.05 %
        text = tr("under Chakra 1.0's links: %1 (%2%3 % vs the links shown)")
                   .arg(msText(chakra->stepNs), sign, QLocale().toString(std::abs(pct), 'f', 1));
    } else if (chakra)
        text = tr("under Chakra 1.0's links: %1").arg(msText(chakra->stepNs));
    else if (m_chakraStep->building())
        text = tr("under Chakra 1.0's links: replaying…");
    else if (!m_chakraStep->error().isEmpty())
        text = tr("under Chakra 1.0's links: no prediction (%1)").arg(m_chakraStep->error());
    m_chakra->setText(text);
    m_chakra->setVisible(!text.isEmpty());
}

void PredictDock::setPathShown(PathShown shown)
{
    (shown == PathShown::WhatIf ? m_whatIfPath : m_baselinePath)->setChecked(true);
    if (!m_pathAction->isChecked())
        m_pathAction->setChecked(true); // draws it (toggled)
    else
        emit pathHighlightChanged(highlightedPath());
}

void PredictDock::addPathActions(QMenu *menu)
{
    menu->addAction(m_pathAction);
    // Made for this menu: its checks say which path is drawn now; choosing one draws it.
    auto *group = new QActionGroup(menu);
    const auto add = [&](const QString &text, PathShown shown, const char *name) {
        QAction *a = menu->addAction(text, this, [this, shown] { setPathShown(shown); });
        a->setObjectName(QLatin1String(name));
        a->setCheckable(true);
        a->setChecked(m_pathAction->isChecked() && pathShown() == shown);
        group->addAction(a);
    };
    add(tr("Path: the baseline's"), PathShown::Baseline, "pathBaseline");
    add(tr("Path: the what-if's"), PathShown::WhatIf, "pathWhatIf");
}

PredictDock::PathShown PredictDock::pathShown() const
{
    return m_whatIfPath->isChecked() ? PathShown::WhatIf : PathShown::Baseline;
}

std::vector<core::EventIndex> PredictDock::highlightedPath() const
{
    const PredictionPtr p = m_controller->prediction();
    if (!m_pathAction->isChecked() || !p)
        return {};
    const WhatIfOutcome &w = m_whatIf->current();
    if (pathShown() == PathShown::WhatIf && w.pathKnown)
        return m_controller->chainOf(w.path.path);
    return p->pathChain;
}

QString PredictDock::pathShownText() const
{
    if (pathShown() == PathShown::Baseline)
        return tr("the baseline's critical path");
    const WhatIfOutcome &w = m_whatIf->current();
    if (w.pathKnown)
        return tr("the critical path under the what-if: %1").arg(w.description);
    return tr("the baseline's critical path: no what-if replayed yet (%1)")
        .arg(w.error.isEmpty() ? tr("type one in the What if tab") : w.error);
}

QString PredictDock::summaryText() const { return m_summary->text(); }
QString PredictDock::correctionText() const { return m_correction->text(); }
QString PredictDock::breakdownText() const { return m_breakdownPlain; }

void PredictDock::setJobTools(JobWhatIfTabs *tools)
{
    if (!tools || tools == m_jobTools)
        return;
    m_jobTools = tools;
    m_bodyLayout->insertWidget(0, tools, 1);
    tools->setVisible(m_jobOpen);
    if (m_jobOpen)
        setJobOpen(true);
}

void PredictDock::setJobOpen(bool open)
{
    m_jobOpen = open;
    if (open)
        raise(); // the job's what-if, in front of the tabs beside it (Search, Warnings)
    // With a job open its tools fill the dock, the open rank's pair a tab beside them: the step,
    // the breakdown and the what-if with its diff read without scrolling (issue 40).
    if (m_jobTools) {
        // The pair's page scrolls in its tab: its height is not the dock's minimum.
        const int at = m_jobTools->indexOf(m_pairScroll);
        if (open && at < 0) {
            m_pairScroll->setWidget(m_pairPage);
            m_jobTools->addTab(m_pairScroll, QString());
            m_jobTools->setTabToolTip(m_jobTools->indexOf(m_pairScroll),
                                      tr("The rank open on the timeline, its pair replayed alone (its collectives "
                                         "mirrored): its step, breakdown, what-if and top ops"));
        } else if (!open && at >= 0) {
            m_jobTools->removeTab(at);
            m_pairPage = m_pairScroll->takeWidget();
            m_bodyLayout->addWidget(m_pairPage, 1);
            m_pairPage->show();
        }
        m_jobTools->setVisible(open);
    }
    m_pairTabs->setTabText(0, open ? tr("What if (the open rank alone)") : tr("What if"));
    showPrediction();
}

void PredictDock::setPairShown(bool shown)
{
    m_bar->setVisible(shown);
    m_breakdown->setVisible(shown);
    m_pairTabs->setVisible(shown);
}

void PredictDock::showPrediction()
{
    const PredictionPtr p = m_controller->prediction();
    if (m_jobTools && m_jobTools->indexOf(m_pairScroll) >= 0)
        m_jobTools->setTabText(m_jobTools->indexOf(m_pairScroll), p && !p->graph.job.ranks.empty()
                                                                      ? tr("Rank %1 alone").arg(p->graph.job.ranks[0].rank)
                                                                      : tr("A rank alone"));
    m_top->setRowCount(0);
    m_correction->clear();
    m_correction->hide();
    if (!p) {
        m_summary->setText(m_controller->building()                       ? tr("Building the replay graph…")
                           : !m_controller->unavailableReason().isEmpty() ? m_controller->unavailableReason()
                           : m_jobOpen ? tr("No rank open: the job's what-if is above; double-click a rank in the job "
                                            "overview to predict it alone.")
                                       : tr("Open a trace pair to predict its step."));
        m_bar->setBreakdown({});
        m_breakdown->clear();
        m_breakdownPlain.clear();
        // A job open and no rank: the job's what-if above has the room.
        setPairShown(!m_jobOpen);
        return;
    }
    setPairShown(true);
    const core::predict::SimJob &job = p->graph.job;
    QString summary = p->finished() ? tr("Predicted step <b>%1</b>").arg(msText(p->stepNs()))
                                    : tr("<span style='color:#c0392b'>The replay did not finish: %1</span>")
                                          .arg(QString::fromStdString(p->baseline.ranks[0].stuck).toHtmlEscaped());
    if (p->derived())
        summary += tr("<br><small>No host execution trace: built from the Kineto trace's own CPU ops</small>");
    summary += tr("<br><small>%L1 nodes%2 · graph built in %3 ms, replayed in %4 ms%5</small>")
                   .arg(qulonglong(job.ranks[0].nodes.size()))
                   .arg(job.mirrored ? tr(" · rank %1 replayed alone, the job's other %2 ranks mirrored from it (a job "
                                          "folder, opened, replays every rank: the Job dock)")
                                           .arg(job.ranks[0].rank)
                                           .arg(job.npus - 1)
                                     : QString())
                   .arg(QLocale().toString(p->buildMs, 'f', 1), QLocale().toString(p->replayMs, 'f', 1))
                   .arg(m_controller->building() ? tr(" · rebuilding…") : QString());
    m_summary->setText(summary);

    if (const std::int64_t before = m_controller->previousStepNs(); before >= 0) {
        const double pct = before ? 100.0 * double(p->stepNs() - before) / double(before) : 0.0;
        const QString sign = pct > 0 ? QStringLiteral("+") : pct < 0 ? QStringLiteral("−") : QString();
        // What changed the links: a switch of linking policy, or a correction (an undo, a relink).
        const std::optional<core::Policy> from = m_controller->previousPolicy();
        const auto policyText = [](core::Policy policy) {
            const std::string_view name = core::policyName(policy);
            return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
        };
        const QString what = from && p->links ? tr("policy %1 → %2").arg(policyText(*from), policyText(p->links->policy))
                                              : tr("correction");
        m_correction->setText(
            tr("%1: %2 → %3 (%4%5 %)")
                .arg(what, msText(before), msText(p->stepNs()), sign, QLocale().toString(std::abs(pct), 'f', 1)));
        m_correction->setToolTip(tr("The predicted step before the last change of the links (a correction, an undo or a "
                                    "relink) and after it"));
        m_correction->show();
    }

    const Breakdown &b = p->path.breakdown;
    m_bar->setBreakdown(b);
    QStringList parts, plain;
    for (const Share &s : sharesOf(b))
        plain << s.name + QLatin1Char(' ') + percentOf(s.ns, b.total());
    m_breakdownPlain = plain.join(QStringLiteral(" · "));
    for (const Share &s : sharesOf(b))
        parts << QStringLiteral("<span style='white-space:nowrap'><span style='color:%1'>■</span>&nbsp;%2&nbsp;%3</span>")
                     .arg(s.color.name(), QString(s.name).replace(QLatin1Char(' '), QStringLiteral("&nbsp;")),
                          percentOf(s.ns, b.total()).replace(QLatin1Char(' '), QStringLiteral("&nbsp;")));
    m_breakdown->setText(parts.join(QStringLiteral(" · ")));
    m_breakdown->setToolTip(tr("Where the critical path's time goes: the open rank's CPU and GPU work, transfers, "
                               "another rank's work it waited for, and time nothing on the path ran"));

    m_top->setRowCount(static_cast<int>(p->top.size()));
    for (int r = 0; r < static_cast<int>(p->top.size()); ++r) {
        const core::predict::PathShare &s = p->top[r];
        const std::string_view kind = core::predict::nodeKindName(s.kind);
        // The kernel's own name, before its template arguments and parameters: what tells two
        // collectives (AllGather, AllReduce) or two kernels apart; the whole name in the tooltip.
        const std::string family = core::predict::kernelFamily(s.name);
        QTableWidgetItem *name = readOnlyCell(QString::fromStdString(family.empty() ? s.name : family), false);
        name->setToolTip(
            tr("%1\n%2 node, %Ln time(s) on the path", nullptr, static_cast<int>(s.count))
                .arg(QString::fromStdString(s.name), QString::fromUtf8(kind.data(), static_cast<qsizetype>(kind.size()))));
        m_top->setItem(r, 0, name);
        m_top->setItem(
            r, 1, readOnlyCell(s.count > 1 ? tr("%1 (×%L2)").arg(msText(s.ns)).arg(qulonglong(s.count)) : msText(s.ns), true));
        m_top->setItem(r, 2, readOnlyCell(percentOf(s.ns, p->path.stepNs), true));
    }
}

} // namespace linkscope::ui
