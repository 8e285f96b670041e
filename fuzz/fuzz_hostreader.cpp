// libFuzzer target: any bytes into the host ET reader: from memory and from a file (a memfd, so
// readHostTrace maps it, releases parsed pages and reads spans back by position), both split into
// chunks read by three threads, and from memory by one thread. Each must either return a
// consistent tree (sorted ids, CSR children, no parent loops, spans inside the source) or throw
// LoadError; the chunked reads must agree (nodes, span texts, error message and offset) and be
// exactly the one-thread read (tests/readerdigest.h: every field, the warnings, the error).
#include "fuzzsupport.h"
#include "io/tracereader.h"
#include "readerdigest.h"

#include <cstdint>
#include <cstdlib>
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
    for (std::size_t i = 0; i < n; ++i) {
        const HostNodeIndex index = HostNodeIndex::at(i);
        const HostNode &node = t.node(index);
        if (i > 0 && t.nodes[i - 1].id >= node.id)
            std::abort();
        if (node.parent.valid() && !t.contains(node.parent))
            std::abort();
        // Walking up must reach a root within n steps (no loops survive the reader).
        HostNodeIndex at = index;
        std::size_t steps = 0;
        while (at.valid() && steps++ <= n)
            at = t.node(at).parent;
        if (at.valid())
            std::abort();
        for (std::uint32_t c = t.childBegin[i]; c < t.childBegin[i + 1]; ++c)
            if (!t.contains(t.childList.at(c)) || t.node(t.childList[c]).parent != index)
                std::abort();
        children += t.childBegin[i + 1] - t.childBegin[i];
        for (Span s : {node.raw, node.attrs, node.inputs.values, node.inputs.shapes, node.inputs.types, node.inputs.strides,
                       node.outputs.values, node.outputs.shapes, node.outputs.types, node.outputs.strides})
            checkSpan(t, s);
        if (node.comm.valid() && !node.comm.in(t.commAttrs.size()))
            std::abort();
    }
    if (children + t.roots.size() != n)
        std::abort();
}

std::string digestOf(const std::string &bytes)
{
    try {
        return linkscope::test::readerDigest(parseHostTrace(bytes, "fuzz.json"));
    } catch (const LoadError &e) {
        return std::string("error: ") + e.what();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string bytes(reinterpret_cast<const char *>(data), size);
    setReaderThreads({1, 1});
    const std::string oneThread = digestOf(bytes);
    setReaderThreads({3, 64}); // chunks of at least 64 bytes: most inputs with a few nodes are split
    if (digestOf(bytes) != oneThread)
        std::abort();
    const auto outcomes = linkscope::fuzz::readBothWays(
        data, size, [](const std::string &bytes) { return parseHostTrace(bytes, "fuzz.json"); },
        [](const std::string &path) { return readHostTrace(path); }, checkTree);
    if (!outcomes || !outcomes->first.trace)
        return 0;
    const HostTrace &a = *outcomes->first.trace, &b = *outcomes->second.trace;
    if (a.nodes.size() != b.nodes.size() || a.warnings.size() != b.warnings.size())
        std::abort();
    for (std::size_t i = 0; i < a.nodes.size(); ++i)
        if (a.nodes[i].id != b.nodes[i].id || a.text(a.nodes[i].raw) != b.text(b.nodes[i].raw)
            || a.text(a.nodes[i].inputs.values) != b.text(b.nodes[i].inputs.values))
            std::abort();
    return 0;
}
