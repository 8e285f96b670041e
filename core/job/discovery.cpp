#include "job/discovery.h"

#include "io/file/inputtext.h"
#include "io/formats.h"
#include "model/common.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <regex>
#include <set>

namespace linkscope::core::job {

namespace fs = std::filesystem;

std::optional<std::int64_t> rankFromFileName(std::string_view fileName)
{
    const std::string name(fileName);
    static const std::regex named("(?:rank|worker)[-_]?([0-9]+)", std::regex::icase);
    std::smatch m;
    if (std::regex_search(name, m, named)) {
        // Beyond 18 digits no int64 holds it: the largest, which no plausible rank reaches.
        std::string digits = m[1].str();
        digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
        return digits.size() > 18 ? std::numeric_limits<std::int64_t>::max() : std::stoll(digits);
    }
    // The last number set off by '_', '-' or '.' and followed by '.', before the extensions.
    static const std::regex trailing("[_.-]([0-9]+)\\.");
    std::optional<std::int64_t> last;
    for (auto it = std::sregex_iterator(name.begin(), name.end(), trailing); it != std::sregex_iterator(); ++it) {
        const std::string digits = (*it)[1].str();
        if (digits.size() <= 9)
            last = std::stoll(digits);
    }
    return last;
}

namespace {

// Why a file is neither a host ET nor a Kineto trace, when its content is not recognised at all.
std::string unrecognisedFile(const std::string &path)
{
    const std::string head = io::readInputPrefix(path, 1u << 16);
    const std::size_t first = head.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (head[first] == '{' || head[first] == '[')) {
        std::error_code ec;
        const auto size = fs::file_size(path, ec);
        return "JSON without a \"traceEvents\" or \"nodes\" key in its first " + std::to_string(head.size()) + " bytes"
               + (ec || head.size() >= (1u << 16) ? std::string()
                                                  : " (the whole file, " + std::to_string(size) + " bytes on disk: cut short?)")
               + ", not a host ET or Kineto trace";
    }
    return head.empty() ? "empty, not a host ET or Kineto trace" : "not a host ET or Kineto trace (unrecognised content)";
}

// One discovery: the files listed, each claimed by a rank as its host ET or Kineto trace (or
// skipped, or an error), the conflicts between claims found, then the ranks assembled and the
// missing ones counted.
class JobDiscovery {
public:
    explicit JobDiscovery(const std::function<bool(std::int64_t)> &wanted) : wanted_(wanted) { }

    JobLayout run(const std::vector<std::string> &inputs)
    {
        for (const std::string &path : listFiles(inputs))
            claim(path);
        findConflicts();
        assemble();
        countMissing();
        return std::move(layout_);
    }

private:
    struct Claim {
        std::string path;
        const InputFormat *format = nullptr;
        std::int64_t nameRank = -1;
        RankHeader header;
    };

    // The files given and those in the folders given (each folder's sorted by name).
    std::vector<std::string> listFiles(const std::vector<std::string> &inputs)
    {
        std::vector<std::string> files;
        for (const std::string &input : inputs) {
            std::error_code ec;
            if (fs::is_directory(input, ec)) {
                std::vector<std::string> here;
                for (const auto &entry : fs::directory_iterator(input, ec))
                    if (entry.is_regular_file(ec))
                        here.push_back(entry.path().string());
                std::sort(here.begin(), here.end());
                files.insert(files.end(), here.begin(), here.end());
            } else if (fs::exists(input, ec)) {
                files.push_back(input);
            } else {
                layout_.errors.push_back(input + ": no such file or folder");
            }
        }
        return files;
    }

    // The file as a rank's host ET or Kineto trace, or skipped (with why), or an error.
    void claim(const std::string &path)
    {
        const std::string name = fs::path(path).filename().string();
        // Our own outputs and sidecars, in case the job's output folder is its input folder.
        if (name.find(".linkscope.json") != std::string::npos || name.ends_with(".et") || name.ends_with(".et.gz")
            || name.ends_with(".summary.json") || name == "comm_group.json" || name == "job-report.json") {
            layout_.skipped.push_back(path + ": a Linkscope output or sidecar");
            return;
        }
        const std::optional<std::int64_t> nameRank = rankFromFileName(name);
        if (nameRank && !plausibleRank(*nameRank)) {
            const bool huge = *nameRank == std::numeric_limits<std::int64_t>::max();
            layout_.skipped.push_back(path + ": the rank " + (huge ? std::string("number") : std::to_string(*nameRank))
                                      + " in its name is beyond " + std::to_string(kMaxRank)
                                      + ", the largest rank a job may have");
            return;
        }
        if (wanted_ && nameRank && !wanted_(*nameRank))
            return;
        const InputFormat *format = nullptr;
        try {
            format = detectInputFormat(path);
        } catch (const std::exception &e) {
            layout_.errors.push_back(e.what());
            return;
        }
        if (!format || (format->role != TraceRole::Host && format->role != TraceRole::Device)) {
            std::string what = format ? format->kind + ", not a host ET or Kineto trace" : unrecognisedFile(path);
            layout_.skipped.push_back(path + ": " + what);
            if (nameRank)
                skippedOf_[*nameRank].push_back(path);
            return;
        }
        Claim c;
        c.path = path;
        c.format = format;
        c.nameRank = nameRank.value_or(-1);
        if (format->role == TraceRole::Device)
            claimDevice(std::move(c));
        else if (c.nameRank < 0)
            layout_.errors.push_back(path + ": cannot tell the rank of this host ET (no rank number in its name)");
        else
            hosts_[c.nameRank].push_back(std::move(c));
    }

