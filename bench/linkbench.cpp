// linkscope-bench link: linking time apart from load time, and how it grows with the trace.

#include "benchsupport.h"

#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "link/chakracompare.h"
#include "link/linker.h"
#include "link/policynotices.h"
#include "pipeline/pairpipeline.h"

#include <charconv>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>
#include <unordered_map>

namespace linkscope::bench {

namespace {

struct TruthKey {
    std::int64_t pid;
    std::int64_t correlation;
    std::int64_t ts;
    bool operator==(const TruthKey &) const = default;
};
struct TruthKeyHash {
    std::size_t operator()(const TruthKey &k) const
    {
        return std::hash<std::int64_t>()(k.correlation * 1000003 + k.ts) ^ static_cast<std::size_t>(k.pid);
    }
};
using TruthMap = std::unordered_map<TruthKey, std::int64_t, TruthKeyHash>; // → parent Ev Idx

std::int64_t numberAfter(std::string_view line, std::string_view key, std::size_t from = 0)
{
    const std::size_t at = line.find(key, from);
    if (at == std::string_view::npos)
        return -1;
    std::int64_t value = -1;
    const char *begin = line.data() + at + key.size();
    std::from_chars(begin, line.data() + line.size(), value);
    return value;
}

// The generator's ground truth, one JSON object per line with fixed key spelling.
TruthMap parseTruth(std::string_view text)
{
    TruthMap truth;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        if (line.empty())
            continue;
        const std::size_t parent = line.find("\"parent\":");
        truth[{numberAfter(line, "{\"pid\":"), numberAfter(line, "\"correlation\":"), numberAfter(line, "\"ts_ns\":")}] =
            numberAfter(line, "\"ev_idx\":", parent);
    }
    return truth;
}

struct Row {
    std::uint64_t kinetoBytes = 0;
    std::uint64_t hostBytes = 0;
    std::uint64_t events = 0;
    std::uint64_t gpuOps = 0;
    double loadSeconds = 0;
    double linkSeconds = 0;
    std::uint64_t agree = 0;
    std::uint64_t checked = 0;
    std::uint64_t linked = 0;
    std::uint64_t peakRss = 0;
};

void account(Row &row, const core::DeviceTrace &device, const core::HostTrace &host, const core::LinkSet &links,
             const TruthMap *truth)
{
    row.kinetoBytes = device.sourceBytes;
    row.hostBytes = host.sourceBytes;
    row.events = device.events.size();
    row.gpuOps = links.gpuLinks.size();
    for (const core::GpuLink &link : links.gpuLinks) {
        if (link.parent.valid())
            ++row.linked;
        if (!truth)
            continue;
        const core::DeviceEvent &gpu = device.event(link.gpuEvent);
        const auto it = truth->find({device.threadKey(gpu).pid.value, gpu.correlation, gpu.ts});
        if (it == truth->end())
            continue;
        ++row.checked;
        if (link.parent.valid() && device.event(link.parent).evIdx == it->second)
            ++row.agree;
    }
}

void printHeader(std::ostream &out)
{
    out << "  Kineto MB   host MB     events   GPU ops   load s   link s  link/load  ns/event     linked          = truth   peak "
           "RSS MB\n";
}

void printRow(std::ostream &out, const Row &r)
{
    out << std::fixed << std::setprecision(1) << std::setw(11) << megabytes(r.kinetoBytes) << std::setw(10)
        << megabytes(r.hostBytes) << std::setw(11) << r.events << std::setw(10) << r.gpuOps << std::setprecision(3)
        << std::setw(9) << r.loadSeconds << std::setw(9) << r.linkSeconds << std::setprecision(1) << std::setw(10)
        << 100.0 * r.linkSeconds / r.loadSeconds << "%" << std::setw(10) << 1e9 * r.linkSeconds / static_cast<double>(r.events)
        << std::setw(9) << r.linked << std::setw(17);
    if (r.checked)
        out << (std::to_string(r.agree) + "/" + std::to_string(r.checked));
    else
        out << "-";
    out << std::setw(14) << megabytes(r.peakRss) << '\n';
}

Row measureGenerated(std::uint64_t targetBytes, std::uint64_t seed)
{
    gen::GeneratorOptions options;
    options.seed = seed;
    options.devices = 2;
    options.targetKinetoBytes = targetBytes;
    std::ostringstream hostOut, kinetoOut, truthOut;
    gen::generatePair(options, hostOut, kinetoOut, truthOut);
    const TruthMap truth = parseTruth(truthOut.str());
    std::string hostText = std::move(hostOut).str();
    std::string kinetoText = std::move(kinetoOut).str();

    Row row;
    resetPeakRss();
    Stopwatch watch;
    const core::DeviceTrace device = core::parseKinetoTrace(std::move(kinetoText), "generated-kineto.json");
    const core::HostTrace host = core::parseHostTrace(std::move(hostText), "generated-host.json");
    row.loadSeconds = watch.seconds();
    watch.restart();
    const core::LinkSet links = core::linkTraces(device, &host);
    row.linkSeconds = watch.seconds();
    row.peakRss = peakRssBytes();
    account(row, device, host, links, &truth);
    return row;
}

// Names of the linker's progress steps (see Linker::run): the phase that ends at each.
void printPhases(std::ostream &out, const std::vector<std::pair<std::uint64_t, double>> &marks)
{
    auto phaseEndingAt = [](std::uint64_t step) -> const char * {
        switch (step) {
        case 1:
            return "trace index";
        case 2:
            return "host join";
        case 3:
            return "threads + exclusive durations";
        case 8:
            return "launch indexes + GPU parents (all policies)";
        case 10:
            return "launch/stream/sync edges + findings";
        default:
            return nullptr;
        }
    };
    // Steps 3..8 are reported repeatedly while GPU parents are chosen: time is summed per step range.
    std::vector<std::pair<const char *, double>> phases;
    for (std::size_t i = 1; i < marks.size(); ++i) {
        const std::uint64_t step = marks[i].first;
        const char *name = phaseEndingAt(step == 3 && marks[i - 1].first >= 3 ? 8 : step);
        if (!name)
            name = phaseEndingAt(8);
        const double seconds = marks[i].second - marks[i - 1].second;
        if (!phases.empty() && phases.back().first == name)
            phases.back().second += seconds;
        else
            phases.emplace_back(name, seconds);
    }
    out << "  phases:";
    for (const auto &[name, seconds] : phases)
        out << ' ' << name << ' ' << std::fixed << std::setprecision(3) << seconds << " s;";
    out << '\n';
}

} // namespace

