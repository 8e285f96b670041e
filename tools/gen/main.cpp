// linkscope-gen: writes a synthetic host ET + Kineto trace pair of any size, with its ground truth.

#include "gen/tracegenerator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void usage(std::ostream &out)
{
    out << "usage: linkscope-gen [options] HOST_ET_OUT KINETO_OUT [TRUTH_OUT]\n"
           "       linkscope-gen --ranks N --out-dir DIR [options]   a whole job: DIR/host_<r>.json, DIR/kineto_<r>.json\n"
           "  --steps N             ProfilerStep iterations to write\n"
           "  --target-bytes SIZE   add steps until the Kineto file has SIZE bytes (e.g. 64M, 1G)\n"
           "  --target-events N     add steps until traceEvents has N elements\n"
           "  --seed N              random seed (default 1); equal seeds give identical files\n"
           "  --devices 1|2         GPUs driven by the process (default 1)\n"
           "  --layers N            forward layers per step (default 4)\n"
           "  --pid N               OS process id written into both traces\n"
           "  --missing-host-nodes P  leave P percent of childless CPU ops out of the host ET\n"
           "What-if knobs (the same seed gives the same ops, ids and sizes; only times change, scheduled causally):\n"
           "  --compute-scale K     every non-NCCL kernel lasts K x its drawn duration (K > 0, default 1;\n"
           "                        memcpy and memset unchanged)\n"
           "  --comm-scale K        every NCCL kernel lasts K x the network model's time (K > 0, default 1)\n"
           "  --net-bw GBPS         the network model's bus bandwidth in GB/s (default 12.5)\n"
           "  --net-latency US      the network model's latency per ring step in us (default 5); an NCCL kernel\n"
           "                        lasts, for n ranks and S bytes (all-gather: its output): all-reduce\n"
           "                        2(n-1)/n S/BW + 2(n-1) lat, all-gather (n-1)/n S/BW + (n-1) lat, send/recv\n"
           "                        S/BW + lat (one rank: lat)\n"
           "  --delay-rank R=MS     rank R (0 without --ranks) spends MS ms of CPU time at the start of every\n"
           "                        ProfilerStep, before its first op; repeatable (delays of one rank add up)\n"
           "  --kernel-scale REGEX=K  non-NCCL kernels whose name contains a match of REGEX (ECMAScript) last K x\n"
           "                        longer (times --compute-scale); repeatable, matching factors multiply\n"
           "  --cpu-scale K         every rank's CPU time x K: CPU ops' own time, gaps between ops, runtime calls'\n"
           "                        durations (not the time a sync blocks on the GPU, not GPU durations)\n"
           "  --cpu-scale-rank R=K  rank R's CPU time x K (times --cpu-scale); repeatable\n"
           "Streams (tools/gen/tracegenerator.h):\n"
           "  --compute-streams N   1..4 compute streams per GPU (default 1): with N >= 2 each layer forks part of\n"
           "                        its kernels to side streams 8..10 (cudaEventRecord + cudaStreamWaitEvent) and\n"
           "                        joins them back; kernels of different streams run at the same time\n"
           "  --copy-stream         host-to-device copies on copy stream 13 (the step's input, and a prefetch in\n"
           "                        every forward layer), awaited by the thread's next launch\n"
           "Jobs (--ranks): one process and GPU per rank running the same program, clocks offset per rank; a\n"
           "collective's kernels start on every member when the last member is ready for it (its launch + 15 us,\n"
           "its streams free); the compute stream waits for the tensor-parallel all-reduces, the send/recv and\n"
           "the last data-parallel bucket (before the optimizer)\n"
           "  --ranks N             world size\n"
           "  --out-dir DIR         where the rank files go (created)\n"
           "  --tp N                tensor-parallel group size (default 2 when N is even and >= 4, else 1)\n"
           "  --straggler R         rank R arrives last at most collectives (longer CPU delays before its launches)\n"
           "  --fault KIND:RANK:PG:INDEX  make RANK deviate at its collective INDEX on process group PG:\n"
           "                        skip, resize (twice the elements), swap (INDEX and INDEX+1),\n"
           "                        drop-recv (INDEX counts the rank's receives); repeatable\n"
           "  --truth               also write DIR/truth_<r>.jsonl\n"
           "  --jobs N              ranks generated at the same time (default 1)\n"
           "Without --steps, --target-bytes or --target-events one step is written. TRUTH_OUT gets one JSON line per GPU op\n"
           "naming its true parent CPU op (see tools/gen/tracegenerator.h).\n";
}

