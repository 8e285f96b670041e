// linkscope whatif JOB_OUT NEW_OUT [changes]: a job export (what `linkscope job --out` wrote) with a
// what-if applied (predict/whatif.h): its .et files with kernels scaled or a rank delayed, its
// comm_group.json, and its network.yml with the transfers scaled — ready for ASTRA-sim.

#include "commands/commands.h"

#include "export/chakra/etformat.h"
#include "io/file/atomicfile.h"
#include "predict/whatif.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>

namespace linkscope::cli {

namespace {

namespace fs = std::filesystem;

void printWhatIfUsage(std::ostream &out)
{
    out << "usage: linkscope whatif JOB_OUT NEW_OUT [options]\n"
           "  A copy of a job export (the folder `linkscope job --out` wrote: PREFIX.R.et, comm_group.json,\n"
           "  network.yml) with a change applied, for ASTRA-sim (docs/astra-sim-export.md, \"What-if\").\n"
           "what-ifs (repeatable):\n"
        << core::kWhatIfOptionsUsage
        << "options:\n"
           "  --prefix NAME         the .et files' prefix (default trace)\n"
           "NEW_OUT is created; a file there is replaced atomically. NEW_OUT must differ from JOB_OUT.\n"
           "Exit status: 0; 1 if a file cannot be read or written; 2 for usage (a --delay-rank rank the job has\n"
           "not included, as `linkscope predict` refuses it).\n";
}

std::string readAll(const fs::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path.string() + ": cannot open");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeAll(const fs::path &path, const std::string &text)
{
    core::AtomicFile file(path.string());
    file.write(text);
    file.commit();
}

} // namespace

int runWhatIf(const Args &args, std::ostream &out, std::ostream &err)
{
    std::vector<std::string> positional;
    std::string prefix = "trace";
    core::WhatIf whatIf;
    try {
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string &a = args[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= args.size())
                    throw std::invalid_argument(a + " needs a value");
                return args[++i];
            };
            if (a == "--help" || a == "-h") {
                printWhatIfUsage(out);
                return 0;
            } else if (core::applyWhatIfOption(whatIf, a, value)) {
            } else if (a == "--prefix") {
                prefix = value();
            } else if (a.starts_with("--")) {
                throw std::invalid_argument("unknown option " + a);
            } else {
                positional.push_back(a);
            }
        }
    } catch (const std::invalid_argument &e) {
        err << "whatif: " << e.what() << '\n';
        printWhatIfUsage(err);
        return 2;
    }
    if (positional.size() != 2) {
        err << "whatif: give JOB_OUT and NEW_OUT\n";
        printWhatIfUsage(err);
        return 2;
    }
    const fs::path from = positional[0], to = positional[1];
    std::error_code ec;
    if (fs::exists(to, ec) && fs::equivalent(from, to, ec)) {
        err << "whatif: NEW_OUT is JOB_OUT (" << to.string() << "): the job's own files would be replaced\n";
        return 2;
    }
    try {
        // The rank files: PREFIX.R.et (or .et.gz).
        const std::regex name("^" + std::regex_replace(prefix, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)")
                              + R"(\.([0-9]+)\.et(\.gz)?$)");
        std::map<std::int64_t, fs::path> ranks;
        for (const fs::directory_entry &entry : fs::directory_iterator(from)) {
            std::smatch m;
            const std::string file = entry.path().filename().string();
            if (entry.is_regular_file() && std::regex_match(file, m, name))
                ranks[std::stoll(m[1].str())] = entry.path();
        }
        if (ranks.empty()) {
            err << "whatif: no " << prefix << ".R.et files in " << from.string() << '\n';
            return 1;
        }
        // As `linkscope predict` refuses it (a usage error), before anything is written.
        for (const auto &[rank, ms] : whatIf.rankDelayMs)
            if (!ranks.count(rank)) {
                err << "whatif: --delay-rank: the job has no rank " << rank << " (its ranks: " << ranks.begin()->first << ".."
                    << ranks.rbegin()->first << ")\n";
                return 2;
            }
        fs::create_directories(to);
        std::size_t scaled = 0, cpuScaled = 0, delayed = 0;
        for (const auto &[rank, path] : ranks) {
            core::ChakraTrace trace = core::readChakraEt(path.string());
            const core::WhatIfStats s = core::applyWhatIf(trace, rank, whatIf);
            scaled += s.gpuNodesScaled;
            cpuScaled += s.cpuNodesScaled;
            delayed += s.stepsDelayed;
            if (s.delayOnFirstOp)
                err << "whatif: warning: rank " << rank
                    << " has no ProfilerStep#N node: its delay was added once, to its first CPU op, not to every step\n";
            core::EtWriteOptions options;
            options.gzip = trace.wasGzip;
            core::writeChakraEt((to / path.filename()).string(), trace, options);
        }
        for (const std::string &file : {std::string("comm_group.json")})
            if (fs::exists(from / file))
                writeAll(to / file, readAll(from / file));
        bool network = false;
        if (fs::exists(from / "network.yml")) {
            writeAll(to / "network.yml", core::scaleNetworkYaml(readAll(from / "network.yml"), whatIf));
            network = true;
        } else if (whatIf.changesNetwork()) {
            err << "whatif: " << (from / "network.yml").string()
                << " does not exist: the network what-if needs the fitted network\n";
            return 1;
        }
        out << "whatif: " << whatIf.describe() << ": " << ranks.size() << " .et files (" << scaled << " GPU ops scaled, "
            << cpuScaled << " CPU ops scaled, " << delayed << " steps delayed)" << (network ? ", network.yml" : "")
            << " written to " << to.string() << '\n';
        if (!whatIf.gpu.empty() && scaled == 0)
            err << "whatif: warning: no GPU op matched --scale-gpu (communication kernels take their time from the network: "
                   "use --scale-comm, --scale-network or --scale-latency)\n";
        if (!whatIf.cpu.empty() && cpuScaled == 0)
            err << "whatif: warning: no CPU op matched --scale-cpu\n";
        return 0;
    } catch (const std::exception &e) {
        err << "whatif: " << e.what() << '\n';
        return 1;
    }
}

} // namespace linkscope::cli
