#include "shell/theme.h"

#include "timeline/timelinepalette.h"

#include <QApplication>
#include <QCoreApplication>
#include <QLabel>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QWidget>

#include <optional>

namespace linkscope::ui {

namespace {

const QString kThemeKey = QStringLiteral("view/theme");

ThemeChoice g_choice = ThemeChoice::System;

struct Original {
    QString style;
    QPalette palette;
};

// What the application looked like before the first theme was applied (System restores it).
const Original &original()
{
    static const Original saved{QApplication::style() ? QApplication::style()->name() : QString(), QApplication::palette()};
    return saved;
}

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2f, 0x36), base(0x1e, 0x21, 0x26), text(0xdc, 0xe0, 0xe6);
    const QColor disabled(0x7a, 0x80, 0x8a), highlight(0x3d, 0x7b, 0xd9);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x25, 0x29, 0x2f));
    p.setColor(QPalette::ToolTipBase, QColor(0x33, 0x38, 0x40));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Link, QColor(0x7a, 0xb4, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xb0, 0x9c, 0xff));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Light, QColor(0x40, 0x45, 0x4e));
    p.setColor(QPalette::Midlight, QColor(0x36, 0x3b, 0x43));
    p.setColor(QPalette::Mid, QColor(0x24, 0x27, 0x2d));
    p.setColor(QPalette::Dark, QColor(0x18, 0x1a, 0x1e));
    p.setColor(QPalette::Shadow, Qt::black);
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x44, 0x48, 0x50));
    return p;
}

} // namespace

QString themeChoiceName(ThemeChoice choice)
{
    switch (choice) {
    case ThemeChoice::System:
        return QCoreApplication::translate("Theme", "System");
    case ThemeChoice::Light:
        return QCoreApplication::translate("Theme", "Light");
    case ThemeChoice::Dark:
        return QCoreApplication::translate("Theme", "Dark");
    }
    return {};
}

void applyTheme(ThemeChoice choice)
{
    const Original &before = original();
    g_choice = choice;
    palette::Theme timeline = palette::Theme::Light;
    if (choice == ThemeChoice::System) {
        if (!before.style.isEmpty() && QApplication::style()->name() != before.style)
            QApplication::setStyle(QStyleFactory::create(before.style));
        QApplication::setPalette(before.palette);
        timeline = before.palette.color(QPalette::Window).lightness() < 128 ? palette::Theme::Dark : palette::Theme::Light;
    } else {
        if (QApplication::style()->name().compare(QStringLiteral("fusion"), Qt::CaseInsensitive) != 0)
            QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(choice == ThemeChoice::Dark ? darkPalette() : QApplication::style()->standardPalette());
        timeline = choice == ThemeChoice::Dark ? palette::Theme::Dark : palette::Theme::Light;
    }
    // Qt hands the new palette to the widgets through posted events; deliver them now, so that the
    // whole window has changed when this returns (a grab or a test right after sees it).
    QCoreApplication::sendPostedEvents(nullptr, QEvent::ApplicationPaletteChange);
    palette::setTheme(timeline);
    // A rich-text label takes its links' colour from the palette when its text is parsed: parsed
    // again, so that the dark theme's links are not the light theme's #0000ff on dark grey.
    for (QWidget *widget : QApplication::allWidgets())
        if (auto *label = qobject_cast<QLabel *>(widget); label && label->textFormat() != Qt::PlainText) {
            const QString text = label->text();
            if (text.contains(QLatin1String("<a ")) || text.contains(QLatin1String("<a\t"))) {
                label->setText(QString());
                label->setText(text);
            }
        }
    // The custom-painted widgets read palette::current() when they paint.
    for (QWidget *widget : QApplication::allWidgets())
        widget->update();
}

ThemeChoice currentThemeChoice() { return g_choice; }

ThemeChoice savedThemeChoice()
{
    const int value = QSettings().value(kThemeKey, 0).toInt();
    return value >= 0 && value < kThemeChoiceCount ? static_cast<ThemeChoice>(value) : ThemeChoice::System;
}

void saveThemeChoice(ThemeChoice choice) { QSettings().setValue(kThemeKey, static_cast<int>(choice)); }

} // namespace linkscope::ui
