#include "io/kineto/kinetoreader.h"

#include "base/arraygrowth.h"
#include "base/parallel.h"
#include "io/json/boundedjson.h"
#include "io/json/decimal.h"
#include "io/json/interncache.h"
#include "io/kineto/kinetometadata.h"
#include "io/readerbase.h"
#include "io/tracereader.h"

#include <simdjson.h>

#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace linkscope::core::io {

namespace ond = simdjson::ondemand;
static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING, "kJsonPadding must cover simdjson's padding");

namespace {

// Windows of the traceEvents array are parsed one at a time, so simdjson's structural index (4 bytes
// per structural character) stays the size of a window instead of the size of the file.
constexpr std::size_t kWindowBytes = 512u << 10;

Phase phaseFromText(std::string_view ph)
{
    if (ph.size() != 1)
        return Phase::Other;
    switch (ph[0]) {
    case 'X':
        return Phase::Complete;
    case 'i':
    case 'I':
        return Phase::Instant;
    case 'M':
        return Phase::Metadata;
    case 'C':
        return Phase::Counter;
    case 's':
        return Phase::FlowStart;
    case 'f':
        return Phase::FlowFinish;
    case 'B':
        return Phase::Begin;
    case 'E':
        return Phase::End;
    default:
        return Phase::Other;
    }
}

class KinetoReader : ReaderBase {
public:
    KinetoReader(InputText input, const std::string &name, ProgressReporter &progress)
        : ReaderBase(std::move(input), name, progress)
    {
        describeSource(trace_);
    }

    // A reader of one chunk of another reader's traceEvents array (parseEventsInParallel).
    explicit KinetoReader(const ChunkOf &chunk) : ReaderBase(chunk) { }

    DeviceTrace run()
    {
        parseGuarded([this] { parseDocument(); });
        sink_.appendTo(trace_.warnings);
        // The text itself is dropped here: args are read back from the file, or were copied out.
        if (sourceFile_)
            trace_.argsStore = sourceFile_;
        else
            trace_.argsStore = std::make_shared<const InMemoryArgs>(std::move(args_));
        return std::move(trace_);
    }

private:
    void parseDocument()
    {
        std::size_t pos = scanner_.skipWhitespace(byteOrderMarkLength(text_.view()));
        if (text_.empty())
            fail(0, "empty file");
        if (pos >= text_.size())
            fail(pos, "file contains only whitespace");
        if (text_[pos] == '[') {
            // Chrome's "JSON Array Format": the file is the event list itself.
            pos = parseEventsArray(pos);
            checkTrailing(pos);
            return;
        }
        if (text_[pos] != '{')
            fail(pos,
                 "not a JSON document: expected '{' at the start of a Kineto trace, found " + describeByteAt(text_.view(), pos));
        bool sawEvents = false;
        bool sawNodes = false;
        pos = scanner_.skipWhitespace(pos + 1);
        if (scanner_.at(pos) != '}') {
            for (;;) {
                pos = scanner_.skipWhitespace(pos);
                if (scanner_.at(pos) != '"')
                    scanner_.fail(pos, "expected a member name (string) in the top-level object, found "
                                           + describeByteAt(text_.view(), pos));
                const std::size_t keyEnd = scanner_.skipString(pos);
                const std::string_view key(text_.data() + pos + 1, keyEnd - pos - 2);
                pos = scanner_.skipWhitespace(scanner_.expect(keyEnd, ':', "after a member name"));
                const std::size_t valueStart = pos;
                if (key == "traceEvents") {
                    if (scanner_.at(pos) != '[') {
                        scanner_.skipValue(pos);
                        fail(valueStart, "\"traceEvents\" is not an array");
                    }
                    if (sawEvents)
                        sink_.add("second \"traceEvents\" array; its events are appended", valueStart);
                    pos = parseEventsArray(pos);
                    sawEvents = true;
                } else {
                    pos = scanner_.skipValue(pos);
                    const std::string_view value(text_.data() + valueStart, pos - valueStart);
                    if (key == "nodes")
                        sawNodes = true;
                    readKinetoMetadata(key, value, valueStart, trace_, sink_);
                }
                pos = scanner_.skipWhitespace(pos);
                if (scanner_.at(pos) == ',') {
                    ++pos;
                    continue;
                }
                if (scanner_.at(pos) == '}')
                    break;
                scanner_.fail(pos, "expected ',' or '}' in the top-level object, found " + describeByteAt(text_.view(), pos));
            }
        }
        checkTrailing(pos + 1);
        if (!sawEvents) {
            if (sawNodes)
                fail(0, "looks like a host execution trace (has \"nodes\"), expected a Kineto trace (with "
                        "\"traceEvents\")");
            fail(0, "no \"traceEvents\" array: not a Kineto trace");
        }
    }

