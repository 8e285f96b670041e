// The .et writer's Nodes, encoded straight to the wire format (export/chakra/etwire.h): byte for byte what
// libprotobuf serialises for the same Node, on random nodes and on every node of real and generated
// pairs, for both targets.

#include "generatedpair.h"
#include "testsupport.h"

#include "export/chakra/etwire.h"
#include "export/exporter.h"
#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "link/linker.h"

#include <QTemporaryDir>

#include <cstdint>
#include <limits>
#include <random>
#include <string>

using namespace linkscope::core;

namespace {

// Chakra's encode_message: the varint length, then the message.
std::string delimited(const google::protobuf::Message &message)
{
    std::string out;
    wire::appendVarint(out, message.ByteSizeLong());
    message.AppendToString(&out);
    return out;
}

} // namespace

class TestEtWire : public QObject {
    Q_OBJECT

private slots:
    void randomNodesEncodeAsLibprotobufDoes()
    {
        std::mt19937_64 random(15);
        auto pick = [&](std::initializer_list<std::uint64_t> values) {
            return *(values.begin() + static_cast<std::ptrdiff_t>(random() % values.size()));
        };
        auto text = [&](std::size_t maxLength) {
            std::string s(random() % (maxLength + 1), 'x');
            for (char &c : s) // printable ASCII: proto3 strings must be UTF-8
                c = static_cast<char>(0x20 + random() % 95);
            return s;
        };
        const std::uint64_t big = std::numeric_limits<std::uint64_t>::max();
        WireNode wire; // reused, as the writer does
        for (int round = 0; round < 3000; ++round) {
            ChakraProtoMsg::Node node;
            wire.Clear();
            const std::uint64_t id = pick({0, 1, 127, 128, 300, 1u << 21, big});
            node.set_id(id);
            wire.set_id(id);
            const std::string name = text(round % 7 == 0 ? 300 : 20);
            node.set_name(name);
            wire.set_name(name);
            const auto type = static_cast<ChakraProtoMsg::NodeType>(random() % 8);
            node.set_type(type);
            wire.set_type(type);
            for (std::uint64_t k = random() % 3; k > 0; --k) {
                const std::uint64_t dep = pick({0, 5, 200, 1u << 30, big});
                node.add_ctrl_deps(dep);
                wire.add_ctrl_deps(dep);
            }
            for (std::uint64_t k = random() % 40; k > 0; --k) {
                const std::uint64_t dep = random() >> (random() % 64);
                node.add_data_deps(dep);
                wire.add_data_deps(dep);
            }
            const std::uint64_t start = pick({0, 1, 1700000000000000ull}), duration = pick({0, 3, 99999});
            node.set_start_time_micros(start);
            wire.set_start_time_micros(start);
            node.set_duration_micros(duration);
            wire.set_duration_micros(duration);
            if (random() % 4) {
                const std::string v = text(30), s = text(30), t = text(3);
                node.mutable_inputs()->set_values(v);
                node.mutable_inputs()->set_shapes(s);
                node.mutable_inputs()->set_types(t);
                WireNode::Io *io = wire.mutable_inputs();
                io->set_values(v);
                io->set_shapes(s);
                io->set_types(t);
            }
            if (random() % 4) {
                const std::string v = text(200);
                node.mutable_outputs()->set_values(v);
                wire.mutable_outputs()->set_values(v);
            }
            for (std::uint64_t k = random() % 12; k > 0; --k) {
                const std::string attrName = random() % 10 ? std::string("seq_id") : std::string();
                ChakraProtoMsg::AttributeProto *attr = node.add_attr();
                attr->set_name(attrName);
                switch (random() % 4) {
                case 0: {
                    const auto v = static_cast<std::int64_t>(pick({0, 1, static_cast<std::uint64_t>(-1), big / 2, 1ull << 63}));
                    attr->set_int64_val(v);
                    wire.addInt64(attrName, v);
                    break;
                }
                case 1: {
                    const auto v = static_cast<std::int32_t>(
                        pick({0, 7, static_cast<std::uint64_t>(-1), 0x80000000u, 0x7fffffffu}));
                    attr->set_int32_val(v);
                    wire.addInt32(attrName, v);
                    break;
                }
                case 2: {
                    const bool v = random() % 2;
                    attr->set_bool_val(v);
                    wire.addBool(attrName, v);
                    break;
                }
                default: {
                    const std::string v = text(round % 5 == 0 ? 200 : 10);
                    attr->set_string_val(v);
                    wire.addString(attrName, v);
                }
                }
            }
            std::string encoded;
            wire.appendDelimited(encoded);
            QVERIFY2(encoded == delimited(node), qPrintable(QStringLiteral("round %1").arg(round)));
        }
    }

    void theEtFileIsWhatLibprotobufWritesForTheConvertedNodes_data()
    {
        QTest::addColumn<QString>("which");
        QTest::addColumn<int>("target");
        for (const char *which : {"seed", "sample", "generated"})
            for (const EtTarget target : {EtTarget::Chakra, EtTarget::AstraSim})
                QTest::newRow(qPrintable(QStringLiteral("%1, %2").arg(QLatin1String(which),
                                                                      QString::fromStdString(std::string(etTargetName(target))))))
                    << QString::fromLatin1(which) << int(target);
    }

    void theEtFileIsWhatLibprotobufWritesForTheConvertedNodes()
    {
        QFETCH(QString, which);
        QFETCH(int, target);
        QTemporaryDir dir;
        std::string hostPath, devicePath;
        if (which == QLatin1String("seed")) {
            hostPath = linkscope::test::dataPath("export/seed_host_et.json");
            devicePath = linkscope::test::dataPath("export/seed_kineto.json");
        } else if (which == QLatin1String("sample")) {
            hostPath = linkscope::test::sourcePath("resources/samples/sample_host_et.json");
            devicePath = linkscope::test::sourcePath("resources/samples/sample_kineto.json");
        } else {
            // Two GPUs and collectives, several of the writer's blocks of 8,192 nodes.
            linkscope::gen::GeneratorOptions options;
            options.seed = 16;
            options.devices = 2;
            options.targetKinetoEvents = 50000;
            const auto files = linkscope::test::writeGeneratedPair(options, dir.path());
            hostPath = files.host;
            devicePath = files.device;
        }
        const HostTrace host = readHostTrace(hostPath);
        const DeviceTrace device = readKinetoTrace(devicePath);
        const LinkSet links = linkTraces(device, &host, {});
        const EtPlusGraph graph = buildEtPlusGraph(host, device, links);
        ChakraOptions options;
        options.target = static_cast<EtTarget>(target);
        const ChakraConversion conversion = convertToChakra(graph, host, device, links, options);
        QVERIFY(conversion.trace.nodes.size() > 10);

        const ChakraPlan plan = planChakra(graph, host, device, links, options);
        const std::string path = dir.filePath(QStringLiteral("out.et")).toStdString();
        ChakraStats stats;
        std::vector<Diagnostic> warnings;
        writeChakraPlan(path, plan, graph, host, device, links, options, false, stats, warnings);
        const std::string written = linkscope::test::readFile(path);
        QVERIFY(written == serializeChakraEt(conversion.trace));
        QCOMPARE(stats.nodes, conversion.stats.nodes);
        QCOMPARE(stats.commColl, conversion.stats.commColl);
        QCOMPARE(stats.cpuDurationMicros, conversion.stats.cpuDurationMicros);
        QCOMPARE(warnings.size(), conversion.warnings.size());
    }
};

QTEST_GUILESS_MAIN(TestEtWire)
#include "test_etwire.moc"
