// libFuzzer target: any bytes as a corrections sidecar. Reading must either give a Sidecar or
// throw LoadError naming the file (never another exception: nlohmann's out_of_range once took the
// GUI down). A sidecar that reads is applied to the bundled sample pair (resources/samples) without
// crashing, with an outcome for every edit, and round-trips: its text reads back to the same text.
#include "edit/correction.h"
#include "edit/sidecar.h"
#include "io/tracereader.h"
#include "link/linker.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

using namespace linkscope::core;

namespace {

struct Sample {
    HostTrace host;
    DeviceTrace device;
    LinkSet links;
};

const Sample &sample()
{
    static const std::unique_ptr<Sample> s = [] {
        auto out = std::make_unique<Sample>();
        out->host = readHostTrace(LINKSCOPE_SOURCE_DIR "/resources/samples/sample_host_et.json");
        out->device = readKinetoTrace(LINKSCOPE_SOURCE_DIR "/resources/samples/sample_kineto.json");
        out->links = linkTraces(out->device, &out->host, LinkOptions{});
        return out;
    }();
    return *s;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const Sample &pair = sample();
    const std::string text(reinterpret_cast<const char *>(data), size);
    Sidecar sidecar;
    try {
        sidecar = parseSidecar(text, "fuzz.linkscope.json");
    } catch (const LoadError &e) {
        if (e.file() != "fuzz.linkscope.json" || e.detail().empty())
            std::abort();
        return 0;
    }
    // Free text is bounded where it is read (issue 42, N7): a longer text is cut, with a warning.
    bool cut = false;
    for (const Bookmark &b : sidecar.bookmarks)
        cut = cut || b.name.size() > kSidecarTextLimit;
    for (const LogEntry &entry : sidecar.log.entries) {
        cut = cut || entry.label.size() > kSidecarTextLimit;
        for (const Edit &edit : entry.edits)
            cut = cut || edit.note.size() > kSidecarTextLimit;
    }
    if (cut)
        std::abort();
    // Round trip.
    const std::string written = sidecarText(sidecar);
    try {
        if (sidecarText(parseSidecar(written, "roundtrip.linkscope.json")) != written)
            std::abort();
    } catch (const LoadError &) {
        std::abort();
    }
    // Applied to the sample pair, as export --corrections and the GUI do.
    LinkSet links = pair.links;
    const ApplyResult applied = applyCorrections(sidecar.log, links, pair.device, &pair.host);
    std::size_t edits = 0;
    for (const LogEntry &entry : sidecar.log.entries)
        edits += entry.edits.size();
    std::size_t outcomes = applied.count(EditStatus::Applied) + applied.count(EditStatus::Unchanged)
                           + applied.count(EditStatus::Stale) + applied.count(EditStatus::Rejected);
    if (outcomes != edits)
        std::abort();
    (void)checkInputs(sidecar, sidecar.device, sidecar.host);
    return 0;
}
