#pragma once
// Details of the selected event: its fields, ids, args (parsed from the raw JSON only when it is
// selected), the ET node it joins, its nesting parent and children, its link (launch, parent,
// the rule that chose it and what each policy would choose) and its edges, all as clickable links;
// and what the user said about it (flag and its note, note, accepted), from the EventNotes.

#include "ground/eventnotes.h"
#include "ground/eventselection.h"
#include "ground/tracedocument.h"

#include <QDockWidget>

#include <functional>

class QTextBrowser;

namespace linkscope::ui {

class DetailsDock : public QDockWidget {
    Q_OBJECT
public:
    explicit DetailsDock(EventSelection *selection, QWidget *parent = nullptr);

    void setDocument(DocumentPtr doc);
    // The user's flags and notes (ignored when they are of another trace than the document's).
    void setEventNotes(EventNotesPtr notes);
    // A time-range summary shown above the event's details; empty removes it.
    void setTimeRangeHtml(const QString &html);
    // Which rank of a job the document is (e.g. "Rank 3 of the job in /data/run7"), shown above every
    // event's details; empty when the traces are not part of an open job.
    void setRankLabel(const QString &label);
    // A line about the selected event shown above its details (the prediction's timing and slack,
    // predictioncontroller.h); empty text shows nothing. Shown again at once.
    using EventAnnotation = std::function<QString(core::EventIndex)>;
    void setEventAnnotation(EventAnnotation annotation);
    // The HTML currently shown (tests read it).
    QString html() const;
    // Names up to this length are the details' heading; longer ones (kernel signatures) are bold body text.
    static constexpr int kHeadingNameLength = 60;
    QTextBrowser *browser() const { return m_browser; }

    // Builds the details HTML for `event` (exposed for tests). Links are "event:N". `notes` may be null.
    static QString detailsHtml(const TraceDocument &doc, core::EventIndex event, const EventNotes *notes = nullptr);

private:
    void refresh();

    EventSelection *m_selection;
    DocumentPtr m_doc;
    EventNotesPtr m_notes;
    QString m_rangeHtml;
    QString m_rankLabel;
    EventAnnotation m_annotation;
    QTextBrowser *m_browser;
};

} // namespace linkscope::ui
