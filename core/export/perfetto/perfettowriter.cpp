#include "export/exporter.h"
#include "export/textsink.h"

#include "base/parallel.h"

#include "export/jsonout.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace linkscope::core {

namespace {

using jsonout::appendInt;
using jsonout::appendMicros;
using jsonout::appendString;
using jsonout::appendUint;

void appendId(std::string &out, const DeviceTrace &device, const TraceId &id)
{
    if (id.isString)
        appendString(out, device.strings.at(static_cast<StringId>(id.value)));
    else
        appendInt(out, id.value);
}

void appendWhere(std::string &out, const DeviceTrace &device, const ThreadKey &thread)
{
    out += ",\"pid\":";
    appendId(out, device, thread.pid);
    out += ",\"tid\":";
    appendId(out, device, thread.tid);
}

// The category and name of a link's two flow events, with the separator before them.
std::string_view flowCategoryAndName(ParentRule r)
{
#define LS_LINK(word) ",\"cat\":\"linkscope.link\",\"name\":\"parent (" word ")\""
    switch (r) {
    case ParentRule::Manual:
        return ",\"cat\":\"linkscope.corrected\",\"name\":\"corrected parent\"";
    case ParentRule::Nesting:
        return LS_LINK("nesting");
    case ParentRule::NestingAncestor:
        return LS_LINK("nesting-ancestor");
    case ParentRule::ExternalId:
        return LS_LINK("external-id");
    case ParentRule::LatestStarting:
        return LS_LINK("latest-starting");
    case ParentRule::None:
        break;
    }
    return LS_LINK("none");
#undef LS_LINK
}

// Where a flow "s" event binds to `parent` itself: trace viewers attach it to the innermost slice
// open on that thread at its timestamp, so the parent's start is wrong whenever a child starts at the
// same instant (common with whole-microsecond timestamps). The first instant inside the parent not
// covered by a direct child; the parent's start if the children leave no gap.
Nanos flowAnchor(const DeviceTrace &device, const TraceIndex &index, EventIndex parent)
{
    const DeviceEvent &p = device.event(parent);
    if (!parent.in(index.laneOf.size()) || !index.laneOfEvent(parent).in(index.lanes.size())
        || index.nestParent.size() != device.events.size())
        return p.ts;
    const Lane &lane = index.lane(index.laneOfEvent(parent));
    // Lane events are sorted by (ts asc, dur desc, file order): find the parent, then walk its subtree.
    auto it = std::lower_bound(lane.events.begin(), lane.events.end(), p.ts,
                               [&](EventIndex e, Nanos ts) { return device.event(e).ts < ts; });
    while (it != lane.events.end() && *it != parent && device.event(*it).ts == p.ts)
        ++it;
    if (it == lane.events.end() || *it != parent)
        return p.ts;
    Nanos cursor = p.ts;
    constexpr int kScanLimit = 4096; // a huge subtree: settle for the start rather than scan it all
    int scanned = 0;
    for (++it; it != lane.events.end() && scanned < kScanLimit; ++it, ++scanned) {
        const DeviceEvent &c = device.event(*it);
        if (c.ts >= p.end())
            break;
        if (index.nestParent[it->get()] != parent)
            continue;
        if (c.ts > cursor)
            return cursor;
        cursor = std::max(cursor, c.end());
    }
    return scanned < kScanLimit && cursor < p.end() ? cursor : p.ts;
}

// The document up to its first trace events, and the process and thread metadata records; `first`
// stays true when there were none (the next record starts without a comma).
std::string perfettoHead(const DeviceTrace &device, const HostTrace *host, bool &first)
{
    std::string out;
    out += "{\"displayTimeUnit\":\"ms\",\"linkscope\":{\"device\":";
    appendString(out, jsonout::baseName(device.path));
    out += ",\"host\":";
    appendString(out, host ? jsonout::baseName(host->path) : std::string_view());
    out += ",\"flow_categories\":{\"linkscope.link\":\"GPU op -> parent CPU op chosen by the linker\","
           "\"linkscope.corrected\":\"GPU op -> parent CPU op set by a user correction\"}},\n\"traceEvents\":[";
    auto begin = [&]() {
        out += first ? "\n{" : ",\n{";
        first = false;
    };
    for (const auto &[pid, name] : device.processNames) {
        begin();
        out += "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":";
        appendId(out, device, pid);
        out += ",\"tid\":0,\"args\":{\"name\":";
        appendString(out, name);
        out += "}}";
    }
    for (const auto &[thread, name] : device.threadNames) {
        begin();
        out += "\"ph\":\"M\",\"name\":\"thread_name\"";
        appendWhere(out, device, thread);
        out += ",\"args\":{\"name\":";
        appendString(out, name);
        out += "}}";
    }
    for (const auto &[thread, index] : device.threadSortIndex) {
        begin();
        out += "\"ph\":\"M\",\"name\":\"thread_sort_index\"";
        appendWhere(out, device, thread);
        out += ",\"args\":{\"sort_index\":";
        appendInt(out, index);
        out += "}}";
    }
    return out;
}

// One trace event's record (",\n{...}"), its args read back through `argsReader`; nothing for a
// flow event or a phase Perfetto does not draw.
void appendEventRecord(std::string &text, const DeviceTrace &device, const DeviceEvent &e, ArgsReader &argsReader)
{
    std::string_view head; // the record up to its category
    switch (e.phase) {
    case Phase::Complete:
        head = ",\n{\"ph\":\"X\",\"cat\":";
        break;
    case Phase::Instant:
        head = ",\n{\"ph\":\"i\",\"cat\":";
        break;
    case Phase::Counter:
        head = ",\n{\"ph\":\"C\",\"cat\":";
        break;
    case Phase::Begin:
        head = ",\n{\"ph\":\"B\",\"cat\":";
        break;
    case Phase::End:
        head = ",\n{\"ph\":\"E\",\"cat\":";
        break;
    default:
        break;
    }
    if (head.empty() || e.category == EventCategory::Flow)
        return;
    text += head;
    appendString(text, device.strings.at(e.categoryText));
    text += ",\"name\":";
    appendString(text, device.name(e));
    appendWhere(text, device, device.threadKey(e));
    text += ",\"ts\":";
    appendMicros(text, e.ts);
    if (e.phase == Phase::Complete) {
        text += ",\"dur\":";
        appendMicros(text, e.dur);
    } else if (e.phase == Phase::Instant) {
        text += ",\"s\":\"t\"";
    }
    const std::string_view args = argsReader.read(e.args);
    if (args.empty() && !e.args.empty())
        throw ExportError("cannot read the args of the event at byte " + std::to_string(e.args.offset) + " of " + device.path
                          + ": " + device.argsUnavailableReason());
    if (!args.empty()) {
        text += ",\"args\":";
        text += args;
    }
    text += '}';
}

// One link's arrow: "s" at `anchor` on the parent's thread, "f" binding to the GPU op.
void appendLinkArrow(std::string &text, const DeviceTrace &device, const GpuLink &link, std::uint64_t flowId, Nanos anchor)
{
    const DeviceEvent &parent = device.event(link.parent);
    const DeviceEvent &gpu = device.event(link.gpuEvent);
    const std::string_view nameAndCat = flowCategoryAndName(link.rule);
    text += ",\n{\"ph\":\"s\",\"id\":";
    appendUint(text, flowId);
    text += nameAndCat;
    appendWhere(text, device, device.threadKey(parent));
    text += ",\"ts\":";
    appendMicros(text, anchor);
    text += "},\n{\"ph\":\"f\",\"bp\":\"e\",\"id\":";
    appendUint(text, flowId);
    text += nameAndCat;
    appendWhere(text, device, device.threadKey(gpu));
    text += ",\"ts\":";
    appendMicros(text, gpu.ts);
    text += '}';
}

} // namespace

