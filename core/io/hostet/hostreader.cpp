#include "io/hostet/hostreader.h"

#include "base/arraygrowth.h"
#include "io/hostet/hosttree.h"
#include "io/json/decimal.h"
#include "io/json/interncache.h"
#include "io/readerbase.h"
#include "io/tracereader.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>

namespace linkscope::core::io {

namespace ond = simdjson::ondemand;
static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING, "kJsonPadding must cover simdjson's padding");

namespace {

// Windows of the "nodes" array are parsed one at a time (see parseNodes): small enough that the text
// stays in the cache between simdjson's passes over it, large enough that the per-window setup is noise.
constexpr std::size_t kWindowBytes = 128u << 10;

constexpr std::string_view kProcessRootName = "[pytorch|profiler|execution_trace|process]";

// Equality with a literal, compared in a couple of loads instead of a call to memcmp.
template <std::size_t N>
bool is(std::string_view key, const char (&literal)[N])
{
    return key.size() == N - 1 && std::memcmp(key.data(), literal, N - 1) == 0;
}

std::string_view trimRight(std::string_view s)
{
    while (!s.empty() && isJsonWhitespace(s.back()))
        s.remove_suffix(1);
    return s;
}

struct LayoutVotes {
    std::size_t flat = 0;
    std::size_t nested = 0;
};

class HostReader : ReaderBase {
public:
    HostReader(InputText input, const std::string &name, ProgressReporter &progress)
        : ReaderBase(std::move(input), name, progress)
    {
        describeSource(trace_);
    }

    // A reader of one chunk of another reader's nodes array (parseNodesInParallel).
    explicit HostReader(const ChunkOf &chunk) : ReaderBase(chunk) { }

    HostTrace run()
    {
        parseGuarded([this] { parseDocument(); });
        finish();
        sink_.appendTo(trace_.warnings);
        // Node spans (inputs, outputs, attrs, the whole node) point into the text: it is kept.
        if (sourceFile_)
            trace_.source = sourceFile_; // a plain file: spans are read back from it, the text is dropped
        else
            trace_.source = std::make_shared<const InMemoryArgs>(std::move(text_).takeString());
        return std::move(trace_);
    }

private:
    void parseDocument()
    {
        if (text_.empty())
            fail(0, "empty file");
        std::size_t pos = scanner_.skipWhitespace(byteOrderMarkLength(text_.view()));
        if (pos >= text_.size())
            fail(pos, "file contains only whitespace");
        if (text_[pos] != '{')
            fail(pos, "not a JSON object: expected '{' at the start of a host execution trace, found "
                          + describeByteAt(text_.view(), pos));
        bool sawNodes = false;
        bool truncated = false;
        pos = scanner_.skipWhitespace(pos + 1);
        try {
            if (scanner_.at(pos) != '}') {
                for (;;) {
                    pos = scanner_.skipWhitespace(pos);
                    if (truncated || pos >= text_.size()) {
                        if (sawNodes) {
                            // The observer writes the nodes first and the closing keys last: a crashed
                            // run ends right after the nodes.
                            truncated = true;
                            break;
                        }
                    }
                    if (scanner_.at(pos) != '"')
                        scanner_.fail(pos, "expected a member name (string) in the top-level object, found "
                                               + describeByteAt(text_.view(), pos));
                    const std::size_t keyEnd = scanner_.skipString(pos);
                    const std::string_view key(text_.data() + pos + 1, keyEnd - pos - 2);
                    pos = scanner_.skipWhitespace(scanner_.expect(keyEnd, ':', "after a member name"));
                    const std::size_t valueStart = pos;
                    if (key == "traceEvents")
                        fail(valueStart, "looks like a Kineto trace (has \"traceEvents\"), expected a host execution "
                                         "trace (with \"nodes\")");
                    if (key == "nodes") {
                        if (scanner_.at(pos) != '[') {
                            scanner_.skipValue(pos);
                            fail(valueStart, "\"nodes\" is not an array");
                        }
                        if (sawNodes)
                            sink_.add("second \"nodes\" array; its nodes are appended", valueStart);
                        sawNodes = true;
                        pos = parseNodes(pos, truncated);
                        if (truncated)
                            break;
                    } else {
                        pos = scanner_.skipValue(pos);
                        topLevelValue(key, std::string_view(text_.data() + valueStart, pos - valueStart), valueStart);
                    }
                    pos = scanner_.skipWhitespace(pos);
                    if (scanner_.at(pos) == ',') {
                        ++pos;
                        if (sawNodes && scanner_.skipWhitespace(pos) >= text_.size()) {
                            truncated = true;
                            break;
                        }
                        continue;
                    }
                    if (scanner_.at(pos) == '}')
                        break;
                    if (pos >= text_.size() && sawNodes) {
                        truncated = true;
                        break;
                    }
                    scanner_.fail(pos, "expected ',' or '}' in the top-level object, found " + describeByteAt(text_.view(), pos));
                }
            }
        } catch (const ScanError &e) {
            // Cut off after the nodes (in "finish_ts"): every node is there.
            if (!e.atEnd || !sawNodes)
                throw;
            truncated = true;
        }
        if (!truncated) {
            pos = scanner_.skipWhitespace(pos + 1);
            if (pos < text_.size())
                sink_.add("bytes after the end of the JSON document were ignored", pos);
        }
        if (!sawNodes)
            fail(0, "no \"nodes\" array: not a host execution trace");
        if (trace_.schema.empty() && !truncated)
            sink_.add("no \"schema\" key; the layout is detected from the nodes", 0);
        if (truncated) {
            trace_.recoveredTruncation = true;
            if (trace_.finishTs < 0 && !truncatedInNodes_)
                recoveryNote_ = "the file ends before the top-level object is closed";
        }
    }

