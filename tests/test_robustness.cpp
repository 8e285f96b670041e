// Issue 16's reproducers, each one a test: nothing a file can do crashes Linkscope, fills memory or
// costs the user a correction. Every error names the file (and the position where there is one).

#include "commands/commands.h"
#include "edit/correctionsession.h"
#include "edit/inputfingerprint.h"
#include "edit/sidecar.h"
#include "export/chakra/etformat.h"
#include "index/traceindex.h"
#include "io/file/atomicfile.h"
#include "io/file/inputfile.h"
#include "io/file/outputguard.h"
#include "io/formats.h"
#include "io/tracereader.h"
#include "link/linker.h"
#include "testsupport.h"
#include "tracebuilder.h"
#include "tracefixtures.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

using namespace linkscope::core;
using linkscope::test::HostBuilder;
using linkscope::test::TraceBuilder;

class TestRobustness : public QObject {
    Q_OBJECT
private slots:
    void init();
    void deepKinetoMetadata();
    void deepNestingElsewhere();
    void fileTruncatedWhileParsed();
    void fileTruncatedUnderAnotherProcess();
    void timeOverflow();
    void gzipBomb();
    void etZeroBytes();
    void etManyMissingDependencies();
    void specialInputs();
    void byteOrderMark();
    void sidecarNumbersOutOfRange();
    void outputIsAnInput();
    void specialOutputs();
    void temporaryFiles();
    void sidecarSaveKeepsModeAndLinks();
    void twoSessionsOnOneSidecar();
    void nonUtf8FileNames();
    void fingerprintOfTheLoadedFile();

private:
    std::unique_ptr<QTemporaryDir> dir_;
    std::string path(const std::string &name) const { return dir_->filePath(QString::fromStdString(name)).toStdString(); }
};

namespace {

LoadError expectLoadError(const std::function<void()> &load)
{
    try {
        load();
    } catch (const LoadError &e) {
        return e;
    } catch (const std::exception &e) {
        qWarning("unexpected exception: %s", e.what());
        return LoadError("", kUnknownOffset, "wrong exception type");
    }
    qWarning("no LoadError thrown");
    return LoadError("", kUnknownOffset, "nothing thrown");
}

bool contains(const std::string &text, const std::string &fragment) { return text.find(fragment) != std::string::npos; }

bool hasWarning(const std::vector<Diagnostic> &warnings, const std::string &fragment)
{
    for (const auto &w : warnings)
        if (contains(w.message, fragment))
            return true;
    return false;
}

void writeFile(const std::string &path, const std::string &content)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

struct CliResult {
    int code;
    std::string out, err;
};

CliResult run(int (*command)(const linkscope::cli::Args &, std::ostream &, std::ostream &), linkscope::cli::Args args)
{
    std::ostringstream out, err;
    const int code = command(args, out, err);
    return {code, out.str(), err.str()};
}

std::string samplePath(const char *name)
{
    return linkscope::test::sourcePath((std::string("resources/samples/") + name).c_str());
}

std::string kinetoWithMetadata(const std::string &deviceName, const std::string &backend, const std::string &pgDesc)
{
    return R"({"deviceProperties": [{"id": 0, "name": )" + deviceName + R"(}], "distributedInfo": {"backend": )" + backend
           + R"(, "rank": 0, "pg_config": [{"pg_name": "0", "pg_desc": )" + pgDesc
           + R"(, "ranks": [0]}]}, "traceEvents": [{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]})";
}

// A Kineto trace of about `bytes` bytes (many small events), for reads that take a while.
std::string bigKineto(std::size_t bytes)
{
    std::string text = "{\"traceEvents\": [\n";
    for (std::size_t i = 0; text.size() < bytes; ++i) {
        if (i)
            text += ",\n";
        text += R"({"ph":"X","cat":"kernel","name":"kernel_)" + std::to_string(i % 97) + R"(","pid":0,"tid":7,"ts":)"
                + std::to_string(1000 + 10 * i) + R"(,"dur":5,"args":{"correlation":)" + std::to_string(i) + "}}";
    }
    text += "\n]}\n";
    return text;
}

void setAge(const std::string &path, int seconds)
{
    struct timeval times[2];
    gettimeofday(&times[0], nullptr);
    times[0].tv_sec -= seconds;
    times[1] = times[0];
    utimes(path.c_str(), times);
}

std::vector<std::string> temporariesIn(const std::string &dir)
{
    std::vector<std::string> out;
    for (const auto &entry : std::filesystem::directory_iterator(dir))
        if (contains(entry.path().filename().string(), ".tmp."))
            out.push_back(entry.path().string());
    return out;
}

std::string linkscopeBinary() { return linkscope::test::paths::binaryDir() + "/app/linkscope"; }

} // namespace

void TestRobustness::init()
{
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(dir_->isValid());
}

