#include "prediction/whatifpanel.h"

#include "prediction/predicttext.h"
#include "prediction/whatifdiffview.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace linkscope::ui {

namespace {

// The factor as the core parsers read it (C locale, every digit).
std::string numberText(double value) { return QString::number(value, 'g', 17).toStdString(); }

// The form's fields that spell a what-if: its target, parameter ("RANK:regex" for one rank's ops)
// and factor (or ms); nullopt when it has more than one term, which the form cannot spell.
struct Fields {
    WhatIfPanel::Target target;
    QString parameter;
    double value = 1;
};

std::optional<Fields> fieldsOf(const core::WhatIf &w)
{
    const std::size_t terms = w.gpu.size() + w.cpu.size() + w.streamFactor.size() + w.rankDelayMs.size() + (w.transferFactor != 1)
                              + (w.bandwidthFactor != 1) + (w.latencyFactor != 1);
    if (terms != 1)
        return std::nullopt;
    // A name scale on one rank is "RANK:regex", as the form's parser reads it.
    const auto named = [](WhatIfPanel::Target target, const core::WhatIf::NameScale &s) {
        const QString rank = s.rank >= 0 ? QStringLiteral("%1:").arg(s.rank) : QString();
        return Fields{target, rank + QString::fromStdString(s.pattern), s.factor};
    };
    if (!w.gpu.empty())
        return named(WhatIfPanel::Target::GpuKernels, w.gpu.front());
    if (!w.cpu.empty())
        return named(WhatIfPanel::Target::CpuOps, w.cpu.front());
    if (!w.streamFactor.empty())
        return Fields{WhatIfPanel::Target::Stream, QString::number(w.streamFactor.begin()->first),
                      w.streamFactor.begin()->second};
    if (!w.rankDelayMs.empty())
        return Fields{WhatIfPanel::Target::RankDelay, QString::number(w.rankDelayMs.begin()->first),
                      w.rankDelayMs.begin()->second};
    if (w.transferFactor != 1)
        return Fields{WhatIfPanel::Target::Communication, QString(), w.transferFactor};
    if (w.bandwidthFactor != 1)
        return Fields{WhatIfPanel::Target::Bandwidth, QString(), w.bandwidthFactor};
    return Fields{WhatIfPanel::Target::Latency, QString(), w.latencyFactor};
}

} // namespace

