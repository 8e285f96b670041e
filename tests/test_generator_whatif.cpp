// The generator's what-if knobs (tools/gen): a changed configuration generated from the same seed as
// the original makes the same draws (same ops, ids, sizes), only its times change, and they are
// scheduled causally: --compute-scale scales exactly the non-NCCL kernels, NCCL kernels last the
// network model's time, a collective starts on every member when the last one is ready, a delayed
// rank delays the collectives of the ranks it shares them with, the compute stream waits for the
// collectives it needs (and the linker finds those waits), and fault jobs still settle.

#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "link/linker.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace linkscope::gen;

namespace {

// long double keeps the nanosecond digits of "4458676522690.655"-style timestamps (a double does not).
using Json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, long double>;

std::int64_t toNs(const Json &micros) { return static_cast<std::int64_t>(std::llround(micros.get<long double>() * 1000.0L)); }

struct Event {
    std::string name;
    std::string cat;
    std::int64_t ts = 0;
    std::int64_t dur = 0;
    std::int64_t tid = 0;
    std::int64_t correlation = -1;
    std::int64_t evIdx = -1;
    // NCCL kernels
    std::string collective;
    std::string group;
    std::int64_t seq = -1;
    std::int64_t groupSize = -1;
    std::int64_t inNelems = -1;
    std::int64_t outNelems = -1;
    std::int64_t src = -1;
    std::int64_t dst = -1;
    bool nccl() const { return name.rfind("ncclDevKernel_", 0) == 0; }
    std::int64_t end() const { return ts + dur; }
};

struct Trace {
    std::vector<Event> cpu;                        // cpu_op + user_annotation, in file order
    std::vector<Event> runtime;                    // cuda_runtime + cuda_driver, in file order
    std::vector<Event> gpu;                        // kernel, gpu_memcpy, gpu_memset, in file order
    std::map<std::int64_t, std::int64_t> launchTs; // correlation → launch call start
    std::string host;
    std::string kineto;
    GeneratorStats stats;
};

Trace parse(std::string host, std::string kineto, GeneratorStats stats)
{
    Trace t;
    const Json doc = Json::parse(kineto);
    for (const Json &e : doc.at("traceEvents")) {
        const std::string cat = e.value("cat", "");
        if (e.value("ph", "") != "X")
            continue;
        Event ev;
        ev.name = e.at("name").get<std::string>();
        ev.cat = cat;
        ev.ts = toNs(e.at("ts"));
        ev.dur = toNs(e.at("dur"));
        if (e.at("tid").is_number())
            ev.tid = e.at("tid").get<std::int64_t>();
        const Json &args = e.contains("args") ? e.at("args") : Json::object();
        if (args.contains("correlation"))
            ev.correlation = args.at("correlation").get<std::int64_t>();
        if (args.contains("Ev Idx"))
            ev.evIdx = args.at("Ev Idx").get<std::int64_t>();
        if (args.contains("Collective name")) {
            ev.collective = args.at("Collective name").get<std::string>();
            ev.group = args.at("Process Group Name").get<std::string>();
            ev.seq = args.at("Seq").get<std::int64_t>();
            ev.groupSize = args.at("Group size").get<std::int64_t>();
            ev.inNelems = args.at("In msg nelems").get<std::int64_t>();
            ev.outNelems = args.at("Out msg nelems").get<std::int64_t>();
            if (args.contains("Src Rank")) {
                ev.src = args.at("Src Rank").get<std::int64_t>();
                ev.dst = args.at("Dst Rank").get<std::int64_t>();
            }
        }
        if (cat == "cpu_op" || cat == "user_annotation")
            t.cpu.push_back(ev);
        else if (cat == "cuda_runtime" || cat == "cuda_driver") {
            t.runtime.push_back(ev);
            t.launchTs[ev.correlation] = ev.ts;
        } else if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset")
            t.gpu.push_back(ev);
    }
    t.host = std::move(host);
    t.kineto = std::move(kineto);
    t.stats = stats;
    return t;
}

Trace generate(const GeneratorOptions &options)
{
    std::ostringstream host, kineto, truth;
    const GeneratorStats stats = generatePair(options, host, kineto, truth);
    return parse(host.str(), kineto.str(), stats);
}

// Every rank of a job, in memory, as generateJob writes them.
std::vector<Trace> job(GeneratorOptions options, int world)
{
    std::vector<Trace> ranks;
    for (int r = 0; r < world; ++r) {
        options.rank = r;
        options.worldSize = world;
        ranks.push_back(generate(options));
    }
    return ranks;
}

std::int64_t transferOf(const Event &k, const GeneratorOptions &o)
{
    const std::int64_t bytes = 4 * (k.collective == "_allgather_base" ? k.outNelems : k.inNelems);
    return collectiveTransferNs(k.collective, k.groupSize, bytes, o.netBandwidthGBps, o.netLatencyUs, o.commScale);
}

// GPU ops keyed by (correlation, name): the same in two traces of one seed whatever the knobs.
std::map<std::pair<std::int64_t, std::string>, const Event *> byLaunch(const Trace &t)
{
    std::map<std::pair<std::int64_t, std::string>, const Event *> out;
    for (const Event &g : t.gpu)
        out[{g.correlation, g.name}] = &g;
    return out;
}

const Event &stepEvent(const Trace &t, int step)
{
    const std::string name = "ProfilerStep#" + std::to_string(step);
    for (const Event &e : t.cpu)
        if (e.name == name)
            return e;
    throw std::runtime_error("no " + name);
}

// The first op (on the ProfilerStep's thread) that starts inside it.
const Event &firstChild(const Trace &t, const Event &step)
{
    const Event *best = nullptr;
    for (const Event &e : t.cpu)
        if (&e != &step && e.tid == step.tid && e.ts >= step.ts && e.ts < step.end() && (!best || e.ts < best->ts))
            best = &e;
    if (!best)
        throw std::runtime_error("empty step");
    return *best;
}

// FNV-1a: a hash that is the same on every platform.
std::uint64_t fnv1a(const std::string &text)
{
    std::uint64_t h = 1469598103934665603ULL;
    for (char c : text)
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    return h;
}

// The longest time two GPU ops of the streams in `a` and in `b` run together, and the sum over all
// such pairs.
std::pair<std::int64_t, std::int64_t> overlap(const Trace &t, const std::set<std::int64_t> &a, const std::set<std::int64_t> &b)
{
    std::int64_t longest = 0, total = 0;
    for (const Event &x : t.gpu)
        for (const Event &y : t.gpu)
            if (a.count(x.tid) && b.count(y.tid)) {
                const std::int64_t both = std::min(x.end(), y.end()) - std::max(x.ts, y.ts);
                longest = std::max(longest, both);
                total += std::max<std::int64_t>(both, 0);
            }
    return {longest, total};
}

// The linker's Sync edges between GPU ops of the trace, as (from, to) pairs of its events.
std::vector<std::pair<Event, Event>> syncEdges(const Trace &t)
{
    using namespace linkscope::core;
    const HostTrace host = parseHostTrace(t.host, "host.json");
    const DeviceTrace device = parseKinetoTrace(t.kineto, "kineto.json");
    const LinkSet links = linkTraces(device, &host);
    std::vector<std::pair<Event, Event>> out;
    auto event = [&](EventIndex i) {
        const DeviceEvent &e = device.event(i);
        Event ev;
        ev.name = std::string(device.name(e));
        ev.ts = e.ts;
        ev.dur = e.end() - e.ts;
        ev.tid = e.stream;
        return ev;
    };
    for (const Edge &e : links.edges)
        if (e.kind == EdgeKind::Sync && isGpuOpCategory(device.event(e.from).category)
            && isGpuOpCategory(device.event(e.to).category))
            out.emplace_back(event(e.from), event(e.to));
    return out;
}
} // namespace

