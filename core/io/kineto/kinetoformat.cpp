#include "io/kineto/kinetoformat.h"

#include "io/file/inputtext.h"
#include "io/json/boundedjson.h"
#include "io/json/jsonhead.h"
#include "io/tracereader.h"

#include <nlohmann/json.hpp>

namespace linkscope::core::io {

bool isKinetoTrace(const FileHead &head)
{
    const JsonShape shape = jsonHead(head.start()).shape;
    return shape == JsonShape::Array || shape == JsonShape::TraceEvents;
}

RankHeader peekKinetoRank(const std::string &path)
{
    RankHeader h;
    const std::string head = readInputPrefix(path, 1u << 20);
    const std::size_t key = head.find("\"distributedInfo\"");
    if (key == std::string::npos)
        return h;
    const std::size_t open = head.find('{', key);
    if (open == std::string::npos)
        return h;
    // The object's extent, strings respected.
    const std::optional<std::size_t> end = containerEnd(head, open);
    if (!end)
        return h;
    const auto j = nlohmann::json::parse(head.begin() + static_cast<std::ptrdiff_t>(open),
                                         head.begin() + static_cast<std::ptrdiff_t>(*end), nullptr, false);
    if (!j.is_object())
        return h;
    auto integer = [](const nlohmann::json &o, const char *k) -> std::int64_t {
        auto it = o.find(k);
        if (it == o.end())
            return -1;
        if (it->is_number_integer())
            return it->get<std::int64_t>();
        if (it->is_string()) {
            try {
                return std::stoll(it->get<std::string>());
            } catch (const std::exception &) {
            }
        }
        return -1;
    };
    h.rank = integer(j, "rank");
    h.worldSize = integer(j, "world_size");
    return h;
}

InputFormat kinetoInputFormat()
{
    return {.kind = std::string(kKinetoKind),
            .role = TraceRole::Device,
            .name = "Kineto trace",
            .detect = isKinetoTrace,
            .readHost = nullptr,
            .readDevice = readKinetoTrace,
            .parseHost = nullptr,
            .parseDevice = parseKinetoTrace,
            .filePatterns = {"*.json", "*.json.gz", "*.gz"},
            .nameSuffixes = {".json", ".pt.trace"},
            .peekRank = peekKinetoRank};
}

} // namespace linkscope::core::io
