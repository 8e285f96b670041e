#pragma once
// The graph a prediction runs, from what the user has: a job's traces (every rank exported as
// `linkscope job` exports it, the astra-sim target, with the network fitted from its collectives),
// one pair (a rank standing for its job: SimJob::mirrored), or a job export already on disk
// (PREFIX.R.et, comm_group.json, network.yml).

#include "job/discovery.h"
#include "job/jobrun.h"
#include "predict/simgraph.h"

#include <map>
#include <string>
#include <vector>

namespace linkscope::core::predict {

struct JobGraph {
    SimJob job;
    std::string networkSource;      // "fitted from N collectives", "network.yml", "run.sh's ring (not fitted: …)"
    std::vector<std::string> notes; // ranks that could not be exported, and why
    // Per rank, the measured step the export compares a replay with (its measured_ns: from the first
    // ProfilerStep#N to the later of the last one's end and the last exported op's end, else the
    // exported ops' span; bench/whatif.sh's truth). From the export's summaries, or a job export's
    // job-report.json; empty when neither is there (.et files alone).
    std::map<std::int64_t, std::int64_t> measuredNs;
    // What `linkscope check` (a job export, .et files) or `linkscope job` (a job's traces) finds in
    // the graph that the replay runs anyway (a send with no receive, a comm_size ≤ 0, groups whose
    // ranks disagree): "FILE: node N: rule: message", at most kEtCheckListedPerRule per rule, the
    // rest counted. `linkscope predict` warns on them and refuses them with --strict.
    std::vector<std::string> findings;
};

// The graph of .et files (predict/simgraph.h's loadJob) with `linkscope check`'s findings over the
// same files and comm groups. Throws LoadError.
JobGraph loadEtGraph(const std::vector<std::string> &etFiles, const std::string &commGroupsPath, const std::string &networkPath,
                     std::int64_t mirrorNpus = 0);

// A job export folder: every PREFIX.R.et in `dir`, its comm_group.json and network.yml when present.
// Throws LoadError.
JobGraph loadJobExport(const std::string &dir, const std::string &prefix = "trace");

// Exports `ranks` (the astra-sim target, each rank's sidecar applied) as `linkscope job` would, with
// each rank's .et built into its graph as it is made (predict/rankstream.h: no file is written or
// read back) and the comm groups and network the job's files would hold. One rank of a larger job
// (worldSize > 1) is mirrored. Throws LoadError / std::runtime_error naming what failed.
JobGraph exportJobGraph(const std::vector<job::RankFiles> &ranks, std::int64_t worldSize, job::JobOptions options);

// One pair (a Kineto trace alone: its host ET derived from it) standing for its job: the rank and
// world size its Kineto trace declares (rank 0 when it declares none; mirrored when the world is
// larger), exported as exportJobGraph does. `linkscope predict` on a pair, `--against` a pair
// (predict/against.h), and the GUI's check of a prediction against B read a pair so.
JobGraph exportPairGraph(const std::string &host, const std::string &device, const job::JobOptions &options);

// Replaces the graph's network with the network file at `path` (npus kept), for a graph whose source
// does not take one itself (a job's traces, one pair). Throws LoadError naming the file.
void useNetworkFile(JobGraph &graph, const std::string &path);

// True when `dir` holds a job export (a PREFIX.R.et file).
bool isJobExport(const std::string &dir, const std::string &prefix = "trace");

} // namespace linkscope::core::predict
