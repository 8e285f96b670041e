// What to fix first (predict/opportunities.h, docs/prediction.md "Opportunities"): kernel families
// named as their regex matches them, the sweep's ranking on small graphs whose gains are known by
// hand (a GPU-bound rank, a CPU straggler before a collective), and `linkscope predict
// --opportunities` on a generated job: ranked, parseable, each candidate replayable as it says.

#include "simjobbuilder.h"
#include "testsupport.h"

#include "commands/commands.h"
#include "gen/tracegenerator.h"
#include "predict/jobgraph.h"
#include "predict/opportunities.h"
#include "predict/simgraph.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <regex>
#include <set>
#include <sstream>

using namespace linkscope::test::simjob;

namespace {

const Opportunity *find(const Opportunities &o, OpportunityKind kind, const std::string &titlePart = {})
{
    for (const Opportunity &p : o.ranked)
        if (p.kind == kind && p.title.find(titlePart) != std::string::npos)
            return &p;
    return nullptr;
}

std::size_t position(const Opportunities &o, const Opportunity *p) { return static_cast<std::size_t>(p - o.ranked.data()); }

OpportunityOptions withModel(ReplayModel m)
{
    OpportunityOptions o;
    o.model = m;
    return o;
}

} // namespace

class TestOpportunities : public QObject {
    Q_OBJECT

private slots:
    void kernelFamilies()
    {
        const std::vector<std::pair<std::string, std::string>> cases{
            {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> "
             ">(int, "
             "at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
             "at::native::vectorized_elementwise_kernel"},
            {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
             "ncclDevKernel_AllReduce_Sum_f32_RING_LL"},
            {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"},
            {"ampere_sgemm_128x64_tn", "ampere_sgemm_128x64_tn"},
            {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*, float const*, int)",
             "at::native::(anonymous namespace)::cunn_SoftMaxForward"},
            {"Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD"},
        };
        for (const auto &[name, family] : cases) {
            QCOMPARE(kernelFamily(name), family);
            // The family's pattern matches the name it came from …
            QVERIFY2(std::regex_search(name, std::regex(kernelFamilyPattern(family))), name.c_str());
        }
        // … and no name of another family, even one that starts with it.
        const std::regex vec(kernelFamilyPattern("at::native::vectorized_elementwise_kernel"));
        QVERIFY(!std::regex_search(std::string("void at::native::vectorized_elementwise_kernel2<4>(int)"), vec));
        QVERIFY(!std::regex_search(std::string("void at::native::unrolled_elementwise_kernel<4>(int)"), vec));
        QVERIFY(!std::regex_search(std::string("ampere_sgemm_128x64_tn_v2"),
                                   std::regex(kernelFamilyPattern("ampere_sgemm_128x64_tn"))));
        QVERIFY(!std::regex_search(std::string("void at::native::(anonymous namespace)::k<1>(int)"),
                                   std::regex(kernelFamilyPattern("at::native::"))));
        // Metacharacters in a name are literal.
        QCOMPARE(escapeRegex("a.b*c(d)[e]"), std::string("a\\.b\\*c\\(d\\)\\[e\\]"));
    }

