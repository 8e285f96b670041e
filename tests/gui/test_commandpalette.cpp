// The command palette (Ctrl+Shift+P) on the bundled sample pair: it lists at least every action the
// shortcut sheet lists, plus the docks' toggles and the submenus' actions with their menu path; the
// filter ranks substring and fuzzy matches; Enter runs the current action (a dock toggle), Esc
// closes, and either way the timeline has the keyboard again; a disabled action is listed and not
// run. Writes command-palette.png (the window with the palette open) into the test's folder.

#include "docks/detailsdock.h"
#include "shell/commandpalette.h"
#include "shell/mainwindow.h"
#include "shell/theme.h"
#include "testsupport.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace linkscope;

namespace {

QString sample(const char *name) { return test::sampleCopy(name); }

QAction *menuAction(QMenuBar *bar, const QString &menuTitle, const QString &text)
{
    for (QAction *top : bar->actions())
        if (top->menu() && top->text().remove(QLatin1Char('&')) == menuTitle)
            for (QAction *a : top->menu()->actions())
                if (a->text().remove(QLatin1Char('&')) == text)
                    return a;
    return nullptr;
}

int entryOf(const QList<ui::CommandPalette::Entry> &entries, const QAction *action)
{
    for (int i = 0; i < entries.size(); ++i)
        if (entries[i].action == action)
            return i;
    return -1;
}

} // namespace