    void topLevelValue(std::string_view key, std::string_view value, std::uint64_t offset)
    {
        std::int64_t v = 0;
        if (key == "schema") {
            std::string s;
            if (unescapeJsonString(trimRight(value), s))
                trace_.schema = std::move(s);
            else
                sink_.add("\"schema\" is not a string; ignored", offset);
        } else if (key == "pid") {
            if (parseIntegerText(value, v) == NumberStatus::Ok)
                trace_.pid = v;
            else
                sink_.add("\"pid\" is not an integer; ignored", offset);
        } else if (key == "time") {
            std::string s;
            if (unescapeJsonString(trimRight(value), s))
                trace_.time = std::move(s);
            else
                sink_.add("\"time\" is not a string; ignored", offset);
        } else if (key == "start_ts") {
            if (parseIntegerText(value, v) == NumberStatus::Ok)
                trace_.startTs = v;
            else
                sink_.add("\"start_ts\" is not an integer; ignored", offset);
        } else if (key == "finish_ts") {
            if (parseIntegerText(value, v) == NumberStatus::Ok)
                trace_.finishTs = v;
            else
                sink_.add("\"finish_ts\" is not an integer; ignored", offset);
        }
    }

    // Returns the offset after the closing ']'; on a cut-off file sets `truncated` and keeps every
    // complete node read so far.
    //
    // Most of the array is read in windows of whole nodes: simdjson's DOM parser validates a window
    // as strictly as the scanner would (structure, strings, escapes, numbers, literals; UTF-8 too),
    // then On-Demand reads the nodes from it, so the text is not walked byte by byte to find where
    // each node ends. A window that does not validate — a cut that was not between two nodes, bad
    // input, deep nesting — is read again node by node with the validating scanner, which is also
    // what reads the last window and a truncated end: errors, their byte offsets and the recovery of
    // a cut-off file are exactly those of the node-by-node reader.
    std::size_t parseNodes(std::size_t open, bool &truncated)
    {
        const std::size_t p = scanner_.skipWhitespace(open + 1);
        if (scanner_.at(p) == ']')
            return p + 1;
        if (const std::size_t end = parseNodesInParallel(p, truncated); end != std::string::npos)
            return end;
        return parseNodesFrom(p, std::string::npos, truncated);
    }

    // A chunk that does not end exactly at its boundary (the guess was inside a value, or the array
    // ended first), or another chunk's failure: the parallel parse is abandoned.
    struct ChunkMisaligned { };
    struct ChunkAbandoned { };

    // Reads the nodes from `p` on. With stopAt = npos to the end of the array (or of a truncated
    // file); else up to the ',' at stopAt, which must follow a node (throws ChunkMisaligned if not).
    std::size_t parseNodesFrom(std::size_t p, std::size_t stopAt, bool &truncated)
    {
        const bool bounded = stopAt != std::string::npos;
        const std::size_t arrayFirst = p;
        beginElementsAt(p);
        for (;;) {
            if (chunkAbandoned())
                throw ChunkAbandoned{};
            // A file whose windows keep failing (cuts that are not between nodes, or bad input) is
            // read node by node to the end rather than parsed twice.
            if (windowFailures_ < 8 && p + kWindowBytes + 2 < text_.size()) {
                const std::size_t cut = bounded && stopAt - p <= kWindowBytes + 2 ? stopAt : findCut(p, p + kWindowBytes);
                const bool read = cut != std::string::npos && (!bounded || cut <= stopAt) && parseWindow(p, cut);
                windowFailures_ = read ? 0 : windowFailures_ + 1;
                if (read) {
                    releaseParsed(cut);
                    reportProgress(cut);
                    reserveForRest(cut - arrayFirst, (bounded && !reserveForAll_ ? stopAt : text_.size()) - arrayFirst);
                    populateAhead();
                    if (bounded && cut == stopAt)
                        return stopAt;
                    p = scanner_.skipWhitespace(cut + 1);
                    continue;
                }
            }
            // Node by node until past this window's worth of text, then windows again.
            const std::size_t target = p + kWindowBytes;
            while (p < target) {
                if (p >= text_.size()) {
                    if (bounded)
                        throw ChunkMisaligned{};
                    truncated = true;
                    truncatedInNodes_ = true;
                    cutOffset_ = p;
                    return p;
                }
                std::size_t end = 0;
                try {
                    end = scanner_.skipValue(p);
                } catch (const ScanError &e) {
                    if (!e.atEnd || bounded)
                        throw;
                    truncated = true;
                    truncatedInNodes_ = true;
                    cutOffset_ = p;
                    return text_.size();
                }
                readNodeAlone(p, end);
                reportProgress(end);
                const std::size_t r = scanner_.skipWhitespace(end);
                if (bounded && r == stopAt)
                    return stopAt;
                if (bounded && (r > stopAt || r >= text_.size() || text_[r] == ']'))
                    throw ChunkMisaligned{};
                if (r >= text_.size()) {
                    truncated = true;
                    truncatedInNodes_ = true;
                    cutOffset_ = r;
                    return r;
                }
                if (text_[r] == ']')
                    return r + 1;
                if (text_[r] != ',')
                    scanner_.fail(r, "expected ',' or ']' after a node in \"nodes\", found " + describeByteAt(text_.view(), r));
                p = scanner_.skipWhitespace(r + 1);
                if (scanner_.at(p) == ']')
                    scanner_.fail(r, "trailing ',' before the end of \"nodes\"");
            }
        }
    }

