// The main window on the bundled sample pair (resources/samples): background loading, lanes,
// edges of a kernel to the parent the linker chose, search by name and id, policy relink, load
// errors that keep the open trace, and a font-independent check of the painted timeline.
//
// Expected values were computed independently from the sample with python3, e.g.
//   python3 -c "import json; ev=[e for e in json.load(open('resources/samples/sample_kineto.json'))['traceEvents']
//     if e.get('ph')=='X' and e.get('cat') in ('cpu_op','user_annotation','python_function','cuda_runtime',
//     'cuda_driver','kernel','gpu_memcpy','gpu_memset','gpu_user_annotation')];
//     print(sum('addmm' in e['name'].lower() for e in ev))"                      → 6
// and likewise: regex ^aten::(relu|clamp_min)$ → 4, External id 14 → 3, correlation 2290 → 2,
// Ev Idx 13 → 1, Record function id 228 → 1 (aten::addmm); lanes (pid, tid) of X events → 3 CPU
// threads and GPU streams (0,7) (0,20) (0,40) (1,7) (1,40). The true parent of each GPU op is in
// resources/samples/sample_truth.jsonl (correlation 2290's gemm → aten::addmm).

#include "docks/detailsdock.h"
#include "docks/findingsdock.h"
#include "docks/searchdock.h"
#include "docks/searchresultsmodel.h"
#include "ground/eventselection.h"
#include "ground/traceloader.h"
#include "link/linker.h"
#include "review/correctioncontroller.h"
#include "review/storypanel.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "testsupport.h"
#include "timeline/timelineview.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QToolTip>
#include <QUndoStack>
#include <QUrl>

using namespace linkscope;

namespace {

QString sample(const char *name) { return test::sampleCopy(name); }

core::EventIndex findEvent(const ui::TraceDocument &doc, const QString &name, std::int64_t correlation = core::kNoId)
{
    for (core::EventIndex e{0}; e.get() < doc.eventCount(); ++e) {
        const auto &event = doc.event(e);
        if (doc.eventName(e) == name && (correlation == core::kNoId || event.correlation == correlation)
            && doc.index().laneOf[e.get()].valid())
            return e;
    }
    return core::kNone;
}

core::LinkOptions externalIdOptions()
{
    core::LinkOptions options;
    options.policy = core::Policy::ExternalId;
    return options;
}

core::EventIndex findByCorrelation(const ui::TraceDocument &doc, core::EventCategory category, std::int64_t correlation)
{
    for (core::EventIndex e{0}; e.get() < doc.eventCount(); ++e)
        if (doc.event(e).category == category && doc.event(e).correlation == correlation)
            return e;
    return core::kNone;
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_mainwindow"));
        QSettings().remove(QStringLiteral("recentTraces")); // what earlier runs left
    }