class TestCommandPalette : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_commandpalette"));
        QSettings().clear();
    }

    void init()
    {
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openPair(sample("sample_host_et.json"), sample("sample_kineto.json"));
        QVERIFY(loaded.wait(60000));
        // Open recent lists the sample under a random temporary folder, whose letters could match a
        // fuzzy query by chance: the palette's cases run on the fixed menus only.
        QSettings().remove(QStringLiteral("recentTraces"));
        m_window->timeline()->setFocus();
    }
    void cleanup() { m_window.reset(); }

    // Help ▸ Command palette… (Ctrl+Shift+P) opens it with the filter focused.
    ui::CommandPalette *openPalette()
    {
        QAction *open = menuAction(m_window->menuBar(), QStringLiteral("Help"), QStringLiteral("Command palette…"));
        if (!open)
            return nullptr;
        if (open->shortcut() != QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P))
            return nullptr;
        open->trigger();
        auto *palette = m_window->findChild<ui::CommandPalette *>();
        if (palette && !QTest::qWaitFor([&] { return palette->isVisible(); }, 2000))
            return nullptr;
        return palette;
    }

    void listsEverythingTheShortcutSheetLists()
    {
        const QList<ui::CommandPalette::Entry> entries = ui::CommandPalette::collect(m_window.get());
        // The sheet: the timeline's key bindings and every menu action that has a key.
        for (QAction *action : m_window->timeline()->keyActions())
            QVERIFY2(entryOf(entries, action) >= 0, qPrintable(action->text()));
        int withKeys = 0;
        for (QAction *top : m_window->menuBar()->actions()) {
            if (!top->menu())
                continue;
            for (QAction *action : top->menu()->actions())
                if (!action->shortcuts().isEmpty()) {
                    ++withKeys;
                    QVERIFY2(entryOf(entries, action) >= 0, qPrintable(action->text()));
                    const auto &entry = entries[entryOf(entries, action)];
                    QVERIFY2(!entry.shortcut.isEmpty(), qPrintable(entry.text));
                    // The sheet names a timeline key by its tooltip, any other action by its text.
                    const QString named = m_window->timeline()->keyActions().contains(action) ? action->toolTip() : entry.text;
                    QVERIFY2(m_window->shortcutSheetHtml().contains(named.toHtmlEscaped()), qPrintable(named));
                }
        }
        QVERIFY(withKeys > 10);
        // Each action once.
        for (int i = 0; i < entries.size(); ++i)
            QCOMPARE(entryOf(entries, entries[i].action), i);
        // The docks' toggles, and a submenu's action with its full path, without mnemonics.
        const int details = entryOf(entries, m_window->detailsDock()->toggleViewAction());
        QVERIFY(details >= 0);
        QCOMPARE(entries[details].path, QStringLiteral("View"));
        bool dark = false;
        for (const auto &entry : entries)
            if (entry.text == QStringLiteral("Dark")) {
                QCOMPARE(entry.path, QStringLiteral("View \u25B8 Theme"));
                dark = true;
            }
        QVERIFY(dark);
        const QAction *find = menuAction(m_window->menuBar(), QStringLiteral("View"), QStringLiteral("Find…"));
        QVERIFY(find);
        QVERIFY(entries[entryOf(entries, find)].shortcut.contains(
            QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText)));
        // A key binding in no menu is under "Timeline".
        const QAction *panLeft = m_window->timeline()->keyAction(ui::TimelineKey::PanLeft);
        QCOMPARE(entries[entryOf(entries, panLeft)].path, QStringLiteral("Timeline"));
        QCOMPARE(entries[entryOf(entries, panLeft)].shortcut, QStringLiteral("A"));
        // An action added to a menu later is listed without registration.
        QMenu *view = m_window->viewMenu();
        QAction *added = view->addAction(QStringLiteral("Freshly &added"));
        const auto again = ui::CommandPalette::collect(m_window.get());
        QVERIFY(entryOf(again, added) >= 0);
        QCOMPARE(again[entryOf(again, added)].text, QStringLiteral("Freshly added"));
        delete added;
    }

    void matchScoreRanks()
    {
        using P = ui::CommandPalette;
        QCOMPARE(P::matchScore(QStringLiteral("xyz"), QStringLiteral("Zoom in")), -1);
        QVERIFY(P::matchScore(QString(), QStringLiteral("Zoom in")) >= 0);
        // Substring beats fuzzy; the start beats a word start beats inside a word; case-insensitive.
        QVERIFY(P::matchScore(QStringLiteral("zoom"), QStringLiteral("Zoom in"))
                > P::matchScore(QStringLiteral("zoom"), QStringLiteral("Fit and zoom")));
        QVERIFY(P::matchScore(QStringLiteral("edge"), QStringLiteral("Follow edge"))
                > P::matchScore(QStringLiteral("edge"), QStringLiteral("Knowledge")));
        QVERIFY(P::matchScore(QStringLiteral("kbs"), QStringLiteral("Keyboard shortcuts")) > 0);
        QVERIFY(P::matchScore(QStringLiteral("shortcuts"), QStringLiteral("Keyboard shortcuts"))
                > P::matchScore(QStringLiteral("kbs"), QStringLiteral("Keyboard shortcuts")));
        QCOMPARE(P::matchScore(QStringLiteral("sk"), QStringLiteral("Keyboard")), -1); // in order only
        // Every word must match.
        QVERIFY(P::matchScore(QStringLiteral("next hit"), QStringLiteral("Next search hit")) > 0);
        QCOMPARE(P::matchScore(QStringLiteral("next miss"), QStringLiteral("Next search hit")), -1);
    }

    void filtersAndRunsADockToggle()
    {
        ui::CommandPalette *palette = openPalette();
        QVERIFY(palette);
        QVERIFY(palette->filterEdit()->hasFocus());
        const int all = palette->list()->topLevelItemCount();
        QVERIFY(all > 40);
        QCOMPARE(all, static_cast<int>(palette->shown().size()));

        // Fuzzy: "kbd shct" finds Keyboard shortcuts first.
        QTest::keyClicks(palette->filterEdit(), QStringLiteral("kbd shct"));
        QVERIFY(palette->list()->topLevelItemCount() < all);
        QCOMPARE(palette->shown().front().text, QStringLiteral("Keyboard shortcuts"));
        QCOMPARE(palette->list()->currentItem()->text(1), QStringLiteral("Help"));

        // The Details dock's toggle: first on its own name; Enter hides the dock.
        QAction *toggle = m_window->detailsDock()->toggleViewAction();
        QVERIFY(m_window->detailsDock()->isVisible());
        palette->filterEdit()->clear();
        QTest::keyClicks(palette->filterEdit(), toggle->text().toLower());
        QCOMPARE(palette->shown().front().action.data(), toggle);
        QCOMPARE(palette->list()->currentItem()->checkState(0), Qt::Checked);
        // Down / Up move the current row (and wrap).
        QTest::keyClick(palette->filterEdit(), Qt::Key_Up);
        QCOMPARE(palette->list()->indexOfTopLevelItem(palette->list()->currentItem()), palette->list()->topLevelItemCount() - 1);
        QTest::keyClick(palette->filterEdit(), Qt::Key_Down);
        QCOMPARE(palette->list()->indexOfTopLevelItem(palette->list()->currentItem()), 0);
        QSignalSpy run(palette, &ui::CommandPalette::actionRun);
        QTest::keyClick(palette->filterEdit(), Qt::Key_Return);
        QVERIFY(!palette->isVisible());
        QVERIFY(run.wait(2000) || run.count() == 1);
        QCOMPARE(run.at(0).at(0).value<QAction *>(), toggle);
        QVERIFY(!m_window->detailsDock()->isVisible());
        QVERIFY(m_window->timeline()->hasFocus());

        // And again: the palette is rebuilt on open, so the toggle now shows unchecked.
        palette = openPalette();
        QTest::keyClicks(palette->filterEdit(), toggle->text().toLower());
        QCOMPARE(palette->list()->currentItem()->checkState(0), Qt::Unchecked);
        QTest::keyClick(palette->filterEdit(), Qt::Key_Enter);
        QVERIFY(QTest::qWaitFor([&] { return m_window->detailsDock()->isVisible(); }, 2000));
    }

    void escClosesAndReturnsFocus()
    {
        ui::CommandPalette *palette = openPalette();
        QVERIFY(palette);
        QTest::keyClicks(palette->filterEdit(), QStringLiteral("zoom"));
        QVERIFY(palette->filterEdit()->hasFocus());
        QSignalSpy run(palette, &ui::CommandPalette::actionRun);
        QTest::keyClick(palette->filterEdit(), Qt::Key_Escape);
        QVERIFY(!palette->isVisible());
        QTest::qWait(50);
        QCOMPARE(run.count(), 0);
        QVERIFY(m_window->timeline()->hasFocus());
        // Reopened: the filter is empty again.
        palette = openPalette();
        QVERIFY(palette->filterEdit()->text().isEmpty());
        QTest::keyClick(palette->filterEdit(), Qt::Key_Escape);
    }

    void disabledActionIsListedNotRun()
    {
        // With nothing selected, "Detach GPU op" is disabled.
        QAction *detach = menuAction(m_window->menuBar(), QStringLiteral("Review"), QStringLiteral("Detach GPU op"));
        QVERIFY(detach);
        QVERIFY(!detach->isEnabled());
        QSignalSpy triggered(detach, &QAction::triggered);
        ui::CommandPalette *palette = openPalette();
        QVERIFY(palette);
        QTest::keyClicks(palette->filterEdit(), QStringLiteral("detach gpu"));
        QVERIFY(!palette->shown().isEmpty());
        QCOMPARE(palette->shown().front().action.data(), detach);
        QTreeWidgetItem *item = palette->list()->currentItem();
        QVERIFY(item);
        QCOMPARE(item->foreground(0).color(), palette->palette().color(QPalette::Disabled, QPalette::Text));
        QVERIFY(!palette->runCurrent());
        QTest::keyClick(palette->filterEdit(), Qt::Key_Return);
        QTest::qWait(50);
        QVERIFY(palette->isVisible());
        QCOMPARE(triggered.count(), 0);
        QVERIFY2(palette->hint()->text().contains(QStringLiteral("not available")), qPrintable(palette->hint()->text()));
        QTest::keyClick(palette->filterEdit(), Qt::Key_Escape);
    }

    void screenshot()
    {
        ui::CommandPalette *palette = openPalette();
        QVERIFY(palette);
        QTest::keyClicks(palette->filterEdit(), QStringLiteral("edge"));
        QTest::qWait(50);
        // The window with the popup painted where it is.
        QPixmap shot = m_window->grab();
        {
            QPainter painter(&shot);
            painter.drawPixmap(m_window->mapFromGlobal(palette->mapToGlobal(QPoint(0, 0))), palette->grab());
        }
        const QString path = QCoreApplication::applicationDirPath() + QStringLiteral("/command-palette.png");
        QVERIFY(shot.save(path));
        qInfo("wrote %s", qPrintable(path));
        QTest::keyClick(palette->filterEdit(), Qt::Key_Escape);
    }

    void runsASubmenuActionAndFollowsTheTheme()
    {
        // View ▸ Theme ▸ Dark by name: the palette runs a submenu's action, and is drawn in the theme.
        ui::CommandPalette *palette = openPalette();
        QVERIFY(palette);
        QTest::keyClicks(palette->filterEdit(), QStringLiteral("dark"));
        QCOMPARE(palette->shown().front().text, QStringLiteral("Dark"));
        QCOMPARE(palette->list()->currentItem()->text(1), QStringLiteral("View \u25B8 Theme"));
        QTest::keyClick(palette->filterEdit(), Qt::Key_Return);
        QVERIFY(QTest::qWaitFor([] { return ui::currentThemeChoice() == ui::ThemeChoice::Dark; }, 2000));
        palette = openPalette();
        QVERIFY(palette);
        QVERIFY(palette->palette().color(QPalette::Base).lightness() < 100);
        QTest::keyClicks(palette->filterEdit(), QStringLiteral("theme"));
        // Found by their menu path, above any fuzzy match of a name: System, Light, Dark.
        QVERIFY(palette->shown().size() >= 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(palette->shown().at(i).path, QStringLiteral("View \u25B8 Theme"));
        QTest::qWait(50);
        QPixmap shot = m_window->grab();
        {
            QPainter painter(&shot);
            painter.drawPixmap(m_window->mapFromGlobal(palette->mapToGlobal(QPoint(0, 0))), palette->grab());
        }
        const QString path = QCoreApplication::applicationDirPath() + QStringLiteral("/command-palette-dark.png");
        QVERIFY(shot.save(path));
        qInfo("wrote %s", qPrintable(path));
        QTest::keyClick(palette->filterEdit(), Qt::Key_Escape);
        ui::applyTheme(ui::ThemeChoice::System);
        ui::saveThemeChoice(ui::ThemeChoice::System);
    }

private:
    std::unique_ptr<ui::MainWindow> m_window;
};

QTEST_MAIN(TestCommandPalette)
#include "test_commandpalette.moc"
