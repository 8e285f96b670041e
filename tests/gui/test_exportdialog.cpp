// Review ▸ Export corrected traces… on the seed pair (tests/data/export) and on its Kineto trace
// alone: one row per format with Browse…, the rows a Kineto-only trace cannot have disabled with the
// reason beside them, default names by core/export/outputnames.h, an output that would replace an
// input refused in the dialog, the notice naming the files written (with Open folder), a failed
// write named in the notice with everything still loaded, and the files equal to what
// `linkscope export` writes. Writes export-dialog.png (the dialog on the pair), export-dialog-kineto-only.png and
// export-notice.png (the window after an export) into the test's folder.

#include "commands/commands.h"
#include "export/outputnames.h"
#include "ground/noticebar.h"
#include "review/correctioncontroller.h"
#include "review/exportdialog.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "testsupport.h"
#include "toyformat/toyformat.h"
#include "toytarget/toytarget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <sstream>

using namespace linkscope;
using linkscope::test::readFile;

class TestExportDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_exportdialog"));
        QSettings().clear();
    }
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }
    void cleanup()
    {
        m_window.reset();
        m_dir.reset();
    }

    void defaultNamesFollowTheScheme()
    {
        using core::defaultExportPaths;
        using core::exportBaseName;
        QCOMPARE(exportBaseName("/t/rank0.pt.trace.json.gz"), std::string("rank0"));
        QCOMPARE(exportBaseName("/t/kineto_0.json"), std::string("kineto_0"));
        QCOMPARE(exportBaseName("trace.gz"), std::string("trace"));
        QCOMPARE(exportBaseName("/t/a.b.json"), std::string("a.b"));
        QCOMPARE(exportBaseName("/t/.json"), std::string(".json")); // never an empty name
        const std::map<std::string, std::string> paths = defaultExportPaths("/t/rank0.pt.trace.json");
        QCOMPARE(paths.at("etplus"), std::string("/t/rank0.etplus.json"));
        QCOMPARE(paths.at("et"), std::string("/t/rank0.et"));
        QCOMPARE(paths.at("perfetto"), std::string("/t/rank0.perfetto.json"));
        QCOMPARE(defaultExportPaths("/t/k.json.gz", true).at("et"), std::string("/t/k.et.gz"));
    }

    void kinetoOnlyDisablesTheEtRowsWithTheReason()
    {
        const QString device = copy("export/seed_kineto.json", "rank0.pt.trace.json");
        openWindow(QString(), device);
        ui::ExportDialog *dialog = openDialog();
        QVERIFY(dialog);
        QVERIFY(dialog->windowTitle().contains(QStringLiteral("rank0.pt.trace.json")));
        QVERIFY(dialog->width() >= 700);
        for (const char *f : {"etplus", "et"}) {
            QVERIFY(!dialog->formatBox(f)->isEnabled());
            QVERIFY(!dialog->formatBox(f)->isChecked());
            QVERIFY(!dialog->pathEdit(f)->isEnabled());
            QVERIFY(dialog->pathEdit(f)->text().isEmpty());
            QVERIFY(!dialog->browseButton(f)->isEnabled());
            QVERIFY2(dialog->noteLabel(f)->text().contains(QStringLiteral("needs a host ET: this trace is Kineto-only")),
                     qPrintable(dialog->noteLabel(f)->text()));
            QVERIFY(dialog->noteLabel(f)->isVisible());
        }
        QVERIFY(!dialog->targetBox()->isEnabled());
        QVERIFY(dialog->formatBox("perfetto")->isChecked());
        QVERIFY(dialog->browseButton("perfetto")->isEnabled());
        const QString perfetto = m_dir->filePath(QStringLiteral("rank0.perfetto.json"));
        QCOMPARE(dialog->pathEdit("perfetto")->text(), perfetto);
        QCOMPARE(dialog->outputPaths(), QStringList{perfetto});
        screenshot(dialog, QStringLiteral("export-dialog-kineto-only.png"));

        QTest::mouseClick(dialog->exportButton(), Qt::LeftButton);
        QVERIFY(waitForNotice(QStringLiteral("Exported")));
        ui::NoticeBar *notice = m_window->review()->noticeBar();
        QCOMPARE(notice->text(),
                 QStringLiteral("Exported 1 file to %1: rank0.perfetto.json (%2)")
                     .arg(QDir::toNativeSeparators(m_dir->path()), QLocale().formattedDataSize(QFileInfo(perfetto).size())));
        QVERIFY(notice->actionButton()->isVisible());
        QCOMPARE(notice->actionButton()->text(), QStringLiteral("Open folder"));
        QVERIFY(readFile(perfetto.toStdString()).find("\"traceEvents\"") != std::string::npos);
        // Atomic: nothing else was left in the folder.
        QStringList files = QDir(m_dir->path()).entryList(QDir::Files);
        files.removeAll(QStringLiteral("rank0.pt.trace.json"));
        files.removeAll(QStringLiteral("rank0.pt.trace.json.linkscope.json"));
        QCOMPARE(files, QStringList{QStringLiteral("rank0.perfetto.json")});
    }

    void pairExportWritesWhatTheCliWrites()
    {
        const QString host = copy("export/seed_host_et.json", "seed_host_et.json");
        const QString device = copy("export/seed_kineto.json", "seed_kineto.json");
        openWindow(host, device);
        ui::ExportDialog *dialog = openDialog();
        QVERIFY(dialog);
        QVERIFY(dialog->windowTitle().contains(QStringLiteral("seed_kineto.json")));
        const QString etPlus = m_dir->filePath(QStringLiteral("seed_kineto.etplus.json"));
        const QString et = m_dir->filePath(QStringLiteral("seed_kineto.et"));
        const QString perfetto = m_dir->filePath(QStringLiteral("seed_kineto.perfetto.json"));
        QCOMPARE(dialog->outputPaths(), (QStringList{etPlus, et, perfetto}));
        for (const char *f : {"etplus", "et", "perfetto"}) {
            QVERIFY(dialog->formatBox(f)->isEnabled() && dialog->formatBox(f)->isChecked());
            QVERIFY(dialog->browseButton(f)->isEnabled());
            QVERIFY(!dialog->noteLabel(f)->text().contains(QStringLiteral("Not available")));
        }
        QVERIFY(dialog->targetBox()->isEnabled());
        // gzip adds .gz to every name, and takes it off again.
        dialog->gzipBox()->setChecked(true);
        QCOMPARE(dialog->outputPaths(),
                 (QStringList{etPlus + QStringLiteral(".gz"), et + QStringLiteral(".gz"), perfetto + QStringLiteral(".gz")}));
        QVERIFY(dialog->request().gzip);
        dialog->gzipBox()->setChecked(false);
        QCOMPARE(dialog->outputPaths(), (QStringList{etPlus, et, perfetto}));
        // A relative name is taken from the Kineto trace's folder; an unticked row is not written.
        dialog->formatBox("etplus")->setChecked(false);
        QVERIFY(!dialog->pathEdit("etplus")->isEnabled());
        dialog->pathEdit("perfetto")->setText(QStringLiteral("arrows.json"));
        const QString arrows = m_dir->filePath(QStringLiteral("arrows.json"));
        QCOMPARE(dialog->outputPaths(), (QStringList{et, arrows}));
        dialog->formatBox("etplus")->setChecked(true);
        screenshot(dialog, QStringLiteral("export-dialog.png"));

        QTest::mouseClick(dialog->exportButton(), Qt::LeftButton);
        QVERIFY(waitForNotice(QStringLiteral("Exported")));
        const QString text = m_window->review()->noticeBar()->text();
        QVERIFY2(text.startsWith(QStringLiteral("Exported 3 files to %1: ").arg(QDir::toNativeSeparators(m_dir->path()))),
                 qPrintable(text));
        for (const QString &name :
             {QStringLiteral("seed_kineto.etplus.json"), QStringLiteral("seed_kineto.et"), QStringLiteral("arrows.json")})
            QVERIFY2(text.contains(name), qPrintable(text));
        QVERIFY(m_window->review()->noticeBar()->label()->toolTip().contains(QDir::toNativeSeparators(et)));
        screenshot(m_window.get(), QStringLiteral("export-notice.png"));

        std::ostringstream out, err;
        const auto path = [&](const char *name) { return m_dir->filePath(QString::fromLatin1(name)).toStdString(); };
        QCOMPARE(cli::runExport({"--host", host.toStdString(), "--device", device.toStdString(), "--et", path("cli.et"),
                                 "--etplus", path("cli.etplus.json"), "--perfetto", path("cli.perfetto.json")},
                                out, err),
                 0);
        QVERIFY(!readFile(et.toStdString()).empty());
        QVERIFY(readFile(et.toStdString()) == readFile(path("cli.et")));
        QVERIFY(readFile(etPlus.toStdString()) == readFile(path("cli.etplus.json")));
        QVERIFY(readFile(arrows.toStdString()) == readFile(path("cli.perfetto.json")));

        // Reopened: the paths of the last export of this trace; the notes say the files are there.
        dialog = openDialog();
        QVERIFY(dialog);
        QCOMPARE(dialog->outputPaths(), (QStringList{etPlus, et, arrows}));
        QVERIFY2(dialog->noteLabel("et")->text().contains(QStringLiteral("replaces the file there")),
                 qPrintable(dialog->noteLabel("et")->text()));
        dialog->reject();
    }

    void defaultNamesExportFromARelativeStart()
    {
        // `cd X && linkscope sample/host.json sample/kineto.json`, Ctrl+E, Export: the default names
        // are the trace's folder, not that folder named twice (issue 28, item 1).
        QVERIFY(QDir(m_dir->path()).mkpath(QStringLiteral("sample")));
        copy("export/seed_host_et.json", "sample/seed_host_et.json");
        copy("export/seed_kineto.json", "sample/seed_kineto.json");
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(m_dir->path()));
        openWindow(QStringLiteral("sample/seed_host_et.json"), QStringLiteral("sample/seed_kineto.json"));
        ui::ExportDialog *dialog = openDialog();
        QVERIFY(dialog);
        const QString folder = QDir(m_dir->path()).filePath(QStringLiteral("sample"));
        const QString etPlus = folder + QStringLiteral("/seed_kineto.etplus.json");
        const QString et = folder + QStringLiteral("/seed_kineto.et");
        const QString perfetto = folder + QStringLiteral("/seed_kineto.perfetto.json");
        QCOMPARE(dialog->outputPaths(), (QStringList{etPlus, et, perfetto}));
        QCOMPARE(dialog->pathEdit("et")->text(), et);
        QTest::mouseClick(dialog->exportButton(), Qt::LeftButton);
        const bool exported = waitForNotice(QStringLiteral("Exported"));
        QDir::setCurrent(before);
        QVERIFY2(exported, qPrintable(m_window->review()->noticeBar()->text()));
        for (const QString &file : {etPlus, et, perfetto})
            QVERIFY2(QFileInfo(file).isFile() && QFileInfo(file).size() > 0, qPrintable(file));
        QVERIFY(!QFileInfo::exists(folder + QStringLiteral("/sample")));
        m_window.reset();

        // Kineto only, likewise.
        QVERIFY(QDir::setCurrent(m_dir->path()));
        openWindow(QString(), QStringLiteral("sample/seed_kineto.json"));
        dialog = openDialog();
        QVERIFY(dialog);
        dialog->pathEdit("perfetto")->setText(QStringLiteral("alone.json")); // relative: beside the trace
        QCOMPARE(dialog->outputPaths(), QStringList{folder + QStringLiteral("/alone.json")});
        QTest::mouseClick(dialog->exportButton(), Qt::LeftButton);
        const bool alone = waitForNotice(QStringLiteral("Exported"));
        QDir::setCurrent(before);
        QVERIFY(alone);
        QVERIFY(QFileInfo(folder + QStringLiteral("/alone.json")).isFile());
    }

    void anOutputThatWouldReplaceAnInputIsRefused()
    {
        const QString host = copy("export/seed_host_et.json", "seed_host_et.json");
        const QString device = copy("export/seed_kineto.json", "seed_kineto.json");
        openWindow(host, device);
        const std::string before = readFile(device.toStdString());
        ui::ExportDialog *dialog = openDialog();
        QVERIFY(dialog);
        dialog->pathEdit("perfetto")->setText(device);
        dialog->accept();
        QVERIFY(dialog->isVisible());
        QVERIFY(dialog->problemLabel()->isVisible());
        QVERIFY2(dialog->problemLabel()->text().contains(QStringLiteral("Kineto trace")),
                 qPrintable(dialog->problemLabel()->text()));
        // A folder that does not exist, named.
        dialog->pathEdit("perfetto")->setText(m_dir->filePath(QStringLiteral("no/such/out.json")));
        dialog->accept();
        QVERIFY(dialog->isVisible());
        QVERIFY2(dialog->problemLabel()->text().contains(QStringLiteral("does not exist")),
                 qPrintable(dialog->problemLabel()->text()));
        // Nothing ticked: Export is disabled and says why.
        for (const char *f : {"etplus", "et", "perfetto"})
            dialog->formatBox(f)->setChecked(false);
        QVERIFY(!dialog->exportButton()->isEnabled());
        QVERIFY(dialog->problemLabel()->text().contains(QStringLiteral("Tick a format")));
        dialog->reject();
        QTest::qWait(20);
        QCOMPARE(readFile(device.toStdString()), before);
        QVERIFY(!QFileInfo::exists(m_dir->filePath(QStringLiteral("seed_kineto.et"))));
    }

    void aFailedWriteIsNamedAndKeepsEverythingLoaded()
    {
        const QString host = copy("export/seed_host_et.json", "seed_host_et.json");
        const QString device = copy("export/seed_kineto.json", "seed_kineto.json");
        openWindow(host, device);
        const ui::DocumentPtr shown = m_window->document();
        // A read-only file where the Perfetto output goes: the write refuses to replace it.
        const QString perfetto = m_dir->filePath(QStringLiteral("seed_kineto.perfetto.json"));
        {
            QFile file(perfetto);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("keep");
        }
        QVERIFY(QFile::setPermissions(perfetto, QFileDevice::ReadOwner | QFileDevice::ReadGroup));
        ui::ExportDialog *dialog = openDialog();
        QVERIFY(dialog);
        dialog->formatBox("etplus")->setChecked(false);
        dialog->formatBox("et")->setChecked(false);
        QTest::mouseClick(dialog->exportButton(), Qt::LeftButton);
        QVERIFY(waitForNotice(QStringLiteral("Export failed")));
        ui::NoticeBar *notice = m_window->review()->noticeBar();
        QVERIFY2(notice->text().contains(perfetto), qPrintable(notice->text()));
        QVERIFY2(notice->text().contains(QStringLiteral("read-only")), qPrintable(notice->text()));
        QCOMPARE(m_window->document(), shown);
        QCOMPARE(readFile(perfetto.toStdString()), std::string("keep"));
        // "Export again…" reopens the dialog with the same choice.
        QCOMPARE(notice->actionButton()->text(), QStringLiteral("Export again…"));
        notice->actionButton()->click();
        dialog = m_window->review()->exportDialog();
        QVERIFY(dialog && dialog->isVisible());
        QCOMPARE(dialog->outputPaths(), QStringList{perfetto});
        dialog->reject();
    }

    void aToyFormatAndTargetGetTheirRowAndAreWritten()
    {
        // Registered only here (tests/toyformat/, tests/toytarget/): the dialog's rows come from the export-target
        // table, the window opens the toy format through the input-format table.
        test::ToyFormatRow toyFormat;
        test::ToyTargetRow toyTarget;
        const QString device = m_dir->filePath(QStringLiteral("rank0.trace"));
        test::writeToyTrace(test::dataPath("export/seed_kineto.json"), device.toStdString());
        openWindow(QString(), device);
        QVERIFY(m_window->document());
        ui::ExportDialog *dialog = openDialog();
        QVERIFY(dialog);
        QCOMPARE(dialog->targetNames(), (QStringList{QStringLiteral("etplus"), QStringLiteral("et"), QStringLiteral("perfetto"),
                                                     QStringLiteral("toy")}));
        QCOMPARE(dialog->formatBox("toy")->text(), QStringLiteral("Toy links"));
        QVERIFY(dialog->formatBox("toy")->isEnabled() && dialog->formatBox("toy")->isChecked()); // no host ET needed
        QVERIFY(!dialog->formatBox("et")->isEnabled());
        const QString toyPath = m_dir->filePath(QStringLiteral("rank0.toy.txt"));
        const QString perfetto = m_dir->filePath(QStringLiteral("rank0.perfetto.json"));
        QCOMPARE(dialog->pathEdit("toy")->text(), toyPath);
        QVERIFY2(dialog->noteLabel("toy")->text().contains(QStringLiteral("each GPU op and its parent CPU op")),
                 qPrintable(dialog->noteLabel("toy")->text()));
        QCOMPARE(dialog->outputPaths(), (QStringList{perfetto, toyPath}));
        QCOMPARE(dialog->request().path("toy"), toyPath.toStdString());
        QTest::mouseClick(dialog->exportButton(), Qt::LeftButton);
        QVERIFY(waitForNotice(QStringLiteral("Exported 2 files")));

        // What `linkscope export` writes for the same trace alone.
        const std::string cliToy = m_dir->filePath(QStringLiteral("cli.toy.txt")).toStdString();
        const std::string cliPerfetto = m_dir->filePath(QStringLiteral("cli.perfetto.json")).toStdString();
        std::ostringstream out, err;
        QCOMPARE(cli::runExport({"--device", device.toStdString(), "--toy", cliToy, "--perfetto", cliPerfetto}, out, err), 0);
        QVERIFY(!readFile(toyPath.toStdString()).empty());
        QVERIFY(readFile(toyPath.toStdString()) == readFile(cliToy));
        QVERIFY(readFile(perfetto.toStdString()) == readFile(cliPerfetto));
        m_window.reset();
    }

    void theDefaultNamesComeFromTheDocumentsFormat()
    {
        // A Kineto trace: its row's name suffixes (.json, then .pt.trace) and its name in the sentence.
        openWindow(QString(), copy("export/seed_kineto.json", "rank3.pt.trace.json"));
        ui::ExportDialog *dialog = openDialog();
        QVERIFY(dialog);
        QCOMPARE(dialog->pathEdit("perfetto")->text(), m_dir->filePath(QStringLiteral("rank3.perfetto.json")));
        QCOMPARE(schemeText(dialog), QStringLiteral("Default names: beside the Kineto trace, <i>base</i>.etplus.json, "
                                                    "<i>base</i>.et and <i>base</i>.perfetto.json, where <i>base</i> is its "
                                                    "name without .gz, .json and .pt.trace."));
        m_window.reset();

        // A toy trace (tests/toyformat/): its row's suffix (.trace) and name. Kineto's suffixes would keep
        // "rank3.trace" whole.
        test::ToyFormatRow toyFormat;
        const QString toy = m_dir->filePath(QStringLiteral("rank3.trace"));
        test::writeToyTrace(test::dataPath("export/seed_kineto.json"), toy.toStdString());
        openWindow(QString(), toy);
        const ui::DocumentPtr doc = m_window->document();
        QVERIFY(doc);
        QCOMPARE(doc->deviceFormat().kind, std::string(test::kToyKind));
        // A relink or a correction keeps the row.
        QCOMPARE(&ui::TraceDocument::createWithLinks(doc, doc->linksShared())->deviceFormat(), &doc->deviceFormat());
        dialog = openDialog();
        QVERIFY(dialog);
        QCOMPARE(dialog->pathEdit("perfetto")->text(), m_dir->filePath(QStringLiteral("rank3.perfetto.json")));
        QCOMPARE(dialog->outputPaths(), (QStringList{m_dir->filePath(QStringLiteral("rank3.perfetto.json"))}));
        QCOMPARE(schemeText(dialog), QStringLiteral("Default names: beside the toy trace, <i>base</i>.etplus.json, "
                                                    "<i>base</i>.et and <i>base</i>.perfetto.json, where <i>base</i> is its "
                                                    "name without .gz and .trace."));
        m_window.reset();
    }

