#pragma once
// The link table: one JSON object per GPU op (JSON Lines), what `linkscope link --links` writes.
// Format: docs/links-format.md.

#include "link/linkset.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <nlohmann/json.hpp>

#include <string>

namespace linkscope::core {

// `host` may be null (a device trace alone).
std::string linksJsonLines(const DeviceTrace &trace, const HostTrace *host, const LinkSet &links);

// Pieces the findings report shares: an id as written in the trace, a CPU op as {name, ev_idx, rf_id}.
nlohmann::ordered_json traceIdJson(const DeviceTrace &trace, const TraceId &id);
nlohmann::ordered_json cpuChoiceJson(const DeviceTrace &trace, EventIndex event);

} // namespace linkscope::core
