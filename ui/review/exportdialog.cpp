#include "review/exportdialog.h"

#include "ground/fromstd.h"

#include "edit/sidecar.h"
#include "export/outputnames.h"
#include "export/targets.h"
#include "io/file/atomicfile.h"
#include "io/file/outputguard.h"
#include "io/formats.h"
#include "link/linkset.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

namespace linkscope::ui {

namespace {

const QString kGz = QStringLiteral(".gz");

// "a", "a and b", "a, b and c".
QString listText(QStringList items)
{
    const QString last = items.isEmpty() ? QString() : items.takeLast();
    return items.isEmpty() ? last : ExportDialog::tr("%1 and %2").arg(items.join(QStringLiteral(", ")), last);
}

} // namespace

QString ExportDialog::unavailableReason(const core::ExportTarget &target, const TraceDocument &doc)
{
    if (target.needsHost && !doc.host())
        return tr("needs a host ET: this trace is Kineto-only (File \u25B8 Open pair\u2026 opens it with its ET)");
    return {}; // the Kineto trace alone is enough
}

ExportDialog::ExportDialog(DocumentPtr doc, QWidget *parent) : QDialog(parent), m_doc(std::move(doc))
{
    setObjectName(QStringLiteral("ExportDialog"));
    const QString device = QFileInfo(m_doc->devicePath()).fileName();
    const QString host = QFileInfo(m_doc->hostPath()).fileName();
    setWindowTitle(tr("Export corrected traces \u2014 %1").arg(device));

    auto *layout = new QVBoxLayout(this);
    layout->setSpacing(10);
    auto *header = new QLabel(this);
    header->setWordWrap(true);
    header->setTextFormat(Qt::RichText);
    const QString from = host.isEmpty() ? tr("<b>%1</b> (Kineto only)").arg(device.toHtmlEscaped())
                                        : tr("<b>%1</b> + <b>%2</b>").arg(host.toHtmlEscaped(), device.toHtmlEscaped());
    header->setText(tr("The links shown, with your corrections, of %1 (policy %2). Each file is written whole or not at all.")
                        .arg(from, fromStd(core::policyName(m_doc->links().policy))));
    layout->addWidget(header);

    auto *grid = new QGridLayout;
    grid->setHorizontalSpacing(8);
    grid->setVerticalSpacing(2);
    grid->setColumnStretch(1, 1);
    // The defaults are absolute: a trace opened by a relative path (`cd X && linkscope sample/…`) names
    // its outputs from the current folder, and absolute() resolves what is still relative against the
    // trace's folder, which would name `sample/` twice.
    const std::string devicePath = QFileInfo(m_doc->devicePath()).absoluteFilePath().toStdString();
    // The names come from the row the device trace was read with (its name suffixes), not Kineto's.
    const core::InputFormat &format = m_doc->deviceFormat();
    m_rows.reserve(core::exportTargets().size());
    QStringList suffixes;
    for (const core::ExportTarget &target : core::exportTargets()) {
        const int index = static_cast<int>(m_rows.size());
        Row &row = m_rows.emplace_back();
        row.target = &target;
        const QString reason = unavailableReason(target, *m_doc);
        row.available = reason.isEmpty();
        row.description = fromStd(target.description);
        row.box = new QCheckBox(fromStd(target.title), this);
        row.box->setObjectName(QStringLiteral("export-") + fromStd(target.name));
        row.box->setChecked(row.available);
        row.box->setEnabled(row.available);
        row.path = new QLineEdit(row.available ? fromStd(core::defaultExportPath(devicePath, target, false, &format)) : QString(),
                                 this);
        row.path->setPlaceholderText(row.available ? tr("file to write") : tr("not available for this trace"));
        row.path->setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 60);
        row.browse = new QPushButton(tr("Browse\u2026"), this);
        row.note = new QLabel(this);
        row.note->setWordWrap(true);
        if (!row.available) {
            row.note->setText(tr("\u26A0 Not available: %1").arg(reason));
            row.note->setToolTip(reason);
        } else {
            QPalette quiet = row.note->palette();
            quiet.setColor(QPalette::WindowText, quiet.color(QPalette::PlaceholderText));
            row.note->setPalette(quiet);
        }
        suffixes << QStringLiteral("<i>base</i>") + fromStd(target.defaultSuffix).toHtmlEscaped();
        const int r = 2 * index;
        grid->addWidget(row.box, r, 0);
        grid->addWidget(row.path, r, 1);
        grid->addWidget(row.browse, r, 2);
        if (target.name == core::kEtTarget) {
            // The .et's flavour (ChakraOptions::target), beside what it is.
            auto *line = new QHBoxLayout;
            m_target = new QComboBox(this);
            m_target->addItem(tr("for Chakra"), static_cast<int>(core::EtTarget::Chakra));
            m_target->addItem(tr("for ASTRA-sim"), static_cast<int>(core::EtTarget::AstraSim));
            m_target->setToolTip(tr("For Chakra: what chakra_converter writes, corrected. For ASTRA-sim: what the simulator "
                                    "replays (no METADATA node, each node's own time; docs/astra-sim-export.md)"));
            m_target->setEnabled(row.available);
            line->addWidget(m_target);
            line->addWidget(row.note, 1);
            grid->addLayout(line, r + 1, 1, 1, 2);
        } else {
            grid->addWidget(row.note, r + 1, 1, 1, 2);
        }
        grid->setRowMinimumHeight(r + 1, fontMetrics().height() + 8);
        connect(row.box, &QCheckBox::toggled, this, &ExportDialog::validate);
        connect(row.path, &QLineEdit::textChanged, this, &ExportDialog::validate);
        connect(row.browse, &QPushButton::clicked, this, [this, index] { browse(m_rows[static_cast<std::size_t>(index)]); });
    }
    layout->addLayout(grid);

