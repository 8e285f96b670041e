#pragma once
// A dismissible notice above the timeline, in place of an information dialog: one line of text
// (the full detail in its tooltip), an optional action button (e.g. "Show changed links") and a
// close button. It never takes the keyboard focus and never blocks: a relink or a reopen says what
// changed here, and the user acts on it or not.

#include <QFrame>

#include <functional>

class QLabel;
class QPushButton;
class QToolButton;

namespace linkscope::ui {

class NoticeBar : public QFrame {
    Q_OBJECT
public:
    explicit NoticeBar(QWidget *parent = nullptr);

    // Shows `text` (replacing any notice shown). With a non-empty `actionText` the button runs
    // `action`; the notice stays until dismissed or replaced.
    void showNotice(const QString &text, const QString &detail = {}, const QString &actionText = {},
                    std::function<void()> action = {});
    void dismiss();

    QString text() const;
    QLabel *label() const { return m_label; }
    QPushButton *actionButton() const { return m_action; }
    QToolButton *closeButton() const { return m_close; }

signals:
    void dismissed();

protected:
    void changeEvent(QEvent *event) override;

private:
    void followPalette();
    QLabel *m_label;
    QPushButton *m_action;
    QToolButton *m_close;
    std::function<void()> m_run;
    bool m_following = false; // in followPalette(): its own palette change is not followed again
};

} // namespace linkscope::ui