    void checkTrailing(std::size_t pos)
    {
        pos = scanner_.skipWhitespace(pos);
        if (pos < text_.size())
            sink_.add("bytes after the end of the JSON document were ignored", pos);
    }

    // ---- traceEvents ------------------------------------------------------------------------

    std::size_t parseEventsArray(std::size_t open)
    {
        const std::size_t p = scanner_.skipWhitespace(open + 1);
        if (scanner_.at(p) == ']')
            return p + 1;
        if (const std::size_t end = parseEventsInParallel(p); end != std::string::npos)
            return end;
        return parseElements(p, std::string::npos);
    }

    // A chunk that does not end exactly at its boundary: the boundary was not between two elements
    // of the array, so the parallel parse is abandoned for the one-thread one.
    struct ChunkMisaligned { };
    struct ChunkAbandoned { };

    // Parses the elements from `p` on in windows. With stopAt = npos up to the array's closing ']'
    // (returns the offset after it); else up to the ',' at stopAt, which must end an element
    // (returns stopAt; throws ChunkMisaligned if the elements run past it or the array ends first).
    std::size_t parseElements(std::size_t p, std::size_t stopAt)
    {
        const bool bounded = stopAt != std::string::npos; // a chunk before the last one
        const std::size_t arrayFirst = p;
        rangeEnd_ = bounded ? stopAt : text_.size();
        beginElementsAt(arrayFirst);
        for (;;) {
            if (chunkAbandoned())
                throw ChunkAbandoned{};
            reportParsed(progressAt(p));
            text_.willRead(p, std::min(p + kWindowBytes + 4096, rangeEnd_ + 64));
            // Windows are cut as the one-thread parse cuts them: in the text's last window the
            // validating scanner finds the cut (and checks every byte, strings simdjson skips
            // included), elsewhere a guess that simdjson confirms.
            std::size_t cut = std::string::npos;
            const bool lastWindowOfText = p + kWindowBytes + 2 >= text_.size();
            if (!lastWindowOfText)
                cut = bounded && stopAt - p <= kWindowBytes + 2 ? stopAt : lastElementSeparator(p, p + kWindowBytes);
            bool done = false;
            if (cut != std::string::npos) {
                const Checkpoint cp = checkpoint();
                if (parseWindow(p, cut)) {
                    done = true;
                } else {
                    restore(cp);
                }
            }
            bool final = false;
            if (!done) {
                cut = exactCut(p, bounded ? std::min(kWindowBytes, stopAt - p) : kWindowBytes, final);
                if (bounded && (final || cut > stopAt))
                    throw ChunkMisaligned{};
                const Checkpoint cp = checkpoint();
                if (!parseWindow(p, cut)) {
                    restore(cp);
                    pinpoint(p, cut);
                }
            }
            if (!final) {
                reserveForRest(cut - arrayFirst, (reserveForAll_ ? text_.size() : rangeEnd_) - arrayFirst);
                populateAhead();
            }
            // Everything before this window's end has been read into events and args_.
            if (isChunk())
                releaseChunkBefore(cut);
            else
                text_.releaseBefore(cut);
            if (bounded && cut == stopAt)
                return stopAt;
            if (final || text_[cut] == ']') {
                if (bounded)
                    throw ChunkMisaligned{};
                return cut + 1;
            }
            p = scanner_.skipWhitespace(cut + 1);
        }
    }

    // Reads the array in chunks, one per thread (ReaderBase::readInChunks), and merges them in file
    // order: the same events, strings (the same ids), warnings and args as one thread gives.
    // Returns npos, having changed nothing, when the text is too small, no boundaries are found, or
    // a chunk fails in any way: the one-thread parse then reads the array and reports any error.
    std::size_t parseEventsInParallel(std::size_t first)
    {
        auto read = readInChunks<KinetoReader>(
            first, ChunkSeparators::Whitespace,
            [](KinetoReader &chunk, std::size_t begin, std::size_t stop) { return chunk.parseElements(begin, stop); });
        if (!read)
            return std::string::npos;
        const std::size_t chunks = read->readers.size();
        std::size_t events = 0;
        for (const auto &reader : read->readers)
            events += reader->trace_.events.size();
        for (std::size_t k = 0; k < chunks; ++k) {
            mergeChunk(*read->readers[k], static_cast<int>(chunks));
            if (k == 0 && trace_.events.capacity() < events)
                trace_.events.reserve(events); // once, not once per chunk
        }
        text_.releaseBefore(read->ends.back());
        return read->ends.back();
    }

