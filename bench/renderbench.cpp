// linkscope-bench render: frame time of a full timeline repaint at 1920x1080 into a QImage, with a
// selected NCCL kernel and its edges drawn, fully zoomed out and at three zoom levels around it.
// Every frame rebuilds the cached geometry first (invalidateCache), so each is a full repaint.

#include "benchsupport.h"

#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "link/linker.h"

#include "eventselection.h"
#include "timelineview.h"
#include "tracedocument.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>

namespace linkscope::bench {

namespace {

struct FrameStats {
    double medianMs = 0;
    double minMs = 0;
    double maxMs = 0;
    double cachedMs = 0; // median repaint with the geometry cache warm (hover, selection changes)
    std::size_t edgesPainted = 0;
};

FrameStats measure(ui::TimelineView &view, int frames)
{
    QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
    std::vector<double> ms;
    for (int i = 0; i < frames; ++i) {
        view.invalidateCache();
        QPainter painter(&image);
        Stopwatch watch;
        view.paint(painter, image.rect());
        ms.push_back(1e3 * watch.seconds());
    }
    FrameStats s;
    std::sort(ms.begin(), ms.end());
    s.medianMs = ms[ms.size() / 2];
    s.minMs = ms.front();
    s.maxMs = ms.back();
    s.edgesPainted = view.paintedEdges().size();
    std::vector<double> cached;
    for (int i = 0; i < std::max(3, frames / 3); ++i) {
        QPainter painter(&image);
        Stopwatch watch;
        view.paint(painter, image.rect());
        cached.push_back(1e3 * watch.seconds());
    }
    std::sort(cached.begin(), cached.end());
    s.cachedMs = cached[cached.size() / 2];
    return s;
}

// A collective kernel from the middle of the trace (its launch, parent and stream edges are drawn);
// any linked GPU op if there is none.
std::uint32_t pickSelection(const core::DeviceTrace &device, const core::LinkSet &links)
{
    const std::size_t middle = links.gpuLinks.size() / 2;
    std::uint32_t fallback = core::kNoIndex;
    for (std::size_t i = middle; i < links.gpuLinks.size(); ++i) {
        const core::GpuLink &link = links.gpuLinks[i];
        if (link.parent == core::kNoIndex)
            continue;
        if (fallback == core::kNoIndex)
            fallback = link.gpuEvent;
        if (device.name(device.events[link.gpuEvent]).rfind("ncclDevKernel", 0) == 0)
            return link.gpuEvent;
    }
    return fallback != core::kNoIndex ? fallback : (links.gpuLinks.empty() ? 0 : links.gpuLinks.front().gpuEvent);
}

} // namespace

int runRender(Args args, std::ostream &out, std::ostream &err)
{
    const std::uint64_t events = std::strtoull(takeOption(args, "--events", "10000000").c_str(), nullptr, 10);
    const int frames = std::max(3, std::atoi(takeOption(args, "--frames", "15").c_str()));
    if (!(args.empty() || args.size() == 1)) {
        err << "usage: linkscope-bench render [KINETO] [--events N] [--frames N]\n";
        return 2;
    }
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    int argc = 1;
    char name[] = "linkscope-bench";
    char *argv[] = {name, nullptr};
    QApplication app(argc, argv);

    Stopwatch watch;
    std::shared_ptr<core::DeviceTrace> device;
    if (args.size() == 1) {
        device = std::make_shared<core::DeviceTrace>(core::readKinetoTrace(args[0]));
        out << "render: " << args[0];
    } else {
        // Kineto only: the timeline draws the device trace and its links; the host ET adds nothing
        // to a frame and would double the memory.
        gen::GeneratorOptions options;
        options.seed = 1;
        options.devices = 2;
        options.targetKinetoEvents = events;
        std::ostringstream host, kineto, truth;
        host.setstate(std::ios::badbit);
        truth.setstate(std::ios::badbit);
        gen::generatePair(options, host, kineto, truth);
        device = std::make_shared<core::DeviceTrace>(core::parseKinetoTrace(std::move(kineto).str(), "generated-kineto.json"));
        out << "render: generated Kineto trace";
    }
    const double loadSeconds = watch.seconds();
    watch.restart();
    auto links = std::make_shared<core::LinkSet>(core::linkTraces(*device, nullptr));
    const double linkSeconds = watch.seconds();
    watch.restart();
    auto doc = ui::TraceDocument::create(QString(), QString(), nullptr, device, links);
    const double documentSeconds = watch.seconds();
    out << std::fixed << std::setprecision(1) << ", " << device->events.size() << " events, " << links->gpuLinks.size()
        << " GPU ops, " << links->index.lanes.size() << " lanes (load " << loadSeconds << " s, link " << linkSeconds
        << " s, document " << documentSeconds << " s)\n";

    ui::EventSelection selection;
    ui::TimelineView view;
    view.resize(1920, 1080);
    view.setDocument(doc);
    view.setSelectionModel(&selection);
    const std::uint32_t selected = pickSelection(*device, *links);
    selection.select(selected);

    const core::Nanos start = doc->startTime();
    const core::Nanos end = doc->endTime();
    const core::DeviceEvent &sel = device->events[selected];
    const core::Nanos center = sel.ts + sel.dur / 2;
    struct Level {
        std::string label;
        core::Nanos span; // 0: fit all
    };
    const core::Nanos total = end - start;
    const std::vector<Level> levels = {
        {"fully zoomed out", 0},
        {"1/100 of the trace", std::max<core::Nanos>(total / 100, 1000)},
        {"1/10000 of the trace", std::max<core::Nanos>(total / 10000, 1000)},
        {"200 us around the selection", 200'000},
    };
    out << "frames of 1920x1080, " << frames << " per level, geometry rebuilt each frame; selection: "
        << device->name(sel) << " (event " << selected << ")\n";
    out << "  level                          span ms    median ms   min ms   max ms  cached ms  edges drawn\n";
    double worst = 0;
    for (const Level &level : levels) {
        if (level.span == 0)
            view.fitAll();
        else
            view.setVisibleRange(center - level.span / 2, center + level.span / 2);
        const FrameStats s = measure(view, frames);
        worst = std::max(worst, s.medianMs);
        out << "  " << std::left << std::setw(30) << level.label << std::right << std::setprecision(3) << std::setw(12)
            << (view.viewEnd() - view.viewStart()) / 1e6 << std::setprecision(2) << std::setw(12) << s.medianMs
            << std::setw(9) << s.minMs << std::setw(9) << s.maxMs << std::setw(11) << s.cachedMs << std::setw(13)
            << s.edgesPainted << '\n';
    }
    out << "target: median <= 16 ms at every level\n";
    printResult(out, "render_frame_median_worst", worst, "ms");
    return 0;
}

} // namespace linkscope::bench
