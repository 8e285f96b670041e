#pragma once
// A random-access iterator over any container that answers `operator[](std::size_t)` with a const
// reference: a position and the container. For containers whose elements are not contiguous
// (CowVector's chunks, FindingList's three parts), where a pointer cannot be the iterator.

#include <cstddef>
#include <iterator>

namespace linkscope::core {

template <typename Container, typename T>
class IndexIterator {
public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T *;
    using reference = const T &;

    IndexIterator() = default;
    IndexIterator(const Container *c, std::size_t i) : c_(c), i_(i) { }
    reference operator*() const { return (*c_)[i_]; }
    pointer operator->() const { return &(*c_)[i_]; }
    reference operator[](difference_type n) const { return (*c_)[i_ + static_cast<std::size_t>(n)]; }
    IndexIterator &operator++()
    {
        ++i_;
        return *this;
    }
    IndexIterator operator++(int)
    {
        auto t = *this;
        ++i_;
        return t;
    }
    IndexIterator &operator--()
    {
        --i_;
        return *this;
    }
    IndexIterator operator--(int)
    {
        auto t = *this;
        --i_;
        return t;
    }
    IndexIterator &operator+=(difference_type n)
    {
        i_ = static_cast<std::size_t>(static_cast<difference_type>(i_) + n);
        return *this;
    }
    IndexIterator &operator-=(difference_type n) { return *this += -n; }
    friend IndexIterator operator+(IndexIterator a, difference_type n) { return a += n; }
    friend IndexIterator operator+(difference_type n, IndexIterator a) { return a += n; }
    friend IndexIterator operator-(IndexIterator a, difference_type n) { return a -= n; }
    friend difference_type operator-(const IndexIterator &a, const IndexIterator &b)
    {
        return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const IndexIterator &a, const IndexIterator &b) { return a.i_ == b.i_; }
    friend auto operator<=>(const IndexIterator &a, const IndexIterator &b) { return a.i_ <=> b.i_; }
    std::size_t position() const { return i_; }

private:
    const Container *c_ = nullptr;
    std::size_t i_ = 0;
};

} // namespace linkscope::core