    // Reads the array in chunks, one per thread (ReaderBase::readInChunks), and merges them in file
    // order: the same nodes, strings (the same ids), layout votes and warnings as one thread gives.
    // Returns npos, having changed nothing, when the text is too small, no boundaries are found or
    // any chunk fails; the one-thread read then reads the array and reports any error.
    std::size_t parseNodesInParallel(std::size_t first, bool &truncated)
    {
        auto read = readInChunks<HostReader>(
            first, ChunkSeparators::LineBreak, [](HostReader &chunk, std::size_t begin, std::size_t stop) {
                bool chunkTruncated = false; // only the last chunk can end the file; it then sets truncatedInNodes_
                return chunk.parseNodesFrom(begin, stop, chunkTruncated);
            });
        if (!read)
            return std::string::npos;
        for (const auto &chunk : read->readers)
            mergeChunk(*chunk);
        releaseParsed(read->ends.back());
        const HostReader &last = *read->readers.back();
        if (last.truncatedInNodes_) {
            truncated = true;
            truncatedInNodes_ = true;
            cutOffset_ = last.cutOffset_;
        }
        return read->ends.back();
    }

    // Appends a chunk's nodes: strings re-interned in the chunk's order of first use (the ids one
    // thread assigns), comm indices shifted. Spans are offsets in the shared text: unchanged.
    void mergeChunk(HostReader &c)
    {
        HostTrace &from = c.trace_;
        votes_.flat += c.votes_.flat;
        votes_.nested += c.votes_.nested;
        if (trace_.strings.size() == 1 && trace_.nodes.empty() && trace_.commAttrs.empty()) {
            trace_.strings = std::move(from.strings);
            interned_.clear();
            trace_.nodes = std::move(from.nodes);
            trace_.commAttrs = std::move(from.commAttrs);
            sink_.merge(c.sink_);
            from = HostTrace{};
            return;
        }
        std::vector<StringId> ids(from.strings.size());
        for (std::size_t i = 0; i < ids.size(); ++i)
            ids[i] = trace_.strings.intern(from.strings.at(static_cast<StringId>(i)));
        const auto commBase = static_cast<std::uint32_t>(trace_.commAttrs.size());
        const std::size_t nodeBase = trace_.nodes.size();
        trace_.nodes.resize(nodeBase + from.nodes.size());
        HostNode *out = trace_.nodes.data() + nodeBase;
        for (const HostNode &in : from.nodes) {
            HostNode n = in;
            n.name = ids[n.name];
            n.opSchema = ids[n.opSchema];
            n.kernelBackend = ids[n.kernelBackend];
            n.kernelFile = ids[n.kernelFile];
            if (n.comm.valid())
                n.comm = CommIndex(n.comm.value + commBase);
            *out++ = n;
        }
        std::vector<HostNode>().swap(from.nodes);
        for (HostCommAttrs a : from.commAttrs) {
            a.collectiveName = ids[a.collectiveName];
            a.dtype = ids[a.dtype];
            a.pgName = ids[a.pgName];
            a.pgDesc = ids[a.pgDesc];
            trace_.commAttrs.push_back(a);
        }
        sink_.merge(c.sink_);
        from = HostTrace{};
    }

    // A plain file's parsed pages leave the resident set (they read back from the file if touched
    // again); a gzip text is kept whole, because the trace's spans point into it.
    void releaseParsed(std::size_t offset)
    {
        if (!sourceFile_)
            return;
        if (isChunk())
            releaseChunkBefore(offset);
        else
            text_.releaseBefore(offset);
    }

    // Progress once per MiB, as often as a window ends or a node is read.
    void reportProgress(std::size_t offset)
    {
        if (offset - lastReport_ > (1u << 20)) {
            releaseParsed(lastReport_);
            reportParsed(progressAt(offset));
            lastReport_ = offset;
        }
    }

