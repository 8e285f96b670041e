#include "io/hostreader.h"

#include "io/decimal.h"
#include "io/interncache.h"
#include "io/readerbase.h"

#include <simdjson.h>

#include <algorithm>
#include <numeric>

namespace linkscope::core::io {

namespace ond = simdjson::ondemand;

namespace {

bool isWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

constexpr std::string_view kProcessRootName = "[pytorch|profiler|execution_trace|process]";

std::string_view trimRight(std::string_view s)
{
    while (!s.empty() && isWs(s.back()))
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
        trace_.path = name;
        trace_.wasGzip = wasGzip_;
        trace_.sourceBytes = text_.size();
    }

    HostTrace run()
    {
        parseGuarded([this] { parseDocument(); });
        finish();
        sink_.appendTo(trace_.warnings);
        // Node spans (inputs, outputs, attrs, the whole node) point into the text: it is kept.
        trace_.source = std::make_shared<const std::string>(std::move(text_).takeString());
        return std::move(trace_);
    }

private:
    void parseDocument()
    {
        if (text_.empty())
            fail(0, "empty file");
        std::size_t pos = scanner_.skipWhitespace(0);
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
    std::size_t parseNodes(std::size_t open, bool &truncated)
    {
        std::size_t p = scanner_.skipWhitespace(open + 1);
        if (scanner_.at(p) == ']')
            return p + 1;
        std::size_t lastReport = 0;
        for (;;) {
            if (p >= text_.size()) {
                truncated = true;
                truncatedInNodes_ = true;
                cutOffset_ = p;
                return p;
            }
            std::size_t end = 0;
            try {
                end = scanner_.skipValue(p);
            } catch (const ScanError &e) {
                if (!e.atEnd)
                    throw;
                truncated = true;
                truncatedInNodes_ = true;
                cutOffset_ = p;
                return text_.size();
            }
            readNode(p, end);
            if (end - lastReport > (1u << 20)) {
                reportParsed(end);
                lastReport = end;
            }
            const std::size_t r = scanner_.skipWhitespace(end);
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

#define LS_TRY(expr)                                                                                               \
    do {                                                                                                           \
        if (auto err_ = (expr); err_) {                                                                            \
            jsonError = err_;                                                                                      \
            goto json_error;                                                                                       \
        }                                                                                                          \
    } while (0)

    Span spanOf(std::string_view raw) const
    {
        raw = trimRight(raw);
        return Span{static_cast<std::uint64_t>(raw.data() - text_.data()),
                    static_cast<std::uint32_t>(std::min<std::size_t>(raw.size(), UINT32_MAX))};
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
            if (auto err = v.get_string().get(s))
                return err;
            out = interned_.intern(s);
        } else if (t != ond::json_type::null) {
            sink_.add("node attribute \"" + std::string(what) + "\" is not a string; ignored", at);
        }
        return simdjson::SUCCESS;
    }

    // Attributes shared by the flat keys (1.0.1) and the attrs list (1.0.2+).
    simdjson::error_code attribute(std::string_view key, ond::value &v, HostNode &n, HostCommAttrs &comm, bool &hasComm,
                                   std::uint64_t at)
    {
        std::int64_t x = 0;
        if (key == "rf_id") {
            x = static_cast<std::int64_t>(n.rfId);
            if (auto err = intValue(v, x, key, at))
                return err;
            if (x < 0)
                sink_.add("negative rf_id; ignored", at);
            else
                n.rfId = static_cast<std::uint64_t>(x);
        } else if (key == "fw_parent") {
            return intValue(v, n.fwParent, key, at);
        } else if (key == "seq_id") {
            return intValue(v, n.seqId, key, at);
        } else if (key == "tid") {
            return intValue(v, n.tid, key, at);
        } else if (key == "fw_tid") {
            return intValue(v, n.fwTid, key, at);
        } else if (key == "scope") {
            x = n.scope;
            if (auto err = intValue(v, x, key, at))
                return err;
            n.scope = static_cast<std::int32_t>(x);
        } else if (key == "op_schema") {
            return stringValue(v, n.opSchema, key, at);
        } else if (key == "kernel_backend") {
            return stringValue(v, n.kernelBackend, key, at);
        } else if (key == "kernel_file") {
            return stringValue(v, n.kernelFile, key, at);
        } else if (key == "collective_name") {
            hasComm = true;
            return stringValue(v, comm.collectiveName, key, at);
        } else if (key == "dtype") {
            hasComm = true;
            return stringValue(v, comm.dtype, key, at);
        } else if (key == "pg_name") {
            hasComm = true;
            return stringValue(v, comm.pgName, key, at);
        } else if (key == "pg_desc") {
            hasComm = true;
            return stringValue(v, comm.pgDesc, key, at);
        } else if (key == "in_msg_nelems") {
            hasComm = true;
            return intValue(v, comm.inMsgNelems, key, at);
        } else if (key == "out_msg_nelems") {
            hasComm = true;
            return intValue(v, comm.outMsgNelems, key, at);
        } else if (key == "pg_size") {
            hasComm = true;
            return intValue(v, comm.pgSize, key, at);
        } else if (key == "global_rank_start") {
            hasComm = true;
            return intValue(v, comm.globalRankStart, key, at);
        } else if (key == "global_rank_stride") {
            hasComm = true;
            return intValue(v, comm.globalRankStride, key, at);
        }
        return simdjson::SUCCESS;
    }

    void readNode(std::size_t begin, std::size_t end)
    {
        simdjson::error_code jsonError = simdjson::SUCCESS;
        HostNode n;
        n.raw = Span{begin, static_cast<std::uint32_t>(std::min<std::size_t>(end - begin, UINT32_MAX))};
        HostCommAttrs comm;
        bool hasComm = false, hasId = false, hasName = false;
        bool flatKeys = false, nestedKeys = false;
        ond::document doc;
        ond::object object;
        ond::json_type rootType;
        LS_TRY(parser_.iterate(text_.data() + begin, end - begin, text_.paddedSize() - begin).get(doc));
        LS_TRY(doc.type().get(rootType));
        if (rootType != ond::json_type::object) {
            sink_.add("element of \"nodes\" is not an object; skipped", begin);
            return;
        }
        LS_TRY(doc.get_object().get(object));
        for (auto fieldResult : object) {
            ond::field field;
            LS_TRY(std::move(fieldResult).get(field));
            std::string_view key;
            LS_TRY(field.unescaped_key().get(key));
            ond::value v = field.value();
            if (key == "id") {
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
                    return;
                }
            } else if (key == "name") {
                LS_TRY(stringValue(v, n.name, key, begin));
                hasName = true;
            } else if (key == "ctrl_deps" || key == "parent") {
                (key == "parent" ? flatKeys : nestedKeys) = true;
                LS_TRY(intValue(v, n.parentId, key, begin));
            } else if (key == "inputs" || key == "outputs") {
                HostIO &io = key == "inputs" ? n.inputs : n.outputs;
                ond::json_type t;
                LS_TRY(v.type().get(t));
                if (t == ond::json_type::object) {
                    nestedKeys = true;
                    ond::object o;
                    LS_TRY(v.get_object().get(o));
                    for (auto sub : o) {
                        ond::field f;
                        LS_TRY(std::move(sub).get(f));
                        std::string_view k;
                        LS_TRY(f.unescaped_key().get(k));
                        ond::value sv = f.value();
                        Span *target = k == "values" ? &io.values
                            : k == "shapes"          ? &io.shapes
                            : k == "types"           ? &io.types
                            : k == "strides"         ? &io.strides
                                                     : nullptr;
                        if (target)
                            LS_TRY(rawValue(sv, *target));
                    }
                } else {
                    flatKeys = true;
                    LS_TRY(rawValue(v, io.values));
                }
            } else if (key == "input_shapes") {
                LS_TRY(rawValue(v, n.inputs.shapes));
            } else if (key == "input_types") {
                LS_TRY(rawValue(v, n.inputs.types));
            } else if (key == "input_strides") {
                LS_TRY(rawValue(v, n.inputs.strides));
            } else if (key == "output_shapes") {
                LS_TRY(rawValue(v, n.outputs.shapes));
            } else if (key == "output_types") {
                LS_TRY(rawValue(v, n.outputs.types));
            } else if (key == "output_strides") {
                LS_TRY(rawValue(v, n.outputs.strides));
            } else if (key == "attrs") {
                nestedKeys = true;
                ond::json_type t;
                LS_TRY(v.type().get(t));
                if (t != ond::json_type::array) {
                    sink_.add("node \"attrs\" is not a list; ignored", begin);
                    continue;
                }
                ond::array attrs;
                LS_TRY(v.get_array().get(attrs));
                std::string_view raw;
                LS_TRY(attrs.raw_json().get(raw));
                n.attrs = spanOf(raw);
                bool nonEmpty = false;
                LS_TRY(attrs.reset().get(nonEmpty));
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
                    std::string attrName;
                    bool hasValue = false;
                    std::string_view valueToken;
                    for (auto af : ao) {
                        ond::field f;
                        LS_TRY(std::move(af).get(f));
                        std::string_view k;
                        LS_TRY(f.unescaped_key().get(k));
                        ond::value av = f.value();
                        if (k == "name") {
                            std::string_view s;
                            ond::json_type nt;
                            LS_TRY(av.type().get(nt));
                            if (nt == ond::json_type::string) {
                                LS_TRY(av.get_string().get(s));
                                attrName.assign(s);
                            }
                        } else if (k == "value") {
                            if (!attrName.empty()) {
                                LS_TRY(attribute(attrName, av, n, comm, hasComm, begin));
                                attrName = "\x01done";
                            } else {
                                Span s;
                                LS_TRY(rawValue(av, s));
                                valueToken = text_.view().substr(s.offset, s.length);
                                hasValue = true;
                            }
                        }
                    }
                    if (hasValue && !attrName.empty() && attrName != "\x01done")
                        attributeFromText(attrName, valueToken, n, comm, hasComm, begin);
                }
            } else {
                // Flat (1.0.1) attributes are top-level keys.
                if (key == "rf_id" || key == "fw_parent" || key == "seq_id" || key == "scope" || key == "tid"
                    || key == "fw_tid" || key == "op_schema" || key == "kernel_backend" || key == "kernel_file") {
                    flatKeys = true;
                    LS_TRY(attribute(key, v, n, comm, hasComm, begin));
                }
            }
        }
        if (!hasId) {
            sink_.add("node without \"id\"; skipped", begin);
            return;
        }
        if (!hasName)
            sink_.add("node without \"name\"", begin);
        if (flatKeys)
            ++votes_.flat;
        if (nestedKeys)
            ++votes_.nested;
        if (hasComm) {
            n.comm = static_cast<std::uint32_t>(trace_.commAttrs.size());
            trace_.commAttrs.push_back(comm);
        }
        trace_.nodes.push_back(n);
        return;
    json_error:
        fail(begin, std::string("invalid JSON in a node of \"nodes\": ") + simdjson::error_message(jsonError));
    }
#undef LS_TRY

