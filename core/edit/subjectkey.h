#pragma once
// Names for the things a correction is about, that survive reloading the traces: event indices
// change with every reader or linker version, these keys do not.

#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace linkscope::core {

// A pid or tid as written in the file, independent of any StringPool.
struct IdValue {
    bool isString = false;
    std::int64_t number = 0;
    std::string text; // when isString

    static IdValue of(const TraceId &id, const StringPool &strings);
    // The same id in another trace's pool; nullopt when that trace never mentions the string.
    std::optional<TraceId> in(const StringPool &strings) const;
    std::string display() const { return isString ? text : std::to_string(number); }
    friend bool operator==(const IdValue &, const IdValue &) = default;
};

enum class KeyKind : std::uint8_t {
    GpuOp,    // kernel / memcpy / memset: (pid, correlation, ordinal)
    Runtime,  // cuda_runtime / cuda_driver call: (pid, correlation, ordinal)
    CpuOp,    // any other event: (pid, Record function id) or (pid, Ev Idx) or (pid, tid, ts, ordinal)
    HostNode, // an ET node: its id
    Trace,    // the trace as a whole (findings about the input)
};

struct SubjectKey {
    KeyKind kind = KeyKind::GpuOp;
    IdValue pid;
    std::int64_t correlation = kNoId; // GpuOp, Runtime
    // GpuOp / Runtime: position among the events of the same kind with this (pid, correlation),
    // ordered by (ts, file order): a cudaGraphLaunch has many kernels under one correlation.
    // CpuOp by time: position among the events with the same (pid, tid, ts).
    std::uint32_t ordinal = 0;
    std::uint64_t rfId = 0;      // CpuOp: preferred when non-zero and unique
    std::int64_t evIdx = kNoId;  // CpuOp: when there is no usable rfId
    IdValue tid;                 // CpuOp without rfId / Ev Idx
    Nanos ts = 0;                //   "
    std::int64_t hostId = kNoId; // HostNode
    std::string name;            // checked on resolution: a different name means the subject is gone

    std::string describe() const; // for lists and reports, e.g. "ncclDevKernel… (pid 0, correlation 5000)"
    friend bool operator==(const SubjectKey &, const SubjectKey &) = default;
};

// Turns event indices into keys and back. Tables are sorted arrays built on first use (one
// O(n log n) pass per key kind) and then answer in O(log n): traces have millions of events.
// Safe to use from several threads.
class SubjectResolver {
public:
    SubjectResolver(const DeviceTrace &device, const HostTrace *host);
    SubjectResolver(const SubjectResolver &) = delete;
    SubjectResolver &operator=(const SubjectResolver &) = delete;

    SubjectKey keyOfEvent(EventIndex event) const;
    SubjectKey keyOfHostNode(HostNodeIndex node) const;
    static SubjectKey traceKey();

    struct Resolution {
        EventIndex event{};       // the event a device key names
        HostNodeIndex hostNode{}; // the node a HostNode key names (both none for Trace)
        std::string problem;      // why it did not resolve (empty when it did)
        bool ok() const { return problem.empty(); }
    };
    Resolution resolve(const SubjectKey &key) const;

    const DeviceTrace &device() const { return device_; }
    const HostTrace *host() const { return host_; }

    static KeyKind kindOfEvent(const DeviceEvent &event);

private:
    // Plain integers so that sorting millions of rows stays cheap: pids become dense slots.
    struct Entry {
        std::uint32_t pidSlot = 0;
        std::uint32_t aIsString = 0;
        std::int64_t a = 0; // correlation / rfId / evIdx / tid value
        Nanos ts = 0;
        EventIndex event{};
    };
    enum Table { GpuCorrelation, RuntimeCorrelation, RfId, EvIdx, ByTime, TableCount };
    static constexpr std::uint32_t kNoSlot = UINT32_MAX;

    const std::vector<Entry> &table(Table which) const;
    std::uint32_t pidSlot(const TraceId &pid) const; // kNoSlot if no event has this pid
    std::pair<const Entry *, const Entry *> range(Table which, std::uint32_t pidSlot, std::int64_t a, bool aIsString) const;
    std::pair<const Entry *, const Entry *> timeRange(std::uint32_t pidSlot, const TraceId &tid, Nanos ts) const;

    const DeviceTrace &device_;
    const HostTrace *host_;
    mutable std::once_flag pidsBuilt_;
    mutable IndexedVector<EventIndex, std::uint32_t> pidSlotOfEvent_;
    mutable std::map<TraceId, std::uint32_t> pidSlots_;
    mutable std::once_flag built_[TableCount];
    mutable std::vector<Entry> tables_[TableCount];
};

} // namespace linkscope::core
