// The readers give the same result whatever runs them: every simdjson kernel this CPU can run
// (haswell, westmere, fallback on x86-64; arm64, fallback on ARM), and one thread or several
// parsing chunks of the file at once, read every real trace the tests have, and a set of broken
// ones, to the same events, nodes, warnings and error messages.
//
// By default the larger traces of ../shared/traces are sampled (the smallest file of each kind in each
// folder: every producer's layout, not every file of it) and the large broken text gets a third of the
// breakages; LINKSCOPE_TEST_FULL=1 (scripts/dev equivalence) reads all of them.

#include "gen/tracegenerator.h"
#include "io/formats.h"
#include "io/json/jsonkernel.h"
#include "io/tracereader.h"
#include "readerdigest.h"
#include "testsupport.h"

#include <QDirIterator>
#include <QFileInfo>
#include <QObject>
#include <QTest>

#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace linkscope;
using linkscope::gen::generatePair;
using linkscope::gen::GeneratorOptions;

namespace {

// Every JSON trace (plain or gzip) under a folder.
QStringList tracesUnder(const QString &dir)
{
    QStringList out;
    QDirIterator it(dir, {QStringLiteral("*.json"), QStringLiteral("*.json.gz")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << it.next();
    out.sort();
    return out;
}

bool fullRun() { return qEnvironmentVariableIsSet("LINKSCOPE_TEST_FULL"); }

// The smallest file of each trace kind (by sniffing, as the app does) in each folder: one of every
// producer's layout. Everything under a folder when LINKSCOPE_TEST_FULL is set.
QStringList sampleOfEachKind(const QStringList &files)
{
    if (fullRun())
        return files;
    std::map<std::pair<QString, std::string>, QString> smallest;
    for (const QString &f : files) {
        std::string kind;
        try {
            kind = std::string(core::sniffTraceKind(f.toStdString()));
        } catch (const std::exception &) {
        }
        const auto key = std::make_pair(QFileInfo(f).absolutePath(), kind);
        auto it = smallest.find(key);
        if (it == smallest.end() || QFileInfo(f).size() < QFileInfo(it->second).size())
            smallest[key] = f;
    }
    QStringList out;
    for (const auto &[key, f] : smallest)
        out << f;
    out.sort();
    return out;
}

// What reading the file gives (as the app reads it: by its sniffed kind), or the error.
std::string readAs(const std::function<std::string()> &read)
{
    try {
        return read();
    } catch (const std::exception &e) {
        return std::string("error: ") + e.what();
    }
}

std::string digestOfFile(const std::string &path)
{
    return readAs([&] {
        const std::string_view kind = core::sniffTraceKind(path);
        if (kind == core::kKinetoKind)
            return "kineto\n" + test::readerDigest(core::readKinetoTrace(path));
        if (kind == core::kHostEtKind || kind == core::kEtPlusKind)
            return "host\n" + test::readerDigest(core::readHostTrace(path));
        return std::string("not a JSON trace");
    });
}

std::string digestOfText(const std::string &text, bool asKineto)
{
    return readAs([&] {
        return asKineto ? test::readerDigest(core::parseKinetoTrace(text, "broken.json"))
                        : test::readerDigest(core::parseHostTrace(text, "broken.json"));
    });
}

// Broken variants of a good trace: cut at several places, a byte flipped into a quote or a brace,
// a number spoiled. Each must give the same error (or the same recovered result) on every kernel.
// A text over 1 MiB gets every third of them (cuts near its start, middle and end; each flipped byte at
// least once) unless LINKSCOPE_TEST_FULL is set.
std::vector<std::string> brokenVariants(const std::string &good)
{
    std::vector<std::string> out;
    const int stride = good.size() > (1u << 20) && !fullRun() ? 3 : 1;
    int n = 0;
    for (int cut : {1, 7, 31, 50, 77, 93, 99})
        if (n++ % stride == 0)
            out.push_back(good.substr(0, good.size() * static_cast<std::size_t>(cut) / 100));
    for (int at : {13, 41, 67, 88}) {
        for (char c : {'"', '{', ']', '\\', '\x01'}) {
            if (n++ % stride != 0)
                continue;
            std::string s = good;
            s[s.size() * static_cast<std::size_t>(at) / 100] = c;
            out.push_back(std::move(s));
        }
    }
    return out;
}

class ThreadsGuard {
public:
    ThreadsGuard() : original_(core::readerThreads()) { }
    ~ThreadsGuard() { core::setReaderThreads(original_); }

private:
    core::ReaderThreads original_;
};

// Thread counts and chunk sizes that split even the small bundled traces into many chunks.
const std::vector<core::ReaderThreads> kSplits = {{2, 4096}, {3, 1500}, {8, 512}};
// Chunks of a few windows each, for the broken large traces.
const std::vector<core::ReaderThreads> kLargeSplits = {{2, 1u << 20}, {3, 1500000}, {5, 1u << 20}};

class KernelGuard {
public:
    KernelGuard() : original_(core::activeJsonKernel().name) { }
    ~KernelGuard() { core::selectJsonKernel(original_); }

private:
    std::string original_;
};

} // namespace

class TestReaderEquivalence : public QObject {
    Q_OBJECT

private slots:
    void kernelsAreListed()
    {
        const std::vector<core::JsonKernel> kernels = core::runnableJsonKernels();
        QVERIFY(!kernels.empty());
        bool hasFallback = false;
        for (const core::JsonKernel &k : kernels)
            hasFallback = hasFallback || k.name == "fallback";
        QVERIFY2(hasFallback, "the portable kernel is always compiled in and runnable");
        QVERIFY(!core::selectJsonKernel("no-such-kernel"));
        QCOMPARE(core::activeJsonKernel().name, core::activeJsonKernel().name);
    }

    void everyKernelReadsEveryTrace_data()
    {
        QTest::addColumn<QString>("path");
        QStringList files;
        files << tracesUnder(test::bundledTracesDir())
              << tracesUnder(QString::fromStdString(test::sourcePath("resources/samples")))
              << tracesUnder(QString::fromStdString(test::dataPath("export")));
        if (QFileInfo(test::sharedTracesDir()).isDir())
            files << sampleOfEachKind(tracesUnder(test::sharedTracesDir()));
        for (const QString &f : files)
            QTest::newRow(qPrintable(f.section(QLatin1Char('/'), -2))) << f;
    }

    void everyKernelReadsEveryTrace()
    {
        QFETCH(QString, path);
        KernelGuard guard;
        const std::vector<core::JsonKernel> kernels = core::runnableJsonKernels();
        QVERIFY(core::selectJsonKernel(kernels.front().name));
        const std::string reference = digestOfFile(path.toStdString());
        QVERIFY2(reference.rfind("error: ", 0) != 0, reference.c_str());
        for (std::size_t k = 1; k < kernels.size(); ++k) {
            QVERIFY(core::selectJsonKernel(kernels[k].name));
            const std::string other = digestOfFile(path.toStdString());
            QVERIFY2(other == reference, qPrintable(QStringLiteral("kernel %1 reads %2 differently from %3")
                                                        .arg(QString::fromStdString(kernels[k].name), path,
                                                             QString::fromStdString(kernels.front().name))));
        }
    }

    void everyThreadCountReadsEveryTrace_data() { everyKernelReadsEveryTrace_data(); }

    void everyThreadCountReadsEveryTrace()
    {
        QFETCH(QString, path);
        ThreadsGuard guard;
        core::setReaderThreads({1, 16u << 20});
        const std::string reference = digestOfFile(path.toStdString());
        QVERIFY2(reference.rfind("error: ", 0) != 0, reference.c_str());
        for (const core::ReaderThreads &split : kSplits) {
            core::setReaderThreads(split);
            const std::string other = digestOfFile(path.toStdString());
            if (other != reference && qEnvironmentVariableIsSet("LINKSCOPE_TEST_DUMP")) {
                std::ofstream(qPrintable(qEnvironmentVariable("LINKSCOPE_TEST_DUMP") + "/one.txt")) << reference;
                std::ofstream(qPrintable(qEnvironmentVariable("LINKSCOPE_TEST_DUMP") + "/split.txt")) << other;
            }
            QVERIFY2(other == reference, qPrintable(QStringLiteral("%1 threads, chunks of at least %2 bytes: %3 read differently")
                                                        .arg(split.threads)
                                                        .arg(split.minChunkBytes)
                                                        .arg(path)));
        }
    }

    // Broken traces split into chunks: the error (or what is recovered) is the one-thread read's.
    // Broken variants of a small trace (all in the text's last window, where every byte is checked)
    // and of a large one, broken before its last window (where simdjson On-Demand, in both reads,
    // does not look inside the strings it skips).
    void everyThreadCountRefusesBrokenTracesAlike_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("kineto");
        GeneratorOptions options;
        options.seed = 11;
        options.targetKinetoBytes = 6u << 20;
        std::ostringstream host, device, truth;
        generatePair(options, host, device, truth);
        QTest::newRow("generated Kineto, 6 MiB") << QByteArray::fromStdString(device.str()) << true;
        QTest::newRow("generated host ET") << QByteArray::fromStdString(host.str()) << false;
        QTest::newRow("sample Kineto") << QByteArray::fromStdString(
            test::readFile(test::sourcePath("resources/samples/sample_kineto.json")))
                                       << true;
    }

    void everyThreadCountRefusesBrokenTracesAlike()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, kineto);
        ThreadsGuard guard;
        const std::string good = text.toStdString();
        QVERIFY(!good.empty());
        const std::vector<core::ReaderThreads> splits = good.size() > (4u << 20) ? kLargeSplits : kSplits;
        int variant = 0;
        for (const std::string &broken : brokenVariants(good)) {
            core::setReaderThreads({1, 16u << 20});
            const std::string reference = digestOfText(broken, kineto);
            for (const core::ReaderThreads &split : splits) {
                core::setReaderThreads(split);
                const std::string other = digestOfText(broken, kineto);
                if (other != reference && qEnvironmentVariableIsSet("LINKSCOPE_TEST_DUMP")) {
                    std::ofstream(qPrintable(qEnvironmentVariable("LINKSCOPE_TEST_DUMP") + "/one.txt")) << reference;
                    std::ofstream(qPrintable(qEnvironmentVariable("LINKSCOPE_TEST_DUMP") + "/split.txt")) << other;
                }
                QVERIFY2(other == reference, qPrintable(QStringLiteral("variant %1, %2 threads: differs from one thread: %3")
                                                            .arg(variant)
                                                            .arg(split.threads)
                                                            .arg(QString::fromStdString(reference.substr(0, 200)))));
            }
            ++variant;
        }
    }

    void everyKernelRefusesBrokenTracesAlike_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("kineto");
        QTest::newRow("sample kineto") << QString::fromStdString(test::sourcePath("resources/samples/sample_kineto.json"))
                                       << true;
        QTest::newRow("sample host ET") << QString::fromStdString(test::sourcePath("resources/samples/sample_host_et.json"))
                                        << false;
    }

    void everyKernelRefusesBrokenTracesAlike()
    {
        QFETCH(QString, path);
        QFETCH(bool, kineto);
        KernelGuard guard;
        const std::string good = test::readFile(path.toStdString());
        QVERIFY(!good.empty());
        const std::vector<core::JsonKernel> kernels = core::runnableJsonKernels();
        int variant = 0;
        for (const std::string &broken : brokenVariants(good)) {
            QVERIFY(core::selectJsonKernel(kernels.front().name));
            const std::string reference = digestOfText(broken, kineto);
            for (std::size_t k = 1; k < kernels.size(); ++k) {
                QVERIFY(core::selectJsonKernel(kernels[k].name));
                QVERIFY2(
                    digestOfText(broken, kineto) == reference,
                    qPrintable(QStringLiteral("variant %1: kernel %2 differs from %3: %4")
                                   .arg(variant)
                                   .arg(QString::fromStdString(kernels[k].name), QString::fromStdString(kernels.front().name),
                                        QString::fromStdString(reference.substr(0, 200)))));
            }
            ++variant;
        }
    }
};

QTEST_GUILESS_MAIN(TestReaderEquivalence)
#include "test_reader_equivalence.moc"
