#pragma once
// The generator's random draws and hashes: identical on every platform (std distributions are not),
// so a seed gives the same files everywhere.

#include <cstdint>
#include <string_view>

namespace linkscope::gen {

// splitmix64: tiny and fast.
class Rng {
public:
    explicit Rng(std::uint64_t seed) : state_(seed ^ 0x5bd1e995a5a5a5a5ULL) { }
    std::uint64_t next()
    {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // Uniform in [lo, hi].
    std::int64_t range(std::int64_t lo, std::int64_t hi)
    {
        return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
    }
    bool percent(int p) { return static_cast<int>(next() % 100) < p; }

private:
    std::uint64_t state_;
};

inline std::uint64_t mix(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

inline std::uint64_t hashText(std::string_view text)
{
    std::uint64_t h = 1469598103934665603ULL;
    for (char c : text)
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    return h;
}

} // namespace linkscope::gen
