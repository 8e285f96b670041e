// linkscope-bench export: time and output size of each writer on a loaded, linked pair.

#include "benchsupport.h"

#include "export/exporter.h"
#include "io/tracereader.h"
#include "pipeline/pairpipeline.h"
#include "link/linker.h"

#include <filesystem>
#include <iomanip>
#include <ostream>

namespace linkscope::bench {

int runExport(Args args, std::ostream &out, std::ostream &err)
{
    const bool allCores = takeFlag(args, "--all-cores");
    const std::string dir = takeOption(args, "--out", "/tmp/linkscope-bench/export");
    if (args.size() != 2) {
        err << "usage: linkscope-bench export HOST_ET KINETO [--out DIR] [--all-cores]\n";
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
        << " MB host ET; load " << std::setprecision(3) << loadSeconds << " s, link " << linkSeconds << " s, not counted below)\n";

    resetPeakRss();
    const std::uint64_t rssBefore = currentRssBytes();
    double total = 0;
    int refused = 0;
    auto row = [&](const char *what, double seconds, std::uint64_t bytes, const std::string &detail) {
        total += seconds;
        out << std::fixed << "  " << std::left << std::setw(26) << what << std::right << std::setprecision(3) << std::setw(8)
            << seconds << " s";
        if (bytes)
            out << std::setprecision(1) << std::setw(10) << megabytes(bytes) << " MB" << std::setw(9)
                << megabytes(bytes) / seconds << " MB/s";
        out << "  " << detail << '\n';
    };

    watch.restart();
    const core::EtPlusGraph graph = core::buildEtPlusGraph(host, device, links);
    row("ET+ graph", watch.seconds(), 0,
        std::to_string(graph.nodes.size()) + " nodes (" + std::to_string(graph.stats.gpuNodes) + " GPU)");

    watch.restart();
    const std::uint64_t etPlusBytes = core::writeEtPlus(dir + "/linked_etplus.json", graph, host, device, links);
    row("ET+ JSON write", watch.seconds(), etPlusBytes, dir + "/linked_etplus.json");

    watch.restart();
    const core::ChakraConversion chakra = core::convertToChakra(graph, host, device, links);
    row("Chakra conversion", watch.seconds(), 0,
        std::to_string(chakra.stats.nodes) + " nodes, " + std::to_string(chakra.stats.commColl) + " COMM_COLL");

    watch.restart();
    try {
        const std::uint64_t etBytes = core::writeChakraEt(dir + "/linked.et", chakra.trace);
        row(".et validate + write", watch.seconds(), etBytes, dir + "/linked.et");
    } catch (const core::ExportError &e) {
        // The exporter refused the graph: say so, and still measure serialisation so the row has figures.
        const double refusedAfter = watch.seconds();
        out << "  .et write REFUSED after " << std::setprecision(3) << refusedAfter << " s: " << std::string(e.what()).substr(0, 400)
            << (std::string(e.what()).size() > 400 ? "..." : "") << '\n';
        watch.restart();
        const std::string bytes = core::serializeChakraEt(chakra.trace);
        row(".et serialize (no file)", watch.seconds(), bytes.size(), "not validated, not written");
        ++refused;
    }

    watch.restart();
    const std::uint64_t perfettoBytes = core::writePerfettoTrace(dir + "/linked_perfetto.json", device, links, &host);
    row("Perfetto write", watch.seconds(), perfettoBytes, dir + "/linked_perfetto.json");

    out << std::fixed << std::setprecision(3) << "  all writers: " << total << " s (" << std::setprecision(1)
        << 100.0 * total / loadSeconds << "% of the load time), peak RSS " << megabytes(peakRssBytes()) << " MB ("
        << megabytes(rssBefore) << " MB held before: the loaded, linked pair)\n";
    if (refused)
        out << "  " << refused << " writer(s) refused their output (see above); the total covers what ran\n";
    printResult(out, "export_total_time", total, "s");
    return 0;
}

} // namespace linkscope::bench
