#pragma once
// The result of linking a device trace (and optionally its host ET): every link with its provenance.

#include "base/cowvector.h"
#include "index/traceindex.h"
#include "link/finding.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace linkscope::core {

// How a GPU op's parent CPU op is chosen.
enum class Policy : std::uint8_t {
    Nesting, // default: innermost cpu_op/user_annotation on the launch thread enclosing the launch (docs/linking.md, "The linkage rule")
    ExternalId, // Chakra 1.0 (HEAD): same-thread op with the kernel's External id, else latest-starting
    EvIdx,      // Chakra before PR #185: latest-starting op on the launch thread before the launch
};
inline constexpr int kPolicyCount = 3;
std::string_view policyName(Policy p); // "nesting", "external-id", "ev-idx"
std::optional<Policy> policyFromName(std::string_view name);

// How a GPU op found the runtime/driver call that launched it.
enum class LaunchMatch : std::uint8_t { Correlation, Flow, ExternalId, None };

// Which rule produced a parent.
enum class ParentRule : std::uint8_t {
    Nesting,         // innermost enclosing op with an ET node (or innermost at all, Kineto-only)
    NestingAncestor, // innermost enclosing op had no ET node; walked up to an ancestor that has one
    ExternalId,      // External id match on the launch thread
    LatestStarting,  // latest-starting op on the launch thread before the launch (ev-idx / fallback)
    Manual,          // a user correction
    None,
};

enum class OrphanReason : std::uint8_t {
    None,
    NoCorrelation, // the GPU op has no usable correlation (absent, -1, 0) and no fallback matched
    NoLaunchEvent, // no runtime/driver event with that (pid, correlation), no flow, no External id match
    NoEnclosingOp, // launch found, but no CPU op on its thread encloses it
    NoHostNode,    // parent found but neither it nor any ancestor has an ET node (pair only)
    Detached,      // the user detached it
};

std::string_view launchMatchName(LaunchMatch m);
std::string_view parentRuleName(ParentRule r);
std::string_view orphanReasonName(OrphanReason r);

struct GpuLink {
    EventIndex gpuEvent{}; // index in DeviceTrace::events
    EventIndex launch{};   // runtime/driver event
    LaunchMatch launchMatch = LaunchMatch::None;
    EventIndex parent{};      // chosen CPU event (DeviceTrace index) under the run's policy
    HostNodeIndex hostNode{}; // HostTrace::nodes index of the parent, if any
    ParentRule rule = ParentRule::None;
    float confidence = 0.0f; // 1 = causal key + enclosing op agree with External id
    OrphanReason orphan = OrphanReason::None;
    std::array<EventIndex, kPolicyCount> byPolicy{}; // each policy's choice
    EventIndex innermost{};                          // innermost enclosing CPU op, even without an ET node
    EventIndex annotationEvidence{};                 // gpu_user_annotation corroborating a user_annotation parent
};

enum class EdgeKind : std::uint8_t {
    Parent,      // CPU op → GPU op (the GPU op's parent)
    Launch,      // runtime/driver call → GPU op
    StreamOrder, // previous op on the same (device, stream) → next
    Sync,        // GPU op → CPU op that waits for it (or GPU → GPU for stream-wait-event)
    InterThread, // CPU op on one thread → CPU op on another (Chakra's gap rule, optional)
};
inline constexpr int kEdgeKindCount = 5;
std::string_view edgeKindName(EdgeKind k); // stable snake_case: "parent", "stream_order", ...
std::optional<EdgeKind> edgeKindFromName(std::string_view name);

// A runtime/driver call that blocks its CPU thread until GPU work has finished (docs/linking.md,
// Blocking calls): the time the thread spends in it waiting is a dependency, not CPU work.
enum class BlockingKind : std::uint8_t {
    StreamSync,   // cudaStreamSynchronize (and hip/cu spellings): the last op launched to the stream before it
    DeviceSync,   // cudaDeviceSynchronize / cuCtxSynchronize: the last op launched to every stream of the device
    EventSync,    // cudaEventSynchronize: the op launched before the matching cudaEventRecord
    BlockingCopy, // a synchronous cudaMemcpy, or a device-to-pageable cudaMemcpyAsync: its own copy
    ImplicitSync, // cudaFree / cudaFreeHost: synchronise the device implicitly
};
inline constexpr int kBlockingKindCount = 5;
std::string_view blockingKindName(BlockingKind k); // "stream_sync", "device_sync", "event_sync", "blocking_copy", "implicit_sync"

