#pragma once
// SegmentedVector<T>: a sequence held in chunks of varying size (about kTarget elements each),
// each chunk immutable and shared through a shared_ptr. A copy shares every chunk; insert() and
// erase() at any position copy one chunk and the chunk table (one pointer per kTarget elements),
// never the elements of the others. This is what keeps a sorted order of millions of ids patchable
// per correction in time proportional to what changed, where CowVector (fixed chunks, indexed by a
// shift) cannot insert (docs/architecture.md, "Ownership and sharing").
//
// Reads: operator[] and iterator arithmetic find the chunk by a binary search over the chunk starts
// (O(log chunks)); ++ on an iterator is O(1). Not thread-safe for writes; a SegmentedVector shared
// through shared_ptr<const …> is never written.

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <vector>

namespace linkscope::core {

template <typename T, std::size_t kTarget = 2048>
class SegmentedVector {
public:
    using value_type = T;
    using size_type = std::size_t;

    SegmentedVector() = default;
    explicit SegmentedVector(const std::vector<T> &values) { assign(values); }

    void assign(const std::vector<T> &values)
    {
        chunks_.clear();
        starts_.clear();
        for (std::size_t at = 0; at < values.size(); at += kTarget) {
            const std::size_t end = std::min(values.size(), at + kTarget);
            starts_.push_back(at);
            chunks_.push_back(std::make_shared<const Chunk>(values.begin() + static_cast<std::ptrdiff_t>(at),
                                                            values.begin() + static_cast<std::ptrdiff_t>(end)));
        }
        size_ = values.size();
    }

    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    std::size_t chunkCount() const { return chunks_.size(); }
    const T &operator[](std::size_t i) const
    {
        const std::size_t c = chunkOf(i);
        return (*chunks_[c])[i - starts_[c]];
    }

    // Inserts `value` before position `pos` (pos == size() appends).
    void insert(std::size_t pos, T value)
    {
        if (chunks_.empty()) {
            chunks_.push_back(std::make_shared<const Chunk>(1, std::move(value)));
            starts_.push_back(0);
            size_ = 1;
            return;
        }
        // Position `size()` belongs to the last chunk; otherwise to the chunk holding `pos`.
        const std::size_t c = pos >= size_ ? chunks_.size() - 1 : chunkOf(pos);
        Chunk copy(*chunks_[c]);
        copy.insert(copy.begin() + static_cast<std::ptrdiff_t>(pos - starts_[c]), std::move(value));
        for (std::size_t k = c + 1; k < starts_.size(); ++k)
            ++starts_[k];
        ++size_;
        if (copy.size() >= 2 * kTarget) {
            // Split in two halves so that every chunk stays near kTarget.
            const std::size_t half = copy.size() / 2;
            auto second = std::make_shared<const Chunk>(copy.begin() + static_cast<std::ptrdiff_t>(half), copy.end());
            copy.resize(half);
            chunks_[c] = std::make_shared<const Chunk>(std::move(copy));
            chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(c + 1), std::move(second));
            starts_.insert(starts_.begin() + static_cast<std::ptrdiff_t>(c + 1), starts_[c] + half);
            return;
        }
        chunks_[c] = std::make_shared<const Chunk>(std::move(copy));
    }

    void erase(std::size_t pos)
    {
        const std::size_t c = chunkOf(pos);
        for (std::size_t k = c + 1; k < starts_.size(); ++k)
            --starts_[k];
        --size_;
        if (chunks_[c]->size() == 1) {
            chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(c));
            starts_.erase(starts_.begin() + static_cast<std::ptrdiff_t>(c));
            return;
        }
        Chunk copy(*chunks_[c]);
        copy.erase(copy.begin() + static_cast<std::ptrdiff_t>(pos - starts_[c]));
        chunks_[c] = std::make_shared<const Chunk>(std::move(copy));
    }

    // How many chunks this sequence shares with `other` (tests, benchmarks: what an edit copied).
    std::size_t sharedChunks(const SegmentedVector &other) const
    {
        std::vector<const Chunk *> mine;
        mine.reserve(chunks_.size());
        for (const auto &chunk : chunks_)
            mine.push_back(chunk.get());
        std::sort(mine.begin(), mine.end());
        std::size_t shared = 0;
        for (const auto &chunk : other.chunks_)
            shared += std::binary_search(mine.begin(), mine.end(), chunk.get());
        return shared;
    }

    std::vector<T> toVector() const
    {
        std::vector<T> out;
        out.reserve(size_);
        for (const auto &chunk : chunks_)
            out.insert(out.end(), chunk->begin(), chunk->end());
        return out;
    }

    class const_iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T *;
        using reference = const T &;
        const_iterator() = default;
        const_iterator(const SegmentedVector *v, std::size_t i) : v_(v) { seek(i); }
        reference operator*() const { return (*v_->chunks_[chunk_])[offset_]; }
        pointer operator->() const { return &**this; }
        reference operator[](difference_type n) const { return (*v_)[i_ + static_cast<std::size_t>(n)]; }
        const_iterator &operator++()
        {
            ++i_;
            if (++offset_ == v_->chunks_[chunk_]->size()) {
                ++chunk_;
                offset_ = 0;
            }
            return *this;
        }
        const_iterator operator++(int)
        {
            auto t = *this;
            ++*this;
            return t;
        }
        const_iterator &operator--()
        {
            seek(i_ - 1);
            return *this;
        }
        const_iterator operator--(int)
        {
            auto t = *this;
            --*this;
            return t;
        }
        const_iterator &operator+=(difference_type n)
        {
            seek(static_cast<std::size_t>(static_cast<difference_type>(i_) + n));
            return *this;
        }
        const_iterator &operator-=(difference_type n) { return *this += -n; }
        friend const_iterator operator+(const_iterator a, difference_type n) { return a += n; }
        friend const_iterator operator+(difference_type n, const_iterator a) { return a += n; }
        friend const_iterator operator-(const_iterator a, difference_type n) { return a -= n; }
        friend difference_type operator-(const const_iterator &a, const const_iterator &b)
        {
            return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
        }
        friend bool operator==(const const_iterator &a, const const_iterator &b) { return a.i_ == b.i_; }
        friend auto operator<=>(const const_iterator &a, const const_iterator &b) { return a.i_ <=> b.i_; }
        std::size_t position() const { return i_; }

    private:
        void seek(std::size_t i)
        {
            i_ = i;
            if (i >= v_->size_) {
                chunk_ = v_->chunks_.size();
                offset_ = 0;
                return;
            }
            chunk_ = v_->chunkOf(i);
            offset_ = i - v_->starts_[chunk_];
        }
        const SegmentedVector *v_ = nullptr;
        std::size_t i_ = 0;
        std::size_t chunk_ = 0;
        std::size_t offset_ = 0;
    };
    using iterator = const_iterator;
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size_}; }

    friend bool operator==(const SegmentedVector &a, const SegmentedVector &b)
    {
        if (a.size_ != b.size_)
            return false;
        return std::equal(a.begin(), a.end(), b.begin());
    }

private:
    using Chunk = std::vector<T>;
    std::size_t chunkOf(std::size_t i) const
    {
        return static_cast<std::size_t>(std::upper_bound(starts_.begin(), starts_.end(), i) - starts_.begin()) - 1;
    }

    std::vector<std::shared_ptr<const Chunk>> chunks_;
    std::vector<std::size_t> starts_; // starts_[c]: position of chunk c's first element
    std::size_t size_ = 0;
};

} // namespace linkscope::core
