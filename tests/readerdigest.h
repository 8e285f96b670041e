#pragma once
// A canonical text of everything a reader produced (every field of every event / node, strings
// resolved, spans as offsets, warnings), so that two reads of the same file can be compared
// exactly: one simdjson kernel against another, the parallel readers against one thread.

#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <sstream>
#include <string>

namespace linkscope::test {

namespace detail {

inline void put(std::ostringstream &o, const core::StringPool &strings, core::StringId id) { o << '"' << strings.at(id) << '"'; }

inline void put(std::ostringstream &o, const core::DeviceTrace &t, const core::TraceId &id)
{
    o << (id.isString ? "s:" : "n:") << t.idText(id);
}

inline void put(std::ostringstream &o, const core::Span &s) { o << s.offset << '+' << s.length; }

inline void putWarnings(std::ostringstream &o, const std::vector<core::Diagnostic> &warnings)
{
    for (const core::Diagnostic &w : warnings)
        o << "warning " << static_cast<int>(w.severity) << ' ' << w.toString() << '\n';
}

} // namespace detail

inline std::string readerDigest(const core::DeviceTrace &t)
{
    using namespace detail;
    std::ostringstream o;
    o << "bytes " << t.sourceBytes << " gzip " << t.wasGzip << " schema " << t.schemaVersion << " base "
      << (t.baseTimeNs ? std::to_string(*t.baseTimeNs) : "-") << '\n';
    if (t.distributed) {
        const core::DistributedInfo &d = *t.distributed;
        o << "dist " << d.backend << ' ' << d.rank << ' ' << d.worldSize << ' ' << d.ncclVersion << '\n';
        for (const core::ProcessGroupConfig &pg : d.processGroups) {
            o << " pg " << pg.name << '|' << pg.desc << '|' << pg.backendConfig << '|' << pg.size << ':';
            for (std::int64_t r : pg.ranks)
                o << ' ' << r;
            o << '\n';
        }
    }
    for (const core::DeviceProperties &d : t.devices)
        o << "device " << d.id << ' ' << d.name << ' ' << d.totalGlobalMem << ' ' << d.computeMajor << '.' << d.computeMinor
          << ' ' << d.numSms << '\n';
    for (const auto &[key, name] : t.threadNames) {
        o << "thread ";
        put(o, t, key.pid);
        o << '/';
        put(o, t, key.tid);
        o << ' ' << name << '\n';
    }
    for (const auto &[pid, name] : t.processNames) {
        o << "process ";
        put(o, t, pid);
        o << ' ' << name << '\n';
    }
    for (const auto &[key, index] : t.threadSortIndex) {
        o << "sort ";
        put(o, t, key.pid);
        o << '/';
        put(o, t, key.tid);
        o << ' ' << index << '\n';
    }
    for (std::size_t i = 0; i < t.threads.size(); ++i) {
        o << "thread " << i << ' ';
        put(o, t, t.threads.at(core::ThreadIndex::at(i)).pid);
        o << '/';
        put(o, t, t.threads.at(core::ThreadIndex::at(i)).tid);
        o << '\n';
    }
    for (core::EventIndex i{0}; i.in(t.events.size()); ++i) {
        const core::DeviceEvent &e = t.event(i);
        o << e.ts << ' ' << e.dur << ' ';
        put(o, t, t.threadKey(e).pid);
        o << '/';
        put(o, t, t.threadKey(e).tid);
        o << '#' << e.thread.value << ' ' << static_cast<int>(e.flags);
        o << ' ' << e.externalId << ' ' << e.correlation << ' ' << e.evIdx << ' ' << e.flowId << ' ' << e.stream << ' '
          << t.graphIdOf(i) << ' ' << e.rfId << ' ' << e.device << ' ';
        put(o, t.strings, e.name);
        o << ' ';
        put(o, t.strings, e.categoryText);
        o << ' ' << static_cast<int>(e.category) << ' ' << static_cast<int>(e.phase) << ' ';
        put(o, e.args);
        if (const core::CollectiveArgs *args = t.collectiveOf(i)) {
            const core::CollectiveArgs &c = *args;
            o << " coll ";
            put(o, t.strings, c.collectiveName);
            put(o, t.strings, c.processGroupName);
            put(o, t.strings, c.processGroupDesc);
            put(o, t.strings, c.dtype);
            o << ' ' << c.inMsgNelems << ' ' << c.outMsgNelems << ' ' << c.groupSize << ' ' << c.srcRank << ' ' << c.dstRank
              << ' ' << c.seq;
        }
        o << '\n';
    }
    for (const core::SyncArgs &s : t.syncArgs)
        o << "sync " << s.event.value << ' ' << s.waitOnStream << ' ' << s.recordCorrelation << '\n';
    putWarnings(o, t.warnings);
    return o.str();
}

inline std::string readerDigest(const core::HostTrace &t)
{
    using namespace detail;
    std::ostringstream o;
    o << "bytes " << t.sourceBytes << " gzip " << t.wasGzip << " schema " << t.schema << " layout " << static_cast<int>(t.layout)
      << " pid " << t.pid << " time " << t.time << ' ' << t.startTs << ' ' << t.finishTs << " truncated " << t.recoveredTruncation
      << '\n';
    for (const core::HostNode &n : t.nodes) {
        o << n.id << ' ' << n.parentId << ' ' << n.parent.value << ' ';
        put(o, t.strings, n.name);
        o << ' ' << n.rfId << ' ' << n.tid << ' ' << n.fwParent << ' ' << n.seqId << ' ' << n.fwTid << ' ' << n.scope << ' ';
        put(o, t.strings, n.opSchema);
        put(o, t.strings, n.kernelBackend);
        put(o, t.strings, n.kernelFile);
        o << ' ' << n.parentMissing;
        for (const core::HostIO *io : {&n.inputs, &n.outputs}) {
            o << " io ";
            put(o, io->values);
            o << ',';
            put(o, io->shapes);
            o << ',';
            put(o, io->types);
            o << ',';
            put(o, io->strides);
        }
        o << " attrs ";
        put(o, n.attrs);
        o << " raw ";
        put(o, n.raw);
        if (n.comm.valid()) {
            const core::HostCommAttrs &c = t.commAttrs.at(n.comm.get());
            o << " comm ";
            put(o, t.strings, c.collectiveName);
            put(o, t.strings, c.dtype);
            put(o, t.strings, c.pgName);
            put(o, t.strings, c.pgDesc);
            o << ' ' << c.inMsgNelems << ' ' << c.outMsgNelems << ' ' << c.pgSize << ' ' << c.globalRankStart << ' '
              << c.globalRankStride;
        }
        o << '\n';
    }
    o << "children";
    for (std::uint32_t c : t.childBegin)
        o << ' ' << c;
    o << "\nlist";
    for (core::HostNodeIndex c : t.childList)
        o << ' ' << c.value;
    o << "\nroots";
    for (core::HostNodeIndex r : t.roots)
        o << ' ' << r.value;
    o << '\n';
    putWarnings(o, t.warnings);
    return o.str();
}

} // namespace linkscope::test