void TestRobustness::deepKinetoMetadata()
{
    // 50,000 nested arrays in deviceProperties[].name, distributedInfo.backend and pg_config[].pg_desc:
    // each was a stack overflow in jsonText() (nlohmann's recursive dump()).
    const std::string deep = std::string(50000, '[') + std::string(50000, ']');
    for (int which = 0; which < 3; ++which) {
        const std::string text = kinetoWithMetadata(which == 0 ? deep : "\"A100\"", which == 1 ? deep : "\"nccl\"",
                                                    which == 2 ? deep : "\"default_pg\"");
        const std::string file = path("deep" + std::to_string(which) + ".json");
        writeFile(file, text);
        const DeviceTrace t = readKinetoTrace(file);
        QCOMPARE(t.events.size(), std::size_t(1));
        QVERIFY(hasWarning(t.warnings, "nested more than 64 levels deep; ignored"));
        const CliResult inspect = run(linkscope::cli::runInspect, {file});
        QCOMPARE(inspect.code, 0);
    }
    // Within the bound, a non-string value becomes compact JSON text.
    const DeviceTrace shallow = parseKinetoTrace(kinetoWithMetadata(R"([["A", 1], {"b": null}])", "\"nccl\"", "\"x\""),
                                                 "shallow.json");
    QCOMPARE(shallow.devices.at(0).name, std::string(R"([["A",1],{"b":null}])"));
    const std::string sixty = std::string(60, '[') + std::string(60, ']');
    const DeviceTrace nested = parseKinetoTrace(kinetoWithMetadata(sixty, "\"nccl\"", "\"x\""), "sixty.json");
    QCOMPARE(nested.devices.at(0).name, sixty);
}

void TestRobustness::deepNestingElsewhere()
{
    const std::string deep = std::string(50000, '[') + std::string(50000, ']');
    // Host ET: a node's attrs and inputs, read by the validating scanner and simdjson, no recursion.
    const HostTrace h = parseHostTrace(R"({"schema": "1.0.1", "nodes": [{"id": 1, "name": "a", "inputs": )" + deep
                                           + R"(, "attrs": [{"name": "x", "type": "string", "value": )" + deep + "}]}]}",
                                       "deep_et.json");
    QCOMPARE(h.nodes.size(), std::size_t(1));
    // Sidecar: refused with the file named, no crash.
    const LoadError e = expectLoadError(
        [&] { parseSidecar(R"({"format": "linkscope-corrections", "version": )" + deep + "}", "deep.linkscope.json"); });
    QCOMPARE(e.file(), std::string("deep.linkscope.json"));
}

void TestRobustness::fileTruncatedWhileParsed()
{
    // The plain readers map the file; shrinking it under them was SIGBUS (exit 135). Now the read
    // stops with a LoadError naming the file and where its bytes ended.
    const std::string text = bigKineto(24u << 20);
    const std::string file = path("shrinking.json");
    writeFile(file, text);
    bool truncated = false;
    const LoadError e = expectLoadError([&] {
        readKinetoTrace(file, [&](std::uint64_t done, std::uint64_t) {
            if (!truncated && done > (2u << 20)) {
                truncated = true;
                if (::truncate(file.c_str(), 4u << 20) != 0)
                    qWarning("truncate failed");
            }
            return true;
        });
    });
    QVERIFY(truncated);
    QCOMPARE(e.file(), file);
    QVERIFY2(contains(e.detail(), "shrank to at most") && contains(e.detail(), "while it was being read"), e.what());
    QVERIFY(e.offset() != kUnknownOffset && e.offset() <= (4u << 20) + 4096);

    // The host ET reader, from another thread this time: the truncation races with the parse.
    std::string host = "{\"schema\": \"1.0.1\", \"nodes\": [";
    for (int i = 1; host.size() < (24u << 20); ++i)
        host +=
            std::string(i > 1 ? ",\n" : "") + "{\"id\": " + std::to_string(i) + ", \"name\": \"aten::op\", \"ctrl_deps\": 1, "
            + R"("inputs": {"values": [1, 2], "shapes": [[], []], "types": ["Int", "Int"]}, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": []})";
    host += "]}";
    const std::string hostFile = path("shrinking_et.json");
    writeFile(hostFile, host);
    std::atomic<bool> started{false};
    std::thread cutter([&] {
        while (!started.load())
            std::this_thread::yield();
        if (::truncate(hostFile.c_str(), 1u << 20) != 0)
            qWarning("truncate failed");
    });
    bool threw = false;
    try {
        readHostTrace(hostFile, [&](std::uint64_t done, std::uint64_t) {
            if (done > (1u << 20))
                started = true;
            return true;
        });
    } catch (const LoadError &le) {
        threw = true;
        QCOMPARE(le.file(), hostFile);
    }
    started = true;
    cutter.join();
    // The cut may land after the parse (then the load stands: all of it was read before the cut).
    Q_UNUSED(threw);
}

