#pragma once
// The colour legend: one swatch per event kind, then the edge provenance line styles.

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
