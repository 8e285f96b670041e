#pragma once
// Critical-path mode on the timeline: the ops a prediction's critical path runs through
// (predictioncontroller.h), drawn where they were measured. Everything else in the lanes is washed
// over with the background (dimmed); the path's ops are drawn again in their colour with a bold
// outline, and an arrow joins each op to the next one on the path, in a colour no event kind uses. The
// path is ordered on the replay's clock, so an arrow may go back in measured time: such an arrow is
// dashed and labelled so (it shows the order, not the clock); jumps back that cluster share one label
// with their count, so labels never overlap.

#include "ground/tracedocument.h"

#include <QRectF>
#include <QString>

#include <functional>
#include <vector>

class QPainter;
class QRect;

namespace linkscope::ui {

class TimelinePathOverlay {
public:
    // At most this many path ops in view are drawn one by one (the rest of a huge path is dimmed).
    static constexpr std::size_t kDrawCap = 20000;

    // `chain`: the path's ops in path order (consecutive duplicates are dropped); empty turns the mode off.
    void setChain(std::vector<core::EventIndex> chain);
    bool active() const { return !m_chain.empty(); }
    const std::vector<core::EventIndex> &chain() const { return m_chain; }
    // The distinct ops of the chain, ascending (what is highlighted).
    const std::vector<core::EventIndex> &events() const { return m_sorted; }
    bool contains(core::EventIndex event) const;
    void clear() { setChain({}); }

    // `rectOf` gives an op's rectangle in widget coordinates (empty: its row is hidden).
    void paint(QPainter &painter, const TraceDocument &doc, const QRect &content,
               const std::function<QRectF(core::EventIndex)> &rectOf) const;
    // How many path ops the last paint drew (tests).
    std::size_t paintedCount() const { return m_painted; }
    // How many arrows the last paint drew going back in measured time (tests).
    std::size_t backwardsCount() const { return m_backwards; }
    // A label the last paint drew beside arrows going back: where, and for how many arrows.
    struct BackLabel {
        QRectF rect;
        std::size_t count = 0;
    };
    static constexpr std::size_t kMaxBackLabels = 8;
    const std::vector<BackLabel> &backLabels() const { return m_labels; }
    // "↶ earlier in measured time (the replay's order)", with the count when it is more than one.
    static QString backLabelText(std::size_t count);

private:
    std::vector<core::EventIndex> m_chain;
    std::vector<core::EventIndex> m_sorted;
    mutable std::size_t m_painted = 0;
    mutable std::size_t m_backwards = 0;
    mutable std::vector<BackLabel> m_labels;
};

} // namespace linkscope::ui
