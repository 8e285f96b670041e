// The pair pipeline (core/pipeline/pairpipeline.h) and the input-format table (core/io/formats.h):
// files told apart by content in either order, every stage reported in order, cancel from any
// stage, a sidecar applied (or refused when made from other inputs), and `linkscope link
// --corrections` writing the corrected links.

#include "commands/commands.h"
#include "edit/correction.h"
#include "edit/sidecar.h"
#include "io/formats.h"
#include "pipeline/pairpipeline.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

using namespace linkscope::core;
using linkscope::test::dataPath;
using linkscope::test::readFile;

namespace {

EventIndex eventNamed(const DeviceTrace &device, std::string_view prefix, EventCategory category)
{
    for (EventIndex i{0}; i.in(device.events.size()); ++i)
        if (device.event(i).category == category && device.name(device.event(i)).substr(0, prefix.size()) == prefix)
            return i;
    return kNone;
}

// The line of the link table (JSON Lines) for the GPU op named `kernel`.
std::string linkLineOf(const std::string &table, const std::string &kernel)
{
    std::istringstream lines(table);
    for (std::string line; std::getline(lines, line);)
        if (line.find("\"name\":\"" + kernel) != std::string::npos)
            return line;
    return {};
}

} // namespace

class TestPipeline : public QObject {
    Q_OBJECT

private slots:
    void formatTableDetectsByContent()
    {
        const InputFormat *host = detectInputFormat(dataPath("export/seed_host_et.json"));
        const InputFormat *device = detectInputFormat(dataPath("export/seed_kineto.json"));
        const InputFormat *etPlus = detectInputFormat(dataPath("export/seed_nesting.etplus.json"));
        const InputFormat *et = detectInputFormat(dataPath("export/seed_nesting.et"));
        QVERIFY(host && device && etPlus && et);
        QCOMPARE(host->kind, kHostEtKind);
        QCOMPARE(host->role, TraceRole::Host);
        QCOMPARE(device->kind, kKinetoKind);
        QCOMPARE(device->role, TraceRole::Device);
        QCOMPARE(etPlus->kind, kEtPlusKind); // {"nodes": ...} like a host ET, but with device timing
        QCOMPARE(etPlus->role, TraceRole::Output);
        QCOMPARE(et->kind, kChakraEtKind);
        // Every row can detect; every input row can read; kinds are unique; sniffTraceKind reports the row's.
        std::set<std::string> kinds;
        for (const InputFormat &f : inputFormats()) {
            QVERIFY(f.detect != nullptr);
            QVERIFY(f.role != TraceRole::Host || f.readHost != nullptr);
            QVERIFY(f.role != TraceRole::Device || f.readDevice != nullptr);
            QVERIFY(!f.name.empty());
            kinds.insert(f.kind);
        }
        QCOMPARE(kinds.size(), inputFormats().size());
        QCOMPARE(sniffTraceKind(dataPath("export/seed_kineto.json")), kKinetoKind);
        // The name does not matter: a Kineto trace called .et is still a Kineto trace.
        QTemporaryDir dir;
        const std::string renamed = dir.filePath("looks_like.et").toStdString();
        std::filesystem::copy_file(dataPath("export/seed_kineto.json"), renamed);
        QCOMPARE(detectInputFormat(renamed)->kind, kKinetoKind);
        QCOMPARE(loadDeviceTrace(renamed).events.size(), loadDeviceTrace(dataPath("export/seed_kineto.json")).events.size());
        // A file no device row accepts goes to the default device reader, whose error names the file.
        try {
            loadDeviceTrace(dataPath("export/seed_host_et.json"));
            QFAIL("a host ET was read as a device trace");
        } catch (const LoadError &e) {
            QCOMPARE(e.file(), dataPath("export/seed_host_et.json"));
        }
    }

