#pragma once
// A toy input format and a toy export target, registered only by the tests that use them
// (tests/test_registry.cpp, tests/gui/test_exportdialog.cpp): proof that a new format or target is
// one reader or writer plus one row, with nothing else in Linkscope naming it.
//
// The toy format: the line "TOYTRACE" and then a Kineto trace's JSON. No built-in row accepts it
// (it is not JSON); its reader strips the line and parses the rest.
// The toy target: one line per GPU op, "<gpu op> <- <parent CPU op>", needing no host ET.

#include "export/exporter.h"
#include "export/targets.h"
#include "io/file/atomicfile.h"
#include "io/file/inputfile.h"
#include "io/formats.h"
#include "io/tracereader.h"

#include "testsupport.h"

#include <atomic>
#include <string>
#include <string_view>

namespace linkscope::test {

inline constexpr std::string_view kToyHeader = "TOYTRACE\n";
inline constexpr std::string_view kToyKind = "toy";

// How many times the toy detector looked at a file that is a toy trace (tests count detections).
inline std::atomic<int> toyDetections{0};

inline bool isToyTrace(const core::FileHead &head)
{
    const bool toy = head.prefix(kToyHeader.size()) == kToyHeader;
    toyDetections += toy ? 1 : 0;
    return toy;
}

inline core::DeviceTrace readToyTrace(const std::string &path, const core::ProgressFn &progress)
{
    core::FileIdentity identity;
    std::string text = core::io::readWholeInputFile(path, &identity);
    if (!std::string_view(text).starts_with(kToyHeader))
        throw core::LoadError(path, 0, "not a toy trace: it does not start with TOYTRACE");
    text.erase(0, kToyHeader.size());
    core::DeviceTrace trace = core::parseKinetoTrace(std::move(text), path, progress);
    trace.path = path;
    trace.sourceIdentity = identity; // the file read, as a sidecar's fingerprint check needs it
    return trace;
}

inline core::InputFormat toyFormat()
{
    core::InputFormat row;
    row.kind = std::string(kToyKind);
    row.role = core::TraceRole::Device;
    row.name = "toy trace";
    row.detect = isToyTrace;
    row.readDevice = readToyTrace;
    return row;
}

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

// Registers both for the scope of one test.
class ToyRegistration {
public:
    ToyRegistration()
    {
        core::inputFormats().add(toyFormat());
        core::exportTargets().add(toyTarget());
    }
    ~ToyRegistration()
    {
        core::inputFormats().remove(kToyKind);
        core::exportTargets().remove(kToyTarget);
    }
    ToyRegistration(const ToyRegistration &) = delete;
    ToyRegistration &operator=(const ToyRegistration &) = delete;
};

// A toy trace made of a Kineto trace: the header line, then its text.
inline void writeToyTrace(const std::string &kinetoPath, const std::string &toyPath)
{
    core::writeFileAtomically(toyPath, std::string(kToyHeader) + readFile(kinetoPath));
}

} // namespace linkscope::test
