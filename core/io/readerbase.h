#pragma once
// What the host ET and Kineto readers share: the text being parsed, the file's name for messages,
// progress, the warning sink, the validating scanner, the translation of a scanner error into a
// LoadError that names the file and the byte offset, and the parallel read of the array that holds
// the trace (one chunk per thread, readInChunks).

#include "base/parallel.h"
#include "io/file/inputtext.h"
#include "io/json/chunkstops.h"
#include "io/json/jsonscan.h"
#include "io/tracereader.h"
#include "io/warningsink.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace linkscope::core::io {

class ReaderBase {
protected:
    ReaderBase(InputText input, const std::string &name, ProgressReporter &progress)
        : ownText_(std::move(input.text)), text_(ownText_), name_(name), progress_(&progress), progressDone_(input.progressDone),
          wasGzip_(input.wasGzip), sourceFile_(std::move(input.sourceFile)), sink_(name), scanner_(text_.view())
    {
    }

    // What a reader of one chunk of another reader's array is made from (readInChunks).
    struct ChunkOf {
        ReaderBase &parent;
        const std::atomic<bool> &abandon; // set when any chunk of the read fails
        std::size_t first = 0;            // where the array's first element starts
        std::size_t chunks = 1;           // how many chunks the read has
        bool isFirst = false;             // chunk 0: runs on the caller's thread
    };

    // A reader of one chunk: the same buffer, file and source, its own warnings and arrays. Chunk 0
    // reports progress for all the chunks (they advance together) and reserves its arrays for the
    // whole array (they become the trace's); the others report none.
    explicit ReaderBase(const ChunkOf &chunk)
        : text_(chunk.parent.text_), name_(chunk.parent.name_),
          progress_(chunk.isFirst ? chunk.parent.progress_ : &quietProgress_), progressDone_(chunk.parent.progressDone_),
          wasGzip_(chunk.parent.wasGzip_), sourceFile_(chunk.parent.sourceFile_), sink_(chunk.parent.name_),
          scanner_(text_.view()), progressBase_(chunk.isFirst ? chunk.first : 0),
          progressScale_(chunk.isFirst ? chunk.chunks : 1), abandon_(&chunk.abandon), reserveForAll_(chunk.isFirst)
    {
    }

    // The file, gzip and size of the text, as every trace records them.
    template <typename Trace>
    void describeSource(Trace &trace) const
    {
        trace.path = name_;
        trace.wasGzip = wasGzip_;
        trace.sourceBytes = text_.size();
    }

    bool isChunk() const { return abandon_ != nullptr; }
    // A chunk stops early once another chunk of its read has failed (its results are of no use).
    bool chunkAbandoned() const { return abandon_ && abandon_->load(std::memory_order_relaxed); }

    // Runs `parse`, turning a ScanError into a LoadError for this file. A mapped file that shrank
    // while it was parsed (its missing pages read as zeros, see io/json/parsebuffer.h) is reported as
    // such, whatever the parse made of the zeros.
    template <typename Parse>
    void parseGuarded(Parse &&parse)
    {
        try {
            parse();
        } catch (const ScanError &e) {
            throwIfTruncated();
            throw LoadError(name_, e.offset, e.message + offsetNote());
        } catch (const LoadError &) {
            throwIfTruncated();
            throw;
        }
        throwIfTruncated();
    }

    void throwIfTruncated() const
    {
        if (const auto at = text_.truncatedAt())
            throw LoadError(name_, *at,
                            "the file shrank to at most " + std::to_string(*at) + " bytes while it was being read (it was "
                                + std::to_string(text_.size())
                                + " bytes when opened): another program is writing or truncating it; load it again "
                                  "when that is done");
    }

    std::string offsetNote() const { return wasGzip_ ? " (byte offset in the decompressed text)" : ""; }

    [[noreturn]] void fail(std::uint64_t offset, const std::string &message) const
    {
        throw LoadError(name_, offset, message + offsetNote());
    }

    // Progress for having parsed up to `offset` of the text (after what reading already reported).
    void reportParsed(std::uint64_t offset) { progress_->report(progressDone_ + offset); }

    // The last ',' in (p, target) with '}' before it and '{' after it (whitespace allowed): a cut
    // between two array elements, npos if none. It may also match inside a string or a nested value;
    // the window parse then fails and the caller falls back to the validating scanner.
    std::size_t lastElementSeparator(std::size_t p, std::size_t target) const
    {
        return io::lastElementSeparator(text_.view(), p, target);
    }

    // The progress offset to report for having parsed up to `p`: a chunk reader on the caller's
    // thread stands for all chunks (they advance together); any other reader reports where it is.
    std::uint64_t progressAt(std::size_t p) const
    {
        if (progressScale_ <= 1 || p < progressBase_)
            return p;
        return std::min<std::uint64_t>(text_.size(), progressBase_ + (p - progressBase_) * progressScale_);
    }

