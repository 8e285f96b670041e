#include "export/exporter.h"

#include "base/parallel.h"

#include "export/jsonout.h"

#include <algorithm>
#include <unordered_map>

namespace linkscope::core {

namespace {

using jsonout::appendMicros;
using jsonout::appendString;

void appendId(std::string &out, const DeviceTrace &device, const TraceId &id)
{
    if (id.isString)
        appendString(out, device.idText(id));
    else
        out += std::to_string(id.value);
}

void appendWhere(std::string &out, const DeviceTrace &device, const ThreadKey &thread)
{
    out += ",\"pid\":";
    appendId(out, device, thread.pid);
    out += ",\"tid\":";
    appendId(out, device, thread.tid);
}

std::string_view ruleWord(ParentRule r)
{
    switch (r) {
    case ParentRule::Nesting: return "nesting";
    case ParentRule::NestingAncestor: return "nesting-ancestor";
    case ParentRule::ExternalId: return "external-id";
    case ParentRule::LatestStarting: return "latest-starting";
    case ParentRule::Manual: return "manual";
    case ParentRule::None: break;
    }
    return "none";
}

// Where a flow "s" event binds to `parent` itself: trace viewers attach it to the innermost slice
// open on that thread at its timestamp, so the parent's start is wrong whenever a child starts at the
// same instant (common with whole-microsecond timestamps). The first instant inside the parent not
// covered by a direct child; the parent's start if the children leave no gap.
Nanos flowAnchor(const DeviceTrace &device, const TraceIndex &index, std::uint32_t parent)
{
    const DeviceEvent &p = device.events[parent];
    if (parent >= index.laneOf.size() || index.laneOf[parent] >= index.lanes.size() || index.nestParent.size() != device.events.size())
        return p.ts;
    const Lane &lane = index.lanes[index.laneOf[parent]];
    // Lane events are sorted by (ts asc, dur desc, file order): find the parent, then walk its subtree.
    auto it = std::lower_bound(lane.events.begin(), lane.events.end(), p.ts,
                               [&](std::uint32_t e, Nanos ts) { return device.events[e].ts < ts; });
    while (it != lane.events.end() && *it != parent && device.events[*it].ts == p.ts)
        ++it;
    if (it == lane.events.end() || *it != parent)
        return p.ts;
    Nanos cursor = p.ts;
    constexpr int kScanLimit = 4096; // a huge subtree: settle for the start rather than scan it all
    int scanned = 0;
    for (++it; it != lane.events.end() && scanned < kScanLimit; ++it, ++scanned) {
        const DeviceEvent &c = device.events[*it];
        if (c.ts >= p.end())
            break;
        if (index.nestParent[*it] != parent)
            continue;
        if (c.ts > cursor)
            return cursor;
        cursor = std::max(cursor, c.end());
    }
    return scanned < kScanLimit && cursor < p.end() ? cursor : p.ts;
}

} // namespace

std::uint64_t writePerfettoTrace(const std::string &path, const DeviceTrace &device, const LinkSet &links,
                                 const HostTrace *host, bool gzip)
{
    jsonout::BufferedWriter writer(path, gzip);
    std::string &out = writer.buffer;
    out += "{\"displayTimeUnit\":\"ms\",\"linkscope\":{\"device\":";
    appendString(out, jsonout::baseName(device.path));
    out += ",\"host\":";
    appendString(out, host ? jsonout::baseName(host->path) : std::string_view());
    out += ",\"flow_categories\":{\"linkscope.link\":\"GPU op -> parent CPU op chosen by the linker\","
           "\"linkscope.corrected\":\"GPU op -> parent CPU op set by a user correction\"}},\n\"traceEvents\":[";
    bool first = true;
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
        out += ",\"args\":{\"sort_index\":" + std::to_string(index) + "}}";
    }

    // The trace's own flow events (ac2g, fwdbwd) are left out: the link arrows replace them, and
    // their ids would share one id space with ours.
    // Args come back in file order through one reader (big sequential reads from a source file).
    // If the source changed since loading, the export stops rather than write events without args.
    // Events are written in blocks on every core, in file order; each block reads its events' args
    // through its own reader (sequential reads from a source file).
    forEachBlockInOrder(
        device.events.size(), 16384, exportThreads(),
        [&](std::uint64_t firstEvent, std::uint64_t lastEvent, std::string &text, int) {
            ArgsReader argsReader(device.argsStore.get());
            for (std::uint64_t index = firstEvent; index < lastEvent; ++index) {
                const DeviceEvent &e = device.events[index];
                const char *ph = nullptr;
                switch (e.phase) {
                case Phase::Complete: ph = "X"; break;
                case Phase::Instant: ph = "i"; break;
                case Phase::Counter: ph = "C"; break;
                case Phase::Begin: ph = "B"; break;
                case Phase::End: ph = "E"; break;
                default: break;
                }
                if (!ph || e.category == EventCategory::Flow)
                    continue;
                text += ",\n{";
                text += "\"ph\":\"";
                text += ph;
                text += "\",\"cat\":";
                appendString(text, device.strings.at(e.categoryText));
                text += ",\"name\":";
                appendString(text, device.name(e));
                appendWhere(text, device, e.thread);
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
                    throw ExportError(path + ": not written: cannot read the args of the event at byte "
                                      + std::to_string(e.args.offset) + " of " + device.path + ": "
                                      + device.argsUnavailableReason());
                if (!args.empty()) {
                    text += ",\"args\":";
                    text += args;
                }
                text += '}';
            }
        },
        [&](const std::string &text) {
            if (text.empty())
                return;
            // Every event came with ",\n{" before it; the very first of the array has no comma.
            out.append(first ? std::string_view(text).substr(1) : std::string_view(text));
            first = false;
            writer.maybeFlush();
        });

    // One arrow per link: "s" where the parent is the innermost open slice, "f" binding to the GPU op.
    std::uint64_t flowId = 0;
    std::unordered_map<std::uint32_t, Nanos> anchors; // parent event → where its arrows start
    for (const GpuLink &link : links.gpuLinks) {
        if (link.parent >= device.events.size() || link.gpuEvent >= device.events.size())
            continue;
        const DeviceEvent &parent = device.events[link.parent];
        const DeviceEvent &gpu = device.events[link.gpuEvent];
        const bool corrected = link.rule == ParentRule::Manual;
        std::string name = corrected ? std::string("corrected parent") : "parent (" + std::string(ruleWord(link.rule)) + ")";
        const char *cat = corrected ? "linkscope.corrected" : "linkscope.link";
        ++flowId;
        begin();
        out += "\"ph\":\"s\",\"id\":" + std::to_string(flowId) + ",\"cat\":\"" + cat + "\",\"name\":";
        appendString(out, name);
        appendWhere(out, device, parent.thread);
        auto [anchorIt, fresh] = anchors.try_emplace(link.parent, 0);
        if (fresh)
            anchorIt->second = flowAnchor(device, *links.index, link.parent);
        out += ",\"ts\":";
        appendMicros(out, anchorIt->second);
        out += '}';
        begin();
        out += "\"ph\":\"f\",\"bp\":\"e\",\"id\":" + std::to_string(flowId) + ",\"cat\":\"" + cat + "\",\"name\":";
        appendString(out, name);
        appendWhere(out, device, gpu.thread);
        out += ",\"ts\":";
        appendMicros(out, gpu.ts);
        out += '}';
        writer.maybeFlush();
    }
    out += "\n]}\n";
    return writer.commit();
}

} // namespace linkscope::core
