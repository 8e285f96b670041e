// linkscope-bench range [KINETO] [--events N] [--runs N]: time of the time-range statistics
// (core/analysis/rangestats: GPU ops by name, stream busy, CPU time per thread) for ranges of 0.1 %,
// 1 %, 10 % and 100 % of the trace, centred, as the range dock computes them on a Shift+drag
// release. Without a file: a generated Kineto trace of N events (default 2 million).

#include "benchsupport.h"

#include "analysis/rangestats.h"
#include "gen/tracegenerator.h"
#include "index/traceindex.h"
#include "io/formats.h"
#include "io/tracereader.h"

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <vector>

namespace linkscope::bench {

int runRange(Args args, std::ostream &out, std::ostream &err)
{
    const std::uint64_t events = std::strtoull(takeOption(args, "--events", "2000000").c_str(), nullptr, 10);
    const int runs = std::max(3, std::atoi(takeOption(args, "--runs", "9").c_str()));
    if (args.size() > 1) {
        err << "usage: linkscope-bench range [KINETO] [--events N] [--runs N]\n";
        return 2;
    }
    core::DeviceTrace device;
    if (args.size() == 1) {
        device = core::loadDeviceTrace(args[0]);
        out << "range: " << args[0];
    } else {
        gen::GeneratorOptions options;
        options.seed = 1;
        options.devices = 2;
        options.targetKinetoEvents = events;
        std::ostringstream host, kineto, truth;
        host.setstate(std::ios::badbit);
        truth.setstate(std::ios::badbit);
        gen::generatePair(options, host, kineto, truth);
        device = core::parseKinetoTrace(std::move(kineto).str(), "generated-kineto.json");
        out << "range: generated Kineto trace";
    }
    const core::TraceIndex index = core::buildTraceIndex(device);
    out << ", " << device.events.size() << " events, " << index.lanes.size() << " lanes\n";
    const core::Nanos lo = index.minTs, hi = index.maxTs;
    double worst = 0;
    for (const double share : {0.001, 0.01, 0.1, 1.0}) {
        const core::Nanos span = static_cast<core::Nanos>((hi - lo) * share);
        const core::Nanos start = lo + (hi - lo - span) / 2;
        std::vector<double> ms;
        core::RangeStats stats;
        for (int r = 0; r < runs; ++r) {
            Stopwatch watch;
            stats = core::computeRangeStats(device, index, start, start + span);
            ms.push_back(watch.seconds() * 1000.0);
        }
        std::sort(ms.begin(), ms.end());
        std::uint64_t inRange = 0, ops = 0;
        for (const auto &lane : stats.streams)
            inRange += lane.events;
        for (const auto &lane : stats.threads)
            inRange += lane.events;
        for (const auto &op : stats.ops)
            ops += op.count;
        const double median = ms[ms.size() / 2];
        worst = std::max(worst, median);
        out << std::fixed << std::setprecision(3) << "  " << std::setw(6) << share * 100 << " % of the trace: " << inRange
            << " events in range (" << ops << " GPU ops, " << stats.ops.size() << " names), median " << median << " ms over "
            << runs << " runs\n";
    }
    printResult(out, "range_stats_median_worst", worst, "ms");
    return 0;
}

} // namespace linkscope::bench