int runLink(Args args, std::ostream &out, std::ostream &err)
{
    const bool allCores = takeFlag(args, "--all-cores");
    const std::string sizes = takeOption(args, "--sizes", "32M,128M,512M");
    const std::string truthPath = takeOption(args, "--truth", "");
    std::uint64_t seed = 1;
    const std::string seedText = takeOption(args, "--seed", "1");
    std::from_chars(seedText.data(), seedText.data() + seedText.size(), seed);
    if (!(args.empty() || args.size() == 2)) {
        err << "usage: linkscope-bench link [HOST_ET KINETO [--truth TRUTH.jsonl]] [--sizes 32M,128M,512M] [--seed N] "
               "[--all-cores]\n";
        return 2;
    }
    if (!allCores && !pinToOneCore())
        err << "warning: could not pin to one core\n";
    out << "link (" << (allCores ? "all cores" : "one core") << "; load = parse Kineto + host ET; link = linkTraces: "
        << "index, host join, GPU parents under all policies, durations, edges, findings)\n";
    printHeader(out);

    std::optional<Row> last;
    if (args.size() == 2) {
        Row row;
        resetPeakRss();
        Stopwatch watch;
        // The pair pipeline, pinned to one core (host and device then load one after the other on
        // it). The linker reports progress between its phases; the times between reports split the
        // link time.
        std::vector<std::pair<std::uint64_t, double>> marks;
        double loadEnd = 0;
        core::PairRequest request;
        request.files = {args[0], args[1]};
        request.progress = [&](core::PairStage stage, std::uint64_t done, std::uint64_t) {
            if (stage == core::PairStage::HostEt || stage == core::PairStage::Device)
                return true;
            if (loadEnd == 0)
                loadEnd = watch.seconds();
            if (stage == core::PairStage::Link)
                marks.emplace_back(done, watch.seconds() - loadEnd);
            return true;
        };
        const core::OpenedPair pair = core::openPair(request);
        row.loadSeconds = loadEnd;
        row.linkSeconds = watch.seconds() - loadEnd;
        const core::DeviceTrace &device = *pair.device;
        const core::HostTrace &host = *pair.host;
        const core::LinkSet &links = *pair.links;
        row.peakRss = peakRssBytes();
        printPhases(out, marks);
        std::optional<TruthMap> truth;
        if (!truthPath.empty())
            truth = parseTruth(readFile(truthPath));
        account(row, device, host, links, truth ? &*truth : nullptr);
        printRow(out, row);
        // compared_with_chakra (what `linkscope link` and the GUI add on open): both Chakra relinks and
        // the notices once per load, the comparison again after every edit.
        watch.restart();
        const core::ChakraLinks chakra = core::linkUnderChakra(device, &host, pair.index, pair.options);
        const double relinkSeconds = watch.seconds();
        watch.restart();
        const core::ChakraComparison comparison = core::compareWithChakra(device, chakra, links);
        const double compareSeconds = watch.seconds();
        watch.restart();
        const std::vector<core::Notice> notices = core::policyNotices(device, &host, links, &comparison);
        const double noticeSeconds = watch.seconds();
        out << std::fixed << std::setprecision(3) << "  compared_with_chakra: link under both Chakra rules " << relinkSeconds
            << " s and notices " << noticeSeconds << " s (once per load), compare " << compareSeconds
            << " s (again per edit in the GUI); Chakra 1.0 differs on " << comparison.chakra10.differentParent.size()
            << " GPU ops, drops " << comparison.chakra10.dropped.size() << "; " << notices.size() << " notice(s)\n";
        last = row;
    } else {
        std::size_t pos = 0;
        while (pos <= sizes.size()) {
            std::size_t comma = sizes.find(',', pos);
            if (comma == std::string::npos)
                comma = sizes.size();
            std::uint64_t bytes = 0;
            if (!gen::parseByteSize(sizes.substr(pos, comma - pos), bytes)) {
                err << "linkscope-bench link: bad size in --sizes: " << sizes << '\n';
                return 2;
            }
            last = measureGenerated(bytes, seed);
            printRow(out, *last);
            out.flush();
            pos = comma + 1;
        }
    }
    printResult(out, "link_over_load", 100.0 * last->linkSeconds / last->loadSeconds, "%");
    return 0;
}

} // namespace linkscope::bench
