#pragma once
// The export-target table: every output Linkscope writes from a linked pair, one row each — where the
// request names its output, an optional check run before anything is written (so that a refused
// graph leaves no partial export), and the writer. exportLinkedPair (export/exporter.h) builds the
// ET+ graph once, runs the checks of the requested targets, then their writers, in table order,
// with progress and cancel between stages.
//
// Adding a target (docs/architecture.md, "Adding an export target"): a writer in a new file under
// core/export/, one row in core/export/targets.cpp, a path field in ExportRequest and its option in
// app/commands/export.cpp.

#include "export/exporter.h"

#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

// What a target's check and writer see. `plan` carries what a check prepared for its writer.
struct ExportContext {
    const HostTrace &host;
    const DeviceTrace &device;
    const LinkSet &links;
    const ExportRequest &request;
    const EtPlusGraph &graph;
    ExportReport &report;
    ChakraPlan chakraPlan; // the .et target's check fills it, its writer writes it
};

struct ExportTarget {
    std::string_view name;                                          // "etplus", "et", "perfetto"
    std::string ExportRequest::*path;                               // the request's output path for it; empty: not requested
    std::string_view checkStage;                                    // progress label of the check ("" when there is none)
    void (*check)(ExportContext &context);                          // throws ExportError to refuse the whole export
    std::string_view writeStage;                                    // progress label of the write
    void (*write)(ExportContext &context, const std::string &path); // throws ExportError / WriteError
};

// Every target, in the order they are checked and written.
const std::vector<ExportTarget> &exportTargets();

} // namespace linkscope::core
