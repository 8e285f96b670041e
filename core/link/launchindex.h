#pragma once
// The launch tables of a device trace: runtime/driver events by correlation id, gpu_user_annotation
// events by External id, and which process launches onto each GPU. Built from the device trace alone
// (beside the host join), then only read.

#include "link/finding.h"
#include "model/devicetrace.h"

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace linkscope::core {

class LaunchIndex {
public:
    explicit LaunchIndex(const DeviceTrace &device);

    using CorrelatedLaunch = std::pair<std::int64_t, EventIndex>; // (correlation, runtime/driver event)

    // The runtime/driver events carrying `correlation`: [first, last).
    std::pair<const CorrelatedLaunch *, const CorrelatedLaunch *> launchesWithCorrelation(std::int64_t correlation) const;

    // The runtime event a GPU op belongs to: nearest launch at or before `gpuTs` (duplicates), else the
    // earliest after it (a GPU op before its launch is reported, not hidden). `ownerPid`: prefer that
    // process's launches when it has one (merged multi-process traces).
    EventIndex pickLaunch(std::int64_t correlation, Nanos gpuTs, const TraceId *ownerPid = nullptr) const;

    // The process launching onto GPU pid `gpuPid`, null when not known (or not needed: correlation ids
    // do not span processes).
    const TraceId *ownerOfDevice(TraceId gpuPid) const;

    // The gpu_user_annotation on the GPU op's stream, overlapping it, whose External id is
    // `annotationExternalId` (a user_annotation's), none if none.
    EventIndex corroboratingAnnotation(const DeviceEvent &gpu, std::int64_t annotationExternalId) const;

    // One per (process, correlation) shared by several runtime/driver events: trace-wide findings.
    const std::vector<Finding> &duplicateCorrelationFindings() const { return duplicateCorrelationFindings_; }

private:
    void buildDenseCorrelationIndex();
    void findDuplicateCorrelations();
    void findDeviceOwners();

    const DeviceTrace *device_;
    std::vector<CorrelatedLaunch> launchesByCorrelation_; // sorted
    std::vector<std::uint32_t> denseCorrelation_;         // correlation - base → first position above (when dense)
    std::int64_t denseCorrelationBase_ = 0;
    std::unordered_map<std::int64_t, std::vector<EventIndex>> gpuAnnotationsByExternalId_;
    bool correlationsSpanProcesses_ = false;
    std::map<TraceId, TraceId> deviceOwner_; // GPU pid → the CPU process launching onto it
    std::vector<Finding> duplicateCorrelationFindings_;
};

} // namespace linkscope::core