    // A ',' between two nodes: '}' before it and '{' after it, whitespace allowed. The observer puts
    // each node on lines of its own and a node's attrs on one line ("}, {" between them), so a
    // separator with a line break is looked for first. Either kind may also match inside a string or a
    // nested value; such a window does not validate (an unclosed string or container) and is read
    // node by node instead.
    std::size_t findCut(std::size_t p, std::size_t target) const
    {
        const char *d = text_.data();
        for (std::size_t k = target; k > p + 1;) {
            const void *hit = memrchr(d + p + 1, '\n', k - (p + 1));
            if (!hit)
                break;
            const std::size_t c = static_cast<std::size_t>(static_cast<const char *>(hit) - d);
            std::size_t comma = std::string::npos;
            std::size_t a = c;
            while (a > p && isJsonWhitespace(d[a - 1]))
                --a;
            if (a > p && d[a - 1] == ',') {
                comma = --a;
                while (a > p && isJsonWhitespace(d[a - 1]))
                    --a;
            }
            std::size_t b = c + 1;
            while (b < target && isJsonWhitespace(d[b]))
                ++b;
            if (comma == std::string::npos && b < target && d[b] == ',') {
                comma = b++;
                while (b < target && isJsonWhitespace(d[b]))
                    ++b;
            }
            if (comma != std::string::npos && a > p && d[a - 1] == '}' && b < target && d[b] == '{')
                return comma;
            k = c;
        }
        return lastElementSeparator(p, target);
    }

    // Reads the nodes in [first, closeAt) as one array (ReaderBase::parseAsArray), where
    // text_[closeAt] is the ',' after the last one. False (and nothing read) if the window is not
    // valid JSON.
    bool parseWindow(std::size_t first, std::size_t closeAt)
    {
        return parseAsArray(first, closeAt, [this](std::size_t begin, std::size_t len) {
            if (validator_.parse(reinterpret_cast<const std::uint8_t *>(text_.data() + begin), len, false).error())
                return false;
            // Cannot fail on validated JSON short of a simdjson bug; if it does, the window is read
            // again node by node, so nothing it added may stay.
            const Checkpoint cp = checkpoint();
            const bool ok = readWindow(begin, len);
            if (!ok)
                restore(cp);
            return ok;
        });
    }

    bool readWindow(std::size_t begin, std::size_t len)
    {
        ond::document doc;
        if (parser_.iterate(text_.data() + begin, len, text_.paddedSize() - begin).get(doc))
            return false;
        document_ = &doc;
        windowEnd_ = begin + len;
        ond::array nodes;
        if (doc.get_array().get(nodes))
            return false;
        for (auto element : nodes) {
            ond::value node;
            if (std::move(element).get(node))
                return false;
            const std::size_t at = offsetOf(node.raw_json_token().data());
            if (readNode(node, at, 0))
                return false;
        }
        return true;
    }

    // One node parsed as a document of its own, after the scanner found its end.
    void readNodeAlone(std::size_t begin, std::size_t end)
    {
        ond::document doc;
        simdjson::error_code err = parser_.iterate(text_.data() + begin, end - begin, text_.paddedSize() - begin).get(doc);
        if (!err) {
            document_ = &doc;
            err = readNode(doc, begin, end);
        }
        if (err)
            fail(begin, std::string("invalid JSON in a node of \"nodes\": ") + simdjson::error_message(err));
    }

    // Reserves the nodes for the whole array from the density seen so far: growing by doubling would
    // briefly hold two copies of them, and copy them. Reserved pages that are never written do not
    // count in the resident set, so the estimate errs on the high side.
    void reserveForRest(std::size_t parsedBytes, std::size_t arrayBytes)
    {
        if (trace_.nodes.size() < 1000 || parsedBytes == 0)
            return;
        reserveFromDensity(trace_.nodes, double(arrayBytes) / double(parsedBytes), !reservedOnce_, 1024, 1024);
        reservedOnce_ = true;
    }

    void populateAhead() { nodePages_.ahead(trace_.nodes); }

    struct Checkpoint {
        std::size_t nodes;
        std::size_t commAttrs;
        LayoutVotes votes;
        WarningSink::Snapshot warnings;
    };
    Checkpoint checkpoint() const { return {trace_.nodes.size(), trace_.commAttrs.size(), votes_, sink_.snapshot()}; }
    void restore(const Checkpoint &cp)
    {
        trace_.nodes.resize(cp.nodes);
        trace_.commAttrs.resize(cp.commAttrs);
        votes_ = cp.votes;
        sink_.rollback(cp.warnings);
    }

    std::uint64_t offsetOf(const char *p) const { return static_cast<std::uint64_t>(p - text_.data()); }

#define LS_TRY(expr)                                                                                                             \
    do {                                                                                                                         \
        if (auto err_ = (expr); err_)                                                                                            \
            return err_;                                                                                                         \
    } while (0)

    Span spanOf(std::string_view raw) const
    {
        raw = trimRight(raw);
        return Span{static_cast<std::uint64_t>(raw.data() - text_.data()),
                    static_cast<std::uint32_t>(std::min<std::size_t>(raw.size(), UINT32_MAX))};
    }