    // Appends a chunk's results: strings re-interned in the chunk's order of first use (so ids
    // are what one thread assigns), indices and in-memory args offsets shifted. The events, by far
    // the largest part, are copied on `workers` threads, their new pages mapped on all of them
    // first (copying them on one thread after every chunk had finished cost a tenth of a two-thread read).
    void mergeChunk(KinetoReader &c, int workers)
    {
        DeviceTrace &from = c.trace_;
        if (trace_.strings.size() == 1 && trace_.threads.size() == 1 && trace_.events.empty() && trace_.collectives.empty()
            && trace_.graphIds.empty() && trace_.syncArgs.empty() && args_.empty()) {
            // The first chunk of a trace that has nothing yet: its ids are the trace's, its arrays move.
            trace_.strings = std::move(from.strings);
            interned_.clear();
            trace_.threads = std::move(from.threads);
            lastThread_ = ThreadKey{};
            lastThreadIndex_ = ThreadIndex(0);
            trace_.events = std::move(from.events);
            trace_.collectives = std::move(from.collectives);
            trace_.graphIds = std::move(from.graphIds);
            trace_.syncArgs = std::move(from.syncArgs);
            args_ = std::move(c.args_);
            trace_.threadNames = std::move(from.threadNames);
            trace_.processNames = std::move(from.processNames);
            trace_.threadSortIndex = std::move(from.threadSortIndex);
            sink_.merge(c.sink_);
            from = DeviceTrace{};
            return;
        }
        std::vector<StringId> ids(from.strings.size());
        for (std::size_t i = 0; i < ids.size(); ++i)
            ids[i] = trace_.strings.intern(from.strings.at(static_cast<StringId>(i)));
        auto id = [&](StringId s) { return ids[s]; };
        auto traceId = [&](TraceId t) {
            if (t.isString)
                t.value = static_cast<std::int64_t>(ids[static_cast<std::size_t>(t.value)]);
            return t;
        };
        auto threadKey = [&](ThreadKey k) { return ThreadKey{traceId(k.pid), traceId(k.tid)}; };
        std::vector<ThreadIndex> threads(from.threads.size());
        for (std::size_t i = 0; i < threads.size(); ++i)
            threads[i] = trace_.threads.intern(threadKey(from.threads.at(ThreadIndex::at(i))));
        const auto eventBase = static_cast<std::uint32_t>(trace_.events.size());
        const std::uint64_t argsBase = args_.size();
        const std::size_t n = from.events.size();
        // Slices of about 1 MiB, handed out in order to the threads.
        constexpr std::size_t kSlice = (1u << 20) / sizeof(DeviceEvent);
        const std::size_t slices = (n + kSlice - 1) / kSlice;
        auto slice = [&](std::size_t i) { return std::pair{i * kSlice, std::min(n, (i + 1) * kSlice)}; };
        if (trace_.events.capacity() >= eventBase + n) {
            char *tail = reinterpret_cast<char *>(trace_.events.data() + eventBase);
            forEachIndexOnThreads(slices, workers, [&](std::size_t i) {
                const auto [first, last] = slice(i);
                populateForWrite(tail + first * sizeof(DeviceEvent), (last - first) * sizeof(DeviceEvent));
            });
        }
        trace_.events.resize(eventBase + n);
        DeviceEvent *out = trace_.events.data() + eventBase;
        const DeviceEvent *in = from.events.data();
        const bool shiftArgs = !sourceFile_;
        forEachIndexOnThreads(slices, workers, [&](std::size_t i) {
            const auto [first, last] = slice(i);
            for (std::size_t j = first; j < last; ++j) {
                DeviceEvent e = in[j];
                e.name = id(e.name);
                e.categoryText = id(e.categoryText);
                e.thread = threads[e.thread.get()];
                if (shiftArgs && !e.args.empty())
                    e.args.offset += argsBase;
                out[j] = e;
            }
        });
        std::vector<DeviceEvent>().swap(from.events); // its memory back before the next chunk's
        for (CollectiveArgs a : from.collectives) {
            a.event = EventIndex(a.event.value + eventBase);
            a.collectiveName = id(a.collectiveName);
            a.processGroupName = id(a.processGroupName);
            a.processGroupDesc = id(a.processGroupDesc);
            a.dtype = id(a.dtype);
            trace_.collectives.push_back(a);
        }
        for (GraphIdArg g : from.graphIds) {
            g.event = EventIndex(g.event.value + eventBase);
            trace_.graphIds.push_back(g);
        }
        for (SyncArgs sync : from.syncArgs) {
            sync.event = EventIndex(sync.event.value + eventBase);
            trace_.syncArgs.push_back(sync);
        }
        args_.append(c.args_);
        for (const auto &[key, name] : from.threadNames)
            trace_.threadNames[threadKey(key)] = name;
        for (const auto &[pid, name] : from.processNames)
            trace_.processNames[traceId(pid)] = name;
        for (const auto &[key, index] : from.threadSortIndex)
            trace_.threadSortIndex[threadKey(key)] = index;
        sink_.merge(c.sink_);
        from = DeviceTrace{};
        std::string().swap(c.args_);
    }