    void init()
    {
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1600, 1000);
        m_window->show();
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openPair(sample("sample_host_et.json"), sample("sample_kineto.json"));
        QVERIFY(loaded.wait(60000));
        QVERIFY(m_window->document());
    }
    void cleanup() { m_window.reset(); }

    void sampleShowsExpectedLanes()
    {
        const ui::TraceDocument &doc = *m_window->document();
        QVERIFY(doc.host());
        const ui::TimelineLayout &layout = m_window->timeline()->layout();
        QCOMPARE(doc.index().lanes.size(), std::size_t(8));
        // GPU streams first (the default), then the CPU threads.
        QCOMPARE(layout.groups().size(), std::size_t(3));
        QVERIFY(layout.groups()[0].label.startsWith(QStringLiteral("GPU 0")));
        QCOMPARE(layout.groups()[0].lanes.size(), std::size_t(3));
        QVERIFY(layout.groups()[1].label.startsWith(QStringLiteral("GPU 1")));
        QCOMPARE(layout.groups()[1].lanes.size(), std::size_t(2));
        QCOMPARE(layout.groups()[2].label, QStringLiteral("Rank 0 · python3.10 (pid 2910249)"));
        QCOMPARE(layout.groups()[2].lanes.size(), std::size_t(3));
        QStringList labels;
        for (const auto &lane : doc.index().lanes)
            labels << QString::fromStdString(lane.label);
        QVERIFY2(labels.contains(QStringLiteral("thread 2910256 (pt_autograd_0)")), qPrintable(labels.join(u'|')));
        QVERIFY2(labels.contains(QStringLiteral("GPU 1 stream 40")), qPrintable(labels.join(u'|')));
        // 37 GPU ops (SOURCE.md), every one with a parent under the linkage rule (docs/linking.md; verify_truth.py).
        QVERIFY2(m_window->statusText().contains(QStringLiteral("37 GPU ops")), qPrintable(m_window->statusText()));
        QCOMPARE(doc.counts().gpuOps, std::size_t(37));
    }

    void kernelEdgeGoesToLinkerParent()
    {
        const ui::TraceDocument &doc = *m_window->document();
        const core::EventIndex gemm = findByCorrelation(doc, core::EventCategory::Kernel, 2290);
        QVERIFY(gemm.valid());
        const core::GpuLink *link = doc.gpuLink(gemm);
        QVERIFY(link && link->parent.valid());
        QCOMPARE(doc.eventName(link->parent), QStringLiteral("aten::addmm")); // sample_truth.jsonl
        ui::TimelineView *view = m_window->timeline();
        m_window->selection()->select(gemm);
        view->navigation().fitSelection();
        view->navigation().fitSelection(); // second F: the selection with its edges' ends
        (void)view->renderToImage(view->size());
        bool found = false;
        for (const auto &painted : view->edgeOverlay().painted()) {
            const ui::DrawEdge &edge = doc.edges()[painted.edge];
            if (edge.kind == core::EdgeKind::Parent && edge.to == gemm) {
                QCOMPARE(edge.from, link->parent);
                const QRectF parentRect = view->eventRect(link->parent);
                QVERIFY(!parentRect.isEmpty());
                QVERIFY(std::abs(painted.from.y() - parentRect.center().y()) < 1.5);
                QVERIFY(std::abs(painted.to.x() - view->eventRect(gemm).left()) < 1.0);
                found = true;
            }
        }
        QVERIFY(found);
        // The details dock names the parent and the rule.
        const QString details = m_window->detailsDock()->browser()->toPlainText();
        QVERIFY(details.contains(QStringLiteral("aten::addmm")));
        QVERIFY(details.contains(QStringLiteral("What each policy chooses")));
        QVERIFY(details.contains(QStringLiteral("\"correlation\": 2290")));
        // A short name is the heading; a kernel's full signature is bold text of the body's size,
        // so that it does not fill the docked column before the first detail.
        auto headingSize = [&](core::EventIndex e) -> int {
            m_window->selection()->select(e);
            QTextBrowser *browser = m_window->detailsDock()->browser();
            const QTextBlock first = browser->document()->firstBlock();
            if (!first.text().startsWith(doc.eventName(e)) || first.begin().fragment().charFormat().fontWeight() < QFont::Bold)
                return -100; // not the name in bold
            return first.begin().fragment().charFormat().property(QTextFormat::FontSizeAdjustment).toInt();
        };
        core::EventIndex longest = gemm;
        for (core::EventIndex e{0}; e.get() < doc.eventCount(); ++e)
            if (doc.eventName(e).size() > doc.eventName(longest).size())
                longest = e;
        QVERIFY(doc.eventName(longest).size() > ui::DetailsDock::kHeadingNameLength);
        QVERIFY(doc.eventName(link->parent).size() <= ui::DetailsDock::kHeadingNameLength);
        QVERIFY(headingSize(link->parent) > 0);
        QCOMPARE(headingSize(longest), 0);
    }

    void searchFindsByNameAndId_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("query");
        QTest::addColumn<int>("hits");
        QTest::addColumn<QString>("firstName");
        QTest::newRow("name") << int(ui::SearchMode::NameContains) << QStringLiteral("AddMM") << 6 << QString();
        QTest::newRow("regex") << int(ui::SearchMode::NameRegex) << QStringLiteral("^aten::(relu|clamp_min)$") << 4 << QString();
        QTest::newRow("External id") << int(ui::SearchMode::ExternalId) << QStringLiteral("14") << 3
                                     << QStringLiteral("aten::addmm");
        QTest::newRow("correlation") << int(ui::SearchMode::Correlation) << QStringLiteral("2290") << 2
                                     << QStringLiteral("cudaLaunchKernel");
        QTest::newRow("Ev Idx") << int(ui::SearchMode::EvIdx) << QStringLiteral("13") << 1 << QStringLiteral("aten::addmm");
        QTest::newRow("rf_id") << int(ui::SearchMode::RecordFunctionId) << QStringLiteral("228") << 1
                               << QStringLiteral("aten::addmm");
        QTest::newRow("bad regex") << int(ui::SearchMode::NameRegex) << QStringLiteral("(") << 0 << QString();
        QTest::newRow("not a number") << int(ui::SearchMode::ExternalId) << QStringLiteral("abc") << 0 << QString();
    }
    void searchFindsByNameAndId()
    {
        QFETCH(int, mode);
        QFETCH(QString, query);
        QFETCH(int, hits);
        QFETCH(QString, firstName);
        ui::SearchDock *search = m_window->searchDock();
        search->search(static_cast<ui::SearchMode>(mode), query);
        QCOMPARE(search->model()->rowCount(), hits);
        // The timeline marks the same hits.
        QCOMPARE(m_window->timeline()->highlightedEvents(), search->model()->events());
        if (hits == 0)
            return;
        // The first hit is selected; next/previous walk and wrap.
        QCOMPARE(m_window->selection()->current(), search->model()->eventAt(0));
        if (!firstName.isEmpty())
            QCOMPARE(m_window->document()->eventName(search->model()->eventAt(0)), firstName);
        search->next();
        QCOMPARE(m_window->selection()->current(), search->model()->eventAt(hits > 1 ? 1 : 0));
        search->previous();
        search->previous();
        QCOMPARE(m_window->selection()->current(), search->model()->eventAt(hits - 1));
    }

    void slashFocusesSearch()
    {
        QApplication::setActiveWindow(m_window.get());
        m_window->timeline()->setFocus();
        QTest::keyClick(m_window->timeline(), Qt::Key_Slash);
        QTRY_VERIFY(m_window->searchDock()->queryEdit()->hasFocus());
        // The query box has the docked column's whole width (not squeezed beside the mode box).
        QVERIFY(m_window->searchDock()->isVisible());
        QLineEdit *query = m_window->searchDock()->queryEdit();
        QVERIFY2(
            query->width() >= m_window->searchDock()->widget()->width() - 16,
            qPrintable(QStringLiteral("query %1 px of %2").arg(query->width()).arg(m_window->searchDock()->widget()->width())));
    }

    void shortcutSheetIsGeneratedFromTheActions()
    {
        const QString sheet = m_window->shortcutSheetHtml();
        // Every timeline binding, with all its keys and its description.
        for (const QAction *action : m_window->timeline()->keyActions()) {
            QStringList keys;
            for (const QKeySequence &key : action->shortcuts())
                keys << key.toString(QKeySequence::NativeText).toHtmlEscaped();
            const QString cell = QStringLiteral("<b>") + keys.join(QStringLiteral(", ")) + QStringLiteral("</b>");
            QVERIFY2(sheet.contains(cell), qPrintable(cell));
            QVERIFY2(sheet.contains(action->toolTip().toHtmlEscaped()), qPrintable(action->toolTip()));
        }
        // Keys of the menus' own actions (search, review) and the mouse gestures.
        for (const QString &expected : {QStringLiteral("Ctrl+R"), QStringLiteral("Ctrl+Shift+D"), QStringLiteral("F8"),
                                        QStringLiteral("Re-parent GPU op"), QStringLiteral("Shift+drag")})
            QVERIFY2(sheet.contains(expected), qPrintable(expected));
        QVERIFY(sheet.contains(QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText)));
        // The sheet itself is on F1 and on ?.
        QVERIFY2(sheet.contains(QStringLiteral("<b>F1, ?</b>")), "F1, ? not on the sheet");
        // A timeline action shown in a menu is listed once, under the timeline.
        const QString fitAll = m_window->timeline()->keyAction(ui::TimelineKey::FitAll)->toolTip();
        QCOMPARE(sheet.count(QStringLiteral("<td>") + fitAll + QStringLiteral("</td>")), 1);
    }

    void searchModelPassesModelTester()
    {
        ui::SearchResultsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto result = ui::searchEvents(*m_window->document(), ui::SearchMode::NameContains, QStringLiteral("aten"));
        QVERIFY(result.events.size() > 10);
        model.setResults(m_window->document(), result.events);
        QCOMPARE(model.rowCount(), static_cast<int>(result.events.size()));
        QCOMPARE(model.columnCount(), int(ui::SearchResultsModel::ColumnCount));
        QVERIFY(model.data(model.index(0, ui::SearchResultsModel::NameColumn)).toString().contains(QStringLiteral("aten")));
        QCOMPARE(model.data(model.index(3, 0), ui::SearchResultsModel::EventRole).toUInt(), result.events[3].value);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void policyChangeRelinksInBackground()
    {
        ui::DocumentPtr before = m_window->document();
        QSignalSpy relinked(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->setPolicy(core::Policy::ExternalId);
        QVERIFY(relinked.wait(60000));
        ui::DocumentPtr after = m_window->document();
        QVERIFY(after != before);
        QCOMPARE(after->links().policy, core::Policy::ExternalId);
        QCOMPARE(after->deviceShared(), before->deviceShared()); // not re-read
        QVERIFY(m_window->statusText().contains(QStringLiteral("external-id")));
    }

    void correctedLinkIsDrawnAsManual()
    {
        const ui::TraceDocument &doc = *m_window->document();
        const core::EventIndex gemm = findByCorrelation(doc, core::EventCategory::Kernel, 2290);
        const core::EventIndex oldParent = doc.gpuLink(gemm)->parent;
        const core::EventIndex newParent = doc.index().nestParent[oldParent.get()]; // aten::addmm's enclosing op
        QVERIFY(newParent.valid());
        auto corrected = std::make_shared<core::LinkSet>(doc.links());
        core::GpuLink &link = corrected->gpuLinks.mutate(corrected->gpuLinkOf[gemm]);
        link.parent = newParent;
        link.rule = core::ParentRule::Manual;
        QSignalSpy changed(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->selection()->select(gemm);
        m_window->setLinks(corrected);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(m_window->selection()->current(), gemm); // kept across the change
        ui::TimelineView *view = m_window->timeline();
        (void)view->renderToImage(view->size());
        bool found = false;
        for (const auto &painted : view->edgeOverlay().painted()) {
            const ui::DrawEdge &edge = m_window->document()->edges()[painted.edge];
            if (edge.kind == core::EdgeKind::Parent && edge.to == gemm) {
                QCOMPARE(edge.from, newParent);
                QCOMPARE(edge.provenance, ui::EdgeProvenance::Manual);
                found = true;
            }
        }
        QVERIFY(found);
    }

    void loadErrorKeepsOpenTrace()
    {
        QTemporaryDir dir;
        const QString broken = dir.filePath(QStringLiteral("broken_kineto.json"));
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"schemaVersion\": 1, \"traceEvents\": [ {\"ph\": \"X\", \"name\": ");
        file.close();
        ui::DocumentPtr before = m_window->document();
        QSignalSpy failed(m_window.get(), &ui::MainWindow::loadFailed);
        m_window->openDevice(broken);
        QVERIFY(failed.wait(30000));
        const QString message = failed.takeFirst().at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("broken_kineto.json")), qPrintable(message));
        QCOMPARE(m_window->document(), before);
        // A failed open is not offered again in Open Recent.
        for (const QString &entry : QSettings().value(QStringLiteral("recentTraces")).toStringList())
            QVERIFY2(!entry.contains(QStringLiteral("broken_kineto.json")), qPrintable(entry));
        // Close the non-modal error box.
        for (QWidget *w : QApplication::topLevelWidgets())
            if (w->inherits("QMessageBox"))
                w->close();
    }

    void cancelKeepsOpenTrace()
    {
        ui::DocumentPtr before = m_window->document();
        QSignalSpy cancelled(m_window->loader(), &ui::TraceLoader::cancelled);
        m_window->openPair(sample("sample_host_et.json"), sample("sample_kineto.json"));
        m_window->loader()->cancel();
        QCOMPARE(cancelled.count(), 1);
        m_window->loader()->waitForIdle();
        QTest::qWait(50); // any stale queued result is delivered (and must be dropped) here
        QCOMPARE(m_window->document(), before);
    }

    void swappedPairOrderLoads()
    {
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openFiles({sample("sample_kineto.json"), sample("sample_host_et.json")});
        QVERIFY(loaded.wait(60000));
        QVERIFY(m_window->document()->host());
        QVERIFY(m_window->document()->devicePath().endsWith(QStringLiteral("sample_kineto.json")));
    }

    void dropOfTwoFilesOpensThePair()
    {
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(sample("sample_kineto.json")), QUrl::fromLocalFile(sample("sample_host_et.json"))});
        QDragEnterEvent enter(QPoint(400, 400), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(m_window.get(), &enter);
        QVERIFY(enter.isAccepted());
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        QDropEvent drop(QPointF(400, 400), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(m_window.get(), &drop);
        QVERIFY(loaded.wait(60000));
        QVERIFY(m_window->document()->host());
        // Three files are refused at the door.
        QMimeData three;
        three.setUrls({QUrl::fromLocalFile(QStringLiteral("/a")), QUrl::fromLocalFile(QStringLiteral("/b")),
                       QUrl::fromLocalFile(QStringLiteral("/c"))});
        QDragEnterEvent enterThree(QPoint(400, 400), Qt::CopyAction, &three, Qt::LeftButton, Qt::NoModifier);
        enterThree.setAccepted(false);
        QApplication::sendEvent(m_window.get(), &enterThree);
        QVERIFY(!enterThree.isAccepted());
    }

    void recentFilesRemembered()
    {
        const QStringList recent = QSettings().value(QStringLiteral("recentTraces")).toStringList();
        QVERIFY(!recent.isEmpty());
        QCOMPARE(recent.front(), QFileInfo(sample("sample_host_et.json")).absoluteFilePath() + QLatin1Char('\n')
                                     + QFileInfo(sample("sample_kineto.json")).absoluteFilePath());
        // The menu names both files and the folder they are in.
        QMenu *menu = nullptr;
        for (QMenu *m : m_window->findChildren<QMenu *>())
            if (m->title().contains(QStringLiteral("recent"), Qt::CaseInsensitive))
                menu = m;
        QVERIFY(menu);
        QMetaObject::invokeMethod(menu, "aboutToShow");
        QVERIFY(!menu->actions().isEmpty());
        const QString text = menu->actions().front()->text();
        QVERIFY2(text.startsWith(QStringLiteral("sample_host_et.json + sample_kineto.json")), qPrintable(text));
        QVERIFY2(text.contains(QFileInfo(sample("sample_kineto.json")).dir().dirName()), qPrintable(text)); // its folder
    }

    void tooltipNamesEventAndParent()
    {
        const ui::TraceDocument &doc = *m_window->document();
        const core::EventIndex gemm = findByCorrelation(doc, core::EventCategory::Kernel, 2290);
        ui::TimelineView *view = m_window->timeline();
        m_window->selection()->select(gemm);
        view->navigation().fitSelection();
        const QPoint at = view->eventRect(gemm).center().toPoint();
        QHelpEvent help(QEvent::ToolTip, at, view->mapToGlobal(at));
        QApplication::sendEvent(view, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains(QStringLiteral("aten::addmm")), qPrintable(QToolTip::text()));
        QToolTip::hideText();
    }

    void storyOnOpenComparesWithChakra()
    {
        // On open, above the Findings: what Chakra 1.0 and the pre-#185 rule would do with the sample
        // (tests/test_chakracompare: 3 NCCL kernels on record_param_comms, 5 graph kernels and 1 memset
        // dropped), and a click on a count shows those GPU ops' findings and lists them.
        QVERIFY(m_window->review()->controller()->waitUntilSettled());
        ui::FindingsDock *findings = m_window->review()->findingsDock();
        ui::StoryPanel *story = findings->storyPanel();
        QVERIFY(story->isVisible());
        QVERIFY(story->comparison());
        const std::vector<core::EventIndex> nccl = story->comparison()->chakra10.collectiveOnRecordParamComms;
        QCOMPARE(nccl.size(), std::size_t(3));
        const QString text = story->plainText();
        QVERIFY2(text.contains(QStringLiteral("Chakra 1.0 (external-id): 4 GPU ops on another parent "
                                              "(3 NCCL/RCCL kernels on record_param_comms) · 6 dropped "
                                              "(1 memset, 5 launched by an API Chakra does not know) · 1 of 7 sync edges lost")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("before Chakra PR #185 (ev-idx):")), qPrintable(text));
        QVERIFY(story->notices().empty()); // every rule applies to the sample
        // Its wrapped lines all shown, and no taller than they need at its width (a wrapped label's
        // own hint, its height at its narrowest, held the dock tall).
        QCoreApplication::processEvents();
        QVERIFY2(story->label()->height() >= story->label()->heightForWidth(story->label()->width()),
                 qPrintable(QStringLiteral("label %1 px for text of %2 px")
                                .arg(story->label()->height())
                                .arg(story->label()->heightForWidth(story->label()->width()))));
        QVERIFY(story->minimumSizeHint().height() <= story->heightForWidth(story->width()) + 1);

        const int all = findings->filter()->rowCount();
        QVERIFY(all > 0);
        emit story->label()->linkActivated(QStringLiteral("chakra10:collective"));
        const int shown = findings->filter()->rowCount();
        QVERIFY(shown > 0 && shown < all);
        for (int row = 0; row < shown; ++row) {
            const core::EventIndex event(static_cast<std::uint32_t>(
                findings->filter()->data(findings->filter()->index(row, 0), ui::FindingsModel::SubjectEventRole).toULongLong()));
            QVERIFY(std::binary_search(nccl.begin(), nccl.end(), event));
        }
        QVERIFY(findings->eventFilterLabel()->isVisibleTo(findings));
        QVERIFY2(findings->eventFilterLabel()->text().contains(QStringLiteral("3 GPU ops")),
                 qPrintable(findings->eventFilterLabel()->text()));
        // The search results list every one of them, findings or not.
        QCOMPARE(m_window->searchDock()->model()->rowCount(), 3);
        QTRY_VERIFY(story->label()->height() >= story->label()->heightForWidth(story->label()->width()));
        m_window->grab().toImage().save(linkscope::test::buildPath("/test_mainwindow_story.png"));

        emit story->label()->linkActivated(QStringLiteral("chakra10:dropped"));
        QCOMPARE(m_window->searchDock()->model()->rowCount(), 6);
        findings->clearEventFilter();
        QCOMPARE(findings->filter()->rowCount(), all);
        QVERIFY(!findings->eventFilterLabel()->isVisibleTo(findings));

        // Compared against the links shown: an NCCL kernel dragged onto record_param_comms by hand is
        // where Chakra 1.0 puts it, so one fewer differs.
        const ui::DocumentPtr opened = m_window->document();
        const core::LinkSet head = core::linkWithIndex(opened->device(), opened->host(), opened->links().index,
                                                       externalIdOptions());
        const core::EventIndex comms = head.gpuLinks[head.gpuLinkOf[nccl[0]]].parent;
        QVERIFY(m_window->review()->controller()->reparent(nccl[0], comms));
        QVERIFY(m_window->review()->controller()->waitUntilSettled());
        QCOMPARE(story->comparison()->chakra10.collectiveOnRecordParamComms.size(), std::size_t(2));
        QVERIFY2(story->plainText().contains(QStringLiteral("3 GPU ops on another parent (2 NCCL/RCCL kernels")),
                 qPrintable(story->plainText()));
        // Undone (the sample copy is shared by the tests that follow, and so is its sidecar).
        m_window->review()->controller()->undoStack()->undo();
        QVERIFY(m_window->review()->controller()->waitUntilSettled());
        QCOMPARE(story->comparison()->chakra10.collectiveOnRecordParamComms.size(), std::size_t(3));
    }

    void storyOnOpenSaysWhenAPolicyCannotApply()
    {
        // megatron rank 0 (bundled): its External ids equal its correlations, so Chakra 1.0's rule falls
        // back to the latest-starting op for all 777 links (tests/test_policynotices). The panel says so.
        const std::string dir = "astrasim_megatron_tp8_8rank_pair/";
        LINKSCOPE_REQUIRE_TRACES(dir + "megatron_et_0.json.gz", dir + "megatron_kineto_0.json.gz");
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openPair(QString::fromStdString(test::tracePath(dir + "megatron_et_0.json.gz")),
                           QString::fromStdString(test::tracePath(dir + "megatron_kineto_0.json.gz")));
        QVERIFY(loaded.wait(60000));
        QVERIFY(m_window->review()->controller()->waitUntilSettled());
        ui::StoryPanel *story = m_window->review()->findingsDock()->storyPanel();
        QCOMPARE(story->notices().size(), std::size_t(1));
        QCOMPARE(story->notices()[0].kind, core::NoticeKind::ExternalIdIsCorrelation);
        const QString text = story->plainText();
        QVERIFY2(text.contains(QStringLiteral("falls back to the latest-starting op for all 777 links")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("[show 777]")), qPrintable(text));
        // Not clipped once laid out: the label is as tall as its wrapped text needs.
        QTRY_VERIFY(story->label()->height() >= story->label()->heightForWidth(story->label()->width()));
        m_window->grab().toImage().save(linkscope::test::buildPath("/test_mainwindow_megatron_story.png"));
        emit story->label()->linkActivated(QStringLiteral("notice:0"));
        QCOMPARE(m_window->searchDock()->model()->rowCount(), 777);
    }

    void screenshotColoursAtKnownPositions()
    {
        const ui::TraceDocument &doc = *m_window->document();
        ui::TimelineView *view = m_window->timeline();
        view->state().fitAll();
        const QImage shot = view->grab().toImage();
        const QString out = linkscope::test::buildPath("/test_mainwindow_sample.png");
        shot.save(out); // for a human to look at; the checks below do not depend on fonts
        // Lanes: one header row per group, one row per nesting depth of each lane.
        int laneRows = 0;
        for (const auto &row : view->layout().rows())
            laneRows += row.kind == ui::LayoutRow::Kind::LaneRow;
        int expectedRows = 0;
        for (const auto &rows : doc.laneRows())
            expectedRows += rows.rowCount();
        QCOMPARE(laneRows, expectedRows);
        auto colourInside = [&](core::EventIndex e) {
            const QRectF r = view->eventRect(e);
            return shot.pixelColor(QPoint(static_cast<int>(r.left()) + 1, static_cast<int>(r.top()) + 1));
        };
        const core::EventIndex gemm = findByCorrelation(doc, core::EventCategory::Kernel, 2290);
        QCOMPARE(colourInside(gemm), ui::eventColor(ui::EventStyle::Kernel));
        core::EventIndex nccl = core::kNone;
        for (core::EventIndex e{0}; e.get() < doc.eventCount() && nccl.isNone(); ++e)
            if (doc.style(e) == ui::EventStyle::NcclKernel)
                nccl = e;
        QVERIFY(nccl.valid());
        // The NCCL kernel is drawn inside its nccl:* annotation (same extent: the GPU op is the
        // leaf), in the last stream's lowest row: scrolled into view for its check.
        const int offsetBefore = view->verticalOffset();
        if (view->eventRect(nccl).bottom() >= shot.height()) {
            view->setVerticalOffset(offsetBefore + static_cast<int>(view->eventRect(nccl).bottom()) - shot.height() + 20);
            const QImage scrolled = view->grab().toImage();
            const QRectF r = view->eventRect(nccl);
            QVERIFY2(r.bottom() < scrolled.height(), "the NCCL kernel's row can be scrolled into view");
            QCOMPARE(scrolled.pixelColor(QPoint(static_cast<int>(r.left()) + 1, static_cast<int>(r.top()) + 1)),
                     ui::eventColor(ui::EventStyle::NcclKernel));
            view->setVerticalOffset(offsetBefore);
        } else {
            QCOMPARE(colourInside(nccl), ui::eventColor(ui::EventStyle::NcclKernel));
        }
        const core::EventIndex ncclAnnotation = doc.index().nestParent[nccl.get()];
        QVERIFY2(ncclAnnotation.valid(), "the NCCL kernel nests in its annotation");
        QCOMPARE(doc.device().event(ncclAnnotation).category, core::EventCategory::GpuUserAnnotation);
        const core::EventIndex step = findEvent(doc, QStringLiteral("ProfilerStep#3"));
        if (step.valid())
            QCOMPARE(colourInside(step), ui::eventColor(ui::EventStyle::UserAnnotation));
        // Group header bands span the header column.
        const auto &header = view->layout().rows()[view->layout().headerRowOfGroup(1)];
        const QRect content = view->contentRect();
        QCOMPARE(shot.pixelColor(content.left() + 5, content.top() + header.y + 2), QColor(0xdd, 0xe2, 0xea));

        // The NCCL kernel selected, with every edge in view: a second picture, and its parent edge is drawn.
        m_window->selection()->select(nccl);
        view->setShowAllEdgesInView(true);
        view->state().fitAll();
        view->grab().toImage().save(linkscope::test::buildPath("/test_mainwindow_sample_edges.png"));
        QVERIFY(view->edgeOverlay().painted().size() > 1);
        bool parentDrawn = false;
        for (const auto &painted : view->edgeOverlay().painted()) {
            const ui::DrawEdge &edge = doc.edges()[painted.edge];
            parentDrawn = parentDrawn || (edge.kind == core::EdgeKind::Parent && edge.to == nccl);
        }
        QVERIFY(parentDrawn);
    }

private:
    std::unique_ptr<ui::MainWindow> m_window;
};

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
