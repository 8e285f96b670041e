#pragma once
// The pair pipeline: from two file names to a loaded, indexed, linked, corrected and diagnosed pair,
// in one call, with progress and cancel. The GUI loader, `linkscope link`, `linkscope export`,
// linkscope-bench and `linkscope job` (once per rank) all open pairs through it, so they cannot
// disagree about which file is which, how the sidecar is checked or what is linked.
//
// Stages (docs/architecture.md, "Stages"): resolve (which file is the host ET, by content) → load
// (host and device in parallel, readers from the input-format table, io/formats.h) → index → link
// (under a policy) → correct (a sidecar's log) → diagnose. Every result is immutable and held by
// shared_ptr<const …>, so a relink or a correction shares what it does not change.

#include "edit/correction.h"
#include "edit/correctionsession.h"
#include "edit/sidecar.h"
#include "io/formats.h"
#include "link/linkset.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

enum class PairStage : std::uint8_t { HostEt, Device, Index, Link, Corrections, Diagnose };
inline constexpr int kPairStageCount = static_cast<int>(PairStage::Diagnose) + 1;
std::string_view pairStageName(PairStage stage); // "host ET", "device trace", "index", ...

// Progress of one stage in that stage's units (bytes for the loads). Return false to cancel: the
// pipeline then throws Cancelled. Called from two threads at once while host and device load.
using PairProgressFn = std::function<bool(PairStage stage, std::uint64_t done, std::uint64_t total)>;

struct PairFiles {
    std::string host; // empty: a device trace alone
    std::string device;
    // The input-format rows the files were detected as (io/formats.h), so that each file is
    // detected once: null when not detected yet (the load stage detects it then). After openPair,
    // deviceFormat is the row that read the device trace (what names the files made from it,
    // export/outputnames.h).
    const InputFormat *hostFormat = nullptr;
    const InputFormat *deviceFormat = nullptr;
};

// Which of two files is the host trace and which the device trace, by content (the input-format
// table's roles, io/formats.h), in either order; `second` may be empty (a device trace alone). The
// result carries the rows detected. Throws LoadError when the only file is a host trace, or a file
// cannot be opened.
PairFiles resolvePairFiles(const std::string &first, const std::string &second);

// How openPair takes a sidecar.
//  Command (`link`, `export`, `job`): `sidecar` names it (empty: none); one that cannot be read is an
//   error, and its link options are used (unless policyGiven) whether or not it matches the inputs.
//  Session (the GUI, a rank pane, a fix across ranks): the device trace's own sidecar
//   (defaultSidecarPath) unless `sidecar` names another, whether or not it exists; one that cannot
//   be read or was made from other inputs is noted in OpenedPair::found, not thrown, and the pair
//   is linked as asked; the inputs are always fingerprinted (a session's first save records them).
enum class SidecarUse : std::uint8_t { Command, Session };

struct PairRequest {
    PairFiles files;
    bool resolveOrder = false; // files may be in either order: resolvePairFiles() first
    LinkOptions link;          // its `progress` is not used: see `progress` below
    bool policyGiven = true;   // false: a sidecar's policy (and inter-thread setting) is used
    std::string sidecar;       // corrections sidecar to apply; empty: none
    bool forceSidecar = false; // apply it even when it was made from other inputs
    SidecarUse sidecarUse = SidecarUse::Command;
    PairProgressFn progress;     // optional
    bool allowTruncated = false; // read a truncated trace up to its cut (io/formats.h LoadOptions)
};

struct OpenedPair {
    PairFiles files;
    std::shared_ptr<const HostTrace> host; // null for a device trace alone
    std::shared_ptr<const DeviceTrace> device;
    std::shared_ptr<const TraceIndex> index; // the index stage's: shared by every relink and correction
    LinkOptions options;                     // what was linked under (a sidecar's policy included)
    std::shared_ptr<const LinkSet> linked;   // the linker's links and findings
    std::shared_ptr<const LinkSet> links;    // after the sidecar's corrections (== linked without one)

    // The sidecar, when one was requested.
    std::optional<Sidecar> sidecar;
    InputCheck sidecarCheck;     // its fingerprints against these inputs
    bool sidecarApplied = false; // matched (or forced) and applied
    ApplyResult corrections;     // what each of its edits did
    // The sidecar as found, read and checked (its fingerprints taken): what a CorrectionSession
    // starts from (adopt). Always filled under SidecarUse::Session.
    SidecarFound found;
    // The readers' recoverable problems are in host->warnings and device->warnings, the linker's in
    // links->warnings.
};

// Runs every stage. Throws LoadError (a file named, with the position), Cancelled, or the sidecar's
// LoadError (SidecarUse::Command). A sidecar made from other inputs is not applied unless forced:
// sidecarApplied is then false and sidecarCheck says why; the links are the linker's. The pair is
// linked once, under the sidecar's policy when it is used (policyGiven false), before the
// sidecar's log is applied: never linked, then relinked under the sidecar's policy. (Under
// SidecarUse::Session a sidecar of other inputs costs a second link, under the policy asked.)
OpenedPair openPair(const PairRequest &request);

// Links the loaded traces again under other options (the readers' results and the index are reused).
std::shared_ptr<const LinkSet> relinkPair(const OpenedPair &pair, const LinkOptions &options,
                                          const PairProgressFn &progress = {});
// The link and diagnose stages over an index of `device` (indexTrace). The result shares the index.
std::shared_ptr<const LinkSet> linkPair(const DeviceTrace &device, const HostTrace *host, std::shared_ptr<const TraceIndex> index,
                                        const LinkOptions &options, const PairProgressFn &progress = {});
// Applies a correction log to linked links: a new link result sharing everything the log did not
// change (the chunks of GPU links, edges and findings it touched are copied, nothing else).
std::shared_ptr<const LinkSet> correctLinks(const std::shared_ptr<const LinkSet> &linked, const CorrectionLog &log,
                                            const DeviceTrace &device, const HostTrace *host, ApplyResult *outcomes = nullptr);

} // namespace linkscope::core