    // Walks elements with the validating scanner: returns the offset of the ',' after the element
    // that makes the window reach `budget` bytes, or of the closing ']' (final = true).
    std::size_t exactCut(std::size_t p, std::size_t budget, bool &final)
    {
        std::size_t q = p;
        for (;;) {
            const std::size_t e = scanner_.skipValue(q);
            const std::size_t r = scanner_.skipWhitespace(e);
            const char c = scanner_.at(r);
            if (c == ']') {
                final = true;
                return r;
            }
            if (c != ',')
                scanner_.fail(r, "expected ',' or ']' after an element of \"traceEvents\", found "
                                     + describeByteAt(text_.view(), r));
            if (r - p >= budget)
                return r;
            q = scanner_.skipWhitespace(r + 1);
            if (scanner_.at(q) == ']')
                scanner_.fail(r, "trailing ',' before the end of \"traceEvents\"");
        }
    }

    // The scanner accepted [p, cut) but simdjson did not: find the element it rejects.
    [[noreturn]] void pinpoint(std::size_t p, std::size_t cut)
    {
        std::size_t q = p;
        while (q < cut) {
            const std::size_t e = scanner_.skipValue(q);
            const std::size_t r = scanner_.skipWhitespace(e);
            if (!parseWindow(q, r))
                fail(q, std::string("invalid JSON in a \"traceEvents\" element: ") + simdjson::error_message(lastError_));
            q = scanner_.skipWhitespace(r + 1);
        }
        fail(p, std::string("invalid JSON in \"traceEvents\": ") + simdjson::error_message(lastError_));
    }

    // Events and args are reserved for the whole array (base/arraygrowth.h); args only when they are
    // copied out (no source file).
    void reserveForRest(std::size_t parsedBytes, std::size_t arrayBytes)
    {
        if (trace_.events.size() < 1000 || parsedBytes == 0)
            return;
        const double scale = double(arrayBytes) / double(parsedBytes);
        reserveFromDensity(trace_.events, scale, !reservedOnce_, 1024, 1024);
        if (!sourceFile_)
            reserveFromDensity(args_, scale, !reservedOnce_, 64u << 10, 4096);
        reservedOnce_ = true;
    }

    void populateAhead()
    {
        eventPages_.ahead(trace_.events);
        argPages_.ahead(args_);
    }

    struct Checkpoint {
        std::size_t events;
        std::size_t collectives;
        std::size_t graphIds;
        std::size_t argsBytes;
        std::size_t syncArgs;
        WarningSink::Snapshot warnings;
    };
    Checkpoint checkpoint() const
    {
        return {trace_.events.size(), trace_.collectives.size(), trace_.graphIds.size(),
                args_.size(),         trace_.syncArgs.size(),    sink_.snapshot()};
    }
    void restore(const Checkpoint &cp)
    {
        trace_.events.resize(cp.events);
        trace_.syncArgs.resize(cp.syncArgs);
        trace_.collectives.resize(cp.collectives);
        trace_.graphIds.resize(cp.graphIds);
        args_.resize(cp.argsBytes);
        sink_.rollback(cp.warnings);
    }

    // Parses the events in [first, closeAt) as one array (ReaderBase::parseAsArray).
    bool parseWindow(std::size_t first, std::size_t closeAt)
    {
        return parseAsArray(first, closeAt,
                            [this](std::size_t begin, std::size_t len) { return parseWindowInPlace(begin, len); });
    }

#define LS_TRY(expr)                                                                                                             \
    do {                                                                                                                         \
        if (auto err_ = (expr); err_) {                                                                                          \
            lastError_ = err_;                                                                                                   \
            return false;                                                                                                        \
        }                                                                                                                        \
    } while (0)

    bool parseWindowInPlace(std::size_t begin, std::size_t len)
    {
        ond::document doc;
        LS_TRY(parser_.iterate(text_.data() + begin, len, text_.paddedSize() - begin).get(doc));
        currentDoc_ = &doc;
        windowEnd_ = begin + len;
        ond::array events;
        LS_TRY(doc.get_array().get(events));
        for (auto element : events) {
            ond::value v;
            LS_TRY(std::move(element).get(v));
            if (!readEvent(v))
                return false;
        }
        // Anything after the window's closing ']' means the cut was not between two events.
        if (!doc.current_location().error()) {
            lastError_ = simdjson::TRAILING_CONTENT;
            return false;
        }
        return true;
    }

    std::uint64_t offsetOf(const char *p) const { return static_cast<std::uint64_t>(p - text_.data()); }

