// orderByDependencies: the one Kahn + cycle walk behind export validation (validateEt and
// validateChakraPlan). Expected orders and cycles are worked out by hand from the small graphs
// drawn in each case; the checks below test the properties (every node once, each after what it
// waits for; each cycle node waits for the next) rather than trust the helper's own output.

#include "export/chakra/graphorder.h"

#include <QtTest>

#include <algorithm>
#include <set>

using namespace linkscope::core;

namespace {

// Dependencies as lists per node (node i waits for deps[i]), turned into the CSR the helper takes.
struct Csr {
    std::vector<std::uint32_t> begin{0}, list;
    explicit Csr(const std::vector<std::vector<std::uint32_t>> &deps)
    {
        for (const auto &d : deps) {
            list.insert(list.end(), d.begin(), d.end());
            begin.push_back(static_cast<std::uint32_t>(list.size()));
        }
    }
    bool waitsFor(std::uint32_t node, std::uint32_t dependency) const
    {
        return std::find(list.begin() + begin[node], list.begin() + begin[node + 1], dependency)
               != list.begin() + begin[node + 1];
    }
};

// Every kept node exactly once, after each kept node it waits for.
bool isTopologicalOrder(const Csr &g, const std::vector<std::uint32_t> &order, const std::vector<std::uint8_t> &keep = {})
{
    const std::size_t n = g.begin.size() - 1;
    std::vector<std::int64_t> position(n, -1);
    for (std::size_t p = 0; p < order.size(); ++p) {
        if (order[p] >= n || position[order[p]] >= 0 || (!keep.empty() && !keep[order[p]]))
            return false;
        position[order[p]] = static_cast<std::int64_t>(p);
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        const bool kept = keep.empty() || keep[i];
        if (kept != (position[i] >= 0))
            return false;
        if (!kept)
            continue;
        for (std::uint32_t k = g.begin[i]; k < g.begin[i + 1]; ++k)
            if ((keep.empty() || keep[g.list[k]]) && position[g.list[k]] > position[i])
                return false;
    }
    return true;
}

// Closed (first == last), each node waits for the next, no node twice before the end.
bool isCycleOf(const Csr &g, const std::vector<std::uint32_t> &cycle)
{
    if (cycle.size() < 2 || cycle.front() != cycle.back())
        return false;
    if (std::set<std::uint32_t>(cycle.begin(), cycle.end() - 1).size() != cycle.size() - 1)
        return false;
    for (std::size_t i = 0; i + 1 < cycle.size(); ++i)
        if (!g.waitsFor(cycle[i], cycle[i + 1]))
            return false;
    return true;
}

GraphOrder orderOf(const Csr &g, const std::vector<std::uint8_t> &keep = {})
{
    return orderByDependencies(g.begin, g.list, keep);
}

} // namespace

class TestGraphOrder : public QObject {
    Q_OBJECT
private slots:
    void emptyGraph()
    {
        const GraphOrder order = orderOf(Csr({}));
        QVERIFY(order.acyclic());
        QVERIFY(order.order.empty());
        QVERIFY(order.cycle.empty());
        // A CSR with no begin entry at all is the empty graph too.
        QVERIFY(orderByDependencies(std::span<const std::uint32_t>(), std::span<const std::uint32_t>()).order.empty());
    }

    void acyclicGraphIsOrdered()
    {
        // 0 ← 1 ← 3, 0 ← 2 ← 3, 4 waits for 3 and 0 (a diamond and a shortcut), 5 waits for 4 twice.
        const Csr g({{}, {0}, {0}, {1, 2}, {3, 0}, {4, 4}});
        const GraphOrder order = orderOf(g);
        QVERIFY(order.acyclic());
        QCOMPARE(order.blocked, std::size_t(0));
        QVERIFY(order.cycle.empty());
        QCOMPARE(order.order.size(), std::size_t(6));
        QVERIFY(isTopologicalOrder(g, order.order));
        QCOMPARE(order.order.front(), 0u); // the only node waiting for nothing
        QCOMPARE(order.order.back(), 5u);  // after 4, which is after everything else
    }

    void disconnectedComponents()
    {
        // Three components: the chain 0 ← 1 ← 2, the lone 3, the pair 5 ← 4 (4 waits for 5).
        const Csr g({{}, {0}, {1}, {}, {5}, {}});
        const GraphOrder order = orderOf(g);
        QVERIFY(order.acyclic());
        QCOMPARE(order.order.size(), std::size_t(6));
        QVERIFY(isTopologicalOrder(g, order.order));
    }