struct BlockingWait {
    EventIndex call{};    // the runtime/driver call the thread blocks in
    EventIndex awaited{}; // a GPU op it waits for (one record per op waited for)
    BlockingKind kind = BlockingKind::StreamSync;
};

struct Edge {
    EventIndex from{}; // DeviceTrace event indices
    EventIndex to{};
    EdgeKind kind = EdgeKind::Parent;
};

// How host ET nodes were joined to Kineto CPU events.
// Derived: the host ET was made from the Kineto trace's own CPU ops (pipeline/derivedhost.h).
enum class HostJoinMethod : std::uint8_t { None, RecordFunctionId, EvIdxOffset, ExternalIdOffset, Derived };
std::string_view hostJoinMethodName(HostJoinMethod m);

struct HostJoinStats {
    HostJoinMethod method = HostJoinMethod::None;
    std::int64_t offset = 0; // Kineto id − rf_id for the *Offset methods
    std::size_t hostNodesWithRfId = 0;
    std::size_t deviceCpuOps = 0;
    std::size_t matched = 0;        // host nodes matched to a device CPU event
    std::size_t nameMismatches = 0; // matched by id but names differ
};

struct LinkOptions {
    Policy policy = Policy::Nesting;
    Nanos enclosureTolerance = 1000; // ε for start-point containment (clock skew, rounding)
    bool interThreadDeps = false;    // Chakra's 1 ms gap rule
    Nanos interThreadGap = 1'000'000;
    ProgressFn progress;
};

// What the linker knew about a GPU op's launch that its GpuLink does not say: the diagnosis stage
// (link/diagnose.h) needs it to judge a parent a correction chose.
struct LaunchEvidence {
    Nanos ts = 0;            // launch time (the runtime call's, or the flow start's)
    EventIndex externalOp{}; // the launch thread's cpu_op carrying the launch's External id
    bool hasTime = false;    // false: no launch, or only an External-id match (time unknown)
};
struct LinkEvidence {
    std::vector<LaunchEvidence> launches; // parallel to LinkSet::gpuLinks
    std::vector<EventIndex> opParent;     // event → enclosing candidate CPU op on its thread (the linker's nesting)
};

// The result of the link stage (and of every correction of it). A value: copying it is cheap,
// because everything per event is shared (SharedArray, shared_ptr<const …>) and the parts a
// correction changes — GPU links, edges and the per-GPU-op findings — are chunked copy-on-write
// (CowVector, FindingList): an edit copies the chunk it touches, never a whole array
// (docs/architecture.md, "Ownership and sharing").
struct LinkSet {
    Policy policy = Policy::Nesting;
    std::shared_ptr<const TraceIndex> index; // built once per load (the index stage), shared by every relink
    CowVector<GpuLink> gpuLinks;             // one per GPU op (kernel, memcpy, memset), in event order
    SharedArray<GpuLinkIndex> gpuLinkOf;     // event → gpuLinks index, none if not a GPU op
    SharedArray<HostNodeIndex> hostOfEvent;  // event → HostTrace node index, or none
    SharedArray<EventIndex> eventOfHost;     // host node → event index, or none
    SharedArray<Nanos> exclusiveDur;         // event → exclusive duration (CPU ops; GPU ops = dur)
    CowVector<Edge> edges;                   // Launch, StreamOrder, Sync, InterThread (Parent edges are in gpuLinks)
    // Every blocking call with the GPU ops it waits for (each also made a Sync edge to the op that
    // continues after it); call order. Independent of the policy: shared by every relink.
    std::shared_ptr<const std::vector<BlockingWait>> blocking;
    HostJoinStats join;
    FindingList findings; // the diagnosis stage's, for these links (corrections included)
    std::vector<Diagnostic> warnings;
    std::shared_ptr<const LinkEvidence> evidence;
};

} // namespace linkscope::core
