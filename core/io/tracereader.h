#pragma once
// The readers of the built-in formats: plain or gzip (by magic bytes), with progress and
// cancellation. Callers open files through the input-format table (io/formats.h), which names these;
// what a file is, is decided there.

#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <string>

namespace linkscope::core {

// How many threads one reader parses a file with, and the least text each takes: below that one
// thread reads. Defaults: the task's share of the cores (base/parallel.h taskThreads: the cores, at
// most 8, unless a job running several ranks at once shares them out), 16 MiB. The environment variable
// LINKSCOPE_READER_THREADS sets the count for a whole run (1 = one thread). The result is the
// same whatever the count (tests/test_reader_equivalence); tests use small chunks to prove it.
struct ReaderThreads {
    int threads = 1;
    std::size_t minChunkBytes = 16u << 20;
};
ReaderThreads readerThreads();
void setReaderThreads(const ReaderThreads &config);

// Throw LoadError (file + byte offset) for unusable input, Cancelled if progress returns false.
// Recoverable problems are appended to the result's `warnings`.
HostTrace readHostTrace(const std::string &path, const ProgressFn &progress = {});
DeviceTrace readKinetoTrace(const std::string &path, const ProgressFn &progress = {});

// The same from memory (tests, fuzzing). `name` is used in messages. `data` may be gzip.
HostTrace parseHostTrace(std::string data, const std::string &name, const ProgressFn &progress = {});
DeviceTrace parseKinetoTrace(std::string data, const std::string &name, const ProgressFn &progress = {});

} // namespace linkscope::core