// Writes to PATH.tmp, renames over PATH when complete: a reader never sees half a file.
class AtomicFile {
public:
    explicit AtomicFile(std::string path) : path_(std::move(path)), temp_(path_ + ".tmp")
    {
        stream_.rdbuf()->pubsetbuf(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
        stream_.open(temp_, std::ios::binary | std::ios::trunc);
    }
    ~AtomicFile()
    {
        if (!committed_) {
            stream_.close();
            std::remove(temp_.c_str());
        }
    }
    bool ok() const { return static_cast<bool>(stream_); }
    std::ostream &stream() { return stream_; }
    bool commit()
    {
        stream_.close();
        if (!stream_ || std::rename(temp_.c_str(), path_.c_str()) != 0)
            return false;
        committed_ = true;
        return true;
    }
    const std::string &path() const { return path_; }

private:
    std::string path_;
    std::string temp_;
    std::vector<char> buffer_ = std::vector<char>(1 << 20);
    std::ofstream stream_;
    bool committed_ = false;
};

bool parseInt(const char *text, long long &value)
{
    char *end = nullptr;
    value = std::strtoll(text, &end, 10);
    return end && *end == '\0' && end != text;
}

bool parsePositive(const char *text, double &value)
{
    char *end = nullptr;
    value = std::strtod(text, &end);
    return end && *end == '\0' && end != text && std::isfinite(value) && value > 0;
}

// What the command line asks for.
struct GenArgs {
    linkscope::gen::GeneratorOptions options;
    std::vector<std::string> paths;
    std::string outDir;
    bool jobTruth = false;
    int jobThreads = 1;
};

// An integer option: its range and what it sets.
struct IntOption {
    const char *name;
    long long min, max;
    const char *wants;
    void (*set)(GenArgs &, long long);
};

constexpr long long kNoMax = std::numeric_limits<long long>::max();

const IntOption kIntOptions[] = {
    {"--steps", 1, kNoMax, "a positive integer", [](GenArgs &a, long long n) { a.options.steps = static_cast<int>(n); }},
    {"--target-events", 1, kNoMax, "a positive integer",
     [](GenArgs &a, long long n) { a.options.targetKinetoEvents = static_cast<std::uint64_t>(n); }},
    {"--seed", 0, kNoMax, "a non-negative integer",
     [](GenArgs &a, long long n) { a.options.seed = static_cast<std::uint64_t>(n); }},
    {"--devices", 1, 2, "1 or 2", [](GenArgs &a, long long n) { a.options.devices = static_cast<int>(n); }},
    {"--layers", 1, 1000, "1..1000", [](GenArgs &a, long long n) { a.options.layers = static_cast<int>(n); }},
    {"--pid", 1, kNoMax, "a positive integer", [](GenArgs &a, long long n) { a.options.pid = n; }},
    {"--missing-host-nodes", 0, 100, "0..100",
     [](GenArgs &a, long long n) { a.options.missingHostNodePercent = static_cast<int>(n); }},
    {"--ranks", 1, 65536, "1..65536",
     [](GenArgs &a, long long n) {
         a.options.worldSize = static_cast<int>(n);
         a.options.rank = 0;
     }},
    {"--tp", 1, kNoMax, "a positive integer", [](GenArgs &a, long long n) { a.options.tensorParallel = static_cast<int>(n); }},
    {"--straggler", 0, kNoMax, "a rank", [](GenArgs &a, long long n) { a.options.straggler = static_cast<int>(n); }},
    {"--jobs", 1, 256, "1..256", [](GenArgs &a, long long n) { a.jobThreads = static_cast<int>(n); }},
    {"--compute-streams", 1, 4, "1..4", [](GenArgs &a, long long n) { a.options.computeStreams = static_cast<int>(n); }},
};

// Reads the arguments into `a`; an exit status when the command ends here (--help, a usage error).
std::optional<int> parseGenArgs(int argc, char **argv, GenArgs &a)
{
    using namespace linkscope::gen;
    GeneratorOptions &options = a.options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](const char *name) -> const char * {
            if (i + 1 >= argc) {
                std::cerr << "linkscope-gen: " << name << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        const auto integer = std::find_if(std::begin(kIntOptions), std::end(kIntOptions),
                                          [&](const IntOption &o) { return arg == o.name; });
        if (integer != std::end(kIntOptions)) {
            long long n = 0;
            if (!parseInt(value(integer->name), n) || n < integer->min || n > integer->max) {
                std::cerr << "linkscope-gen: " << integer->name << " wants " << integer->wants << "\n";
                return 2;
            }
            integer->set(a, n);
        } else if (arg == "-h" || arg == "--help") {
            usage(std::cout);
            return 0;
        } else if (arg == "--target-bytes") {
            if (!parseByteSize(value("--target-bytes"), options.targetKinetoBytes)) {
                std::cerr << "linkscope-gen: --target-bytes wants a size such as 1G, 200M, 64k\n";
                return 2;
            }
        } else if (arg == "--out-dir") {
            a.outDir = value("--out-dir");
        } else if (arg == "--fault") {
            GeneratorFault fault;
            if (!parseFault(value("--fault"), fault)) {
                std::cerr << "linkscope-gen: --fault wants KIND:RANK:PG:INDEX (skip, resize, swap, drop-recv)\n";
                return 2;
            }
            options.faults.push_back(fault);
        } else if (arg == "--compute-scale" || arg == "--comm-scale" || arg == "--net-bw" || arg == "--net-latency"
                   || arg == "--cpu-scale") {
            double k = 0;
            if (!parsePositive(value(arg.c_str()), k)) {
                std::cerr << "linkscope-gen: " << arg << " wants a positive number\n";
                return 2;
            }
            (arg == "--compute-scale" ? options.computeScale
             : arg == "--comm-scale"  ? options.commScale
             : arg == "--net-bw"      ? options.netBandwidthGBps
             : arg == "--cpu-scale"   ? options.cpuScale
                                      : options.netLatencyUs) = k;
        } else if (arg == "--delay-rank") {
            GeneratorOptions::RankDelay delay;
            if (!parseRankDelay(value("--delay-rank"), delay)) {
                std::cerr << "linkscope-gen: --delay-rank wants RANK=MS (milliseconds >= 0)\n";
                return 2;
            }
            options.rankDelays.push_back(delay);
        } else if (arg == "--cpu-scale-rank") {
            GeneratorOptions::RankScale scale;
            if (!parseRankScale(value("--cpu-scale-rank"), scale)) {
                std::cerr << "linkscope-gen: --cpu-scale-rank wants RANK=K (K > 0)\n";
                return 2;
            }
            options.cpuRankScales.push_back(scale);
        } else if (arg == "--kernel-scale") {
            GeneratorOptions::KernelScale scale;
            if (!parseKernelScale(value("--kernel-scale"), scale)) {
                std::cerr << "linkscope-gen: --kernel-scale wants REGEX=K (an ECMAScript regex, K > 0)\n";
                return 2;
            }
            options.kernelScales.push_back(scale);
        } else if (arg == "--copy-stream") {
            options.copyStream = true;
        } else if (arg == "--truth") {
            a.jobTruth = true;
        } else if (!arg.empty() && arg[0] == '-') {
            std::cerr << "linkscope-gen: unknown option " << arg << "\n";
            usage(std::cerr);
            return 2;
        } else {
            a.paths.push_back(arg);
        }
    }
    return std::nullopt;
}

// --ranks N --out-dir DIR: a job, one pair per rank.
int generateJobFolder(const GenArgs &a)
{
    using namespace linkscope::gen;
    if (a.options.rank < 0 || a.outDir.empty() || !a.paths.empty()) {
        std::cerr << "linkscope-gen: a job needs --ranks N and --out-dir DIR and no file arguments\n";
        return 2;
    }
    const auto start = std::chrono::steady_clock::now();
    try {
        const std::vector<GeneratorStats> stats = generateJob(a.options, a.outDir, a.jobTruth, a.jobThreads);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::uint64_t events = 0, bytes = 0, collectives = 0;
        for (const GeneratorStats &s : stats) {
            events += s.kinetoEvents;
            bytes += s.kinetoBytes + s.hostBytes;
            collectives += s.collectives;
        }
        std::cout << stats.size() << " ranks in " << a.outDir << ", " << stats[0].steps << " steps each, " << events
                  << " Kineto events, " << collectives << " NCCL kernels, " << bytes << " B, " << seconds << " s; "
                  << "collective schedule: " << stats[0].schedulePasses << " passes (at most " << stats[0].maxStepPasses
                  << " in a step)\n";
        return 0;
    } catch (const std::invalid_argument &e) {
        std::cerr << "linkscope-gen: " << e.what() << "\n";
        return 2;
    } catch (const std::exception &e) {
        std::cerr << "linkscope-gen: " << e.what() << "\n";
        return 1;
    }
}

// HOST KINETO [TRUTH]: one pair, each file written atomically.
int generatePairFiles(const GenArgs &a)
{
    using namespace linkscope::gen;
    if (!a.options.faults.empty()) {
        std::cerr << "linkscope-gen: --fault makes one rank of a job deviate: it needs --ranks N and --out-dir DIR\n";
        return 2;
    }
    if (a.paths.size() < 2 || a.paths.size() > 3) {
        usage(std::cerr);
        return 2;
    }
    AtomicFile host(a.paths[0]);
    AtomicFile kineto(a.paths[1]);
    std::ofstream discard; // no truth file wanted: a stream in a failed state swallows the output
    std::unique_ptr<AtomicFile> truth;
    if (a.paths.size() == 3)
        truth = std::make_unique<AtomicFile>(a.paths[2]);
    for (AtomicFile *f : {&host, &kineto, truth.get()}) {
        if (f && !f->ok()) {
            std::cerr << "linkscope-gen: cannot write " << f->path() << "\n";
            return 1;
        }
    }
    const auto start = std::chrono::steady_clock::now();
    const GeneratorStats stats = generatePair(a.options, host.stream(), kineto.stream(), truth ? truth->stream() : discard);
    for (AtomicFile *f : {&host, &kineto, truth.get()}) {
        if (f && !f->commit()) {
            std::cerr << "linkscope-gen: writing " << f->path() << " failed\n";
            return 1;
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "steps " << stats.steps << ", host ET " << stats.hostBytes << " B (" << stats.hostNodes << " nodes), Kineto "
              << stats.kinetoBytes << " B (" << stats.kinetoEvents << " events: " << stats.cpuOps << " CPU ops, "
              << stats.runtimeEvents << " runtime, " << stats.gpuOps << " GPU ops, " << stats.collectives << " NCCL, "
              << stats.graphLaunches << " graph launches), truth " << stats.truthBytes << " B, " << seconds << " s\n";
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    GenArgs a;
    if (const std::optional<int> status = parseGenArgs(argc, argv, a))
        return *status;
    if (a.options.rank >= 0 || !a.outDir.empty())
        return generateJobFolder(a);
    return generatePairFiles(a);
}
