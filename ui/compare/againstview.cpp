#include "compare/againstview.h"

#include "docks/statstable.h"
#include "ground/timeformat.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>

namespace linkscope::ui {

namespace {

QTableWidgetItem *durationItem(std::int64_t ns) { return statsNumberItem(formatDuration(ns), double(ns)); }

QTableWidgetItem *gapItem(std::int64_t ns)
{
    const QString sign = ns > 0 ? QStringLiteral("+") : ns == 0 ? QStringLiteral("±") : QString();
    return statsNumberItem(sign + formatDuration(ns), double(ns));
}

QTableWidgetItem *errorItem(const core::predict::AgainstFigure &f)
{
    if (f.measuredNs == 0)
        return statsNumberItem(f.predictedNs ? AgainstView::tr("only predicted") : QStringLiteral("–"), 0.0);
    const double p = f.errorPct();
    return statsNumberItem((p > 0 ? QStringLiteral("+") : QString()) + statsPercentText(p), p);
}

QString pctText(double p) { return (p > 0 ? QStringLiteral("+") : QString()) + statsPercentText(p); }

} // namespace

AgainstView::AgainstView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 2, 0, 0);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    m_warnings = new QLabel(this);
    m_warnings->setWordWrap(true);
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings->hide();
    layout->addWidget(m_warnings);
    m_table = makeStatsTable({tr("Where"), tr("Rank"), tr("Kernel family, stream or step"), tr("Predicted"), tr("Measured in B"),
                              tr("Predicted − measured"), tr("Error %")},
                             this);
    m_table->horizontalHeader()->setSectionResizeMode(Where, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(Rank, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(Name, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::DescendingOrder); // the core's order until a header is clicked
    layout->addWidget(m_table, 1);
    m_status->setText(tr("With a what-if active in the Prediction dock, its predicted step is checked here against B's "
                         "measured step."));
}

QString AgainstView::statusText() const { return m_status->text(); }

QString AgainstView::warningsText() const { return m_warnings->isHidden() ? QString() : m_warnings->text(); }

void AgainstView::showCheck(const AgainstCheck &check)
{
    using State = AgainstCheck::State;
    const auto &result = check.result();
    QString status;
    switch (check.state()) {
    case State::None:
        status = tr("File ▸ Compare with… compares the open run with another; a what-if active in the Prediction dock is "
                    "then checked against it here.");
        break;
    case State::NoWhatIf:
        status = tr("No what-if active: set one in the Prediction dock (a job's What-if tab, or the pair's) and its predicted "
                    "step is checked here against the step B measured, as `linkscope predict A [what-ifs] --against B` "
                    "does.");
        break;
    case State::Reading:
        status = tr("Reading both runs' graphs, as `linkscope predict --against` reads them…");
        break;
    case State::Waiting:
        status = tr("Waiting for the job's prediction (its graph is A's)…");
        break;
    case State::Checking:
        status = tr("Checking the what-if against B…");
        break;
    case State::Failed:
        status = tr("The prediction could not be checked against B: %1").arg(check.error());
        break;
    case State::Done: {
        const core::predict::Against &a = result->against;
        const core::predict::AgainstFigure *worst = nullptr;
        for (const core::predict::AgainstFigure &f : a.ranks)
            if (f.rank == a.worstRank)
                worst = &f;
        status = tr("What-if <b>%1</b>: mean step predicted %2, measured in B %3: error <b>%4</b>; worst rank %5 (%6) · "
                    "%7 rank(s) · checked in %8 ms")
                     .arg(result->whatIf.toHtmlEscaped(), formatDuration(a.meanPredictedNs), formatDuration(a.meanMeasuredNs),
                          pctText(a.meanErrorPct))
                     .arg(a.worstRank)
                     .arg(worst ? pctText(worst->errorPct()) : QString())
                     .arg(a.ranks.size())
                     .arg(QLocale().toString(result->ms, 'f', 1));
        break;
    }
    }
    m_status->setText(status);
    if (check.state() == State::Done) {
        QStringList warnings;
        for (const std::string &w : result->against.warnings)
            warnings << QString::fromStdString(w);
        m_warnings->setText(warnings.isEmpty() ? QString() : QStringLiteral("⚠ ") + warnings.join(QStringLiteral("\n⚠ ")));
        m_warnings->setVisible(!warnings.isEmpty());
        fill(result->against);
    } else if (check.state() == State::None || check.state() == State::NoWhatIf) {
        m_warnings->hide();
        m_table->setRowCount(0);
    }
}

void AgainstView::fill(const core::predict::Against &against)
{
    // The step per rank first, then where they part: kernel families (by |gap|, over the ranks),
    // streams and CPU time per rank, as the command prints them.
    struct Section {
        QString where;
        const std::vector<core::predict::AgainstFigure> *figures;
    };
    const Section sections[] = {{tr("step"), &against.ranks},
                                {tr("kernel family"), &against.families},
                                {tr("stream"), &against.streams},
                                {tr("CPU"), &against.cpu}};
    std::size_t rows = 0;
    for (const Section &s : sections)
        rows += s.figures->size();
    m_table->setSortingEnabled(false);
    m_table->clearContents();
    m_table->setRowCount(static_cast<int>(rows));
    int r = 0;
    int order = 0;
    for (const Section &s : sections)
        for (const core::predict::AgainstFigure &f : *s.figures) {
            QTableWidgetItem *where = statsTextItem(s.where);
            where->setData(kStatsSortRole, double(order++)); // sorted by it: the command's order again
            m_table->setItem(r, Where, where);
            m_table->setItem(r, Rank,
                             f.rank >= 0 ? statsNumberItem(QString::number(f.rank), double(f.rank))
                                         : statsNumberItem(tr("all"), -1.0));
            const QString name = f.name.empty() ? tr("step") : QString::fromStdString(f.name);
            m_table->setItem(r, Name, statsTextItem(name, name));
            m_table->setItem(r, Predicted, durationItem(f.predictedNs));
            m_table->setItem(r, Measured, durationItem(f.measuredNs));
            m_table->setItem(r, Gap, gapItem(f.gapNs()));
            m_table->setItem(r, Error, errorItem(f));
            ++r;
        }
    m_table->setSortingEnabled(true);
}

} // namespace linkscope::ui