    void pairFilesInEitherOrder()
    {
        const std::string host = dataPath("export/seed_host_et.json");
        const std::string device = dataPath("export/seed_kineto.json");
        PairFiles files = resolvePairFiles(device, host);
        QCOMPARE(files.host, host);
        QCOMPARE(files.device, device);
        files = resolvePairFiles(host, device);
        QCOMPARE(files.host, host);
        QCOMPARE(files.device, device);
        files = resolvePairFiles(device, {});
        QVERIFY(files.host.empty());
        QCOMPARE(files.device, device);
        QVERIFY_THROWS_EXCEPTION(LoadError, resolvePairFiles(host, {}));

        PairRequest request;
        request.files = {device, host}; // swapped
        request.resolveOrder = true;
        const OpenedPair pair = openPair(request);
        QCOMPARE(pair.files.host, host);
        QVERIFY(pair.host && pair.device && pair.links);
        QVERIFY(!pair.host->nodes.empty());
        QVERIFY(!pair.links->gpuLinks.empty());
        QCOMPARE(pair.links, pair.linked); // no sidecar: the linker's links
    }

    void progressInStageOrder()
    {
        std::mutex mutex;
        std::vector<PairStage> seen;
        PairRequest request;
        request.files = {dataPath("export/seed_host_et.json"), dataPath("export/seed_kineto.json")};
        request.progress = [&](PairStage stage, std::uint64_t done, std::uint64_t total) {
            std::lock_guard lock(mutex);
            if (seen.empty() || seen.back() != stage)
                seen.push_back(stage);
            return done <= total || total == 0;
        };
        openPair(request);
        const std::set<PairStage> stages(seen.begin(), seen.end());
        QVERIFY(stages.count(PairStage::HostEt) && stages.count(PairStage::Device));
        QVERIFY(stages.count(PairStage::Link) && stages.count(PairStage::Diagnose));
        // The loads (in parallel, interleaved) come before every later stage, and diagnosis is last.
        const auto firstLater = std::find_if(seen.begin(), seen.end(),
                                             [](PairStage s) { return s != PairStage::HostEt && s != PairStage::Device; });
        QVERIFY(
            std::none_of(firstLater, seen.end(), [](PairStage s) { return s == PairStage::HostEt || s == PairStage::Device; }));
        QCOMPARE(seen.back(), PairStage::Diagnose);
    }

    void cancelFromAnyStage_data()
    {
        QTest::addColumn<int>("stage");
        for (PairStage s : {PairStage::HostEt, PairStage::Device, PairStage::Link, PairStage::Diagnose})
            QTest::newRow(std::string(pairStageName(s)).c_str()) << static_cast<int>(s);
    }
    void cancelFromAnyStage()
    {
        QFETCH(int, stage);
        std::atomic<int> calls{0};
        PairRequest request;
        request.files = {dataPath("export/seed_host_et.json"), dataPath("export/seed_kineto.json")};
        request.progress = [&](PairStage s, std::uint64_t, std::uint64_t) {
            ++calls;
            return static_cast<int>(s) != stage;
        };
        QVERIFY_THROWS_EXCEPTION(Cancelled, openPair(request));
        QVERIFY(calls > 0);
    }