    // One GPU-bound rank: a 10 µs launch, then on one stream famA 40 µs, famB 10 µs, famA 30 µs and
    // famA_extra 10 µs (a family whose name starts with famA's). famA is 70 % of the step: ×0.5 saves
    // 35 µs, famB's 5 µs; every compute kernel (the stream) 45 µs; the CPU 5 µs.
    void gpuBoundRanking()
    {
        const SimJob job = jobOf(
            {{onLane(cpu(1, "launch", 10), 100, -1), onLane(gpu(2, "void ns::famA<float>(float*)", 40, {1}), -1, 7),
              onLane(gpu(3, "famB(int)", 10, {1, 2}), -1, 7), onLane(gpu(4, "void ns::famA<half>(half*)", 30, {1, 3}), -1, 7),
              onLane(gpu(5, "ns::famA_extra", 10, {1, 4}), -1, 7)}});
        for (const ReplayModel m : {ReplayModel::Faithful, ReplayModel::AstraSim}) {
            const Opportunities o = findOpportunities(job, withModel(m));
            QCOMPARE(o.baselineMakespanNs, 100'000);
            const Opportunity *a = find(o, OpportunityKind::KernelFamily, "ns::famA ");
            const Opportunity *b = find(o, OpportunityKind::KernelFamily, "famB");
            const Opportunity *extra = find(o, OpportunityKind::KernelFamily, "famA_extra");
            const Opportunity *kernels = find(o, OpportunityKind::AllKernels);
            const Opportunity *stream = find(o, OpportunityKind::Stream);
            const Opportunity *cpuAll = find(o, OpportunityKind::AllCpu);
            QVERIFY(a && b && extra && kernels && stream && cpuAll);
            QCOMPARE(a->gainNs(), 35'000);
            QCOMPARE(a->gainPct(), 35.0);
            QCOMPARE(a->nodes, std::size_t(2)); // not famA_extra
            QCOMPARE(a->pathNs, 70'000);
            QCOMPARE(b->gainNs(), 5'000);
            QCOMPARE(extra->gainNs(), 5'000);
            QCOMPARE(kernels->gainNs(), 45'000);
            QCOMPARE(stream->gainNs(), 45'000);
            QCOMPARE(stream->stream, std::int64_t(7));
            QCOMPARE(cpuAll->gainNs(), 5'000);
            const Opportunity *launch = find(o, OpportunityKind::CpuOp, "launch");
            QVERIFY(launch);
            QCOMPARE(launch->gainNs(), 5'000);
            QCOMPARE(launch->pattern, std::string("^launch$"));
            QVERIFY(position(o, a) < position(o, b));
            QVERIFY(position(o, kernels) < position(o, a) && position(o, stream) < position(o, a));
            QVERIFY(o.ranked.back().gainNs() <= o.ranked.front().gainNs());
            QCOMPARE(a->moved(), std::string("gpu −0.035 ms"));
            // No communication: those candidates are not offered, and said so; a sync is not offered.
            QVERIFY(!find(o, OpportunityKind::Transfers));
            QCOMPARE(o.notOffered.size(), std::size_t(2));
            // Ranked by the job's gain, each what-if as `linkscope predict` would replay it.
            for (std::size_t i = 1; i < o.ranked.size(); ++i)
                QVERIFY(o.ranked[i - 1].gainNs() >= o.ranked[i].gainNs());
            const nlohmann::json j = o.toJson(3);
            QCOMPARE(j["opportunities"].size(), std::size_t(3));
            QCOMPARE(j["opportunities"][0]["position"].get<int>(), 1);
            QCOMPARE(j["candidates"].get<std::size_t>(), o.ranked.size());
        }
    }

    // Two ranks meet at an all-reduce: rank 1's CPU (50 µs) arrives after rank 0's (10 µs). Rank 1 is
    // the straggler: its CPU ×0.5 saves 25 µs of the job's step; rank 0's CPU is not offered. The
    // transfer's cost is linear in 1/bandwidth and latency: halving both saves what halving each does.
    void stragglerAndNetwork()
    {
        const SimJob job = jobOf({{onLane(cpu(1, "fwd", 10), 100, -1), allReduce(2, 8 << 20, {1})},
                                  {onLane(cpu(1, "fwd", 50), 100, -1), allReduce(2, 8 << 20, {1})}});
        for (const ReplayModel m : {ReplayModel::Faithful, ReplayModel::AstraSim}) {
            const Opportunities o = findOpportunities(job, withModel(m));
            QCOMPARE(o.stragglers, std::vector<std::int64_t>{1});
            const Opportunity *r1 = find(o, OpportunityKind::RankCpu);
            QVERIFY(r1);
            QCOMPARE(r1->rank, std::int64_t(1));
            QCOMPARE(r1->gainNs(), 25'000);
            QCOMPARE(r1->args, (std::vector<std::string>{"--scale-cpu", "1:.*=0.5"}));
            QCOMPARE(r1->ranks[1].gainNs(), 25'000);
            const Opportunity *t = find(o, OpportunityKind::Transfers), *bw = find(o, OpportunityKind::Bandwidth),
                              *lat = find(o, OpportunityKind::Latency);
            QVERIFY(t && bw && lat);
            QVERIFY(bw->gainNs() > 0 && lat->gainNs() > 0);
            QVERIFY(std::llabs(t->gainNs() - bw->gainNs() - lat->gainNs()) <= 2);
            QVERIFY(t->nodes == 2 && t->onPath >= 1);
        }
    }

    // A kernel's dispatch latency (attr dispatch_ns: from when it could start to its start) is not
    // shortened by a faster kernel: a what-if scales the rest, in the replay (both models) and in the
    // .et `linkscope whatif` writes. A 10 µs kernel with 2 µs of dispatch, ×0.5: 6 µs.
    void kernelKeepsItsDispatchLatency()
    {
        NodeSpec k = onLane(gpu(2, "k", 10, {1}), -1, 7, 10'000);
        k.dispatchNs = 2'000;
        const SimJob job = jobOf({{onLane(cpu(1, "launch", 1), 100, -1), k}});
        QCOMPARE(job.ranks[0].nodes[1].dispatchNs, 2'000);
        WhatIf half;
        half.gpu.push_back(parseGpuScale("k=0.5"));
        ReplayOptions astra;
        astra.model = ReplayModel::AstraSim;
        QCOMPARE(replay(job, half).ranks[0].endNs, 1'000 + 6'000);
        QCOMPARE(replay(job, half, astra).ranks[0].endNs, 1'000 + 6'000);
        ChakraTrace trace = traceOf({onLane(cpu(1, "launch", 1), 100, -1), k});
        applyWhatIf(trace, 0, half);
        QCOMPARE(trace.nodes[1].duration_micros(), std::uint64_t(6));
        for (const auto &a : trace.nodes[1].attr())
            if (a.name() == "lane_dur_ns")
                QCOMPARE(a.int64_val(), std::int64_t(6'000));
        // A CPU node has none: all of it scales.
        QCOMPARE(scaledNs(10'000, 0, 0.5), std::int64_t(5'000));
        QCOMPARE(scaledMicros(10, 20'000, 0.5), std::int64_t(10)); // the dispatch is at most the whole
    }

    // Megatron's 8 ranks (../shared/traces; skipped without): at least 25 candidates, ranked, every
    // kernel family's pattern exact on every kernel name of the job. The straggler: rank 0 in the
    // faithful model, which starts each rank where it entered its step (rank 0 30.5 ms after rank 6,
    // and `linkscope job` counts it last to launch 48 of the 84 collectives); rank 6 (its 22–26 ms
    // launches) in ASTRA-sim's, which starts every rank at 0.
    void megatron()
    {
        const QString traces = linkscope::test::sharedTracesDir() + "/astrasim_megatron_tp8_8rank_pair";
        if (!QFileInfo::exists(traces + "/megatron_et_0.json.gz"))
            QSKIP(qPrintable(traces + " not present"));
        QTemporaryDir dir;
        QDir().mkpath(dir.filePath("in"));
        for (int r = 0; r < 8; ++r) {
            QVERIFY(QFile::link(traces + QString("/megatron_et_%1.json.gz").arg(r),
                                dir.filePath(QString("in/host_%1.json.gz").arg(r))));
            QVERIFY(QFile::link(traces + QString("/megatron_kineto_%1.json.gz").arg(r),
                                dir.filePath(QString("in/kineto_%1.json.gz").arg(r))));
        }
        std::ostringstream jo, je;
        QCOMPARE(linkscope::cli::runJob({dir.filePath("in").toStdString(), "--out", dir.filePath("out").toStdString()}, jo, je),
                 0);
        const SimJob job = loadJobExport(dir.filePath("out").toStdString(), "trace").job;
        for (const ReplayModel m : {ReplayModel::Faithful, ReplayModel::AstraSim}) {
            const Opportunities o = findOpportunities(job, withModel(m));
            QVERIFY2(o.ranked.size() >= 25, qPrintable(QString::number(o.ranked.size())));
            QCOMPARE(o.stragglers, std::vector<std::int64_t>{m == ReplayModel::Faithful ? 0 : 6});
            for (std::size_t i = 1; i < o.ranked.size(); ++i)
                QVERIFY(o.ranked[i - 1].gainNs() >= o.ranked[i].gainNs());
            QCOMPARE(o.ranked.front().kind, OpportunityKind::AllCpu);
            qInfo("%s: %zu candidates in %.0f ms", std::string(replayModelName(m)).c_str(), o.ranked.size(), o.sweepMs);
        }
        std::set<std::string> names;
        for (const SimRank &r : job.ranks)
            for (const SimNode &n : r.nodes)
                if (n.kind == NodeKind::Gpu)
                    names.insert(r.names[n.name]);
        std::set<std::string> families;
        for (const std::string &name : names)
            families.insert(kernelFamily(name));
        for (const std::string &family : families) {
            const std::regex pattern(kernelFamilyPattern(family));
            for (const std::string &name : names)
                QVERIFY2(std::regex_search(name, pattern) == (kernelFamily(name) == family), (family + " / " + name).c_str());
        }
    }

    void rejectsWhatCannotBeSwept()
    {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, findOpportunities(SimJob{}));
        // A collective on a group of one rank never completes: nothing to compare with.
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, findOpportunities(jobOf({{cpu(1, "a", 1), allReduce(2, 64, {1})}})));
        OpportunityOptions slower;
        slower.factor = 2;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, findOpportunities(jobOf({{cpu(1, "a", 1)}}), slower));
    }

    // `linkscope predict JOB --opportunities --json` on a generated 2-rank job, in both models: ranked by
    // gain, and the first candidate's arguments given to `linkscope predict` give its makespan.
    void command()
    {
        QTemporaryDir dir;
        linkscope::gen::GeneratorOptions g;
        g.seed = 5;
        g.steps = 2;
        g.worldSize = 2;
        linkscope::gen::generateJob(g, dir.filePath("job").toStdString());
        const std::string job = dir.filePath("job").toStdString();
        for (const std::string model : {"faithful", "astra-sim"}) {
            std::ostringstream out, err;
            QCOMPARE(linkscope::cli::runPredict({job, "--opportunities", "--json", "--model", model}, out, err), 0);
            const nlohmann::json j = nlohmann::json::parse(out.str());
            QCOMPARE(j["model"].get<std::string>(), model);
            const auto &list = j["opportunities"];
            QVERIFY(list.size() >= 8);
            QCOMPARE(list.size(), j["candidates"].get<std::size_t>());
            for (std::size_t i = 0; i < list.size(); ++i) {
                QCOMPARE(list[i]["position"].get<std::size_t>(), i + 1);
                QVERIFY(!list[i]["args"].empty());
                if (i)
                    QVERIFY(list[i - 1]["gain_ns"].get<std::int64_t>() >= list[i]["gain_ns"].get<std::int64_t>());
            }
            QVERIFY(list[0]["gain_ns"].get<std::int64_t>() > 0);
            std::vector<std::string> args{job, "--json", "--model", model};
            for (const auto &a : list[0]["args"])
                args.push_back(a.get<std::string>());
            std::ostringstream po, pe;
            QCOMPARE(linkscope::cli::runPredict(args, po, pe), 0);
            const nlohmann::json p = nlohmann::json::parse(po.str());
            QCOMPARE(p["makespan_ns"].get<std::int64_t>(), list[0]["makespan_ns"].get<std::int64_t>());
            QCOMPARE(p["baseline_makespan_ns"].get<std::int64_t>(), j["baseline_makespan_ns"].get<std::int64_t>());
        }
        // The export writes each kernel's dispatch latency within its lane time.
        std::ostringstream jo, je;
        QCOMPARE(linkscope::cli::runJob({job, "--out", dir.filePath("out").toStdString()}, jo, je), 0);
        const SimJob exported = loadJob(
            {dir.filePath("out/trace.0.et").toStdString(), dir.filePath("out/trace.1.et").toStdString()},
            dir.filePath("out/comm_group.json").toStdString(), {});
        std::size_t withDispatch = 0;
        for (const SimNode &n : exported.ranks[0].nodes) {
            QVERIFY(n.dispatchNs == 0 || (n.kind == NodeKind::Gpu && n.dispatchNs <= n.laneNs));
            withDispatch += n.dispatchNs > 0;
        }
        QVERIFY(withDispatch > 0);
        // Each family's pattern matches exactly the kernels of that family, on every kernel name the
        // generator writes.
        std::set<std::string> names;
        for (const SimRank &r : exported.ranks)
            for (const SimNode &n : r.nodes)
                if (n.kind == NodeKind::Gpu)
                    names.insert(r.names[n.name]);
        std::set<std::string> families;
        for (const std::string &name : names)
            families.insert(kernelFamily(name));
        QVERIFY(families.size() >= 5);
        for (const std::string &family : families) {
            const std::regex pattern(kernelFamilyPattern(family));
            for (const std::string &name : names)
                QVERIFY2(std::regex_search(name, pattern) == (kernelFamily(name) == family), (family + " / " + name).c_str());
        }
        // The text lists the first N; a what-if beside --opportunities is a usage error.
        std::ostringstream text, err;
        QCOMPARE(linkscope::cli::runPredict({job, "--opportunities", "--opportunities-limit", "3"}, text, err), 0);
        QVERIFY(text.str().find("  3. ") != std::string::npos);
        QVERIFY(text.str().find("  4. ") == std::string::npos);
        QVERIFY(text.str().find("not offered: a blocking sync removed") != std::string::npos);
        std::ostringstream all, err3;
        QCOMPARE(linkscope::cli::runPredict({job, "--opportunities", "--opportunities-limit", "0"}, all, err3), 0);
        QVERIFY(all.str().find("more: --opportunities-limit 0") == std::string::npos);
        std::ostringstream o2, e2;
        QCOMPARE(linkscope::cli::runPredict({job, "--opportunities", "--scale-comm", "2"}, o2, e2), 2);
        QVERIFY(e2.str().find("--opportunities") != std::string::npos);
        std::ostringstream o3, e3;
        QCOMPARE(linkscope::cli::runPredict({job, "--opportunities-limit", "3"}, o3, e3), 2);
    }
};

QTEST_GUILESS_MAIN(TestOpportunities)
#include "test_opportunities.moc"
