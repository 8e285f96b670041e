// linkscope-bench render: frame time of a full timeline repaint at 1920x1080 into a QImage, with a
// selected NCCL kernel and its edges drawn, fully zoomed out and at three zoom levels around it.
// Every frame rebuilds the cached geometry first (invalidateCache), so each is a full repaint.
// With --edits N HOST_ET KINETO instead: the time from one correction (re-parent) until the main
// window's timeline shows it (runEditRefresh).

#include "benchsupport.h"

#include "gen/tracegenerator.h"
#include "io/formats.h"
#include "link/linker.h"

#include "ground/eventselection.h"
#include "ground/jobloader.h"
#include "ground/tracedocument.h"
#include "jobview/joboverview.h"
#include "review/correctioncontroller.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "timeline/timelineview.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
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
    s.edgesPainted = view.edgeOverlay().painted().size();
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
core::EventIndex pickSelection(const core::DeviceTrace &device, const core::LinkSet &links)
{
    const std::size_t middle = links.gpuLinks.size() / 2;
    core::EventIndex fallback;
    for (std::size_t i = middle; i < links.gpuLinks.size(); ++i) {
        const core::GpuLink &link = links.gpuLinks[i];
        if (link.parent.isNone())
            continue;
        if (fallback.isNone())
            fallback = link.gpuEvent;
        if (device.name(device.event(link.gpuEvent)).rfind("ncclDevKernel", 0) == 0)
            return link.gpuEvent;
    }
    return fallback.valid() ? fallback : (links.gpuLinks.empty() ? core::EventIndex(0) : links.gpuLinks.front().gpuEvent);
}

