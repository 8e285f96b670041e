#include "shell/openpair.h"

#include "io/formats.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>

#include <exception>

namespace linkscope::ui {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("OpenPair", text); }

} // namespace

PairChoice choosePair(const FileAsker &ask)
{
    PairChoice choice;
    const QStringList first = ask(tr("Open trace pair"),
                                  tr("Pick the host execution trace (ET) and its Kineto trace, one or both, in any order."),
                                  QString(), true);
    if (first.isEmpty()) {
        choice.cancelled = true;
        return choice;
    }
    if (first.size() > 2) {
        choice.error = tr("Pick a host ET and its Kineto trace: %1 files were picked").arg(first.size());
        return choice;
    }
    if (first.size() == 2) {
        // Either order: the loader tells which is which by content (resolvePairFiles).
        choice.host = first.at(0);
        choice.device = first.at(1);
        return choice;
    }
    const QString path = first.front();
    const QString name = QFileInfo(path).fileName();
    const QString folder = QFileInfo(path).absolutePath();
    const core::InputFormat *format = nullptr;
    try {
        format = core::detectInputFormat(path.toStdString());
    } catch (const std::exception &e) {
        choice.error = QString::fromUtf8(e.what());
        return choice;
    }
    if (format && format->role == core::TraceRole::Host) {
        const QStringList device = ask(tr("Kineto trace for %1").arg(name),
                                       tr("Pick the Kineto trace recorded with the host ET %1.").arg(name), folder, false);
        if (device.isEmpty()) {
            choice.cancelled = true;
            return choice;
        }
        choice.host = path;
        choice.device = device.front();
        return choice;
    }
    if (format && format->role == core::TraceRole::Device) {
        // A Kineto trace picked first is the device trace: its host ET is asked for, not refused.
        const QStringList host = ask(
            tr("Host ET for %1").arg(name),
            tr("Pick the host execution trace (ET) recorded with %1; Cancel opens the Kineto trace alone.").arg(name), folder,
            false);
        choice.device = path;
        if (!host.isEmpty())
            choice.host = host.front();
        return choice;
    }
    const std::string_view what = format ? std::string_view(format->kind) : core::kUnknownKind;
    choice.error = tr("%1 is not a host ET or a Kineto trace (it looks like: %2)")
                       .arg(path, QString::fromUtf8(what.data(), static_cast<qsizetype>(what.size())));
    return choice;
}

FileAsker fileDialogAsker(QWidget *parent)
{
    return [parent](const QString &title, const QString &prompt, const QString &folder, bool several) {
        // A short title (a window manager cuts a long one) and the question in the dialog itself:
        // Qt's own dialog, whose layout takes the prompt as a last row.
        QFileDialog dialog(parent, title, folder, QString::fromStdString(core::inputFileFilter()));
        dialog.setObjectName(QStringLiteral("OpenPairDialog"));
        dialog.setOption(QFileDialog::DontUseNativeDialog);
        dialog.setFileMode(several ? QFileDialog::ExistingFiles : QFileDialog::ExistingFile);
        if (auto *grid = qobject_cast<QGridLayout *>(dialog.layout())) {
            auto *label = new QLabel(prompt, &dialog);
            label->setObjectName(QStringLiteral("OpenPairPrompt"));
            label->setWordWrap(true);
            grid->addWidget(label, grid->rowCount(), 0, 1, grid->columnCount());
        }
        return dialog.exec() == QDialog::Accepted ? dialog.selectedFiles() : QStringList();
    };
}

} // namespace linkscope::ui