    // An attrs entry whose "value" came before its "name": re-read the value from its text.
    void attributeFromText(const std::string &key, std::string_view token, HostNode &n, HostCommAttrs &comm,
                           bool &hasComm, std::uint64_t at)
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
            sink_.add("nodes mix the flat (1.0.1) and nested (1.0.2+) layouts: " + std::to_string(votes_.flat)
                          + " flat, " + std::to_string(votes_.nested) + " nested",
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
            const bool referencesRoot = std::any_of(nodes.begin(), nodes.end(), [](const HostNode &n) { return n.parentId == 1 && n.id != 1; });
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

        // Sort by id; equal ids keep file order, and the first one wins.
        std::vector<std::uint32_t> order(nodes.size());
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return nodes[a].id < nodes[b].id; });
        std::vector<HostNode> sorted;
        sorted.reserve(nodes.size());
        std::size_t duplicates = 0;
        std::string duplicateExamples;
        for (std::uint32_t i : order) {
            if (!sorted.empty() && sorted.back().id == nodes[i].id) {
                if (++duplicates <= 3)
                    duplicateExamples += (duplicateExamples.empty() ? "" : ", ") + std::string("id ")
                        + std::to_string(nodes[i].id) + " at byte " + std::to_string(nodes[i].raw.offset);
                continue;
            }
            sorted.push_back(nodes[i]);
        }
        if (duplicates > 0) {
            Diagnostic d;
            d.file = name_;
            d.message = std::to_string(duplicates) + " node(s) repeat an id already used; the first node with each id is "
                                                     "kept, the repeats are ignored (e.g. " + duplicateExamples + ")";
            trace_.warnings.push_back(d);
        }
        nodes = std::move(sorted);

