// The timeline's viewport maths (ui/timelineviewport.h) without a widget: pixel ↔ time, the minimum
// span, zoom about a point, pan, clamping to the trace, fit and reveal. Every expected value is worked
// out by hand in the comment beside it.

#include "timeline/timelineviewport.h"

#include <QTest>

using linkscope::core::Nanos;
using linkscope::ui::TimelineViewport;

class TestTimelineViewport : public QObject {
    Q_OBJECT
private slots:
    void pixelsAndTimes()
    {
        TimelineViewport v;
        QVERIFY(v.setRange(1000, 11000)); // 10,000 ns over 1,000 px: 10 ns per pixel
        QCOMPARE(v.nanosPerPixel(1000), 10.0);
        QCOMPARE(v.timeToX(1000, 1000), 0.0);
        QCOMPARE(v.timeToX(6000, 1000), 500.0);
        QCOMPARE(v.xToTime(500, 1000), Nanos(6000));
        QCOMPARE(v.xToTime(0.25, 1000), Nanos(1002)); // 2.5 ns truncated
        // Epoch-based traces: ~1.7e18 ns, where a double cannot hold every nanosecond; the int64
        // difference is taken first, so a 123 ns offset at 1 ns per pixel is exactly 123 px.
        const Nanos epoch = 1'700'000'000'000'000'000;
        QVERIFY(v.setRange(epoch, epoch + 1000));
        QCOMPARE(v.timeToX(epoch + 123, 1000), 123.0);
        QCOMPARE(v.xToTime(123, 1000), epoch + 123);
    }

    void minimumSpanAndNoChange()
    {
        TimelineViewport v;
        // 10 ns asked for: widened to 50 around its middle 105 → [80, 130).
        QVERIFY(v.setRange(100, 110));
        QCOMPARE(v.start(), Nanos(80));
        QCOMPARE(v.end(), Nanos(130));
        QVERIFY(!v.setRange(80, 130)); // the same range: nothing changes
        QVERIFY(v.setRange(0, 1000));
        QCOMPARE(v.span(), Nanos(1000));
    }

    void zoomKeepsTheTimeUnderTheCursor()
    {
        TimelineViewport v;
        v.setRange(0, 1'000'000); // 1,000 ns per pixel over 1,000 px
        // At x = 250 the time is 250,000. Half the span: start = 250,000 − 250 · 500 = 125,000.
        QVERIFY(v.zoomAt(0.5, 250, 1000));
        QCOMPARE(v.start(), Nanos(125'000));
        QCOMPARE(v.end(), Nanos(625'000));
        QCOMPARE(v.xToTime(250, 1000), Nanos(250'000));
        // x left of the area counts as its left edge: the start stays put.
        QVERIFY(v.zoomAt(2.0, -40, 1000));
        QCOMPARE(v.start(), Nanos(125'000));
        QCOMPARE(v.end(), Nanos(1'125'000));
        // Zooming in past the minimum span stops at 50 ns.
        v.zoomAt(1e-9, 500, 1000);
        QCOMPARE(v.span(), TimelineViewport::kMinSpan);
    }

    void panAndCentre()
    {
        TimelineViewport v;
        v.setRange(0, 1000); // 10 ns per pixel over 100 px
        QVERIFY(v.panByPixels(5, 100));
        QCOMPARE(v.start(), Nanos(50));
        QCOMPARE(v.end(), Nanos(1050));
        QVERIFY(v.panByPixels(-2.5, 100)); // 25 ns
        QCOMPARE(v.start(), Nanos(25));
        QVERIFY(v.centreOn(10'000));
        QCOMPARE(v.start(), Nanos(9500));
        QCOMPARE(v.end(), Nanos(10'500));
        QVERIFY(!v.panByPixels(0, 100));
    }

    void clampedToTheTrace()
    {
        TimelineViewport v;
        v.setTraceBounds(std::make_pair(Nanos(0), Nanos(1'000'000)));
        // Half a view beyond either end at most: a 1 ms view may start at −0.5 ms, end at 1.5 ms.
        QVERIFY(v.setRange(-2'000'000, -1'000'000));
        QCOMPARE(v.start(), Nanos(-500'000));
        QCOMPARE(v.end(), Nanos(500'000));
        QVERIFY(v.setRange(3'000'000, 4'000'000));
        QCOMPARE(v.start(), Nanos(500'000));
        QCOMPARE(v.end(), Nanos(1'500'000));
        // More than twice the trace: the trace with 5 % (50 µs) each side.
        QVERIFY(v.setRange(-5'000'000, 5'000'000));
        QCOMPARE(v.start(), Nanos(-50'000));
        QCOMPARE(v.end(), Nanos(1'050'000));
        // Without bounds nothing is clamped.
        v.setTraceBounds(std::nullopt);
        QVERIFY(v.setRange(-5'000'000, 5'000'000));
        QCOMPARE(v.start(), Nanos(-5'000'000));
    }

    void fitAllAndFitInterval()
    {
        TimelineViewport v;
        QVERIFY(v.fitAll()); // no trace: 0 … 1 ms
        QCOMPARE(v.start(), Nanos(0));
        QCOMPARE(v.end(), Nanos(1'000'000));
        v.setTraceBounds(std::make_pair(Nanos(1000), Nanos(101'000)));
        QVERIFY(v.fitAll()); // 2 % of 100,000 = 2,000 each side
        QCOMPARE(v.start(), Nanos(-1000));
        QCOMPARE(v.end(), Nanos(103'000));
        QVERIFY(v.fitInterval(40'000, 60'000, 500));
        QCOMPARE(v.start(), Nanos(39'500));
        QCOMPARE(v.end(), Nanos(60'500));
    }

    void revealKeepsTheZoomWhenItCan()
    {
        TimelineViewport v;
        v.setRange(0, 1000);
        QVERIFY(!v.reveal(100, 200)); // already in view
        // 100 ns, less than 80 % of the 1,000 ns span: centred at 5,050 at the same zoom.
        QVERIFY(v.reveal(5000, 5100));
        QCOMPARE(v.start(), Nanos(4550));
        QCOMPARE(v.end(), Nanos(5550));
        // 10,000 ns does not fit: zoomed out with an eighth (1,250 ns) each side.
        QVERIFY(v.reveal(0, 10'000));
        QCOMPARE(v.start(), Nanos(-1250));
        QCOMPARE(v.end(), Nanos(11'250));
        // A short event partly out of view is centred too.
        v.setRange(0, 1000);
        QVERIFY(v.reveal(950, 1050));
        QCOMPARE(v.start(), Nanos(500));
        QCOMPARE(v.end(), Nanos(1500));
    }
};

QTEST_GUILESS_MAIN(TestTimelineViewport)
#include "test_timelineviewport.moc"
