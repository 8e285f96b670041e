#pragma once
// Search dock: name substring / regex, or an id (rf_id, External id, correlation, Ev Idx).
// Enter searches (or, for the same query, goes to the next hit); Shift+Enter goes back. Enter (and
// Esc) then hand the keyboard back to the focus home (the timeline), so that its keys act on it and
// do not type into the query; F3 / Shift+F3 (the window's actions) step through the hits from there.

#include "docks/eventsearch.h"
#include "docks/searchresultsmodel.h"
#include "ground/eventselection.h"

#include <QDockWidget>
#include <QPointer>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace linkscope::ui {

class SearchDock : public QDockWidget {
    Q_OBJECT
public:
    explicit SearchDock(EventSelection *selection, QWidget *parent = nullptr);

    void setDocument(DocumentPtr doc);
    // Puts the cursor in the query field (the `/` and Ctrl+F shortcuts).
    void activate();
    void search(SearchMode mode, const QString &query);
    void next();
    void previous();
    // Lists these events as the results (a list made elsewhere, e.g. "changed vs Chakra"), under `title`.
    void showEvents(const QString &title, std::vector<core::EventIndex> events);

    // Where Enter and Esc send the keyboard focus (the timeline). Not owned.
    void setFocusHome(QWidget *home) { m_focusHome = home; }
    void returnFocus();

    SearchResultsModel *model() const { return m_model; }
    QTableView *resultsView() const { return m_table; }
    QLineEdit *queryEdit() const { return m_query; }
    QComboBox *modeBox() const { return m_mode; }
    int currentHit() const { return m_current; }

signals:
    // The hits of the last search (sorted by start time), for the timeline to mark.
    void resultsChanged(const std::vector<core::EventIndex> &events);
    // A hit was made current: show it (with its parents, for a GPU op) rather than pan to it.
    void frameRequested(core::EventIndex event);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void runQuery();
    void goTo(int row);

    EventSelection *m_selection;
    DocumentPtr m_doc;
    SearchResultsModel *m_model;
    QLineEdit *m_query;
    QComboBox *m_mode;
    QLabel *m_status;
    QTableView *m_table;
    QString m_lastQuery;
    int m_lastMode = -1;
    int m_current = -1;
    QPointer<QWidget> m_focusHome;
};

} // namespace linkscope::ui
