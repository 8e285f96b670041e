#include "io/json/jsonscan.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace linkscope::core::io {

namespace {
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
} // namespace

std::string describeByteAt(std::string_view text, std::size_t pos)
{
    if (pos >= text.size())
        return "end of input";
    const unsigned char c = static_cast<unsigned char>(text[pos]);
    if (c >= 0x20 && c < 0x7f)
        return std::string("'") + static_cast<char>(c) + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
    return buf;
}

void JsonScanner::fail(std::size_t pos, const std::string &message) const
{
    const bool atEnd = pos >= text_.size();
    throw ScanError{pos, atEnd ? message + " (unexpected end of input: the file is truncated)" : message, atEnd};
}

std::size_t JsonScanner::skipWhitespace(std::size_t pos) const
{
    while (pos < text_.size() && isJsonWhitespace(text_[pos]))
        ++pos;
    return pos;
}

std::size_t JsonScanner::expect(std::size_t pos, char c, const char *what) const
{
    pos = skipWhitespace(pos);
    if (pos >= text_.size() || text_[pos] != c)
        fail(pos, std::string("expected '") + c + "' " + what + ", found " + describeByteAt(text_, pos));
    return pos + 1;
}

std::size_t JsonScanner::skipString(std::size_t pos) const
{
    const std::size_t start = pos;
    ++pos; // opening quote
    const char *data = text_.data();
    const std::size_t n = text_.size();
    for (;;) {
        // Jump to the next quote or backslash; most strings have neither escapes nor control bytes.
        while (pos < n && data[pos] != '"' && data[pos] != '\\') {
            if (static_cast<unsigned char>(data[pos]) < 0x20)
                fail(pos, "control character inside the string that starts at byte " + std::to_string(start));
            ++pos;
        }
        if (pos >= n)
            fail(pos, "unterminated string that starts at byte " + std::to_string(start));
        if (data[pos] == '"')
            return pos + 1;
        // backslash escape
        if (pos + 1 >= n)
            fail(pos + 1, "unterminated string that starts at byte " + std::to_string(start));
        const char e = data[pos + 1];
        if (e == 'u') {
            for (int i = 2; i < 6; ++i)
                if (pos + i >= n || !isHex(data[pos + i]))
                    fail(pos + i, "invalid \\u escape in string");
            pos += 6;
        } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
            pos += 2;
        } else {
            fail(pos, "invalid escape sequence in string");
        }
    }
}

std::size_t JsonScanner::skipNumber(std::size_t pos) const
{
    const std::size_t start = pos;
    if (at(pos) == '-')
        ++pos;
    if (at(pos) == '0') {
        ++pos;
    } else if (isDigit(at(pos))) {
        while (isDigit(at(pos)))
            ++pos;
    } else {
        fail(start, "invalid number");
    }
    if (at(pos) == '.') {
        ++pos;
        if (!isDigit(at(pos)))
            fail(pos, "invalid number: digit expected after '.'");
        while (isDigit(at(pos)))
            ++pos;
    }
    if (at(pos) == 'e' || at(pos) == 'E') {
        ++pos;
        if (at(pos) == '+' || at(pos) == '-')
            ++pos;
        if (!isDigit(at(pos)))
            fail(pos, "invalid number: digit expected in exponent");
        while (isDigit(at(pos)))
            ++pos;
    }
    return pos;
}

std::size_t JsonScanner::skipLiteral(std::size_t pos) const
{
    for (const char *lit : {"true", "false", "null"}) {
        const std::size_t len = std::strlen(lit);
        if (text_.compare(pos, std::min(len, text_.size() - pos), lit, std::min(len, text_.size() - pos)) == 0) {
            if (text_.size() - pos < len)
                fail(text_.size(), "incomplete literal");
            return pos + len;
        }
    }
    fail(pos, "expected a value, found " + describeByteAt(text_, pos));
}

