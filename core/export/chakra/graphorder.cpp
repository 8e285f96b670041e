#include "export/chakra/graphorder.h"

namespace linkscope::core {

GraphOrder orderByDependencies(std::size_t nodeCount, const DependenciesOf &dependenciesOf, std::span<const std::uint8_t> keep)
{
    GraphOrder result;
    const auto n = static_cast<std::uint32_t>(nodeCount);
    auto kept = [&](std::uint32_t i) { return keep.empty() || keep[i] != 0; };

    // Kahn needs each node's dependents: the dependencies turned around, as a CSR.
    std::vector<std::uint32_t> inDegree(n, 0);
    std::vector<std::size_t> dependentBegin(std::size_t(n) + 1, 0);
    for (std::uint32_t i = 0; i < n; ++i)
        if (kept(i))
            for (std::uint32_t dependency : dependenciesOf(i)) {
                if (!kept(dependency))
                    continue;
                ++inDegree[i];
                ++dependentBegin[dependency + 1];
            }
    for (std::uint32_t i = 0; i < n; ++i)
        dependentBegin[i + 1] += dependentBegin[i];
    std::vector<std::uint32_t> dependents(dependentBegin.back());
    {
        std::vector<std::size_t> fill(dependentBegin.begin(), dependentBegin.end() - 1);
        for (std::uint32_t i = 0; i < n; ++i)
            if (kept(i))
                for (std::uint32_t dependency : dependenciesOf(i))
                    if (kept(dependency))
                        dependents[fill[dependency]++] = i;
    }

    std::vector<std::uint32_t> ready;
    std::size_t keptCount = 0;
    for (std::uint32_t i = 0; i < n; ++i)
        if (kept(i)) {
            ++keptCount;
            if (inDegree[i] == 0)
                ready.push_back(i);
        }
    result.order.reserve(keptCount);
    while (!ready.empty()) {
        const std::uint32_t v = ready.back();
        ready.pop_back();
        result.order.push_back(v);
        for (std::size_t k = dependentBegin[v]; k < dependentBegin[v + 1]; ++k)
            if (--inDegree[dependents[k]] == 0)
                ready.push_back(dependents[k]);
    }
    result.blocked = keptCount - result.order.size();
    if (result.blocked == 0)
        return result;

    // Every blocked node still waits for a blocked dependency, so following such dependencies from
    // any blocked node must revisit a node: the stretch of the walk from its first visit is a cycle.
    std::uint32_t v = 0;
    while (!kept(v) || inDegree[v] == 0)
        ++v;
    std::vector<std::int64_t> positionInWalk(n, -1);
    std::vector<std::uint32_t> walk;
    while (positionInWalk[v] < 0) {
        positionInWalk[v] = static_cast<std::int64_t>(walk.size());
        walk.push_back(v);
        for (std::uint32_t dependency : dependenciesOf(v))
            if (kept(dependency) && inDegree[dependency] > 0) {
                v = dependency;
                break;
            }
    }
    result.cycle.assign(walk.begin() + positionInWalk[v], walk.end());
    result.cycle.push_back(v);
    return result;
}

GraphOrder orderByDependencies(std::span<const std::uint32_t> begin, std::span<const std::uint32_t> dependencies,
                               std::span<const std::uint8_t> keep)
{
    const std::size_t nodeCount = begin.empty() ? 0 : begin.size() - 1;
    return orderByDependencies(
        nodeCount, [&](std::uint32_t node) { return dependencies.subspan(begin[node], begin[node + 1] - begin[node]); }, keep);
}

} // namespace linkscope::core