    void cycleIsReportedWithExactlyItsNodes()
    {
        // 1 → 2 → 3 → 1 (each waits for the next) is the cycle; 4 waits for 3 and 5 for 4, so they are
        // blocked but not on it; 0 is free and 6 waits only for 0.
        const Csr g({{}, {2}, {3}, {1}, {3}, {4}, {0}});
        const GraphOrder order = orderOf(g);
        QVERIFY(!order.acyclic());
        QCOMPARE(order.blocked, std::size_t(5)); // 1..5
        QVERIFY(isCycleOf(g, order.cycle));
        QCOMPARE(std::set<std::uint32_t>(order.cycle.begin(), order.cycle.end()), (std::set<std::uint32_t>{1, 2, 3}));
        // The walk starts at the lowest blocked node, 1: 1 → 2 → 3 → 1.
        QCOMPARE(order.cycle, (std::vector<std::uint32_t>{1, 2, 3, 1}));
        // What can run still comes out in order: 0 and 6.
        QCOMPARE(std::set<std::uint32_t>(order.order.begin(), order.order.end()), (std::set<std::uint32_t>{0, 6}));
    }

    void walkFromATailReachesTheCycle()
    {
        // The lowest blocked node, 0, is not on the cycle: 0 → 1 → 2 → 3 → 2. Only {2, 3} is reported.
        const Csr g({{1}, {2}, {3}, {2}});
        const GraphOrder order = orderOf(g);
        QCOMPARE(order.blocked, std::size_t(4));
        QCOMPARE(order.cycle, (std::vector<std::uint32_t>{2, 3, 2}));
    }

    void selfLoop()
    {
        // 2 waits for itself; 3 waits for 2.
        const Csr g({{}, {0}, {2}, {2}});
        const GraphOrder order = orderOf(g);
        QCOMPARE(order.blocked, std::size_t(2));
        QCOMPARE(order.cycle, (std::vector<std::uint32_t>{2, 2}));
        QVERIFY(isCycleOf(g, order.cycle));
    }

    void keepMaskLeavesNodesOut()
    {
        // 1 ↔ 2 is a cycle, but 2 is left out: the kept graph {0, 1, 3} is a chain 0 ← 1 ← 3.
        const Csr g({{}, {0, 2}, {1}, {1}});
        const std::vector<std::uint8_t> keep{1, 1, 0, 1};
        const GraphOrder order = orderOf(g, keep);
        QVERIFY(order.acyclic());
        QCOMPARE(order.order, (std::vector<std::uint32_t>{0, 1, 3}));
        QVERIFY(isTopologicalOrder(g, order.order, keep));
        // Keeping 2 brings the cycle back.
        const GraphOrder all = orderOf(g);
        QCOMPARE(all.cycle, (std::vector<std::uint32_t>{1, 2, 1}));
        QCOMPARE(all.blocked, std::size_t(3));
    }

    void callbackFormMatchesCsr()
    {
        // The adjacency callback (what validateEt uses, resolving ids on the fly) gives the same answer.
        const Csr g({{3}, {0}, {1}, {2}, {}});
        const GraphOrder viaCsr = orderOf(g);
        const GraphOrder viaCallback = orderByDependencies(5, [&](std::uint32_t i) {
            return std::span<const std::uint32_t>(g.list.data() + g.begin[i], g.begin[i + 1] - g.begin[i]);
        });
        QCOMPARE(viaCallback.cycle, viaCsr.cycle);
        QCOMPARE(viaCallback.order, viaCsr.order);
        QCOMPARE(viaCsr.cycle, (std::vector<std::uint32_t>{0, 3, 2, 1, 0}));
        QCOMPARE(viaCsr.order, (std::vector<std::uint32_t>{4}));
    }

    void millionNodeChainAndCycleNeedNoRecursion()
    {
        // A chain of a million nodes, then the same chain closed into one cycle: both iterative.
        constexpr std::uint32_t n = 1'000'000;
        std::vector<std::uint32_t> begin(n + 1), list; // node i waits for i - 1
        list.reserve(n);
        for (std::uint32_t i = 1; i < n; ++i)
            list.push_back(i - 1);
        for (std::uint32_t i = 0; i <= n; ++i)
            begin[i] = i == 0 ? 0 : i - 1;
        const GraphOrder chain = orderByDependencies(begin, list);
        QVERIFY(chain.acyclic());
        QCOMPARE(chain.order.size(), std::size_t(n));
        QCOMPARE(chain.order.front(), 0u);
        QCOMPARE(chain.order.back(), n - 1);

        // Node 0 now waits for the last node: one cycle through all of them.
        std::vector<std::uint32_t> closedBegin(n + 1), closedList{n - 1};
        closedList.insert(closedList.end(), list.begin(), list.end());
        for (std::uint32_t i = 0; i <= n; ++i)
            closedBegin[i] = i;
        const GraphOrder closed = orderByDependencies(closedBegin, closedList);
        QCOMPARE(closed.blocked, std::size_t(n));
        QCOMPARE(closed.cycle.size(), std::size_t(n) + 1);
        QCOMPARE(closed.cycle[0], 0u);
        QCOMPARE(closed.cycle[1], n - 1);
        QCOMPARE(closed.cycle.back(), 0u);
    }
};

QTEST_GUILESS_MAIN(TestGraphOrder)
#include "test_graphorder.moc"