class TestGeneratorWhatIf : public QObject {
    Q_OBJECT
private slots:
    void networkModel()
    {
        // 1 MB over 12.5 GB/s is 80 µs; 5 µs per ring step.
        QCOMPARE(collectiveTransferNs("allreduce", 2, 1'000'000, 12.5, 5), std::int64_t(80'000 + 10'000));
        QCOMPARE(collectiveTransferNs("allreduce", 4, 1'000'000, 12.5, 5), std::int64_t(120'000 + 30'000));
        QCOMPARE(collectiveTransferNs("_allgather_base", 4, 4'000'000, 12.5, 5), std::int64_t(240'000 + 15'000));
        QCOMPARE(collectiveTransferNs("_reduce_scatter_base", 8, 8'000'000, 10, 1), std::int64_t(700'000 + 7'000));
        QCOMPARE(collectiveTransferNs("send", 2, 1'000'000, 12.5, 5), std::int64_t(85'000));
        QCOMPARE(collectiveTransferNs("recv", 2, 1'000'000, 12.5, 5, 4.0), std::int64_t(340'000));
        QCOMPARE(collectiveTransferNs("allreduce", 1, 1'000'000, 12.5, 5), std::int64_t(5'000));
        GeneratorOptions::RankDelay d;
        QVERIFY(parseRankDelay("3=2.5", d));
        QCOMPARE(d.rank, 3);
        QCOMPARE(d.ms, 2.5);
        QVERIFY(!parseRankDelay("3", d));
        QVERIFY(!parseRankDelay("=2", d));
        QVERIFY(!parseRankDelay("-1=2", d));
        QVERIFY(!parseRankDelay("1=-2", d));
        QVERIFY(!parseRankDelay("1=2ms", d));
    }

    // (a) --compute-scale 2: every non-NCCL kernel lasts exactly twice as long, memcpy, memset and NCCL
    // kernels as long as before, and every CPU op and runtime call is the same, in the same order.
    void computeScaleDoublesOnlyComputeKernels()
    {
        for (const bool inJob : {true, false}) {
            GeneratorOptions o;
            o.seed = 7;
            o.steps = 3;
            if (inJob) {
                o.rank = 2;
                o.worldSize = 4; // tensor parallel: all-reduces the compute stream waits for
            } else {
                o.devices = 2;
            }
            const Trace a = generate(o);
            o.computeScale = 2.0;
            const Trace b = generate(o);
            QCOMPARE(a.cpu.size(), b.cpu.size());
            QVERIFY(a.cpu.size() > 100);
            for (std::size_t i = 0; i < a.cpu.size(); ++i) {
                QCOMPARE(b.cpu[i].name, a.cpu[i].name);
                QCOMPARE(b.cpu[i].evIdx, a.cpu[i].evIdx);
                QCOMPARE(b.cpu[i].tid, a.cpu[i].tid);
            }
            QCOMPARE(a.runtime.size(), b.runtime.size());
            for (std::size_t i = 0; i < a.runtime.size(); ++i) {
                QCOMPARE(b.runtime[i].name, a.runtime[i].name);
                QCOMPARE(b.runtime[i].correlation, a.runtime[i].correlation);
            }
            QCOMPARE(a.gpu.size(), b.gpu.size());
            const auto gb = byLaunch(b);
            QCOMPARE(gb.size(), a.gpu.size());
            int scaled = 0, kept = 0;
            for (const Event &g : a.gpu) {
                const Event &h = *gb.at({g.correlation, g.name});
                QCOMPARE(h.cat, g.cat);
                if (g.cat == "kernel" && !g.nccl()) {
                    QCOMPARE(h.dur, 2 * g.dur);
                    ++scaled;
                } else {
                    QCOMPARE(h.dur, g.dur);
                    ++kept;
                }
            }
            QVERIFY(scaled > 50);
            QVERIFY(kept > 10);
            // The GPU-bound step is longer: most of it is compute.
            QVERIFY2(stepEvent(b, 4).dur > stepEvent(a, 4).dur * 11 / 10,
                     qPrintable(QString("%1 → %2 ns").arg(stepEvent(a, 4).dur).arg(stepEvent(b, 4).dur)));
        }
    }

    // (b) and (d): in an 8-rank job every collective starts at the same true time on every member,
    // at least 15 µs after the last member's launch, and lasts the network model's time.
    void collectivesStartTogetherAfterEveryLaunch()
    {
        GeneratorOptions o;
        o.seed = 5;
        o.steps = 2;
        o.commScale = 4;
        o.netBandwidthGBps = 25;
        o.netLatencyUs = 3;
        const std::vector<Trace> ranks = job(o, 8);
        struct Member {
            int rank;
            std::int64_t start;
            std::int64_t end;
            std::int64_t launch;
        };
        std::map<std::tuple<std::string, std::int64_t, std::int64_t>, std::vector<Member>> instances;
        for (int r = 0; r < 8; ++r) {
            const std::int64_t offset = clockOffsetNs(o.seed, r);
            for (const Event &k : ranks[r].gpu) {
                if (!k.nccl())
                    continue;
                QCOMPARE(k.dur, transferOf(k, o));
                const std::int64_t pair = k.src >= 0 ? std::min(k.src, k.dst) : -1;
                instances[{k.group, k.seq, pair}].push_back(
                    {r, k.ts - offset, k.end() - offset, ranks[r].launchTs.at(k.correlation) - offset});
            }
        }
        std::set<std::string> groups;
        for (const auto &[key, members] : instances) {
            const bool p2p = std::get<2>(key) >= 0;
            const std::size_t expected = p2p ? 2 : (std::get<0>(key) == "0" ? 8 : std::get<0>(key) <= "4" ? 2 : 4);
            QCOMPARE(members.size(), expected);
            std::int64_t lastLaunch = 0;
            for (const Member &m : members) {
                QCOMPARE(m.start, members.front().start);
                QCOMPARE(m.end, members.front().end);
                lastLaunch = std::max(lastLaunch, m.launch);
            }
            QVERIFY(members.front().start >= lastLaunch + 15'000);
            groups.insert(std::get<0>(key));
        }
        QCOMPARE(groups.size(), std::size_t(7)); // "0", tensor parallel "1".."4", data parallel "5", "6"
        // Each step takes at least two passes (the first one finds the starts, the last one changes none).
        QVERIFY(ranks[0].stats.schedulePasses >= 2 * 2);
        QVERIFY(ranks[0].stats.maxStepPasses >= 2);

        // The single-process trace: groups of kWorldSize = 8.
        GeneratorOptions single;
        single.seed = 5;
        single.steps = 2;
        single.devices = 2;
        const Trace t = generate(single);
        int nccl = 0;
        for (const Event &k : t.gpu)
            if (k.nccl()) {
                QCOMPARE(k.groupSize, std::int64_t(8));
                QCOMPARE(k.dur, transferOf(k, single));
                ++nccl;
            }
        QVERIFY(nccl >= 4);
    }

    // (c) rank 1 of a 2-rank job spends 5 ms more at the start of each step: its ProfilerStep's first
    // child starts 5 ms later within the step, and rank 0's collectives (all shared with rank 1)
    // start 5 ms later in the first step, which makes rank 0's step longer too.
    void delayedRankDelaysTheCollectivesItShares()
    {
        GeneratorOptions o;
        o.seed = 9;
        o.steps = 2;
        const std::vector<Trace> a = job(o, 2);
        o.rankDelays.push_back({1, 5.0});
        const std::vector<Trace> b = job(o, 2);

        for (int step : {3, 4}) {
            const Event &sa = stepEvent(a[1], step), &sb = stepEvent(b[1], step);
            QCOMPARE(firstChild(b[1], sb).ts - sb.ts, firstChild(a[1], sa).ts - sa.ts + 5'000'000);
            QCOMPARE(firstChild(b[1], sb).name, firstChild(a[1], sa).name);
            // Rank 0 is not delayed itself.
            const Event &ra = stepEvent(a[0], step), &rb = stepEvent(b[0], step);
            QCOMPARE(firstChild(b[0], rb).ts - rb.ts, firstChild(a[0], ra).ts - ra.ts);
        }
        const Event &stepA = stepEvent(a[0], 3), &stepB = stepEvent(b[0], 3);
        QCOMPARE(stepB.ts, stepA.ts); // the same first step start on rank 0
        const auto gb = byLaunch(b[0]);
        int shared = 0;
        for (const Event &k : a[0].gpu) {
            if (!k.nccl() || k.ts > stepA.end())
                continue;
            const Event &kb = *gb.at({k.correlation, k.name});
            QVERIFY2(kb.ts - k.ts >= 5'000'000,
                     qPrintable(QString("%1: %2 ns later").arg(QString::fromStdString(k.collective)).arg(kb.ts - k.ts)));
            QCOMPARE(kb.dur, k.dur);
            ++shared;
        }
        QVERIFY(shared >= 3); // all-gather, send, the data-parallel buckets
        QVERIFY(stepB.dur >= stepA.dur + 4'000'000);
    }

    // (e) fault jobs still settle: a skipped collective starts at the latest arrival of the members
    // that issue it, and an unpaired send at its own rank's.
    void faultJobsStillGenerate()
    {
        QTemporaryDir dir;
        GeneratorOptions o;
        o.seed = 17;
        o.steps = 2;
        o.layers = 3;
        o.worldSize = 8;
        o.straggler = 3;
        GeneratorFault skip, drop;
        QVERIFY(parseFault("skip:6:5:1", skip));
        QVERIFY(parseFault("drop-recv:1:0:0", drop));
        o.faults = {skip, drop};
        const std::vector<GeneratorStats> stats = generateJob(o, dir.path().toStdString(), false, 2);
        QCOMPARE(stats.size(), std::size_t(8));
        QCOMPARE(stats[6].collectives + 1, stats[4].collectives);
        QCOMPARE(stats[1].collectives + 1, stats[3].collectives);
        QCOMPARE(stats[0].collectives, stats[2].collectives); // rank 0's send is still written
        QVERIFY(stats[0].schedulePasses >= 2);
        std::map<int, std::int64_t> startOfSkipped; // ranks 0, 2, 4: their group-5 collective number 1
        for (int r : {0, 2, 4, 6}) {
            std::ifstream in(std::filesystem::path(dir.path().toStdString()) / ("kineto_" + std::to_string(r) + ".json"));
            std::stringstream text;
            text << in.rdbuf();
            const Trace t = parse({}, text.str(), stats[static_cast<std::size_t>(r)]);
            int seen = 0;
            for (const Event &k : t.gpu)
                if (k.nccl() && k.group == "5" && seen++ == 1)
                    startOfSkipped[r] = k.ts - clockOffsetNs(o.seed, r);
        }
        QCOMPARE(startOfSkipped[0], startOfSkipped[2]);
        QCOMPARE(startOfSkipped[0], startOfSkipped[4]);
        QVERIFY(startOfSkipped[6] != startOfSkipped[0]); // rank 6's second one on "5" is the next collective
    }

    // The compute stream waits for the tensor-parallel all-reduces, the send/recv and the last
    // data-parallel bucket, and the runtime calls say so: the linker's Sync edges (from
    // cudaEventRecord / cudaStreamWaitEvent) go from those NCCL kernels to the compute kernels that
    // wait, each of which starts after the NCCL kernel ends.
    void linkerFindsTheComputeWaits()
    {
        using namespace linkscope::core;
        GeneratorOptions o;
        o.seed = 4;
        o.steps = 2;
        o.rank = 0;
        o.worldSize = 4;
        const Trace t = generate(o);
        const HostTrace host = parseHostTrace(t.host, "host_0.json");
        const DeviceTrace device = parseKinetoTrace(t.kineto, "kineto_0.json");
        const LinkSet links = linkTraces(device, &host);
        std::map<std::string, int> edges; // "group/collective → waiting kernel's kind"
        for (const Edge &e : links.edges) {
            if (e.kind != EdgeKind::Sync)
                continue;
            const DeviceEvent &from = device.event(e.from), &to = device.event(e.to);
            const std::string_view fromName = device.name(from);
            if (!isGpuOpCategory(to.category) || fromName.rfind("ncclDevKernel_", 0) != 0)
                continue;
            QCOMPARE(to.stream, std::int64_t(7)); // the compute stream
            QVERIFY(to.ts >= from.end());
            const CollectiveArgs *c = device.collectiveOf(e.from);
            QVERIFY(c);
            const std::string_view waiter = device.name(to);
            edges[std::string(device.strings.at(c->processGroupName)) + "/" + std::string(device.strings.at(c->collectiveName))
                  + (waiter.find("direct_copy") != std::string_view::npos ? " → copy" : " → kernel")]++;
        }
        // 4 layers: the first three tensor-parallel all-reduces are awaited by the next layer's GEMM,
        // the last one's wait comes after the send (the same stream, later) and names the send; the
        // last data-parallel bucket is awaited by DDP's copy.
        QCOMPARE(edges["1/allreduce → kernel"], 3 * 2);
        QCOMPARE(edges["0/send → kernel"], 2);
        QCOMPARE(edges["3/allreduce → copy"], 2);
        std::string seen;
        for (const auto &[k, n] : edges)
            seen += k + " ×" + std::to_string(n) + "; ";
        QVERIFY2(edges.size() == 3, seen.c_str());
    }

    // --compute-streams 2: kernels of stream 7 and side stream 8 run at the same time, each for its
    // full duration; the linker finds every fork (7 → 8) and join (8 → the next launch) from the
    // runtime calls, and each waiting op starts after the op it waits for ended.
    void computeStreamsOverlapAndJoin()
    {
        GeneratorOptions o;
        o.seed = 4;
        o.steps = 2;
        o.rank = 1;
        o.worldSize = 4;
        o.computeStreams = 2;
        const Trace t = generate(o);
        int side = 0;
        for (const Event &g : t.gpu)
            side += g.tid == 8;
        QCOMPARE(side, 2 * 10); // per step: 2 attention blocks × 2 kernels, 2 layer norms, 4 backward mm
        const auto [longest, total] = overlap(t, {7}, {8});
        QVERIFY2(longest >= 20'000, qPrintable(QString("longest overlap %1 ns").arg(longest)));
        QVERIFY(total >= 200'000);
        int forks = 0, joins = 0;
        for (const auto &[from, to] : syncEdges(t)) {
            QVERIFY2(to.ts >= from.end(), qPrintable(QString::fromStdString(from.name + " → " + to.name)));
            forks += from.tid == 7 && to.tid == 8;
            joins += from.tid == 8 && to.tid != 8;
        }
        // Per step 4 forward and 4 backward layers, each one fork and one join.
        QCOMPARE(forks, 2 * 8);
        QCOMPARE(joins, 2 * 8);

        // Three and four streams take turns layer by layer.
        for (const int n : {3, 4}) {
            o.computeStreams = n;
            std::set<std::int64_t> streams;
            for (const Event &g : generate(o).gpu)
                streams.insert(g.tid);
            QCOMPARE(static_cast<int>(streams.size()), 3 + (n - 1)); // 7, 20, 40 and the side streams
        }
    }

    // --copy-stream: the host-to-device copies run on stream 13 next to the compute kernels, and the
    // launch after each copy waits for it (the linker's Sync edge, the later start).
    void copyStreamOverlapsCompute()
    {
        GeneratorOptions o;
        o.seed = 6;
        o.steps = 2;
        o.rank = 0;
        o.worldSize = 4;
        o.copyStream = true;
        o.computeStreams = 3;
        const Trace t = generate(o);
        int copies = 0;
        for (const Event &g : t.gpu)
            if (g.cat == "gpu_memcpy" && g.name.find("HtoD") != std::string::npos) {
                QCOMPARE(g.tid, std::int64_t(13));
                ++copies;
            }
        QCOMPARE(copies, 2 * (1 + 4)); // per step the input and a prefetch per layer
        QVERIFY(overlap(t, {13}, {7, 8, 9}).first > 0);
        int waited = 0;
        for (const auto &[from, to] : syncEdges(t))
            if (from.tid == 13) {
                QVERIFY(to.ts >= from.end());
                ++waited;
            }
        QCOMPARE(waited, copies);
    }

    // --cpu-scale 0.5: the same names, ids and counts; CPU ops and runtime calls half as long (to the
    // rounding of each scaled draw), GPU ops as long as before, a sync still until its GPU op ends.
    // --cpu-scale-rank scales that rank only; --kernel-scale the kernels it names.
    void cpuScaleHalvesCpuTimeOnly()
    {
        GeneratorOptions o;
        o.seed = 7;
        o.steps = 2;
        o.worldSize = 2;
        o.computeStreams = 2;
        const std::vector<Trace> a = job(o, 2);
        o.cpuScale = 0.5;
        const std::vector<Trace> b = job(o, 2);
        o.cpuScale = 1;
        o.cpuRankScales.push_back({1, 0.5});
        const std::vector<Trace> c = job(o, 2);
        for (int r = 0; r < 2; ++r) {
            QCOMPARE(b[r].cpu.size(), a[r].cpu.size());
            QCOMPARE(b[r].runtime.size(), a[r].runtime.size());
            QCOMPARE(b[r].gpu.size(), a[r].gpu.size());
            int ts = 0, launches = 0;
            for (std::size_t i = 0; i < a[r].cpu.size(); ++i) {
                const Event &x = a[r].cpu[i], &y = b[r].cpu[i], &z = c[r].cpu[i];
                QCOMPARE(y.name, x.name);
                QCOMPARE(y.evIdx, x.evIdx);
                if (x.name != "aten::t")
                    continue;
                // open, the leaf's own time, close: three draws, each rounded.
                QVERIFY2(std::abs(2 * y.dur - x.dur) <= 3, qPrintable(QString("%1 → %2 ns").arg(x.dur).arg(y.dur)));
                QCOMPARE(z.dur, r == 1 ? y.dur : x.dur);
                ++ts;
            }
            for (std::size_t i = 0; i < a[r].runtime.size(); ++i) {
                const Event &x = a[r].runtime[i], &y = b[r].runtime[i];
                QCOMPARE(y.correlation, x.correlation);
                if (x.name == "cudaLaunchKernel") {
                    QVERIFY(std::abs(2 * y.dur - x.dur) <= 1);
                    ++launches;
                }
                if (x.name == "cudaStreamSynchronize") // blocked until the D2H copy, then its tail
                    for (const Event &g : b[r].gpu)
                        if (g.name.find("DtoH") != std::string::npos && g.ts > y.ts && g.ts < y.end())
                            QVERIFY(y.end() >= g.end());
            }
            QVERIFY(ts >= 2 * 8);
            QVERIFY(launches >= 2 * 20);
            const auto gb = byLaunch(b[r]);
            for (const Event &g : a[r].gpu)
                QCOMPARE(gb.at({g.correlation, g.name})->dur, g.dur);
            QVERIFY(stepEvent(b[r], 4).dur < stepEvent(a[r], 4).dur);
        }

        o.cpuRankScales.clear();
        o.kernelScales.push_back({"gemm", 0.5});
        o.rank = 0;
        const Trace k = generate(o);
        const auto gk = byLaunch(k);
        int gemms = 0;
        for (const Event &g : a[0].gpu) {
            const bool gemm = g.name.find("gemm") != std::string::npos;
            QCOMPARE(gk.at({g.correlation, g.name})->dur, gemm ? (g.dur + 1) / 2 : g.dur);
            gemms += gemm;
        }
        QVERIFY(gemms >= 2 * 12);
    }

    // The new knobs at their defaults write what the generator wrote before them (the hash of a
    // rank's files from linkscope-gen --ranks 4 --seed 3 --steps 2, rank 1, before the knobs existed).
    void defaultsWriteWhatTheyAlwaysWrote()
    {
        GeneratorOptions o;
        o.seed = 3;
        o.steps = 2;
        o.rank = 1;
        o.worldSize = 4;
        o.computeStreams = 1;
        o.cpuScale = 1;
        const Trace t = generate(o);
        QCOMPARE(t.kineto.size(), std::size_t(233801));
        QCOMPARE(fnv1a(t.kineto), std::uint64_t(0x3962705c31e757eeULL));
        QCOMPARE(fnv1a(t.host), std::uint64_t(0x75cccd7de556ed7fULL));
    }

    // Causal and exact: with compute 2× slower and comm 4× slower the whole job still settles, and
    // generateJob and generatePair write the same rank.
    void jobFilesEqualRanksGeneratedOneByOne()
    {
        QTemporaryDir dir;
        GeneratorOptions o;
        o.seed = 2;
        o.steps = 2;
        o.worldSize = 4;
        o.computeScale = 0.5;
        o.commScale = 4;
        o.rankDelays.push_back({3, 1.5});
        generateJob(o, dir.path().toStdString(), false, 2);
        for (int r = 0; r < 4; ++r) {
            GeneratorOptions one = o;
            one.rank = r;
            std::ostringstream host, kineto, truth;
            generatePair(one, host, kineto, truth);
            std::ifstream in(std::filesystem::path(dir.path().toStdString()) / ("kineto_" + std::to_string(r) + ".json"));
            std::stringstream text;
            text << in.rdbuf();
            QVERIFY2(text.str() == kineto.str(), qPrintable(QString("rank %1").arg(r)));
        }
    }
};

QTEST_GUILESS_MAIN(TestGeneratorWhatIf)
#include "test_generator_whatif.moc"
