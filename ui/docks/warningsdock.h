#pragma once
// The Warnings dock: every load warning of the open traces (host ET, Kineto trace, linking), one
// row each, in the order they were found. A warning about one event (a partial overlap, ...) is a
// link: activating it selects the event and asks for it to be framed. The status bar's "⚠ N
// warnings" opens it.

#include "ground/tracedocument.h"

#include <QDockWidget>

#include <cstdint>
#include <vector>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace linkscope::ui {

class EventSelection;

class WarningsDock : public QDockWidget {
    Q_OBJECT
public:
    explicit WarningsDock(EventSelection *selection, QWidget *parent = nullptr);

    void setDocument(DocumentPtr doc);
    int count() const { return static_cast<int>(m_warnings.size()); }
    // The event warning `row` is about, or none.
    core::EventIndex eventOf(int row) const;
    QTreeWidget *list() const { return m_list; }
    // Selects the event of warning `row` (if it has one) and emits frameRequested.
    void activate(int row);

signals:
    void frameRequested(core::EventIndex event);

protected:
    void changeEvent(QEvent *event) override; // a theme change recolours the event links

private:
    EventSelection *m_selection;
    DocumentPtr m_doc;
    QLabel *m_summary;
    QTreeWidget *m_list;
    std::vector<core::Diagnostic> m_warnings;
};

} // namespace linkscope::ui
