#pragma once
// A toy export target, registered only by the tests that use it (tests/test_registry.cpp,
// tests/gui/test_exportdialog.cpp): proof that a new target is its own folder — a writer and its
// row — plus the row's registration, with nothing else in Linkscope naming it. A built-in target is
// the same folder under core/export/ (export/perfetto/) with its row in core/export/targets.cpp.
//
// The target: one line per GPU op, "<gpu op> <- <parent CPU op>", needing no host ET.

#include "export/exporter.h"
#include "export/targets.h"
#include "io/file/atomicfile.h"

#include <string>
#include <string_view>

namespace linkscope::test {

// "<gpu op> <- <parent>" per GPU link, in link order.
inline std::string toyLinksText(const core::DeviceTrace &device, const core::LinkSet &links)
{
    std::string text;
    for (std::size_t i = 0; i < links.gpuLinks.size(); ++i) {
        const core::GpuLink &link = links.gpuLinks[i];
        text += std::string(device.name(device.event(link.gpuEvent))) + " <- "
                + (link.parent.isNone() ? std::string("(none)") : std::string(device.name(device.event(link.parent)))) + '\n';
    }
    return text;
}

inline std::uint64_t writeToyTarget(core::ExportContext &c, const std::string &path)
{
    const std::string text = toyLinksText(c.device, c.links);
    core::writeFileAtomically(path, text);
    return text.size();
}

inline std::string toyDetails(const core::ExportReport &report)
{
    return ", toy of " + std::to_string(report.etPlus.gpuNodes) + " GPU nodes";
}

inline constexpr std::string_view kToyTarget = "toy";

// The row: what the table asks of a target.
inline core::ExportTarget toyTarget()
{
    core::ExportTarget target;
    target.name = std::string(kToyTarget);
    target.title = "Toy links";
    target.metavar = "OUT.txt";
    target.help = "each GPU op and its parent, one a line";
    target.description = "each GPU op and its parent CPU op, one a line";
    target.defaultSuffix = ".toy.txt";
    target.fileFilter = "Text (*.txt);;All files (*)";
    target.needsHost = false;
    target.writeStage = "writing the toy";
    target.write = writeToyTarget;
    target.details = toyDetails;
    return target;
}

// The row registered for the scope of one test.
class ToyTargetRow {
public:
    ToyTargetRow() { core::exportTargets().add(toyTarget()); }
    ~ToyTargetRow() { core::exportTargets().remove(kToyTarget); }
    ToyTargetRow(const ToyTargetRow &) = delete;
    ToyTargetRow &operator=(const ToyTargetRow &) = delete;
};

} // namespace linkscope::test