    // Runs parse(begin, len) on the elements in [first, closeAt), where text_[closeAt] is the ',' or
    // ']' after the last one: the bytes just before `first` and at `closeAt` are briefly replaced by
    // '[' and ']' so that the window is a JSON array parsed in place.
    template <typename Parse>
    bool parseAsArray(std::size_t first, std::size_t closeAt, Parse &&parse)
    {
        const std::size_t begin = first - 1;
        const char savedOpen = text_[begin];
        const char savedClose = text_[closeAt];
        text_[begin] = '[';
        text_[closeAt] = ']';
        const bool ok = parse(begin, closeAt + 1 - begin);
        text_[begin] = savedOpen;
        text_[closeAt] = savedClose;
        return ok;
    }

    // The chunks of a parallel read in file order, and where each one's reading ended.
    template <typename Reader>
    struct ChunkedRead {
        std::vector<std::unique_ptr<Reader>> readers;
        std::vector<std::size_t> ends;
    };

    // The parallel read of the array whose first element starts at `first` (docs/architecture.md,
    // "Reading on every core"): the array cut at chunkStops, one Reader per chunk, made as
    // Reader(ChunkOf), and readChunk(reader, begin, stop) → where the chunk ended, for each. Chunk 0
    // runs on the caller's thread (it reports progress for all and can be cancelled), the others on
    // runOnThreads' threads; should the system refuse a thread, the threads running read its chunk.
    // Nothing when the text is too small to split, no boundary was found, or any chunk failed in
    // any way (a boundary inside a value, invalid JSON): the one-thread read then reads the array
    // and reports any error. A cancellation is rethrown once every chunk has stopped.
    template <typename Reader, typename ReadChunk>
    std::optional<ChunkedRead<Reader>> readInChunks(std::size_t first, ChunkSeparators separators, ReadChunk &&readChunk)
    {
        if (isChunk())
            return std::nullopt; // a chunk is never split again
        const std::vector<std::size_t> stops = chunkStops(text_.view(), first, readerThreads(), separators);
        if (stops.empty())
            return std::nullopt;
        const std::size_t chunks = stops.size();
        std::atomic<bool> abandon{false};
        ChunkedRead<Reader> read;
        for (std::size_t k = 0; k < chunks; ++k)
            read.readers.push_back(std::make_unique<Reader>(ChunkOf{*this, abandon, first, chunks, k == 0}));
        read.ends.assign(chunks, std::string::npos);
        std::vector<char> failed(chunks, 0);
        auto runChunk = [&](std::size_t k) {
            try {
                const std::size_t begin = k == 0 ? first : scanner_.skipWhitespace(stops[k - 1] + 1);
                read.ends[k] = readChunk(*read.readers[k], begin, stops[k]);
            } catch (const Cancelled &) {
                failed[k] = 1;
                abandon = true;
                throw;
            } catch (...) {
                failed[k] = 1;
                abandon = true;
            }
        };
        const std::thread::id caller = std::this_thread::get_id();
        std::atomic<std::size_t> next{1};
        runOnThreads(static_cast<int>(chunks), [&] {
            if (std::this_thread::get_id() == caller)
                runChunk(0);
            for (std::size_t k; (k = next.fetch_add(1)) < chunks;)
                runChunk(k);
        });
        if (std::find(failed.begin(), failed.end(), 1) != failed.end())
            return std::nullopt;
        return read;
    }

    // A chunk reader's text before `offset` is parsed: its own pages that read back from the file
    // leave the resident set, with a margin behind its mark again (fault-around, as
    // ParseBuffer::releaseBefore does). Decompressed text stays: should a chunk fail, the one-thread
    // read needs it again.
    void releaseChunkBefore(std::size_t offset)
    {
        constexpr std::size_t kMargin = 4u << 20;
        if (sourceFile_)
            text_.releaseRange(std::max(chunkFirst_, releasedTo_ > kMargin ? releasedTo_ - kMargin : 0), offset);
        releasedTo_ = std::max(releasedTo_, offset);
    }
    // Where a reader's elements begin (a chunk's pages before it are another chunk's).
    void beginElementsAt(std::size_t first)
    {
        chunkFirst_ = first;
        releasedTo_ = first;
    }

    ParseBuffer ownText_;
    ParseBuffer &text_; // ownText_, or the parent's for a chunk reader
    std::string name_;
    ProgressFn noProgress_;
    ProgressReporter quietProgress_{noProgress_};
    ProgressReporter *progress_; // quietProgress_ for a chunk reader, unless it reports for all
    std::uint64_t progressDone_;
    bool wasGzip_;
    std::shared_ptr<const ArgsStore> sourceFile_; // set when the text is a plain file, readable later
    WarningSink sink_;
    JsonScanner scanner_;
    std::uint64_t progressBase_ = 0;             // chunk 0 of a parallel read: where its chunk starts
    std::size_t progressScale_ = 1;              //   and how many chunks its progress stands for
    const std::atomic<bool> *abandon_ = nullptr; // a chunk reader: set when another chunk failed
    bool reserveForAll_ = false;                 // chunk 0: reserve its arrays for the whole array
    std::size_t chunkFirst_ = 0;                 // where this reader's elements begin
    std::size_t releasedTo_ = 0;                 // a chunk: its text before this is released
};

} // namespace linkscope::core::io