    EventCategory categoryOf(StringId cat)
    {
        if (cat >= categoryCache_.size())
            categoryCache_.resize(cat + 1, 0xff);
        if (categoryCache_[cat] == 0xff)
            categoryCache_[cat] = static_cast<std::uint8_t>(categoryFromName(trace_.strings.at(cat)));
        return static_cast<EventCategory>(categoryCache_[cat]);
    }

    // Reads a scalar that should be an integer (number or numeric string). Returns false on a JSON
    // error; a mistyped value becomes a warning and leaves `out` unchanged.
    bool readInt(ond::value &v, std::int64_t &out, const char *what, std::uint64_t eventOffset)
    {
        ond::json_type type;
        LS_TRY(v.type().get(type));
        if (type == ond::json_type::null)
            return true;
        if (type != ond::json_type::number && type != ond::json_type::string) {
            sink_.add(std::string("\"") + what + "\" is not a number; ignored", eventOffset);
            return true;
        }
        if (type == ond::json_type::number) {
            std::int64_t direct = 0;
            if (!v.get_int64().get(direct)) {
                out = direct;
                return true;
            }
        }
        std::string_view token;
        token = v.raw_json_token();
        std::int64_t value = 0;
        if (parseIntegerText(token, value) != NumberStatus::Ok) {
            sink_.add(std::string("\"") + what + "\" is not an integer; ignored", eventOffset);
            return true;
        }
        out = value;
        return true;
    }

    bool readString(ond::value &v, StringId &out, const char *what, std::uint64_t eventOffset, bool numberIsText = true)
    {
        ond::json_type type;
        LS_TRY(v.type().get(type));
        if (type == ond::json_type::string) {
            std::string_view s;
            LS_TRY(v.get_string().get(s));
            out = interned_.intern(s);
            return true;
        }
        if (type == ond::json_type::null)
            return true;
        if (type == ond::json_type::number) {
            // A process group name such as 0 written as a number: keep its text.
            std::string_view token;
            token = v.raw_json_token();
            while (!token.empty() && isJsonWhitespace(token.back()))
                token.remove_suffix(1);
            out = trace_.strings.intern(token);
            if (!numberIsText)
                sink_.add(std::string("\"") + what + "\" is not a string; its number text is used", eventOffset);
            return true;
        }
        sink_.add(std::string("\"") + what + "\" is not a string; ignored", eventOffset);
        return true;
    }

    bool readTraceId(ond::value &v, TraceId &out, bool &present, const char *what, std::uint64_t eventOffset)
    {
        ond::json_type type;
        LS_TRY(v.type().get(type));
        if (type == ond::json_type::string) {
            std::string_view s;
            LS_TRY(v.get_string().get(s));
            out = TraceId{static_cast<std::int64_t>(interned_.intern(s)), true};
            present = true;
            return true;
        }
        if (type == ond::json_type::number) {
            std::string_view token;
            token = v.raw_json_token();
            std::int64_t value = 0;
            if (parseIntegerText(token, value) == NumberStatus::Ok) {
                out = TraceId{value, false};
                present = true;
            } else {
                sink_.add(std::string("\"") + what + "\" is not an integer; kept as text", eventOffset);
                while (!token.empty() && isJsonWhitespace(token.back()))
                    token.remove_suffix(1);
                out = TraceId{static_cast<std::int64_t>(trace_.strings.intern(token)), true};
                present = true;
            }
            return true;
        }
        sink_.add(std::string("\"") + what + "\" is neither a number nor a string; ignored", eventOffset);
        return true;
    }

    // A time in microseconds (integer, fraction, or quoted) → ns.
    bool readMicros(ond::value &v, Nanos &out, bool &present, const char *what, std::uint64_t eventOffset)
    {
        ond::json_type type;
        LS_TRY(v.type().get(type));
        if (type != ond::json_type::number && type != ond::json_type::string) {
            sink_.add(std::string("\"") + what + "\" is not a number", eventOffset);
            return true;
        }
        std::string_view token;
        token = v.raw_json_token();
        const NumberStatus s = microsToNanos(token, out);
        if (s == NumberStatus::Ok)
            present = true;
        else
            sink_.add(std::string("\"") + what
                          + (s == NumberStatus::Overflow ? "\" overflows int64 nanoseconds" : "\" is not a decimal number"),
                      eventOffset);
        return true;
    }

    struct MetaArgs {
        StringId name = 0;
        bool hasName = false;
        std::int64_t sortIndex = 0;
        bool hasSortIndex = false;
    };
    // The args few events have, kept beside the events (DeviceTrace::collectives, graphIds).
    struct RareArgs {
        CollectiveArgs collective;
        bool isCollective = false;
        std::int64_t graphId = kNoId;
    };

