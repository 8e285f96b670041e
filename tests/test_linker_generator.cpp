// The linker against the synthetic generator's ground truth (tools/gen): under the nesting policy every
// GPU op gets its true parent, across seeds and shapes. The truth was verified independently of both the
// generator and the linker by tools/gen/verify_truth.py (python3, the rule of docs/linking.md over the Kineto file).
#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "link/linker.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <sstream>

using namespace linkscope::core;
using namespace linkscope::gen;

namespace {

struct Generated {
    HostTrace host;
    DeviceTrace device;
    std::vector<nlohmann::json> truth;
    GeneratorStats stats;
};

Generated generate(const GeneratorOptions &options)
{
    std::ostringstream host, kineto, truth;
    Generated g;
    g.stats = generatePair(options, host, kineto, truth);
    g.host = parseHostTrace(host.str(), "generated_host.json");
    g.device = parseKinetoTrace(kineto.str(), "generated_kineto.json");
    std::istringstream lines(truth.str());
    for (std::string line; std::getline(lines, line);)
        g.truth.push_back(nlohmann::json::parse(line));
    return g;
}

// "name (Ev Idx n, ET id m)" of a chosen event, for failure messages and comparisons.
std::string describeChoice(const Generated &g, const LinkSet &ls, EventIndex event)
{
    if (event.isNone())
        return "(none)";
    const DeviceEvent &e = g.device.event(event);
    const HostNodeIndex node = ls.hostOfEvent[event];
    return std::string(g.device.name(e)) + " (Ev Idx " + std::to_string(e.evIdx) + ", ET id "
           + (node.isNone() ? std::string("none") : std::to_string(g.host.node(node).id)) + ")";
}

std::string describeTruth(const nlohmann::json &op)
{
    if (op.is_null())
        return "(none)";
    return op.at("name").get<std::string>() + " (Ev Idx " + std::to_string(op.at("ev_idx").get<std::int64_t>()) + ", ET id "
           + std::to_string(op.at("et_id").get<std::int64_t>()) + ")";
}

} // namespace

class TestLinkerGenerator : public QObject {
    Q_OBJECT

private slots:
    void nestingFindsEveryTrueParent_data();
    void nestingFindsEveryTrueParent();
    void chakraPre185IsTheLatestStartingOp();
};

void TestLinkerGenerator::nestingFindsEveryTrueParent_data()
{
    QTest::addColumn<quint64>("seed");
    QTest::addColumn<int>("steps");
    QTest::addColumn<int>("devices");
    QTest::addColumn<int>("layers");
    QTest::newRow("seed 1") << quint64(1) << 3 << 1 << 4;
    QTest::newRow("seed 2, two GPUs") << quint64(2) << 3 << 2 << 5;
    QTest::newRow("seed 3, two GPUs, deep") << quint64(3) << 5 << 2 << 6;
    QTest::newRow("seed 11") << quint64(11) << 4 << 1 << 8;
    QTest::newRow("seed 2026, two GPUs") << quint64(2026) << 6 << 2 << 3;
}

void TestLinkerGenerator::nestingFindsEveryTrueParent()
{
    QFETCH(quint64, seed);
    QFETCH(int, steps);
    QFETCH(int, devices);
    QFETCH(int, layers);
    GeneratorOptions options;
    options.seed = seed;
    options.steps = steps;
    options.devices = devices;
    options.layers = layers;
    const Generated g = generate(options);
    const LinkSet ls = linkTraces(g.device, &g.host);
    QCOMPARE(ls.join.method, HostJoinMethod::RecordFunctionId);
    QCOMPARE(ls.gpuLinks.size(), g.truth.size());
    QCOMPARE(ls.gpuLinks.size(), std::size_t(g.stats.gpuOps));
    QVERIFY(g.stats.collectives > 0 && g.stats.graphLaunches > 0); // the traps are present
    std::size_t ncclChecked = 0;
    for (std::size_t i = 0; i < ls.gpuLinks.size(); ++i) {
        const GpuLink &link = ls.gpuLinks[i];
        const nlohmann::json &truth = g.truth[i];
        const DeviceEvent &gpu = g.device.event(link.gpuEvent);
        // Same GPU op (truth lines follow the Kineto file order).
        QCOMPARE(std::string(g.device.name(gpu)), truth.at("name").get<std::string>());
        QCOMPARE(gpu.ts, truth.at("ts_ns").get<Nanos>());
        const nlohmann::json &parent = truth.at("parent");
        const std::string expected = describeTruth(parent);
        const std::string actual = describeChoice(g, ls, link.parent);
        QVERIFY2(actual == expected,
                 (std::string(g.device.name(gpu)) + " #" + std::to_string(i) + ": linked to " + actual + ", truth " + expected)
                     .c_str());
        QCOMPARE(g.host.node(link.hostNode).id, parent.at("et_id").get<std::int64_t>());
        QCOMPARE(link.orphan, OrphanReason::None);
        if (std::string(g.device.name(gpu)).rfind("ncclDevKernel", 0) == 0)
            ++ncclChecked;
    }
    QCOMPARE(countFindingsByKind(ls.findings)[static_cast<std::size_t>(FindingKind::NcclParentIsRecordParamComms)],
             std::size_t(0));
    QVERIFY(ncclChecked > 0);
}

void TestLinkerGenerator::chakraPre185IsTheLatestStartingOp()
{
    // The truth also names the latest-starting op before each launch (the pre-#185 rule): our ev-idx
    // policy must pick exactly that op wherever the truth has one and no nccl:coalesced is involved.
    GeneratorOptions options;
    options.seed = 5;
    options.steps = 3;
    options.devices = 2;
    options.layers = 5;
    const Generated g = generate(options);
    const LinkSet ls = linkTraces(g.device, &g.host);
    std::size_t compared = 0, disagreements = 0;
    for (std::size_t i = 0; i < ls.gpuLinks.size(); ++i) {
        const nlohmann::json &latest = g.truth[i].at("latest_starting");
        if (latest.is_null())
            continue;
        ++compared;
        const std::string actual = describeChoice(g, ls, ls.gpuLinks[i].byPolicy[static_cast<std::size_t>(Policy::EvIdx)]);
        QVERIFY2(actual == describeTruth(latest), (actual + " vs " + describeTruth(latest)).c_str());
        if (ls.gpuLinks[i].byPolicy[static_cast<std::size_t>(Policy::EvIdx)] != ls.gpuLinks[i].parent)
            ++disagreements;
    }
    QVERIFY(compared > 0);
    // The generator plants finished siblings before launches: pre-#185 must be wrong somewhere.
    QVERIFY(disagreements > 0);
}

QTEST_GUILESS_MAIN(TestLinkerGenerator)
#include "test_linker_generator.moc"