    // The span from `open` (a container's first byte) to the byte `close` ('}' or ']') that ends it,
    // once the container has been iterated: the parser then stands on the token after it.
    simdjson::error_code spanUpTo(const char *open, char close, Span &out)
    {
        const char *after = nullptr;
        if (document_->current_location().get(after))
            after = text_.data() + windowEnd_; // the container ended the window's text
        while (after > open && after[-1] != close)
            --after;
        out = Span{offsetOf(open), static_cast<std::uint32_t>(std::min<std::size_t>(after - open, UINT32_MAX))};
        return simdjson::SUCCESS;
    }

    // A member name without copying it when it has no escape (nearly always); unescaped otherwise.
    static simdjson::error_code keyOf(ond::field &field, std::string_view &key)
    {
        const char *k = field.key().raw();
        const char *q = k;
        while (*q != '"' && *q != '\\')
            ++q;
        if (*q == '"') {
            key = std::string_view(k, static_cast<std::size_t>(q - k));
            return simdjson::SUCCESS;
        }
        return field.unescaped_key().get(key);
    }

    // A string value (type already checked) without copying it when it has no escape.
    static simdjson::error_code stringOf(ond::value &v, std::string_view &out)
    {
        const std::string_view token = v.raw_json_token(); // from the opening quote to the next token
        const char *s = token.data() + 1;
        const void *quote = std::memchr(s, '"', token.size() - 1);
        if (quote) {
            const std::size_t n = static_cast<std::size_t>(static_cast<const char *>(quote) - s);
            if (!std::memchr(s, '\\', n)) {
                out = std::string_view(s, n);
                return simdjson::SUCCESS;
            }
        }
        return v.get_string().get(out);
    }

    // Raw text of any value (consumes it).
    simdjson::error_code rawValue(ond::value &v, Span &out)
    {
        ond::json_type t;
        if (auto err = v.type().get(t))
            return err;
        std::string_view raw;
        if (t == ond::json_type::object) {
            ond::object o;
            if (auto err = v.get_object().get(o))
                return err;
            if (auto err = o.raw_json().get(raw))
                return err;
        } else if (t == ond::json_type::array) {
            ond::array a;
            if (auto err = v.get_array().get(a))
                return err;
            if (auto err = a.raw_json().get(raw))
                return err;
        } else {
            raw = v.raw_json_token();
        }
        out = spanOf(raw);
        return simdjson::SUCCESS;
    }

    // An integer attribute value: number or numeric string. Mistyped → warning, unchanged.
    simdjson::error_code intValue(ond::value &v, std::int64_t &out, std::string_view what, std::uint64_t at)
    {
        ond::json_type t;
        if (auto err = v.type().get(t))
            return err;
        if (t == ond::json_type::null)
            return simdjson::SUCCESS;
        if (t != ond::json_type::number && t != ond::json_type::string) {
            sink_.add("node attribute \"" + std::string(what) + "\" is not an integer; ignored", at);
            return simdjson::SUCCESS;
        }
        std::string_view token;
        token = v.raw_json_token();
        std::int64_t value = 0;
        if (parseIntegerText(token, value) != NumberStatus::Ok) {
            sink_.add("node attribute \"" + std::string(what) + "\" is not an integer; ignored", at);
            return simdjson::SUCCESS;
        }
        out = value;
        return simdjson::SUCCESS;
    }

    simdjson::error_code stringValue(ond::value &v, StringId &out, std::string_view what, std::uint64_t at)
    {
        ond::json_type t;
        if (auto err = v.type().get(t))
            return err;
        if (t == ond::json_type::string) {
            std::string_view s;
            if (auto err = stringOf(v, s))
                return err;
            out = interned_.intern(s);
        } else if (t != ond::json_type::null) {
            sink_.add("node attribute \"" + std::string(what) + "\" is not a string; ignored", at);
        }
        return simdjson::SUCCESS;
    }

    enum class Attr : std::uint8_t {
        None,
        RfId,
        FwParent,
        SeqId,
        Tid,
        FwTid,
        Scope,
        OpSchema,
        KernelBackend,
        KernelFile,
        CollectiveName,
        Dtype,
        PgName,
        PgDesc,
        InMsgNelems,
        OutMsgNelems,
        PgSize,
        GlobalRankStart,
        GlobalRankStride,
    };
    // One length switch and at most two comparisons instead of a chain of eighteen.
    static Attr attrOf(std::string_view key)
    {
        auto is = [&](std::string_view name) { return std::memcmp(key.data(), name.data(), name.size()) == 0; };
        switch (key.size()) {
        case 3:
            return is("tid") ? Attr::Tid : Attr::None;
        case 5:
            return is("rf_id") ? Attr::RfId : is("scope") ? Attr::Scope : is("dtype") ? Attr::Dtype : Attr::None;
        case 6:
            return is("seq_id") ? Attr::SeqId : is("fw_tid") ? Attr::FwTid : Attr::None;
        case 7:
            return is("pg_name") ? Attr::PgName : is("pg_desc") ? Attr::PgDesc : is("pg_size") ? Attr::PgSize : Attr::None;
        case 9:
            return is("fw_parent") ? Attr::FwParent : is("op_schema") ? Attr::OpSchema : Attr::None;
        case 11:
            return is("kernel_file") ? Attr::KernelFile : Attr::None;
        case 13:
            return is("in_msg_nelems") ? Attr::InMsgNelems : Attr::None;
        case 14:
            return is("kernel_backend") ? Attr::KernelBackend : is("out_msg_nelems") ? Attr::OutMsgNelems : Attr::None;
        case 15:
            return is("collective_name") ? Attr::CollectiveName : Attr::None;
        case 17:
            return is("global_rank_start") ? Attr::GlobalRankStart : Attr::None;
        case 18:
            return is("global_rank_stride") ? Attr::GlobalRankStride : Attr::None;
        default:
            return Attr::None;
        }
    }

