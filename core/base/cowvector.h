#pragma once
// CowVector<T>: a vector of values split into fixed-size chunks, each held by a shared_ptr, so that
// a copy of the vector shares every chunk and changing one element copies only its chunk (copy on
// write). This is what lets a correction produce a new link result that shares everything it did
// not change: one edit copies a chunk of GPU links (4,096 of them) and the chunk pointers (one per
// 4,096), never the whole array (docs/architecture.md, "Ownership and sharing").
//
// Reads are as cheap as a std::vector's but for one shift: operator[], iteration, size(). Writes go
// through set(), mutate(), push_back() and pop_back(). Not thread-safe for writes; a CowVector that
// is shared through shared_ptr<const …> is never written.

#include "base/indexiterator.h"
#include "base/indices.h"

#include <cstddef>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <vector>

namespace linkscope::core {

template <typename T, unsigned kChunkBits = 12>
class CowVector {
public:
    using value_type = T;
    using size_type = std::size_t;
    static constexpr std::size_t kChunk = std::size_t(1) << kChunkBits;

    CowVector() = default;
    CowVector(std::vector<T> values) { assign(std::move(values)); }
    CowVector(std::initializer_list<T> values) { assign(std::vector<T>(values)); }

    void assign(std::vector<T> values)
    {
        chunks_.clear();
        size_ = values.size();
        if (size_ <= kChunk) {
            if (size_)
                chunks_.push_back(std::make_shared<Chunk>(std::move(values)));
            return;
        }
        chunks_.reserve((size_ + kChunk - 1) / kChunk);
        for (std::size_t at = 0; at < size_; at += kChunk) {
            const std::size_t end = std::min(size_, at + kChunk);
            auto chunk = std::make_shared<Chunk>();
            chunk->reserve(kChunk);
            chunk->insert(chunk->end(), std::make_move_iterator(values.begin() + static_cast<std::ptrdiff_t>(at)),
                          std::make_move_iterator(values.begin() + static_cast<std::ptrdiff_t>(end)));
            chunks_.push_back(std::move(chunk));
        }
    }

    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const T &operator[](std::size_t i) const { return (*chunks_[i >> kChunkBits])[i & (kChunk - 1)]; }
    template <typename Tag>
    const T &operator[](StrongIndex<Tag> i) const
    {
        return (*this)[i.get()];
    }
    template <typename Tag>
    const T &at(StrongIndex<Tag> i) const
    {
        return at(i.get());
    }
    const T &at(std::size_t i) const
    {
        if (i >= size_)
            throw std::out_of_range("CowVector::at: " + std::to_string(i) + " >= " + std::to_string(size_));
        return (*this)[i];
    }
    const T &front() const { return (*this)[0]; }
    const T &back() const { return (*this)[size_ - 1]; }

    void set(std::size_t i, T value) { mutate(i) = std::move(value); }
    // A writable reference to element i: its chunk is copied first when another vector shares it.
    T &mutate(std::size_t i) { return writable(i >> kChunkBits)[i & (kChunk - 1)]; }
    template <typename Tag>
    void set(StrongIndex<Tag> i, T value)
    {
        set(i.get(), std::move(value));
    }
    template <typename Tag>
    T &mutate(StrongIndex<Tag> i)
    {
        return mutate(i.get());
    }

    void push_back(T value)
    {
        if ((size_ & (kChunk - 1)) == 0) {
            auto chunk = std::make_shared<Chunk>();
            chunk->reserve(size_ == 0 ? 16 : kChunk);
            chunks_.push_back(std::move(chunk));
        }
        writable(chunks_.size() - 1).push_back(std::move(value));
        ++size_;
    }
    void pop_back()
    {
        writable(chunks_.size() - 1).pop_back();
        --size_;
        if ((size_ & (kChunk - 1)) == 0)
            chunks_.pop_back();
    }
    void clear()
    {
        chunks_.clear();
        size_ = 0;
    }

    // How many chunks this vector shares with `other` (tests, benchmarks: what an edit copied).
    std::size_t sharedChunks(const CowVector &other) const
    {
        std::size_t shared = 0;
        for (std::size_t c = 0; c < chunks_.size() && c < other.chunks_.size(); ++c)
            shared += chunks_[c] == other.chunks_[c];
        return shared;
    }
    std::size_t chunkCount() const { return chunks_.size(); }

    std::vector<T> toVector() const
    {
        std::vector<T> out;
        out.reserve(size_);
        for (const auto &chunk : chunks_)
            out.insert(out.end(), chunk->begin(), chunk->end());
        return out;
    }

    using const_iterator = IndexIterator<CowVector, T>;
    using iterator = const_iterator;
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size_}; }

    friend bool operator==(const CowVector &a, const CowVector &b)
    {
        if (a.size_ != b.size_)
            return false;
        for (std::size_t c = 0; c < a.chunks_.size(); ++c)
            if (a.chunks_[c] != b.chunks_[c] && *a.chunks_[c] != *b.chunks_[c])
                return false;
        return true;
    }

private:
    using Chunk = std::vector<T>;
    Chunk &writable(std::size_t c)
    {
        std::shared_ptr<Chunk> &chunk = chunks_[c];
        if (chunk.use_count() > 1) {
            auto copy = std::make_shared<Chunk>();
            copy->reserve(kChunk);
            copy->insert(copy->end(), chunk->begin(), chunk->end());
            chunk = std::move(copy);
        }
        return *chunk;
    }

    std::vector<std::shared_ptr<Chunk>> chunks_;
    std::size_t size_ = 0;
};

// A read-only array shared by every value that holds it (a per-event table that no correction
// changes): copying it is a reference-count increment. Reads as a const std::vector.
template <typename T>
class SharedArray {
public:
    using value_type = T;
    SharedArray() : values_(noValues()) { }
    SharedArray(std::vector<T> values) : values_(std::make_shared<const std::vector<T>>(std::move(values))) { }

    const T &operator[](std::size_t i) const { return (*values_)[i]; }
    template <typename Tag>
    const T &operator[](StrongIndex<Tag> i) const
    {
        return (*values_)[i.get()];
    }
    template <typename Tag>
    const T &at(StrongIndex<Tag> i) const
    {
        return values_->at(i.get());
    }
    const T &at(std::size_t i) const { return values_->at(i); }
    std::size_t size() const { return values_->size(); }
    bool empty() const { return values_->empty(); }
    const T *data() const { return values_->data(); }
    auto begin() const { return values_->begin(); }
    auto end() const { return values_->end(); }
    const std::vector<T> &vector() const { return *values_; }
    bool sharedWith(const SharedArray &other) const { return values_ == other.values_; }
    friend bool operator==(const SharedArray &a, const SharedArray &b)
    {
        return a.values_ == b.values_ || *a.values_ == *b.values_;
    }

private:
    static const std::shared_ptr<const std::vector<T>> &noValues()
    {
        static const std::shared_ptr<const std::vector<T>> none = std::make_shared<const std::vector<T>>();
        return none;
    }
    std::shared_ptr<const std::vector<T>> values_;
};

} // namespace linkscope::core
