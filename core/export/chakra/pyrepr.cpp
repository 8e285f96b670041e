#include "export/chakra/pyrepr.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <system_error>

namespace linkscope::core {

namespace {

constexpr char kHex[] = "0123456789abcdef";

bool isJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void appendUtf8(std::string &out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

// One code point as Python's repr shows it inside a string quoted with `quote`.
void appendReprChar(std::string &out, std::uint32_t cp, char quote)
{
    switch (cp) {
    case '\\':
        out += "\\\\";
        return;
    case '\n':
        out += "\\n";
        return;
    case '\r':
        out += "\\r";
        return;
    case '\t':
        out += "\\t";
        return;
    default:
        break;
    }
    if (cp == static_cast<std::uint32_t>(quote)) {
        out.push_back('\\');
        out.push_back(quote);
        return;
    }
    // Not printable for Python: C0/C1 controls, DEL, no-break space, soft hyphen.
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0xA0) || cp == 0xAD) {
        out += "\\x";
        out.push_back(kHex[cp >> 4]);
        out.push_back(kHex[cp & 15]);
        return;
    }
    appendUtf8(out, cp);
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool readHex4(std::string_view s, std::size_t at, std::uint32_t &value)
{
    if (at + 4 > s.size())
        return false;
    value = 0;
    for (std::size_t k = 0; k < 4; ++k) {
        const int h = hexValue(s[at + k]);
        if (h < 0)
            return false;
        value = value * 16 + static_cast<std::uint32_t>(h);
    }
    return true;
}

// Decodes the JSON string starting at s[pos] == '"' into code points; pos ends after the closing quote.
bool decodeString(std::string_view s, std::size_t &pos, std::u32string &text)
{
    text.clear();
    ++pos;
    while (pos < s.size()) {
        const auto c = static_cast<unsigned char>(s[pos]);
        if (c == '"') {
            ++pos;
            return true;
        }
        if (c == '\\') {
            if (pos + 1 >= s.size())
                return false;
            const char e = s[pos + 1];
            pos += 2;
            switch (e) {
            case '"':
                text.push_back('"');
                break;
            case '\\':
                text.push_back('\\');
                break;
            case '/':
                text.push_back('/');
                break;
            case 'b':
                text.push_back('\b');
                break;
            case 'f':
                text.push_back('\f');
                break;
            case 'n':
                text.push_back('\n');
                break;
            case 'r':
                text.push_back('\r');
                break;
            case 't':
                text.push_back('\t');
                break;
            case 'u': {
                std::uint32_t cp = 0;
                if (!readHex4(s, pos, cp))
                    return false;
                pos += 4;
                std::uint32_t low = 0;
                if (cp >= 0xD800 && cp < 0xDC00 && pos + 6 <= s.size() && s[pos] == '\\' && s[pos + 1] == 'u'
                    && readHex4(s, pos + 2, low) && low >= 0xDC00 && low < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    pos += 6;
                }
                text.push_back(cp);
                break;
            }
            default:
                return false;
            }
            continue;
        }
        // UTF-8 sequence (not re-validated: a stray byte is kept as its own code point).
        std::uint32_t cp = c;
        int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
        if (extra) {
            cp = c & (0x3F >> extra);
            bool ok = true;
            for (int k = 1; k <= extra; ++k) {
                if (pos + static_cast<std::size_t>(k) >= s.size()
                    || (static_cast<unsigned char>(s[pos + static_cast<std::size_t>(k)]) & 0xC0) != 0x80) {
                    ok = false;
                    break;
                }
                cp = (cp << 6) | (static_cast<unsigned char>(s[pos + static_cast<std::size_t>(k)]) & 0x3F);
            }
            if (!ok) {
                cp = c;
                extra = 0;
            }
        }
        text.push_back(cp);
        pos += 1 + static_cast<std::size_t>(extra);
    }
    return false;
}

void appendReprString(std::string &out, const std::u32string &text)
{
    bool single = false, dbl = false;
    for (char32_t c : text) {
        single = single || c == U'\'';
        dbl = dbl || c == U'"';
    }
    const char quote = single && !dbl ? '"' : '\'';
    out.push_back(quote);
    for (char32_t c : text)
        appendReprChar(out, static_cast<std::uint32_t>(c), quote);
    out.push_back(quote);
}

} // namespace

void appendPythonFloat(std::string &out, double value)
{
    if (std::isnan(value)) {
        out += "nan";
        return;
    }
    if (std::isinf(value)) {
        out += value < 0 ? "-inf" : "inf";
        return;
    }
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
    // text: [-]d[.ddd]e(+|-)xx, shortest round trip.
    bool negative = false;
    if (!text.empty() && text.front() == '-') {
        negative = true;
        text.remove_prefix(1);
    }
    const std::size_t e = text.find('e');
    std::string digits;
    for (char c : text.substr(0, e))
        if (c != '.')
            digits.push_back(c);
    int exponent = 0;
    std::from_chars(text.data() + e + (text[e + 1] == '+' ? 2 : 1), text.data() + text.size(), exponent);
    if (negative)
        out.push_back('-');
    if (exponent >= -4 && exponent < 16) {
        if (exponent >= 0) {
            const auto intDigits = static_cast<std::size_t>(exponent) + 1;
            if (digits.size() <= intDigits) {
                out += digits;
                out.append(intDigits - digits.size(), '0');
                out += ".0";
            } else {
                out.append(digits, 0, intDigits);
                out.push_back('.');
                out.append(digits, intDigits);
            }
        } else {
            out += "0.";
            out.append(static_cast<std::size_t>(-exponent - 1), '0');
            out += digits;
        }
        return;
    }
    out.push_back(digits[0]);
    if (digits.size() > 1) {
        out.push_back('.');
        out.append(digits, 1);
    }
    out.push_back('e');
    out.push_back(exponent < 0 ? '-' : '+');
    const int magnitude = exponent < 0 ? -exponent : exponent;
    if (magnitude < 10)
        out.push_back('0');
    out += std::to_string(magnitude);
}

bool appendPythonRepr(std::string &out, std::string_view s)
{
    const std::size_t mark = out.size();
    auto fail = [&] {
        out.resize(mark);
        return false;
    };
    std::u32string text;
    std::size_t pos = 0;
    while (pos < s.size()) {
        const char c = s[pos];
        if (isJsonSpace(c)) {
            ++pos;
            continue;
        }
        switch (c) {
        case '[':
        case ']':
        case '{':
        case '}':
            out.push_back(c);
            ++pos;
            continue;
        case ',':
            out += ", ";
            ++pos;
            continue;
        case ':':
            out += ": ";
            ++pos;
            continue;
        case '"':
            if (!decodeString(s, pos, text))
                return fail();
            appendReprString(out, text);
            continue;
        default:
            break;
        }
        auto word = [&](std::string_view w) { return s.substr(pos, w.size()) == w; };
        if (word("true")) {
            out += "True";
            pos += 4;
        } else if (word("false")) {
            out += "False";
            pos += 5;
        } else if (word("null")) {
            out += "None";
            pos += 4;
        } else if (word("NaN")) {
            out += "nan";
            pos += 3;
        } else if (word("Infinity")) {
            out += "inf";
            pos += 8;
        } else if (word("-Infinity")) {
            out += "-inf";
            pos += 9;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            std::size_t end = pos + 1;
            bool isFloat = false;
            while (end < s.size()) {
                const char d = s[end];
                if (d == '.' || d == 'e' || d == 'E')
                    isFloat = true;
                else if (!(d >= '0' && d <= '9') && d != '+' && d != '-')
                    break;
                ++end;
            }
            const std::string_view number = s.substr(pos, end - pos);
            if (!isFloat) {
                std::string_view digits = number.front() == '-' ? number.substr(1) : number;
                if (digits.empty())
                    return fail();
                while (digits.size() > 1 && digits.front() == '0')
                    digits.remove_prefix(1);
                if (number.front() == '-' && digits != "0")
                    out.push_back('-');
                out += digits;
            } else {
                double value = 0;
                const auto result = std::from_chars(number.data(), number.data() + number.size(), value);
                if (result.ec == std::errc::result_out_of_range) {
                    // Python's float() gives inf or 0.0 where from_chars refuses.
                    const std::size_t ePos = number.find_first_of("eE");
                    const bool tiny = ePos != std::string_view::npos && ePos + 1 < number.size() && number[ePos + 1] == '-';
                    value = tiny ? 0.0 : HUGE_VAL;
                    if (number.front() == '-')
                        value = -value;
                } else if (result.ec != std::errc() || result.ptr != number.data() + number.size()) {
                    return fail();
                }
                appendPythonFloat(out, value);
            }
            pos = end;
        } else {
            return fail();
        }
    }
    return true;
}

std::string pythonRepr(std::string_view json)
{
    std::string out;
    out.reserve(json.size() + json.size() / 4);
    if (!appendPythonRepr(out, json))
        return std::string(json);
    return out;
}

} // namespace linkscope::core