    bool readArgs(ond::value &v, DeviceEvent &e, MetaArgs &meta, SyncArgs &sync, RareArgs &rare, bool isMetadata,
                  std::uint64_t eventOffset)
    {
        ond::json_type type;
        LS_TRY(v.type().get(type));
        if (type != ond::json_type::object) {
            if (type != ond::json_type::null)
                sink_.add("\"args\" is not an object; ignored", eventOffset);
            return true;
        }
        // The span runs from '{' to the token after the object, found once the fields have been
        // read: one pass over the args instead of raw_json() + reset().
        const char *argsBegin = v.raw_json_token().data();
        ond::object args;
        LS_TRY(v.get_object().get(args));
        CollectiveArgs &coll = rare.collective;
        bool &isCollective = rare.isCollective;
        for (auto fieldResult : args) {
            ond::field field;
            LS_TRY(std::move(fieldResult).get(field));
            const ond::raw_json_string key = field.key();
            ond::value value = field.value();
            switch (key.raw()[0]) {
            case 'E':
                if (key.unsafe_is_equal("External id")) {
                    if (!readInt(value, e.externalId, "External id", eventOffset))
                        return false;
                } else if (key.unsafe_is_equal("Ev Idx")) {
                    if (!readInt(value, e.evIdx, "Ev Idx", eventOffset))
                        return false;
                }
                break;
            case 'R':
                if (key.unsafe_is_equal("Record function id")) {
                    std::int64_t rf = 0;
                    if (!readInt(value, rf, "Record function id", eventOffset))
                        return false;
                    if (rf < 0)
                        sink_.add("negative \"Record function id\"; ignored", eventOffset);
                    else
                        e.rfId = static_cast<std::uint64_t>(rf);
                }
                break;
            case 'c':
                if (key.unsafe_is_equal("correlation"))
                    if (!readInt(value, e.correlation, "correlation", eventOffset))
                        return false;
                break;
            case 's':
                if (key.unsafe_is_equal("stream")) {
                    if (!readInt(value, e.stream, "stream", eventOffset))
                        return false;
                } else if (isMetadata && key.unsafe_is_equal("sort_index")) {
                    if (!readInt(value, meta.sortIndex, "sort_index", eventOffset))
                        return false;
                    meta.hasSortIndex = true;
                }
                break;
            case 'd':
                if (key.unsafe_is_equal("device")) {
                    std::int64_t device = e.device;
                    if (!readInt(value, device, "device", eventOffset))
                        return false;
                    if (device < INT32_MIN || device > INT32_MAX)
                        sink_.add("\"device\" " + std::to_string(device) + " is out of the 32-bit range; ignored", eventOffset);
                    else
                        e.device = static_cast<std::int32_t>(device);
                } else if (key.unsafe_is_equal("dtype")) {
                    if (!readString(value, coll.dtype, "dtype", eventOffset))
                        return false;
                    isCollective = true;
                }
                break;
            case 'g':
                if (key.unsafe_is_equal("graph id")) {
                    if (!readInt(value, rare.graphId, "graph id", eventOffset))
                        return false;
                }
                break;
            case 'w':
                if (key.unsafe_is_equal("wait_on_stream")) {
                    if (!readInt(value, sync.waitOnStream, "wait_on_stream", eventOffset))
                        return false;
                } else if (key.unsafe_is_equal("wait_on_cuda_event_record_corr_id")) {
                    if (!readInt(value, sync.recordCorrelation, "wait_on_cuda_event_record_corr_id", eventOffset))
                        return false;
                }
                break;
            case 'n':
                if (isMetadata && key.unsafe_is_equal("name")) {
                    if (!readString(value, meta.name, "args.name", eventOffset))
                        return false;
                    meta.hasName = true;
                }
                break;
            case 'C':
                if (key.unsafe_is_equal("Collective name")) {
                    if (!readString(value, coll.collectiveName, "Collective name", eventOffset))
                        return false;
                    isCollective = true;
                }
                break;
            case 'I':
                if (key.unsafe_is_equal("In msg nelems")) {
                    if (!readInt(value, coll.inMsgNelems, "In msg nelems", eventOffset))
                        return false;
                    isCollective = true;
                }
                break;
            case 'O':
                if (key.unsafe_is_equal("Out msg nelems")) {
                    if (!readInt(value, coll.outMsgNelems, "Out msg nelems", eventOffset))
                        return false;
                    isCollective = true;
                }
                break;
            case 'G':
                if (key.unsafe_is_equal("Group size")) {
                    if (!readInt(value, coll.groupSize, "Group size", eventOffset))
                        return false;
                    isCollective = true;
                }
                break;
            case 'P':
                if (key.unsafe_is_equal("Process Group Name")) {
                    if (!readString(value, coll.processGroupName, "Process Group Name", eventOffset))
                        return false;
                    isCollective = true;
                } else if (key.unsafe_is_equal("Process Group Description")) {
                    if (!readString(value, coll.processGroupDesc, "Process Group Description", eventOffset))
                        return false;
                    isCollective = true;
                }
                break;
            case 'S':
                if (key.unsafe_is_equal("Src Rank")) {
                    if (!readInt(value, coll.srcRank, "Src Rank", eventOffset))
                        return false;
                    isCollective = true;
                } else if (key.unsafe_is_equal("Seq")) {
                    if (!readInt(value, coll.seq, "Seq", eventOffset))
                        return false;
                    isCollective = true;
                }
                break;
            case 'D':
                if (key.unsafe_is_equal("Dst Rank")) {
                    if (!readInt(value, coll.dstRank, "Dst Rank", eventOffset))
                        return false;
                    isCollective = true;
                }
                break;
            default:
                break;
            }
        }
        {
            const char *after = nullptr;
            if (currentDoc_->current_location().get(after))
                after = text_.data() + windowEnd_; // the object ended the window
            std::string_view raw(argsBegin, static_cast<std::size_t>(after - argsBegin));
            while (!raw.empty() && raw.back() != '}')
                raw.remove_suffix(1);
            raw = raw.substr(0, std::min<std::size_t>(raw.size(), UINT32_MAX));
            e.args.length = static_cast<std::uint32_t>(raw.size());
            if (sourceFile_) {
                e.args.offset = offsetOf(raw.data());
            } else {
                e.args.offset = args_.size();
                args_.append(raw);
            }
        }
        return true;
    }

