#include "docks/eventsearch.h"

#include "link/rules.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include <algorithm>

namespace linkscope::ui {

QString searchModeName(SearchMode mode)
{
    switch (mode) {
    case SearchMode::NameContains:
        return QCoreApplication::translate("EventSearch", "Name contains");
    case SearchMode::NameRegex:
        return QCoreApplication::translate("EventSearch", "Name regex");
    case SearchMode::RecordFunctionId:
        return QCoreApplication::translate("EventSearch", "rf_id");
    case SearchMode::ExternalId:
        return QCoreApplication::translate("EventSearch", "External id");
    case SearchMode::Correlation:
        return QCoreApplication::translate("EventSearch", "Correlation");
    case SearchMode::EvIdx:
        return QCoreApplication::translate("EventSearch", "Ev Idx");
    }
    return {};
}

SearchResult searchEvents(const TraceDocument &doc, SearchMode mode, const QString &query)
{
    SearchResult result;
    const core::DeviceTrace &trace = doc.device();
    const core::TraceIndex &index = doc.index();
    const QString text = query.trimmed();
    if (text.isEmpty())
        return result;
    auto onLane = [&](core::EventIndex e) { return e.in(index.laneOf.size()) && index.laneOf[e.get()].valid(); };

    if (mode == SearchMode::NameContains || mode == SearchMode::NameRegex) {
        QRegularExpression regex;
        if (mode == SearchMode::NameRegex) {
            regex = QRegularExpression(text, QRegularExpression::CaseInsensitiveOption);
            if (!regex.isValid()) {
                result.error =
                    QCoreApplication::translate("EventSearch", "Invalid regular expression: %1").arg(regex.errorString());
                return result;
            }
        }
        std::vector<std::uint8_t> nameMatches(trace.strings.size(), 0);
        for (core::StringId id = 0; id < trace.strings.size(); ++id) {
            const std::string_view s = trace.strings.at(id);
            const QString name = QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
            nameMatches[id] = mode == SearchMode::NameContains ? name.contains(text, Qt::CaseInsensitive)
                                                               : regex.match(name).hasMatch();
        }
        for (core::EventIndex e{0}; e.get() < trace.events.size(); ++e)
            if (nameMatches[trace.event(e).name] && onLane(e))
                result.events.push_back(e);
    } else {
        bool ok = false;
        const qlonglong value = text.toLongLong(&ok);
        if (!ok) {
            result.error = QCoreApplication::translate("EventSearch", "“%1” is not a number").arg(text);
            return result;
        }
        // The lookup is core's (link/rules.h): the same for every caller.
        core::EventKey key = core::EventKey::RecordFunctionId;
        switch (mode) {
        case SearchMode::ExternalId:
            key = core::EventKey::ExternalId;
            break;
        case SearchMode::Correlation:
            key = core::EventKey::Correlation;
            break;
        case SearchMode::EvIdx:
            key = core::EventKey::EvIdx;
            break;
        default:
            break;
        }
        result.events = core::findEvents(trace, doc.host(), doc.links(), key, value);
        return result;
    }
    std::sort(result.events.begin(), result.events.end(), [&](core::EventIndex a, core::EventIndex b) {
        return trace.event(a).ts != trace.event(b).ts ? trace.event(a).ts < trace.event(b).ts : a < b;
    });
    result.events.erase(std::unique(result.events.begin(), result.events.end()), result.events.end());
    return result;
}

} // namespace linkscope::ui
