#pragma once
// SHA-256, streaming, from OpenSSL's libcrypto (EVP; it uses the CPU's SHA extensions when present).
// Used to fingerprint a sidecar's input traces (docs/sidecar-format.md): multi-gigabyte files.

#include "model/common.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace linkscope::core {

class Sha256 {
public:
    using Digest = std::array<std::uint8_t, 32>;

    Sha256();
    ~Sha256();
    Sha256(Sha256 &&) noexcept;
    Sha256 &operator=(Sha256 &&) noexcept;

    void update(const void *data, std::size_t size);
    void update(std::string_view text) { update(text.data(), text.size()); }
    Digest finish(); // the object must not be updated afterwards

    static std::string toHex(const Digest &digest);

private:
    struct Context;
    std::unique_ptr<Context> context_;
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
