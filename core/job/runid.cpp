#include "job/runid.h"

#include "edit/sha256.h"
#include "io/json/boundedjson.h"
#include "job/summaryrun.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

namespace linkscope::core::job {

namespace fs = std::filesystem;

std::optional<JobRunId> JobRunId::fromJson(const nlohmann::json &j)
{
    if (!j.is_object())
        return std::nullopt;
    const auto id = j.find("id");
    if (id == j.end() || !id->is_string() || id->get_ref<const std::string &>().empty())
        return std::nullopt;
    JobRunId run;
    run.id = id->get<std::string>();
    if (const auto started = j.find("started"); started != j.end() && started->is_string())
        run.started = started->get<std::string>();
    return run;
}

JobRunId newJobRunId()
{
    std::random_device device;
    JobRunId run;
    char hex[9];
    for (int i = 0; i < 4; ++i) {
        std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(device()));
        run.id += hex;
    }
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    run.started = text;
    return run;
}

namespace {

// Size and head_tail_crc32 (job/summaryrun.h): what a copy keeps and another run's file does not.
nlohmann::json cheapPrint(const std::string &path)
{
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    const auto crc = ec ? std::nullopt : headTailCrc32(path);
    if (!crc)
        return nullptr;
    return {{"size", size}, {"head_tail_crc32", *crc}};
}

nlohmann::json fullPrint(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return nullptr;
    std::ostringstream text;
    text << in.rdbuf();
    return {{"size", text.str().size()}, {"sha256", sha256Hex(text.str())}};
}

std::optional<nlohmann::json> readJson(const fs::path &path)
{
    try {
        return io::readBoundedJsonFile(path.string());
    } catch (const std::exception &) {
        return std::nullopt; // the reader that needs it says what is wrong
    }
}

const nlohmann::json *member(const nlohmann::json &j, const char *key)
{
    if (!j.is_object())
        return nullptr;
    const auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
}

// "<prefix>.<rank>.<tail>" → rank; nullopt for other names.
std::optional<std::string> rankOf(const std::string &name, const std::string &prefix, const std::string &tail)
{
    if (name.size() <= prefix.size() + 1 + tail.size() || !name.starts_with(prefix + ".") || !name.ends_with(tail))
        return std::nullopt;
    const std::string rank = name.substr(prefix.size() + 1, name.size() - prefix.size() - 1 - tail.size());
    if (rank.empty() || !std::all_of(rank.begin(), rank.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    return rank;
}

} // namespace

void recordWrittenEt(nlohmann::json &run, const std::string &path)
{
    if (run.is_object())
        run["et_written"] = cheapPrint(path);
}

void recordJobOutputs(nlohmann::json &report, const std::string &commGroupPath, const std::string &networkPath)
{
    nlohmann::json *run = report.is_object() && report.contains("job_run") ? &report["job_run"] : nullptr;
    if (!run || !run->is_object())
        return;
    std::error_code ec;
    (*run)["comm_group.json"] = fullPrint(commGroupPath);
    if (fs::exists(networkPath, ec))
        (*run)["network.yml"] = fullPrint(networkPath);
}

std::string FolderRuns::message() const
{
    if (!mixed())
        return {};
    constexpr std::size_t kListed = 6;
    std::string text = "these files come from " + std::string(runs.size() == 2 ? "two" : std::to_string(runs.size())) + " runs (";
    char label = 'A';
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const Run &run = runs[r];
        text += r ? "; " : "";
        if (run.id.empty())
            text += "another run, not recorded";
        else
            text += std::string("run ") + label++ + " " + run.id + (run.started.empty() ? "" : " started " + run.started);
        text += ": ";
        for (std::size_t f = 0; f < run.files.size() && f < kListed; ++f)
            text += (f ? ", " : "") + run.files[f];
        if (run.files.size() > kListed)
            text += " and " + std::to_string(run.files.size() - kListed) + " more";
    }
    return text + "); run linkscope job again into an empty folder";
}

FolderRuns checkFolderRuns(const std::string &dir, const std::string &prefix)
{
    std::map<std::string, FolderRuns::Run> byId; // "" : files no recorded run wrote
    std::map<std::string, std::string> alias;    // a merged report's from_runs → the report's run
    auto add = [&](const JobRunId &run, const std::string &file) {
        const auto a = alias.find(run.id);
        FolderRuns::Run &r = byId[a == alias.end() ? run.id : a->second];
        r.id = a == alias.end() ? run.id : a->second;
        if (r.started.empty())
            r.started = run.started;
        r.files.push_back(file);
    };
    auto addOther = [&](const std::string &file) { byId[""].files.push_back(file); };

    std::error_code ec;
    const fs::path folder(dir);
    // The report first: a merge's report vouches for the runs of the summaries it read.
    std::optional<JobRunId> reportRun;
    nlohmann::json reportJobRun;
    if (const auto report = fs::is_regular_file(folder / "job-report.json", ec) ? readJson(folder / "job-report.json")
                                                                                : std::nullopt) {
        if (const nlohmann::json *j = member(*report, "job_run")) {
            reportJobRun = *j;
            reportRun = JobRunId::fromJson(*j);
        }
        if (reportRun)
            if (const nlohmann::json *from = member(reportJobRun, "from_runs"); from && from->is_array())
                for (const auto &id : *from)
                    if (id.is_string())
                        alias[id.get<std::string>()] = reportRun->id;
    }
    if (reportRun) {
        add(*reportRun, "job-report.json");
        for (const char *name : {"comm_group.json", "network.yml"}) {
            const nlohmann::json *recorded = member(reportJobRun, name);
            if (!recorded || !fs::is_regular_file(folder / name, ec))
                continue;
            if (*recorded == fullPrint((folder / name).string()))
                add(*reportRun, name);
            else
                addOther(name);
        }
    }

    std::vector<std::string> names;
    for (const auto &entry : fs::directory_iterator(folder, ec))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    bool anyId = reportRun.has_value();
    std::map<std::string, bool> etVouched; // rank → its summary's run recorded its .et
    for (const std::string &name : names) {
        const auto rank = rankOf(name, prefix, ".summary.json");
        if (!rank || !fs::is_regular_file(folder / name, ec))
            continue;
        const auto summary = readJson(folder / name);
        const nlohmann::json *run = summary ? member(*summary, "run") : nullptr;
        const auto id = run ? JobRunId::fromJson(member(*run, "job_run") ? (*run)["job_run"] : nlohmann::json()) : std::nullopt;
        if (!id)
            continue;
        anyId = true;
        add(*id, name);
        const std::string et = prefix + "." + *rank + ".et";
        if (!fs::is_regular_file(folder / et, ec))
            continue;
        const nlohmann::json *written = member(*run, "et_written");
        if (written && *written == cheapPrint((folder / et).string()))
            add(*id, et);
        else
            addOther(et); // not the .et this summary's run wrote (or it wrote none)
        etVouched[*rank] = true;
    }
    if (anyId)
        for (const std::string &name : names)
            if (const auto rank = rankOf(name, prefix, ".et"); rank && !etVouched.count(*rank))
                addOther(name); // no summary of a recorded run says it wrote it

    FolderRuns out;
    for (auto &[id, run] : byId)
        out.runs.push_back(std::move(run));
    // Oldest first; the files no run recorded last.
    std::sort(out.runs.begin(), out.runs.end(), [](const FolderRuns::Run &a, const FolderRuns::Run &b) {
        if (a.id.empty() != b.id.empty())
            return b.id.empty();
        return a.started != b.started ? a.started < b.started : a.id < b.id;
    });
    return out;
}

} // namespace linkscope::core::job
