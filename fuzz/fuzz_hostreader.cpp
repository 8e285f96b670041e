// libFuzzer target: any bytes into the host ET reader, twice: from memory, and from a file (a memfd,
// so readHostTrace maps it, releases parsed pages and reads spans back by position). Each must either
// return a consistent tree (sorted ids, CSR children, no parent loops, spans inside the source) or
// throw LoadError, and both must agree (nodes, span texts, error message and offset).
#include "io/tracereader.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

using namespace linkscope::core;

namespace {
void checkSpan(const HostTrace &t, Span s)
{
    if (!s.empty() && s.offset + s.length > t.source->sizeBytes())
        std::abort();
}

void checkTree(const HostTrace &t)
{
    const std::size_t n = t.nodes.size();
    if (t.childBegin.size() != n + 1 || t.indexById.size() != n)
        std::abort();
    std::size_t children = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const HostNode &node = t.nodes[i];
        if (i > 0 && t.nodes[i - 1].id >= node.id)
            std::abort();
        if (node.parent != UINT32_MAX && node.parent >= n)
            std::abort();
        // Walking up must reach a root within n steps (no loops survive the reader).
        std::uint32_t at = i;
        std::size_t steps = 0;
        while (at != UINT32_MAX && steps++ <= n)
            at = t.nodes[at].parent;
        if (at != UINT32_MAX)
            std::abort();
        for (std::uint32_t c = t.childBegin[i]; c < t.childBegin[i + 1]; ++c)
            if (t.childList.at(c) >= n || t.nodes[t.childList[c]].parent != i)
                std::abort();
        children += t.childBegin[i + 1] - t.childBegin[i];
        for (Span s : {node.raw, node.attrs, node.inputs.values, node.inputs.shapes, node.inputs.types,
                       node.inputs.strides, node.outputs.values, node.outputs.shapes, node.outputs.types,
                       node.outputs.strides})
            checkSpan(t, s);
        if (node.comm != UINT32_MAX && node.comm >= t.commAttrs.size())
            std::abort();
    }
    if (children + t.roots.size() != n)
        std::abort();
}

struct Outcome {
    std::optional<HostTrace> trace;
    std::uint64_t errorOffset = 0;
    std::string errorDetail;
};

template<typename Read>
Outcome load(Read read)
{
    Outcome o;
    try {
        o.trace.emplace(read());
    } catch (const LoadError &e) {
        o.errorOffset = e.offset();
        o.errorDetail = e.detail();
    }
    return o;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string bytes(reinterpret_cast<const char *>(data), size);
    const Outcome memory = load([&] { return parseHostTrace(bytes, "fuzz.json"); });
    if (memory.trace)
        checkTree(*memory.trace);

    const int fd = memfd_create("fuzz.json", 0);
    if (fd < 0)
        return 0;
    if (size > 0 && write(fd, data, size) != static_cast<ssize_t>(size)) {
        close(fd);
        return 0;
    }
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    const Outcome file = load([&] { return readHostTrace(path); });
    if (file.trace)
        checkTree(*file.trace);

    if (memory.trace.has_value() != file.trace.has_value())
        std::abort();
    if (!memory.trace) {
        close(fd);
        if (memory.errorOffset != file.errorOffset || memory.errorDetail != file.errorDetail)
            std::abort();
        return 0;
    }
    const HostTrace &a = *memory.trace, &b = *file.trace;
    if (a.nodes.size() != b.nodes.size() || a.warnings.size() != b.warnings.size())
        std::abort();
    for (std::size_t i = 0; i < a.nodes.size(); ++i)
        if (a.nodes[i].id != b.nodes[i].id || a.text(a.nodes[i].raw) != b.text(b.nodes[i].raw)
            || a.text(a.nodes[i].inputs.values) != b.text(b.nodes[i].inputs.values))
            std::abort();
    close(fd); // after the spans were read back through it
    return 0;
}