    bool readEvent(ond::value &v)
    {
        std::string_view startToken;
        startToken = v.raw_json_token();
        const std::uint64_t at = offsetOf(startToken.data());
        ond::json_type type;
        LS_TRY(v.type().get(type));
        if (type != ond::json_type::object) {
            sink_.add("element of \"traceEvents\" is not an object; skipped", at);
            return true;
        }
        ond::object object;
        LS_TRY(v.get_object().get(object));

        DeviceEvent e;
        ThreadKey thread;
        bool hasPh = false, hasTs = false, hasDur = false, hasPid = false, hasTid = false, hasId = false;
        MetaArgs meta;
        SyncArgs sync;
        RareArgs rare;
        for (auto fieldResult : object) {
            ond::field field;
            LS_TRY(std::move(fieldResult).get(field));
            const ond::raw_json_string key = field.key();
            ond::value value = field.value();
            const char *k = key.raw();
            switch (k[0]) {
            case 'p':
                if (key.unsafe_is_equal("ph")) {
                    ond::json_type t;
                    LS_TRY(value.type().get(t));
                    if (t == ond::json_type::string) {
                        std::string_view ph;
                        LS_TRY(value.get_string().get(ph));
                        e.phase = phaseFromText(ph);
                        hasPh = true;
                    } else {
                        sink_.add("\"ph\" is not a string; phase unknown", at);
                    }
                } else if (key.unsafe_is_equal("pid")) {
                    if (!readTraceId(value, thread.pid, hasPid, "pid", at))
                        return false;
                }
                break;
            case 't':
                if (key.unsafe_is_equal("ts")) {
                    if (!readMicros(value, e.ts, hasTs, "ts", at))
                        return false;
                } else if (key.unsafe_is_equal("tid")) {
                    if (!readTraceId(value, thread.tid, hasTid, "tid", at))
                        return false;
                }
                break;
            case 'd':
                if (key.unsafe_is_equal("dur"))
                    if (!readMicros(value, e.dur, hasDur, "dur", at))
                        return false;
                break;
            case 'n':
                if (key.unsafe_is_equal("name"))
                    if (!readString(value, e.name, "name", at, false))
                        return false;
                break;
            case 'c':
                if (key.unsafe_is_equal("cat"))
                    if (!readString(value, e.categoryText, "cat", at, false))
                        return false;
                break;
            case 'i':
                if (key.unsafe_is_equal("id")) {
                    ond::json_type t;
                    LS_TRY(value.type().get(t));
                    std::string_view token;
                    token = value.raw_json_token();
                    std::int64_t id = 0;
                    if ((t == ond::json_type::number || t == ond::json_type::string)
                        && parseIntegerText(token, id) == NumberStatus::Ok) {
                        e.flowId = id;
                        hasId = true;
                    } else {
                        sink_.add("\"id\" is not an integer; ignored", at);
                    }
                }
                break;
            case 'a':
                if (key.unsafe_is_equal("args")) {
                    // The phase may come after args, so metadata keys are always collected.
                    if (!readArgs(value, e, meta, sync, rare, true, at))
                        return false;
                }
                break;
            default:
                break;
            }
        }
        (void)hasId;
        if (!hasPh)
            sink_.add("event without \"ph\"; phase unknown", at);
        if (e.categoryText != 0)
            e.category = categoryOf(e.categoryText);
        if (e.phase == Phase::FlowStart || e.phase == Phase::FlowFinish) {
            if (e.category == EventCategory::Other && e.categoryText == 0)
                e.category = EventCategory::Flow;
        }
        if (e.phase == Phase::Metadata) {
            applyMetadata(e, thread, meta, hasPid, hasTid, at);
        } else {
            if (!hasTs) {
                sink_.add("event without a valid \"ts\"; skipped", at);
                return true;
            }
            if (e.phase == Phase::Complete) {
                if (!hasDur)
                    sink_.add("complete (\"X\") event without a valid \"dur\"; dur = 0", at);
                if (e.dur < 0) {
                    sink_.add("negative \"dur\"; set to 0", at);
                    e.dur = 0;
                }
            }
            // Every time is kept within ±kTimeLimit, so that ends, and differences between any two
            // times, fit in int64 nanoseconds everywhere downstream.
            Nanos end = 0;
            if (e.ts < -kTimeLimit || e.ts > kTimeLimit || __builtin_add_overflow(e.ts, e.dur, &end) || end < -kTimeLimit
                || end > kTimeLimit) {
                sink_.add("\"ts\" (" + std::to_string(e.ts) + " ns) + \"dur\" (" + std::to_string(e.dur)
                              + " ns) is outside the supported time range of +/-2^62 ns (about 146 years); "
                                "event skipped",
                          at);
                return true;
            }
            if (!hasPid && !(e.phase == Phase::Instant))
                sink_.add("event without \"pid\"; pid = 0", at);
        }
        const auto index = EventIndex::at(trace_.events.size());
        if (sync.waitOnStream != kNoId || sync.recordCorrelation != kNoId) {
            sync.event = index;
            trace_.syncArgs.push_back(sync);
        }
        if (rare.isCollective) {
            rare.collective.event = index;
            trace_.collectives.push_back(rare.collective);
            e.flags |= DeviceEvent::kHasCollective;
        }
        if (rare.graphId != kNoId) {
            trace_.graphIds.push_back({index, rare.graphId});
            e.flags |= DeviceEvent::kHasGraphId;
        }
        e.thread = threadIndex(thread);
        trace_.events.push_back(e);
        return true;
    }

