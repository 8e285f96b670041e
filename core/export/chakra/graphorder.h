#pragma once
// Topological order of a dependency graph, or one of its cycles: how an export proves that a
// simulator feeding the graph can run every node. Iterative throughout (Kahn, then a walk among the
// nodes left over): graphs of millions of nodes cannot overflow the stack.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace linkscope::core {

struct GraphOrder {
    std::vector<std::uint32_t> order; // kept nodes that can run, each after every node it waits for
    std::size_t blocked = 0;          // kept nodes that never become ready: on a cycle, or waiting for one
    // When blocked: one cycle, each node waiting for the next, the first repeated at the end
    // ({3, 3} for a self-loop). Empty when nothing is blocked.
    std::vector<std::uint32_t> cycle;

    bool acyclic() const { return blocked == 0; }
};

// The nodes (positions below the node count) that `node` waits for. The span may point into a buffer
// the callback owns: it is read before the next call.
using DependenciesOf = std::function<std::span<const std::uint32_t>(std::uint32_t node)>;

// `keep`, when not empty, has one entry per node and restricts the graph to nodes whose entry is
// not 0 (a dependency on a node left out is ignored). Ready nodes are taken last-in first-out, so
// `order` is deterministic; `cycle` is the first one reached from the lowest blocked position by
// always following a node's first blocked dependency.
GraphOrder orderByDependencies(std::size_t nodeCount, const DependenciesOf &dependenciesOf,
                               std::span<const std::uint8_t> keep = {});

// The same over a CSR: node i waits for dependencies[begin[i] .. begin[i + 1]); begin has one entry
// more than there are nodes.
GraphOrder orderByDependencies(std::span<const std::uint32_t> begin, std::span<const std::uint32_t> dependencies,
                               std::span<const std::uint8_t> keep = {});

} // namespace linkscope::core
