// lowerBoundNear / upperBoundNear (core/base/nearsearch.h) against std::lower_bound / upper_bound:
// random sorted arrays with runs of equal values, every key in and around the range, fingers anywhere.

#include "base/nearsearch.h"

#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

using namespace linkscope::core;

class TestNearSearch : public QObject {
    Q_OBJECT

private slots:
    void matchesStd()
    {
        std::mt19937_64 rng(7);
        for (int round = 0; round < 300; ++round) {
            const std::size_t n = rng() % 70;
            std::vector<std::int64_t> v(n);
            for (auto &x : v)
                x = static_cast<std::int64_t>(rng() % 40); // many duplicates
            std::sort(v.begin(), v.end());
            for (std::int64_t key = -2; key < 43; ++key) {
                const auto lower = static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), key) - v.begin());
                const auto upper = static_cast<std::size_t>(std::upper_bound(v.begin(), v.end(), key) - v.begin());
                for (std::size_t finger0 : {std::size_t(0), n / 2, n, n + 5, static_cast<std::size_t>(rng() % (n + 1))}) {
                    std::size_t finger = finger0;
                    QCOMPARE(lowerBoundNear(v, key, finger), lower);
                    QCOMPARE(finger, lower);
                    finger = finger0;
                    QCOMPARE(upperBoundNear(v, key, finger), upper);
                    QCOMPARE(finger, upper);
                }
            }
        }
    }

    void pairsWithComparator()
    {
        // The linker's (External id, position) lists, searched with a pair key.
        std::vector<std::pair<std::int64_t, std::uint32_t>> v{{1, 0}, {1, 4}, {3, 2}, {3, 9}, {8, 1}};
        std::size_t finger = 4;
        QCOMPARE(lowerBoundNear(v, std::make_pair(std::int64_t(3), std::uint32_t(5)), finger), std::size_t(3));
        QCOMPARE(lowerBoundNear(v, std::make_pair(std::int64_t(0), std::uint32_t(0)), finger), std::size_t(0));
        QCOMPARE(lowerBoundNear(v, std::make_pair(std::int64_t(9), std::uint32_t(0)), finger), std::size_t(5));
    }

    void sequentialQueriesStayLocal()
    {
        // A long array queried in increasing order: every answer is right and the finger follows it.
        std::vector<std::int64_t> v(1 << 20);
        for (std::size_t i = 0; i < v.size(); ++i)
            v[i] = static_cast<std::int64_t>(i) * 3;
        std::size_t finger = 0;
        for (std::int64_t key = 0; key < 3000000; key += 7) {
            const auto expected = static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), key) - v.begin());
            QCOMPARE(lowerBoundNear(v, key, finger), expected);
        }
    }
};

QTEST_GUILESS_MAIN(TestNearSearch)
#include "test_nearsearch.moc"
