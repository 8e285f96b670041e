#pragma once
// One GPU op's link (docs/linking.md, steps 2–5): from its launch context, each policy's parent, the
// ET-node requirement, the chosen policy's parent and rule, the External-id cross-check, the
// gpu_user_annotation corroboration and the confidence.

#include "link/launchcontexts.h"
#include "link/launchindex.h"
#include "link/linkset.h"
#include "link/parentsearch.h"
#include "link/threadcandidates.h"

#include <vector>

namespace linkscope::core {

class GpuOpLinker {
public:
    // `hostOfEvent`: the host join's (event → ET node, none). `requireHostNode`: a parent must have an
    // ET node (a host trace is joined and at least one op matched).
    GpuOpLinker(const DeviceTrace &device, const ThreadCandidates &candidates, const LaunchIndex &launches,
                const std::vector<HostNodeIndex> &hostOfEvent, bool requireHostNode, const LinkOptions &options);

    struct Result {
        GpuLink link;
        LaunchEvidence evidence;
    };
    Result link(EventIndex gpuEvent, const LaunchContext &context);

private:
    // Each policy's choice, before the ET-node requirement.
    struct PolicyChoices {
        EventIndex innermost, chakraHead, chakraPre185;
        bool chakraHeadMatchedExternalId = false;
    };
    PolicyChoices choose(const ThreadOps *thread, const LaunchContext &context, const DeviceEvent &gpu);
    void applyPolicy(GpuLink &link, const PolicyChoices &choices, LaunchMatch match) const;
    EventIndex withHostNode(EventIndex event) const;
    EventIndex chakraEffective(EventIndex choice) const;
    bool hasHostNode(EventIndex event) const { return hostOfEvent_[event.get()].valid(); }
    bool externalIdAgrees(EventIndex parent, EventIndex externalOp) const;
    float confidenceOf(const GpuLink &link, const LaunchContext &context, EventIndex externalOp) const;

    const DeviceTrace &device_;
    const ThreadCandidates &candidates_;
    const LaunchIndex &launches_;
    const std::vector<HostNodeIndex> &hostOfEvent_;
    bool requireHostNode_;
    const LinkOptions &options_;
    ParentSearch search_;
};

} // namespace linkscope::core
