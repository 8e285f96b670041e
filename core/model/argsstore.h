#pragma once
// Where the raw `args` JSON of the Kineto events lives. Args are about 40% of a Kineto file and are
// needed only for a details view, a Perfetto export, or a few sync events, so they are not parsed
// into the model: each event keeps a Span, and a store gives the text back on demand.
//
// Two stores: the text in memory (a gzip trace, or one parsed from memory), or the plain trace file
// itself, read back by position (io/file/fileargs.h), so that loading a multi-gigabyte trace neither
// copies nor keeps its args. A file store checks that the file is still the one that was loaded and
// otherwise reports why the args are unavailable instead of returning wrong bytes.

#include "model/common.h"

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <string_view>

namespace linkscope::core {

class ArgsStore {
public:
    ArgsStore();
    virtual ~ArgsStore() = default;
    ArgsStore(const ArgsStore &) = delete;
    ArgsStore &operator=(const ArgsStore &) = delete;

    // Unique for the process's lifetime (never reused, unlike an address): for caches keyed by store.
    std::uint64_t serial() const { return serial_; }

    // Reads `span` into `scratch` when needed; the view is valid until `scratch` changes. Empty when
    // the text is unavailable (then unavailableReason() says why).
    virtual std::string_view read(Span span, std::string &scratch) const = 0;

    // Reads `bytes` from `offset` for a pass over many spans in increasing order (ArgsReader).
    // Returns false when the source cannot be read (see unavailableReason()).
    virtual bool readBlock(std::uint64_t offset, std::size_t bytes, std::string &out) const = 0;

    // For callers that want views without copies (the in-memory store); null otherwise.
    virtual const std::string *inMemoryText() const { return nullptr; }

    virtual std::uint64_t sizeBytes() const = 0;       // the span space: args text or file size
    virtual std::string unavailableReason() const = 0; // empty while the text can be read

private:
    std::uint64_t serial_;
};

// The args text in memory; spans index into it.
class InMemoryArgs final : public ArgsStore {
public:
    explicit InMemoryArgs(std::string text) : text_(std::move(text)) { }
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

// Reads many spans from a store with few reads: aligned 1 MiB blocks, the 8 most recently used kept.
// Passes over events or host nodes run in about file order but jump back and forth locally (the ET
// observer writes a parent after its children), which a single read-ahead block would thrash on.
// Views stay valid until the next read().
class ArgsReader {
public:
    explicit ArgsReader(const ArgsStore *store) : store_(store), memory_(store ? store->inMemoryText() : nullptr) { }

    std::string_view read(Span span)
    {
        if (!store_ || span.empty())
            return {};
        if (memory_)
            return span.offset <= memory_->size() ? std::string_view(*memory_).substr(span.offset, span.length)
                                                  : std::string_view();
        const std::uint64_t first = span.offset / kBlock;
        if ((span.offset + span.length - 1) / kBlock != first) {
            // Crosses a block boundary: read exactly the span.
            if (!store_->readBlock(span.offset, span.length, straddle_) || straddle_.size() < span.length)
                return {};
            return straddle_;
        }
        Block *block = nullptr;
        for (Block &b : blocks_)
            if (b.index == first)
                block = &b;
        if (!block) {
            block = &*std::min_element(blocks_.begin(), blocks_.end(),
                                       [](const Block &a, const Block &b) { return a.lastUse < b.lastUse; });
            block->index = kNone;
            if (!store_->readBlock(first * kBlock, kBlock, block->data))
                return {};
            block->index = first;
        }
        block->lastUse = ++tick_;
        const std::uint64_t at = span.offset - first * kBlock;
        if (at + span.length > block->data.size())
            return {};
        return std::string_view(block->data).substr(static_cast<std::size_t>(at), span.length);
    }

private:
    static constexpr std::uint64_t kBlock = 1u << 20;
    static constexpr std::uint64_t kNone = ~std::uint64_t(0);
    struct Block {
        std::uint64_t index = kNone;
        std::uint64_t lastUse = 0;
        std::string data;
    };
    const ArgsStore *store_;
    const std::string *memory_;
    std::array<Block, 8> blocks_;
    std::string straddle_;
    std::uint64_t tick_ = 0;
};

} // namespace linkscope::core
