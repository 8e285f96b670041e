#include "review/storypanel.h"

#include "ground/fromstd.h"

#include "edit/linkchange.h"
#include "link/chakraupdate.h"

#include <QLabel>
#include <QResizeEvent>
#include <QTextDocument>
#include <QVBoxLayout>

#include <algorithm>

namespace linkscope::ui {

namespace {

QString anchor(const QString &href, const QString &text, std::size_t count)
{
    return count == 0 ? text.toHtmlEscaped() : QStringLiteral("<a href=\"%1\">%2</a>").arg(href, text.toHtmlEscaped());
}

// Defined below; used by dropReasonText.
QString counted(std::size_t n, const QString &one, const QString &many);

// "1 memset", "5 launched by an API Chakra does not know", ...
QString dropReasonText(core::ChakraDropReason reason, std::size_t n)
{
    switch (reason) {
    case core::ChakraDropReason::Memset:
        return counted(n, StoryPanel::tr("%L1 memset"), StoryPanel::tr("%L1 memsets"));
    case core::ChakraDropReason::NoLaunchEvent:
        return StoryPanel::tr("%L1 without a launch by correlation").arg(n);
    case core::ChakraDropReason::UnknownLaunchApi:
        return StoryPanel::tr("%L1 launched by an API Chakra does not know").arg(n);
    case core::ChakraDropReason::NoEnclosingOp:
        return StoryPanel::tr("%L1 with no CPU op before the launch").arg(n);
    case core::ChakraDropReason::NoHostNode:
        return StoryPanel::tr("%L1 whose parent has no ET node").arg(n);
    }
    return {};
}

// "1 GPU op", "3 GPU ops" (no translation files, so no %Ln plural forms).
QString counted(std::size_t n, const QString &one, const QString &many) { return (n == 1 ? one : many).arg(n); }

} // namespace

StoryPanel::StoryPanel(QWidget *parent) : QFrame(parent), m_label(new QLabel(this))
{
    setObjectName(QStringLiteral("StoryPanel"));
    setFrameShape(QFrame::StyledPanel);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    m_label->setWordWrap(true);
    // Never squeezed below its text: the findings table below gives up the room instead.
    m_label->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    m_label->setTextFormat(Qt::RichText);
    m_label->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    m_label->setToolTip(tr("What Chakra's linker would do with this pair, against the links shown (corrections "
                           "included). Click a count to list those GPU ops."));
    layout->addWidget(m_label);
    connect(m_label, &QLabel::linkActivated, this, &StoryPanel::activate);
    hide();
}

int StoryPanel::wrapWidth() const
{
    // Its own width once laid out; before that its parent's (the dock's body), which it spans.
    if (width() >= 200)
        return width();
    const QWidget *parent = parentWidget();
    return parent && parent->width() >= 200 ? parent->width() : 0;
}

QSize StoryPanel::withTextHeight(QSize hint) const
{
    if (const int w = wrapWidth(); w > 0 && hasHeightForWidth())
        hint.setHeight(heightForWidth(w));
    return hint;
}

QSize StoryPanel::sizeHint() const { return withTextHeight(QFrame::sizeHint()); }

QSize StoryPanel::minimumSizeHint() const { return withTextHeight(QFrame::minimumSizeHint()); }

void StoryPanel::resizeEvent(QResizeEvent *event)
{
    QFrame::resizeEvent(event);
    if (event->oldSize().width() != event->size().width())
        updateGeometry(); // the height its text needs has changed
}

void StoryPanel::setDocument(DocumentPtr doc)
{
    // The notices depend on the traces, the host join and Chakra's links, none of which an edit
    // changes: derived once per load (or relink). The comparison follows every edit.
    const bool sameLoad = m_doc && doc && &m_doc->device() == &doc->device() && m_doc->chakraLinks() == doc->chakraLinks()
                          && m_doc->links().index == doc->links().index;
    const DocumentPtr before = std::move(m_doc);
    m_doc = std::move(doc);
    std::optional<core::ChakraComparison> previous = std::move(m_comparison);
    m_comparison.reset();
    if (m_doc && m_doc->chakraLinks()) {
        // A correction: only the GPU links in the chunks it copied can have another parent, so
        // the comparison is updated for those (link/chakraupdate.h) instead of made again.
        if (sameLoad && previous && before->chakraLinks() == m_doc->chakraLinks())
            m_comparison = updatedComparison(*before, *previous);
        if (!m_comparison)
            m_comparison = core::compareWithChakra(m_doc->device(), *m_doc->chakraLinks(), m_doc->links());
    }
    if (!sameLoad)
        m_notices = m_doc ? core::policyNotices(m_doc->device(), m_doc->host(), m_doc->links(), comparison())
                          : std::vector<core::Notice>();
    rebuild();
}

std::optional<core::ChakraComparison> StoryPanel::updatedComparison(const TraceDocument &before,
                                                                    const core::ChakraComparison &previous) const
{
    const core::LinkSet &was = before.links();
    const core::LinkSet &now = m_doc->links();
    if (was.gpuLinks.size() != now.gpuLinks.size())
        return std::nullopt;
    // What the edit changed, as the document carries it (null when it was not made from `before`).
    const core::LinkSetChange *change = m_doc->changeSince(before);
    if (!change || !change->sameOps)
        return std::nullopt;
    const std::vector<core::GpuLinkIndex> changed = core::reparentedLinks(was, now, *change);
    // A relink (another policy over the same index) changes parents everywhere: compare in full.
    if (changed.size() > std::max<std::size_t>(4096, now.gpuLinks.size() / 64))
        return std::nullopt;
    const core::ChakraLinks &chakra = *m_doc->chakraLinks();
    core::ChakraComparison out;
    std::optional<core::RuleComparison> head = core::updateComparison(m_doc->device(), previous.chakra10, was, now,
                                                                      *chakra.chakra10, changed);
    std::optional<core::RuleComparison> pre =
        head ? core::updateComparison(m_doc->device(), previous.pre185, was, now, *chakra.pre185, changed) : std::nullopt;
    if (!head || !pre)
        return std::nullopt;
    out.chakra10 = std::move(*head);
    out.pre185 = std::move(*pre);
    return out;
}

QString StoryPanel::ruleLine(const QString &key, const QString &title, const core::RuleComparison &c) const
{
    QString line = QStringLiteral("<b>%1</b> (%2): ").arg(title.toHtmlEscaped(), fromStd(core::policyName(c.policy)));
    line += anchor(key + QStringLiteral(":parent"),
                   counted(c.differentParent.size(), tr("%L1 GPU op on another parent"), tr("%L1 GPU ops on another parent")),
                   c.differentParent.size());
    if (!c.collectiveOnRecordParamComms.empty())
        line += QStringLiteral(" (")
                + anchor(key + QStringLiteral(":collective"),
                         counted(c.collectiveOnRecordParamComms.size(), tr("%L1 NCCL/RCCL kernel on record_param_comms"),
                                 tr("%L1 NCCL/RCCL kernels on record_param_comms")),
                         c.collectiveOnRecordParamComms.size())
                + QStringLiteral(")");
    line += QStringLiteral(" · ")
            + anchor(key + QStringLiteral(":dropped"), tr("%L1 dropped").arg(c.dropped.size()), c.dropped.size());
    QStringList reasons;
    for (int r = 0; r < core::kChakraDropReasonCount; ++r)
        if (const std::size_t n = c.droppedBy[static_cast<std::size_t>(r)])
            reasons << dropReasonText(static_cast<core::ChakraDropReason>(r), n);
    if (!reasons.isEmpty())
        line += QStringLiteral(" (") + reasons.join(QStringLiteral(", ")).toHtmlEscaped() + QStringLiteral(")");
    line += QStringLiteral(" · ")
            + anchor(
                key + QStringLiteral(":sync"),
                tr("%L1 of %L2 lost").arg(c.syncEdgesLost).arg(counted(c.syncEdges, tr("%L1 sync edge"), tr("%L1 sync edges"))),
                c.syncEdgesLost);
    return line;
}

void StoryPanel::rebuild()
{
    QStringList lines;
    if (m_comparison) {
        lines << tr("<b>Compared with Chakra</b>, against the links shown:");
        lines << ruleLine(QStringLiteral("chakra10"), tr("Chakra 1.0"), m_comparison->chakra10);
        lines << ruleLine(QStringLiteral("pre185"), tr("before Chakra PR #185"), m_comparison->pre185);
    }
    for (std::size_t i = 0; i < m_notices.size(); ++i) {
        const core::Notice &n = m_notices[i];
        QString line = QStringLiteral("⚠ ") + QString::fromStdString(n.message).toHtmlEscaped();
        if (!n.events.empty())
            line += QStringLiteral(" ") + anchor(QStringLiteral("notice:%1").arg(i), tr("[show %L1]").arg(n.events.size()), 1);
        lines << line;
    }
    m_label->setText(lines.join(QStringLiteral("<br>")));
    updateGeometry();
    setVisible(!lines.isEmpty());
}

QString StoryPanel::plainText() const
{
    QTextDocument text;
    text.setHtml(m_label->text());
    return text.toPlainText();
}

void StoryPanel::activate(const QString &link)
{
    if (link.startsWith(QStringLiteral("notice:"))) {
        bool ok = false;
        const int i = link.mid(7).toInt(&ok);
        if (ok && i >= 0 && static_cast<std::size_t>(i) < m_notices.size()) {
            const core::Notice &n = m_notices[static_cast<std::size_t>(i)];
            emit showEventsRequested(fromStd(core::noticeKindName(n.kind)), n.events);
        }
        return;
    }
    if (!m_comparison)
        return;
    const QStringList parts = link.split(QLatin1Char(':'));
    if (parts.size() != 2)
        return;
    const bool head = parts[0] == QStringLiteral("chakra10");
    if (!head && parts[0] != QStringLiteral("pre185"))
        return;
    const core::RuleComparison &c = head ? m_comparison->chakra10 : m_comparison->pre185;
    const QString rule = head ? tr("Chakra 1.0") : tr("before Chakra PR #185");
    if (parts[1] == QStringLiteral("parent"))
        emit showEventsRequested(tr("%1: another parent").arg(rule), c.differentParent);
    else if (parts[1] == QStringLiteral("collective"))
        emit showEventsRequested(tr("%1: NCCL/RCCL kernels on record_param_comms").arg(rule), c.collectiveOnRecordParamComms);
    else if (parts[1] == QStringLiteral("dropped"))
        emit showEventsRequested(tr("%1: dropped").arg(rule), c.dropped);
    else if (parts[1] == QStringLiteral("sync"))
        emit showEventsRequested(tr("%1: sync edges lost").arg(rule), c.syncLostGpuOps);
}

} // namespace linkscope::ui