WhatIfPanel::WhatIfPanel(WhatIfEvaluator *evaluator, QWidget *parent) : QWidget(parent), m_evaluator(evaluator)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(3);
    auto *form = new QFormLayout;
    form->setVerticalSpacing(3);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_target = new QComboBox(this);
    m_target->addItem(tr("GPU kernels matching a regex"), int(Target::GpuKernels));
    m_target->addItem(tr("CPU ops matching a regex"), int(Target::CpuOps));
    m_target->addItem(tr("GPU ops on stream"), int(Target::Stream));
    m_target->addItem(tr("All communication (NCCL) slower ×"), int(Target::Communication));
    m_target->addItem(tr("Network bandwidth ×"), int(Target::Bandwidth));
    m_target->addItem(tr("Network latency ×"), int(Target::Latency));
    m_target->addItem(tr("Rank delayed by (ms per step)"), int(Target::RankDelay));
    m_target->setToolTip(tr("What changes: GPU or CPU ops' durations × the factor, every transfer × slower, the network's "
                            "bandwidth or latency × the factor, or a rank's CPU time + ms at each step's start"));
    // The target and its factor on one row, the regex (stream, rank) under them: the form leaves the
    // room below to the answer and its diff.
    m_target->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_target->setMinimumContentsLength(14);
    m_value = new QDoubleSpinBox(this);
    m_value->setRange(0, 1000);
    m_value->setDecimals(3);
    m_value->setSingleStep(0.25);
    m_value->setValue(2);
    m_value->setKeyboardTracking(false);
    m_valueLabel = new QLabel(tr("Factor"), this);
    auto *targetRow = new QHBoxLayout;
    targetRow->addWidget(m_target, 1);
    targetRow->addWidget(m_valueLabel);
    targetRow->addWidget(m_value);
    form->addRow(tr("What-if"), targetRow);
    m_parameter = new QLineEdit(this);
    m_parameterLabel = new QLabel(this);
    form->addRow(m_parameterLabel, m_parameter);
    layout->addLayout(form);

    // The answer spans the panel's width (fewer lines wrapped): "Add" sits beside the tabs below.
    m_result = new QLabel(this);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_result);

    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_add = new QPushButton(tr("+ Compare"), m_tabs);
    m_add->setToolTip(tr("Add this what-if to the comparison table (the Comparison tab), to compare several side by "
                         "side"));
    m_tabs->setCornerWidget(m_add, Qt::TopRightCorner);
    m_diffView = new WhatIfDiffView(m_tabs);
    m_tabs->addTab(m_diffView, tr("Baseline → what-if"));
    m_tabs->setTabToolTip(0, tr("The current what-if's critical path beside the baseline's: its breakdown, what left "
                                "the path and what joined it"));
    m_tabs->addTab(m_diffView->topTable(), tr("Top ops"));
    m_tabs->setTabToolTip(1, tr("The names that take most of either path, with their time on each"));
    m_table = new QTableWidget(0, 4, m_tabs);
    m_table->setHorizontalHeaderLabels({tr("What-if"), tr("Step"), tr("Change"), QString()});
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->horizontalHeader()->setSectionResizeMode(Description, QHeaderView::Stretch);
    for (int c = Step; c <= Remove; ++c)
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->setMinimumHeight(m_table->fontMetrics().height() * 5);
    m_tabs->addTab(m_table, tr("Comparison"));
    m_tabs->setTabToolTip(2, tr("What-ifs kept with \"+ Compare\", side by side"));
    layout->addWidget(m_tabs, 1);

    connect(m_target, &QComboBox::currentIndexChanged, this, &WhatIfPanel::targetChanged);
    // Answers as it is typed, once the typing pauses (a regex half typed is not replayed at every key);
    // Enter answers at once.
    m_typing = new QTimer(this);
    m_typing->setSingleShot(true);
    m_typing->setInterval(250);
    connect(m_typing, &QTimer::timeout, this, &WhatIfPanel::apply);
    connect(m_parameter, &QLineEdit::textEdited, this, [this](const QString &text) {
        m_texts[int(m_shown)] = text;
        m_result->setStyleSheet(QStringLiteral("color:palette(mid)")); // the answer shown is the old form's
        m_typing->start();
    });
    connect(m_parameter, &QLineEdit::returnPressed, this, &WhatIfPanel::apply);
    connect(m_value, &QDoubleSpinBox::valueChanged, this, &WhatIfPanel::apply);
    connect(m_add, &QPushButton::clicked, this, &WhatIfPanel::addRow);
    targetChanged();
}

QString WhatIfPanel::escapeRegex(const QString &text)
{
    static const QString special = QStringLiteral("\\^$.|?*+()[]{}/");
    QString out;
    out.reserve(text.size() * 2);
    for (const QChar c : text) {
        if (special.contains(c))
            out += QLatin1Char('\\');
        out += c;
    }
    return out;
}

void WhatIfPanel::setSelectedEvent(const TraceDocument *doc, core::EventIndex event)
{
    if (!doc || !event.in(doc->eventCount()))
        return;
    const core::DeviceEvent &e = doc->event(event);
    const QString name = doc->eventName(event);
    const bool collective = core::isGpuOpCategory(e.category)
                            && (name.contains(QLatin1String("nccl"), Qt::CaseInsensitive)
                                || name.contains(QLatin1String("rccl"), Qt::CaseInsensitive));
    if (collective && m_shown == Target::GpuKernels) {
        // A collective's kernel lasts as long as its transfer: scaling the kernel changes nothing.
        setTarget(Target::Communication);
        return;
    }
    if (core::isGpuOpCategory(e.category) && !collective)
        m_texts[int(Target::GpuKernels)] = escapeRegex(name);
    else if (core::isCpuOpCategory(e.category))
        m_texts[int(Target::CpuOps)] = escapeRegex(name);
    if (e.stream != core::kNoId)
        m_texts[int(Target::Stream)] = QString::number(e.stream);
    if (m_shown == Target::GpuKernels || m_shown == Target::CpuOps || m_shown == Target::Stream)
        m_parameter->setText(m_texts[int(m_shown)]);
}

void WhatIfPanel::setTarget(Target target) { m_target->setCurrentIndex(m_target->findData(int(target))); }

WhatIfPanel::Target WhatIfPanel::target() const { return static_cast<Target>(m_target->currentData().toInt()); }

void WhatIfPanel::setParameter(const QString &text)
{
    m_texts[int(m_shown)] = text;
    m_parameter->setText(text);
    apply();
}

QString WhatIfPanel::parameter() const { return m_parameter->text(); }

void WhatIfPanel::setValue(double value) { m_value->setValue(value); } // valueChanged applies it

double WhatIfPanel::value() const { return m_value->value(); }

