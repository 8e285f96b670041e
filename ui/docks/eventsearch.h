#pragma once
// Finding events by name (substring or regular expression) or by id. Names are matched once per
// distinct string (the pool), then events are scanned by their name id, so a search over millions
// of events costs one pass of integer compares.

#include "ground/tracedocument.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace linkscope::ui {

enum class SearchMode {
    NameContains,     // case-insensitive substring
    NameRegex,        // QRegularExpression, case-insensitive
    RecordFunctionId, // rf_id: Kineto "Record function id", or the ET node's rf_id joined to the event
    ExternalId,
    Correlation,
    EvIdx,
};
QString searchModeName(SearchMode mode);

struct SearchResult {
    std::vector<core::EventIndex> events; // sorted by start time
    QString error;                        // non-empty: the query is invalid (bad regex, not a number)
};

// Only events drawn on a lane are returned (flow markers and metadata have nowhere to be shown).
SearchResult searchEvents(const TraceDocument &doc, SearchMode mode, const QString &query);

} // namespace linkscope::ui
