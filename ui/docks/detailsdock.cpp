#include "docks/detailsdock.h"

#include "ground/fromstd.h"
#include "ground/timeformat.h"
#include "timeline/timelineedges.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QTextBrowser>
#include <QUrl>

#include <algorithm>

namespace linkscope::ui {

namespace {

constexpr int kListCap = 50;

QString eventLink(const TraceDocument &doc, core::EventIndex e)
{
    if (!e.in(doc.eventCount()))
        return QStringLiteral("—");
    const QString color = eventColor(doc.style(e)).name();
    return QStringLiteral("<span style='color:%1'>■</span> <a href='event:%2'>%3</a> <small>%4 · %5</small>")
        .arg(color)
        .arg(e.value)
        .arg(doc.eventName(e).toHtmlEscaped(), eventStyleName(doc.style(e)), formatDuration(doc.event(e).dur));
}

QString row(const QString &key, const QString &value)
{
    return QStringLiteral("<tr><td style='color:#555;padding-right:10px'>%1</td><td>%2</td></tr>").arg(key, value);
}

QString idOrDash(std::int64_t v) { return v == core::kNoId ? QStringLiteral("—") : QString::number(v); }

// What the user said about the event (flag, note, accepted): why they come back to it.
QString reviewHtml(core::EventIndex e, const EventNotes *notes)
{
    QString html;
    if (notes && (notes->isFlagged(e) || notes->hasNote(e) || notes->isAccepted(e))) {
        html += QStringLiteral("<h4>%1</h4><table cellspacing='0'>").arg(QObject::tr("Your review"));
        if (auto it = notes->flags.find(e); it != notes->flags.end())
            html += row(
                QStringLiteral("<span style='color:#c00'>⚑</span> ") + QObject::tr("Flagged"),
                QObject::tr("the link is wrong")
                    + (it->second.isEmpty() ? QString() : QStringLiteral(" — <i>%1</i>").arg(it->second.toHtmlEscaped())));
        if (auto it = notes->notes.find(e); it != notes->notes.end())
            html += row(QStringLiteral("<span style='color:#b08000'>✎</span> ") + QObject::tr("Note"),
                        QStringLiteral("<i>%1</i>").arg(it->second.toHtmlEscaped()));
        if (notes->isAccepted(e))
            html += row(QStringLiteral("<span style='color:#1a9e3a'>✓</span> ") + QObject::tr("Accepted"),
                        QObject::tr("the link is right"));
        html += QStringLiteral("</table>");
    }
    return html;
}

// The event's own fields: kind, thread, lane, times and ids.
QString fieldsHtml(const TraceDocument &doc, core::EventIndex e)
{
    const core::DeviceTrace &trace = doc.device();
    const core::DeviceEvent &event = doc.device().event(e);
    const core::TraceIndex &index = doc.index();
    const core::LinkSet &links = doc.links();
    QString html;
    html += QStringLiteral("<table cellspacing='0'>");
    html += row(QObject::tr("Kind"), QStringLiteral("<span style='color:%1'>■</span> %2 <small>(cat %3)</small>")
                                         .arg(eventColor(doc.style(e)).name(), eventStyleName(doc.style(e)),
                                              fromStd(trace.strings.at(event.categoryText)).toHtmlEscaped()));
    html += row(QObject::tr("Process / thread"),
                QStringLiteral("%1 / %2").arg(QString::fromStdString(trace.idText(trace.threadKey(event).pid)),
                                              QString::fromStdString(trace.idText(trace.threadKey(event).tid))));
    const core::LaneIndex lane = e.in(index.laneOf.size()) ? index.laneOf[e.get()] : core::LaneIndex(core::kNone);
    if (lane.valid())
        html += row(QObject::tr("Lane"), QStringLiteral("%1 · depth %2")
                                             .arg(QString::fromStdString(index.lane(lane).label).toHtmlEscaped())
                                             .arg(index.depth[e.get()]));
    html += row(QObject::tr("Start"),
                QStringLiteral("+%1 <small>(ts %2 ns)</small>").arg(formatDuration(event.ts - doc.startTime())).arg(event.ts));
    html += row(QObject::tr("Duration"), formatDuration(event.dur));
    if (e.in(links.exclusiveDur.size()) && isCpuOpCategory(event.category))
        html += row(QObject::tr("Exclusive"), formatDuration(links.exclusiveDur[e]));
    html += row(QObject::tr("External id"), idOrDash(event.externalId));
    html += row(QObject::tr("Correlation"), idOrDash(event.correlation));
    html += row(QObject::tr("Ev Idx"), idOrDash(event.evIdx));
    html += row(QObject::tr("rf_id"), event.rfId ? QString::number(event.rfId) : QStringLiteral("—"));
    if (event.device >= 0)
        html += row(QObject::tr("Device / stream"), QStringLiteral("%1 / %2").arg(event.device).arg(idOrDash(event.stream)));
    if (event.hasGraphId())
        html += row(QObject::tr("Graph id"), QString::number(trace.graphIdOf(e)));
    html += QStringLiteral("</table>");
    return html;
}

// The host ET node the event was joined to.
QString hostNodeHtml(const TraceDocument &doc, core::EventIndex e)
{
    const core::LinkSet &links = doc.links();
    QString html;
    if (doc.host() && e.in(links.hostOfEvent.size()) && links.hostOfEvent[e].valid()) {
        const core::HostTrace &host = *doc.host();
        const core::HostNode &node = host.node(links.hostOfEvent[e]);
        html += QStringLiteral("<h4>Host ET node</h4><table cellspacing='0'>");
        html += row(QObject::tr("Node id"), QString::number(node.id));
        html += row(QObject::tr("Name"), fromStd(host.name(node)).toHtmlEscaped());
        html += row(QObject::tr("rf_id"), QString::number(node.rfId));
        html += row(QObject::tr("ET parent id"), QString::number(node.parentId));
        if (node.opSchema)
            html += row(QObject::tr("Schema"), fromStd(host.strings.at(node.opSchema)).toHtmlEscaped());
        html += row(QObject::tr("Joined by"), fromStd(hostJoinMethodName(links.join.method)));
        html += QStringLiteral("</table>");
    }
    return html;
}

// A GPU op's link: its launch, its parent and rule, and what each policy chooses.
QString linkHtml(const TraceDocument &doc, core::EventIndex e)
{
    const core::LinkSet &links = doc.links();
    QString html;
    if (const core::GpuLink *link = doc.gpuLink(e)) {
        html += QStringLiteral("<h4>Link</h4><table cellspacing='0'>");
        html += row(QObject::tr("Launch"),
                    link->launch.in(doc.eventCount())
                        ? eventLink(doc, link->launch)
                              + QStringLiteral(" <small>by %1</small>").arg(fromStd(launchMatchName(link->launchMatch)))
                        : QObject::tr("none"));
        if (link->parent.in(doc.eventCount())) {
            html += row(QObject::tr("Parent"), eventLink(doc, link->parent));
            html += row(QObject::tr("Rule"), QStringLiteral("<b>%1</b> under policy %2 · confidence %3")
                                                 .arg(fromStd(parentRuleName(link->rule)), fromStd(policyName(links.policy)))
                                                 .arg(link->confidence, 0, 'f', 2));
        } else {
            html += row(
                QObject::tr("Parent"),
                QStringLiteral("<span style='color:#c00'>orphan — %1</span>").arg(fromStd(orphanReasonName(link->orphan))));
        }
        html += QStringLiteral("</table><p style='margin-bottom:2px'>What each policy chooses:</p><table cellspacing='0'>");
        for (int p = 0; p < core::kPolicyCount; ++p) {
            const auto policy = static_cast<core::Policy>(p);
            const core::EventIndex choice = link->byPolicy[p];
            QString value = choice.in(doc.eventCount()) ? eventLink(doc, choice) : QObject::tr("none");
            if (policy == links.policy)
                value += QObject::tr(" <small>(current)</small>");
            else if (choice != link->parent)
                value += QObject::tr(" <small style='color:#c60'>(differs)</small>");
            html += row(fromStd(policyName(policy)), value);
        }
        if (link->innermost.in(doc.eventCount()) && link->innermost != link->parent)
            html += row(QObject::tr("Innermost enclosing"), eventLink(doc, link->innermost));
        if (link->annotationEvidence.in(doc.eventCount()))
            html += row(QObject::tr("GPU annotation"), eventLink(doc, link->annotationEvidence));
        html += QStringLiteral("</table>");
    }
    return html;
}

// The event's nesting parent and its children in its lane.
QString nestingHtml(const TraceDocument &doc, core::EventIndex e)
{
    const core::DeviceEvent &event = doc.device().event(e);
    const core::TraceIndex &index = doc.index();
    const core::LaneIndex lane = e.in(index.laneOf.size()) ? index.laneOf[e.get()] : core::LaneIndex(core::kNone);
    QString html;
    html += QStringLiteral("<h4>Nesting</h4><table cellspacing='0'>");
    const core::EventIndex nestParent = e.in(index.nestParent.size()) ? index.nestParent[e.get()] : core::EventIndex(core::kNone);
    html += row(QObject::tr("Parent"),
                nestParent.in(doc.eventCount()) ? eventLink(doc, nestParent) : QObject::tr("none (top level)"));
    if (lane.valid()) {
        const LaneRows &rows = doc.laneRows(lane);
        const int childDepth = index.depth[e.get()] + 1;
        QStringList children;
        std::size_t childCount = 0;
        if (childDepth < rows.rowCount()) {
            const core::Nanos *s = rows.starts.data();
            std::uint32_t i = static_cast<std::uint32_t>(
                std::lower_bound(s + rows.rowBegin[childDepth], s + rows.rowBegin[childDepth + 1], event.ts) - s);
            for (; i < rows.rowBegin[childDepth + 1] && s[i] <= event.end(); ++i) {
                const core::EventIndex c = rows.events[i];
                if (index.nestParent[c.get()] != e)
                    continue;
                if (++childCount <= kListCap)
                    children << eventLink(doc, c);
            }
        }
        QString value = childCount ? children.join(QStringLiteral("<br>")) : QObject::tr("none");
        if (childCount > kListCap)
            value += QObject::tr("<br>… and %L1 more").arg(childCount - kListCap);
        html += row(QObject::tr("Children (%L1)").arg(childCount), value);
    }
    html += QStringLiteral("</table>");
    return html;
}

// The drawn edges that start or end at the event.
QString edgesHtml(const TraceDocument &doc, core::EventIndex e, const EventNotes *notes)
{
    QString html;
    auto [begin, end] = doc.edgesOf(e);
    if (begin != end) {
        html += QStringLiteral("<h4>Edges (%1)</h4><table cellspacing='0'>").arg(end - begin);
        int shown = 0;
        for (const DrawEdgeIndex *it = begin; it != end && shown < kListCap * 2; ++it, ++shown) {
            const DrawEdge &edge = doc.edges()[*it];
            const bool outgoing = edge.from == e;
            const QString kind = QStringLiteral("<span style='color:%1'>%2</span> %3")
                                     .arg(edgeColor(edge.kind).name(), outgoing ? QStringLiteral("→") : QStringLiteral("←"),
                                          fromStd(edgeKindName(edge.kind)));
            QString target = eventLink(doc, outgoing ? edge.to : edge.from);
            const EdgeProvenance provenance = TimelineEdgeOverlay::drawnProvenance(edge, notes);
            if (provenance != EdgeProvenance::Rule)
                target += QStringLiteral(" <small>(%1)</small>").arg(edgeProvenanceLabel(provenance));
            html += row(kind, target);
        }
        if (end - begin > shown)
            html += row(QString(), QObject::tr("… and %L1 more").arg((end - begin) - shown));
        html += QStringLiteral("</table>");
    }
    return html;
}

// The findings about the event.
QString findingsHtml(const TraceDocument &doc, core::EventIndex e)
{
    const core::LinkSet &links = doc.links();
    QString html;
    const std::vector<core::FindingIndex> findings = doc.findingsOf(e);
    if (!findings.empty()) {
        html += QStringLiteral("<h4 style='color:#c00'>Findings</h4><ul>");
        for (core::FindingIndex f : findings) {
            const core::Finding &finding = links.findings[f.get()];
            html += QStringLiteral("<li><b>%1</b> (%2): %3")
                        .arg(fromStd(findingKindName(finding.kind)), fromStd(findingSeverityName(finding.severity)),
                             QString::fromStdString(finding.message).toHtmlEscaped());
            if (!finding.suggestion.empty())
                html += QStringLiteral("<br><i>%1</i>").arg(QString::fromStdString(finding.suggestion).toHtmlEscaped());
            if (finding.suggestedParent.in(doc.eventCount()))
                html += QObject::tr("<br>suggested parent: %1").arg(eventLink(doc, finding.suggestedParent));
            html += QStringLiteral("</li>");
        }
        html += QStringLiteral("</ul>");
    }
    return html;
}

// The event's args, parsed only now.
QString argsHtml(const TraceDocument &doc, core::EventIndex e)
{
    const core::DeviceTrace &trace = doc.device();
    const core::DeviceEvent &event = doc.device().event(e);
    QString html;
    const std::string args = trace.argsJson(event);
    if (args.empty() && !event.args.empty()) {
        html +=
            QStringLiteral("<h4>Args</h4><i>%1</i>").arg(QString::fromStdString(trace.argsUnavailableReason()).toHtmlEscaped());
    } else if (!args.empty()) {
        QJsonParseError error;
        const QByteArray raw(args.data(), static_cast<qsizetype>(args.size()));
        const QJsonDocument json = QJsonDocument::fromJson(raw, &error);
        const QString text = error.error == QJsonParseError::NoError ? QString::fromUtf8(json.toJson(QJsonDocument::Indented))
                                                                     : QString::fromUtf8(raw);
        html += QStringLiteral("<h4>Args</h4><pre style='font-size:small'>%1</pre>").arg(text.toHtmlEscaped());
    }
    return html;
}

} // namespace

DetailsDock::DetailsDock(EventSelection *selection, QWidget *parent)
    : QDockWidget(tr("Details"), parent), m_selection(selection), m_browser(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("DetailsDock"));
    m_browser->setOpenLinks(false);
    m_browser->setOpenExternalLinks(false);
    setWidget(m_browser);
    connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl &url) {
        if (url.scheme() == QStringLiteral("event") && m_selection) {
            bool ok = false;
            const uint e = url.path().toUInt(&ok);
            if (ok)
                m_selection->select(core::EventIndex(e));
        }
    });
    if (m_selection)
        connect(m_selection, &EventSelection::changed, this, &DetailsDock::refresh);
    refresh();
}

