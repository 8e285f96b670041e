#include "io/hostet/hosttree.h"

#include "base/radixsort.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace linkscope::core::io {

namespace {

// Node indices in order of id, equal ids in file order: a radix sort on (id - smallest id), a few
// linear passes for the usual dense ids.
std::vector<std::uint32_t> idOrder(const std::vector<HostNode> &nodes)
{
    const std::size_t count = nodes.size();
    std::vector<std::uint32_t> order(count);
    std::iota(order.begin(), order.end(), 0u);
    if (count < 2)
        return order;
    bool sorted = true;
    for (std::size_t i = 1; i < count && sorted; ++i)
        sorted = nodes[i - 1].id <= nodes[i].id;
    if (sorted)
        return order;
    // Stable (core/base/radixsort.h): equal ids stay in file order.
    struct Keyed {
        std::int64_t id;
        std::uint32_t index;
    };
    std::vector<Keyed> keyed(count);
    for (std::size_t i = 0; i < count; ++i)
        keyed[i] = {nodes[i].id, static_cast<std::uint32_t>(i)};
    radixSortStable(keyed, [](const Keyed &k) { return k.id; });
    for (std::size_t i = 0; i < count; ++i)
        order[i] = keyed[i].index;
    return order;
}

// nodes[k] = old nodes[source[k]] for every k, following the permutation's cycles; `source` is
// used up.
void permuteInPlace(std::vector<HostNode> &nodes, std::vector<std::uint32_t> &source)
{
    for (std::uint32_t i = 0; i < source.size(); ++i) {
        if (source[i] == i)
            continue;
        const HostNode first = nodes[i];
        std::uint32_t j = i;
        for (;;) {
            const std::uint32_t from = source[j];
            source[j] = j;
            if (from == i) {
                nodes[j] = first;
                break;
            }
            nodes[j] = nodes[from];
            j = from;
        }
    }
}

// Parent ids could form a loop in a damaged file; every consumer walks parent chains, so a loop
// is cut at the node where it is found.
void breakCycles(HostTrace &trace)
{
    auto &nodes = trace.nodes;
    std::vector<std::uint8_t> state(nodes.size(), 0); // 0 unknown, 1 on the current path, 2 reaches a root
    std::vector<HostNodeIndex> path;
    std::size_t cut = 0;
    std::string examples;
    for (std::size_t start = 0; start < nodes.size(); ++start) {
        HostNodeIndex i = HostNodeIndex::at(start);
        path.clear();
        while (i.valid() && state[i.get()] == 0) {
            state[i.get()] = 1;
            path.push_back(i);
            HostNode &node = nodes[i.get()];
            const HostNodeIndex parent = node.parent;
            if (parent.valid() && state[parent.get()] == 1) {
                node.parent = kNone;
                if (++cut <= 3)
                    examples += (examples.empty() ? "" : ", ") + std::string("node ") + std::to_string(node.id);
                break;
            }
            i = parent;
        }
        for (HostNodeIndex j : path)
            state[j.get()] = 2;
    }
    if (cut > 0) {
        Diagnostic d;
        d.file = trace.path;
        d.message = std::to_string(cut) + " parent loop(s) found; each was cut by making one node a root (" + examples + ")";
        trace.warnings.push_back(d);
    }
}

} // namespace

void buildHostTree(HostTrace &trace)
{
    auto &nodes = trace.nodes;
    // Sort by id; equal ids keep file order, and the first one wins. The nodes are moved into
    // place instead of copied into a sorted vector, which would hold a second copy of all of them.
    std::vector<std::uint32_t> source = idOrder(nodes); // source[k]: the node that goes to position k
    std::vector<std::uint32_t> repeats;
    std::size_t kept = 0;
    std::string duplicateExamples;
    for (const std::uint32_t i : source) {
        if (kept > 0 && nodes[source[kept - 1]].id == nodes[i].id) {
            if (repeats.size() < 3)
                duplicateExamples += (duplicateExamples.empty() ? "" : ", ") + std::string("id ") + std::to_string(nodes[i].id)
                                     + " at byte " + std::to_string(nodes[i].raw.offset);
            repeats.push_back(i);
            continue;
        }
        source[kept++] = i;
    }
    const std::size_t duplicates = repeats.size();
    std::copy(repeats.begin(), repeats.end(), source.begin() + static_cast<std::ptrdiff_t>(kept));
    permuteInPlace(nodes, source);
    nodes.resize(kept);
    if (duplicates > 0) {
        Diagnostic d;
        d.file = trace.path;
        d.message = std::to_string(duplicates)
                    + " node(s) repeat an id already used; the first node with each id is "
                      "kept, the repeats are ignored (e.g. "
                    + duplicateExamples + ")";
        trace.warnings.push_back(d);
    }

    trace.indexById.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
        trace.indexById.emplace(nodes[i].id, HostNodeIndex::at(i));

    std::size_t missing = 0;
    std::string missingExamples;
    for (auto &n : nodes) {
        if (n.parentId < 0 || n.parentId == n.id)
            continue;
        auto it = trace.indexById.find(n.parentId);
        if (it == trace.indexById.end()) {
            n.parentMissing = true;
            if (++missing <= 3)
                missingExamples += (missingExamples.empty() ? "" : ", ") + std::string("node ") + std::to_string(n.id)
                                   + " → parent " + std::to_string(n.parentId);
            continue;
        }
        n.parent = it->second;
    }
    if (missing > 0) {
        Diagnostic d;
        d.file = trace.path;
        d.message = std::to_string(missing)
                    + " node(s) name a parent id that is not in the file; they are kept as "
                      "roots (e.g. "
                    + missingExamples + ")";
        trace.warnings.push_back(d);
    }
    breakCycles(trace);

    const std::size_t count = nodes.size();
    trace.childBegin.assign(count + 1, 0);
    for (const auto &n : nodes)
        if (n.parent.valid())
            ++trace.childBegin[n.parent.get() + 1];
    for (std::size_t i = 0; i < count; ++i)
        trace.childBegin[i + 1] += trace.childBegin[i];
    trace.childList.resize(trace.childBegin[count]);
    std::vector<std::uint32_t> fill(trace.childBegin.begin(), trace.childBegin.end() - 1);
    // Nodes are in id order, so each child list comes out sorted by id.
    for (std::size_t i = 0; i < count; ++i) {
        if (nodes[i].parent.valid())
            trace.childList[fill[nodes[i].parent.get()]++] = HostNodeIndex::at(i);
        else
            trace.roots.push_back(HostNodeIndex::at(i));
    }
}

} // namespace linkscope::core::io