    void sidecarAppliedOrRefused()
    {
        QTemporaryDir dir;
        const std::string host = dir.filePath("seed_host_et.json").toStdString();
        const std::string device = dir.filePath("seed_kineto.json").toStdString();
        std::filesystem::copy_file(dataPath("export/seed_host_et.json"), host);
        std::filesystem::copy_file(dataPath("export/seed_kineto.json"), device);

        // The seed fix (docs/linking.md) under the external-id policy: the NCCL kernel from record_param_comms to
        // the nccl:* annotation enclosing its launch.
        PairRequest request;
        request.files = {host, device};
        request.link.policy = Policy::ExternalId;
        const OpenedPair plain = openPair(request);
        const DeviceTrace &trace = *plain.device;
        const EventIndex kernel = eventNamed(trace, "ncclDevKernel", EventCategory::Kernel);
        const EventIndex annotation = eventNamed(trace, "nccl:_all_gather_base", EventCategory::UserAnnotation);
        const EventIndex comms = eventNamed(trace, "record_param_comms", EventCategory::CpuOp);
        QVERIFY(kernel.valid() && annotation.valid() && comms.valid());
        QCOMPARE(plain.links->gpuLinks[plain.links->gpuLinkOf[kernel]].parent, comms);

        Sidecar sidecar;
        sidecar.device = fingerprintFile(device);
        sidecar.host = fingerprintFile(host);
        sidecar.policy = Policy::ExternalId;
        {
            LinkSet scratch = *plain.links;
            LinkEditor editor(scratch, trace, plain.host.get());
            sidecar.log.entries.push_back({"fix", {editor.reparent(kernel, annotation)}});
        }
        const std::string sidecarPath = dir.filePath("fix.linkscope.json").toStdString();
        saveSidecar(sidecar, sidecarPath);

        // Through the pipeline: the sidecar's policy is used when none is given.
        PairRequest corrected;
        corrected.files = {host, device};
        corrected.policyGiven = false;
        corrected.sidecar = sidecarPath;
        const OpenedPair pair = openPair(corrected);
        QCOMPARE(pair.options.policy, Policy::ExternalId);
        QVERIFY(pair.sidecarApplied);
        QCOMPARE(pair.corrections.count(EditStatus::Applied), std::size_t(1));
        QCOMPARE(pair.links->gpuLinks[pair.links->gpuLinkOf[kernel]].parent, annotation);
        QCOMPARE(pair.linked->gpuLinks[pair.linked->gpuLinkOf[kernel]].parent, comms); // the linker's, kept

        // `linkscope link --corrections`: the link table has the corrected parent.
        const std::string kernelName(trace.name(trace.event(kernel)));
        const std::string before = dir.filePath("before.jsonl").toStdString();
        const std::string after = dir.filePath("after.jsonl").toStdString();
        std::ostringstream out, err;
        QCOMPARE(
            linkscope::cli::runLink({"--host", host, "--device", device, "--policy", "external-id", "--links", before}, out, err),
            0);
        QCOMPARE(linkscope::cli::runLink({"--host", host, "--device", device, "--corrections", sidecarPath, "--links", after},
                                         out, err),
                 0);
        QVERIFY2(err.str().find("corrections: 1 applied, 0 unchanged, 0 stale, 0 rejected") != std::string::npos,
                 err.str().c_str());
        const std::string lineBefore = linkLineOf(readFile(before), kernelName);
        const std::string lineAfter = linkLineOf(readFile(after), kernelName);
        QVERIFY(lineBefore.find("\"parent_name\":\"record_param_comms\"") != std::string::npos);
        QVERIFY2(lineAfter.find("\"parent_name\":\"nccl:_all_gather_base\"") != std::string::npos, lineAfter.c_str());
        QVERIFY(lineAfter.find("\"rule\":\"manual\"") != std::string::npos);

        // Other inputs: not applied by the pipeline, refused by the command (nothing written).
        {
            std::ofstream(device, std::ios::app) << "\n";
        }
        const OpenedPair mismatched = openPair(corrected);
        QVERIFY(!mismatched.sidecarApplied);
        QVERIFY(!mismatched.sidecarCheck.matches);
        QVERIFY(!mismatched.sidecarCheck.problems.empty());
        QCOMPARE(mismatched.links, mismatched.linked);
        const std::string refused = dir.filePath("refused.jsonl").toStdString();
        std::ostringstream out2, err2;
        QCOMPARE(linkscope::cli::runLink({"--host", host, "--device", device, "--corrections", sidecarPath, "--links", refused},
                                         out2, err2),
                 1);
        QVERIFY2(err2.str().find("made from other inputs") != std::string::npos, err2.str().c_str());
        QVERIFY(!std::filesystem::exists(refused));
        // Forced: applied.
        corrected.forceSidecar = true;
        const OpenedPair forced = openPair(corrected);
        QVERIFY(forced.sidecarApplied);
        QCOMPARE(forced.links->gpuLinks[forced.links->gpuLinkOf[kernel]].parent, annotation);
    }
};

QTEST_GUILESS_MAIN(TestPipeline)
#include "test_pipeline.moc"