void DetailsDock::setDocument(DocumentPtr doc)
{
    m_doc = std::move(doc);
    refresh();
}

void DetailsDock::setEventNotes(EventNotesPtr notes)
{
    m_notes = std::move(notes);
    refresh();
}

QString DetailsDock::html() const { return m_browser->toHtml(); }

void DetailsDock::setTimeRangeHtml(const QString &html)
{
    if (html == m_rangeHtml)
        return;
    m_rangeHtml = html;
    refresh();
}

void DetailsDock::refresh()
{
    if (!m_doc || !m_selection || !m_selection->hasSelection() || !m_selection->current().in(m_doc->eventCount())) {
        m_browser->setHtml(m_rangeHtml
                           + tr("<p style='color:#666'>Click an event on the timeline to see its details, its "
                                "parent CPU op and the rule that chose it.</p>"));
        return;
    }
    const EventNotes *notes = m_notes && m_notes->isOf(m_doc->device()) ? m_notes.get() : nullptr;
    const QString rank = m_rankLabel.isEmpty()
                             ? QString()
                             : QStringLiteral("<p style='margin:0'><b>%1</b></p>").arg(m_rankLabel.toHtmlEscaped());
    const QString annotationText = m_annotation ? m_annotation(m_selection->current()) : QString();
    const QString annotation = annotationText.isEmpty()
                                   ? QString()
                                   : QStringLiteral("<p style='margin:0'>%1</p>").arg(annotationText.toHtmlEscaped());
    m_browser->setHtml(m_rangeHtml + rank + annotation + detailsHtml(*m_doc, m_selection->current(), notes));
}

