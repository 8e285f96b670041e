#pragma once
// Builds small DeviceTraces / HostTraces in code for index and linker tests (no reader involved).

#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace linkscope::test {

using core::DeviceEvent;
using core::DeviceTrace;
using core::EventCategory;
using core::EventIndex;
using core::HostNodeIndex;
using core::Nanos;
using core::Phase;

struct TraceBuilder {
    DeviceTrace trace;

    static core::TraceId num(std::int64_t v) { return core::TraceId{v, false}; }

    // Adds a complete event; times in ns. Returns its index.
    EventIndex add(EventCategory cat, const std::string &name, std::int64_t pid, std::int64_t tid, Nanos ts, Nanos dur)
    {
        DeviceEvent e;
        e.category = cat;
        e.phase = Phase::Complete;
        e.name = trace.strings.intern(name);
        e.categoryText = trace.strings.intern(core::categoryName(cat));
        e.thread = trace.threads.intern(core::ThreadKey{num(pid), num(tid)});
        e.ts = ts;
        e.dur = dur;
        if (core::isGpuOpCategory(cat) || cat == EventCategory::GpuUserAnnotation) {
            e.device = static_cast<std::int32_t>(pid);
            e.stream = tid;
        }
        trace.events.push_back(e);
        return EventIndex::at(trace.events.size() - 1);
    }
    DeviceEvent &at(EventIndex i) { return trace.events[i.get()]; }

    // CPU-side op with the ids Kineto writes on it.
    EventIndex cpu(EventCategory cat, const std::string &name, std::int64_t pid, std::int64_t tid, Nanos ts, Nanos dur,
                   std::int64_t externalId = core::kNoId, std::uint64_t rfId = 0, std::int64_t evIdx = core::kNoId)
    {
        const auto i = add(cat, name, pid, tid, ts, dur);
        at(i).externalId = externalId;
        at(i).rfId = rfId;
        at(i).evIdx = evIdx;
        return i;
    }
    EventIndex runtime(const std::string &name, std::int64_t pid, std::int64_t tid, Nanos ts, Nanos dur, std::int64_t correlation,
                       std::int64_t externalId = core::kNoId, EventCategory cat = EventCategory::CudaRuntime)
    {
        const auto i = add(cat, name, pid, tid, ts, dur);
        at(i).correlation = correlation;
        at(i).externalId = externalId;
        return i;
    }
    EventIndex gpu(const std::string &name, std::int64_t device, std::int64_t stream, Nanos ts, Nanos dur,
                   std::int64_t correlation, std::int64_t externalId = core::kNoId, EventCategory cat = EventCategory::Kernel)
    {
        const auto i = add(cat, name, device, stream, ts, dur);
        at(i).correlation = correlation;
        at(i).externalId = externalId;
        return i;
    }
    EventIndex flow(Phase phase, std::int64_t id, std::int64_t pid, std::int64_t tid, Nanos ts)
    {
        const auto i = add(EventCategory::Flow, "ac2g", pid, tid, ts, 0);
        at(i).phase = phase;
        at(i).flowId = id;
        at(i).device = -1;
        at(i).stream = core::kNoId;
        return i;
    }
    // args "graph id" of event i (kept beside the events, sorted by event).
    void graphId(EventIndex i, std::int64_t id)
    {
        auto &g = trace.graphIds;
        const auto it = std::lower_bound(g.begin(), g.end(), i,
                                         [](const core::GraphIdArg &a, EventIndex e) { return a.event < e; });
        if (it != g.end() && it->event == i)
            it->graphId = id;
        else
            g.insert(it, core::GraphIdArg{i, id});
        at(i).flags |= DeviceEvent::kHasGraphId;
    }
};

struct HostBuilder {
    core::HostTrace host;

    // Adds a node; parentId -1 for a root. Call finish() once all nodes are in.
    HostNodeIndex node(std::int64_t id, std::int64_t parentId, const std::string &name, std::uint64_t rfId, std::int64_t tid = 1)
    {
        core::HostNode n;
        n.id = id;
        n.parentId = parentId;
        n.name = host.strings.intern(name);
        n.rfId = rfId;
        n.tid = tid;
        host.nodes.push_back(n);
        return HostNodeIndex::at(host.nodes.size() - 1);
    }

    // Sorts by id, resolves parents, builds the CSR child lists and roots as the reader does.
    void finish()
    {
        auto &nodes = host.nodes;
        std::sort(nodes.begin(), nodes.end(), [](const auto &a, const auto &b) { return a.id < b.id; });
        host.indexById.clear();
        for (HostNodeIndex i{0}; i.in(nodes.size()); ++i)
            host.indexById[nodes[i.get()].id] = i;
        std::vector<std::vector<HostNodeIndex>> children(nodes.size());
        host.roots.clear();
        for (HostNodeIndex i{0}; i.in(nodes.size()); ++i) {
            core::HostNode &n = nodes[i.get()];
            auto it = host.indexById.find(n.parentId);
            if (n.parentId >= 0 && it != host.indexById.end() && it->second != i) {
                n.parent = it->second;
                children[it->second.get()].push_back(i);
            } else {
                n.parent = core::kNone;
                n.parentMissing = n.parentId >= 0 && it == host.indexById.end();
                host.roots.push_back(i);
            }
        }
        host.childBegin.assign(nodes.size() + 1, 0);
        host.childList.clear();
        for (std::uint32_t i = 0; i < nodes.size(); ++i) {
            host.childBegin[i] = static_cast<std::uint32_t>(host.childList.size());
            host.childList.insert(host.childList.end(), children[i].begin(), children[i].end());
        }
        host.childBegin[nodes.size()] = static_cast<std::uint32_t>(host.childList.size());
    }
};

} // namespace linkscope::test
