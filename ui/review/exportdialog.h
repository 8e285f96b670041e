#pragma once
// Review ▸ Export corrected traces…: one row per row of the export-target table
// (core/export/targets.h: ET+ JSON, Chakra .et for Chakra or for ASTRA-sim, Perfetto JSON), each
// with a tick, a path field and Browse…, its title, description and file filter from the table. A
// target that cannot be written for the open trace is disabled with the reason beside it (one that
// needs the host ET, for a Kineto-only trace). Default names follow core/export/outputnames.h
// (beside the device trace, <base> — its name without the suffixes of the input-format row it was
// read with — and the target's suffix). Export checks the outputs as the CLI
// does (none may replace an input or the corrections sidecar) and stays open saying why when one
// would; the writing itself is CorrectionController::exportCorrected (atomic, in the background).

#include "export/exportrequest.h"
#include "ground/tracedocument.h"

#include <QDialog>

#include <string_view>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace linkscope::core {
struct ExportTarget;
}

namespace linkscope::ui {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ExportDialog(DocumentPtr doc, QWidget *parent = nullptr);

    // Why `target` cannot be written for `doc`; empty when it can.
    static QString unavailableReason(const core::ExportTarget &target, const TraceDocument &doc);

    // The paths of the ticked, available rows (relative paths are taken from the Kineto trace's
    // folder), gzip and the .et target.
    core::ExportRequest request() const;
    // Fills the rows from an earlier request (the paths it names, its gzip and target).
    void setRequest(const core::ExportRequest &request);
    // The paths of request() in row order, non-empty ones only.
    QStringList outputPaths() const;

    // The rows, by target name (in table order); null for a name the table does not have.
    QStringList targetNames() const;
    QCheckBox *formatBox(std::string_view target) const;
    QLineEdit *pathEdit(std::string_view target) const;
    QPushButton *browseButton(std::string_view target) const;
    QLabel *noteLabel(std::string_view target) const; // the reason, or what it is
    QComboBox *targetBox() const { return m_target; }
    QCheckBox *gzipBox() const { return m_gzip; }
    QPushButton *exportButton() const { return m_export; }
    QLabel *problemLabel() const { return m_problem; }

public slots:
    // Checks the outputs (core::checkOutputs) and accepts, or says why not and stays open.
    void accept() override;

private:
    struct Row {
        const core::ExportTarget *target = nullptr;
        QCheckBox *box = nullptr;
        QLineEdit *path = nullptr;
        QPushButton *browse = nullptr;
        QLabel *note = nullptr;
        QString description; // what the format is, when available
        bool available = false;
    };
    const Row *row(std::string_view target) const;
    void browse(Row &row);
    void setGzip(bool gzip);
    void validate();
    QString absolute(const QString &path) const;

    DocumentPtr m_doc;
    std::vector<Row> m_rows;
    QComboBox *m_target = nullptr;
    QCheckBox *m_gzip = nullptr;
    QLabel *m_problem = nullptr;
    QPushButton *m_export = nullptr;
};

} // namespace linkscope::ui