    // Attributes shared by the flat keys (1.0.1) and the attrs list (1.0.2+).
    simdjson::error_code attribute(std::string_view key, ond::value &v, HostNode &n, HostCommAttrs &comm, bool &hasComm,
                                   std::uint64_t at)
    {
        std::int64_t x = 0;
        switch (attrOf(key)) {
        case Attr::None:
            return simdjson::SUCCESS;
        case Attr::RfId:
            x = static_cast<std::int64_t>(n.rfId);
            if (auto err = intValue(v, x, key, at))
                return err;
            if (x < 0)
                sink_.add("negative rf_id; ignored", at);
            else
                n.rfId = static_cast<std::uint64_t>(x);
            return simdjson::SUCCESS;
        case Attr::FwParent:
            return intValue(v, n.fwParent, key, at);
        case Attr::SeqId:
            return intValue(v, n.seqId, key, at);
        case Attr::Tid:
            return intValue(v, n.tid, key, at);
        case Attr::FwTid:
            return intValue(v, n.fwTid, key, at);
        case Attr::Scope:
            x = n.scope;
            if (auto err = intValue(v, x, key, at))
                return err;
            n.scope = static_cast<std::int32_t>(x);
            return simdjson::SUCCESS;
        case Attr::OpSchema:
            return stringValue(v, n.opSchema, key, at);
        case Attr::KernelBackend:
            return stringValue(v, n.kernelBackend, key, at);
        case Attr::KernelFile:
            return stringValue(v, n.kernelFile, key, at);
        case Attr::CollectiveName:
            hasComm = true;
            return stringValue(v, comm.collectiveName, key, at);
        case Attr::Dtype:
            hasComm = true;
            return stringValue(v, comm.dtype, key, at);
        case Attr::PgName:
            hasComm = true;
            return stringValue(v, comm.pgName, key, at);
        case Attr::PgDesc:
            hasComm = true;
            return stringValue(v, comm.pgDesc, key, at);
        case Attr::InMsgNelems:
            hasComm = true;
            return intValue(v, comm.inMsgNelems, key, at);
        case Attr::OutMsgNelems:
            hasComm = true;
            return intValue(v, comm.outMsgNelems, key, at);
        case Attr::PgSize:
            hasComm = true;
            return intValue(v, comm.pgSize, key, at);
        case Attr::GlobalRankStart:
            hasComm = true;
            return intValue(v, comm.globalRankStart, key, at);
        case Attr::GlobalRankStride:
            hasComm = true;
            return intValue(v, comm.globalRankStride, key, at);
        }
        return simdjson::SUCCESS;
    }

    // The attrs list: [{"name": ..., "type": ..., "value": ...}, ...].
    simdjson::error_code readAttrs(ond::array &attrs, HostNode &n, HostCommAttrs &comm, bool &hasComm, std::uint64_t begin)
    {
        for (auto attrResult : attrs) {
            ond::value attr;
            LS_TRY(std::move(attrResult).get(attr));
            ond::json_type at;
            LS_TRY(attr.type().get(at));
            if (at != ond::json_type::object) {
                sink_.add("node attribute is not an object {name, type, value}; ignored", begin);
                continue;
            }
            ond::object ao;
            LS_TRY(attr.get_object().get(ao));
            // name usually precedes value, but JSON does not promise it: keep the value's raw text.
            // An empty name counts as none; after a value was applied to a name, later values are
            // ignored until another name comes.
            std::string_view attrName;
            bool applied = false;
            bool hasValue = false;
            std::string_view valueToken;
            for (auto af : ao) {
                LS_TRY(af.error());
                ond::field &f = af.value_unsafe();
                std::string_view k;
                LS_TRY(keyOf(f, k));
                ond::value av = f.value();
                if (is(k, "name")) {
                    ond::json_type nt;
                    LS_TRY(av.type().get(nt));
                    if (nt == ond::json_type::string) {
                        std::string_view s;
                        LS_TRY(stringOf(av, s));
                        if (s.data() < text_.data() || s.data() >= text_.data() + text_.size()) {
                            // Unescaped into the parser's buffer, which the next window reuses.
                            attrNameCopy_.assign(s);
                            s = attrNameCopy_;
                        }
                        attrName = s;
                        applied = false;
                    }
                } else if (is(k, "value")) {
                    if (applied)
                        continue; // a second value for the same name is ignored
                    if (!attrName.empty()) {
                        LS_TRY(attribute(attrName, av, n, comm, hasComm, begin));
                        applied = true;
                    } else {
                        Span s;
                        LS_TRY(rawValue(av, s));
                        valueToken = text_.view().substr(s.offset, s.length);
                        hasValue = true;
                    }
                }
            }
            if (hasValue && !attrName.empty() && !applied)
                attributeFromText(std::string(attrName), valueToken, n, comm, hasComm, begin);
        }
        return simdjson::SUCCESS;
    }

