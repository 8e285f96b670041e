#pragma once
// Paths the tests use: the public traces (a few small ones bundled in tests/data/traces, the rest in
// ../shared/traces when that folder is beside the checkout) and the repo's own fixtures.

#include <QDebug>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include "base/indices.h"
#include "testpaths.h"

#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>

namespace linkscope::test {

// True in the sanitizer build (scripts/dev sanitize): ASan's shadow memory and quarantine make a
// process's peak memory say nothing about the code's own, so tests leave out their memory bounds
// there (never their results).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

// The two folders a public trace can be in, bundled first.
inline QString bundledTracesDir() { return QString::fromStdString(paths::testDataDir()) + QStringLiteral("/traces"); }

inline QString sharedTracesDir() { return QString::fromStdString(paths::sharedTracesDir()); }

// A file under the build folder: `relative` starts with "/" ("/screens/x.png", "/app/linkscope").
inline QString buildPath(const char *relative)
{
    return QString::fromStdString(paths::binaryDir()) + QString::fromUtf8(relative);
}

// A public trace by its path under a traces folder (e.g. "hta_kineto_nccl/nccl_data.json.gz"): the
// bundled copy if there is one, else the one in ../shared/traces. If neither exists the shared path is
// returned, so an error names where the file was expected; a test that needs a file that is not bundled
// says so first with LINKSCOPE_REQUIRE_TRACES, which skips it on a checkout without ../shared.
inline std::string tracePath(const std::string &relative)
{
    const QString name = QString::fromStdString(relative);
    const QString bundled = QDir(bundledTracesDir()).filePath(name);
    if (QFileInfo::exists(bundled))
        return bundled.toStdString();
    return QDir(sharedTracesDir()).filePath(name).toStdString();
}

// The first of the traces that is in neither folder, or empty if all are present.
inline std::string firstMissingTrace(std::initializer_list<std::string> relatives)
{
    for (const std::string &relative : relatives) {
        if (!QFileInfo::exists(QString::fromStdString(tracePath(relative))))
            return tracePath(relative);
    }
    return {};
}

inline std::string dataPath(const char *relative)
{
    return QDir(QString::fromStdString(paths::testDataDir())).filePath(QString::fromUtf8(relative)).toStdString();
}

inline std::string sourcePath(const char *relative)
{
    return QDir(QString::fromStdString(paths::sourceDir())).filePath(QString::fromUtf8(relative)).toStdString();
}

// A bundled sample (resources/samples/NAME) copied once into a private folder of this test run: a
// corrections sidecar saved beside the repository's sample (by correcting it in the GUI) would
// otherwise be applied on open and change what a test sees.
inline QString sampleCopy(const char *name)
{
    static QTemporaryDir dir;
    const QString copy = dir.filePath(QLatin1String(name));
    if (!QFileInfo::exists(copy))
        QFile::copy(QString::fromStdString(sourcePath("resources/samples")) + QLatin1Char('/') + QLatin1String(name), copy);
    return copy;
}

// The whole file as bytes (empty if it cannot be read).
inline std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

} // namespace linkscope::test

namespace linkscope::core {
// QCOMPARE of two strong indices prints them (found by argument-dependent lookup): the raw value, or
// "none".
template <typename Tag>
char *toString(StrongIndex<Tag> i)
{
    return i.isNone() ? qstrdup("none") : QTest::toString(i.value);
}
inline char *toString(NoneIndex) { return qstrdup("none"); }
// And inside containers (QCOMPARE of two std::vector<EventIndex> prints them through QDebug).
template <typename Tag>
QDebug operator<<(QDebug debug, StrongIndex<Tag> i)
{
    QDebugStateSaver saver(debug);
    if (i.isNone())
        debug.nospace() << "none";
    else
        debug.nospace() << i.value;
    return debug;
}
} // namespace linkscope::core

// Skips the current test (or data row) unless every listed public trace is present, bundled or in
// ../shared/traces. Use it before the first tracePath of a trace that tests/data/traces does not hold.
#define LINKSCOPE_REQUIRE_TRACES(...)                                                                                            \
    do {                                                                                                                         \
        const std::string linkscopeMissingTrace_ = ::linkscope::test::firstMissingTrace({__VA_ARGS__});                          \
        if (!linkscopeMissingTrace_.empty())                                                                                     \
            QSKIP(qPrintable(QStringLiteral("trace not present: ") + QString::fromStdString(linkscopeMissingTrace_)));           \
    } while (false)
