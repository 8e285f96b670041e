// The streaming JSON writers' building blocks: string escaping 8 bytes at a time against the plain
// byte-by-byte rule, number formatting, blocks made on several threads and consumed in order, and
// the ET+ / Perfetto text given to a sink: the bytes of the file, whatever the thread count.

#include "generatedpair.h"
#include "testsupport.h"

#include "base/parallel.h"
#include "export/exporter.h"
#include "export/jsonout.h"
#include "export/textsink.h"
#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "link/linker.h"

#include <QTemporaryDir>

#include <atomic>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

using namespace linkscope::core;

namespace {

// The escaping rule one byte at a time, as the writers did it before runs were copied whole.
std::string referenceString(std::string_view text)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "\"";
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (u < 0x20) {
                out += "\\u00";
                out.push_back(kHex[u >> 4]);
                out.push_back(kHex[u & 15]);
            } else if (u < 0x80) {
                out.push_back(c);
            } else if (const std::size_t n = jsonout::utf8SequenceLength(text, i)) {
                out.append(text.data() + i, n);
                i += n - 1;
            } else {
                out += "\xEF\xBF\xBD";
            }
        }
    }
    return out + '"';
}

std::string escaped(std::string_view text)
{
    std::string out;
    jsonout::appendString(out, text);
    return out;
}

std::string micros(Nanos ns)
{
    std::string out;
    jsonout::appendMicros(out, ns);
    return out;
}

} // namespace

