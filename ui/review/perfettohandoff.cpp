#include "review/perfettohandoff.h"

#include "ground/noticebar.h"
#include "review/correctioncontroller.h"

#include "export/outputnames.h"
#include "io/file/outputguard.h"

#include <QAction>
#include <QClipboard>
#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QStandardPaths>

namespace linkscope::ui {

PerfettoHandoff::PerfettoHandoff(QObject *parent, CorrectionController *controller, NoticeBar *notice)
    : QObject(parent), m_controller(controller), m_notice(notice)
{
    setObjectName(QStringLiteral("PerfettoHandoff"));
    m_action = new QAction(tr("Open in &Perfetto"), this);
    m_action->setObjectName(QStringLiteral("openInPerfetto"));
    m_action->setToolTip(tr("Write the pair shown (with its corrections) as a Perfetto trace and say how to open it "
                            "in ui.perfetto.dev"));
    connect(m_action, &QAction::triggered, this, [this] { openInPerfetto(); });
    connect(m_controller, &CorrectionController::sidecarChanged, this, &PerfettoHandoff::updateAction);
    connect(m_controller, &CorrectionController::changed, this, &PerfettoHandoff::updateAction);
    updateAction();
}

void PerfettoHandoff::updateAction()
{
    m_action->setEnabled(m_controller->document() && m_controller->ready() && !m_controller->exporting());
}

QString PerfettoHandoff::outputPath() const
{
    const DocumentPtr &doc = m_controller->document();
    if (!doc)
        return {};
    const QFileInfo device(doc->devicePath());
    const QString base = QString::fromStdString(core::exportBaseName(doc->devicePath().toStdString(), &doc->deviceFormat()));
    const QByteArray hash =
        QCryptographicHash::hash(device.absoluteFilePath().toUtf8(), QCryptographicHash::Sha256).toHex().left(8);
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/perfetto");
    return folder + QLatin1Char('/') + base + QLatin1Char('-') + QString::fromLatin1(hash) + QStringLiteral(".perfetto.json");
}

QString PerfettoHandoff::instructions(const QString &path)
{
    return tr("Perfetto trace written to %1 — open https://ui.perfetto.dev, choose \"Open trace file\" and pick it, "
              "or drag the file onto the page")
        .arg(QDir::toNativeSeparators(path));
}

bool PerfettoHandoff::openInPerfetto()
{
    const DocumentPtr &doc = m_controller->document();
    if (!doc || !m_controller->ready() || m_controller->exporting()) {
        emit message(tr("Open in Perfetto: no trace ready, or an export is running"), 4000);
        return false;
    }
    const QString path = outputPath();
    auto fail = [this, path](const QString &message) {
        m_notice->showNotice(tr("Open in Perfetto failed: %1").arg(message), path, tr("Try again"), [this] { openInPerfetto(); });
        emit finished(false, path, message);
    };
    if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
        fail(tr("cannot create the folder %1").arg(QFileInfo(path).absolutePath()));
        return false;
    }
    try {
        // Never over an input (a trace or the sidecar could have been opened from the cache folder).
        std::vector<core::NamedFile> inputs{{"device trace", doc->devicePath().toStdString()},
                                            {"corrections sidecar", m_controller->sidecarPath().toStdString()}};
        if (!doc->hostPath().isEmpty())
            inputs.push_back({"host trace", doc->hostPath().toStdString()});
        core::checkOutputs({{"Perfetto trace", path.toStdString()}}, inputs);
    } catch (const std::exception &e) {
        fail(QString::fromUtf8(e.what()));
        return false;
    }
    core::ExportRequest request;
    request.outputs[std::string(core::kPerfettoTarget)] = path.toStdString();
    connect(
        m_controller, &CorrectionController::exportFinished, this,
        [this, path, fail](bool ok, const QString &message) {
            updateAction();
            if (!ok) {
                fail(message);
                return;
            }
            const QString text = instructions(path);
            m_notice->showNotice(text, QDir::toNativeSeparators(path), tr("Copy path"),
                                 [path] { QGuiApplication::clipboard()->setText(QDir::toNativeSeparators(path)); });
            emit this->message(tr("Perfetto trace written: %1").arg(QDir::toNativeSeparators(path)), 8000);
            emit finished(true, path, text);
        },
        Qt::SingleShotConnection);
    m_controller->exportCorrected(request);
    updateAction();
    return true;
}

} // namespace linkscope::ui
