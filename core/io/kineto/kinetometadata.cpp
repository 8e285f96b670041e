#include "io/kineto/kinetometadata.h"

#include "io/json/boundedjson.h"
#include "io/json/decimal.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace linkscope::core::io {

namespace {

std::optional<std::int64_t> jsonInt(const nlohmann::json &j)
{
    if (j.is_number_integer())
        return j.get<std::int64_t>();
    if (j.is_number_float()) {
        const double d = j.get<double>();
        // Out of int64 range (or NaN) the cast itself would be undefined: reject first.
        if (!(d >= -0x1p63 && d < 0x1p63))
            return std::nullopt;
        if (d == static_cast<double>(static_cast<std::int64_t>(d)))
            return static_cast<std::int64_t>(d);
        return std::nullopt;
    }
    if (j.is_string()) {
        std::int64_t v = 0;
        if (parseIntegerText(j.get<std::string>(), v) == NumberStatus::Ok)
            return v;
    }
    return std::nullopt;
}

// Metadata values ("deviceProperties", "distributedInfo") are parsed with nlohmann, whose parser is
// iterative but whose dump(), copy and comparison recurse: a value nested deeper than this is not
// parsed at all (a warning says so), so nothing below ever recurses further.
constexpr int kMaxMetadataDepth = 64;
// Longest text made of a non-string metadata value; longer is cut with "...".
constexpr std::size_t kMaxMetadataText = 4096;

// A metadata value as text: strings as they are, null as empty, anything else as compact JSON built
// with an explicit stack (bounded by kMaxMetadataText, however the value is nested).
std::string jsonText(const nlohmann::json &j)
{
    if (j.is_string())
        return j.get<std::string>();
    if (j.is_null())
        return {};
    struct Frame {
        const nlohmann::json *value;
        nlohmann::json::const_iterator next;
    };
    std::string out;
    std::vector<Frame> stack;
    auto open = [&](const nlohmann::json &v) {
        if (v.is_array() || v.is_object()) {
            out += v.is_array() ? '[' : '{';
            stack.push_back({&v, v.cbegin()});
        } else {
            out += v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); // a scalar: no recursion
        }
    };
    open(j);
    while (!stack.empty()) {
        if (out.size() > kMaxMetadataText) {
            out.resize(kMaxMetadataText);
            out += "...";
            return out;
        }
        Frame &top = stack.back();
        if (top.next == top.value->cend()) {
            out += top.value->is_array() ? ']' : '}';
            stack.pop_back();
            continue;
        }
        if (top.next != top.value->cbegin())
            out += ',';
        const auto it = top.next++;
        if (top.value->is_object()) {
            out += nlohmann::json(it.key()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
            out += ':';
        }
        open(*it); // may invalidate `top`
    }
    return out;
}

// A metadata value parsed with nlohmann, or discarded (with a warning) when nested too deeply.
std::optional<nlohmann::json> parseMetadata(std::string_view value, std::string_view key, std::uint64_t offset, WarningSink &sink)
{
    if (offsetBeyondDepth(value, kMaxMetadataDepth)) {
        sink.add("\"" + std::string(key) + "\" is nested more than " + std::to_string(kMaxMetadataDepth)
                     + " levels deep; ignored",
                 offset);
        return std::nullopt;
    }
    return nlohmann::json::parse(value.begin(), value.end(), nullptr, false);
}

// An object's integer field `k` into `out`, when present and an integer (or integer text).
void intField(const nlohmann::json &o, const char *k, std::int64_t &out)
{
    if (auto it = o.find(k); it != o.end())
        if (auto v = jsonInt(*it))
            out = *v;
}

// An object's field `k` as text into `out`, when present.
void textField(const nlohmann::json &o, const char *k, std::string &out)
{
    if (auto it = o.find(k); it != o.end())
        out = jsonText(*it);
}

void readDeviceProperties(std::string_view value, std::uint64_t offset, DeviceTrace &trace, WarningSink &sink)
{
    const auto parsed = parseMetadata(value, "deviceProperties", offset, sink);
    if (!parsed)
        return;
    const nlohmann::json &j = *parsed;
    if (!j.is_array()) {
        sink.add("\"deviceProperties\" is not an array; ignored", offset);
        return;
    }
    for (const auto &d : j) {
        if (!d.is_object()) {
            sink.add("\"deviceProperties\" entry is not an object; ignored", offset);
            continue;
        }
        DeviceProperties p;
        intField(d, "id", p.id);
        intField(d, "totalGlobalMem", p.totalGlobalMem);
        intField(d, "computeMajor", p.computeMajor);
        intField(d, "computeMinor", p.computeMinor);
        intField(d, "numSms", p.numSms);
        textField(d, "name", p.name);
        trace.devices.push_back(std::move(p));
    }
}

void readDistributedInfo(std::string_view value, std::uint64_t offset, DeviceTrace &trace, WarningSink &sink)
{
    const auto parsed = parseMetadata(value, "distributedInfo", offset, sink);
    if (!parsed)
        return;
    const nlohmann::json &j = *parsed;
    if (!j.is_object()) {
        sink.add("\"distributedInfo\" is not an object; ignored", offset);
        return;
    }
    DistributedInfo info;
    textField(j, "backend", info.backend);
    intField(j, "rank", info.rank);
    intField(j, "world_size", info.worldSize);
    textField(j, "nccl_version", info.ncclVersion);
    if (auto it = j.find("pg_config"); it != j.end()) {
        if (!it->is_array()) {
            sink.add("\"distributedInfo.pg_config\" is not an array; ignored", offset);
        } else {
            for (const auto &pg : *it) {
                if (!pg.is_object())
                    continue;
                ProcessGroupConfig c;
                textField(pg, "pg_name", c.name);
                textField(pg, "pg_desc", c.desc);
                textField(pg, "backend_config", c.backendConfig);
                intField(pg, "pg_size", c.size);
                if (auto r = pg.find("ranks"); r != pg.end()) {
                    // PyTorch writes a list; Kineto's own on-demand metadata writes the list as a string.
                    nlohmann::json parsedRanks;
                    const nlohmann::json *rankList = &*r;
                    if (r->is_string()) {
                        const std::string &text = r->get_ref<const std::string &>();
                        if (!offsetBeyondDepth(text, kMaxMetadataDepth))
                            parsedRanks = nlohmann::json::parse(text, nullptr, false);
                        rankList = &parsedRanks;
                    }
                    const nlohmann::json &ranks = *rankList;
                    if (ranks.is_array()) {
                        for (const auto &x : ranks)
                            if (auto v = jsonInt(x))
                                c.ranks.push_back(*v);
                    } else {
                        sink.add("\"pg_config\" ranks is neither a list nor a string holding one; ignored", offset);
                    }
                }
                info.processGroups.push_back(std::move(c));
            }
        }
    }
    trace.distributed = std::move(info);
}

} // namespace

void readKinetoMetadata(std::string_view key, std::string_view value, std::uint64_t offset, DeviceTrace &trace, WarningSink &sink)
{
    if (key == "schemaVersion") {
        std::int64_t v = 0;
        if (parseIntegerText(value, v) == NumberStatus::Ok)
            trace.schemaVersion = v;
        else
            sink.add("\"schemaVersion\" is not an integer; ignored", offset);
    } else if (key == "baseTimeNanoseconds") {
        std::int64_t v = 0;
        if (parseIntegerText(value, v) == NumberStatus::Ok)
            trace.baseTimeNs = v;
        else
            sink.add("\"baseTimeNanoseconds\" is not an integer; ignored", offset);
    } else if (key == "deviceProperties") {
        readDeviceProperties(value, offset, trace, sink);
    } else if (key == "distributedInfo") {
        readDistributedInfo(value, offset, trace, sink);
    }
}

} // namespace linkscope::core::io
