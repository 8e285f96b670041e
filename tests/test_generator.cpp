// The synthetic trace generator: valid JSON of the expected shape, a ground truth whose parents exist
// and enclose their launches, the real NCCL nesting, CUDA-graph fan-out, determinism.
//
// The truth itself was cross-checked independently of this code: tools/gen/verify_truth.py re-derives
// every parent from the Kineto file alone (python3 stdlib, Decimal timestamps) with the rule of docs/linking.md and
// compares, e.g. `python3 tools/gen/verify_truth.py h.json k.json t.jsonl` on
// `linkscope-gen --steps 5 --devices 2 --layers 6 --seed 3` → "ok: 359 GPU ops match the linkage rule".

#include "gen/tracegenerator.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTest>

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

using namespace linkscope::gen;

namespace {

// long double keeps the nanosecond digits of "4458676522690.655"-style timestamps (a double does not).
using Json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, long double>;

std::int64_t toNs(const Json &micros) { return static_cast<std::int64_t>(std::llround(micros.get<long double>() * 1000.0L)); }

struct Pair {
    std::string host;
    std::string kineto;
    std::string truth;
    GeneratorStats stats;
};

Pair generate(const GeneratorOptions &options)
{
    std::ostringstream host, kineto, truth;
    Pair p;
    p.stats = generatePair(options, host, kineto, truth);
    p.host = host.str();
    p.kineto = kineto.str();
    p.truth = truth.str();
    return p;
}

std::vector<Json> truthLines(const std::string &text)
{
    std::vector<Json> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        lines.push_back(Json::parse(line));
    return lines;
}

std::map<std::string, Json> attrsOf(const Json &node)
{
    std::map<std::string, Json> out;
    for (const Json &a : node.at("attrs"))
        out[a.at("name").get<std::string>()] = a.at("value");
    return out;
}

GeneratorOptions twoDevices()
{
    GeneratorOptions o;
    o.seed = 11;
    o.steps = 3;
    o.devices = 2;
    o.layers = 5;
    return o;
}

} // namespace

class TestGenerator : public QObject {
    Q_OBJECT
private slots:
    void hostTraceHasTheNestedLayout()
    {
        const Pair p = generate(twoDevices());
        const Json host = Json::parse(p.host);
        QCOMPARE(host.at("schema").get<std::string>(), std::string("1.1.1-chakra.0.0.4"));
        QCOMPARE(host.at("pid").get<std::int64_t>(), twoDevices().pid);
        QVERIFY(host.contains("finish_ts"));
        const Json &nodes = host.at("nodes");
        QCOMPARE(static_cast<std::uint64_t>(nodes.size()), p.stats.hostNodes);
        // Root written last, its own ctrl_deps, as the observer does.
        QCOMPARE(nodes.back().at("id").get<std::int64_t>(), 1);
        QCOMPARE(nodes.back().at("ctrl_deps").get<std::int64_t>(), 1);
        std::set<std::int64_t> ids;
        int threadRoots = 0;
        int sixTuples = 0;
        for (const Json &n : nodes) {
            QVERIFY(ids.insert(n.at("id").get<std::int64_t>()).second);
            for (const char *io : {"inputs", "outputs"})
                for (const char *key : {"values", "shapes", "types", "strides"})
                    QVERIFY2(n.at(io).contains(key), key);
            const auto a = attrsOf(n);
            for (const char *key : {"rf_id", "tid", "scope", "fw_parent", "seq_id", "op_schema", "fw_tid"})
                QVERIFY2(a.count(key), key);
            if (n.at("name") == "[pytorch|profiler|execution_trace|thread]")
                ++threadRoots;
            const Json &values = n.at("inputs").at("values");
            const Json &types = n.at("inputs").at("types");
            for (std::size_t i = 0; i < values.size(); ++i) {
                if (types.at(i) == "Tensor(float)") {
                    QCOMPARE(values.at(i).size(), std::size_t(6));
                    QVERIFY(values.at(i).at(5).get<std::string>().rfind("cuda:", 0) == 0);
                    ++sixTuples;
                }
            }
        }
        QCOMPARE(threadRoots, 3); // main + one autograd thread per device
        QVERIFY(sixTuples > 100);
        // Every ctrl_deps names a node in the file.
        for (const Json &n : nodes)
            QVERIFY(ids.count(n.at("ctrl_deps").get<std::int64_t>()));
        // Post-order: an op's node comes after its children's (thread roots are written at first sight).
        std::map<std::int64_t, std::size_t> position;
        for (std::size_t i = 0; i < nodes.size(); ++i)
            position[nodes[i].at("id").get<std::int64_t>()] = i;
        for (const Json &n : nodes) {
            const std::int64_t parent = n.at("ctrl_deps").get<std::int64_t>();
            const Json &pn = nodes[position[parent]];
            if (parent != n.at("id").get<std::int64_t>() && pn.at("name").get<std::string>().rfind("[pytorch", 0) != 0)
                QVERIFY(position[parent] > position[n.at("id").get<std::int64_t>()]);
        }
    }

