#pragma once
// What the window shows while nothing is open: Open pair…, Open job folder…, Open the bundled
// sample, and the pairs and jobs opened lately (recentfiles.h, most recent first; those no longer
// there greyed). Every entry is reachable with Tab and the arrow keys and opens with Enter. It lies
// over the main timeline (a child that follows its size); the main window shows it while no trace
// is open or being opened and no job is open or being opened.

#include "shell/recentfiles.h"

#include <QFrame>

class QListWidget;
class QPushButton;

namespace linkscope::ui {

class StartPage : public QFrame {
    Q_OBJECT
public:
    // Lies over `under`, following its size.
    explicit StartPage(QWidget *under);

    // Re-reads the recent pairs and jobs (called each time it is shown).
    void refresh();
    QListWidget *recentList() const { return m_recent; }
    QPushButton *openPairButton() const { return m_openPair; }
    QPushButton *openJobButton() const { return m_openJob; }
    QPushButton *sampleButton() const { return m_sample; }

    // The bundled sample pair (resources/samples: installed under share/linkscope/samples, or the
    // source tree's): {host ET, Kineto trace}, or empty paths when it cannot be found.
    static std::pair<QString, QString> samplePair();

signals:
    void openPairRequested();
    void openJobRequested();
    void openRecentRequested(const linkscope::ui::RecentEntry &entry);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    QWidget *m_under;
    QPushButton *m_openPair;
    QPushButton *m_openJob;
    QPushButton *m_sample;
    QListWidget *m_recent;
    QList<RecentEntry> m_entries; // the list's rows
};

} // namespace linkscope::ui
