#pragma once
// Which files make up a job, and which rank each belongs to.
//
// A job is a set of ranks, each a host ET + Kineto pair or a Kineto trace alone, found in folders
// or given as files. The rank comes from the file name — `rank3`, `rank-3`, `rank_3`, `worker3`
// anywhere in it, else the last `_3.` / `-3.` / `.3.` before the extension (`host_3.json`,
// `kineto_3.json.gz`, `chakra_host_et_3.json`, `megatron_et_3.json.gz`) — and a Kineto trace's
// `distributedInfo.rank` (read from the start of the file) confirms it; a Kineto file whose name
// carries no rank takes that one. What a file is comes from its content (the input-format table's
// row and its role, io/formats.h), never from its name. Two files that claim one rank and kind, or a name that disagrees with the trace,
// are errors naming both; files that are neither a host ET nor a Kineto trace (outputs, .et) are
// skipped and listed. Ranks missing from [0, world size) are listed as ranges, not guessed. A rank
// number beyond kMaxRank (jobmodel/rankrange.h), in a name or a header, skips the file with a warning
// naming it; a world size beyond kMaxWorldSize is not taken as one (the report's
// `implausible_world_size` finding says so), so no number in a file makes discovery loop or allocate.

#include "jobmodel/rankrange.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {
struct InputFormat;
}

namespace linkscope::core::job {

struct RankFiles {
    std::int64_t rank = -1;
    std::string host;                          // empty: a Kineto trace alone
    std::string device;                        // empty: a host ET without its Kineto trace (an error)
    const InputFormat *hostFormat = nullptr;   // the rows discovery detected (io/formats.h): the pair
    const InputFormat *deviceFormat = nullptr; // pipeline does not detect the files again
    std::int64_t declaredRank = -1;            // the Kineto trace's distributedInfo.rank (-1 not found)
    std::int64_t worldSize = -1;               // its distributedInfo.world_size
};

struct JobLayout {
    std::vector<RankFiles> ranks;     // ascending rank
    std::vector<std::string> errors;  // conflicts and unusable inputs, each naming its files
    std::vector<std::string> skipped; // files that are not host ET / Kineto traces, with why
    std::int64_t worldSize = -1;      // largest plausible distributedInfo.world_size (-1: none declared)
    std::vector<RankRange> missing;   // ranks in [0, world size) with no file (world size unknown: gaps below the largest rank)
};

// The rank a file name carries (see above), or nullopt.
std::optional<std::int64_t> rankFromFileName(std::string_view fileName);

// `inputs`: folders (their files, not recursively) and files, in any mix. With `wanted` (a shard's
// ranks), a file whose name carries an unwanted rank is not opened at all, and `missing` lists only
// wanted ranks: a 10,000-rank folder costs a shard a directory listing, not 20,000 file reads.
JobLayout discoverJob(const std::vector<std::string> &inputs, const std::function<bool(std::int64_t)> &wanted = {});

} // namespace linkscope::core::job