void TestRobustness::fileTruncatedUnderAnotherProcess()
{
    // `linkscope inspect v.json & sleep; truncate -s N v.json`: whenever the cut lands, the process
    // exits normally (0, or 1 with the file named), never on a signal.
    const std::string file = path("v.json");
    const std::string text = bigKineto(48u << 20);
    for (int trial = 0; trial < 4; ++trial) {
        writeFile(file, text);
        QProcess p;
        p.start(QString::fromStdString(linkscopeBinary()), {QStringLiteral("inspect"), QString::fromStdString(file)});
        QVERIFY(p.waitForStarted());
        QThread::msleep(static_cast<unsigned long>(20 + 60 * trial));
        QCOMPARE(::truncate(file.c_str(), 1u << 20), 0);
        QVERIFY(p.waitForFinished(120000));
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 0 || p.exitCode() == 1, err.constData());
        if (p.exitCode() == 1)
            QVERIFY2(err.contains(QByteArray::fromStdString(file)), err.constData());
    }
}

void TestRobustness::timeOverflow()
{
    // ts fits in int64 ns; ts + dur does not (or leaves the supported range): skipped with a warning,
    // no signed overflow anywhere after (UBSan in the sanitizer build).
    const DeviceTrace t = parseKinetoTrace(
        R"({"traceEvents": [{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":9223372036854775,"dur":5},)"
        R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":-9223372036854775,"dur":5},)"
        R"({"ph":"X","cat":"kernel","name":"ok","pid":0,"tid":7,"ts":10,"dur":5}]})",
        "overflow.json");
    QCOMPARE(t.events.size(), std::size_t(1));
    QVERIFY(hasWarning(t.warnings, "outside the supported time range"));
    const TraceIndex index = buildTraceIndex(t);
    QCOMPARE(index.lanes.size(), std::size_t(1));
}

void TestRobustness::gzipBomb()
{
    // 256 MiB of zeros compress to ~250 KiB: past the default limit (100 x, at least 64 MiB).
    const std::string bomb = path("bomb.json.gz");
    QProcess sh;
    sh.start(
        QStringLiteral("sh"),
        {QStringLiteral("-c"), QStringLiteral("head -c 268435456 /dev/zero | gzip -1 > '%1'").arg(QString::fromStdString(bomb))});
    QVERIFY(sh.waitForFinished(120000) && sh.exitCode() == 0);
    for (int reader = 0; reader < 3; ++reader) {
        const LoadError e = expectLoadError([&] {
            if (reader == 0)
                readKinetoTrace(bomb);
            else if (reader == 1)
                readHostTrace(bomb);
            else
                readChakraEt(bomb);
        });
        QCOMPARE(e.file(), bomb);
        QVERIFY2(contains(e.detail(), "decompression bomb") && contains(e.detail(), "LINKSCOPE_GZIP_LIMIT"), e.what());
    }
    const std::string bytes = linkscope::test::readFile(bomb);
    const LoadError inMemory = expectLoadError([&] { parseKinetoTrace(bytes, "bomb-in-memory.gz"); });
    QVERIFY2(contains(inMemory.detail(), "decompression bomb"), inMemory.what());
    // The override: read it anyway (and then it is zeros, not JSON).
    ::setenv("LINKSCOPE_GZIP_LIMIT", "unlimited", 1);
    const LoadError anyway = expectLoadError([&] { readKinetoTrace(bomb); });
    QVERIFY2(!contains(anyway.detail(), "decompression bomb"), anyway.what());
    ::setenv("LINKSCOPE_GZIP_LIMIT", "1M", 1);
    const LoadError small = expectLoadError([&] {
        parseKinetoTrace(linkscope::test::gzipBytes(QByteArray(bigKineto(2u << 20).c_str())).toStdString(), "two-mb.gz");
    });
    QVERIFY2(contains(small.detail(), "more than 1048576 bytes"), small.what());
    ::setenv("LINKSCOPE_GZIP_LIMIT", "lots", 1);
    const LoadError malformed = expectLoadError([&] { readKinetoTrace(bomb); });
    QVERIFY2(contains(malformed.detail(), "is not a size"), malformed.what());
    ::unsetenv("LINKSCOPE_GZIP_LIMIT");
}

void TestRobustness::etZeroBytes()
{
    // Every 0x00 was an empty Node: 64 KB of zeros gzip'ed took 4.6 GB and 17 s to inspect.
    const std::string zeros = path("zeros.et.gz");
    const QByteArray gz = linkscope::test::gzipBytes(QByteArray(64 * 1024, '\0'));
    writeFile(zeros, gz.toStdString());
    const LoadError e = expectLoadError([&] { readChakraEt(zeros); });
    QCOMPARE(e.file(), zeros);
    QCOMPARE(e.offset(), std::uint64_t(1));
    QVERIFY2(contains(e.detail(), "empty Node message"), e.what());
    const CliResult summary = run(linkscope::cli::runDump, {zeros, "--summary"});
    QCOMPARE(summary.code, 1);
    QVERIFY2(contains(summary.err, zeros) && contains(summary.err, "empty Node message"), summary.err.c_str());
    // Bytes that set no field are the empty node too (found by fuzz_etreader: a node of one empty
    // packed data_deps read, then failed its own round trip as zero bytes).
    const std::string unset = path("unset.et");
    writeFile(unset, std::string("\x00\x02\x2a\x00\x02\x20\x2b\x02\x18\x08", 10));
    const LoadError empty = expectLoadError([&] { readChakraEt(unset); });
    QCOMPARE(empty.offset(), std::uint64_t(1));
    QVERIFY2(contains(empty.detail(), "empty Node message") && contains(empty.detail(), "set no field"), empty.what());
    // `inspect /dev/zero`, `dump /dev/zero` never ended: a device is not a trace.
    for (auto command : {linkscope::cli::runInspect, linkscope::cli::runDump}) {
        const CliResult r = run(command, {"/dev/zero"});
        QCOMPARE(r.code, 1);
        QVERIFY2(contains(r.err, "/dev/zero") && contains(r.err, "character device"), r.err.c_str());
    }
}