std::uint64_t writePerfettoTraceTo(const OutputSink &sink, const DeviceTrace &device, const LinkSet &links, const HostTrace *host,
                                   int threads)
{
    std::uint64_t bytes = 0;
    auto emit = [&](std::string_view text) {
        bytes += text.size();
        sink(text);
    };
    bool first = true;
    emit(perfettoHead(device, host, first));

    // Blocks made on every core start each record with ",\n{"; the very first of the array has no comma.
    auto emitBlock = [&](const std::string &text) {
        if (text.empty())
            return;
        emit(first ? std::string_view(text).substr(1) : std::string_view(text));
        first = false;
    };
    if (threads <= 0)
        threads = exportThreads();

    // The trace's own flow events (ac2g, fwdbwd) are left out: the link arrows replace them, and
    // their ids would share one id space with ours.
    // Events are written in blocks on every core, in file order; each thread reads its events' args
    // through its own reader (sequential reads from a source file, 1 MiB at a time). If the source
    // changed since loading, the export stops rather than write events without args.
    std::vector<std::unique_ptr<ArgsReader>> readers(static_cast<std::size_t>(threads));
    forEachBlockInOrder(
        device.events.size(), 16384, threads,
        [&](std::uint64_t firstEvent, std::uint64_t lastEvent, std::string &text, int slot) {
            std::unique_ptr<ArgsReader> &argsReader = readers[static_cast<std::size_t>(slot)];
            if (!argsReader)
                argsReader = std::make_unique<ArgsReader>(device.argsStore.get());
            for (std::uint64_t index = firstEvent; index < lastEvent; ++index)
                appendEventRecord(text, device, device.events[index], *argsReader);
        },
        emitBlock);

    // One arrow per link: "s" where the parent is the innermost open slice, "f" binding to the GPU op;
    // ids count the links written, from 1. Blocks on every core; each thread keeps the anchors of
    // the parents it has seen (where a parent's arrows start is worked out once per thread).
    constexpr std::uint64_t kLinkBlock = 16384;
    auto written = [&](const GpuLink &link) { return device.contains(link.parent) && device.contains(link.gpuEvent); };
    std::vector<std::uint64_t> firstFlowId; // of each block
    for (std::uint64_t k = 0, id = 1; k < links.gpuLinks.size(); ++k) {
        if (k % kLinkBlock == 0)
            firstFlowId.push_back(id);
        id += written(links.gpuLinks[k]) ? 1 : 0;
    }
    std::vector<std::unordered_map<EventIndex, Nanos>> anchors(static_cast<std::size_t>(threads));
    forEachBlockInOrder(
        links.gpuLinks.size(), kLinkBlock, threads,
        [&](std::uint64_t firstLink, std::uint64_t lastLink, std::string &text, int slot) {
            std::unordered_map<EventIndex, Nanos> &anchorOf = anchors[static_cast<std::size_t>(slot)];
            std::uint64_t flowId = firstFlowId[firstLink / kLinkBlock];
            for (std::uint64_t k = firstLink; k < lastLink; ++k) {
                const GpuLink &link = links.gpuLinks[k];
                if (!written(link))
                    continue;
                auto [anchorIt, fresh] = anchorOf.try_emplace(link.parent, 0);
                if (fresh)
                    anchorIt->second = flowAnchor(device, *links.index, link.parent);
                appendLinkArrow(text, device, link, flowId++, anchorIt->second);
            }
        },
        emitBlock);
    emit("\n]}\n");
    return bytes;
}

std::uint64_t writePerfettoTrace(const std::string &path, const DeviceTrace &device, const LinkSet &links, const HostTrace *host,
                                 bool gzip)
{
    AtomicFile file(path, gzip ? Compression::Gzip : Compression::None);
    try {
        writePerfettoTraceTo([&](std::string_view text) { file.write(text); }, device, links, host);
    } catch (const ExportError &error) {
        throw ExportError(path + ": not written: " + error.what());
    }
    file.commit();
    return file.bytesOnDisk();
}

} // namespace linkscope::core
