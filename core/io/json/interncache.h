#pragma once
// A small direct-mapped cache in front of StringPool::intern for the readers' hot loops. Trace files
// repeat a few thousand distinct names and categories millions of times; a cache hit costs one cheap
// hash of at most 24 bytes and one comparison instead of hashing the whole string (kernel names run
// to hundreds of bytes) and probing the pool's hash table. A collision only costs a pool lookup.

#include "model/common.h"

#include <array>
#include <cstring>

namespace linkscope::core::io {

class InternCache {
public:
    explicit InternCache(StringPool &pool) : pool_(pool) { }

    StringId intern(std::string_view text)
    {
        if (text.empty())
            return 0; // the pool's empty string (and no memcmp/memcpy on a null pointer)
        Slot &slot = slots_[quickHash(text) & (kSlots - 1)];
        if (slot.text.size() == text.size() && std::memcmp(slot.text.data(), text.data(), text.size()) == 0)
            return slot.id;
        const StringId id = pool_.intern(text);
        slot = Slot{pool_.at(id), id};
        return id;
    }

    // Forgets every slot (the pool's contents were replaced).
    void clear() { slots_.fill(Slot{}); }

private:
    static constexpr std::size_t kSlots = 4096;
    struct Slot {
        std::string_view text; // the pool's copy: stable for the pool's lifetime; empty = unused
        StringId id = 0;
    };

    static std::uint64_t load(const char *p, std::size_t n)
    {
        std::uint64_t v = 0;
        std::memcpy(&v, p, n);
        return v;
    }
    static std::uint64_t quickHash(std::string_view s)
    {
        const std::size_t n = s.size();
        std::uint64_t h = n * 0x9E3779B97F4A7C15ull;
        if (n <= 8) {
            h ^= load(s.data(), n);
        } else {
            h ^= load(s.data(), 8);
            h = (h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ull;
            h ^= load(s.data() + n / 2 - 4, 8);
            h = (h ^ (h >> 31)) * 0x94D049BB133111EBull;
            h ^= load(s.data() + n - 8, 8);
        }
        h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull;
        return h ^ (h >> 32);
    }

    StringPool &pool_;
    std::array<Slot, kSlots> slots_{};
};

} // namespace linkscope::core::io
