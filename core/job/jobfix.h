#pragma once
// One correction across the ranks of a job: "apply the suggestion of every finding of this kind on
// every rank" (e.g. attach every NCCL kernel to its enclosing nccl:* op, not record_param_comms),
// written to each rank's own corrections sidecar as one log entry, and undone (or redone) as one
// step over the whole job. Each rank is opened through the pair pipeline with its sidecar, the
// entry is built by LinkEditor::applySuggestions (links already where the suggestion says are
// skipped, so nothing is a no-op edit), and the sidecar is saved through a CorrectionSession (the
// GUI's and CLI's path: fingerprints checked, atomic write). A rank whose sidecar was made from
// other inputs, or cannot be read, is left alone and says why.
//
// Undo and redo never overwrite what they did not write: each rank's sidecar must still hold the
// text this step left (undo) or found (redo), else that rank is refused with a message.

#include "job/discovery.h"
#include "link/finding.h"
#include "link/linkset.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace linkscope::core::job {

struct RankFix {
    std::int64_t rank = -1;
    std::string sidecar;                         // the rank's sidecar path
    std::size_t edits = 0;                       // re-parents written (0: the rank was not changed)
    std::optional<std::string> before;           // the sidecar's text before (nullopt: there was none)
    std::string after;                           // its text after (when edits > 0)
    std::map<std::string, std::size_t> findings; // link finding kind → count, after the fix
    std::string error;                           // why the rank was not changed
};

struct JobFix {
    FindingKind kind = FindingKind::PolicyDisagreement;
    std::string label;
    std::vector<RankFix> ranks; // rank order
    std::size_t edits() const;
    std::size_t changedRanks() const;
};

struct JobFixOptions {
    LinkOptions link;                                // policy when a rank has no sidecar
    int jobs = 1;                                    // ranks at the same time
    std::string generator = "linkscope";             // recorded in the sidecars
    std::function<bool(std::int64_t rank)> progress; // per rank done; false cancels (throws Cancelled)
};

// Applies the suggestions of every `kind` finding on every rank. Never throws for a rank's bad
// input (RankFix::error); throws Cancelled.
JobFix applySuggestionsAcrossRanks(const std::vector<RankFiles> &ranks, FindingKind kind, const JobFixOptions &options);

// Puts back each changed rank's sidecar as it was before (removes the ones the fix created) /
// writes the fixed ones again. Returns one message per rank refused (its sidecar changed since).
std::vector<std::string> undoJobFix(const JobFix &fix);
std::vector<std::string> redoJobFix(const JobFix &fix);

} // namespace linkscope::core::job