void DetailsDock::setEventAnnotation(EventAnnotation annotation)
{
    m_annotation = std::move(annotation);
    refresh();
}

void DetailsDock::setRankLabel(const QString &label)
{
    if (label == m_rankLabel)
        return;
    m_rankLabel = label;
    refresh();
}

QString DetailsDock::detailsHtml(const TraceDocument &doc, core::EventIndex e, const EventNotes *notes)
{
    QString html;
    // A short name as a heading; a kernel's full signature (hundreds of characters) in the body's
    // size, or it fills the docked column before the first detail.
    const QString name = doc.eventName(e);
    if (name.size() <= kHeadingNameLength)
        html += QStringLiteral("<h3 style='margin-bottom:2px'>%1</h3>").arg(name.toHtmlEscaped());
    else
        html += QStringLiteral("<p style='margin-top:4px; margin-bottom:4px'><b>%1</b></p>").arg(name.toHtmlEscaped());

    html += reviewHtml(e, notes);
    html += fieldsHtml(doc, e);
    html += hostNodeHtml(doc, e);
    html += linkHtml(doc, e);
    html += nestingHtml(doc, e);
    html += edgesHtml(doc, e, notes);
    html += findingsHtml(doc, e);
    html += argsHtml(doc, e);
    return html;
}

} // namespace linkscope::ui