void WhatIfPanel::targetChanged()
{
    showTargetFields();
    apply();
}

void WhatIfPanel::showTargetFields()
{
    m_shown = target();
    const bool delay = m_shown == Target::RankDelay;
    if (delay && m_texts[int(Target::RankDelay)].isEmpty() && m_evaluator->defaultRank() >= 0)
        m_texts[int(Target::RankDelay)] = QString::number(m_evaluator->defaultRank());
    const bool regex = m_shown == Target::GpuKernels || m_shown == Target::CpuOps;
    const bool hasParameter = regex || m_shown == Target::Stream || delay;
    m_parameter->setVisible(hasParameter);
    m_parameterLabel->setVisible(hasParameter);
    m_parameterLabel->setText(regex ? tr("Regex") : m_shown == Target::Stream ? tr("Stream") : tr("Rank"));
    m_parameter->setPlaceholderText(m_shown == Target::GpuKernels ? tr("searched in each GPU op's name, e.g. gemm|conv")
                                    : m_shown == Target::CpuOps
                                        ? tr("searched in each CPU op's name, e.g. aten::copy_ (.* for all CPU work)")
                                    : m_shown == Target::Stream ? tr("a stream id, e.g. 7")
                                                                : tr("a rank of the job, e.g. 0"));
    m_parameter->setToolTip(regex ? tr("An ECMAScript regex searched in each op's name; prefixed by a rank and a colon "
                                       "(3:aten::mm) it changes that rank's ops only")
                                  : QString());
    m_parameter->setText(m_texts[int(m_shown)]);
    m_value->setSuffix(delay ? tr(" ms") : tr(" ×"));
    m_valueLabel->setText(delay ? tr("Delay") : tr("Factor"));
}

std::optional<core::WhatIf> WhatIfPanel::formWhatIf(QString *error) const
{
    core::WhatIf w;
    const std::string param = m_parameter->text().trimmed().toStdString();
    const std::string value = numberText(m_value->value());
    try {
        switch (target()) {
        case Target::GpuKernels:
            if (param.empty()) {
                if (error)
                    *error = tr("Type a regex, or select a GPU op on the timeline to use its name.");
                return std::nullopt;
            }
            w.gpu.push_back(core::parseGpuScale(param + "=" + value));
            break;
        case Target::CpuOps:
            if (param.empty()) {
                if (error)
                    *error = tr("Type a regex (.* for all CPU work), or select a CPU op on the timeline to use its name.");
                return std::nullopt;
            }
            w.cpu.push_back(core::parseNameScale(param + "=" + value, "--scale-cpu"));
            break;
        case Target::Stream: {
            const auto [stream, factor] = core::parseStreamScale(param + "=" + value);
            w.streamFactor[stream] = factor;
            break;
        }
        case Target::Communication:
            w.transferFactor = core::parseFactor(value, "the factor", core::kMinNetworkFactor);
            break;
        case Target::Bandwidth:
            w.bandwidthFactor = core::parseFactor(value, "the factor", core::kMinNetworkFactor);
            break;
        case Target::Latency:
            w.latencyFactor = core::parseFactor(value, "the factor");
            break;
        case Target::RankDelay: {
            const auto [rank, ms] = core::parseRankDelay(param + "=" + value);
            w.rankDelayMs[rank] = ms;
            break;
        }
        }
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromLocal8Bit(e.what());
        return std::nullopt;
    }
    return w;
}

bool WhatIfPanel::pending() const { return m_typing->isActive(); }

void WhatIfPanel::showWhatIf(const core::WhatIf &whatIf, const QString &title)
{
    m_typing->stop();
    // The form spells the what-if shown (every opportunity is one term it can spell), so that what it
    // says and the answer below it agree; editing it from there is a what-if of one's own.
    if (const std::optional<Fields> fields = fieldsOf(whatIf)) {
        const QSignalBlocker targetBlocker(m_target);
        const QSignalBlocker valueBlocker(m_value);
        m_target->setCurrentIndex(m_target->findData(int(fields->target)));
        m_texts[int(fields->target)] = fields->parameter;
        showTargetFields();
        m_value->setValue(fields->value);
    }
    m_shownWhatIf = whatIf;
    m_shownTitle = title;
    m_current = m_evaluator->evaluate(whatIf);
    m_result->setText(resultText());
    m_result->setToolTip(tr("Replayed on %1").arg(m_evaluator->scopeText()));
    m_result->setStyleSheet(m_current.error.isEmpty() ? QString() : QStringLiteral("color:#c0392b"));
    m_add->setEnabled(m_current.error.isEmpty());
    m_diffView->showOutcome(m_current);
    emit applied(m_current);
}

