#pragma once
// What identifies the run that wrote a rank summary, and whether summaries read back by
// `linkscope job --merge` still belong to the traces now on disk.
//
// A summary records (RankSummary::run, `"run"` in the file) the Linkscope version, the .et target
// and the policy it was made under, and the fingerprint of each input it was made from (the host
// ET, the Kineto trace, the corrections sidecar when there was one): its path (absolute), size,
// SHA-256 (edit/inputfingerprint.h, of exactly the file that was parsed), modification time and
// head_tail_crc32 (its first and last 64 KiB, below).
//
// A merge checks every summary against the files its inputs name now. A file of another size, of
// another head_tail_crc32 (read every time), or of another SHA-256 (hashed only when its
// modification time moved), makes the summary stale: a
// folder reused for another run kept it from the earlier one, or the traces were regenerated after
// its shard ran. A stale summary's rank is left out of the cross-rank checks and reported once
// (`stale_summary`, error, naming the summary and the input), so it can neither fake a mismatch nor
// hide a real one. So a change that keeps the size and the modification time is seen when it
// touches the first or last 64 KiB; one confined to the middle is not (hashing every input at every
// merge would cost a full read of every trace). A summary without head_tail_crc32 (an older
// Linkscope) is checked as before, by size and modification time, and the command says how many
// inputs were. An input no longer on disk cannot be checked (a merge may run far from the
// traces): the command says so, nothing more. A summary of an older Linkscope has no run: "unknown
// run" (`unknown_run`, warning, naming the files). Summaries of different Linkscope versions,
// targets or policies: `mixed_runs` (warning, naming a file of each).

#include "job/ranksummary.h"
#include "jobmodel/crossrank.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace linkscope::core {
struct FileIdentity;
}

namespace linkscope::core::job {

// "linkscope <version>"
std::string toolVersion();

// A summary's cheap content fingerprint of an input (`head_tail_crc32`): the CRC-32 (zlib) of the
// file's first kSampleBytes followed by its last kSampleBytes (of the whole file when it is at most
// twice that). Read at every merge, whatever the modification time says; nullopt when `path` cannot
// be read as a regular file.
inline constexpr std::uint64_t kSampleBytes = 64 * 1024;
std::optional<std::uint32_t> headTailCrc32(const std::string &path);

struct RunInput {
    std::string role;                     // "host", "device", "sidecar"
    std::string path;                     // as opened
    const FileIdentity *loaded = nullptr; // the file as it was parsed (null: fingerprint `path` as it is)
};

// The "run" object of a summary: {"tool", "target", "policy", "inputs": [{"role", "path", "size",
// "sha256", "mtime_ns"}]}. Throws LoadError when an input changed since it was loaded.
nlohmann::json runIdentity(const std::vector<RunInput> &inputs, std::string_view target, std::string_view policy);

struct SummaryRunCheck {
    std::vector<JobFinding> findings; // unknown_run, mixed_runs (stale ones: RankSummary::stale → buildJobReport)
    std::vector<std::string> notes;   // for the user: inputs that could not be checked
};

// Sets RankSummary::stale on each summary whose inputs changed since it was made (`file` names it in
// messages) and returns what else the runs say.
SummaryRunCheck checkSummaryRuns(std::vector<RankSummary> &summaries);

} // namespace linkscope::core::job
