#include "io/json/decimal.h"

#include "io/json/jsonscan.h"

#include <limits>

namespace linkscope::core::io {

namespace {

std::string_view trimToken(std::string_view t)
{
    while (!t.empty() && isJsonWhitespace(t.front()))
        t.remove_prefix(1);
    while (!t.empty() && isJsonWhitespace(t.back()))
        t.remove_suffix(1);
    if (t.size() >= 2 && t.front() == '"' && t.back() == '"') {
        t = t.substr(1, t.size() - 2);
        while (!t.empty() && isJsonWhitespace(t.front()))
            t.remove_prefix(1);
        while (!t.empty() && isJsonWhitespace(t.back()))
            t.remove_suffix(1);
    }
    return t;
}

// Parses digits/point/exponent; `fractionDropped` tells whether non-zero digits were truncated.
NumberStatus parseScaled(std::string_view t, int scaleDigits, std::int64_t &out, bool &fractionDropped)
{
    fractionDropped = false;
    std::size_t i = 0;
    bool negative = false;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) {
        negative = t[i] == '-';
        ++i;
    }
    // Collect significant digits and the decimal exponent of the last one.
    constexpr unsigned __int128 kLimit = static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max()) + 1;
    unsigned __int128 mantissa = 0;
    bool mantissaHuge = false;
    int exponent = 0; // value = mantissa * 10^exponent
    int digits = 0;
    bool dropped = false;
    auto addDigit = [&](char c, bool isFraction) {
        ++digits;
        if (mantissaHuge || mantissa > kLimit * 1000) {
            // Further digits only matter for their magnitude.
            mantissaHuge = true;
            if (!isFraction)
                ++exponent;
            else if (c != '0')
                dropped = true;
            return;
        }
        mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
        if (isFraction)
            --exponent;
    };
    const std::size_t intStart = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9')
        addDigit(t[i++], false);
    const bool hadInt = i > intStart;
    bool hadFrac = false;
    if (i < t.size() && t[i] == '.') {
        ++i;
        const std::size_t fracStart = i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9')
            addDigit(t[i++], true);
        hadFrac = i > fracStart;
    }
    if (!hadInt && !hadFrac)
        return NumberStatus::Invalid;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        bool expNegative = false;
        if (i < t.size() && (t[i] == '-' || t[i] == '+'))
            expNegative = t[i++] == '-';
        const std::size_t expStart = i;
        int e = 0;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
            if (e < 100000)
                e = e * 10 + (t[i] - '0');
            ++i;
        }
        if (i == expStart)
            return NumberStatus::Invalid;
        exponent += expNegative ? -e : e;
    }
    if (i != t.size())
        return NumberStatus::Invalid;
    (void)digits;
    exponent += scaleDigits;
    if (mantissa == 0) {
        out = 0;
        fractionDropped = dropped;
        return NumberStatus::Ok;
    }
    while (exponent < 0) {
        if (mantissa % 10 != 0)
            dropped = true;
        mantissa /= 10;
        ++exponent;
        if (mantissa == 0)
            break;
    }
    if (mantissaHuge && exponent > 0)
        return NumberStatus::Overflow;
    while (exponent > 0 && mantissa != 0) {
        mantissa *= 10;
        --exponent;
        if (mantissa > kLimit)
            return NumberStatus::Overflow;
    }
    if (mantissa > kLimit || (mantissa == kLimit && !negative))
        return NumberStatus::Overflow;
    out = negative ? static_cast<std::int64_t>(-static_cast<__int128>(mantissa)) : static_cast<std::int64_t>(mantissa);
    fractionDropped = dropped;
    return NumberStatus::Ok;
}
} // namespace

// The common shapes, "123", "-123" and "123.456", with at most 18 significant digits, without
// 128-bit arithmetic.
bool parseSimple(std::string_view t, int scaleDigits, std::int64_t &out)
{
    std::size_t i = 0;
    const bool negative = !t.empty() && t[0] == '-';
    i += negative;
    std::uint64_t v = 0;
    int digits = 0;
    const std::size_t intStart = i;
    while (i < t.size() && static_cast<unsigned>(t[i] - '0') < 10) {
        v = v * 10 + static_cast<unsigned>(t[i] - '0');
        ++i;
        ++digits;
    }
    if (i == intStart)
        return false;
    int fractionDigits = 0;
    if (i < t.size() && t[i] == '.') {
        ++i;
        const std::size_t fracStart = i;
        while (i < t.size() && static_cast<unsigned>(t[i] - '0') < 10 && fractionDigits < scaleDigits) {
            v = v * 10 + static_cast<unsigned>(t[i] - '0');
            ++i;
            ++digits;
            ++fractionDigits;
        }
        if (i == fracStart)
            return false;
        // Digits beyond the scale are truncated toward zero (sub-nanosecond).
        while (i < t.size() && static_cast<unsigned>(t[i] - '0') < 10)
            ++i;
    }
    if (i != t.size() || digits > 18)
        return false;
    for (int k = fractionDigits; k < scaleDigits; ++k)
        v *= 10;
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return false;
    out = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
    return true;
}

NumberStatus parseScaledDecimal(std::string_view token, int scaleDigits, std::int64_t &out)
{
    // JSON number tokens arrive with trailing whitespace at most; quotes are rare.
    std::string_view t = token;
    while (!t.empty() && isJsonWhitespace(t.back()))
        t.remove_suffix(1);
    if (!t.empty() && t.front() != '"' && !isJsonWhitespace(t.front()) && scaleDigits >= 0 && parseSimple(t, scaleDigits, out))
        return NumberStatus::Ok;
    bool dropped = false;
    return parseScaled(trimToken(token), scaleDigits, out, dropped);
}

NumberStatus parseIntegerText(std::string_view token, std::int64_t &out)
{
    bool dropped = false;
    const std::string_view t = trimToken(token);
    // ROCm writes stream handles as quoted hex ("0x0"); they are ids, so the bits are kept as is.
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
        if (t.size() > 18)
            return NumberStatus::Overflow;
        std::uint64_t v = 0;
        for (std::size_t i = 2; i < t.size(); ++i) {
            const char c = t[i];
            unsigned d;
            if (c >= '0' && c <= '9')
                d = unsigned(c - '0');
            else if (c >= 'a' && c <= 'f')
                d = unsigned(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                d = unsigned(c - 'A' + 10);
            else
                return NumberStatus::Invalid;
            v = v << 4 | d;
        }
        out = static_cast<std::int64_t>(v);
        return NumberStatus::Ok;
    }
    if (parseSimple(t, 0, out))
        return NumberStatus::Ok;
    const NumberStatus s = parseScaled(t, 0, out, dropped);
    if (s == NumberStatus::Ok && dropped)
        return NumberStatus::Invalid;
    return s;
}

} // namespace linkscope::core::io
