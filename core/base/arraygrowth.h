#pragma once
// How the readers grow their big output arrays (events, nodes, args text) while they parse: reserved
// once for the whole input from the density seen so far, and their pages mapped a little ahead of the
// writes.

#include <algorithm>
#include <cstddef>

namespace linkscope::core {

// Maps the pages of a large buffer that is about to be written in one go (Linux 5.14+), instead of
// one page fault per 4 KiB. Only for memory that will be used: populated pages count in RSS.
void prefaultForWrite(void *data, std::size_t bytes);
// The same for any size: for the next stretch of a growing array that is about to be filled.
void populateForWrite(void *data, std::size_t bytes);

// Reserves `v` for the whole input, where `scale` is (input bytes) / (bytes parsed so far): the first
// time, then again whenever fewer than `minSpare` elements are left. Growing by doubling would briefly
// hold two copies and copy them; reserved pages that are never written do not count in the resident
// set, so the estimate errs on the high side (x1.3, then x1.2; at least a quarter more than now).
template <typename Container>
void reserveFromDensity(Container &v, double scale, bool first, std::size_t minSpare, std::size_t slack)
{
    const std::size_t n = v.size();
    if (!first && v.capacity() - n >= minSpare)
        return;
    const double factor = first ? 1.3 : 1.2;
    v.reserve(std::max<std::size_t>(static_cast<std::size_t>(double(n) * scale * factor) + slack, n + n / 4 + minSpare));
}

// Maps the pages of a growing array that the next writes will reach, 2 MiB per call, instead of one
// page fault per 4 KiB (on these machines the fault path costs more than the writes themselves).
class PagePrefaulter {
public:
    template <typename Container>
    void ahead(Container &v)
    {
        using Element = typename Container::value_type;
        ahead(reinterpret_cast<char *>(v.data()), v.size() * sizeof(Element), v.capacity() * sizeof(Element));
    }

    void ahead(char *data, std::size_t used, std::size_t capacity)
    {
        static constexpr std::size_t kStep = 2u << 20;
        if (data != base_) { // a new allocation: nothing of it is populated yet beyond what was written
            base_ = data;
            populatedUpTo_ = used;
        }
        if (populatedUpTo_ >= used + kStep / 2 || populatedUpTo_ >= capacity)
            return;
        const std::size_t from = std::max(populatedUpTo_, used);
        const std::size_t to = std::min(capacity, from + kStep);
        populateForWrite(data + from, to - from);
        populatedUpTo_ = to;
    }

private:
    const char *base_ = nullptr;
    std::size_t populatedUpTo_ = 0; // bytes from base_
};

} // namespace linkscope::core
