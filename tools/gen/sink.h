#pragma once
// Buffered text output for the generator's three files.

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>

namespace linkscope::gen {

using Nanos = std::int64_t;

// Buffered text output that counts bytes; hand formatting keeps a 1 GB trace to seconds.
class Sink {
public:
    explicit Sink(std::ostream &os) : os_(os) { }
    void reserve() { buf_.reserve(kChunk + 4096); } // before writing (a generator that only simulates never does)
    ~Sink() { flush(); }
    Sink(const Sink &) = delete;
    Sink &operator=(const Sink &) = delete;

    Sink &operator<<(std::string_view s)
    {
        buf_.append(s);
        if (buf_.size() >= kChunk)
            flush();
        return *this;
    }
    Sink &operator<<(char c)
    {
        buf_.push_back(c);
        return *this;
    }
    Sink &num(std::int64_t v)
    {
        char tmp[24];
        auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
        buf_.append(tmp, r.ptr);
        return *this;
    }
    // Kineto's fmtTs: microseconds with a three-digit nanosecond fraction.
    Sink &micros(Nanos ns)
    {
        num(ns / 1000);
        const auto frac = static_cast<int>(ns % 1000);
        char tmp[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                       static_cast<char>('0' + frac % 10)};
        buf_.append(tmp, 4);
        return *this;
    }
    Sink &str(std::string_view s)
    {
        buf_.push_back('"');
        for (char c : s) {
            switch (c) {
            case '"':
                buf_.append("\\\"");
                break;
            case '\\':
                buf_.append("\\\\");
                break;
            case '\n':
                buf_.append("\\n");
                break;
            case '\t':
                buf_.append("\\t");
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char tmp[8];
                    std::snprintf(tmp, sizeof tmp, "\\u%04x", c);
                    buf_.append(tmp);
                } else {
                    buf_.push_back(c);
                }
            }
        }
        buf_.push_back('"');
        return *this;
    }
    void flush()
    {
        if (buf_.empty())
            return;
        os_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        written_ += buf_.size();
        buf_.clear();
    }
    std::uint64_t bytes() const { return written_ + buf_.size(); }

private:
    static constexpr std::size_t kChunk = 1 << 20;
    std::ostream &os_;
    std::string buf_;
    std::uint64_t written_ = 0;
};

} // namespace linkscope::gen