    // Consecutive events are mostly on one thread: the last one found is tried first.
    ThreadIndex threadIndex(const ThreadKey &key)
    {
        if (!(key == lastThread_)) {
            lastThread_ = key;
            lastThreadIndex_ = trace_.threads.intern(key);
        }
        return lastThreadIndex_;
    }

    void applyMetadata(const DeviceEvent &e, const ThreadKey &thread, const MetaArgs &meta, bool hasPid, bool hasTid,
                       std::uint64_t at)
    {
        const std::string_view what = trace_.strings.at(e.name);
        if (what == "thread_name" || what == "process_name") {
            if (!meta.hasName) {
                sink_.add("\"" + std::string(what) + "\" metadata without args.name; ignored", at);
                return;
            }
            if (what == "thread_name")
                trace_.threadNames[thread] = std::string(trace_.strings.at(meta.name));
            else
                trace_.processNames[thread.pid] = std::string(trace_.strings.at(meta.name));
        } else if (what == "thread_sort_index") {
            if (!meta.hasSortIndex) {
                sink_.add("\"thread_sort_index\" metadata without args.sort_index; ignored", at);
                return;
            }
            trace_.threadSortIndex[thread] = meta.sortIndex;
        }
        (void)hasPid;
        (void)hasTid;
    }

#undef LS_TRY

    DeviceTrace trace_;
    InternCache interned_{trace_.strings};
    ThreadKey lastThread_; // threadIndex()'s last lookup (ThreadKey{} is index 0)
    ThreadIndex lastThreadIndex_{0};
    std::string args_; // without a source file: every event's args text, back to back (the spans index it)
    ond::parser parser_;
    simdjson::error_code lastError_ = simdjson::SUCCESS;
    std::vector<std::uint8_t> categoryCache_;
    ond::document *currentDoc_ = nullptr;
    std::size_t windowEnd_ = 0;
    bool reservedOnce_ = false;
    PagePrefaulter eventPages_;
    PagePrefaulter argPages_;
    std::size_t rangeEnd_ = 0; // where this reader's part of the text ends
};

} // namespace

DeviceTrace parseKineto(InputText input, const std::string &name, ProgressReporter &progress)
{
    KinetoReader reader(std::move(input), name, progress);
    return reader.run();
}

} // namespace linkscope::core::io
