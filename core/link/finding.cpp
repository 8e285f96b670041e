#include "link/finding.h"

#include <array>
#include <stdexcept>
#include <string>

namespace linkscope::core {

namespace {
constexpr std::array<std::string_view, kFindingKindCount> kFindingKindNames = {
    "nccl_parent_is_record_param_comms",
    "policy_disagreement",
    "orphan_gpu_op",
    "gpu_before_launch",
    "launch_outside_parent",
    "host_op_without_device",
    "device_op_without_host",
    "et_parent_missing",
    "duplicate_correlation",
    "rf_id_absent",
};
} // namespace

std::string_view findingKindName(FindingKind k) { return kFindingKindNames[static_cast<std::size_t>(k)]; }

std::optional<FindingKind> findingKindFromName(std::string_view name)
{
    for (std::size_t i = 0; i < kFindingKindNames.size(); ++i)
        if (kFindingKindNames[i] == name)
            return static_cast<FindingKind>(i);
    return std::nullopt;
}

std::string_view findingSeverityName(FindingSeverity s)
{
    switch (s) {
    case FindingSeverity::Info:
        return "info";
    case FindingSeverity::Warning:
        return "warning";
    case FindingSeverity::Error:
        return "error";
    }
    return "info";
}

std::array<std::size_t, kFindingKindCount> countFindingsByKind(const FindingList &findings)
{
    std::array<std::size_t, kFindingKindCount> counts{};
    for (const Finding &f : findings)
        ++counts[static_cast<std::size_t>(f.kind)];
    return counts;
}

FindingList::FindingList(std::vector<Finding> traceWide, std::vector<Finding> perOp, std::vector<std::uint32_t> perOpBegin,
                         std::vector<Finding> hostSide)
    : traceWide_(std::make_shared<const std::vector<Finding>>(std::move(traceWide))),
      hostSide_(std::make_shared<const std::vector<Finding>>(std::move(hostSide)))
{
    opCount_ = perOpBegin.empty() ? 0 : perOpBegin.size() - 1;
    for (std::size_t first = 0; first < opCount_; first += kOpsPerChunk) {
        const std::size_t last = std::min(opCount_, first + kOpsPerChunk);
        auto chunk = std::make_shared<Chunk>();
        const std::uint32_t base = perOpBegin[first];
        chunk->items.assign(std::make_move_iterator(perOp.begin() + base),
                            std::make_move_iterator(perOp.begin() + perOpBegin[last]));
        chunk->begin.reserve(last - first + 1);
        for (std::size_t op = first; op <= last; ++op)
            chunk->begin.push_back(perOpBegin[op] - base);
        chunks_.push_back(std::move(chunk));
    }
    recount(0);
}

void FindingList::recount(std::size_t fromChunk)
{
    chunkStart_.resize(chunks_.size());
    std::size_t at = fromChunk == 0 ? 0 : chunkStart_[fromChunk - 1] + chunks_[fromChunk - 1]->items.size();
    for (std::size_t c = fromChunk; c < chunks_.size(); ++c) {
        chunkStart_[c] = at;
        at += chunks_[c]->items.size();
    }
    perOpCount_ = at;
}

const Finding &FindingList::operator[](std::size_t i) const
{
    if (i < traceWide_->size())
        return (*traceWide_)[i];
    i -= traceWide_->size();
    if (i >= perOpCount_)
        return (*hostSide_)[i - perOpCount_];
    const auto c = static_cast<std::size_t>(std::upper_bound(chunkStart_.begin(), chunkStart_.end(), i) - chunkStart_.begin())
                   - 1;
    return chunks_[c]->items[i - chunkStart_[c]];
}

std::pair<const Finding *, const Finding *> FindingList::ofGpuOp(std::size_t linkIndex) const
{
    if (linkIndex >= opCount_)
        return {nullptr, nullptr};
    const Chunk &chunk = *chunks_[linkIndex / kOpsPerChunk];
    const std::size_t op = linkIndex % kOpsPerChunk;
    return {chunk.items.data() + chunk.begin[op], chunk.items.data() + chunk.begin[op + 1]};
}

std::size_t FindingList::positionOfGpuOp(std::size_t linkIndex) const
{
    const std::size_t c = linkIndex / kOpsPerChunk;
    return traceWide_->size() + chunkStart_[c] + chunks_[c]->begin[linkIndex % kOpsPerChunk];
}

void FindingList::replaceGpuOp(std::size_t linkIndex, std::vector<Finding> findings)
{
    if (linkIndex >= opCount_)
        throw std::out_of_range("FindingList::replaceGpuOp: no GPU link " + std::to_string(linkIndex));
    const std::size_t c = linkIndex / kOpsPerChunk;
    const std::size_t op = linkIndex % kOpsPerChunk;
    const Chunk &was = *chunks_[c];
    auto chunk = std::make_shared<Chunk>();
    const std::uint32_t from = was.begin[op], to = was.begin[op + 1];
    chunk->items.reserve(was.items.size() - (to - from) + findings.size());
    chunk->items.insert(chunk->items.end(), was.items.begin(), was.items.begin() + from);
    chunk->items.insert(chunk->items.end(), std::make_move_iterator(findings.begin()), std::make_move_iterator(findings.end()));
    chunk->items.insert(chunk->items.end(), was.items.begin() + to, was.items.end());
    chunk->begin = was.begin;
    const auto delta = static_cast<std::int64_t>(findings.size()) - static_cast<std::int64_t>(to - from);
    for (std::size_t k = op + 1; k < chunk->begin.size(); ++k)
        chunk->begin[k] = static_cast<std::uint32_t>(static_cast<std::int64_t>(chunk->begin[k]) + delta);
    chunks_[c] = std::move(chunk);
    recount(c);
}

std::vector<Finding> FindingList::toVector() const
{
    std::vector<Finding> out;
    out.reserve(size());
    for (const Finding &f : *this)
        out.push_back(f);
    return out;
}

} // namespace linkscope::core