std::size_t JsonScanner::skipValue(std::size_t pos) const
{
    // Explicit stack of open containers: '{' or '['.
    std::vector<char> stack;
    for (;;) {
        pos = skipWhitespace(pos);
        // Parse one value start.
        const char c = at(pos);
        if (pos >= text_.size())
            fail(pos, "expected a value");
        if (c == '{') {
            pos = skipWhitespace(pos + 1);
            if (at(pos) == '}') {
                ++pos;
            } else {
                if (at(pos) != '"')
                    fail(pos, "expected a member name (string) or '}', found " + describeByteAt(text_, pos));
                pos = skipString(pos);
                pos = expect(pos, ':', "after a member name");
                stack.push_back('{');
                continue;
            }
        } else if (c == '[') {
            pos = skipWhitespace(pos + 1);
            if (at(pos) == ']') {
                ++pos;
            } else {
                stack.push_back('[');
                continue;
            }
        } else if (c == '"') {
            pos = skipString(pos);
        } else if (c == '-' || isDigit(c)) {
            pos = skipNumber(pos);
        } else {
            pos = skipLiteral(pos);
        }
        // A value ended: close containers / move to the next member.
        for (;;) {
            if (stack.empty())
                return pos;
            pos = skipWhitespace(pos);
            const char open = stack.back();
            const char d = at(pos);
            if (d == ',') {
                pos = skipWhitespace(pos + 1);
                if (open == '{') {
                    if (at(pos) != '"')
                        fail(pos, "expected a member name (string), found " + describeByteAt(text_, pos));
                    pos = skipString(pos);
                    pos = expect(pos, ':', "after a member name");
                }
                break; // parse the next value
            }
            if ((open == '{' && d == '}') || (open == '[' && d == ']')) {
                stack.pop_back();
                ++pos;
                continue;
            }
            fail(pos, open == '{' ? "expected ',' or '}' in an object, found " + describeByteAt(text_, pos)
                                  : "expected ',' or ']' in an array, found " + describeByteAt(text_, pos));
        }
    }
}

bool unescapeJsonString(std::string_view token, std::string &out)
{
    out.clear();
    if (token.size() < 2 || token.front() != '"' || token.back() != '"')
        return false;
    token = token.substr(1, token.size() - 2);
    for (std::size_t i = 0; i < token.size(); ++i) {
        const char c = token[i];
        if (c != '\\') {
            out += c;
            continue;
        }
        if (++i >= token.size())
            return false;
        switch (token[i]) {
        case '"':
            out += '"';
            break;
        case '\\':
            out += '\\';
            break;
        case '/':
            out += '/';
            break;
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 'n':
            out += '\n';
            break;
        case 'r':
            out += '\r';
            break;
        case 't':
            out += '\t';
            break;
        case 'u': {
            if (i + 4 >= token.size())
                return false;
            unsigned code = 0;
            for (int k = 1; k <= 4; ++k) {
                const char h = token[i + k];
                code <<= 4;
                if (h >= '0' && h <= '9')
                    code |= unsigned(h - '0');
                else if (h >= 'a' && h <= 'f')
                    code |= unsigned(h - 'a' + 10);
                else if (h >= 'A' && h <= 'F')
                    code |= unsigned(h - 'A' + 10);
                else
                    return false;
            }
            i += 4;
            // Surrogate pairs are joined; a lone surrogate becomes U+FFFD.
            if (code >= 0xD800 && code <= 0xDBFF && i + 6 < token.size() && token[i + 1] == '\\' && token[i + 2] == 'u') {
                unsigned low = 0;
                bool ok = true;
                for (int k = 3; k <= 6; ++k) {
                    const char h = token[i + k];
                    low <<= 4;
                    if (h >= '0' && h <= '9')
                        low |= unsigned(h - '0');
                    else if (h >= 'a' && h <= 'f')
                        low |= unsigned(h - 'a' + 10);
                    else if (h >= 'A' && h <= 'F')
                        low |= unsigned(h - 'A' + 10);
                    else
                        ok = false;
                }
                if (ok && low >= 0xDC00 && low <= 0xDFFF) {
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    i += 6;
                }
            }
            if (code >= 0xD800 && code <= 0xDFFF)
                code = 0xFFFD;
            if (code < 0x80) {
                out += static_cast<char>(code);
            } else if (code < 0x800) {
                out += static_cast<char>(0xC0 | (code >> 6));
                out += static_cast<char>(0x80 | (code & 0x3F));
            } else if (code < 0x10000) {
                out += static_cast<char>(0xE0 | (code >> 12));
                out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
                out += static_cast<char>(0x80 | (code & 0x3F));
            } else {
                out += static_cast<char>(0xF0 | (code >> 18));
                out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
                out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
                out += static_cast<char>(0x80 | (code & 0x3F));
            }
            break;
        }
        default:
            return false;
        }
    }
    return true;
}

} // namespace linkscope::core::io
