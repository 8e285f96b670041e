#pragma once
// The Kineto (device) trace as flat, contiguous event records.

#include "model/argsstore.h"
#include "model/common.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace linkscope::core {

// Kineto `cat` values that matter for linking; everything else is Other (the original text is kept).
enum class EventCategory : std::uint8_t {
    CpuOp,
    UserAnnotation,
    PythonFunction,
    CudaRuntime, // also HIP runtime (names hip*), xpu_runtime, privateuse1_runtime
    CudaDriver,
    Kernel,
    GpuMemcpy,
    GpuMemset,
    GpuUserAnnotation,
    CudaSync,
    CpuInstant,
    Flow,  // ac2g / fwdbwd flow start/finish
    Trace, // ProfilerStep spans on pid "Spans"
    Other,
};
inline constexpr int kEventCategoryCount = static_cast<int>(EventCategory::Other) + 1;

std::string_view categoryName(EventCategory c);       // canonical Kineto text, e.g. "cpu_op"
EventCategory categoryFromName(std::string_view cat); // unknown → Other

inline bool isCpuOpCategory(EventCategory c) { return c == EventCategory::CpuOp || c == EventCategory::UserAnnotation; }
inline bool isRuntimeCategory(EventCategory c) { return c == EventCategory::CudaRuntime || c == EventCategory::CudaDriver; }
inline bool isGpuOpCategory(EventCategory c)
{
    return c == EventCategory::Kernel || c == EventCategory::GpuMemcpy || c == EventCategory::GpuMemset;
}

enum class Phase : std::uint8_t { Complete, Instant, Metadata, Counter, FlowStart, FlowFinish, Begin, End, Other };

// A pid or tid: numeric, or a string (interned) such as "Spans" or "stream 7".
struct TraceId {
    std::int64_t value = 0;
    bool isString = false; // value is then a StringId
    friend auto operator<=>(const TraceId &, const TraceId &) = default;
};

struct ThreadKey {
    TraceId pid;
    TraceId tid;
    friend auto operator<=>(const ThreadKey &, const ThreadKey &) = default;
};

inline constexpr std::int64_t kNoId = -1;

// ThreadIndex (base/indices.h) is the index of a (pid, tid) in a ThreadTable. Two events of one
// trace have the same index exactly when their (pid, tid) are the same.

// The distinct (pid, tid) of a trace, in order of first use; 0 is always (0, 0), the thread of an
// event without pid and tid.
class ThreadTable {
public:
    ThreadTable() { intern(ThreadKey{}); }

    ThreadIndex intern(const ThreadKey &key)
    {
        const auto [it, added] = index_.try_emplace(key, ThreadIndex::at(keys_.size()));
        if (added)
            keys_.push_back(key);
        return it->second;
    }
    ThreadIndex find(const ThreadKey &key) const
    {
        const auto it = index_.find(key);
        return it == index_.end() ? ThreadIndex(kNone) : it->second;
    }
    const ThreadKey &at(ThreadIndex i) const { return keys_[i.get()]; }
    std::size_t size() const { return keys_.size(); }
    const std::vector<ThreadKey> &keys() const { return keys_; }

private:
    std::vector<ThreadKey> keys_;
    std::map<ThreadKey, ThreadIndex> index_;
};

// Kineto collective args (`appendCollectiveArgs`) on record_param_comms and NCCL kernels.
struct CollectiveArgs {
    EventIndex event{}; // the DeviceTrace event that carries them
    StringId collectiveName = 0;
    StringId processGroupName = 0;
    StringId processGroupDesc = 0;
    StringId dtype = 0;
    std::int64_t inMsgNelems = -1;
    std::int64_t outMsgNelems = -1;
    std::int64_t groupSize = -1;
    std::int64_t srcRank = -1;
    std::int64_t dstRank = -1;
    std::int64_t seq = -1;
};

// args "graph id" (CUDA graphs) of one event: few events have one, so they are kept beside the events.
struct GraphIdArg {
    EventIndex event{};
    std::int64_t graphId = kNoId;
};

// One Kineto event in 96 bytes. The fields most events carry are here at their full width; (pid,
// tid) is an index into DeviceTrace::threads, and the rare ones (collective args, graph id) are in
// DeviceTrace's side tables, flagged here.
struct DeviceEvent {
    Nanos ts = 0; // as written (relative to baseTimeNanoseconds when the trace has one)
    Nanos dur = 0;
    std::int64_t externalId = kNoId;  // args "External id"
    std::int64_t correlation = kNoId; // args "correlation"; 0 from roctracer is kept as 0 (linker treats as missing)
    std::int64_t evIdx = kNoId;       // args "Ev Idx"
    std::int64_t flowId = kNoId;      // flow events: "id"
    std::int64_t stream = kNoId;      // args "stream"
    std::uint64_t rfId = 0;           // args "Record function id"; 0 = absent
    ThreadIndex thread{0};            // DeviceTrace::threads: (pid, tid) exactly as in the file
    std::int32_t device = -1;         // args "device"
    StringId name = 0;
    StringId categoryText = 0; // original `cat` string
    Span args;                 // raw JSON text of `args` in DeviceTrace::argsStore (empty if none)
    EventCategory category = EventCategory::Other;
    Phase phase = Phase::Other;
    std::uint8_t flags = 0; // kHas* below

