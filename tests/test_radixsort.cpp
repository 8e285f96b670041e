// core/base/radixsort.h against std::stable_sort: the same order, equal keys in input order, for
// negative keys, a wide range (several passes), a single value and already sorted input.

#include "base/radixsort.h"

#include <QTest>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

using linkscope::core::radixSortStable;

namespace {

struct Item {
    std::int64_t key;
    std::uint32_t index;
    bool operator==(const Item &) const = default;
};

std::vector<Item> expected(std::vector<Item> items)
{
    std::stable_sort(items.begin(), items.end(), [](const Item &a, const Item &b) { return a.key < b.key; });
    return items;
}

} // namespace

class TestRadixSort : public QObject {
    Q_OBJECT

private slots:
    void matchesStableSort_data()
    {
        QTest::addColumn<qint64>("lo");
        QTest::addColumn<qint64>("hi");
        QTest::addColumn<int>("count");
        QTest::newRow("dense ids") << qint64(1000) << qint64(1100) << 5000;
        QTest::newRow("negative and positive") << qint64(-500000) << qint64(500000) << 20000;
        QTest::newRow("nanosecond times, 4 passes")
            << qint64(1'700'000'000'000'000'000) << qint64(1'700'000'100'000'000'000) << 20000;
        QTest::newRow("full int64 range") << qint64(INT64_MIN / 2) << qint64(INT64_MAX / 2) << 20000;
        QTest::newRow("one value") << qint64(7) << qint64(7) << 100;
    }
    void matchesStableSort()
    {
        QFETCH(qint64, lo);
        QFETCH(qint64, hi);
        QFETCH(int, count);
        std::mt19937_64 rng(42);
        std::uniform_int_distribution<std::int64_t> pick(lo, hi);
        std::vector<Item> items;
        for (int i = 0; i < count; ++i)
            items.push_back({pick(rng), static_cast<std::uint32_t>(i)});
        // Duplicates on purpose, so that stability is tested.
        for (int i = 0; i < count / 10; ++i)
            items.push_back({items[static_cast<std::size_t>(i * 7 % count)].key, static_cast<std::uint32_t>(count + i)});
        const std::vector<Item> want = expected(items);
        radixSortStable(items, [](const Item &item) { return item.key; });
        QVERIFY(items == want);
    }

    void sortedAndTinyInputs()
    {
        std::vector<Item> sorted;
        for (std::uint32_t i = 0; i < 1000; ++i)
            sorted.push_back({static_cast<std::int64_t>(i / 3), i});
        const std::vector<Item> want = sorted;
        radixSortStable(sorted, [](const Item &item) { return item.key; });
        QVERIFY(sorted == want);
        std::vector<Item> none;
        radixSortStable(none, [](const Item &item) { return item.key; });
        QVERIFY(none.empty());
        std::vector<Item> one{{-5, 0}};
        radixSortStable(one, [](const Item &item) { return item.key; });
        QCOMPARE(one.front().key, std::int64_t(-5));
    }
};

QTEST_APPLESS_MAIN(TestRadixSort)
#include "test_radixsort.moc"