    // Reads one element of "nodes" (a document of its own, or an element of a window's array) that
    // starts at `begin`. `end` is where it ends, or 0 when the parser is to tell (in a window).
    template <typename Element>
    simdjson::error_code readNode(Element &element, std::size_t begin, std::size_t end)
    {
        HostNode n;
        HostCommAttrs comm;
        bool hasComm = false, hasId = false, hasName = false;
        bool flatKeys = false, nestedKeys = false;
        ond::object object;
        ond::json_type rootType;
        LS_TRY(element.type().get(rootType));
        if (rootType != ond::json_type::object) {
            sink_.add("element of \"nodes\" is not an object; skipped", begin);
            return simdjson::SUCCESS;
        }
        LS_TRY(element.get_object().get(object));
        for (auto fieldResult : object) {
            LS_TRY(fieldResult.error());
            // Used in place: copying the field out costs a store-forwarding stall per member.
            ond::field &field = fieldResult.value_unsafe();
            std::string_view key;
            LS_TRY(keyOf(field, key));
            ond::value v = field.value();
            if (is(key, "id")) {
                std::int64_t id = -1;
                ond::json_type t;
                LS_TRY(v.type().get(t));
                std::string_view token;
                token = v.raw_json_token();
                if (t == ond::json_type::number && parseIntegerText(token, id) == NumberStatus::Ok) {
                    n.id = id;
                    hasId = true;
                } else {
                    sink_.add("node \"id\" is not an integer; node skipped", begin);
                    return simdjson::SUCCESS;
                }
            } else if (is(key, "name")) {
                LS_TRY(stringValue(v, n.name, key, begin));
                hasName = true;
            } else if (is(key, "ctrl_deps") || is(key, "parent")) {
                (is(key, "parent") ? flatKeys : nestedKeys) = true;
                LS_TRY(intValue(v, n.parentId, key, begin));
            } else if (is(key, "inputs") || is(key, "outputs")) {
                HostIO &io = is(key, "inputs") ? n.inputs : n.outputs;
                ond::json_type t;
                LS_TRY(v.type().get(t));
                if (t == ond::json_type::object) {
                    nestedKeys = true;
                    ond::object o;
                    LS_TRY(v.get_object().get(o));
                    for (auto sub : o) {
                        LS_TRY(sub.error());
                        ond::field &f = sub.value_unsafe();
                        std::string_view k;
                        LS_TRY(keyOf(f, k));
                        ond::value sv = f.value();
                        Span *target = is(k, "values")    ? &io.values
                                       : is(k, "shapes")  ? &io.shapes
                                       : is(k, "types")   ? &io.types
                                       : is(k, "strides") ? &io.strides
                                                          : nullptr;
                        if (target)
                            LS_TRY(rawValue(sv, *target));
                    }
                } else {
                    flatKeys = true;
                    LS_TRY(rawValue(v, io.values));
                }
            } else if (is(key, "attrs")) {
                nestedKeys = true;
                ond::json_type t;
                LS_TRY(v.type().get(t));
                if (t != ond::json_type::array) {
                    sink_.add("node \"attrs\" is not a list; ignored", begin);
                    continue;
                }
                // The span is taken after the one pass over the list (no raw_json() + reset()).
                const char *open = v.raw_json_token().data();
                ond::array attrs;
                LS_TRY(v.get_array().get(attrs));
                LS_TRY(readAttrs(attrs, n, comm, hasComm, begin));
                LS_TRY(spanUpTo(open, ']', n.attrs));
            } else if (is(key, "input_shapes")) {
                LS_TRY(rawValue(v, n.inputs.shapes));
            } else if (is(key, "input_types")) {
                LS_TRY(rawValue(v, n.inputs.types));
            } else if (is(key, "input_strides")) {
                LS_TRY(rawValue(v, n.inputs.strides));
            } else if (is(key, "output_shapes")) {
                LS_TRY(rawValue(v, n.outputs.shapes));
            } else if (is(key, "output_types")) {
                LS_TRY(rawValue(v, n.outputs.types));
            } else if (is(key, "output_strides")) {
                LS_TRY(rawValue(v, n.outputs.strides));
            } else {
                // Flat (1.0.1) attributes are top-level keys.
                switch (attrOf(key)) {
                case Attr::RfId:
                case Attr::FwParent:
                case Attr::SeqId:
                case Attr::Scope:
                case Attr::Tid:
                case Attr::FwTid:
                case Attr::OpSchema:
                case Attr::KernelBackend:
                case Attr::KernelFile:
                    flatKeys = true;
                    LS_TRY(attribute(key, v, n, comm, hasComm, begin));
                    break;
                default:
                    break;
                }
            }
        }
        if (!hasId) {
            sink_.add("node without \"id\"; skipped", begin);
            return simdjson::SUCCESS;
        }
        if (!hasName)
            sink_.add("node without \"name\"", begin);
        if (end == 0) {
            Span whole;
            LS_TRY(spanUpTo(text_.data() + begin, '}', whole));
            n.raw = whole;
        } else {
            n.raw = Span{begin, static_cast<std::uint32_t>(std::min<std::size_t>(end - begin, UINT32_MAX))};
        }
        if (flatKeys)
            ++votes_.flat;
        if (nestedKeys)
            ++votes_.nested;
        if (hasComm) {
            n.comm = CommIndex::at(trace_.commAttrs.size());
            trace_.commAttrs.push_back(comm);
        }
        trace_.nodes.push_back(n);
        return simdjson::SUCCESS;
    }
#undef LS_TRY
    // An attrs entry whose "value" came before its "name": re-read the value from its text.
    void attributeFromText(const std::string &key, std::string_view token, HostNode &n, HostCommAttrs &comm, bool &hasComm,
                           std::uint64_t at)
    {
        ond::parser p;
        ond::value v;
        // Wrapped in an array so the value is not a document root scalar.
        std::string wrapped = "[" + std::string(token) + "]";
        wrapped.reserve(wrapped.size() + simdjson::SIMDJSON_PADDING);
        ond::document wd;
        if (p.iterate(wrapped.data(), wrapped.size(), wrapped.capacity()).get(wd))
            return;
        ond::array arr;
        if (wd.get_array().get(arr))
            return;
        for (auto e : arr) {
            if (e.get(v))
                return;
            // Spans of strings would point into the copy; only scalars are read here.
            (void)attribute(key, v, n, comm, hasComm, at);
            break;
        }
    }