// Runs the event loop until `done` or `timeoutMs`; false on timeout.
template <typename Done>
bool spinUntil(Done done, int timeoutMs)
{
    Stopwatch watch;
    while (!done()) {
        if (watch.seconds() * 1e3 > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 5);
    }
    return true;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// `render --edits N HOST_ET KINETO`: one correction (a Ctrl+drag drop, i.e.
// CorrectionController::reparent) until the timeline shows it, through the real main window:
// the edit applied to the session and the sidecar saved (GUI thread), the corrected document built
// (background), shown (timeline, docks) and the timeline repainted at 1920x1080. The inputs are
// symlinked into a temporary directory so that the sidecar the edits write lands there, never
// beside the user's traces.
int runEditRefresh(const std::string &host, const std::string &kineto, int edits, std::ostream &out, std::ostream &err)
{
    QTemporaryDir dir;
    if (!dir.isValid()) {
        err << "render --edits: cannot create a temporary directory\n";
        return 1;
    }
    namespace fs = std::filesystem;
    const fs::path kinetoLink = fs::path(dir.path().toStdString()) / fs::path(kineto).filename();
    fs::create_symlink(fs::absolute(kineto), kinetoLink);
    fs::path hostLink;
    if (!host.empty()) {
        hostLink = fs::path(dir.path().toStdString()) / (std::string("host-") + fs::path(host).filename().string());
        fs::create_symlink(fs::absolute(host), hostLink);
    }

    ui::MainWindow window;
    window.resize(1920, 1080);
    window.show();
    ui::CorrectionController *controller = window.review()->controller();
    Stopwatch watch;
    window.openPair(QString::fromStdString(hostLink.string()), QString::fromStdString(kinetoLink.string()));
    if (!spinUntil([&] { return window.document() != nullptr; }, 30 * 60 * 1000)
        || !controller->waitUntilSettled(30 * 60 * 1000)) {
        err << "render --edits: the pair did not load\n";
        return 1;
    }
    const ui::DocumentPtr first = window.document();
    out << "render --edits: " << (host.empty() ? std::string() : host + " + ") << kineto << ", " << first->eventCount()
        << " events, " << first->links().gpuLinks.size() << " GPU ops, " << first->index().lanes.size()
        << " lanes (open + link + document " << std::fixed << std::setprecision(1) << watch.seconds() << " s)\n";

    // GPU ops spread over the trace, each re-parented to a candidate other than its parent.
    struct Edit {
        core::EventIndex gpu, parent;
    };
    std::vector<Edit> plan;
    const auto &links = first->links().gpuLinks;
    for (std::size_t k = 0; k < links.size() && static_cast<int>(plan.size()) < edits;
         k += std::max<std::size_t>(1, links.size() / (edits * 4))) {
        const core::GpuLink &link = links[(k + links.size() / 3) % links.size()];
        for (core::EventIndex candidate : controller->parentCandidates(link.gpuEvent))
            if (candidate != link.parent && controller->reparentProblem(link.gpuEvent, candidate).isEmpty()) {
                plan.push_back({link.gpuEvent, candidate});
                break;
            }
    }
    if (plan.empty()) {
        err << "render --edits: no GPU op has a second candidate parent\n";
        return 1;
    }

    // The stages alone, for reference, on the first planned re-parent: copying the links (GUI
    // thread, CorrectionController::publish), a full TraceDocument::create and the incremental
    // createWithLinks (background), showing the document (GUI thread: timeline and docks).
    {
        Stopwatch stage;
        auto edited = std::make_shared<core::LinkSet>(first->links());
        const double copyMs = stage.seconds() * 1e3;
        core::GpuLink &link = edited->gpuLinks.mutate(edited->gpuLinkOf[plan.front().gpu]);
        link.parent = plan.front().parent;
        link.rule = core::ParentRule::Manual;
        stage.restart();
        auto full = ui::TraceDocument::create(first->hostPath(), first->devicePath(), first->hostShared(), first->deviceShared(),
                                              edited);
        const double fullMs = stage.seconds() * 1e3;
        stage.restart();
        auto patched = ui::TraceDocument::createWithLinks(first, edited);
        const double patchedMs = stage.seconds() * 1e3;
        stage.restart();
        window.showCorrectedDocument(full);
        const double showMs = stage.seconds() * 1e3;
        window.showCorrectedDocument(first);
        out << "stages for one re-parent: copy links " << std::setprecision(1) << copyMs << " ms, full create " << fullMs
            << " ms, createWithLinks " << patchedMs << " ms, show " << showMs << " ms\n";
    }

    ui::TimelineView *timeline = window.timeline();
    timeline->state().setVisibleRange(first->startTime(), first->endTime());
    timeline->repaint();
    // Memory per edit: the peak RSS while the edit is applied, published and drawn, above the RSS
    // held just before it (what the edit copies or builds at once), and the RSS held after it.
    // Shared: of the shown document's chunked arrays (finding marks, edges, adjacency, time
    // orders), how many chunks the new one shares with it (TraceDocument::sharingWith).
    out << "  edit  GPU op      apply+save ms   until shown ms   repaint ms   total ms   peak +MB   held +MB   chunks shared\n";
    std::vector<double> totals, applies, shows, paints, peaks, helds;
    for (std::size_t i = 0; i < plan.size(); ++i) {
        const ui::DocumentPtr shownBefore = window.document();
        ui::DocumentPtr published;
        QMetaObject::Connection connection = QObject::connect(controller, &ui::CorrectionController::published,
                                                              [&](ui::DocumentPtr doc) { published = doc; });
        resetPeakRss();
        const std::uint64_t rssBefore = currentRssBytes();
        Stopwatch total;
        if (!controller->reparent(plan[i].gpu, plan[i].parent)) {
            err << "render --edits: edit " << i << " was refused\n";
            return 1;
        }
        const double apply = total.seconds() * 1e3;
        if (!spinUntil([&] { return published != nullptr; }, 10 * 60 * 1000)) {
            err << "render --edits: edit " << i << " was never shown\n";
            return 1;
        }
        QObject::disconnect(connection);
        const double shown = total.seconds() * 1e3;
        timeline->repaint(); // synchronous: the frame that shows the new edge
        const double all = total.seconds() * 1e3;
        const double peak = megabytes(peakRssBytes()) - megabytes(rssBefore);
        const double held = megabytes(currentRssBytes()) - megabytes(rssBefore);
        if (window.document()->gpuLink(plan[i].gpu)->parent != plan[i].parent) {
            err << "render --edits: edit " << i << " is not in the shown document\n";
            return 1;
        }
        applies.push_back(apply);
        shows.push_back(shown - apply);
        paints.push_back(all - shown);
        totals.push_back(all);
        peaks.push_back(peak);
        helds.push_back(held);
        out << "  " << std::setw(4) << i + 1 << "  " << std::setw(10) << plan[i].gpu.value << std::setprecision(1)
            << std::setw(17) << apply << std::setw(17) << shown - apply << std::setw(13) << all - shown << std::setw(11) << all
            << std::setw(11) << peak << std::setw(11) << held;
        const ui::TraceDocument::Sharing sharing = window.document()->sharingWith(*shownBefore);
        out << "   " << sharing.shared << " of " << sharing.total << '\n';
    }
    out << "  median" << std::setw(27) << median(applies) << std::setw(17) << median(shows) << std::setw(13) << median(paints)
        << std::setw(11) << median(totals) << std::setw(11) << median(peaks) << std::setw(11) << median(helds) << '\n';
    printResult(out, "edit_peak_rss_median", median(peaks), "MB");
    printResult(out, "edit_refresh_median", median(totals), "ms");
    return 0;
}

// `render --job [DIR] [--ranks N]`: the job overview (one row per rank) at 1920x1080: the time to
// open the job (every rank loaded, linked, summarised; nothing written) and the repaint median
// fully zoomed out, with a collective selected and matched across every rank, and zoomed to it.
int runJobRender(const std::string &dir, int ranks, int steps, int frames, std::ostream &out, std::ostream &err)
{
    QTemporaryDir tmp;
    std::string folder = dir;
    if (folder.empty()) {
        gen::GeneratorOptions o;
        o.seed = 3;
        o.steps = steps;
        o.worldSize = ranks;
        folder = (std::filesystem::path(tmp.path().toStdString()) / "job").string();
        Stopwatch gen;
        gen::generateJob(o, folder, false, 2);
        out << "render --job: generated " << ranks << " ranks of " << steps << " steps in " << std::fixed << std::setprecision(1)
            << gen.seconds() << " s\n";
    }
    ui::JobLoader loader;
    ui::JobPtr job;
    QString failure;
    QObject::connect(&loader, &ui::JobLoader::finished, [&](ui::JobPtr j) { job = std::move(j); });
    QObject::connect(&loader, &ui::JobLoader::failed, [&](const QString &m) { failure = m; });
    const std::uint64_t rssBefore = currentRssBytes();
    Stopwatch open;
    loader.open(QString::fromStdString(folder));
    if (!spinUntil([&] { return job || !failure.isEmpty(); }, 3'600'000) || !job) {
        err << "render --job: " << (failure.isEmpty() ? std::string("timed out") : failure.toStdString()) << '\n';
        return 1;
    }
    const double openSeconds = open.seconds();
    std::size_t calls = 0, intervals = 0;
    for (const auto &r : job->report.ranks) {
        calls += r.calls.size();
        if (r.overview)
            for (const auto &st : r.overview->streams)
                intervals += st.busy.size();
    }
    out << "render --job: " << folder << ", " << job->report.ranks.size() << " ranks, " << calls << " communication calls, "
        << intervals << " stream intervals; opened in " << std::setprecision(2) << openSeconds << " s, peak RSS " << std::fixed
        << std::setprecision(0) << megabytes(peakRssBytes()) << " MB (" << megabytes(currentRssBytes()) - megabytes(rssBefore)
        << " MB held after)\n";

    ui::JobOverview view;
    view.resize(1920, 1080);
    view.setJob(job);
    QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
    auto measureFrames = [&] {
        std::vector<double> ms;
        for (int i = 0; i < frames; ++i) {
            Stopwatch watch;
            view.render(&image);
            ms.push_back(1e3 * watch.seconds());
        }
        return median(ms);
    };
    out << "frames of 1920x1080, " << frames << " per level\n";
    view.frameAll();
    const double all = measureFrames();
    out << "  fully zoomed out                  " << std::setprecision(2) << all << " ms\n";
    // The group with the most members, its middle collective, selected on every rank.
    const core::job::GroupAlignment *widest = nullptr;
    for (const auto &g : job->report.alignments)
        if (!widest || g.members.size() > widest->members.size())
            widest = &g;
    double selected = 0, zoomed = 0;
    if (widest && widest->length > 0) {
        view.selectCollective(QString::fromStdString(widest->name), static_cast<qint64>(widest->length / 2), false);
        selected = measureFrames();
        out << "  a collective matched on " << widest->members.size() << " ranks  " << selected << " ms\n";
        view.selectCollective(QString::fromStdString(widest->name), static_cast<qint64>(widest->length / 2), true);
        zoomed = measureFrames();
        out << "  framed on that collective         " << zoomed << " ms\n";
    }
    printResult(out, "job_open_seconds", openSeconds, "s");
    printResult(out, "job_overview_repaint_median", std::max({all, selected, zoomed}), "ms");
    return 0;
}

} // namespace

