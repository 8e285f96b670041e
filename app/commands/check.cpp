// linkscope check X.et... [--comm-groups FILE] [--jobs N] [--json]
#include "commands/commands.h"

#include "export/chakra/etcheck.h"
#include "job/runid.h"

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <set>
#include <stdexcept>
#include <thread>

namespace linkscope::cli {

namespace {

void printCheckUsage(std::ostream &out)
{
    out << "usage: linkscope check X.et... [--comm-groups FILE] [--jobs N] [--json]\n"
           "  Pre-flight for ASTRA-sim: every dependency exists, the graph is acyclic, node types the\n"
           "  simulator runs, communication nodes with is_cpu_op false, comm_type set and comm_size > 0\n"
           "  as int64, every pg_name in the comm groups and every group's ranks with a file, and each\n"
           "  group's collective sequence the same on every rank, node times a replay runs as written\n"
           "  (duration_micros <= 2e12, lane_dur_ns <= 2e15, their sum <= 2^62 ns) and every P2P peer a rank\n"
           "  with a file. A file's rank is N in PREFIX.N.et.\n"
           "  --comm-groups FILE    ASTRA-sim's comm group file {\"<id>\": [ranks]} (comm_group.json)\n"
           "  --jobs N              files checked at the same time (default: one per core; each holds\n"
           "                        one file's bytes while it is checked)\n"
           "  --json                print the findings as JSON\n"
           "Each finding names the file, the node id and the rule. Exit status 1 when there is an error,\n"
           "or when the files' folder holds the outputs of two `linkscope job` runs (their run ids differ).\n";
}

} // namespace

int runCheck(const Args &args, std::ostream &out, std::ostream &err)
{
    std::vector<std::string> files;
    std::string groups;
    bool json = false;
    int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        if (a == "--help" || a == "-h") {
            printCheckUsage(out);
            return 0;
        } else if (a == "--comm-groups" || a == "--comm-group-configuration") {
            if (i + 1 >= args.size()) {
                err << "check: " << a << " needs a value\n";
                return 2;
            }
            groups = args[++i];
        } else if (a == "--jobs") {
            bool ok = i + 1 < args.size();
            if (ok)
                try {
                    std::size_t used = 0;
                    jobs = std::stoi(args[i + 1], &used);
                    ok = used == args[i + 1].size() && jobs >= 1;
                } catch (const std::exception &) {
                    ok = false;
                }
            if (!ok) {
                err << "check: --jobs wants a positive integer\n";
                return 2;
            }
            ++i;
        } else if (a == "--json") {
            json = true;
        } else if (a.starts_with("--")) {
            err << "check: unknown argument " << a << "\n";
            printCheckUsage(err);
            return 2;
        } else {
            files.push_back(a);
        }
    }
    if (files.empty()) {
        err << "check: no .et file given\n";
        printCheckUsage(err);
        return 2;
    }
    // Files of two `linkscope job` runs in one folder (one killed, then run again): said before the
    // mismatches they would show (job/runid.h). Files without a run id are not questioned.
    std::set<std::pair<std::string, std::string>> folders; // (folder, PREFIX) of PREFIX.N.et
    for (const std::string &file : files) {
        const std::filesystem::path path(file);
        std::string name = path.filename().string();
        if (!name.ends_with(".et"))
            continue;
        name.resize(name.size() - 3);
        if (const auto dot = name.rfind('.'); dot != std::string::npos && dot > 0)
            folders.insert({path.parent_path().empty() ? std::string(".") : path.parent_path().string(), name.substr(0, dot)});
    }
    bool mixed = false;
    for (const auto &[folder, prefix] : folders)
        if (const core::job::FolderRuns runs = core::job::checkFolderRuns(folder, prefix); runs.mixed()) {
            err << "check: error: " << folder << ": " << runs.message() << '\n';
            mixed = true;
        }
    if (mixed)
        return 1;
    const core::EtCheckResult result = core::checkEtFiles(files, groups, jobs);
    if (json) {
        out << result.toJson().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
        for (const core::EtCheckFinding &f : result.findings)
            out << f.toString() << '\n';
        out << (result.ok() ? "ok: " : "failed: ") << result.files << " file(s), " << result.nodes << " node(s), "
            << result.errors() << " error(s)\n";
    }
    return result.ok() ? 0 : 1;
}

} // namespace linkscope::cli
