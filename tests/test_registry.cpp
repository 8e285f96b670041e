// The input-format table and the export-target table take rows at run time: a toy format and a toy
// target (tests/toyformat/, tests/toytarget/), registered only here, go through everything a built-in one does —
// detection (once per file: the pair carries its row), openPair, job discovery, `linkscope
// inspect`, exportLinkedPair with its report, `linkscope export` (its option, its help, its
// messages, a Kineto trace alone) and the default output names — and nothing else in Linkscope
// names them; the file dialogs' filter, the default output names and a job's rank and world size come
// from the format's row. Also: the Kineto-only Perfetto export from the CLI, and what it refuses.

#include "clitestsupport.h"
#include "export/outputnames.h"
#include "job/discovery.h"
#include "pipeline/pairpipeline.h"
#include "report/inspect.h"
#include "toyformat/toyformat.h"
#include "toytarget/toytarget.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace linkscope;
using namespace linkscope::core;
using test::CliRun;
using test::dataPath;
using test::readFile;

namespace {

// "<gpu op> <- <parent>" of a pair opened from the seed files.
std::string linksOf(const OpenedPair &pair) { return test::toyLinksText(*pair.device, *pair.links); }

} // namespace

class TestRegistry : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_host = dataPath("export/seed_host_et.json");
        m_kineto = dataPath("export/seed_kineto.json");
        m_toy = path("seed_toy.trace");
        test::writeToyTrace(m_kineto, m_toy);
    }
    void cleanup() { m_dir.reset(); }

    void aToyFormatIsUnknownUntilItsRowIsAdded()
    {
        QVERIFY(!detectInputFormat(m_toy));
        QCOMPARE(sniffTraceKind(m_toy), kUnknownKind);
        QVERIFY_THROWS_EXCEPTION(LoadError, openPair(request(m_toy, m_host)));
        {
            test::ToyFormatRow toy;
            const InputFormat *row = detectInputFormat(m_toy);
            QVERIFY(row);
            QCOMPARE(row->kind, std::string(test::kToyKind));
            QCOMPARE(row->role, TraceRole::Device);
            QCOMPARE(inputFormats().find(test::kToyKind), row);
            // A kind is taken once; a row without a detector is refused.
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, inputFormats().add(test::toyFormat()));
            InputFormat blind = test::toyFormat();
            blind.kind = "blind";
            blind.detect = nullptr;
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, inputFormats().add(blind));
        }
        QVERIFY(!detectInputFormat(m_toy));
        QVERIFY(!inputFormats().find(test::kToyKind));
    }

    void aToyFormatsRowNamesItsFiles()
    {
        const std::string builtIn = "Traces (*.json *.json.gz *.gz);;All files (*)";
        QCOMPARE(inputFileFilter(), builtIn);
        QCOMPARE(traceBaseName("rank0.trace"), std::string("rank0.trace")); // the Kineto row's suffixes
        test::ToyFormatRow toy;
        const InputFormat *row = inputFormats().find(test::kToyKind);
        QVERIFY(row);
        // The open dialogs offer its files; the outputs made from one are named without its suffix.
        QCOMPARE(inputFileFilter(), std::string("Traces (*.json *.json.gz *.gz *.trace);;All files (*)"));
        QCOMPARE(traceBaseName("rank0.trace.gz", row), std::string("rank0"));
        QCOMPARE(defaultExportPaths("/t/rank0.trace", false, row).at("etplus"), std::string("/t/rank0.etplus.json"));
        QCOMPARE(defaultExportPaths("/t/rank0.pt.trace.json").at("etplus"), std::string("/t/rank0.etplus.json"));
        // A job's rank and world size are what its row reads from the file's head.
        const std::string declared = path("declared.trace");
        writeFileAtomically(declared, std::string(test::kToyHeader)
                                          + R"({"distributedInfo": {"rank": 3, "world_size": 4}, "traceEvents": []})");
        const RankHeader header = peekRankHeader(declared);
        QCOMPARE(header.rank, std::int64_t(3));
        QCOMPARE(header.worldSize, std::int64_t(4));
        const job::JobLayout layout = job::discoverJob({declared});
        QVERIFY2(layout.errors.empty(), layout.errors.empty() ? "" : layout.errors.front().c_str());
        QCOMPARE(layout.ranks.size(), std::size_t(1));
        QCOMPARE(layout.ranks[0].rank, std::int64_t(3));
        QCOMPARE(layout.ranks[0].worldSize, std::int64_t(4));
        QCOMPARE(layout.worldSize, std::int64_t(4));
    }

    void aToyFormatOpensAsTheDeviceTraceOfAPair()
    {
        test::ToyFormatRow toy;
        // Either order: the row's role says which file is the device trace, and the pair carries
        // the rows it detected, so the load stage does not detect them again.
        PairFiles files = resolvePairFiles(m_toy, m_host);
        QCOMPARE(files.host, m_host);
        QCOMPARE(files.device, m_toy);
        QVERIFY(files.deviceFormat && files.hostFormat);
        QCOMPARE(files.deviceFormat->kind, std::string(test::kToyKind));
        QCOMPARE(files.hostFormat->kind, std::string(kHostEtKind));
        files = resolvePairFiles(m_host, m_toy);
        QCOMPARE(files.device, m_toy);
        // Alone it is a device trace too (a host ET alone is refused).
        QCOMPARE(resolvePairFiles(m_toy, {}).device, m_toy);

        // openPair links it exactly as it links the Kineto trace it wraps, detecting it once: the
        // resolve stage's row is the one the load stage reads with.
        test::toyDetections = 0;
        const OpenedPair fromToy = openPair(request(m_toy, m_host));
        QCOMPARE(test::toyDetections.load(), 1);
        const OpenedPair fromKineto = openPair(request(m_kineto, m_host));
        QCOMPARE(fromToy.files.device, m_toy);
        QCOMPARE(fromToy.device->events.size(), fromKineto.device->events.size());
        QVERIFY(fromToy.links->gpuLinks.size() > 0);
        QCOMPARE(linksOf(fromToy), linksOf(fromKineto));
        const OpenedPair alone = openPair(request(m_toy, {}));
        QVERIFY(!alone.host);
        QCOMPARE(alone.device->events.size(), fromKineto.device->events.size());
    }

    void aToyFormatIsDiscoveredAndInspected()
    {
        test::ToyFormatRow toy;
        const std::string job = path("job");
        std::filesystem::create_directory(job);
        std::filesystem::copy_file(m_host, job + "/host_0.json");
        test::writeToyTrace(m_kineto, job + "/device_0.trace");
        test::toyDetections = 0;
        const job::JobLayout layout = job::discoverJob({job});
        QCOMPARE(test::toyDetections.load(), 1);
        QVERIFY2(layout.errors.empty(), layout.errors.empty() ? "" : layout.errors.front().c_str());
        QCOMPARE(layout.ranks.size(), std::size_t(1));
        QCOMPARE(layout.ranks[0].device, job + "/device_0.trace");
        QCOMPARE(layout.ranks[0].host, job + "/host_0.json");
        QVERIFY(layout.ranks[0].deviceFormat);
        QCOMPARE(layout.ranks[0].deviceFormat->kind, std::string(test::kToyKind));
        // The rank's pair carries the rows discovery detected: opening it detects nothing again.
        PairRequest rank;
        rank.files = {layout.ranks[0].host, layout.ranks[0].device, layout.ranks[0].hostFormat, layout.ranks[0].deviceFormat};
        QVERIFY(openPair(rank).links->gpuLinks.size() > 0);
        QCOMPARE(test::toyDetections.load(), 1);

        const InspectReport report = inspectTraces({m_host, m_toy});
        QVERIFY(report.allLoaded());
        QCOMPARE(report.traces[1].kind, std::string(test::kToyKind));
        QCOMPARE(report.traces[1].content, TraceSummary::Content::Device);
        QVERIFY(report.traces[1].events > 0);
        QCOMPARE(report.pairs.size(), std::size_t(1)); // paired with the host ET as a Kineto trace is
        const CliRun inspect = test::runCli(cli::runInspect, {m_toy});
        QCOMPARE(inspect.code, 0);
        QVERIFY2(inspect.out.find("kind: toy") != std::string::npos, inspect.out.c_str());
    }

    void aToyTargetIsWrittenAndReported()
    {
        test::ToyTargetRow toy;
        const OpenedPair pair = openPair(request(m_kineto, m_host));
        ExportRequest request;
        request.outputs[std::string(test::kToyTarget)] = path("links.toy.txt");
        request.outputs[std::string(kPerfettoTarget)] = path("links.perfetto.json");
        std::vector<std::string> stages;
        request.progress = [&](std::string_view stage, std::size_t, std::size_t) {
            stages.emplace_back(stage);
            return true;
        };
        const ExportReport report = exportLinkedPair(*pair.host, *pair.device, *pair.links, request);
        const std::string written = readFile(path("links.toy.txt"));
        QCOMPARE(written, linksOf(pair));
        QCOMPARE(report.bytesOf(test::kToyTarget), std::uint64_t(written.size()));
        QCOMPARE(report.totalBytes(), written.size() + readFile(path("links.perfetto.json")).size());
        const nlohmann::json json = report.toJson();
        QCOMPARE(json["bytes"]["toy"].get<std::uint64_t>(), std::uint64_t(written.size()));
        QCOMPARE(json["bytes"]["et"].get<std::uint64_t>(), std::uint64_t(0)); // every target, written or not
        // In table order: after the built-in ones.
        QCOMPARE(stages,
                 (std::vector<std::string>{"building the ET+ graph", "writing the Perfetto trace", "writing the toy", "done"}));
        // Its default name is beside the Kineto trace, with its suffix.
        QCOMPARE(defaultExportPaths("/t/rank0.pt.trace.json").at("toy"), std::string("/t/rank0.toy.txt"));
        // A name the table does not have is refused before anything is written.
        ExportRequest unknown;
        unknown.outputs["nosuch"] = path("x");
        QVERIFY_THROWS_EXCEPTION(ExportError, exportLinkedPair(*pair.host, *pair.device, *pair.links, unknown));
    }

    void theCliHasAnOptionPerTarget()
    {
        test::ToyFormatRow toyFormat;
        test::ToyTargetRow toyTarget;
        const CliRun help = test::runCli(cli::runExport, {"--help"});
        QCOMPARE(help.code, 0);
        QVERIFY2(help.out.find("  --toy OUT.txt         each GPU op and its parent, one a line\n") != std::string::npos,
                 help.out.c_str());
        QVERIFY2(help.out.find("--etplus (--output-file), --et, --perfetto or --toy") != std::string::npos, help.out.c_str());

        // A toy format in, a toy target out, through `linkscope export`.
        const CliRun run = test::runCli(cli::runExport, {"--host", m_host, "--device", m_toy, "--toy", path("cli.toy.txt"),
                                                         "--etplus", path("cli.etplus.json"), "--report"});
        QCOMPARE(run.code, 0);
        const OpenedPair pair = openPair(request(m_kineto, m_host));
        QCOMPARE(readFile(path("cli.toy.txt")), linksOf(pair));
        const std::string wrote = "export: wrote " + path("cli.toy.txt") + " (" + std::to_string(linksOf(pair).size())
                                  + " bytes, toy of ";
        QVERIFY2(run.err.find(wrote) != std::string::npos, run.err.c_str());
        QVERIFY2(run.err.find("export: wrote " + path("cli.etplus.json")) < run.err.find(wrote), run.err.c_str());
        const nlohmann::json report = nlohmann::json::parse(run.out);
        QCOMPARE(report["bytes"]["toy"].get<std::uint64_t>(), std::uint64_t(linksOf(pair).size()));

        // The toy target needs no host ET: the toy trace alone is exported.
        const CliRun alone = test::runCli(cli::runExport, {"--device", m_toy, "--toy", path("alone.toy.txt")});
        QCOMPARE(alone.code, 0);
        QCOMPARE(readFile(path("alone.toy.txt")), linksOf(openPair(request(m_kineto, {}))));
        const CliRun nothing = test::runCli(cli::runExport, {"--device", m_toy});
        QCOMPARE(nothing.code, 2);
        QVERIFY2(nothing.has("nothing to write: give --etplus (--output-file), --et, --perfetto or --toy"),
                 nothing.all().c_str());
    }

    void aKinetoTraceAloneExportsPerfettoFromTheCli()
    {
        const std::string out = path("alone.perfetto.json");
        const CliRun run = test::runCli(cli::runExport, {"--device", m_kineto, "--perfetto", out});
        QCOMPARE(run.code, 0);
        QVERIFY2(run.has("export: wrote " + out + " ("), run.all().c_str());
        // What the GUI writes for a Kineto trace alone: the Perfetto writer without a host.
        const OpenedPair pair = openPair(request(m_kineto, {}));
        const std::string gui = path("gui.perfetto.json");
        writePerfettoTrace(gui, *pair.device, *pair.links, nullptr);
        QVERIFY(!readFile(out).empty());
        QVERIFY(readFile(out) == readFile(gui));
        // The targets that need the host ET are refused, with the ones that do not named.
        for (const char *option : {"--et", "--etplus"}) {
            const CliRun refused = test::runCli(cli::runExport, {"--device", m_kineto, option, path("x.out")});
            QCOMPARE(refused.code, 2);
            QVERIFY2(refused.has(std::string("export: ") + option + " needs the host ET (--host)"), refused.all().c_str());
            QVERIFY2(refused.has("a Kineto trace alone can be written with --perfetto"), refused.all().c_str());
            QVERIFY(!QFileInfo::exists(QString::fromStdString(path("x.out"))));
        }
        ExportRequest request;
        request.outputs[std::string(kEtTarget)] = path("y.et");
        QVERIFY_THROWS_EXCEPTION(ExportError, exportLinkedPair(nullptr, *pair.device, *pair.links, request));
    }

private:
    std::string path(const char *name) const { return m_dir->filePath(QString::fromLatin1(name)).toStdString(); }

    static PairRequest request(const std::string &first, const std::string &second)
    {
        PairRequest r;
        r.files = {first, second};
        r.resolveOrder = true;
        return r;
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::string m_host, m_kineto, m_toy;
};

QTEST_MAIN(TestRegistry)
#include "test_registry.moc"
