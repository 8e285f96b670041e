#pragma once
// The main window's layout across launches: its size and place (QWidget::saveGeometry), where
// each dock and toolbar is and how big (QMainWindow::saveState), and the split of every named
// QSplitter inside it, in QSettings under "layout/". Saved when the window closes, restored as it
// is built; a dock made later (the job dock) takes its saved place through restoreDock(). A saved
// layout of another version (kVersion) is ignored, so a change of docks never restores a mix.
//
// Without a saved layout, applyDefaults() sizes the docks for the window's size: the Findings a
// third of the height (a handful of rows under the Chakra comparison), Details above Search.

class QDockWidget;
class QMainWindow;
class QWidget;

namespace linkscope::ui {

class WindowLayout {
public:
    static constexpr int kVersion = 1;

    // Applies the saved layout to `window` (its docks made); false when none was saved.
    static bool restore(QMainWindow *window);
    // A dock added after restore(): its saved place, size and visibility, and its splitters'.
    // False when the saved layout did not have it.
    static bool restoreDock(QMainWindow *window, QDockWidget *dock);
    // Saves the window's layout (geometry, docks, toolbars, named splitters).
    static void save(const QMainWindow *window);
    // Forgets the saved layout: the next window starts from the defaults.
    static void forget();
    // The default dock sizes for the window's current size.
    static void applyDefaults(QMainWindow *window);
    // Under a top dock `topHeight` high (a job's), the right column: the Search / Warnings /
    // Prediction tabs three quarters of it, Details the rest.
    static void fitColumnUnder(QMainWindow *window, int topHeight);
    // The dock's contents scroll when the dock is shorter than they need, instead of their minimum
    // height adding up with the other docks' into a window taller than the size asked for (the
    // Findings dock, under the Job dock: `--size 1400x900` of a job gave a 924-947 px window).
    static void scrollWhenShort(QDockWidget *dock);
    // The minimum height of the dock's contents (inside its scroll area, if it has one).
    static int contentsMinimumHeight(const QDockWidget *dock);

private:
    static void restoreSplitters(QWidget *root);
};

} // namespace linkscope::ui