int runRender(Args args, std::ostream &out, std::ostream &err)
{
    if (std::find(args.begin(), args.end(), "--job") != args.end()) {
        args.erase(std::find(args.begin(), args.end(), "--job"));
        const int ranks = std::max(1, std::atoi(takeOption(args, "--ranks", "64").c_str()));
        const int steps = std::max(1, std::atoi(takeOption(args, "--steps", "2").c_str()));
        const int frames = std::max(3, std::atoi(takeOption(args, "--frames", "15").c_str()));
        if (args.size() > 1) {
            err << "usage: linkscope-bench render --job [DIR] [--ranks N] [--steps N] [--frames N]\n";
            return 2;
        }
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        int argc = 1;
        char name[] = "linkscope-bench";
        char *argv[] = {name, nullptr};
        QApplication app(argc, argv);
        return runJobRender(args.empty() ? std::string() : args.front(), ranks, steps, frames, out, err);
    }
    const std::uint64_t events = std::strtoull(takeOption(args, "--events", "10000000").c_str(), nullptr, 10);
    const int frames = std::max(3, std::atoi(takeOption(args, "--frames", "15").c_str()));
    const int edits = std::atoi(takeOption(args, "--edits", "0").c_str());
    if (edits > 0 ? !(args.size() == 1 || args.size() == 2) : !(args.empty() || args.size() == 1)) {
        err << "usage: linkscope-bench render [KINETO] [--events N] [--frames N]\n"
               "       linkscope-bench render --edits N [HOST_ET] KINETO\n";
        return 2;
    }
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    int argc = 1;
    char name[] = "linkscope-bench";
    char *argv[] = {name, nullptr};
    QApplication app(argc, argv);
    if (edits > 0)
        return runEditRefresh(args.size() == 2 ? args[0] : std::string(), args.back(), edits, out, err);

    Stopwatch watch;
    std::shared_ptr<core::DeviceTrace> device;
    if (args.size() == 1) {
        device = std::make_shared<core::DeviceTrace>(core::loadDeviceTrace(args[0]));
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
        << " GPU ops, " << links->index->lanes.size() << " lanes (load " << loadSeconds << " s, link " << linkSeconds
        << " s, document " << documentSeconds << " s)\n";

    ui::EventSelection selection;
    ui::TimelineView view;
    view.resize(1920, 1080);
    view.setDocument(doc);
    view.state().setSelectionModel(&selection);
    const core::EventIndex selected = pickSelection(*device, *links);
    selection.select(selected);

    const core::Nanos start = doc->startTime();
    const core::Nanos end = doc->endTime();
    const core::DeviceEvent &sel = device->event(selected);
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
    out << "frames of 1920x1080, " << frames << " per level, geometry rebuilt each frame; selection: " << device->name(sel)
        << " (event " << selected.value << ")\n";
    out << "  level                          span ms    median ms   min ms   max ms  cached ms  edges drawn\n";
    double worst = 0;
    for (const Level &level : levels) {
        if (level.span == 0)
            view.state().fitAll();
        else
            view.state().setVisibleRange(center - level.span / 2, center + level.span / 2);
        const FrameStats s = measure(view, frames);
        worst = std::max(worst, s.medianMs);
        out << "  " << std::left << std::setw(30) << level.label << std::right << std::setprecision(3) << std::setw(12)
            << (view.state().viewEnd() - view.state().viewStart()) / 1e6 << std::setprecision(2) << std::setw(12) << s.medianMs
            << std::setw(9) << s.minMs << std::setw(9) << s.maxMs << std::setw(11) << s.cachedMs << std::setw(13)
            << s.edgesPainted << '\n';
    }
    out << "target: median <= 16 ms at every level\n";
    printResult(out, "render_frame_median_worst", worst, "ms");
    return 0;
}

} // namespace linkscope::bench
