#include "job/summaryrun.h"

#include "edit/inputfingerprint.h"
#include "io/file/inputfile.h"

#include <zlib.h>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>

#ifndef LINKSCOPE_VERSION
#define LINKSCOPE_VERSION "unknown"
#endif

namespace linkscope::core::job {

namespace fs = std::filesystem;

std::string toolVersion() { return std::string("linkscope ") + LINKSCOPE_VERSION; }

std::optional<std::uint32_t> headTailCrc32(const std::string &path)
{
    try {
        const io::InputFile file(path); // a regular file only: never waits on a FIFO
        const std::uint64_t size = file.size();
        std::string bytes;
        auto readAt = [&](std::uint64_t offset, std::uint64_t length) {
            const std::size_t at = bytes.size();
            bytes.resize(at + length);
            std::size_t done = 0;
            while (done < length) {
                const ssize_t n = ::pread(file.fd(), bytes.data() + at + done, length - done, static_cast<off_t>(offset + done));
                if (n <= 0)
                    return false;
                done += static_cast<std::size_t>(n);
            }
            return true;
        };
        const bool ok = size <= 2 * kSampleBytes ? readAt(0, size)
                                                 : readAt(0, kSampleBytes) && readAt(size - kSampleBytes, kSampleBytes);
        if (!ok)
            return std::nullopt;
        uLong crc = crc32(0L, Z_NULL, 0);
        crc = crc32_z(crc, reinterpret_cast<const Bytef *>(bytes.data()), bytes.size());
        return static_cast<std::uint32_t>(crc);
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

nlohmann::json runIdentity(const std::vector<RunInput> &inputs, std::string_view target, std::string_view policy)
{
    nlohmann::json list = nlohmann::json::array();
    for (const RunInput &in : inputs) {
        if (in.path.empty())
            continue;
        const FileIdentity unknown;
        const FileIdentity &loaded = in.loaded ? *in.loaded : unknown;
        const FileFingerprint fp = fingerprintLoadedFile(in.path, loaded);
        const FileIdentity now = io::identityOfPath(in.path);
        std::error_code ec;
        const fs::path absolute = fs::absolute(in.path, ec);
        nlohmann::json entry = {{"role", in.role},
                                {"path", (ec ? fs::path(in.path) : absolute).lexically_normal().string()},
                                {"size", fp.size},
                                {"sha256", fp.sha256},
                                {"mtime_ns", now.mtimeNs}};
        if (const auto sample = headTailCrc32(in.path))
            entry["head_tail_crc32"] = *sample;
        list.push_back(std::move(entry));
    }
    return {
        {"tool", toolVersion()}, {"target", std::string(target)}, {"policy", std::string(policy)}, {"inputs", std::move(list)}};
}

namespace {

std::string summaryName(const RankSummary &s)
{
    return s.file.empty() ? "the summary of rank " + std::to_string(s.rank) : s.file;
}

// Why the summary's input `in` is not the file at its path now; empty when it is. `absent` is set
// when there is no file there to check, `unsampled` when the summary records no head_tail_crc32
// (an older Linkscope: a change that keeps the size and the modification time goes unseen).
std::string changeOf(const nlohmann::json &in, bool &absent, bool &unsampled)
{
    absent = false;
    unsampled = false;
    if (!in.is_object() || !in.contains("path") || !in["path"].is_string())
        return {};
    const std::string path = in["path"].get<std::string>();
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(path, ec)) && !fs::exists(path, ec)) {
        absent = true;
        return {};
    }
    const std::uint64_t size = in.value("size", std::uint64_t{0});
    const std::int64_t mtime = in.value("mtime_ns", std::int64_t{0});
    const std::string sha = in.value("sha256", std::string());
    const FileIdentity now = io::identityOfPath(path);
    if (now.known && now.size != size)
        return path + " is " + std::to_string(now.size) + " bytes now, " + std::to_string(size) + " when the summary was made";
    // The first and last 64 KiB, read whatever the modification time says (a copy with `touch -r`,
    // a tool that keeps it): cheap, and what an edit of a header or a cut-and-append changes.
    if (const auto recorded = in.find("head_tail_crc32"); recorded != in.end() && recorded->is_number_unsigned()) {
        const auto sample = headTailCrc32(path);
        if (!sample)
            return path + " cannot be checked: it cannot be read as a regular file";
        if (*sample != recorded->get<std::uint64_t>())
            return path + " has other content now (its first and last 64 KiB differ from when the summary was made, same size)";
    } else {
        unsampled = true;
    }
    if (now.known && now.mtimeNs == mtime)
        return {};
    try {
        const FileFingerprint fp = fingerprintLoadedFile(path, FileIdentity{});
        if (fp.size != size || fp.sha256 != sha)
            return path + " has other content now (SHA-256 " + fp.sha256.substr(0, 12) + "…, " + sha.substr(0, 12)
                   + "… when the summary was made)";
    } catch (const std::exception &e) {
        return path + " cannot be checked: " + e.what();
    }
    return {};
}

std::string runKey(const nlohmann::json &run)
{
    return run.value("tool", std::string()) + ", --target " + run.value("target", std::string()) + ", policy "
           + run.value("policy", std::string());
}

} // namespace

SummaryRunCheck checkSummaryRuns(std::vector<RankSummary> &summaries)
{
    SummaryRunCheck out;
    std::vector<std::int64_t> unknownRanks;
    std::vector<std::string> unknownFiles;
    std::map<std::string, std::vector<const RankSummary *>> byRun; // run key → summaries
    std::size_t absent = 0, unsampled = 0;
    std::string firstAbsent, firstUnsampled;
    for (RankSummary &s : summaries) {
        if (!s.run.is_object()) {
            unknownRanks.push_back(s.rank);
            unknownFiles.push_back(summaryName(s));
            continue;
        }
        byRun[runKey(s.run)].push_back(&s);
        const auto inputs = s.run.find("inputs");
        if (inputs == s.run.end() || !inputs->is_array())
            continue;
        for (const auto &in : *inputs) {
            bool gone = false, noSample = false;
            const std::string change = changeOf(in, gone, noSample);
            if (noSample && unsampled++ == 0)
                firstUnsampled = summaryName(s);
            if (gone) {
                if (absent++ == 0)
                    firstAbsent = in.value("path", std::string());
                continue;
            }
            if (!change.empty()) {
                s.stale = summaryName(s) + " was made from other inputs than the traces on disk now: " + change
                          + "; it is left out (run the shard of rank " + std::to_string(s.rank) + " again)";
                break;
            }
        }
    }
    if (!unknownRanks.empty()) {
        std::string list;
        for (std::size_t k = 0; k < unknownFiles.size() && k < 5; ++k)
            list += (k ? ", " : "") + unknownFiles[k];
        if (unknownFiles.size() > 5)
            list += " and " + std::to_string(unknownFiles.size() - 5) + " more";
        std::sort(unknownRanks.begin(), unknownRanks.end());
        out.findings.push_back(
            {"unknown_run", Severity::Warning, "", -1, unknownRanks,
             "unknown run: " + list
                 + " record no inputs (written by an older Linkscope): not checked against the traces or the other "
                   "summaries"});
    }
    if (byRun.size() > 1) {
        std::string what;
        std::set<std::int64_t> ranks;
        for (const auto &[key, list] : byRun) {
            what += (what.empty() ? "" : "; ") + std::to_string(list.size()) + " made by " + key + " ("
                    + summaryName(*list.front()) + ")";
            for (const RankSummary *s : list)
                ranks.insert(s->rank);
        }
        out.findings.push_back({"mixed_runs", Severity::Warning, "", -1, std::vector<std::int64_t>(ranks.begin(), ranks.end()),
                                "the summaries come from different runs: " + what});
    }
    if (unsampled)
        out.notes.push_back(
            std::to_string(unsampled) + " input(s) of summaries without a content sample (first: " + firstUnsampled
            + ", an older Linkscope) were checked by size and modification time only: a change that keeps both is not "
              "seen (run their shards again to record one)");
    if (absent)
        out.notes.push_back(std::to_string(absent) + " input file(s) the summaries name are not on disk here (first: "
                            + firstAbsent + "): those summaries were not checked against their traces");
    return out;
}

} // namespace linkscope::core::job
