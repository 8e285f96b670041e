#pragma once
// Which `linkscope job` run wrote each file of an output folder. A job killed mid-run, then run
// again into the same folder, or two jobs into one folder, leave files of two runs side by side;
// nothing else tells them apart until a replay fails on a mismatch.
//
// Every run draws one id (128 random bits, hex) and notes when it started. It is written where a
// file can carry it:
//   - each rank summary, in its "run" object: "job_run": {"id", "started"}, and once the rank's .et
//     is written, "et_written": {"size", "mtime_ns"} — a Chakra .et has no field ASTRA-sim ignores
//     that Linkscope writes, so its summary vouches for it;
//   - job-report.json: "job_run": {"id", "started", "from_runs" (a merge: the runs of the summaries
//     it read), "comm_group.json" and "network.yml": {"size", "sha256"} of the files written with
//     it} — ASTRA-sim reads every key of comm_group.json as a group id (std::stoi), so that file
//     cannot carry a key of its own.
// checkFolderRuns() reads them back: a file whose run id differs, or an .et / comm_group.json that
// is not the one its run recorded, is of another run. Files without a run id (an older Linkscope)
// are accepted silently.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace linkscope::core::job {

struct JobRunId {
    std::string id;      // 32 hex digits; empty: no run id is written
    std::string started; // UTC, "2026-12-07T11:57:27Z"
    nlohmann::json toJson() const { return {{"id", id}, {"started", started}}; }
    static std::optional<JobRunId> fromJson(const nlohmann::json &j); // nullopt: absent or malformed
};

// A new id for a run starting now.
JobRunId newJobRunId();

// Adds "et_written" (size and modification time of the .et at `path` as written) to a summary's run.
void recordWrittenEt(nlohmann::json &run, const std::string &path);
// Adds the fingerprints of comm_group.json and network.yml (those that exist) to a report's job_run.
void recordJobOutputs(nlohmann::json &report, const std::string &commGroupPath, const std::string &networkPath);

struct FolderRuns {
    struct Run {
        std::string id; // "" for files that belong to none of the runs recorded
        std::string started;
        std::vector<std::string> files; // names in the folder
    };
    std::vector<Run> runs; // more than one: the folder mixes runs
    bool mixed() const { return runs.size() > 1; }
    // "these files come from two runs (run A… started …: files …; run B…: files …)"; empty when not mixed.
    std::string message() const;
};

// The runs of `dir`'s PREFIX.R.summary.json, PREFIX.R.et, job-report.json and comm_group.json.
// Unreadable or id-less files are left out (the readers that need them say what is wrong).
FolderRuns checkFolderRuns(const std::string &dir, const std::string &prefix = "trace");

} // namespace linkscope::core::job