    void finish()
    {
        auto &nodes = trace_.nodes;
        // Layout is whatever the nodes spell; the schema string is only reported.
        if (votes_.flat > 0 && votes_.nested > 0)
            sink_.add("nodes mix the flat (1.0.1) and nested (1.0.2+) layouts: " + std::to_string(votes_.flat) + " flat, "
                          + std::to_string(votes_.nested) + " nested",
                      kUnknownOffset);
        trace_.layout = votes_.flat > votes_.nested ? HostLayout::Flat : HostLayout::Nested;

        if (trace_.recoveredTruncation) {
            Diagnostic d;
            d.file = name_;
            d.offset = cutOffset_ == kUnknownOffset ? text_.size() : cutOffset_;
            d.message = truncatedInNodes_
                            ? "the \"nodes\" array is cut off (crashed run?): kept the " + std::to_string(nodes.size())
                                  + " complete nodes before this offset and dropped the partial one; closing keys such as "
                                    "\"finish_ts\" are missing"
                            : recoveryNote_ + "; kept all " + std::to_string(nodes.size()) + " nodes";
            d.message += offsetNote();
            trace_.warnings.push_back(d);
            const bool hasProcessRoot = std::any_of(nodes.begin(), nodes.end(), [](const HostNode &n) { return n.id == 1; });
            const bool referencesRoot = std::any_of(nodes.begin(), nodes.end(),
                                                    [](const HostNode &n) { return n.parentId == 1 && n.id != 1; });
            if (!hasProcessRoot && referencesRoot) {
                // The observer writes the process root (id 1) last, so a cut-off file lacks it.
                HostNode root;
                root.id = 1;
                root.parentId = 1;
                root.name = trace_.strings.intern(kProcessRootName);
                root.scope = kUserScope;
                root.tid = 0;
                nodes.push_back(root);
                Diagnostic s;
                s.file = name_;
                s.message = "synthesized the missing process root node (id 1, " + std::string(kProcessRootName) + ")";
                trace_.warnings.push_back(s);
            }
        }

        buildHostTree(trace_);
    }

    HostTrace trace_;
    InternCache interned_{trace_.strings};
    ond::parser parser_;
    simdjson::dom::parser validator_;   // only validates windows; the nodes are read with parser_
    ond::document *document_ = nullptr; // the document being read (a window or one node)
    std::size_t windowEnd_ = 0;         // offset just past the current window's text
    bool reservedOnce_ = false;
    int windowFailures_ = 0;     // consecutive windows read node by node
    std::size_t lastReport_ = 0; // offset of the last progress report
    PagePrefaulter nodePages_;
    std::string attrNameCopy_;
    LayoutVotes votes_;
    bool truncatedInNodes_ = false;
    std::uint64_t cutOffset_ = kUnknownOffset;
    std::string recoveryNote_;
};

} // namespace

HostTrace parseHost(InputText input, const std::string &name, ProgressReporter &progress)
{
    HostReader reader(std::move(input), name, progress);
    return reader.run();
}

} // namespace linkscope::core::io
