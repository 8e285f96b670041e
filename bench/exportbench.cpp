// linkscope-bench export: time and output size of each writer on a loaded, linked pair.

#include "benchsupport.h"

#include "base/parallel.h"
#include "export/exporter.h"
#include "export/targets.h"
#include "export/textsink.h"
#include "io/tracereader.h"
#include "link/linker.h"
#include "pipeline/pairpipeline.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <string_view>
#include <sys/resource.h>
#include <utility>
#include <vector>

namespace linkscope::bench {

namespace {

// User + system CPU time of the whole process (every thread), in seconds.
double cpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto seconds = [](const timeval &t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

} // namespace

int runExport(Args args, std::ostream &out, std::ostream &err)
{
    const bool allCores = takeFlag(args, "--all-cores");
    const int runs = std::max(1, std::atoi(takeOption(args, "--runs", "3").c_str()));
    const std::string dir = takeOption(args, "--out", "/tmp/linkscope-bench/export");
    if (args.size() != 2) {
        err << "usage: linkscope-bench export HOST_ET KINETO [--out DIR] [--all-cores] [--runs N]\n";
        return 2;
    }
    if (!allCores && !pinToOneCore())
        err << "warning: could not pin to one core\n";
    std::filesystem::create_directories(dir);

    Stopwatch watch;
    double loadSeconds = 0;
    core::PairRequest request;
    request.files = {args[0], args[1]};
    request.progress = [&](core::PairStage stage, std::uint64_t, std::uint64_t) {
        if (stage != core::PairStage::HostEt && stage != core::PairStage::Device && loadSeconds == 0)
            loadSeconds = watch.seconds();
        return true;
    };
    const core::OpenedPair pair = core::openPair(request);
    const double linkSeconds = watch.seconds() - loadSeconds;
    const core::DeviceTrace &device = *pair.device;
    const core::HostTrace &host = *pair.host;
    const core::LinkSet &links = *pair.links;
    out << std::fixed << std::setprecision(3) << "export (" << (allCores ? "all cores" : "one core") << "; inputs "
        << std::setprecision(1) << megabytes(device.sourceBytes) << " MB Kineto + " << megabytes(host.sourceBytes)
        << " MB host ET; load " << std::setprecision(3) << loadSeconds << " s, link " << linkSeconds
        << " s, not counted below)\n";

    // The export exactly as `linkscope export --et --etplus --perfetto` runs it (exportLinkedPair),
    // timed per stage from its progress callback, with its peak RSS.
    resetPeakRss();
    const std::uint64_t rssBefore = currentRssBytes();
    core::ExportRequest exportRequest;
    exportRequest.outputs[std::string(core::kEtTarget)] = dir + "/linked.et";
    exportRequest.outputs[std::string(core::kEtPlusTarget)] = dir + "/linked_etplus.json";
    exportRequest.outputs[std::string(core::kPerfettoTarget)] = dir + "/linked_perfetto.json";
    std::vector<std::pair<std::string, double>> stages;
    watch.restart();
    exportRequest.progress = [&](std::string_view stage, std::size_t, std::size_t) {
        const double now = watch.seconds();
        if (!stages.empty())
            stages.back().second = now - stages.back().second;
        if (stage != "done")
            stages.emplace_back(std::string(stage), now);
        return true;
    };
    const core::ExportReport report = core::exportLinkedPair(host, device, links, exportRequest);
    const double total = watch.seconds();
    const std::uint64_t peak = peakRssBytes();
    auto bytesOf = [&](const std::string &stage) -> std::uint64_t {
        for (const core::ExportTarget &target : core::exportTargets())
            if (target.writeStage == stage)
                return report.bytesOf(target.name);
        return 0;
    };
    double etSeconds = 0;
    for (const auto &[stage, seconds] : stages) {
        out << std::fixed << "  " << std::left << std::setw(28) << stage << std::right << std::setprecision(3) << std::setw(8)
            << seconds << " s";
        if (const std::uint64_t bytes = bytesOf(stage))
            out << std::setprecision(1) << std::setw(10) << megabytes(bytes) << " MB" << std::setw(9)
                << megabytes(bytes) / seconds << " MB/s";
        out << '\n';
        if (stage == "checking the Chakra graph" || stage == "writing the Chakra .et")
            etSeconds += seconds;
    }
    out << std::fixed << std::setprecision(3) << "  all writers (exportLinkedPair, as the CLI): " << total << " s ("
        << std::setprecision(1) << 100.0 * total / loadSeconds << "% of the load time), peak RSS " << megabytes(peak)
        << " MB = " << std::setprecision(2) << double(peak) / double(std::max<std::uint64_t>(rssBefore, 1)) << "x the "
        << std::setprecision(1) << megabytes(rssBefore) << " MB the loaded, linked pair holds\n";

    // The JSON writers' formatting alone, apart from the disk: the same text into a sink that only
    // touches each block's last byte, on one thread and on every core (of those this process may
    // use), best of `runs`; with the process's CPU time, which other load on the machine does not
    // inflate the way it does the wall time.
    const core::EtPlusGraph graph = core::buildEtPlusGraph(host, device, links);
    {
        volatile char last = 0;
        const core::OutputSink discard = [&](std::string_view bytes) {
            if (!bytes.empty())
                last = bytes.back();
        };
        const int every = core::exportThreads();
        auto formatting = [&](std::string_view what, auto &&write) {
            for (const int threads : {1, every}) {
                double bestWall = 1e300, bestCpu = 1e300;
                std::uint64_t bytes = 0;
                for (int run = 0; run < runs; ++run) {
                    const double cpuBefore = cpuSeconds();
                    watch.restart();
                    bytes = write(threads);
                    bestWall = std::min(bestWall, watch.seconds());
                    bestCpu = std::min(bestCpu, cpuSeconds() - cpuBefore);
                }
                out << std::fixed << std::setprecision(3) << "  formatting " << what << ", " << threads
                    << (threads == 1 ? " thread: " : " threads: ") << bestWall << " s = " << std::setprecision(1)
                    << megabytes(bytes) / bestWall << " MB/s (CPU " << std::setprecision(3) << bestCpu
                    << " s = " << std::setprecision(1) << megabytes(bytes) / bestCpu << " MB per CPU-second; best of " << runs
                    << (allCores ? ")" : ", pinned to one core)") << '\n';
            }
        };
        formatting("ET+ JSON", [&](int threads) { return core::writeEtPlusTo(discard, graph, host, device, links, threads); });
        formatting("Perfetto", [&](int threads) { return core::writePerfettoTraceTo(discard, device, links, &host, threads); });
    }

    // The floor for the .et: protobuf alone serialising the same Node messages (built in memory
    // first, untimed; this part needs far more memory than the export above and is not in its peak).
    const core::ChakraConversion chakra = core::convertToChakra(graph, host, device, links);
    watch.restart();
    const std::string serialized = core::serializeChakraEt(chakra.trace);
    const double serializeSeconds = watch.seconds();
    out << std::fixed << std::setprecision(3) << "  protobuf alone, the same " << chakra.stats.nodes
        << " Node messages: " << serializeSeconds << " s (" << std::setprecision(1)
        << megabytes(serialized.size()) / serializeSeconds << " MB/s); the .et stages took " << std::setprecision(2)
        << etSeconds / serializeSeconds << "x that\n";
    printResult(out, "export_total_time", total, "s");
    return 0;
}

} // namespace linkscope::bench
