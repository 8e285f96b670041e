// linkscope-bench load: how fast the readers turn files into DeviceTrace / HostTrace, on one core.

#include "benchsupport.h"

#include "io/tracereader.h"

#include <iomanip>
#include <ostream>

namespace linkscope::bench {

namespace {

struct LoadFigures {
    std::uint64_t inputBytes = 0; // uncompressed
    std::uint64_t events = 0;
    double seconds = 0;
    std::uint64_t peakRss = 0;
    std::uint64_t rssBefore = 0;
    std::size_t warnings = 0;
};

void print(std::ostream &out, const char *what, const LoadFigures &f)
{
    out << std::fixed << std::setprecision(2) << what << ": " << megabytes(f.inputBytes) << " MB uncompressed, " << f.events
        << (std::string(what) == "host ET" ? " nodes" : " events") << ", " << std::setprecision(3) << f.seconds << " s, "
        << std::setprecision(1) << megabytes(f.inputBytes) / f.seconds << " MB/s, peak RSS " << megabytes(f.peakRss) << " MB ("
        << std::setprecision(2) << static_cast<double>(f.peakRss) / static_cast<double>(f.inputBytes) << "x the input; "
        << std::setprecision(1) << megabytes(f.rssBefore) << " MB before), " << f.warnings << " warnings\n";
}

} // namespace

int runLoad(Args args, std::ostream &out, std::ostream &err)
{
    const bool allCores = takeFlag(args, "--all-cores");
    if (args.size() != 2) {
        err << "usage: linkscope-bench load HOST_ET KINETO [--all-cores]\n";
        return 2;
    }
    if (!allCores && !pinToOneCore())
        err << "warning: could not pin to one core; figures may use more\n";
    const bool peakResets = resetPeakRss();
    if (!peakResets)
        err << "warning: cannot reset VmHWM; the host peak includes the Kineto load\n";
    out << "load (" << (allCores ? "all cores" : "one core") << "; 1 MB = 10^6 bytes)\n";

    LoadFigures kineto;
    {
        kineto.rssBefore = currentRssBytes();
        resetPeakRss();
        Stopwatch watch;
        const core::DeviceTrace trace = core::readKinetoTrace(args[1]);
        kineto.seconds = watch.seconds();
        kineto.peakRss = peakRssBytes();
        kineto.inputBytes = trace.sourceBytes;
        kineto.events = trace.events.size();
        kineto.warnings = trace.warnings.size();
    }
    print(out, "Kineto", kineto);

    LoadFigures host;
    {
        host.rssBefore = currentRssBytes();
        resetPeakRss();
        Stopwatch watch;
        const core::HostTrace trace = core::readHostTrace(args[0]);
        host.seconds = watch.seconds();
        host.peakRss = peakRssBytes();
        host.inputBytes = trace.sourceBytes;
        host.events = trace.nodes.size();
        host.warnings = trace.warnings.size();
    }
    print(out, "host ET", host);

    const double both = megabytes(kineto.inputBytes + host.inputBytes) / (kineto.seconds + host.seconds);
    out << std::fixed << std::setprecision(1) << "both, one after the other: " << both << " MB/s\n";
    printResult(out, "kineto_load_throughput", megabytes(kineto.inputBytes) / kineto.seconds, "MB/s");
    return 0;
}

} // namespace linkscope::bench
