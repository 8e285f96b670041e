#pragma once
// `linkscope diff`: two runs side by side (docs/diff.md). Each run is one trace (a pair or a Kineto
// trace alone) or a job (a trace per rank), summarised by computeTraceStats
// (analysis/tracestats.h); the diff matches ranks by number (one trace with one trace), streams by
// GPU and stream id, and ops by their normalised name (report/opname.h), summed over the ranks.
//
// What moved most ranks what adds up without counting a change twice: GPU op families by their total
// time, CPU ops by their self time (an op's total holds its children's and the waits of the runtime
// calls under it). The step, the streams' busy time and the communication are listed beside it.

#include "analysis/tracestats.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace linkscope::core {

struct RunRank {
    std::int64_t rank = -1;                  // -1: a trace that is not a rank of a job
    std::string file;                        // the trace read (messages)
    std::shared_ptr<const TraceStats> stats; // null when it could not be read
    std::string error;                       // why
};

struct RunSide {
    std::string label;          // what the user gave: a folder, a file, "HOST + KINETO"
    bool job = false;           // a folder of ranks
    std::vector<RunRank> ranks; // ascending rank
};

// One figure in both runs. `inA`/`inB`: the run has it (a stream or an op only one run has is 0
// in the other).
struct DiffFigure {
    Nanos a = 0, b = 0;
    bool inA = true, inB = true;
    Nanos change() const { return b - a; }
    double changePct() const; // of a; 0 when a is 0
};

// A run's step on one rank: the mean ProfilerStep#N span, else the trace's extent.
struct RunStep {
    Nanos ns = 0;
    std::size_t steps = 0; // ProfilerStep#N spans; 0: the extent
};
RunStep runStep(const TraceStats &stats);

struct DiffRank {
    std::int64_t rank = -1;
    RunStep stepA, stepB;
    DiffFigure step, gpuBusy, comm, exposedComm;
};

struct DiffStream {
    std::int64_t rank = -1;
    std::string label; // "GPU 0 stream 7"; "GPU 0 stream 7 / GPU 6 stream 7" when B's is on another GPU
    DiffFigure busy;
};

struct DiffOp {
    std::string name;     // normalised (report/opname.h)
    std::string category; // kernel, gpu_memcpy, gpu_memset, cpu_op
    bool gpu = true;
    std::size_t names = 0; // distinct names in the traces that normalise to it
    std::uint64_t countA = 0, countB = 0;
    DiffFigure total, self; // self: CPU ops (GPU ops: = total)
    Nanos meanA() const { return countA ? total.a / static_cast<Nanos>(countA) : 0; }
    Nanos meanB() const { return countB ? total.b / static_cast<Nanos>(countB) : 0; }
    // What "moved most" ranks by: a GPU op's total, a CPU op's self time.
    const DiffFigure &moved() const { return gpu ? total : self; }
};

struct RunDiff {
    std::string a, b; // the runs' labels
    bool job = false;
    std::vector<DiffRank> ranks; // the ranks both runs have, ascending
    // By rank, then as the traces list them (A's, then B's own). Matched by GPU and stream id, else by
    // stream id alone when B has one such stream left (a rank's trace against another rank's).
    std::vector<DiffStream> streams;
    std::vector<DiffOp> gpuOps; // by |total change|, largest first
    std::vector<DiffOp> cpuOps; // by |self change|, largest first
    // GPU ops and CPU ops together by |moved().change()|: (gpu?, index into gpuOps / cpuOps).
    std::vector<std::pair<bool, std::size_t>> moved;
    // Ranks only one run has, ranks that could not be read, a step that is ProfilerStep#N spans in
    // one run and the extent in the other.
    std::vector<std::string> warnings;
    const DiffOp &movedOp(std::size_t i) const { return moved[i].first ? gpuOps[moved[i].second] : cpuOps[moved[i].second]; }
};

// Throws std::invalid_argument (naming both runs) when one run is a job and the other a single trace,
// or when no rank of one can be compared with a rank of the other.
RunDiff diffRuns(const RunSide &a, const RunSide &b);

// `top`: ops and moved rows listed (0: all).
nlohmann::json runDiffJson(const RunDiff &diff, std::size_t top);
std::string runDiffText(const RunDiff &diff, std::size_t top);
// section,rank,name,category,count_a,count_b,a_ns,b_ns,change_ns,change_pct,self_a_ns,self_b_ns
// sections: step, gpu_busy, comm, exposed_comm (per rank), stream, gpu_op, cpu_op (a/b = total), moved
// (rank = its place, a/b = what it is ranked by). Every op, RFC 4180 quoting.
std::string runDiffCsv(const RunDiff &diff);

} // namespace linkscope::core
