#pragma once
// The lane filter in the timeline's tool bar (Perfetto's track filter): type part of a thread's,
// stream's, process's or rank's name and only the lanes whose name contains it are shown, in the
// timeline and in every rank pane (RankPanes::setLaneFilter); groups without such a lane are left
// out; clearing it shows them all again. View ▸ Filter lanes… (Ctrl+L) puts the cursor in it; Esc
// clears it, Enter keeps the filter, and both hand the keyboard back to the timeline.

#include <QLineEdit>

class QAction;

namespace linkscope::ui {

class LaneFilterBox : public QLineEdit {
    Q_OBJECT
public:
    // `focusHome` takes the keyboard back on Enter and Esc.
    LaneFilterBox(QWidget *focusHome, QWidget *parent = nullptr);
    // View ▸ Filter lanes… (Ctrl+L): selects the box's text, ready to type over.
    QAction *focusAction() const { return m_focus; }

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    QWidget *m_home;
    QAction *m_focus;
};

} // namespace linkscope::ui
