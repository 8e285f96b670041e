#pragma once
// One rank's .et as the export makes it, built into a SimRank without a file: ExportRequest::etSink's
// bytes (whole length-delimited messages, the metadata first, then the nodes) handed to a
// RankBuilder as loadRank hands a file's. The groups are learned as the nodes name them and moved
// onto the job's once every rank is exported (regroupRank).

#include "predict/simgraph.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core::predict {

// A length prefix at `p` (before `end`): its value and its size in bytes; 0 when the bytes end first,
// -1 when it is longer than 10 bytes.
int etLengthPrefix(const char *p, const char *end, std::uint64_t &value);

class RankStream {
public:
    // `path` names the rank in messages (its Kineto trace).
    RankStream(std::int64_t rank, std::string path);
    RankStream(const RankStream &) = delete;
    RankStream &operator=(const RankStream &) = delete;

    // The next bytes of the stream; a message may continue in the next call. Throws LoadError for
    // bytes that are not a Chakra .et.
    void feed(std::string_view bytes);
    // The rank on the job's groups (SimJob::groupIds). Throws LoadError for a stream cut inside a
    // message or without its metadata, and as RankBuilder::finish and regroupRank do.
    SimRank finish(const std::vector<std::int64_t> &groupIds);

private:
    std::string path_;
    std::vector<std::int64_t> learned_; // before builder_: it refers to them
    std::unique_ptr<RankBuilder> builder_;
    std::string carry_;      // the start of a message the last call ended in
    std::size_t offset_ = 0; // of the next byte fed, in the stream
    bool metadata_ = false;  // the first message (GlobalMetadata) was seen
    void message(const char *bytes, std::size_t size, std::size_t offset);
    // Frames [data, data + size) (stream offset `base`); returns how many bytes were whole messages.
    std::size_t frame(const char *data, std::size_t size, std::size_t base);
};

} // namespace linkscope::core::predict
