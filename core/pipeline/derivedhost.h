#pragma once
// A host execution trace made from a Kineto trace alone, for what needs one (the astra-sim export,
// the prediction, the critical path, what-ifs) when the run recorded no ET — most runs do not
// (docs/prediction.md, "From a Kineto trace alone").
//
// One node per Kineto CPU op and user annotation (complete events), nested as the index nests them on
// their thread (the innermost enclosing CPU op is the parent; an op with none hangs from its thread's
// root, under one process root, as PyTorch's ExecutionTraceObserver writes them), numbered in start
// order, each thread a small sequential tid in order of its first op. record_param_comms' collective
// args become the ET's comm attrs. Each node names the event it was made from
// (HostTrace::derivedFrom), so the join is exact and every linking rule applies unchanged.
//
// What a recorded ET has and this cannot: the ops' tensor inputs and outputs (a collective's size
// comes from its Kineto args only), op schemas, forward/backward sequence ids, and ops the profiler
// did not record.

#include "index/traceindex.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"
#include "pipeline/pairpipeline.h"

#include <memory>

namespace linkscope::core {

// The ET `device` implies; `index` is its index (indexTrace). Never throws on a malformed trace: an
// event that cannot be placed is left out and counted in the result's warnings.
std::shared_ptr<const HostTrace> deriveHostEt(const DeviceTrace &device, const TraceIndex &index);

// `links` (of `device` alone, corrections included) with the derived `host` attached: each GPU op's
// parent CPU op gets its host node, the join is the derivation's. Nothing is relinked, so the
// parents — and any correction made to them — stay as they are: every CPU op has a node, which is
// what the linker would have chosen among as well.
std::shared_ptr<const LinkSet> attachDerivedHost(const LinkSet &links, const HostTrace &host, const DeviceTrace &device);

// A Kineto trace opened alone, with the host ET derived from it and attached to its links.
struct DerivedHostPair {
    std::shared_ptr<const HostTrace> host;
    std::shared_ptr<const LinkSet> links;
};
DerivedHostPair withDerivedHost(const OpenedPair &pair);

// The one-line notice a command prints when it derives the host ET (naming the device trace).
std::string derivedHostNotice(const DeviceTrace &device);

} // namespace linkscope::core