void WhatIfPanel::apply()
{
    m_typing->stop();
    m_shownWhatIf.reset();
    QString error;
    const std::optional<core::WhatIf> w = formWhatIf(&error);
    if (w) {
        m_current = m_evaluator->evaluate(*w);
    } else {
        m_current = WhatIfOutcome();
        m_current.error = error;
    }
    m_result->setText(resultText());
    m_result->setToolTip(tr("Replayed on %1").arg(m_evaluator->scopeText()));
    // An empty regex gets a hint, not an error.
    const bool hint = !w && (target() == Target::GpuKernels || target() == Target::CpuOps) && parameter().trimmed().isEmpty();
    m_result->setStyleSheet(m_current.error.isEmpty() || hint ? QString() : QStringLiteral("color:#c0392b"));
    m_add->setEnabled(w.has_value() && m_current.error.isEmpty());
    m_diffView->showOutcome(m_current);
    emit applied(m_current);
}

QString WhatIfPanel::resultText() const
{
    const QString title = m_shownWhatIf ? QStringLiteral("<i>%1</i><br>").arg(m_shownTitle.toHtmlEscaped()) : QString();
    if (!m_current.error.isEmpty())
        return title + m_current.error;
    QString text = title
                   + tr("→ <b>%1</b> (%2 vs %3) · replayed in %4 ms")
                         .arg(msText(m_current.stepNs), changePctText(m_current.changePct()), msText(m_current.baselineNs),
                              QLocale().toString(m_current.elapsedMs, 'f', 2));
    if (m_current.matchCounted)
        text += tr("<br>%1 op(s) matched, %2 on the critical path")
                    .arg(QLocale().toString(qulonglong(m_current.matchedNodes)),
                         QLocale().toString(qulonglong(m_current.matchedOnPath)));
    for (const QString &warning : m_current.warnings)
        text += QStringLiteral("<br><span style=\"color:#b9770e\">⚠ %1</span>").arg(warning.toHtmlEscaped());
    return text;
}

bool WhatIfPanel::addRow()
{
    const std::optional<core::WhatIf> w = m_shownWhatIf ? m_shownWhatIf : formWhatIf(nullptr);
    if (!w)
        return false;
    m_rows.push_back(*w);
    m_outcomes.push_back(m_evaluator->evaluate(*w));
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    auto *remove = new QToolButton(m_table);
    remove->setText(QStringLiteral("✕"));
    remove->setAutoRaise(true);
    remove->setToolTip(tr("Remove this what-if"));
    connect(remove, &QToolButton::clicked, this, [this, remove] {
        for (int r = 0; r < m_table->rowCount(); ++r)
            if (m_table->cellWidget(r, Remove) == remove)
                removeRow(r);
    });
    m_table->setCellWidget(row, Remove, remove);
    fillRow(row);
    m_tabs->setTabText(2, tr("Comparison (%1)").arg(m_table->rowCount()));
    return true;
}

void WhatIfPanel::removeRow(int row)
{
    if (row < 0 || row >= m_table->rowCount())
        return;
    m_rows.erase(m_rows.begin() + row);
    m_outcomes.erase(m_outcomes.begin() + row);
    m_table->removeRow(row);
    m_tabs->setTabText(2, m_table->rowCount() ? tr("Comparison (%1)").arg(m_table->rowCount()) : tr("Comparison"));
}

void WhatIfPanel::fillRow(int row)
{
    const WhatIfOutcome &o = m_outcomes[row];
    m_table->setItem(row, Description, readOnlyCell(o.description, false));
    m_table->setItem(row, Step, readOnlyCell(o.error.isEmpty() ? msText(o.stepNs) : o.error, true));
    m_table->setItem(row, Change, readOnlyCell(o.error.isEmpty() ? changePctText(o.changePct()) : QStringLiteral("—"), true));
}

void WhatIfPanel::refresh()
{
    for (std::size_t r = 0; r < m_rows.size(); ++r) {
        m_outcomes[r] = m_evaluator->evaluate(m_rows[r]);
        fillRow(static_cast<int>(r));
    }
    if (m_shownWhatIf)
        showWhatIf(*m_shownWhatIf, m_shownTitle);
    else if (m_shown == Target::RankDelay && m_texts[int(Target::RankDelay)].isEmpty())
        targetChanged(); // the job's rank is known now
    else
        apply();
}

} // namespace linkscope::ui
