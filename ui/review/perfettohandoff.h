#pragma once
// "Open in Perfetto" (File menu and Review menu): writes the pair shown — the corrected links, as
// the export's Perfetto target (core/export, `linkscope export --perfetto`) — to a file in the
// user's cache folder that stays after the action, then says in the notice above the timeline where
// it is and how to open it (https://ui.perfetto.dev ▸ Open trace file, or drag the file onto the
// page), with a button that copies the path. Works for Kineto-only sessions too. It knows no window:
// the window puts action() in its File and Review menus and shows message() in its status bar.

#include <QObject>
#include <QString>

class QAction;

namespace linkscope::ui {

class CorrectionController;
class NoticeBar;

class PerfettoHandoff : public QObject {
    Q_OBJECT
public:
    // `notice`: where the outcome is said (the one above the timeline).
    PerfettoHandoff(QObject *parent, CorrectionController *controller, NoticeBar *notice);

    QAction *action() const { return m_action; }
    // Where the trace shown is written: <cache>/perfetto/<trace name>-<hash of its path>.perfetto.json
    // (one file per trace, replaced by the next hand-off of the same trace).
    QString outputPath() const;
    // Starts the write (in the background); finished() follows. False when nothing can be written now.
    bool openInPerfetto();
    // The message shown after a successful write (tests read it).
    static QString instructions(const QString &path);

signals:
    void finished(bool ok, const QString &path, const QString &message);
    // A line for the status bar, for `timeoutMs`.
    void message(const QString &text, int timeoutMs);

private:
    void updateAction();

    CorrectionController *m_controller;
    NoticeBar *m_notice;
    QAction *m_action;
};

} // namespace linkscope::ui