    m_gzip = new QCheckBox(tr("gzip every output (adds .gz to the names)"), this);
    connect(m_gzip, &QCheckBox::toggled, this, &ExportDialog::setGzip);
    layout->addWidget(m_gzip);
    // What is taken off the device trace's name, in that order (io/formats.h traceBaseName).
    QStringList dropped{kGz};
    for (const std::string &suffix : format.nameSuffixes)
        dropped << fromStd(suffix).toHtmlEscaped();
    auto *scheme = new QLabel(tr("Default names: beside the %1, %2, where <i>base</i> is its name without %3.")
                                  .arg(fromStd(format.name).toHtmlEscaped(), listText(suffixes), listText(dropped)),
                              this);
    scheme->setWordWrap(true);
    QPalette quiet = scheme->palette();
    quiet.setColor(QPalette::WindowText, quiet.color(QPalette::PlaceholderText));
    scheme->setPalette(quiet);
    layout->addWidget(scheme);

    m_problem = new QLabel(this);
    m_problem->setWordWrap(true);
    m_problem->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problem->hide();
    layout->addWidget(m_problem);
    layout->addStretch(1);

    auto *buttons = new QDialogButtonBox(this);
    m_export = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    m_export->setDefault(true);
    buttons->addButton(QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &ExportDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &ExportDialog::reject);
    layout->addWidget(buttons);

    validate();
    resize(std::max(sizeHint().width(), 860), sizeHint().height());
}

QString ExportDialog::absolute(const QString &path) const
{
    const QString trimmed = path.trimmed();
    if (trimmed.isEmpty())
        return {};
    return QDir::cleanPath(QDir(QFileInfo(m_doc->devicePath()).absolutePath()).absoluteFilePath(trimmed));
}

const ExportDialog::Row *ExportDialog::row(std::string_view target) const
{
    for (const Row &r : m_rows)
        if (r.target->name == target)
            return &r;
    return nullptr;
}

QStringList ExportDialog::targetNames() const
{
    QStringList names;
    for (const Row &r : m_rows)
        names << fromStd(r.target->name);
    return names;
}

QCheckBox *ExportDialog::formatBox(std::string_view target) const
{
    const Row *r = row(target);
    return r ? r->box : nullptr;
}

QLineEdit *ExportDialog::pathEdit(std::string_view target) const
{
    const Row *r = row(target);
    return r ? r->path : nullptr;
}

QPushButton *ExportDialog::browseButton(std::string_view target) const
{
    const Row *r = row(target);
    return r ? r->browse : nullptr;
}

QLabel *ExportDialog::noteLabel(std::string_view target) const
{
    const Row *r = row(target);
    return r ? r->note : nullptr;
}

core::ExportRequest ExportDialog::request() const
{
    core::ExportRequest request;
    for (const Row &row : m_rows)
        if (row.available && row.box->isChecked())
            if (const QString path = absolute(row.path->text()); !path.isEmpty())
                request.outputs[row.target->name] = path.toStdString();
    request.gzip = m_gzip->isChecked();
    if (m_target)
        request.chakra.target = static_cast<core::EtTarget>(m_target->currentData().toInt());
    return request;
}

