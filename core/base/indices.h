#pragma once
// Strong index types: one type per index space, so that an event index cannot be passed where a
// host node or a lane is meant, and one spelling of "none" for all of them (`kNone`).
//
// In the style of heaptrack's src/util/indices.h: a thin wrapper over the raw 32-bit value, free to
// copy, ordered and hashable, with the raw value one call away (`.value`, `.get()`) for the array it
// indexes. `IndexedVector<I, T>` is a vector that can only be indexed by its own index type.
//
// Which index space is which (see docs/architecture.md, "Index spaces"):
//   EventIndex     DeviceTrace::events            (one Kineto trace)
//   HostNodeIndex  HostTrace::nodes               (one host ET)
//   LaneIndex      TraceIndex::lanes
//   GpuLinkIndex   LinkSet::gpuLinks              (one per GPU op)
//   FindingIndex   Findings::list
//   ExportNodeIndex EtPlusGraph::nodes             (a node of the exported graph; its new id)
//   CommIndex      HostTrace::commAttrs           (record_param_comms attrs of one host ET)
//   EdgeIndex      LinkSet::edges                 (ui/ has DrawEdgeIndex: a slot of TraceDocument::edges())
//   ThreadIndex    DeviceTrace::threads           (one (pid, tid) of a Kineto trace)
//   RankId         a rank of a distributed job    (the rank number, not a position in a list)
//
// A container indexed by one of them takes it as is (IndexedVector, CowVector, SharedArray); a
// std::vector takes `.get()`.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace linkscope::core {

// The one "none": converts to every strong index type and compares equal to its none value.
struct NoneIndex {
    explicit constexpr NoneIndex() = default;
};
inline constexpr NoneIndex kNone{};

template <typename Tag>
struct StrongIndex {
    using value_type = std::uint32_t;
    static constexpr value_type kNoneValue = std::numeric_limits<value_type>::max();

    value_type value = kNoneValue;

    constexpr StrongIndex() = default;
    constexpr StrongIndex(NoneIndex) { }
    constexpr explicit StrongIndex(value_type raw) : value(raw) { }
    // From a container position (size_t): explicit, and the caller guarantees it fits.
    static constexpr StrongIndex at(std::size_t position) { return StrongIndex(static_cast<value_type>(position)); }

    constexpr bool isNone() const { return value == kNoneValue; }
    constexpr bool valid() const { return value != kNoneValue; }
    constexpr explicit operator bool() const { return valid(); }
    constexpr std::size_t get() const { return value; }

    // Valid and below `size` (an index into a container of that size).
    constexpr bool in(std::size_t size) const { return valid() && value < size; }

    constexpr StrongIndex &operator++()
    {
        ++value;
        return *this;
    }
    constexpr StrongIndex next() const { return StrongIndex(value + 1); }

    friend constexpr bool operator==(StrongIndex, StrongIndex) = default;
    friend constexpr auto operator<=>(StrongIndex, StrongIndex) = default;
    friend constexpr bool operator==(StrongIndex a, NoneIndex) { return a.isNone(); }
};

using EventIndex = StrongIndex<struct EventIndexTag>;
using HostNodeIndex = StrongIndex<struct HostNodeIndexTag>;
using LaneIndex = StrongIndex<struct LaneIndexTag>;
using GpuLinkIndex = StrongIndex<struct GpuLinkIndexTag>;
using FindingIndex = StrongIndex<struct FindingIndexTag>;
using ThreadIndex = StrongIndex<struct ThreadIndexTag>;
using ExportNodeIndex = StrongIndex<struct ExportNodeIndexTag>;
using CommIndex = StrongIndex<struct CommIndexTag>;
using EdgeIndex = StrongIndex<struct EdgeIndexTag>;
using RankId = StrongIndex<struct RankIdTag>;

template <typename T>
inline constexpr bool kIsStrongIndex = false;
template <typename Tag>
inline constexpr bool kIsStrongIndex<StrongIndex<Tag>> = true;

// A vector indexed by one index type only. Iteration and size() as std::vector.
template <typename Index, typename T>
class IndexedVector {
public:
    using value_type = T;
    IndexedVector() = default;
    explicit IndexedVector(std::vector<T> values) : values_(std::move(values)) { }
    IndexedVector(std::size_t count, const T &value) : values_(count, value) { }

    const T &operator[](Index i) const { return values_[i.get()]; }
    T &operator[](Index i) { return values_[i.get()]; }
    // The value at `i`, or `fallback` when `i` is none or out of range.
    const T &at(Index i, const T &fallback) const { return i.in(values_.size()) ? values_[i.get()] : fallback; }

    std::size_t size() const { return values_.size(); }
    bool empty() const { return values_.empty(); }
    bool contains(Index i) const { return i.in(values_.size()); }
    Index push_back(T value)
    {
        values_.push_back(std::move(value));
        return Index::at(values_.size() - 1);
    }
    void reserve(std::size_t n) { values_.reserve(n); }
    void assign(std::size_t n, const T &value) { values_.assign(n, value); }
    auto begin() const { return values_.begin(); }
    auto end() const { return values_.end(); }
    auto begin() { return values_.begin(); }
    auto end() { return values_.end(); }
    const std::vector<T> &raw() const { return values_; }
    std::vector<T> &raw() { return values_; }
    friend bool operator==(const IndexedVector &, const IndexedVector &) = default;

private:
    std::vector<T> values_;
};

} // namespace linkscope::core

template <typename Tag>
struct std::hash<linkscope::core::StrongIndex<Tag>> {
    std::size_t operator()(linkscope::core::StrongIndex<Tag> i) const noexcept { return std::hash<std::uint32_t>()(i.value); }
};
