#pragma once
// Where the raw `args` JSON of the Kineto events lives. Args are about 40% of a Kineto file and are
// needed only for a details view, a Perfetto export, or a few sync events, so they are not parsed
// into the model: each event keeps a Span, and a store gives the text back on demand.
//
// Two stores: the text in memory (a gzip trace, or one parsed from memory), or the plain trace file
// itself, read back by position (io/fileargs.h), so that loading a multi-gigabyte trace neither
// copies nor keeps its args. A file store checks that the file is still the one that was loaded and
// otherwise reports why the args are unavailable instead of returning wrong bytes.

#include "model/common.h"

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>

namespace linkscope::core {

class ArgsStore {
public:
    virtual ~ArgsStore() = default;

    // Reads `span` into `scratch` when needed; the view is valid until `scratch` changes. Empty when
    // the text is unavailable (then unavailableReason() says why).
    virtual std::string_view read(Span span, std::string &scratch) const = 0;

    // Reads `bytes` from `offset` for a pass over many spans in increasing order (ArgsReader).
    // Returns false when the source cannot be read (see unavailableReason()).
    virtual bool readBlock(std::uint64_t offset, std::size_t bytes, std::string &out) const = 0;

    // For callers that want views without copies (the in-memory store); null otherwise.
    virtual const std::string *inMemoryText() const { return nullptr; }

    virtual std::uint64_t sizeBytes() const = 0;      // the span space: args text or file size
    virtual std::string unavailableReason() const = 0; // empty while the text can be read
};

// The args text in memory; spans index into it.
class InMemoryArgs final : public ArgsStore {
public:
    explicit InMemoryArgs(std::string text) : text_(std::move(text)) {}
    std::string_view read(Span span, std::string &) const override
    {
        if (span.offset > text_.size())
            return {};
        return std::string_view(text_).substr(span.offset, span.length);
    }
    bool readBlock(std::uint64_t offset, std::size_t bytes, std::string &out) const override
    {
        if (offset > text_.size())
            return false;
        out.assign(std::string_view(text_).substr(offset, bytes));
        return true;
    }
    const std::string *inMemoryText() const override { return &text_; }
    std::uint64_t sizeBytes() const override { return text_.size(); }
    std::string unavailableReason() const override { return {}; }

private:
    std::string text_;
};

// Reads many spans in increasing offset order (an export, a pass over sync events) with few reads:
// a block is fetched when a span is not in the current one. Views stay valid until the next read().
class ArgsReader {
public:
    explicit ArgsReader(const ArgsStore *store) : store_(store), memory_(store ? store->inMemoryText() : nullptr) {}

    std::string_view read(Span span)
    {
        if (!store_ || span.empty())
            return {};
        if (memory_)
            return span.offset <= memory_->size() ? std::string_view(*memory_).substr(span.offset, span.length)
                                                  : std::string_view();
        if (span.offset < blockStart_ || span.offset + span.length > blockStart_ + block_.size()) {
            // Dense passes (every event) read ahead; a sparse one reads little more than it needs.
            const bool dense = span.offset >= blockStart_ && span.offset - (blockStart_ + block_.size()) < kDenseGap;
            const std::size_t want = std::max<std::size_t>(span.length, dense ? kBlock : kSparseBlock);
            block_.clear();
            blockStart_ = span.offset;
            if (!store_->readBlock(span.offset, want, block_) || block_.size() < span.length) {
                block_.clear();
                return {};
            }
        }
        return std::string_view(block_).substr(span.offset - blockStart_, span.length);
    }

private:
    static constexpr std::size_t kBlock = 4u << 20;
    static constexpr std::size_t kSparseBlock = 16u << 10;
    static constexpr std::uint64_t kDenseGap = 64u << 10;
    const ArgsStore *store_;
    const std::string *memory_;
    std::string block_;
    std::uint64_t blockStart_ = 0;
};

} // namespace linkscope::core
