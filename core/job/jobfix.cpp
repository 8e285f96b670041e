#include "job/jobfix.h"

#include "base/parallel.h"
#include "edit/correctionsession.h"
#include "edit/sidecar.h"
#include "io/file/atomicfile.h"
#include "pipeline/pairpipeline.h"

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

namespace linkscope::core::job {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> readText(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

RankFix fixRank(const RankFiles &files, FindingKind kind, const std::string &label, const JobFixOptions &options)
{
    RankFix r;
    r.rank = files.rank;
    r.sidecar = defaultSidecarPath(files.device);
    try {
        // The rank's own sidecar, fingerprinted, checked and applied by the pair pipeline, which
        // links once under the sidecar's policy when it has one, else the job's.
        PairRequest request;
        request.files = {files.host, files.device};
        request.link = options.link;
        request.policyGiven = false; // a rank's sidecar keeps its own policy
        request.sidecarUse = SidecarUse::Session;
        request.sidecar = r.sidecar;
        OpenedPair pair = openPair(request);
        r.before = readText(r.sidecar);
        if (!pair.found.inputsError.empty()) {
            r.error = pair.found.inputsError;
            return r;
        }
        const SidecarStatus &status = pair.found.status;
        if (status.state == SidecarState::Mismatch || status.state == SidecarState::Invalid) {
            r.error = r.sidecar + (status.state == SidecarState::Mismatch ? ": made from other inputs" : ": unreadable")
                      + (status.problems.empty() ? std::string() : " (" + status.problems.front() + ")") + "; not changed";
            return r;
        }
        CorrectionSession session;
        session.generator = options.generator;
        session.adopt(std::move(pair.found));
        session.setLinkOptions(pair.options.policy, pair.options.interThreadDeps);
        session.attach(pair.linked, *pair.device, pair.host.get());
        LogEntry entry = session.editor().applySuggestions(kind);
        r.edits = entry.edits.size();
        if (r.edits > 0) {
            entry.label = label;
            session.push(std::move(entry));
            if (!session.lastSaveError().empty()) {
                r.error = session.lastSaveError();
                r.edits = 0;
                return r;
            }
            r.after = readText(r.sidecar).value_or(std::string());
        }
        const auto counts = countFindingsByKind(session.working().findings);
        for (std::size_t k = 0; k < counts.size(); ++k)
            if (counts[k])
                r.findings[std::string(findingKindName(static_cast<FindingKind>(k)))] = counts[k];
    } catch (const Cancelled &) {
        throw;
    } catch (const std::exception &e) {
        r.error = e.what();
        r.edits = 0;
    }
    return r;
}

void writeText(const std::string &path, const std::string &text)
{
    AtomicFile file(path);
    file.write(text);
    file.commit();
}

// Replaces `expected` (nullopt: absent) by `wanted` (nullopt: remove) in `path`.
std::string swapText(std::int64_t rank, const std::string &path, const std::optional<std::string> &expected,
                     const std::optional<std::string> &wanted)
{
    const std::optional<std::string> now = readText(path);
    if (now != expected)
        return "rank " + std::to_string(rank) + ": " + path + " changed since the fix across ranks; left as it is";
    try {
        if (wanted)
            writeText(path, *wanted);
        else if (std::remove(path.c_str()) != 0)
            return "rank " + std::to_string(rank) + ": " + path + ": could not be removed";
    } catch (const std::exception &e) {
        return "rank " + std::to_string(rank) + ": " + e.what();
    }
    return {};
}

} // namespace

std::size_t JobFix::edits() const
{
    std::size_t n = 0;
    for (const RankFix &r : ranks)
        n += r.edits;
    return n;
}

std::size_t JobFix::changedRanks() const
{
    std::size_t n = 0;
    for (const RankFix &r : ranks)
        n += r.edits ? 1 : 0;
    return n;
}

JobFix applySuggestionsAcrossRanks(const std::vector<RankFiles> &ranks, FindingKind kind, const JobFixOptions &options)
{
    JobFix fix;
    fix.kind = kind;
    fix.label = "Across the job: apply the suggestion of every " + std::string(findingKindName(kind)) + " finding";
    fix.ranks.resize(ranks.size());
    try {
        forEachIndexOnThreads(ranks.size(), options.jobs, [&](std::size_t i) {
            RankFix r = fixRank(ranks[i], kind, fix.label, options);
            if (options.progress && !options.progress(r.rank))
                throw Cancelled();
            fix.ranks[i] = std::move(r);
        });
    } catch (...) {
        // Ranks already written stay consistent with the fix's record: put them back.
        undoJobFix(fix);
        throw;
    }
    return fix;
}

std::vector<std::string> undoJobFix(const JobFix &fix)
{
    std::vector<std::string> refused;
    for (const RankFix &r : fix.ranks)
        if (r.edits > 0)
            if (std::string m = swapText(r.rank, r.sidecar, r.after, r.before); !m.empty())
                refused.push_back(std::move(m));
    return refused;
}

std::vector<std::string> redoJobFix(const JobFix &fix)
{
    std::vector<std::string> refused;
    for (const RankFix &r : fix.ranks)
        if (r.edits > 0)
            if (std::string m = swapText(r.rank, r.sidecar, r.before, r.after); !m.empty())
                refused.push_back(std::move(m));
    return refused;
}

} // namespace linkscope::core::job
