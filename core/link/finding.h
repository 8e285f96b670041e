#pragma once
// Findings: links and inputs that look wrong, each with a suggested correction.

#include "base/indexiterator.h"
#include "model/common.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

enum class FindingKind : std::uint8_t {
    NcclParentIsRecordParamComms, // GPU op parented to record_param_comms while an nccl:* op encloses its launch
    PolicyDisagreement,           // the policies choose different parents
    OrphanGpuOp,                  // no parent; the reason is in the message and the GpuLink
    GpuBeforeLaunch,              // GPU op starts before its launch call
    LaunchOutsideParent,          // launch not inside its parent's interval
    HostOpWithoutDevice,          // ET op (with rf_id) with no Kineto CPU event
    DeviceOpWithoutHost,          // Kineto CPU op with no ET node (pair only)
    EtParentMissing,              // ET node whose parent id is absent from the file
    DuplicateCorrelation,         // several launch events share (pid, correlation)
    RfIdAbsent,                   // Kineto has no Record function id: ET observer not attached
};
// (A dependency cycle in the exported graph is not a finding: the exporter refuses it with the
// nodes named, ExportError.)
inline constexpr int kFindingKindCount = static_cast<int>(FindingKind::RfIdAbsent) + 1;
std::string_view findingKindName(FindingKind k); // stable snake_case, e.g. "nccl_parent_is_record_param_comms"
std::optional<FindingKind> findingKindFromName(std::string_view name); // files (sidecar, reports) use these names

enum class FindingSeverity : std::uint8_t { Info, Warning, Error };
std::string_view findingSeverityName(FindingSeverity s);

enum class SubjectKind : std::uint8_t { DeviceEvent, HostNode, Trace };

struct Finding {
    FindingKind kind = FindingKind::PolicyDisagreement;
    FindingSeverity severity = FindingSeverity::Warning;
    SubjectKind subjectKind = SubjectKind::DeviceEvent;
    EventIndex event{};       // the subject when subjectKind is DeviceEvent
    HostNodeIndex hostNode{}; // the subject when subjectKind is HostNode
    std::string message;
    std::string suggestion;       // human-readable suggested correction
    EventIndex suggestedParent{}; // for re-parent suggestions: the CPU event to attach to
};

// Findings in report order, in three parts: trace-wide (duplicate correlations), one group per GPU
// op (in GPU op order), host-side. The per-GPU-op groups are kept in chunks of kOpsPerChunk ops held
// by shared_ptr: a copy of the list shares every chunk, and replacing one GPU op's findings (after
// a correction) copies only that op's chunk. Reads as a vector: size(), operator[], iteration.
class FindingList {
public:
    static constexpr std::size_t kOpsPerChunk = 1024;

    FindingList() = default;
    // `perOp` holds every GPU op's findings back to back; op i's are [perOpBegin[i], perOpBegin[i+1]).
    FindingList(std::vector<Finding> traceWide, std::vector<Finding> perOp, std::vector<std::uint32_t> perOpBegin,
                std::vector<Finding> hostSide);

    std::size_t size() const { return traceWide_->size() + perOpCount_ + hostSide_->size(); }
    bool empty() const { return size() == 0; }
    const Finding &operator[](std::size_t i) const;
    const Finding &at(std::size_t i) const
    {
        if (i >= size())
            throw std::out_of_range("FindingList::at: " + std::to_string(i) + " >= " + std::to_string(size()));
        return (*this)[i];
    }

    // The findings of GPU link `linkIndex` (a contiguous run of this list).
    std::pair<const Finding *, const Finding *> ofGpuOp(std::size_t linkIndex) const;
    // Position in the list of the first finding of GPU link `linkIndex`.
    std::size_t positionOfGpuOp(std::size_t linkIndex) const;
    void replaceGpuOp(std::size_t linkIndex, std::vector<Finding> findings);
    std::size_t gpuOpCount() const { return opCount_; }

    const std::vector<Finding> &traceWide() const { return *traceWide_; }
    const std::vector<Finding> &hostSide() const { return *hostSide_; }
    std::vector<Finding> toVector() const;

    using const_iterator = IndexIterator<FindingList, Finding>;
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

private:
    struct Chunk {
        std::vector<Finding> items;
        std::vector<std::uint32_t> begin; // ops in the chunk + 1 offsets into items
    };
    void recount(std::size_t fromChunk);

    std::shared_ptr<const std::vector<Finding>> traceWide_ = std::make_shared<const std::vector<Finding>>();
    std::shared_ptr<const std::vector<Finding>> hostSide_ = std::make_shared<const std::vector<Finding>>();
    std::vector<std::shared_ptr<const Chunk>> chunks_;
    std::vector<std::size_t> chunkStart_; // position among the per-op findings of each chunk's first
    std::size_t perOpCount_ = 0;
    std::size_t opCount_ = 0;
};

// Summary: how many findings of each kind (indexed by FindingKind).
std::array<std::size_t, kFindingKindCount> countFindingsByKind(const FindingList &findings);

} // namespace linkscope::core