private:
    // The sentence under the rows that says how the default names are made.
    static QString schemeText(const ui::ExportDialog *dialog)
    {
        for (const QLabel *label : dialog->findChildren<QLabel *>())
            if (label->text().startsWith(QStringLiteral("Default names:")))
                return label->text();
        return {};
    }

    QString copy(const char *from, const char *to)
    {
        const QString path = m_dir->filePath(QString::fromLatin1(to));
        std::filesystem::copy_file(test::dataPath(from), path.toStdString());
        return path;
    }

    void openWindow(const QString &host, const QString &device)
    {
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        if (host.isEmpty())
            m_window->openDevice(device);
        else
            m_window->openPair(host, device);
        if (!m_window->review()->controller()->waitUntilSettled())
            qWarning("the window did not settle");
    }

    ui::ExportDialog *openDialog()
    {
        m_window->review()->exportCorrected();
        ui::ExportDialog *dialog = m_window->review()->exportDialog();
        if (!dialog || !QTest::qWaitFor([&] { return dialog->isVisible(); }, 2000))
            return nullptr;
        return dialog;
    }

    bool waitForNotice(const QString &prefix)
    {
        ui::NoticeBar *notice = m_window->review()->noticeBar();
        const bool shown = QTest::qWaitFor([&] { return notice->isVisible() && notice->text().startsWith(prefix); }, 30000);
        if (!shown)
            qWarning("notice: %s", qPrintable(notice->text()));
        return shown;
    }

    static void screenshot(QWidget *widget, const QString &name)
    {
        const QString path = QCoreApplication::applicationDirPath() + QLatin1Char('/') + name;
        if (widget->grab().save(path))
            qInfo("wrote %s", qPrintable(path));
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ui::MainWindow> m_window;
};

QTEST_MAIN(TestExportDialog)
#include "test_exportdialog.moc"