        trace_.indexById.reserve(nodes.size());
        for (std::uint32_t i = 0; i < nodes.size(); ++i)
            trace_.indexById.emplace(nodes[i].id, i);

        std::size_t missing = 0;
        std::string missingExamples;
        for (auto &n : nodes) {
            if (n.parentId < 0 || n.parentId == n.id)
                continue;
            auto it = trace_.indexById.find(n.parentId);
            if (it == trace_.indexById.end()) {
                n.parentMissing = true;
                if (++missing <= 3)
                    missingExamples += (missingExamples.empty() ? "" : ", ") + std::string("node ") + std::to_string(n.id)
                        + " → parent " + std::to_string(n.parentId);
                continue;
            }
            n.parent = it->second;
        }
        if (missing > 0) {
            Diagnostic d;
            d.file = name_;
            d.message = std::to_string(missing) + " node(s) name a parent id that is not in the file; they are kept as "
                                                  "roots (e.g. " + missingExamples + ")";
            trace_.warnings.push_back(d);
        }
        breakCycles();

        const std::size_t count = nodes.size();
        trace_.childBegin.assign(count + 1, 0);
        for (const auto &n : nodes)
            if (n.parent != UINT32_MAX)
                ++trace_.childBegin[n.parent + 1];
        for (std::size_t i = 0; i < count; ++i)
            trace_.childBegin[i + 1] += trace_.childBegin[i];
        trace_.childList.resize(trace_.childBegin[count]);
        std::vector<std::uint32_t> fill(trace_.childBegin.begin(), trace_.childBegin.end() - 1);
        // Nodes are in id order, so each child list comes out sorted by id.
        for (std::uint32_t i = 0; i < count; ++i) {
            if (nodes[i].parent != UINT32_MAX)
                trace_.childList[fill[nodes[i].parent]++] = i;
            else
                trace_.roots.push_back(i);
        }
    }

    // Parent ids could form a loop in a damaged file; every consumer walks parent chains, so a loop
    // is cut at the node where it is found.
    void breakCycles()
    {
        auto &nodes = trace_.nodes;
        std::vector<std::uint8_t> state(nodes.size(), 0); // 0 unknown, 1 on the current path, 2 reaches a root
        std::vector<std::uint32_t> path;
        std::size_t cut = 0;
        std::string examples;
        for (std::uint32_t start = 0; start < nodes.size(); ++start) {
            std::uint32_t i = start;
            path.clear();
            while (i != UINT32_MAX && state[i] == 0) {
                state[i] = 1;
                path.push_back(i);
                const std::uint32_t parent = nodes[i].parent;
                if (parent != UINT32_MAX && state[parent] == 1) {
                    nodes[i].parent = UINT32_MAX;
                    if (++cut <= 3)
                        examples += (examples.empty() ? "" : ", ") + std::string("node ") + std::to_string(nodes[i].id);
                    break;
                }
                i = parent;
            }
            for (std::uint32_t j : path)
                state[j] = 2;
        }
        if (cut > 0) {
            Diagnostic d;
            d.file = name_;
            d.message = std::to_string(cut) + " parent loop(s) found; each was cut by making one node a root (" + examples + ")";
            trace_.warnings.push_back(d);
        }
    }

    HostTrace trace_;
    InternCache interned_{trace_.strings};
    ond::parser parser_;
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