void TestRobustness::etManyMissingDependencies()
{
    // One node with 1 M dependencies on absent ids: each was labelled by re-parsing the node.
    ChakraTrace trace;
    trace.metadata.set_version("0.0.4");
    ChakraProtoMsg::Node node;
    node.set_id(1);
    node.set_name("many_deps");
    node.set_type(ChakraProtoMsg::COMP_NODE);
    for (std::uint64_t k = 0; k < 1000000; ++k)
        node.add_data_deps(1000000 + k);
    trace.nodes.push_back(node);
    const std::string file = path("deps.et");
    writeFile(file, serializeChakraEt(trace, false));
    QElapsedTimer timer;
    timer.start();
    const nlohmann::json summary = summarizeEtFile(file);
    QCOMPARE(summary["validation"]["missing_data_deps"].get<std::size_t>(), std::size_t(1000000));
    QVERIFY2(timer.elapsed() < 20000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY(contains(summary["validation"]["message"].get<std::string>(), "1 (many_deps)"));
}

void TestRobustness::specialInputs()
{
    // A directory printed basic_string::_M_create; a FIFO was "empty file" or hung (opened twice).
    const std::string fifo = path("fifo.json");
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    struct Case {
        std::string input, what;
    };
    for (const Case &c : {Case{dir_->path().toStdString(), "a directory"}, Case{fifo, "a FIFO"}}) {
        for (auto command : {linkscope::cli::runInspect, linkscope::cli::runDump}) {
            const CliResult r = run(command, {c.input});
            QCOMPARE(r.code, 1);
            QVERIFY2(contains(r.err, c.input) && contains(r.err, c.what), r.err.c_str());
        }
        const CliResult link = run(linkscope::cli::runLink, {"--device", c.input});
        QCOMPARE(link.code, 1);
        QVERIFY2(contains(link.err, c.what), link.err.c_str());
        const LoadError e = expectLoadError([&] { readKinetoTrace(c.input); });
        QCOMPARE(e.file(), c.input);
    }
    // Sidecars too.
    const LoadError s = expectLoadError([&] { loadSidecar(fifo); });
    QVERIFY2(contains(s.detail(), "a FIFO"), s.what());
}

void TestRobustness::byteOrderMark()
{
    // A UTF-8 BOM before JSON was called a protobuf by inspect.
    const std::string kineto = linkscope::test::readFile(samplePath("sample_kineto.json"));
    const std::string host = linkscope::test::readFile(samplePath("sample_host_et.json"));
    const std::string k = path("bom_kineto.json"), h = path("bom_host.json");
    writeFile(k, "\xEF\xBB\xBF" + kineto);
    writeFile(h, "\xEF\xBB\xBF" + host);
    QCOMPARE(sniffTraceKind(k), kKinetoKind);
    QCOMPARE(sniffTraceKind(h), kHostEtKind);
    QCOMPARE(readKinetoTrace(k).events.size(), readKinetoTrace(samplePath("sample_kineto.json")).events.size());
    QCOMPARE(readHostTrace(h).nodes.size(), readHostTrace(samplePath("sample_host_et.json")).nodes.size());
    const CliResult r = run(linkscope::cli::runInspect, {k});
    QCOMPARE(r.code, 0);
    QVERIFY2(contains(r.out, "Kineto"), r.out.c_str());
}

namespace {
std::string sidecarWith(const std::string &size, const std::string &ordinal)
{
    return R"({"format": "linkscope-corrections", "version": 1, "generator": "t",
  "inputs": {"device": {"path": "d.json", "size": )"
           + size + R"(, "sha256": ")" + std::string(64, 'a') + R"("}},
  "link_options": {"policy": "nesting", "inter_thread_deps": false},
  "entries": [{"label": "x", "edits": [{"kind": "detach", "subject": {"kind": "gpu_op", "pid": 0, "correlation": 5, "ordinal": )"
           + ordinal + R"(, "name": "k"}}]}]})";
}
} // namespace

void TestRobustness::sidecarNumbersOutOfRange()
{
    // "size": 1e400 was an uncaught nlohmann::json::out_of_range: the GUI terminated.
    const std::string big = sidecarWith("1e400", "0");
    const LoadError e = expectLoadError([&] { parseSidecar(big, "d.json.linkscope.json"); });
    QCOMPARE(e.file(), std::string("d.json.linkscope.json"));
    QCOMPARE(e.offset(), std::uint64_t(big.find("1e400")));
    QVERIFY2(contains(e.detail(), "1e400"), e.what());
    // "ordinal": 4294967296 was applied as ordinal 0.
    const LoadError o = expectLoadError([&] { parseSidecar(sidecarWith("10", "4294967296"), "o.linkscope.json"); });
    QVERIFY2(contains(o.detail(), "/entries/0/edits/0/subject/ordinal") && contains(o.detail(), "out of range"), o.what());
    const LoadError neg = expectLoadError([&] {
        parseSidecar(sidecarWith("10", "0").replace(sidecarWith("10", "0").find("\"correlation\": 5"), 16,
                                                    "\"correlation\": 18446744073709551615"),
                     "c.linkscope.json");
    });
    QVERIFY2(contains(neg.detail(), "out of range"), neg.what());
    QCOMPARE(parseSidecar(sidecarWith("10", "4294967295"), "ok.json").log.entries.at(0).edits.at(0).subject.ordinal, 4294967295u);
    // The session (what the GUI opens): invalid, left untouched, and the pair still opens.
    const std::string sidecar = path("d.json.linkscope.json");
    writeFile(sidecar, big);
    writeFile(path("d.json"), "device");
    CorrectionSession session;
    const SidecarStatus &status = session.openSidecar(sidecar, fingerprintFile(path("d.json")), std::nullopt);
    QCOMPARE(status.state, SidecarState::Invalid);
    QVERIFY(contains(status.problems.at(0), sidecar));
    QVERIFY(!session.save());
    QCOMPARE(linkscope::test::readFile(sidecar), big);
    // The CLI names the file and the position.
    const CliResult r = run(linkscope::cli::runExport,
                            {"--host", samplePath("sample_host_et.json"), "--device", samplePath("sample_kineto.json"),
                             "--corrections", sidecar, "--perfetto", path("out.json")});
    QCOMPARE(r.code, 1);
    QVERIFY2(contains(r.err, sidecar + ": byte " + std::to_string(big.find("1e400"))), r.err.c_str());
}

void TestRobustness::outputIsAnInput()
{
    // `export --perfetto d.json` turned the Kineto input into a Perfetto trace (exit 0).
    const std::string host = path("h.json"), device = path("d.json");
    std::filesystem::copy_file(samplePath("sample_host_et.json"), host);
    std::filesystem::copy_file(samplePath("sample_kineto.json"), device);
    const std::string deviceBytes = linkscope::test::readFile(device);
    const std::string sidecar = defaultSidecarPath(device);
    writeFile(sidecar, "corrections");
    const std::string hardLink = path("d-link.json");
    std::filesystem::create_hard_link(device, hardLink);
    std::filesystem::create_symlink(host, path("h-sym.json"));
    struct Case {
        std::string flag, output, what;
    };
    for (const Case &c :
         {Case{"--perfetto", device, "is the device trace"}, Case{"--etplus", sidecar, "is the corrections sidecar"},
          Case{"--et", hardLink, "is the device trace"}, Case{"--perfetto", path("h-sym.json"), "is the host trace"},
          Case{"--perfetto", path("./h.json"), "is the host trace"}}) {
        const CliResult r = run(linkscope::cli::runExport, {"--host", host, "--device", device, c.flag, c.output});
        QCOMPARE(r.code, 1);
        QVERIFY2(contains(r.err, c.what) && contains(r.err, "refusing to replace"), r.err.c_str());
    }
    const CliResult twice = run(linkscope::cli::runExport,
                                {"--host", host, "--device", device, "--etplus", path("o.json"), "--perfetto", path("o.json")});
    QCOMPARE(twice.code, 1);
    QVERIFY2(contains(twice.err, "are the same file"), twice.err.c_str());
    const CliResult link = run(linkscope::cli::runLink, {"--host", host, "--device", device, "--report", host});
    QCOMPARE(link.code, 1);
    QVERIFY2(contains(link.err, "is the host trace"), link.err.c_str());
    const CliResult dump = run(linkscope::cli::runDump, {device, "--output", device});
    QCOMPARE(dump.code, 1);
    QCOMPARE(linkscope::test::readFile(device), deviceBytes);
    QCOMPARE(linkscope::test::readFile(sidecar), std::string("corrections"));
    QCOMPARE(linkscope::test::readFile(host), linkscope::test::readFile(samplePath("sample_host_et.json")));
}

void TestRobustness::specialOutputs()
{
    const std::string host = samplePath("sample_host_et.json"), device = samplePath("sample_kineto.json");
    // A character device stays one (it was replaced by a regular file).
    const CliResult devnull = run(linkscope::cli::runExport, {"--host", host, "--device", device, "--perfetto", "/dev/null"});
    QCOMPARE(devnull.code, 0);
    struct stat st;
    QCOMPARE(::stat("/dev/null", &st), 0);
    QVERIFY(S_ISCHR(st.st_mode));
    // A FIFO is written in place, as a stream, and read by whoever listens.
    const std::string fifo = path("perfetto.fifo");
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    std::string received;
    std::thread reader([&] { received = linkscope::test::readFile(fifo); });
    const CliResult viaFifo = run(linkscope::cli::runExport, {"--host", host, "--device", device, "--perfetto", fifo});
    reader.join();
    QCOMPARE(viaFifo.code, 0);
    QCOMPARE(::stat(fifo.c_str(), &st), 0);
    QVERIFY(S_ISFIFO(st.st_mode));
    const std::string regular = path("perfetto.json");
    QCOMPARE(run(linkscope::cli::runExport, {"--host", host, "--device", device, "--perfetto", regular}).code, 0);
    QCOMPARE(received, linkscope::test::readFile(regular));
    // `-` is standard output (a separate process, so that its stdout can be read).
    QProcess p;
    p.start(QString::fromStdString(linkscopeBinary()),
            {"export", "--host", QString::fromStdString(host), "--device", QString::fromStdString(device), "--perfetto", "-"});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    QCOMPARE(p.readAllStandardOutput().toStdString(), linkscope::test::readFile(regular));
    // /dev/stdout redirected to a file: the file is written, not replaced behind the shell's back.
    const std::string redirected = path("redirected.json");
    QProcess q;
    q.setStandardOutputFile(QString::fromStdString(redirected));
    q.start(QString::fromStdString(linkscopeBinary()), {"export", "--host", QString::fromStdString(host), "--device",
                                                        QString::fromStdString(device), "--perfetto", "/dev/stdout"});
    QVERIFY(q.waitForFinished(120000));
    QCOMPARE(q.exitCode(), 0);
    QCOMPARE(linkscope::test::readFile(redirected), linkscope::test::readFile(regular));
    // Two outputs cannot share standard output, nor share it with --report.
    const CliResult shared = run(linkscope::cli::runExport, {"--host", host, "--device", device, "--perfetto", "-", "--report"});
    QCOMPARE(shared.code, 1);
    QVERIFY2(contains(shared.err, "standard output"), shared.err.c_str());
}

void TestRobustness::temporaryFiles()
{
    const std::string host = samplePath("sample_host_et.json"), device = samplePath("sample_kineto.json");
    const std::string out = path("x.json");
    // Leftovers of an interrupted write: an old one nobody holds is removed and reported, a fresh one kept.
    const std::string stale = path(".x.json.tmp.AbC123"), fresh = path(".x.json.tmp.ZyX987");
    writeFile(stale, "half a trace");
    writeFile(fresh, "being written?");
    setAge(stale, 3600);
    const CliResult r = run(linkscope::cli::runExport, {"--host", host, "--device", device, "--perfetto", out});
    QCOMPARE(r.code, 0);
    QVERIFY2(contains(r.err, "removed " + stale) && contains(r.err, "left by an interrupted write"), r.err.c_str());
    QVERIFY(!std::filesystem::exists(stale));
    QVERIFY(std::filesystem::exists(fresh));
    std::filesystem::remove(fresh);
    // One held by a running writer (flock) is left alone even when old.
    const int held = ::open(stale.c_str(), O_CREAT | O_WRONLY, 0600);
    QVERIFY(held >= 0);
    QCOMPARE(::flock(held, LOCK_EX), 0);
    setAge(stale, 3600);
    const auto notes = removeStaleTemporaries(out);
    QCOMPARE(notes.size(), std::size_t(1));
    QVERIFY2(contains(notes[0], "being written by another process"), notes[0].c_str());
    ::close(held);
    std::filesystem::remove(stale);
    // A failed write leaves nothing behind.
    {
        AtomicFile file(path("failing.json"));
        file.write("partial");
        QVERIFY(temporariesIn(dir_->path().toStdString()).empty()); // unnamed while written
    }
    QVERIFY(!std::filesystem::exists(path("failing.json")));
    QVERIFY(temporariesIn(dir_->path().toStdString()).empty());
    // kill -9 during export: no temporary file remains.
    const std::string bigDevice = path("big_kineto.json");
    writeFile(bigDevice, bigKineto(32u << 20));
    for (int trial = 0; trial < 5; ++trial) {
        QProcess p;
        p.start(QString::fromStdString(linkscopeBinary()),
                {"export", "--device", QString::fromStdString(bigDevice), "--host", QString::fromStdString(host), "--perfetto",
                 QString::fromStdString(path("killed.json")), "--etplus", QString::fromStdString(path("killed_etplus.json"))});
        QVERIFY(p.waitForStarted());
        QThread::msleep(static_cast<unsigned long>(300 + 250 * trial));
        ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
        p.waitForFinished(60000);
        const auto left = temporariesIn(dir_->path().toStdString());
        QVERIFY2(left.empty(), left.empty() ? "" : left[0].c_str());
    }
}

void TestRobustness::sidecarSaveKeepsModeAndLinks()
{
    Sidecar sidecar;
    sidecar.device = {"d.json", 1, std::string(64, '0')};
    // 0600 stays 0600 (was widened to 0644).
    const std::string file = path("mode.linkscope.json");
    saveSidecar(sidecar, file);
    QCOMPARE(::chmod(file.c_str(), 0600), 0);
    sidecar.generator = "second";
    saveSidecar(sidecar, file);
    struct stat st;
    QCOMPARE(::stat(file.c_str(), &st), 0);
    QCOMPARE(st.st_mode & 07777, mode_t(0600));
    QCOMPARE(loadSidecar(file).generator, std::string("second"));
    // A symlinked sidecar stays a link; its target gets the new content.
    std::filesystem::create_directory(path("real"));
    const std::string target = path("real/target.linkscope.json");
    saveSidecar(sidecar, target);
    const std::string link = path("link.linkscope.json");
    std::filesystem::create_symlink(target, link);
    sidecar.generator = "through the link";
    saveSidecar(sidecar, link);
    QVERIFY(std::filesystem::is_symlink(link));
    QCOMPARE(loadSidecar(target).generator, std::string("through the link"));
    // A read-only one is refused, not replaced.
    QCOMPARE(::chmod(target.c_str(), 0444), 0);
    const std::string before = linkscope::test::readFile(target);
    sidecar.generator = "refused";
    bool refused = false;
    try {
        saveSidecar(sidecar, link);
    } catch (const WriteError &e) {
        refused = contains(e.what(), "read-only");
    }
    QVERIFY(refused);
    QCOMPARE(linkscope::test::readFile(target), before);
}

namespace {
constexpr std::int64_t kPid = 1;
constexpr std::int64_t kTid = 1331;
constexpr Nanos us = 1000;
struct Pair {
    TraceBuilder b;
    HostBuilder h;
    EventIndex rpc, nccl, kernel, mm, mmKernel;
    Pair()
    {
        rpc = b.cpu(EventCategory::CpuOp, "record_param_comms", kPid, kTid, 100 * us, 50 * us, 17, 19, 40);
        nccl = b.cpu(EventCategory::UserAnnotation, "nccl:_all_gather_base", kPid, kTid, 110 * us, 30 * us, 18, 20, 41);
        b.runtime("cuLaunchKernelEx", kPid, kTid, 120 * us, 5 * us, 5000, 17, EventCategory::CudaDriver);
        kernel = b.gpu("ncclDevKernel_AllGather_RING_LL", 0, 20, 130 * us, 50 * us, 5000, 17);
        mm = b.cpu(EventCategory::CpuOp, "aten::mm", kPid, kTid, 200 * us, 20 * us, 21, 22, 42);
        b.runtime("cudaLaunchKernel", kPid, kTid, 205 * us, 5 * us, 5001, 21);
        mmKernel = b.gpu("sm80_gemm", 0, 7, 215 * us, 10 * us, 5001, 21);
        h.host.pid = kPid;
        h.node(1, -1, "[pytorch|profiler|execution_trace|process]", 0);
        h.node(2, 1, "[pytorch|profiler|execution_trace|thread]", 0);
        h.node(30, 2, "record_param_comms", 19);
        h.node(31, 30, "nccl:_all_gather_base", 20);
        h.node(32, 2, "aten::mm", 22);
        h.finish();
    }
    std::shared_ptr<const LinkSet> link() const
    {
        LinkOptions options;
        options.policy = Policy::ExternalId;
        return std::make_shared<const LinkSet>(linkTraces(b.trace, &h.host, options));
    }
};
} // namespace

void TestRobustness::twoSessionsOnOneSidecar()
{
    // Two GUI sessions on one pair: each rewrote the whole log on every save, losing the other's.
    const Pair pair;
    const std::string device = path("rank0.json");
    writeFile(device, "device trace bytes");
    const std::string sidecar = defaultSidecarPath(device);
    CorrectionSession a, b;
    a.openSidecar(sidecar, fingerprintFile(device), std::nullopt);
    b.openSidecar(sidecar, fingerprintFile(device), std::nullopt);
    a.attach(pair.link(), pair.b.trace, &pair.h.host);
    b.attach(pair.link(), pair.b.trace, &pair.h.host);
    a.push({"a's edit", {a.editor().reparent(pair.kernel, pair.nccl)}});
    QVERIFY(a.lastSaveError().empty());
    b.push({"b's edit", {b.editor().detach(pair.mmKernel)}});
    QVERIFY2(contains(b.lastSaveError(), "another Linkscope session"), b.lastSaveError().c_str());
    QCOMPARE(loadSidecar(sidecar).log.entries.at(0).label, std::string("a's edit"));
    // a goes on saving (the file is still the one it wrote).
    a.push({"a again", {a.editor().detach(pair.mmKernel)}});
    QVERIFY(a.lastSaveError().empty());
    QCOMPARE(loadSidecar(sidecar).log.entries.size(), std::size_t(2));
    // A session that reopens sees a's work and can save again.
    CorrectionSession c;
    QCOMPARE(c.openSidecar(sidecar, fingerprintFile(device), std::nullopt).state, SidecarState::Loaded);
    c.attach(pair.link(), pair.b.trace, &pair.h.host);
    QVERIFY(c.undo());
    QVERIFY(c.lastSaveError().empty());
    QCOMPARE(loadSidecar(sidecar).log.entries.size(), std::size_t(1));
    // Concurrent writers from several threads take turns under the lock: every save either lands
    // whole or is refused; the file always parses.
    std::vector<std::thread> writers;
    std::atomic<int> landed{0};
    for (int t = 0; t < 4; ++t)
        writers.emplace_back([&, t] {
            FileIdentity seen = io::identityOfPath(sidecar);
            Sidecar s = loadSidecar(sidecar, &seen);
            s.generator = "writer " + std::to_string(t);
            try {
                saveSidecarIfUnchanged(s, sidecar, seen);
                ++landed;
            } catch (const SidecarConflict &) {
            }
        });
    for (auto &w : writers)
        w.join();
    QVERIFY(landed >= 1);
    QVERIFY(contains(loadSidecar(sidecar).generator, "writer "));
}

void TestRobustness::nonUtf8FileNames()
{
    // A file name that is not UTF-8 (legal on Linux): the sidecar could never be saved
    // (type_error.316), inspect --json failed, export wrote the raw byte into JSON outputs.
    const std::string host = path("h\xff.json"), device = path("d\xfe\xff.json");
    std::filesystem::copy_file(samplePath("sample_host_et.json"), host);
    std::filesystem::copy_file(samplePath("sample_kineto.json"), device);
    const CliResult inspect = run(linkscope::cli::runInspect, {"--json", host, device});
    QCOMPARE(inspect.code, 0);
    QVERIFY(!nlohmann::json::parse(inspect.out, nullptr, false).is_discarded());
    const std::string report = path("report.json");
    const CliResult link = run(linkscope::cli::runLink, {"--host", host, "--device", device, "--report", report});
    QCOMPARE(link.code, 0);
    QVERIFY(!nlohmann::json::parse(linkscope::test::readFile(report), nullptr, false).is_discarded());
    const std::string etplus = path("o\xff_etplus.json"), perfetto = path("o_perfetto.json");
    const CliResult exported = run(linkscope::cli::runExport,
                                   {"--host", host, "--device", device, "--etplus", etplus, "--perfetto", perfetto, "--report"});
    QCOMPARE(exported.code, 0);
    QVERIFY(!nlohmann::json::parse(exported.out, nullptr, false).is_discarded());
    QVERIFY(!nlohmann::json::parse(linkscope::test::readFile(etplus), nullptr, false).is_discarded());
    QVERIFY(!nlohmann::json::parse(linkscope::test::readFile(perfetto), nullptr, false).is_discarded());
    // The sidecar is saved (the name's bad bytes become U+FFFD inside it) and read back.
    const Pair pair;
    CorrectionSession session;
    session.openSidecar(defaultSidecarPath(device), fingerprintFile(device), fingerprintFile(host));
    session.attach(pair.link(), pair.b.trace, &pair.h.host);
    session.push({"edit", {session.editor().detach(pair.mmKernel)}});
    QVERIFY2(session.lastSaveError().empty(), session.lastSaveError().c_str());
    const Sidecar back = loadSidecar(defaultSidecarPath(device));
    QCOMPARE(back.log.entries.size(), std::size_t(1));
    QVERIFY(contains(back.device.path, "\xEF\xBF\xBD"));
}

void TestRobustness::fingerprintOfTheLoadedFile()
{
    // The fingerprint was taken after parsing, from the path: a file replaced meanwhile was matched
    // against the other file's sidecar.
    const std::string device = path("k.json");
    std::filesystem::copy_file(samplePath("sample_kineto.json"), device);
    const DeviceTrace loaded = readKinetoTrace(device);
    const FileFingerprint same = fingerprintLoadedFile(device, loaded.sourceIdentity);
    QCOMPARE(same.sha256, fingerprintFile(device).sha256);
    QCOMPARE(same.path, device);
    // Replaced by a rename: refused.
    const std::string other = path("other.json");
    writeFile(other, linkscope::test::readFile(device) + " ");
    std::filesystem::rename(other, device);
    const LoadError replaced = expectLoadError([&] { fingerprintLoadedFile(device, loaded.sourceIdentity); });
    QVERIFY2(contains(replaced.detail(), "replaced"), replaced.what());
    // Rewritten in place: refused too.
    const DeviceTrace again = readKinetoTrace(device);
    writeFile(device, linkscope::test::readFile(samplePath("sample_kineto.json")));
    const LoadError rewritten = expectLoadError([&] { fingerprintLoadedFile(device, again.sourceIdentity); });
    QCOMPARE(rewritten.file(), device);
}

QTEST_GUILESS_MAIN(TestRobustness)
#include "test_robustness.moc"
