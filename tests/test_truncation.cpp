// Traces cut short (io/json/truncation.h): the bundled sample pair cut at several offsets is refused by
// default with the file and the byte named, and with LoadOptions::allowTruncated reads the events
// (nodes) before the cut — a prefix of the whole file's — with a warning naming the byte; gzip too;
// `linkscope summary` refuses without --allow-truncated (exit 1) and reads it with the flag.
#include "commands/commands.h"
#include "io/file/inputtext.h"
#include "io/formats.h"
#include "io/json/truncation.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace linkscope;
using namespace linkscope::core;

namespace {

std::string sample(const char *name)
{
    return test::readFile(test::sourcePath((std::string("resources/samples/") + name).c_str()));
}

std::string write(const QTemporaryDir &dir, const std::string &name, const std::string &bytes)
{
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

std::string gzip(const std::string &bytes)
{
    z_stream zs{};
    deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, bytes.size()) + 64, '\0');
    zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(bytes.data()));
    zs.avail_in = static_cast<uInt>(bytes.size());
    zs.next_out = reinterpret_cast<Bytef *>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

} // namespace

class TestTruncation : public QObject {
    Q_OBJECT

private slots:
    void findsTheLastCompleteElement()
    {
        auto cut = io::findTruncation(R"({"a": 1, "traceEvents": [{"x": [1, 2]}, {"y": "},{"}, {"z")");
        QVERIFY(cut);
        QCOMPARE(cut->closers, std::string("]}"));
        QCOMPARE(cut->keep, std::uint64_t(std::string_view(R"({"a": 1, "traceEvents": [{"x": [1, 2]}, {"y": "},{"})").size()));
        // Complete documents, other errors and a second value are not cuts.
        QVERIFY(!io::findTruncation(R"({"traceEvents": []})"));
        QVERIFY(!io::findTruncation(R"({"traceEvents": []}   junk)"));
        QVERIFY(!io::findTruncation(R"({"traceEvents": [}])"));
        QVERIFY(!io::findTruncation(""));
        // A top-level array (Chrome's JSON Array Format): never inside an event.
        cut = io::findTruncation(R"([{"a": 1}, {"b": 2, "c")");
        QVERIFY(cut);
        QCOMPARE(cut->keep, std::uint64_t(9));
        QCOMPARE(cut->closers, std::string("]"));
    }

    void kinetoCutAtSeveralOffsets()
    {
        QTemporaryDir dir;
        const std::string whole = sample("sample_kineto.json");
        const DeviceTrace full = loadDeviceTrace(write(dir, "full.json", whole));
        QVERIFY(full.warnings.empty() || full.warnings.front().message.find("truncated") == std::string::npos);
        std::size_t lastCount = 0;
        for (double at : {0.05, 0.3, 0.5, 0.75, 0.97}) {
            const std::size_t size = static_cast<std::size_t>(double(whole.size()) * at);
            const std::string path = write(dir, "cut_" + std::to_string(size) + ".json", whole.substr(0, size));
            // Refused by default: the file and the byte where it ends are named.
            try {
                loadDeviceTrace(path);
                QFAIL("a truncated trace was read without allowTruncated");
            } catch (const LoadError &e) {
                QCOMPARE(e.file(), path);
                QCOMPARE(e.offset(), std::uint64_t(size));
                QVERIFY2(e.detail().find("truncated") != std::string::npos, e.what());
                QVERIFY2(e.detail().find("--allow-truncated") != std::string::npos, e.what());
            }
            const DeviceTrace cut = loadDeviceTrace(path, {}, LoadOptions{true});
            QVERIFY(!cut.warnings.empty());
            QCOMPARE(cut.warnings.front().offset, std::uint64_t(size));
            QVERIFY2(cut.warnings.front().message.find("ends at byte " + std::to_string(size)) != std::string::npos,
                     cut.warnings.front().message.c_str());
            // The events before the cut, in order: a prefix of the whole trace's.
            QVERIFY(cut.events.size() < full.events.size());
            QVERIFY(cut.events.size() >= lastCount);
            lastCount = cut.events.size();
            for (std::size_t i = 0; i < cut.events.size(); ++i) {
                QCOMPARE(cut.name(cut.events[i]), full.name(full.events[i]));
                QCOMPARE(cut.events[i].ts, full.events[i].ts);
            }
        }
        QVERIFY(lastCount > full.events.size() / 2);
    }

