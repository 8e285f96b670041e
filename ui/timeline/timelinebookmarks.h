#pragma once
// Bookmarks on the timeline (`M`, as in Perfetto): each is a thin vertical line across the lanes
// with a small flag and its name on the ruler. The view holds the list (the sidecar's, through
// BookmarkUi) and calls paint() after the ruler; what was drawn is kept for hit tests and tests.
// The bookmarks of the other ranks shown on the same aligned clock (rank panes, rankpanes.h) are
// drawn too, fainter and named with their rank ("echoes": not this trace's, so not hit-tested).

#include "edit/bookmarks.h"

#include <QRectF>

#include <vector>

class QFont;
class QPainter;
class QRect;

namespace linkscope::ui {

class TimelineBookmarks {
public:
    void setBookmarks(core::BookmarkList list) { m_list = std::move(list); }
    const core::BookmarkList &bookmarks() const { return m_list; }
    // Other ranks' bookmarks on this trace's clock, each name already saying whose it is.
    void setEchoes(core::BookmarkList list) { m_echoes = std::move(list); }
    const core::BookmarkList &echoes() const { return m_echoes; }

    // Lines over `content` (the lanes) and flags in `ruler`, for the bookmarks in view.
    void paint(QPainter &painter, const QFont &font, const QRect &ruler, const QRect &content, core::Nanos viewStart,
               double nanosPerPixel);

    struct Painted {
        std::size_t index = 0; // into bookmarks()
        double x = 0;          // the line, widget coordinates
        QRectF flag;           // the flag with its label
    };
    const std::vector<Painted> &painted() const { return m_painted; }
    std::size_t paintedEchoes() const { return m_paintedEchoes; }
    // The bookmark whose flag is under `pos` (widget coordinates), or -1.
    int flagAt(const QPointF &pos) const;

private:
    core::BookmarkList m_list;
    core::BookmarkList m_echoes;
    std::vector<Painted> m_painted;
    std::size_t m_paintedEchoes = 0;
};

} // namespace linkscope::ui