void ExportDialog::setRequest(const core::ExportRequest &request)
{
    m_gzip->blockSignals(true);
    m_gzip->setChecked(request.gzip);
    m_gzip->blockSignals(false);
    for (Row &row : m_rows) {
        if (!row.available)
            continue;
        const std::string &path = request.path(row.target->name);
        row.box->setChecked(!path.empty());
        if (!path.empty())
            row.path->setText(fromStd(path));
    }
    if (m_target)
        m_target->setCurrentIndex(std::max(0, m_target->findData(static_cast<int>(request.chakra.target))));
    validate();
}

QStringList ExportDialog::outputPaths() const
{
    const core::ExportRequest r = request();
    QStringList paths;
    for (const Row &row : m_rows)
        if (r.requests(row.target->name))
            paths << fromStd(r.path(row.target->name));
    return paths;
}

void ExportDialog::browse(Row &row)
{
    const QString start = row.path->text().trimmed().isEmpty() ? QFileInfo(m_doc->devicePath()).absolutePath()
                                                               : absolute(row.path->text());
    const QString chosen = QFileDialog::getSaveFileName(this, tr("%1 to write").arg(fromStd(row.target->title)), start,
                                                        fromStd(row.target->fileFilter), nullptr,
                                                        QFileDialog::DontConfirmOverwrite);
    if (chosen.isEmpty())
        return;
    row.path->setText(chosen);
    row.box->setChecked(true);
}

void ExportDialog::setGzip(bool gzip)
{
    for (Row &row : m_rows) {
        QString path = row.path->text().trimmed();
        if (!row.available || path.isEmpty())
            continue;
        if (gzip && !path.endsWith(kGz))
            path += kGz;
        else if (!gzip && path.endsWith(kGz))
            path.chop(kGz.size());
        row.path->setText(path);
    }
}

void ExportDialog::validate()
{
    int chosen = 0;
    for (Row &row : m_rows) {
        const bool on = row.available && row.box->isChecked();
        row.path->setEnabled(on);
        row.browse->setEnabled(row.available);
        if (!row.available)
            continue;
        const QString path = absolute(row.path->text());
        chosen += on && !path.isEmpty() ? 1 : 0;
        QString note = row.description;
        if (on && !path.isEmpty() && QFileInfo(path).isFile())
            note += tr(" \u00B7 replaces the file there (%1)").arg(QLocale().formattedDataSize(QFileInfo(path).size()));
        row.note->setText(note);
    }
    if (const Row *et = row(core::kEtTarget); et && m_target)
        m_target->setEnabled(et->available && et->box->isChecked());
    m_export->setEnabled(chosen > 0);
    m_problem->setVisible(chosen == 0);
    m_problem->setText(chosen == 0 ? tr("Tick a format and name its file.") : QString());
}

void ExportDialog::accept()
{
    const core::ExportRequest r = request();
    QString problem;
    std::vector<core::NamedFile> outputs;
    for (const Row &row : m_rows) {
        const QString label = tr("%1 output").arg(fromStd(row.target->title));
        const QString path = fromStd(r.path(row.target->name));
        outputs.push_back({label.toStdString(), r.path(row.target->name)});
        if (path.isEmpty() || !problem.isEmpty())
            continue;
        const QFileInfo info(path);
        if (info.isDir())
            problem = tr("%1: %2 is a folder; name a file in it").arg(label, path);
        else if (!info.absoluteDir().exists())
            problem = tr("%1: %2: the folder %3 does not exist").arg(label, path, info.absolutePath());
    }
    if (problem.isEmpty()) {
        // As `linkscope export` checks them: no output may be an input, the sidecar or another output.
        try {
            const std::string device = m_doc->devicePath().toStdString();
            core::checkOutputs(outputs, {{"host trace", m_doc->hostPath().toStdString()},
                                         {"Kineto trace", device},
                                         {"corrections sidecar", core::defaultSidecarPath(device)}});
        } catch (const core::WriteError &e) {
            problem = QString::fromUtf8(e.what());
        }
    }
    if (!problem.isEmpty()) {
        m_problem->setText(tr("\u26A0 Not exported: %1").arg(problem));
        m_problem->show();
        return;
    }
    QDialog::accept();
}

} // namespace linkscope::ui