class TestJsonWriters : public QObject {
    Q_OBJECT

private slots:
    void everyByteAtEveryPositionOfAWordIsEscapedAsByteByByte()
    {
        // Each byte value at each offset of a 24-byte plain string (three 8-byte words and the
        // tail), so every lane of the word test sees every byte, alone and followed by more text.
        const std::string plain = "abcdefghijklmnopqrstuvwx";
        for (int byte = 0; byte < 256; ++byte)
            for (std::size_t at = 0; at < plain.size(); ++at) {
                std::string text = plain;
                text[at] = static_cast<char>(byte);
                QCOMPARE(escaped(text), referenceString(text));
                QCOMPARE(escaped(text.substr(0, at + 1)), referenceString(text.substr(0, at + 1)));
            }
        QCOMPARE(escaped(""), std::string("\"\""));
        QCOMPARE(escaped("a\"b\\c\n\x01\x7f"), std::string("\"a\\\"b\\\\c\\n\\u0001\x7f\""));
        QCOMPARE(escaped("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
                 std::string("\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\""));
        QCOMPARE(escaped("bad \xC3 \xFF \xED\xA0\x80"),
                 std::string("\"bad \xEF\xBF\xBD \xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\""));
    }

    void randomTextIsEscapedAsByteByByte()
    {
        std::mt19937_64 random(15);
        const std::string alphabet = std::string(
            "aZ09 _-:./\"\\\n\t\r\x01\x1f\x7f\x80\xbf\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\xed\xff");
        for (int round = 0; round < 20000; ++round) {
            std::string text(random() % 70, 'x');
            const bool bytes = round % 2; // all byte values, or mostly UTF-8 pieces and escapes
            for (char &c : text)
                c = bytes ? static_cast<char>(random() % 256) : alphabet[random() % alphabet.size()];
            QCOMPARE(escaped(text), referenceString(text));
        }
    }

    void numbersAreWrittenInFull()
    {
        auto uint = [](std::uint64_t v) {
            std::string out;
            jsonout::appendUint(out, v);
            return out;
        };
        auto sint = [](std::int64_t v) {
            std::string out;
            jsonout::appendInt(out, v);
            return out;
        };
        QCOMPARE(uint(0), std::string("0"));
        QCOMPARE(uint(std::numeric_limits<std::uint64_t>::max()), std::string("18446744073709551615"));
        QCOMPARE(sint(-1), std::string("-1"));
        QCOMPARE(sint(std::numeric_limits<std::int64_t>::min()), std::string("-9223372036854775808"));
        QCOMPARE(micros(0), std::string("0.000"));
        QCOMPARE(micros(1234567), std::string("1234.567"));
        QCOMPARE(micros(5), std::string("0.005"));
        QCOMPARE(micros(-1500), std::string("-1.500"));
        QCOMPARE(micros(std::numeric_limits<std::int64_t>::max()), std::string("9223372036854775.807"));
        QCOMPARE(micros(std::numeric_limits<std::int64_t>::min()), std::string("-9223372036854775.808"));
    }

    void blocksAreConsumedInItemOrderOnAnyThreadCount()
    {
        for (const std::uint64_t n : {0ull, 1ull, 7ull, 100003ull})
            for (const int threads : {1, 2, 3, 8}) {
                std::string joined;
                std::atomic<int> badSlot{0};
                forEachBlockInOrder(
                    n, 97, threads,
                    [&](std::uint64_t first, std::uint64_t last, std::string &text, int slot) {
                        if (slot < 0 || slot >= threads)
                            ++badSlot;
                        for (std::uint64_t i = first; i < last; ++i)
                            text += std::to_string(i) + ',';
                    },
                    [&](const std::string &text) { joined += text; });
                std::string expected;
                for (std::uint64_t i = 0; i < n; ++i)
                    expected += std::to_string(i) + ',';
                QCOMPARE(joined, expected);
                QCOMPARE(badSlot.load(), 0);
            }
    }

    void aFailingBlockOrConsumerStopsTheRestAndIsRethrown()
    {
        for (const int threads : {1, 2, 4}) {
            std::uint64_t consumed = 0;
            try {
                forEachBlockInOrder(
                    10000, 10, threads,
                    [&](std::uint64_t first, std::uint64_t, std::string &text, int) {
                        if (first == 500)
                            throw std::runtime_error("block 50");
                        text = "x";
                    },
                    [&](const std::string &) { ++consumed; });
                QFAIL("the failing block was not rethrown");
            } catch (const std::runtime_error &e) {
                QCOMPARE(std::string(e.what()), std::string("block 50"));
            }
            QVERIFY(consumed <= 50); // nothing after the failed block was consumed

            std::atomic<std::uint64_t> produced{0};
            try {
                forEachBlockInOrder(
                    10000, 10, threads, [&](std::uint64_t, std::uint64_t, std::string &, int) { ++produced; },
                    [&](const std::string &) { throw std::runtime_error("disk full"); });
                QFAIL("the failing consumer was not rethrown");
            } catch (const std::runtime_error &e) {
                QCOMPARE(std::string(e.what()), std::string("disk full"));
            }
            // The producers stop: at most a ring of blocks (threads + 1) past the one consumed.
            QVERIFY2(produced <= std::uint64_t(threads) + 1, std::to_string(produced).c_str());
        }
    }

    void sinkOutputIsTheFileOnAnyThreadCount_data()
    {
        QTest::addColumn<bool>("generated");
        QTest::newRow("sample pair") << false;
        QTest::newRow("generated pair, several blocks") << true;
    }

    void sinkOutputIsTheFileOnAnyThreadCount()
    {
        // A pair read from files (node text and args read back from disk by position); the generated
        // one has enough nodes and events for several blocks of each writer.
        QFETCH(bool, generated);
        QTemporaryDir dir;
        std::string hostPath = linkscope::test::sourcePath("resources/samples/sample_host_et.json");
        std::string devicePath = linkscope::test::sourcePath("resources/samples/sample_kineto.json");
        if (generated) {
            linkscope::gen::GeneratorOptions options;
            options.seed = 15;
            options.targetKinetoEvents = 260000;
            const auto files = linkscope::test::writeGeneratedPair(options, dir.path());
            hostPath = files.host;
            devicePath = files.device;
        }
        const HostTrace host = readHostTrace(hostPath);
        const DeviceTrace device = readKinetoTrace(devicePath);
        QVERIFY(host.source && !host.source->inMemoryText());
        const LinkSet links = linkTraces(device, &host, {});
        const EtPlusGraph graph = buildEtPlusGraph(host, device, links);
        if (generated)
            QVERIFY2(graph.nodes.size() > 3 * 4096 && device.events.size() > 3 * 16384 && links.gpuLinks.size() > 2 * 16384,
                     qPrintable(QStringLiteral("too small for several blocks: %1 nodes, %2 events, %3 links")
                                    .arg(graph.nodes.size())
                                    .arg(device.events.size())
                                    .arg(links.gpuLinks.size())));
        const std::string etPlusPath = dir.filePath(QStringLiteral("p.json")).toStdString();
        const std::string perfettoPath = dir.filePath(QStringLiteral("f.json")).toStdString();
        writeEtPlus(etPlusPath, graph, host, device, links);
        writePerfettoTrace(perfettoPath, device, links, &host);
        const std::string etPlusFile = linkscope::test::readFile(etPlusPath);
        const std::string perfettoFile = linkscope::test::readFile(perfettoPath);
        QVERIFY(etPlusFile.size() > 10000 && perfettoFile.size() > 10000);
        // Well-formed JSON with a node per graph node and a flow pair per link.
        const nlohmann::json etPlus = nlohmann::json::parse(etPlusFile);
        QCOMPARE(etPlus["nodes"].size(), graph.nodes.size());
        const nlohmann::json perfetto = nlohmann::json::parse(perfettoFile);
        std::size_t flows = 0;
        for (const auto &e : perfetto["traceEvents"])
            flows += e["ph"] == "s" ? 1 : 0;
        std::size_t linked = 0;
        for (const GpuLink &link : links.gpuLinks)
            linked += link.parent.in(device.events.size()) && link.gpuEvent.in(device.events.size()) ? 1 : 0;
        QCOMPARE(flows, linked);
        for (const int threads : {1, 2, 5}) {
            std::string text;
            const OutputSink sink = [&](std::string_view bytes) { text += bytes; };
            QCOMPARE(writeEtPlusTo(sink, graph, host, device, links, threads), std::uint64_t(etPlusFile.size()));
            QVERIFY(text == etPlusFile);
            text.clear();
            QCOMPARE(writePerfettoTraceTo(sink, device, links, &host, threads), std::uint64_t(perfettoFile.size()));
            QVERIFY(text == perfettoFile);
        }
    }
};

QTEST_GUILESS_MAIN(TestJsonWriters)
#include "test_jsonwriters.moc"
