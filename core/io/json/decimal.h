#pragma once
// Exact decimal-text → integer conversions. Kineto writes microseconds as integers, as "us.nnn"
// fractions, and sometimes quoted; a double cannot hold an absolute epoch in ns exactly, so the
// text is converted digit by digit.

#include <cstdint>
#include <string_view>

namespace linkscope::core::io {

enum class NumberStatus : std::uint8_t { Ok, Invalid, Overflow };

// Scales the decimal number in `token` (JSON number text, optionally inside quotes, surrounding
// whitespace allowed, exponent allowed) by 10^scaleDigits and truncates toward zero to an int64.
NumberStatus parseScaledDecimal(std::string_view token, int scaleDigits, std::int64_t &out);

// Microseconds text → nanoseconds.
inline NumberStatus microsToNanos(std::string_view token, std::int64_t &out) { return parseScaledDecimal(token, 3, out); }

// An integer written as a JSON number or a quoted number; "12.0" is accepted, "12.5" is not.
NumberStatus parseIntegerText(std::string_view token, std::int64_t &out);

} // namespace linkscope::core::io