    // A device trace: its rank from its name, else from what its head declares (a Kineto trace's
    // distributedInfo, the row's peekRank); the job's world size.
    void claimDevice(Claim c)
    {
        c.header = peekRankHeader(c.path, c.format);
        if (c.nameRank < 0 && c.header.rank >= 0 && !plausibleRank(c.header.rank)) {
            layout_.skipped.push_back(c.path + ": its distributedInfo.rank " + std::to_string(c.header.rank) + " is beyond "
                                      + std::to_string(kMaxRank) + ", the largest rank a job may have");
            return;
        }
        // An implausible world size is not a size: the report's implausible_world_size finding
        // names it (buildJobReport), nothing here counts up to it.
        if (plausibleWorldSize(c.header.worldSize))
            layout_.worldSize = std::max(layout_.worldSize, c.header.worldSize);
        const std::int64_t rank = c.nameRank >= 0 ? c.nameRank : c.header.rank;
        if (rank < 0) {
            layout_.errors.push_back(c.path + ": cannot tell its rank (no rank number in the name, no distributedInfo.rank)");
            return;
        }
        if (wanted_ && !wanted_(rank))
            return;
        devices_[rank].push_back(std::move(c));
    }

    // Ranks claimed twice, and Kineto traces whose name and distributedInfo disagree.
    void findConflicts()
    {
        // The rank each Kineto trace declares, for naming the other side of a conflict.
        std::map<std::int64_t, std::vector<std::string>> declaredBy;
        for (const auto &[rank, claims] : devices_)
            for (const Claim &c : claims)
                if (c.header.rank >= 0)
                    declaredBy[c.header.rank].push_back(c.path);

        for (const auto &[rank, claims] : devices_) {
            if (claims.size() > 1) {
                std::string t = "rank " + std::to_string(rank) + " has more than one Kineto trace:";
                for (const Claim &c : claims)
                    t += " " + c.path;
                layout_.errors.push_back(t);
                conflicted_.insert(rank);
            }
            for (const Claim &c : claims) {
                if (c.nameRank < 0 || c.header.rank < 0 || c.header.rank == c.nameRank)
                    continue;
                std::string t = c.path + ": its name says rank " + std::to_string(c.nameRank)
                                + " but its distributedInfo.rank is " + std::to_string(c.header.rank);
                for (const std::string &other : declaredBy[c.header.rank])
                    if (other != c.path)
                        t += "; " + other + " is rank " + std::to_string(c.header.rank) + " too";
                layout_.errors.push_back(t);
                conflicted_.insert(rank);
            }
        }
        for (const auto &[rank, claims] : hosts_)
            if (claims.size() > 1) {
                std::string t = "rank " + std::to_string(rank) + " has more than one host ET:";
                for (const Claim &c : claims)
                    t += " " + c.path;
                layout_.errors.push_back(t);
                conflicted_.insert(rank);
            }
    }

    // Each rank without a conflict: its files, or an error when it has a host ET alone.
    void assemble()
    {
        for (const auto &[rank, claims] : devices_)
            ranks_.insert(rank);
        for (const auto &[rank, claims] : hosts_)
            ranks_.insert(rank);
        for (std::int64_t rank : ranks_) {
            if (conflicted_.count(rank))
                continue;
            RankFiles rf;
            rf.rank = rank;
            if (auto it = hosts_.find(rank); it != hosts_.end()) {
                rf.host = it->second.front().path;
                rf.hostFormat = it->second.front().format;
            }
            if (auto it = devices_.find(rank); it != devices_.end()) {
                rf.device = it->second.front().path;
                rf.deviceFormat = it->second.front().format;
                rf.declaredRank = it->second.front().header.rank;
                rf.worldSize = it->second.front().header.worldSize;
            }
            if (rf.device.empty()) {
                std::string t = rf.host + ": host ET of rank " + std::to_string(rank) + " has no Kineto trace beside it";
                if (auto it = skippedOf_.find(rank); it != skippedOf_.end())
                    for (const std::string &path : it->second)
                        t += " (" + path + " was skipped: see above)";
                layout_.errors.push_back(t);
                continue;
            }
            layout_.ranks.push_back(std::move(rf));
        }
    }

    // Ranks beyond the world size, and the ranks up to it (or to the largest found) with no files.
    void countMissing()
    {
        if (layout_.worldSize > 0) {
            for (std::int64_t r : ranks_)
                if (r >= layout_.worldSize)
                    layout_.errors.push_back("rank " + std::to_string(r) + " is outside the world size "
                                             + std::to_string(layout_.worldSize));
        }
        // Both bounds are at most kMaxWorldSize (plausible world sizes, plausible ranks).
        const std::int64_t upTo = layout_.worldSize > 0 ? layout_.worldSize : (ranks_.empty() ? 0 : *ranks_.rbegin() + 1);
        layout_.missing = missingRankRanges(ranks_, upTo);
        if (wanted_) {
            std::vector<std::int64_t> kept;
            for (const RankRange &range : layout_.missing)
                for (std::int64_t r = range.first; r <= range.last; ++r)
                    if (wanted_(r))
                        kept.push_back(r);
            layout_.missing = rankRanges(kept);
        }
    }

    const std::function<bool(std::int64_t)> &wanted_;
    JobLayout layout_;
    std::map<std::int64_t, std::vector<Claim>> hosts_, devices_;
    std::map<std::int64_t, std::vector<std::string>> skippedOf_; // by the rank in the name: named when that rank lacks a file
    std::set<std::int64_t> conflicted_, ranks_;
};

} // namespace

JobLayout discoverJob(const std::vector<std::string> &inputs, const std::function<bool(std::int64_t)> &wanted)
{
    return JobDiscovery(wanted).run(inputs);
}

} // namespace linkscope::core::job
