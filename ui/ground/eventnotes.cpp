#include "ground/eventnotes.h"

#include <algorithm>

namespace linkscope::ui {

std::shared_ptr<const EventNotes> EventNotes::fromReview(const core::ReviewState &review,
                                                         std::shared_ptr<const core::DeviceTrace> device)
{
    auto out = std::make_shared<EventNotes>();
    const std::size_t count = device ? device->events.size() : 0;
    out->device = std::move(device);
    for (const auto &[event, text] : review.flags)
        if (event.in(count)) {
            out->flags.emplace(event, QString::fromStdString(text));
            out->marked.push_back(event);
        }
    for (const auto &[event, text] : review.notes)
        if (event.in(count)) {
            out->notes.emplace(event, QString::fromStdString(text));
            out->marked.push_back(event);
        }
    for (core::EventIndex event : review.accepted)
        if (event.in(count))
            out->accepted.insert(event);
    std::sort(out->marked.begin(), out->marked.end());
    out->marked.erase(std::unique(out->marked.begin(), out->marked.end()), out->marked.end());
    return out;
}

} // namespace linkscope::ui
