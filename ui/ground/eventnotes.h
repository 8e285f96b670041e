#pragma once
// What the user said about events (core::ReviewState: flags, notes, accepts) as the timeline and
// the Details dock show it: a flag marker or a note marker on the event with the text as its
// tooltip, a "Your review" section in Details, and a user-flagged GPU op's parent edge drawn in the
// "Flagged" style. One immutable snapshot per change, taken on the GUI thread after each edit; it
// names the device trace its indices are of, so a snapshot of another trace is never applied.

#include "edit/correction.h"
#include "model/devicetrace.h"

#include <QString>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace linkscope::ui {

struct EventNotes {
    std::shared_ptr<const core::DeviceTrace> device;     // the trace whose event indices these are
    std::unordered_map<core::EventIndex, QString> flags; // event → the flag's note (may be empty)
    std::unordered_map<core::EventIndex, QString> notes; // event → note
    std::unordered_set<core::EventIndex> accepted;
    std::vector<core::EventIndex> marked; // events with a flag or a note, sorted by index, unique

    bool empty() const { return flags.empty() && notes.empty() && accepted.empty(); }
    bool isFlagged(core::EventIndex event) const { return flags.count(event) != 0; }
    bool hasNote(core::EventIndex event) const { return notes.count(event) != 0; }
    bool isAccepted(core::EventIndex event) const { return accepted.count(event) != 0; }
    // Whether this snapshot is about `trace` (the one a view or dock shows).
    bool isOf(const core::DeviceTrace &trace) const { return device.get() == &trace; }

    // A snapshot of `review`; events outside `device` are left out.
    static std::shared_ptr<const EventNotes> fromReview(const core::ReviewState &review,
                                                        std::shared_ptr<const core::DeviceTrace> device);
};

using EventNotesPtr = std::shared_ptr<const EventNotes>;

} // namespace linkscope::ui
