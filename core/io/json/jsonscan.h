#pragma once
// A small validating JSON scanner that walks the text byte by byte, without building anything.
// The readers use it for the top level of a file (to find the big arrays without indexing the whole
// document), to find exact element boundaries when a fast path fails, and to locate syntax errors
// by byte offset for messages. Iterative, so deeply nested input cannot overflow the stack.

#include <cstdint>
#include <string>
#include <string_view>

namespace linkscope::core::io {

// 3 if `text` starts with a UTF-8 byte order mark (which some editors and Windows tools write before
// JSON), else 0. The readers skip it.
inline std::size_t byteOrderMarkLength(std::string_view text)
{
    return text.size() >= 3 && text[0] == '\xEF' && text[1] == '\xBB' && text[2] == '\xBF' ? 3 : 0;
}

// JSON's four whitespace bytes.
inline bool isJsonWhitespace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

struct ScanError {
    std::uint64_t offset;
    std::string message;
    bool atEnd; // the text ended before the value did (a truncated file)
};

class JsonScanner {
public:
    explicit JsonScanner(std::string_view text) : text_(text) { }

    std::size_t size() const { return text_.size(); }
    char at(std::size_t pos) const { return pos < text_.size() ? text_[pos] : '\0'; }
    std::size_t skipWhitespace(std::size_t pos) const;
    // `pos` at a value's first byte; returns the offset just past it. Throws ScanError.
    std::size_t skipValue(std::size_t pos) const;
    // `pos` at the opening quote; returns the offset just past the closing quote. Throws ScanError.
    std::size_t skipString(std::size_t pos) const;
    // Expects `c` (after whitespace) at pos; returns the offset after it. Throws ScanError naming `what`.
    std::size_t expect(std::size_t pos, char c, const char *what) const;
    [[noreturn]] void fail(std::size_t pos, const std::string &message) const;

private:
    std::size_t skipNumber(std::size_t pos) const;
    std::size_t skipLiteral(std::size_t pos) const;
    std::string_view text_;
};

// Decodes the content of a JSON string token (with quotes) into UTF-8; false if malformed.
bool unescapeJsonString(std::string_view token, std::string &out);

// Describes the byte at `pos` for messages: "'x'" or "end of input".
std::string describeByteAt(std::string_view text, std::size_t pos);

} // namespace linkscope::core::io
