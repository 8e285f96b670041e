// `linkscope export --corrections SIDECAR`: the sidecar beside the seed fixture pair is applied
// before export, and the files equal an in-process export of the same corrected links (what the
// GUI's export does); a sidecar made from other inputs is refused and left as it was, unless forced.

#include "commands/commands.h"
#include "edit/correction.h"
#include "edit/sidecar.h"
#include "export/exporter.h"
#include "io/tracereader.h"
#include "link/linker.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace linkscope::core;

namespace {
using linkscope::test::readFile;

EventIndex eventNamed(const DeviceTrace &device, std::string_view prefix, EventCategory category)
{
    for (EventIndex i{0}; i.in(device.events.size()); ++i)
        if (device.event(i).category == category && device.name(device.event(i)).substr(0, prefix.size()) == prefix)
            return i;
    return kNone;
}
} // namespace

class TestCorrectionsCli : public QObject {
    Q_OBJECT
private slots:
    void exportAppliesSidecar();
};

void TestCorrectionsCli::exportAppliesSidecar()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string host = dir.filePath("seed_host_et.json").toStdString();
    const std::string device = dir.filePath("seed_kineto.json").toStdString();
    std::filesystem::copy_file(linkscope::test::dataPath("export/seed_host_et.json"), host);
    std::filesystem::copy_file(linkscope::test::dataPath("export/seed_kineto.json"), device);

    // The seed correction (docs/linking.md, The linkage rule) under the external-id policy, saved where the GUI would put it.
    HostTrace hostTrace = readHostTrace(host);
    DeviceTrace deviceTrace = readKinetoTrace(device);
    LinkOptions options;
    options.policy = Policy::ExternalId;
    LinkSet links = linkTraces(deviceTrace, &hostTrace, options);
    const EventIndex kernel = eventNamed(deviceTrace, "ncclDevKernel", EventCategory::Kernel);
    const EventIndex annotation = eventNamed(deviceTrace, "nccl:_all_gather_base", EventCategory::UserAnnotation);
    const EventIndex comms = eventNamed(deviceTrace, "record_param_comms", EventCategory::CpuOp);
    QVERIFY(kernel.valid() && annotation.valid() && comms.valid());
    QCOMPARE(links.gpuLinks[links.gpuLinkOf[kernel]].parent, comms); // Chakra HEAD's wrong choice (docs/linking.md)
    Sidecar sidecar;
    sidecar.device = fingerprintFile(device);
    sidecar.host = fingerprintFile(host);
    sidecar.policy = Policy::ExternalId;
    {
        LinkEditor editor(links, deviceTrace, &hostTrace);
        sidecar.log.entries.push_back({"fix", {editor.reparent(kernel, annotation)}});
    }
    const std::string sidecarPath = defaultSidecarPath(device);
    saveSidecar(sidecar, sidecarPath);
    const std::string sidecarText = readFile(sidecarPath);

    // In process: apply, export (the GUI path).
    const ApplyResult applied = applyCorrections(sidecar.log, links, deviceTrace, &hostTrace);
    QCOMPARE(applied.count(EditStatus::Applied), std::size_t(1));
    QCOMPARE(links.gpuLinks[links.gpuLinkOf[kernel]].parent, annotation);
    ExportRequest request;
    request.outputs["et"] = dir.filePath("gui.et").toStdString();
    request.outputs["etplus"] = dir.filePath("gui.etplus.json").toStdString();
    request.outputs["perfetto"] = dir.filePath("gui.perfetto.json").toStdString();
    exportLinkedPair(hostTrace, deviceTrace, links, request);

    // The command line, with the sidecar (its policy is used: external-id).
    const std::string et = dir.filePath("cli.et").toStdString();
    const std::string etPlus = dir.filePath("cli.etplus.json").toStdString();
    const std::string perfetto = dir.filePath("cli.perfetto.json").toStdString();
    std::ostringstream out, err;
    QCOMPARE(linkscope::cli::runExport({"--host", host, "--device", device, "--corrections", sidecarPath, "--et", et, "--etplus",
                                        etPlus, "--perfetto", perfetto},
                                       out, err),
             0);
    QVERIFY2(err.str().find("1 applied, 0 unchanged, 0 stale, 0 rejected") != std::string::npos, err.str().c_str());
    QVERIFY(readFile(et) == readFile(request.path("et")));
    QVERIFY(readFile(etPlus) == readFile(request.path("etplus")));
    QVERIFY(readFile(perfetto) == readFile(request.path("perfetto")));
    QVERIFY(!readFile(et).empty());
    // And the correction is in the output: ET+ has the kernel right after nccl:_all_gather_base.
    const std::string etPlusText = readFile(etPlus);
    QVERIFY(etPlusText.find("nccl:_all_gather_base") < etPlusText.find("ncclDevKernel"));

    // Other inputs (the device trace changed): refused, nothing written, the sidecar as it was.
    {
        std::ofstream(device, std::ios::app) << "\n";
    }
    const std::string refused = dir.filePath("refused.et").toStdString();
    std::ostringstream out2, err2;
    QCOMPARE(linkscope::cli::runExport({"--host", host, "--device", device, "--corrections", sidecarPath, "--et", refused}, out2,
                                       err2),
             1);
    QVERIFY2(err2.str().find("made from other inputs") != std::string::npos, err2.str().c_str());
    QVERIFY(err2.str().find("bytes") != std::string::npos); // the size difference is named
    QVERIFY(!std::filesystem::exists(refused));
    QCOMPARE(readFile(sidecarPath), sidecarText);

    // Forced: applied, with the mismatch as a warning.
    std::ostringstream out3, err3;
    QCOMPARE(linkscope::cli::runExport(
                 {"--host", host, "--device", device, "--corrections", sidecarPath, "--force-corrections", "--et", refused}, out3,
                 err3),
             0);
    QVERIFY(err3.str().find("warning: " + sidecarPath) != std::string::npos);
    QVERIFY(err3.str().find("1 applied") != std::string::npos);
    QVERIFY(readFile(refused) == readFile(request.path("et"))); // a trailing newline changes nothing linked
    QCOMPARE(readFile(sidecarPath), sidecarText);
}

QTEST_GUILESS_MAIN(TestCorrectionsCli)
#include "test_corrections_cli.moc"
