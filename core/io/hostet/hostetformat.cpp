#include "io/hostet/hostetformat.h"

#include "io/json/jsonhead.h"
#include "io/tracereader.h"

#include <cstring>

namespace linkscope::core::io {

namespace {

// ET+ nodes carry device-side timing that a plain host ET does not have. A plain host ET is
// scanned to the end of its 64 MiB prefix for each marker, so the search is memmem's (glibc: a
// two-way search over the whole text) rather than string_view::find's, which stops at every '"'
// (a JSON text is full of them) to compare the marker: 10% of a job's CPU went there.
bool hasDeviceTiming(std::string_view text)
{
    for (std::string_view marker : {"\"inclusive_dur\"", "\"exclusive_dur\"", "\"ph\"", "\"cat\""})
        if (memmem(text.data(), text.size(), marker.data(), marker.size()) != nullptr)
            return true;
    return false;
}

} // namespace

bool isEtPlus(const FileHead &head)
{
    const JsonHead json = jsonHead(head.start());
    if (json.shape != JsonShape::Nodes)
        return false;
    if (hasDeviceTiming(head.start().substr(json.valueAt)))
        return true;
    if (head.start().size() < FileHead::kStart)
        return false; // the whole file was seen
    // Older ET+ files (PARAM's linker) append their GPU nodes at the end of the nodes array: look at
    // the end of a plain file (the last 8 MiB, read on their own: a job sniffs every rank's host ET,
    // and scanning a 64 MiB prefix of each was 8% of its CPU); a gzip file's end is
    // not reachable without inflating it all, so its first 64 MiB are looked at instead.
    if (const auto tail = head.tail(std::size_t(8) << 20))
        return hasDeviceTiming(*tail);
    return hasDeviceTiming(head.prefix(std::size_t(64) << 20));
}

bool isHostEt(const FileHead &head) { return jsonHead(head.start()).shape == JsonShape::Nodes && !isEtPlus(head); }

InputFormat etPlusInputFormat()
{
    // Its nodes are a host ET's: inspect reads them with the host reader; a pair never opens it.
    return {.kind = std::string(kEtPlusKind),
            .role = TraceRole::Output,
            .name = "ET+ (chakra_trace_link output)",
            .detect = isEtPlus,
            .readHost = readHostTrace,
            .filePatterns = {},
            .nameSuffixes = {}};
}

InputFormat hostEtInputFormat()
{
    return {.kind = std::string(kHostEtKind),
            .role = TraceRole::Host,
            .name = "host execution trace",
            .detect = isHostEt,
            .readHost = readHostTrace,
            .readDevice = nullptr,
            .parseHost = parseHostTrace,
            .parseDevice = nullptr,
            .filePatterns = {"*.json", "*.json.gz"},
            .nameSuffixes = {".json"}};
}

} // namespace linkscope::core::io
