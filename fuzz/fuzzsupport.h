#pragma once
// What both reader fuzz targets share: each input is read twice, from memory and from a file (a
// memfd, so the reader maps it, releases parsed pages and reads spans back by position), and the two
// outcomes must agree. The targets add their own checks of a trace and of two equal traces.

#include "model/common.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace linkscope::fuzz {

// A trace, or where and why the reader refused the input.
template <typename Trace>
struct Outcome {
    std::optional<Trace> trace;
    std::uint64_t errorOffset = 0;
    std::string errorDetail;
};

template <typename Read>
Outcome<std::invoke_result_t<Read>> loadOutcome(Read read)
{
    Outcome<std::invoke_result_t<Read>> o;
    try {
        o.trace.emplace(read());
    } catch (const core::LoadError &e) {
        o.errorOffset = e.offset();
        o.errorDetail = e.detail();
    }
    return o;
}

// Reads `data` with parseFromMemory(bytes) and readFromFile(path), runs `check` on each trace, and
// aborts unless both succeeded or both failed at the same offset with the same message. Returns
// nullopt (nothing compared) when the system gives no memfd.
template <typename ParseFromMemory, typename ReadFromFile, typename Check>
auto readBothWays(const std::uint8_t *data, std::size_t size, ParseFromMemory parseFromMemory, ReadFromFile readFromFile,
                  Check check) -> std::optional<std::pair<Outcome<std::invoke_result_t<ParseFromMemory, const std::string &>>,
                                                          Outcome<std::invoke_result_t<ParseFromMemory, const std::string &>>>>
{
    const std::string bytes(reinterpret_cast<const char *>(data), size);
    auto memory = loadOutcome([&] { return parseFromMemory(bytes); });
    if (memory.trace)
        check(*memory.trace);

    const int fd = memfd_create("fuzz.json", 0);
    if (fd < 0)
        return std::nullopt;
    if (size > 0 && write(fd, data, size) != static_cast<ssize_t>(size)) {
        close(fd);
        return std::nullopt;
    }
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    auto file = loadOutcome([&] { return readFromFile(path); });
    close(fd); // a loaded trace reads spans back through its own descriptor
    if (file.trace)
        check(*file.trace);

    if (memory.trace.has_value() != file.trace.has_value())
        std::abort();
    if (!memory.trace && (memory.errorOffset != file.errorOffset || memory.errorDetail != file.errorDetail))
        std::abort();
    return std::make_pair(std::move(memory), std::move(file));
}

} // namespace linkscope::fuzz
