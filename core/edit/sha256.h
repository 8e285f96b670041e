#pragma once
// SHA-256 (FIPS 180-4), streaming. Used to fingerprint a sidecar's input traces: multi-gigabyte
// files, so the x86 SHA extensions are used when the CPU has them (checked at run time).

#include "model/common.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace linkscope::core {

class Sha256 {
public:
    using Digest = std::array<std::uint8_t, 32>;

    Sha256();
    void update(const void *data, std::size_t size);
    void update(std::string_view text) { update(text.data(), text.size()); }
    Digest finish(); // the object must not be updated afterwards

    static std::string toHex(const Digest &digest);

    // Tests compare both block functions; production code never needs these.
    static bool hardwareAvailable();
    void forcePortable() { portableOnly_ = true; }

private:
    void compress(const std::uint8_t *blocks, std::size_t count);

    std::array<std::uint32_t, 8> state_;
    std::array<std::uint8_t, 64> buffer_{};
    std::size_t buffered_ = 0;
    std::uint64_t totalBytes_ = 0;
    bool portableOnly_ = false;
};

std::string sha256Hex(std::string_view data);

// Size and SHA-256 of a file as stored on disk (the compressed bytes for a .gz trace).
struct FileFingerprint {
    std::string path;
    std::uint64_t size = 0;
    std::string sha256; // lower-case hex
};

// Streams the file. Throws LoadError if it cannot be read, Cancelled if progress returns false.
FileFingerprint fingerprintFile(const std::string &path, const ProgressFn &progress = {});

} // namespace linkscope::core
