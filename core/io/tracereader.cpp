#include "io/tracereader.h"

#include "base/parallel.h"

#include "io/file/inputtext.h"
#include "io/hostet/hostreader.h"
#include "io/json/jsonscan.h"
#include "io/kineto/kinetoreader.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

namespace linkscope::core {

namespace {

std::atomic<int> configuredThreads{0}; // 0: not set, the default applies
std::atomic<std::size_t> configuredChunkBytes{ReaderThreads{}.minChunkBytes};

int defaultReaderThreads()
{
    if (const char *env = std::getenv("LINKSCOPE_READER_THREADS"); env && *env) {
        char *end = nullptr;
        const long n = std::strtol(env, &end, 10);
        if (end && *end == '\0' && n >= 1)
            return static_cast<int>(std::min<long>(n, 256));
    }
    return 0; // the task's share of the cores (base/parallel.h taskThreads)
}

} // namespace

ReaderThreads readerThreads()
{
    static const int fallback = defaultReaderThreads();
    const int set = configuredThreads.load();
    return {set > 0 ? set : fallback > 0 ? fallback : taskThreads(), configuredChunkBytes.load()};
}

void setReaderThreads(const ReaderThreads &config)
{
    configuredThreads = std::max(1, config.threads);
    configuredChunkBytes = std::max<std::size_t>(1, config.minChunkBytes);
}

HostTrace readHostTrace(const std::string &path, const ProgressFn &progress)
{
    io::ProgressReporter reporter(progress);
    // A plain host ET stays in its file (node spans are read back from it when exporting).
    io::InputText input = io::readInputFile(path, reporter, io::TextUse::FileBackedOrRetained);
    const FileIdentity identity = input.identity;
    HostTrace trace = io::parseHost(std::move(input), path, reporter);
    trace.sourceIdentity = identity;
    reporter.report(reporter.total());
    return trace;
}

DeviceTrace readKinetoTrace(const std::string &path, const ProgressFn &progress)
{
    io::ProgressReporter reporter(progress);
    // The Kineto reader keeps only the events and their args: the text is streamed through.
    io::InputText input = io::readInputFile(path, reporter, io::TextUse::Streamed);
    const FileIdentity identity = input.identity;
    DeviceTrace trace = io::parseKineto(std::move(input), path, reporter);
    trace.sourceIdentity = identity;
    reporter.report(reporter.total());
    return trace;
}

HostTrace parseHostTrace(std::string data, const std::string &name, const ProgressFn &progress)
{
    io::ProgressReporter reporter(progress);
    io::InputText input = io::decodeInput(std::move(data), name, reporter);
    HostTrace trace = io::parseHost(std::move(input), name, reporter);
    reporter.report(reporter.total());
    return trace;
}

DeviceTrace parseKinetoTrace(std::string data, const std::string &name, const ProgressFn &progress)
{
    io::ProgressReporter reporter(progress);
    io::InputText input = io::decodeInput(std::move(data), name, reporter);
    DeviceTrace trace = io::parseKineto(std::move(input), name, reporter);
    reporter.report(reporter.total());
    return trace;
}

} // namespace linkscope::core
