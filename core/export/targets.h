#pragma once
// The export-target table: every output Linkscope writes from a linked pair, one row each — its
// name (the key of its path in ExportRequest and of its size in ExportReport, and its `linkscope
// export` option), what the user is told about it (title, help, description), its default file
// suffix, whether it needs the host ET, an optional check run before anything is written (so that a
// refused graph leaves no partial export), and the writer. exportLinkedPair (export/exportrequest.h)
// builds the ET+ graph once (when there is a host ET), runs the checks of the requested targets, then
// their writers, in table order, with progress and cancel between stages. `linkscope export`'s
// options, the export dialog's rows and the default output names are made from this table.
//
// Adding a target (docs/architecture.md, "Adding an export target"): a folder core/export/<target>/
// with its writer and a function returning its row (export/perfetto/perfettotarget.h is one), and that
// row added in ExportTargetTable's constructor (core/export/targets.cpp); a test adds its own with
// exportTargets().add().
//
// Holds no protobuf type: the GUI includes it. What a check and a writer see, ExportContext, is in
// export/exporter.h.

#include "export/exportrequest.h"

#include <cstdint>
#include <list>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

struct ExportContext;

// The Browse… filter of the targets that write JSON.
inline constexpr std::string_view kJsonOutputFilter = "JSON (*.json *.json.gz);;All files (*)";

struct ExportTarget {
    std::string name;                 // "etplus", "et", "perfetto": `linkscope export --NAME PATH`
    std::vector<std::string> aliases; // other spellings of the option ("output-file")
    std::string title;                // "ET+ JSON": the dialog's row, messages
    std::string metavar;              // the option's value in --help: "OUT.json"
    std::string help;                 // the option's line in --help
    std::string description;          // the dialog's note: what the file is
    std::string defaultSuffix;        // ".etplus.json": the default output is <base><suffix> (export/outputnames.h)
    std::string fileFilter;           // the dialog's Browse… filter: "JSON (*.json *.json.gz)"
    bool needsHost = true;            // needs the host ET: not for a Kineto trace alone
    std::string checkStage;           // progress label of the check ("" when there is none)
    void (*check)(ExportContext &context) = nullptr; // throws ExportError to refuse the whole export
    std::string writeStage;                          // progress label of the write
    std::uint64_t (*write)(ExportContext &context,
                           const std::string &path) = nullptr; // bytes on disk; throws ExportError / WriteError
    // What `linkscope export` says after the size of what was written (", 5 host + 3 GPU nodes"); null: nothing.
    std::string (*details)(const ExportReport &report) = nullptr;
};

// The table: the built-in rows (core/export/targets.cpp) and any added at run time, in the order
// they are checked, written and shown. A row's address stays valid while it is registered. Adding or
// removing rows is not synchronised with exports: do it before (a test registers its toy target first).
class ExportTargetTable {
public:
    using Rows = std::list<ExportTarget>;
    Rows::const_iterator begin() const { return rows_.begin(); }
    Rows::const_iterator end() const { return rows_.end(); }
    std::size_t size() const { return rows_.size(); }
    // Appends `target`; throws std::invalid_argument when it has no writer or its name (or an alias)
    // is empty or taken.
    const ExportTarget &add(ExportTarget target);
    // Removes the target of that name (a test's own); false when there is none.
    bool remove(std::string_view name);
    // The target of that name or alias, or null.
    const ExportTarget *find(std::string_view nameOrAlias) const;

private:
    friend ExportTargetTable &exportTargets();
    ExportTargetTable();
    Rows rows_;
};

ExportTargetTable &exportTargets();

} // namespace linkscope::core
