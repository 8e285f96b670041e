// Strong index types (core/base/indices.h) and the rank-carrying event reference
// (core/base/eventref.h): one "none" for every index space, ordering, hashing, and a vector that
// only its own index type can index.

#include "base/eventref.h"
#include "base/indices.h"

#include <QtTest>

#include <map>
#include <set>
#include <type_traits>
#include <unordered_set>

using namespace linkscope::core;

template <typename Vector, typename Index>
constexpr bool indexableBy = requires(const Vector &v, Index i)
{
    v[i];
};

class TestIndices : public QObject {
    Q_OBJECT

private slots:
    void noneIsOneSpellingForEverySpace()
    {
        EventIndex e = kNone;
        HostNodeIndex h = kNone;
        LaneIndex l;
        QVERIFY(e == kNone);
        QVERIFY(h == kNone);
        QVERIFY(l == kNone);
        QVERIFY(!e.valid() && !bool(h) && l.isNone());
        QVERIFY(EventIndex(0).valid());
        QVERIFY(!(EventIndex(0) == kNone));
        // A none index is never inside a container, however large.
        QVERIFY(!e.in(std::numeric_limits<std::size_t>::max()));
        QVERIFY(EventIndex(3).in(4));
        QVERIFY(!EventIndex(4).in(4));
    }

    void spacesDoNotMix()
    {
        static_assert(!std::is_convertible_v<EventIndex, HostNodeIndex>);
        static_assert(!std::is_convertible_v<std::uint32_t, EventIndex>); // explicit only
        static_assert(indexableBy<IndexedVector<EventIndex, int>, EventIndex>);
        static_assert(!indexableBy<IndexedVector<EventIndex, int>, HostNodeIndex>);
        static_assert(!indexableBy<IndexedVector<EventIndex, int>, std::uint32_t>);
        static_assert(sizeof(EventIndex) == 4 && sizeof(EventRef) == 8);
        QCOMPARE(EventIndex::at(std::size_t(7)).get(), std::size_t(7));
    }

    void orderedAndHashable()
    {
        std::set<EventIndex> ordered{EventIndex(5), EventIndex(1), kNone, EventIndex(3)};
        QCOMPARE(ordered.begin()->value, 1u);
        QVERIFY(ordered.rbegin()->isNone()); // none sorts last
        std::unordered_set<EventIndex> hashed{EventIndex(1), EventIndex(1), EventIndex(2)};
        QCOMPARE(hashed.size(), std::size_t(2));
        EventIndex i(9);
        QCOMPARE((++i).value, 10u);
        QCOMPARE(i.next().value, 11u);
    }

    void eventRefCarriesItsRank()
    {
        const EventRef a{RankId(0), EventIndex(42)};
        const EventRef b{RankId(1), EventIndex(42)};
        const EventRef c{RankId(1), EventIndex(7)};
        QVERIFY(a != b);         // the same event index in two ranks is two events
        QVERIFY(a < b && c < b); // rank first, then index
        QVERIFY(a < c);
        std::unordered_set<EventRef> refs{a, b, c, b};
        QCOMPARE(refs.size(), std::size_t(3));
        std::map<EventRef, int> byRef{{b, 1}, {a, 0}};
        QCOMPARE(byRef.begin()->second, 0);
        QCOMPARE(EventRef{}.rank, kSingleRank); // a lone pair is rank 0
        QVERIFY(!EventRef{}.valid());
        QVERIFY(a.valid());
        const HostNodeRef n{RankId(3), HostNodeIndex(0)};
        QVERIFY(n.valid());
        QVERIFY(!(HostNodeRef{RankId(3), kNone}.valid()));
    }

    void indexedVector()
    {
        IndexedVector<LaneIndex, int> lanes;
        const LaneIndex first = lanes.push_back(10);
        const LaneIndex second = lanes.push_back(20);
        QCOMPARE(first.value, 0u);
        QCOMPARE(lanes[second], 20);
        lanes[first] = 11;
        QCOMPARE(lanes[first], 11);
        QCOMPARE(lanes.at(kNone, -1), -1);
        QCOMPARE(lanes.at(LaneIndex(2), -1), -1);
        QVERIFY(lanes.contains(second) && !lanes.contains(LaneIndex(2)));
        int sum = 0;
        for (int v : lanes)
            sum += v;
        QCOMPARE(sum, 31);
    }
};

QTEST_APPLESS_MAIN(TestIndices)
#include "test_indices.moc"