    void hostEtAndGzip()
    {
        QTemporaryDir dir;
        const std::string whole = sample("sample_host_et.json");
        const HostTrace full = loadHostTrace(write(dir, "host.json", whole));
        const std::size_t size = whole.size() * 2 / 3;
        const std::string path = write(dir, "host_cut.json", whole.substr(0, size));
        // The host ET reader closes the nodes array itself (HostTrace::recoveredTruncation); without
        // allowTruncated that is refused as a cut Kineto trace is.
        try {
            loadHostTrace(path);
            QFAIL("a truncated host ET was read without allowTruncated");
        } catch (const LoadError &e) {
            QCOMPARE(e.offset(), std::uint64_t(size));
            QVERIFY2(e.detail().find("--allow-truncated") != std::string::npos, e.what());
            QVERIFY2(e.detail().find("cut off") != std::string::npos, e.what());
        }
        const HostTrace cut = loadHostTrace(path, {}, LoadOptions{true});
        QVERIFY(cut.recoveredTruncation);
        QVERIFY(cut.nodes.size() > 0 && cut.nodes.size() < full.nodes.size());
        bool named = false;
        for (const Diagnostic &d : cut.warnings)
            named = named || (d.message.find("cut off") != std::string::npos && d.offset < size);
        QVERIFY(named);

        // A gzip file cut short: the decompressed text up to the cut.
        const std::string kineto = sample("sample_kineto.json");
        const std::string packed = gzip(kineto);
        const std::string gz = write(dir, "kineto_cut.json.gz", packed.substr(0, packed.size() * 3 / 4));
        QVERIFY_THROWS_EXCEPTION(LoadError, loadDeviceTrace(gz));
        const DeviceTrace fromGzip = loadDeviceTrace(gz, {}, LoadOptions{true});
        QVERIFY(fromGzip.events.size() > 0);
        QVERIFY(fromGzip.warnings.front().message.find("decompressed") != std::string::npos);
    }

    void otherErrorsAreNotRecovered()
    {
        QTemporaryDir dir;
        std::string bad = sample("sample_kineto.json");
        const std::size_t at = bad.find("\"ts\"", bad.size() / 2);
        bad.replace(at, 4, "\"ts\" x"); // invalid JSON in the middle of a complete document
        const std::string path = write(dir, "bad.json", bad);
        try {
            loadDeviceTrace(path, {}, LoadOptions{true});
            QFAIL("invalid JSON was read");
        } catch (const LoadError &e) {
            QVERIFY2(e.detail().find("truncated") == std::string::npos, e.what());
        }
    }

    // A gzip that inflates past its limit is a bomb, not a cut trace: refused as such with and
    // without --allow-truncated, and not inflated a second time to look for a cut.
    void gzipPastItsLimitIsNotATruncation()
    {
        QTemporaryDir dir;
        const std::string path = write(dir, "bomb_kineto.json.gz", gzip("{\"traceEvents\": [" + std::string(4u << 20, ' ')));
        qputenv("LINKSCOPE_GZIP_LIMIT", "1M");
        for (const bool allow : {false, true}) {
            try {
                loadDeviceTrace(path, {}, LoadOptions{allow});
                QFAIL("the bomb was read");
            } catch (const io::GzipLimitError &e) {
                QVERIFY2(e.detail().find("inflates to more than") != std::string::npos, e.what());
                QVERIFY2(e.detail().find("truncated") == std::string::npos, e.what());
            }
            try {
                io::readTextForRecovery(path);
                QFAIL("recovery read past the limit");
            } catch (const io::GzipLimitError &) {
            }
        }
        qunsetenv("LINKSCOPE_GZIP_LIMIT");
    }

    void cliRefusesWithoutTheFlag()
    {
        QTemporaryDir dir;
        const std::string whole = sample("sample_kineto.json");
        const std::size_t size = whole.size() / 2;
        const std::string path = write(dir, "k_cut.json", whole.substr(0, size));
        std::ostringstream out, err;
        QCOMPARE(cli::runSummary({path}, out, err), 1);
        QVERIFY2(err.str().find(path) != std::string::npos, err.str().c_str());
        QVERIFY2(err.str().find(std::to_string(size)) != std::string::npos, err.str().c_str());
        QVERIFY(err.str().find("--allow-truncated") != std::string::npos);
        std::ostringstream out2, err2;
        QCOMPARE(cli::runSummary({path, "--allow-truncated", "--json"}, out2, err2), 0);
        QVERIFY2(err2.str().find("truncated") != std::string::npos, err2.str().c_str());
        QVERIFY(out2.str().find("\"gpu_ops\"") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestTruncation)
#include "test_truncation.moc"
