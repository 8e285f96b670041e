#pragma once
// Review ▸ Export corrected traces…: one row per format the exporter writes (ET+ JSON, Chakra .et
// for Chakra or for ASTRA-sim, Perfetto JSON), each with a tick, a path field and Browse…. A format
// that cannot be written for the open trace is disabled with the reason beside it (a Kineto-only
// trace has no host ET). Default names follow core/export/outputnames.h (beside the Kineto trace,
// <base>.etplus.json, <base>.et, <base>.perfetto.json). Export checks the outputs as the CLI does
// (none may replace an input or the corrections sidecar) and stays open saying why when one would;
// the writing itself is CorrectionController::exportCorrected (atomic, in the background).

#include "export/exportrequest.h"
#include "shell/tracedocument.h"

#include <QDialog>

#include <array>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace linkscope::ui {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    enum Format { EtPlus, Et, Perfetto };
    static constexpr int kFormatCount = 3;

    explicit ExportDialog(DocumentPtr doc, QWidget *parent = nullptr);

    // Why `format` cannot be written for `doc`; empty when it can.
    static QString unavailableReason(Format format, const TraceDocument &doc);
    static QString formatName(Format format);

    // The paths of the ticked, available rows (relative paths are taken from the Kineto trace's
    // folder), gzip and the .et target.
    core::ExportRequest request() const;
    // Fills the rows from an earlier request (the paths it names, its gzip and target).
    void setRequest(const core::ExportRequest &request);
    // The paths of request() in row order, non-empty ones only.
    QStringList outputPaths() const;

    QCheckBox *formatBox(Format format) const { return m_rows[format].box; }
    QLineEdit *pathEdit(Format format) const { return m_rows[format].path; }
    QPushButton *browseButton(Format format) const { return m_rows[format].browse; }
    QLabel *noteLabel(Format format) const { return m_rows[format].note; } // the reason, or what it is
    QComboBox *targetBox() const { return m_target; }
    QCheckBox *gzipBox() const { return m_gzip; }
    QPushButton *exportButton() const { return m_export; }
    QLabel *problemLabel() const { return m_problem; }

public slots:
    // Checks the outputs (core::checkOutputs) and accepts, or says why not and stays open.
    void accept() override;

private:
    struct Row {
        QCheckBox *box = nullptr;
        QLineEdit *path = nullptr;
        QPushButton *browse = nullptr;
        QLabel *note = nullptr;
        QString description; // what the format is, when available
        bool available = false;
    };
    void browse(Format format);
    void setGzip(bool gzip);
    void validate();
    QString absolute(const QString &path) const;

    DocumentPtr m_doc;
    std::array<Row, kFormatCount> m_rows;
    QComboBox *m_target = nullptr;
    QCheckBox *m_gzip = nullptr;
    QLabel *m_problem = nullptr;
    QPushButton *m_export = nullptr;
};

} // namespace linkscope::ui
