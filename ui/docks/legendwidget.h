#pragma once
// The colour legend: one swatch per event kind; below them the edge provenance line styles (policy
// rule, fallback, corrected by user, has finding, flagged by you) and the flag and note markers.

#include <QWidget>

namespace linkscope::ui {

class LegendWidget : public QWidget {
    Q_OBJECT
public:
    explicit LegendWidget(QWidget *parent = nullptr);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return QSize(100, sizeHint().height()); }

protected:
    void paintEvent(QPaintEvent *event) override;
};

} // namespace linkscope::ui
