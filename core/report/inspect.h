#pragma once
// `linkscope inspect`: what is in a set of trace files, and how well each host/device pair joins.

#include "io/formats.h"
#include "link/linkset.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace linkscope::core {

struct TraceSummary {
    std::string path;
    std::string kind{kUnknownKind}; // the input-format row's kind (io/formats.h)
    // What was read: the row's device reader, its host reader, or a Chakra .et's summary.
    enum class Content : std::uint8_t { None, Device, Host, ChakraEt };
    Content content = Content::None;
    bool pairable = false; // a host or device trace (the row's role), not an output format
    bool loaded = false;
    std::string error; // LoadError text when !loaded
    bool wasGzip = false;
    std::uint64_t sourceBytes = 0;    // decompressed
    std::string schema;               // host: declared "schema"; Kineto: schemaVersion
    std::optional<HostLayout> layout; // host traces
    std::int64_t pid = -1;            // host: "pid"; Kineto: most common pid of CPU ops
    // Kineto
    std::size_t events = 0;
    std::map<std::string, std::size_t> eventsByCategory; // `cat` as written; "(none)" when absent
    std::size_t cpuThreads = 0;                          // distinct (pid, tid) of CPU-side events
    std::size_t namedThreads = 0;                        // thread_name metadata entries
    std::size_t gpuStreams = 0;                          // distinct (device, stream) of kernels/memcpys/memsets
    std::size_t collectives = 0;
    std::optional<Nanos> firstTs; // earliest ts, latest ts+dur (non-metadata events)
    std::optional<Nanos> lastEnd;
    std::optional<Nanos> baseTimeNs;
    std::optional<DistributedInfo> distributed;
    std::size_t devices = 0;
    // Host
    std::size_t nodes = 0;
    std::size_t roots = 0;
    std::size_t hostThreads = 0; // distinct ET tid
    std::size_t nodesWithRfId = 0;
    std::size_t commNodes = 0;
    std::size_t parentMissing = 0;
    bool recoveredTruncation = false;
    std::int64_t startTs = -1, finishTs = -1; // steady-clock ms, as written
    std::string time;
    // Chakra .et (summarizeEt)
    std::optional<nlohmann::json> chakraSummary;

    std::vector<Diagnostic> warnings;
};

struct PairSummary {
    std::size_t host = 0; // indices into InspectReport::traces
    std::size_t device = 0;
    std::string pairedBy; // "pid" or "argument order"
    HostJoinStats stats;
    std::vector<Diagnostic> warnings;
};

struct InspectReport {
    std::vector<TraceSummary> traces;
    std::vector<PairSummary> pairs;
    bool allLoaded() const;
};

// Loads every file (with the reader of the input-format row that detects it), summarises it, pairs host and device traces (by
// pid, else by argument order) and joins each pair with joinHostToDevice.
InspectReport inspectTraces(const std::vector<std::string> &paths);

std::string formatInspectText(const InspectReport &report);
nlohmann::json inspectToJson(const InspectReport &report);

// Readers' warnings as `inspect --json` and `summary --json` list them: [{"message", "file",
// "severity", "offset" (when known)}].
nlohmann::json warningsJson(const std::vector<Diagnostic> &warnings);

} // namespace linkscope::core
