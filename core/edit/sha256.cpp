#include "edit/sha256.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define LINKSCOPE_SHA_X86 1
#endif

namespace linkscope::core {

namespace {

alignas(16) constexpr std::uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compressPortable(std::uint32_t *state, const std::uint8_t *data, std::size_t blocks)
{
    for (; blocks > 0; --blocks, data += 64) {
        std::uint32_t w[64];
        for (int i = 0; i < 16; ++i)
            w[i] = (std::uint32_t(data[4 * i]) << 24) | (std::uint32_t(data[4 * i + 1]) << 16) |
                   (std::uint32_t(data[4 * i + 2]) << 8) | std::uint32_t(data[4 * i + 3]);
        for (int i = 16; i < 64; ++i) {
            const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        std::uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int i = 0; i < 64; ++i) {
            const std::uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
            const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
}

#ifdef LINKSCOPE_SHA_X86
// The SHA-NI instructions keep the state as ABEF / CDGH halves and do two rounds per
// sha256rnds2; the message schedule runs four words at a time with sha256msg1/msg2.
__attribute__((target("sha,sse4.1,ssse3"))) void compressHardware(std::uint32_t *state, const std::uint8_t *data,
                                                                    std::size_t blocks)
{
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_loadu_si128(reinterpret_cast<const __m128i *>(&state[0]));
    __m128i state1 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(&state[4]));
    tmp = _mm_shuffle_epi32(tmp, 0xB1);          // CDAB
    state1 = _mm_shuffle_epi32(state1, 0x1B);    // EFGH
    __m128i state0 = _mm_alignr_epi8(tmp, state1, 8); // ABEF
    state1 = _mm_blend_epi16(state1, tmp, 0xF0);      // CDGH

    for (; blocks > 0; --blocks, data += 64) {
        const __m128i abefSave = state0;
        const __m128i cdghSave = state1;
        __m128i w[4];
        for (int group = 0; group < 16; ++group) {
            __m128i &current = w[group & 3];
            if (group < 4) {
                current = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i *>(data + 16 * group)), byteSwap);
            } else {
                // W[t..t+3] = msg2(msg1(W[t-16..], W[t-12..]) + W[t-7..t-4], W[t-4..t-1])
                const __m128i &m16 = w[group & 3]; // still holds group-4
                const __m128i &m12 = w[(group - 3) & 3];
                const __m128i &m8 = w[(group - 2) & 3];
                const __m128i &m4 = w[(group - 1) & 3];
                __m128i next = _mm_sha256msg1_epu32(m16, m12);
                next = _mm_add_epi32(next, _mm_alignr_epi8(m4, m8, 4));
                current = _mm_sha256msg2_epu32(next, m4);
            }
            __m128i msg = _mm_add_epi32(current, _mm_load_si128(reinterpret_cast<const __m128i *>(&kRound[4 * group])));
            state1 = _mm_sha256rnds2_epu32(state1, state0, msg);
            msg = _mm_shuffle_epi32(msg, 0x0E);
            state0 = _mm_sha256rnds2_epu32(state0, state1, msg);
        }
        state0 = _mm_add_epi32(state0, abefSave);
        state1 = _mm_add_epi32(state1, cdghSave);
    }

    tmp = _mm_shuffle_epi32(state0, 0x1B);       // FEBA
    state1 = _mm_shuffle_epi32(state1, 0xB1);    // DCHG
    state0 = _mm_blend_epi16(tmp, state1, 0xF0); // DCBA
    state1 = _mm_alignr_epi8(state1, tmp, 8);    // HGFE
    _mm_storeu_si128(reinterpret_cast<__m128i *>(&state[0]), state0);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(&state[4]), state1);
}
#endif

bool detectHardware()
{
#ifdef LINKSCOPE_SHA_X86
    // CPUID directly: clang 14's __builtin_cpu_supports does not know "sha".
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return false;
    const bool ssse3 = (ecx & bit_SSSE3) != 0;
    const bool sse41 = (ecx & bit_SSE4_1) != 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        return false;
    const bool sha = (ebx & (1u << 29)) != 0; // CPUID.(EAX=7,ECX=0):EBX.SHA[bit 29]
    return sha && sse41 && ssse3;
#else
    return false;
#endif
}

} // namespace

Sha256::Sha256()
    : state_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}
{
}

bool Sha256::hardwareAvailable()
{
    static const bool available = detectHardware();
    return available;
}

void Sha256::compress(const std::uint8_t *blocks, std::size_t count)
{
#ifdef LINKSCOPE_SHA_X86
    if (!portableOnly_ && hardwareAvailable()) {
        compressHardware(state_.data(), blocks, count);
        return;
    }
#endif
    compressPortable(state_.data(), blocks, count);
}

void Sha256::update(const void *data, std::size_t size)
{
    auto *bytes = static_cast<const std::uint8_t *>(data);
    totalBytes_ += size;
    if (buffered_ > 0) {
        const std::size_t take = std::min(size, buffer_.size() - buffered_);
        std::memcpy(buffer_.data() + buffered_, bytes, take);
        buffered_ += take;
        bytes += take;
        size -= take;
        if (buffered_ < buffer_.size())
            return;
        compress(buffer_.data(), 1);
        buffered_ = 0;
    }
    if (const std::size_t blocks = size / 64; blocks > 0) {
        compress(bytes, blocks);
        bytes += blocks * 64;
        size -= blocks * 64;
    }
    std::memcpy(buffer_.data(), bytes, size);
    buffered_ = size;
}

Sha256::Digest Sha256::finish()
{
    const std::uint64_t bitLength = totalBytes_ * 8;
    std::uint8_t padding[72] = {0x80};
    const std::size_t padBytes = (buffered_ < 56 ? 56 : 120) - buffered_;
    for (int i = 0; i < 8; ++i)
        padding[padBytes + i] = static_cast<std::uint8_t>(bitLength >> (56 - 8 * i));
    update(padding, padBytes + 8);
    Digest digest;
    for (int i = 0; i < 8; ++i)
        for (int b = 0; b < 4; ++b)
            digest[4 * i + b] = static_cast<std::uint8_t>(state_[i] >> (24 - 8 * b));
    return digest;
}

std::string Sha256::toHex(const Digest &digest)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(64);
    for (std::uint8_t byte : digest) {
        out += kHex[byte >> 4];
        out += kHex[byte & 15];
    }
    return out;
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