    static constexpr std::uint8_t kHasCollective = 1; // DeviceTrace::collectiveOf(i) has its args
    static constexpr std::uint8_t kHasGraphId = 2;    // DeviceTrace::graphIdOf(i) has its graph id

    bool hasCollective() const { return flags & kHasCollective; }
    bool hasGraphId() const { return flags & kHasGraphId; }
    Nanos end() const { return ts + dur; }
};
static_assert(sizeof(DeviceEvent) <= 96, "DeviceEvent: 1 M events are 96 MB; keep them so");

// What a cuda_sync event waits on (Kineto args "wait_on_stream", "wait_on_cuda_event_record_corr_id"),
// read with the events so that linking never needs the args text.
struct SyncArgs {
    EventIndex event{}; // index into DeviceTrace::events
    std::int64_t waitOnStream = kNoId;
    std::int64_t recordCorrelation = kNoId;
};

struct ProcessGroupConfig {
    std::string name;
    std::string desc;
    std::string backendConfig;
    std::int64_t size = -1;
    std::vector<std::int64_t> ranks;
};

struct DistributedInfo {
    std::string backend;
    std::int64_t rank = -1;
    std::int64_t worldSize = -1;
    std::string ncclVersion;
    std::vector<ProcessGroupConfig> processGroups;
};

struct DeviceProperties {
    std::int64_t id = -1;
    std::string name;
    std::int64_t totalGlobalMem = 0;
    std::int64_t computeMajor = 0;
    std::int64_t computeMinor = 0;
    std::int64_t numSms = 0;
};

struct DeviceTrace {
    std::string path;
    std::uint64_t sourceBytes = 0; // decompressed size
    bool wasGzip = false;
    FileIdentity sourceIdentity; // the file that was read (unknown when parsed from memory)
    std::int64_t schemaVersion = -1;
    std::optional<Nanos> baseTimeNs; // "baseTimeNanoseconds"
    std::optional<DistributedInfo> distributed;
    std::vector<DeviceProperties> devices;
    ThreadTable threads;                          // every event's (pid, tid)
    std::map<ThreadKey, std::string> threadNames; // from "M" thread_name
    std::map<TraceId, std::string> processNames;  // from "M" process_name
    std::map<ThreadKey, std::int64_t> threadSortIndex;

    std::vector<DeviceEvent> events;         // file order
    std::vector<CollectiveArgs> collectives; // sorted by event (DeviceEvent::kHasCollective)
    std::vector<GraphIdArg> graphIds;        // sorted by event (DeviceEvent::kHasGraphId)
    StringPool strings;
    std::vector<Diagnostic> warnings;

    std::vector<SyncArgs> syncArgs; // sorted by event
    // The events' raw `args` text (DeviceEvent::args spans): the plain file itself, or a copy in
    // memory for gzip input. Null when the trace has no args source.
    std::shared_ptr<const ArgsStore> argsStore;

    std::string_view name(const DeviceEvent &e) const { return strings.at(e.name); }
    const ThreadKey &threadKey(const DeviceEvent &e) const { return threads.at(e.thread); }
    const DeviceEvent &event(EventIndex i) const { return events[i.get()]; }
    bool contains(EventIndex i) const { return i.in(events.size()); }
    // One event's args (empty if none or unavailable; see argsUnavailableReason()). For many
    // events in order, use an ArgsReader over argsStore.
    std::string argsJson(const DeviceEvent &e) const
    {
        if (!argsStore || e.args.empty())
            return {};
        std::string scratch;
        return std::string(argsStore->read(e.args, scratch));
    }
    std::string argsUnavailableReason() const { return argsStore ? argsStore->unavailableReason() : std::string(); }
    const SyncArgs *syncArgsOf(EventIndex event) const;
    // The collective args of events[event], or null.
    const CollectiveArgs *collectiveOf(EventIndex event) const;
    // The "graph id" of events[event], or kNoId.
    std::int64_t graphIdOf(EventIndex event) const;
    std::string idText(const TraceId &id) const
    {
        return id.isString ? std::string(strings.at(static_cast<StringId>(id.value))) : std::to_string(id.value);
    }
};

} // namespace linkscope::core
