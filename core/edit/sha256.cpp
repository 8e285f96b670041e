#include "edit/sha256.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace linkscope::core {

struct Sha256::Context {
    EVP_MD_CTX *md = nullptr;
    ~Context() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : context_(std::make_unique<Context>())
{
    context_->md = EVP_MD_CTX_new();
    if (!context_->md || EVP_DigestInit_ex(context_->md, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("OpenSSL: cannot set up SHA-256");
}

Sha256::~Sha256() = default;
Sha256::Sha256(Sha256 &&) noexcept = default;
Sha256 &Sha256::operator=(Sha256 &&) noexcept = default;

void Sha256::update(const void *data, std::size_t size)
{
    if (size > 0 && EVP_DigestUpdate(context_->md, data, size) != 1)
        throw std::runtime_error("OpenSSL: SHA-256 update failed");
}

Sha256::Digest Sha256::finish()
{
    Digest digest{};
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(context_->md, digest.data(), &length) != 1 || length != digest.size())
        throw std::runtime_error("OpenSSL: SHA-256 finish failed");
    return digest;
}

std::string Sha256::toHex(const Digest &digest)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string text(digest.size() * 2, '0');
    for (std::size_t i = 0; i < digest.size(); ++i) {
        text[2 * i] = kHex[digest[i] >> 4];
        text[2 * i + 1] = kHex[digest[i] & 0xf];
    }
    return text;
}

std::string sha256Hex(std::string_view data)
{
    Sha256 hash;
    hash.update(data);
    return Sha256::toHex(hash.finish());
}

FileFingerprint fingerprintFile(const std::string &path, const ProgressFn &progress)
{
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file)
        throw LoadError(path, kUnknownOffset, std::string("cannot open: ") + std::strerror(errno));
    std::uint64_t total = 0;
    if (std::fseek(file.get(), 0, SEEK_END) == 0) {
        const long end = std::ftell(file.get());
        total = end > 0 ? static_cast<std::uint64_t>(end) : 0;
        std::rewind(file.get());
    }
    Sha256 hash;
    std::vector<std::uint8_t> chunk(std::size_t(4) << 20);
    std::uint64_t done = 0;
    for (;;) {
        const std::size_t got = std::fread(chunk.data(), 1, chunk.size(), file.get());
        if (got > 0) {
            hash.update(chunk.data(), got);
            done += got;
            if (progress && !progress(done, total))
                throw Cancelled();
        }
        if (got < chunk.size()) {
            if (std::ferror(file.get()))
                throw LoadError(path, done, std::string("read failed: ") + std::strerror(errno));
            break;
        }
    }
    return FileFingerprint{path, done, Sha256::toHex(hash.finish())};
}

} // namespace linkscope::core