    void kinetoTraceHasTheNewerStyle()
    {
        const Pair p = generate(twoDevices());
        const Json kineto = Json::parse(p.kineto);
        QCOMPARE(kineto.at("schemaVersion").get<int>(), 1);
        QCOMPARE(kineto.at("deviceProperties").size(), std::size_t(2));
        QCOMPARE(kineto.at("distributedInfo").at("backend").get<std::string>(), std::string("nccl"));
        QVERIFY(kineto.at("baseTimeNanoseconds").get<std::int64_t>() > 0);
        const Json &events = kineto.at("traceEvents");
        QCOMPARE(static_cast<std::uint64_t>(events.size()), p.stats.kinetoEvents);
        // Every ts is written as microseconds with exactly three fraction digits.
        const QString text = QString::fromStdString(p.kineto);
        const QRegularExpression anyTs(QStringLiteral("\"ts\": ([^,\\n]+)"));
        const QRegularExpression fractional(QStringLiteral("^\\d+\\.\\d{3}$"));
        int tsCount = 0;
        for (auto it = anyTs.globalMatch(text); it.hasNext();) {
            const QString value = it.next().captured(1).trimmed();
            QVERIFY2(fractional.match(value).hasMatch(), qPrintable(value));
            ++tsCount;
        }
        QCOMPARE(static_cast<std::uint64_t>(tsCount), p.stats.kinetoEvents);

        std::map<std::string, int> cats;
        std::set<std::int64_t> evIdx;
        std::set<std::pair<std::int64_t, std::int64_t>> gpuLanes;
        bool stringPid = false;
        for (const Json &e : events) {
            const std::string cat = e.value("cat", "");
            ++cats[cat];
            if (e.at("pid").is_string())
                stringPid = true;
            if (cat == "cpu_op" || cat == "user_annotation") {
                const Json &args = e.at("args");
                QVERIFY(args.contains("External id"));
                QVERIFY(args.at("Record function id").get<std::int64_t>() > 0);
                QVERIFY(evIdx.insert(args.at("Ev Idx").get<std::int64_t>()).second);
            }
            if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
                const Json &args = e.at("args");
                QCOMPARE(args.at("stream").get<std::int64_t>(), e.at("tid").get<std::int64_t>());
                QCOMPARE(args.at("device").get<std::int64_t>(), e.at("pid").get<std::int64_t>());
                QVERIFY(args.contains("correlation"));
                gpuLanes.insert({e.at("pid").get<std::int64_t>(), e.at("tid").get<std::int64_t>()});
            }
        }
        QVERIFY(stringPid); // "Spans", "Traces", "" as in real files
        for (const char *cat : {"cpu_op", "user_annotation", "cuda_runtime", "cuda_driver", "kernel", "gpu_memcpy", "gpu_memset",
                                "gpu_user_annotation", "ac2g", "fwdbwd"})
            QVERIFY2(cats[cat] > 0, cat);
        QCOMPARE(static_cast<std::uint64_t>(cats["kernel"] + cats["gpu_memcpy"] + cats["gpu_memset"]), p.stats.gpuOps);
        // Stream 7 exists on both devices: lanes must be keyed by (device, stream).
        QVERIFY(gpuLanes.count({0, 7}) && gpuLanes.count({1, 7}));
    }

    void truthParentsExistAndEncloseTheirLaunch()
    {
        const Pair p = generate(twoDevices());
        const Json kineto = Json::parse(p.kineto);
        const Json host = Json::parse(p.host);
        std::map<std::int64_t, const Json *> cpuByEvIdx;
        std::map<std::int64_t, const Json *> runtimeByCorrelation;
        for (const Json &e : kineto.at("traceEvents")) {
            const std::string cat = e.value("cat", "");
            if (cat == "cpu_op" || cat == "user_annotation")
                cpuByEvIdx[e.at("args").at("Ev Idx").get<std::int64_t>()] = &e;
            if (cat == "cuda_runtime" || cat == "cuda_driver")
                QVERIFY(runtimeByCorrelation.emplace(e.at("args").at("correlation").get<std::int64_t>(), &e).second);
        }
        std::map<std::int64_t, const Json *> nodeById;
        for (const Json &n : host.at("nodes"))
            nodeById[n.at("id").get<std::int64_t>()] = &n;

        const std::vector<Json> truth = truthLines(p.truth);
        QCOMPARE(static_cast<std::uint64_t>(truth.size()), p.stats.gpuOps);
        std::map<std::string, int> parentCats;
        for (const Json &t : truth) {
            const Json &launch = *runtimeByCorrelation.at(t.at("correlation").get<std::int64_t>());
            QCOMPARE(launch.at("name").get<std::string>(), t.at("launch").at("name").get<std::string>());
            const std::int64_t launchTs = toNs(launch.at("ts"));
            QCOMPARE(launchTs, t.at("launch").at("ts_ns").get<std::int64_t>());

            const Json &parentRef = t.at("parent");
            QVERIFY(parentRef.is_object());
            const Json &parent = *cpuByEvIdx.at(parentRef.at("ev_idx").get<std::int64_t>());
            QCOMPARE(parent.at("name").get<std::string>(), parentRef.at("name").get<std::string>());
            QCOMPARE(parent.at("cat").get<std::string>(), parentRef.at("cat").get<std::string>());
            QVERIFY(parent.at("name").get<std::string>().rfind("ProfilerStep#", 0) != 0);
            // Same thread as the launch, and encloses its start.
            QVERIFY(parent.at("pid") == launch.at("pid"));
            QVERIFY(parent.at("tid") == launch.at("tid"));
            const std::int64_t ts = toNs(parent.at("ts"));
            const std::int64_t end = ts + toNs(parent.at("dur"));
            QVERIFY(ts <= launchTs && launchTs + toNs(launch.at("dur")) <= end);
            // Its ET node: same rf_id, same name.
            const Json &node = *nodeById.at(parentRef.at("et_id").get<std::int64_t>());
            QCOMPARE(node.at("name").get<std::string>(), parentRef.at("name").get<std::string>());
            QCOMPARE(attrsOf(node).at("rf_id").get<std::int64_t>(),
                     parent.at("args").at("Record function id").get<std::int64_t>());
            QCOMPARE(parentRef.at("rf_id").get<std::int64_t>(), parent.at("args").at("Record function id").get<std::int64_t>());
            // The GPU op starts after its launch.
            QVERIFY(t.at("ts_ns").get<std::int64_t>() > launchTs);
            ++parentCats[parentRef.at("cat").get<std::string>()];
        }
        QVERIFY(parentCats["cpu_op"] > 0);
        QVERIFY(parentCats["user_annotation"] > 0);
    }

    void ncclKernelsHaveTheRealNesting()
    {
        const Pair p = generate(twoDevices());
        const Json kineto = Json::parse(p.kineto);
        const Json host = Json::parse(p.host);
        std::map<std::int64_t, const Json *> nodeById;
        for (const Json &n : host.at("nodes"))
            nodeById[n.at("id").get<std::int64_t>()] = &n;
        std::vector<const Json *> gpuAnnotations;
        std::map<std::pair<std::int64_t, std::int64_t>, const Json *> kernelByCorrelationTs;
        for (const Json &e : kineto.at("traceEvents")) {
            if (e.value("cat", "") == "gpu_user_annotation")
                gpuAnnotations.push_back(&e);
            if (e.value("cat", "") == "kernel")
                kernelByCorrelationTs[{e.at("args").at("correlation").get<std::int64_t>(), toNs(e.at("ts"))}] = &e;
        }
        int collectives = 0;
        for (const Json &t : truthLines(p.truth)) {
            const std::string name = t.at("name").get<std::string>();
            if (name.rfind("ncclDevKernel_", 0) != 0)
                continue;
            ++collectives;
            const Json &parent = t.at("parent");
            const Json &byExternalId = t.at("external_id_op");
            // True parent: the nccl:* user annotation; the kernel's External id names record_param_comms.
            QVERIFY(parent.at("name").get<std::string>().rfind("nccl:", 0) == 0);
            QCOMPARE(parent.at("cat").get<std::string>(), std::string("user_annotation"));
            QCOMPARE(byExternalId.at("name").get<std::string>(), std::string("record_param_comms"));
            QCOMPARE(parent.at("external_id").get<std::int64_t>(), byExternalId.at("external_id").get<std::int64_t>() + 1);
            const Json &kernel = *kernelByCorrelationTs.at(
                {t.at("correlation").get<std::int64_t>(), t.at("ts_ns").get<std::int64_t>()});
            QCOMPARE(kernel.at("args").at("External id").get<std::int64_t>(), byExternalId.at("external_id").get<std::int64_t>());
            QVERIFY(kernel.at("args").contains("Collective name"));
            // In the ET, nccl:* is a child of record_param_comms.
            const Json &node = *nodeById.at(parent.at("et_id").get<std::int64_t>());
            QCOMPARE(node.at("ctrl_deps").get<std::int64_t>(), byExternalId.at("et_id").get<std::int64_t>());
            // A gpu_user_annotation with the annotation's External id covers the kernel on its stream.
            bool mirrored = false;
            for (const Json *a : gpuAnnotations) {
                if ((*a).at("args").at("External id") == parent.at("external_id") && (*a).at("pid") == kernel.at("pid")
                    && (*a).at("tid") == kernel.at("tid") && toNs((*a).at("ts")) <= toNs(kernel.at("ts"))
                    && toNs((*a).at("ts")) + toNs((*a).at("dur")) >= toNs(kernel.at("ts")) + toNs(kernel.at("dur")))
                    mirrored = true;
            }
            QVERIFY(mirrored);
        }
        QCOMPARE(static_cast<std::uint64_t>(collectives), p.stats.collectives);
        QVERIFY(collectives >= 3);
    }

    void graphLaunchFansOutUnderOneCorrelation()
    {
        const Pair p = generate(twoDevices());
        std::map<std::int64_t, int> kernelsPerGraphLaunch;
        int finishedSiblingTraps = 0;
        for (const Json &t : truthLines(p.truth)) {
            if (t.at("launch").at("name") == "cudaGraphLaunch") {
                ++kernelsPerGraphLaunch[t.at("correlation").get<std::int64_t>()];
                QVERIFY(t.at("external_id_op").is_null()); // only user annotations enclose it
            }
            const Json &latest = t.at("latest_starting");
            if (latest.is_object() && latest.at("ev_idx") != t.at("parent").at("ev_idx"))
                ++finishedSiblingTraps;
        }
        QCOMPARE(static_cast<std::uint64_t>(kernelsPerGraphLaunch.size()), p.stats.graphLaunches);
        for (const auto &[correlation, kernels] : kernelsPerGraphLaunch)
            QVERIFY(kernels >= 3);
        QVERIFY(finishedSiblingTraps > 0);
    }

    void etIdsFollowStartOrderPerThread()
    {
        const Pair p = generate(twoDevices());
        const Json kineto = Json::parse(p.kineto);
        const Json host = Json::parse(p.host);
        std::map<std::int64_t, std::int64_t> idByRf;
        for (const Json &n : host.at("nodes"))
            idByRf[attrsOf(n).at("rf_id").get<std::int64_t>()] = n.at("id").get<std::int64_t>();
        std::vector<std::pair<std::int64_t, std::int64_t>> startAndId; // all threads: ids are taken at entry
        for (const Json &e : kineto.at("traceEvents")) {
            const std::string cat = e.value("cat", "");
            if (cat == "cpu_op" || cat == "user_annotation")
                startAndId.push_back({toNs(e.at("ts")), idByRf.at(e.at("args").at("Record function id").get<std::int64_t>())});
        }
        std::sort(startAndId.begin(), startAndId.end());
        for (std::size_t i = 1; i < startAndId.size(); ++i)
            if (startAndId[i].first != startAndId[i - 1].first)
                QVERIFY(startAndId[i].second > startAndId[i - 1].second);
    }

    void missingHostNodesMoveTheTruthToAnAncestor()
    {
        GeneratorOptions o = twoDevices();
        o.missingHostNodePercent = 15;
        const Pair p = generate(o);
        const Json host = Json::parse(p.host);
        const Json kineto = Json::parse(p.kineto);
        std::map<std::int64_t, std::int64_t> etIdByRf;
        for (const Json &n : host.at("nodes"))
            etIdByRf[attrsOf(n).at("rf_id").get<std::int64_t>()] = n.at("id").get<std::int64_t>();
        std::map<std::int64_t, const Json *> cpuByEvIdx;
        std::size_t kinetoCpuOps = 0;
        for (const Json &e : kineto.at("traceEvents")) {
            const std::string cat = e.value("cat", "");
            if (cat == "cpu_op" || cat == "user_annotation") {
                cpuByEvIdx[e.at("args").at("Ev Idx").get<std::int64_t>()] = &e;
                ++kinetoCpuOps;
            }
        }
        // Process root + 3 thread roots + the ops that kept their node.
        QVERIFY(host.at("nodes").size() < kinetoCpuOps + 4);
        int attachedToAncestor = 0;
        for (const Json &t : truthLines(p.truth)) {
            const Json &parent = t.at("parent");
            QCOMPARE(etIdByRf.at(parent.at("rf_id").get<std::int64_t>()), parent.at("et_id").get<std::int64_t>());
            if (!t.contains("innermost"))
                continue;
            ++attachedToAncestor;
            const Json &innermost = t.at("innermost");
            QVERIFY(!etIdByRf.count(innermost.at("rf_id").get<std::int64_t>()));
            // The innermost op is nested inside the named ancestor, on the same thread.
            const Json &inner = *cpuByEvIdx.at(innermost.at("ev_idx").get<std::int64_t>());
            const Json &outer = *cpuByEvIdx.at(parent.at("ev_idx").get<std::int64_t>());
            QVERIFY(inner.at("tid") == outer.at("tid"));
            QVERIFY(toNs(outer.at("ts")) <= toNs(inner.at("ts")));
            QVERIFY(toNs(inner.at("ts")) + toNs(inner.at("dur")) <= toNs(outer.at("ts")) + toNs(outer.at("dur")));
        }
        QVERIFY(attachedToAncestor > 0);
        // The default writes every node.
        QVERIFY(!QString::fromStdString(generate(twoDevices()).truth).contains(QStringLiteral("\"innermost\"")));
    }

    void deterministicForASeed()
    {
        GeneratorOptions o = twoDevices();
        const Pair a = generate(o);
        const Pair b = generate(o);
        QVERIFY(a.host == b.host);
        QVERIFY(a.kineto == b.kineto);
        QVERIFY(a.truth == b.truth);
        o.seed = 12;
        const Pair c = generate(o);
        QVERIFY(a.kineto != c.kineto);
    }

    void targetBytesStopsJustPastTheTarget()
    {
        GeneratorOptions o;
        o.seed = 5;
        o.targetKinetoBytes = 300 * 1024;
        const Pair p = generate(o);
        QCOMPARE(static_cast<std::uint64_t>(p.kineto.size()), p.stats.kinetoBytes);
        QVERIFY(p.stats.kinetoBytes >= o.targetKinetoBytes);
        // One step of the default shape is well under 200 KB, so it overshoots by less than that.
        QVERIFY(p.stats.kinetoBytes < o.targetKinetoBytes + 200 * 1024);
        QVERIFY(p.stats.steps > 1);
        QVERIFY(Json::accept(p.kineto)); // still one valid document
    }

    void impossibleFaultsAreRefusedNamingWhatIsValid()
    {
        // 8 ranks, tp 2: rank 5 is in groups 0 (default_pg), 3 (tensor_parallel 4-5) and 6
        // (data_parallel 1,3,5,7). Each impossible fault is refused before anything is written,
        // naming the valid choice (issue 28, item 3); a possible one still writes its job.
        const QString dir = QDir::temp().filePath(
            QStringLiteral("linkscope-test-faults-%1").arg(QCoreApplication::applicationPid()));
        QDir(dir).removeRecursively();
        auto refusal = [&](const std::string &spec) -> std::string {
            GeneratorOptions o;
            o.seed = 5;
            o.steps = 1;
            o.layers = 2;
            o.worldSize = 8;
            GeneratorFault f;
            if (!parseFault(spec, f))
                return "unparsed";
            o.faults.push_back(f);
            try {
                generateJob(o, dir.toStdString(), false, 2);
            } catch (const std::invalid_argument &e) {
                return e.what();
            }
            return {};
        };
        const std::string notInGroup = refusal("skip:5:1:1");
        QVERIFY2(notInGroup.find("rank 5 is not in process group 1") != std::string::npos, notInGroup.c_str());
        QVERIFY2(notInGroup.find("3 (tensor_parallel, ranks 4,5)") != std::string::npos, notInGroup.c_str());
        QVERIFY2(notInGroup.find("6 (data_parallel, ranks 1,3,5,7)") != std::string::npos, notInGroup.c_str());
        QVERIFY2(notInGroup.find("0 (default_pg, ranks 0-7)") != std::string::npos, notInGroup.c_str());
        QVERIFY(!QFileInfo::exists(dir)); // nothing written
        const std::string noGroup = refusal("skip:5:99:1");
        QVERIFY2(noGroup.find("not in process group 99") != std::string::npos, noGroup.c_str());
        const std::string noRank = refusal("skip:12:1:1");
        QVERIFY2(noRank.find("the job has ranks 0-7") != std::string::npos, noRank.c_str());
        const std::string pastTheEnd = refusal("skip:5:3:99");
        QVERIFY2(pastTheEnd.find("rank 5 issues collectives 0-") != std::string::npos
                     && pastTheEnd.find("in 1 step") != std::string::npos,
                 pastTheEnd.c_str());
        const std::string noRecv = refusal("drop-recv:4:0:0");
        QVERIFY2(noRecv.find("posts no receive") != std::string::npos, noRecv.c_str());
        QVERIFY(!QFileInfo::exists(dir));
        QCOMPARE(refusal("skip:5:3:1"), std::string());
        QVERIFY(QFileInfo::exists(dir + QStringLiteral("/kineto_5.json")));
        QDir(dir).removeRecursively();
    }

    void byteSizesParse()
    {
        std::uint64_t bytes = 0;
        QVERIFY(parseByteSize("1G", bytes));
        QCOMPARE(bytes, std::uint64_t(1) << 30);
        QVERIFY(parseByteSize("64k", bytes));
        QCOMPARE(bytes, std::uint64_t(65536));
        QVERIFY(parseByteSize("1234", bytes));
        QCOMPARE(bytes, std::uint64_t(1234));
        QVERIFY(!parseByteSize("", bytes));
        QVERIFY(!parseByteSize("12X", bytes));
        QVERIFY(!parseByteSize("G", bytes));
    }
};

QTEST_GUILESS_MAIN(TestGenerator)
#include "test_generator.moc"
