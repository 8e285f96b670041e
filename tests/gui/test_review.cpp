// Reviewing and correcting links in the GUI, on the seed fixture pair (tests/data/export: the
// worked example of docs/linking.md, three kernels): the Findings and Edits models under QAbstractItemModelTester, the findings
// table in step with the timeline selection, a correction through the finding's suggestion with
// undo / redo, the sidecar written after every edit and re-applied on reopen (under the policy it
// was made with), stale edits listed, a sidecar of other traces left untouched, the policy-change
// report, and the GUI export equal to `linkscope export --corrections`.
//
// Fixture facts (python3 over tests/data/export/seed_kineto.json): GPU ops are
// ampere_sgemm_64x64_nn (correlation 100), ncclDevKernel_AllGather_RING_LL (5000, launched by
// cuLaunchKernelEx inside nccl:_all_gather_base inside record_param_comms, External id 17 = that of
// record_param_comms) and vectorized_elementwise_kernel<add> (5001): so external-id and nesting
// disagree on exactly one of the three (docs/linking.md, The linkage rule).

#include "commands/commands.h"
#include "docks/editsdock.h"
#include "docks/findingsdock.h"
#include "docks/searchdock.h"
#include "docks/searchresultsmodel.h"
#include "ground/eventselection.h"
#include "ground/noticebar.h"
#include "review/correctioncontroller.h"
#include "review/undocommands.h"
#include "reviewsupport.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "testsupport.h"
#include "timeline/timelineview.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QUndoStack>

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace linkscope;

namespace {

using linkscope::test::eventNamed;
using linkscope::test::expectFindingsRowsDerivedInFull;
using linkscope::test::readFile;

core::EventIndex parentShown(const ui::MainWindow &window, core::EventIndex gpuEvent)
{
    const core::GpuLink *link = window.document()->gpuLink(gpuEvent);
    return link ? link->parent : core::kNone;
}

int findingRow(ui::FindingsDock *dock, core::FindingKind kind)
{
    for (int row = 0; row < dock->filter()->rowCount(); ++row)
        if (dock->filter()->data(dock->filter()->index(row, 0), ui::FindingsModel::KindRole).toInt() == static_cast<int>(kind))
            return row;
    return -1;
}

} // namespace

class TestReview : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void correctUndoRedoAndReopen();
    void longLabelsAreElidedInUndoActions();
    void findingsFollowTheSelection();
    void findingsDescribeTheCorrectedState();
    void reparentByDraggingOnTheTimeline();
    void contextMenuCorrectsEventsAndEdges();
    void reparentDragShowsTargetAndEscCancels();
    void reparentOntoAnotherProcessIsRefused();
    void policyChangeReportsChangedLinks();
    void staleEditsAreListed();
    void sidecarOfOtherTracesIsLeftUntouched();
    void guiExportEqualsCliExport();

private:
    std::unique_ptr<ui::MainWindow> open();

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_host, m_device;
    std::string m_sidecar;
};

void TestReview::init()
{
    QVERIFY(test::copySeedPair(m_dir, m_host, m_device));
    m_sidecar = core::defaultSidecarPath(m_device.toStdString());
}

void TestReview::cleanup() { m_dir.reset(); }

std::unique_ptr<ui::MainWindow> TestReview::open()
{
    auto window = std::make_unique<ui::MainWindow>();
    window->resize(1200, 800);
    window->openPair(m_host, m_device);
    if (!window->review()->controller()->waitUntilSettled())
        qWarning("the window did not settle");
    return window;
}

void TestReview::longLabelsAreElidedInUndoActions()
{
    // A label carrying a whole templated kernel signature (hundreds of characters).
    const QString signature = QStringLiteral("Detach void at::native::vectorized_elementwise_kernel<4, "
                                             "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >"
                                             "(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)");
    QVERIFY(signature.size() > 150);
    ui::CorrectionCommand command(nullptr, core::LogEntry{signature.toStdString(), {}});
    QCOMPARE(command.text(), signature); // the Edits list and QUndoView show all of it
    QVERIFY(command.actionText().size() <= 60);
    QVERIFY(command.actionText().startsWith(QStringLiteral("Detach void at::native::")));
    QVERIFY(command.actionText().endsWith(QStringLiteral("char*, 3>)")));
    ui::CorrectionCommand shortOne(nullptr, core::LogEntry{"Detach gemm", {}});
    QCOMPARE(shortOne.actionText(), QStringLiteral("Detach gemm"));
    // QUndoStack::createUndoAction labels the Undo / Redo actions with actionText().
}

void TestReview::correctUndoRedoAndReopen()
{
    {
        auto window = open();
        ui::CorrectionController *controller = window->review()->controller();
        ui::FindingsDock *findings = window->review()->findingsDock();
        ui::EditsDock *edits = window->review()->editsDock();
        QAbstractItemModelTester findingsTester(findings->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester filterTester(findings->filter(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester treeTester(findings->tree(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester editsTester(edits->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(controller->session()->sidecar().state, core::SidecarState::None);

        window->setPolicy(core::Policy::ExternalId);
        QVERIFY(controller->waitUntilSettled());
        const ui::DocumentPtr shown = window->document(); // kept alive while its events are looked up
        const ui::TraceDocument &doc = *shown;
        const core::EventIndex kernel = eventNamed(doc, QStringLiteral("ncclDevKernel"), core::EventCategory::Kernel);
        const core::EventIndex annotation = eventNamed(doc, QStringLiteral("nccl:_all_gather_base"),
                                                       core::EventCategory::UserAnnotation);
        const core::EventIndex comms = eventNamed(doc, QStringLiteral("record_param_comms"), core::EventCategory::CpuOp);
        QCOMPARE(parentShown(*window, kernel), comms); // Chakra HEAD's choice (docs/linking.md, Policies)

        // The NCCL finding, chosen in the dock: its suggestion is nccl:_all_gather_base.
        const int row = findingRow(findings, core::FindingKind::NcclParentIsRecordParamComms);
        QVERIFY(row >= 0);
        QVERIFY(findings->setCurrentFinding(findings->filter()->mapToSource(findings->filter()->index(row, 0)).row()));
        QCOMPARE(window->selection()->current(), kernel); // dock → timeline
        QCOMPARE(findings->model()->statusOf(findings->currentFinding()), QStringLiteral("open"));
        findings->applySuggestion();
        QVERIFY(controller->waitUntilSettled());
        QCOMPARE(parentShown(*window, kernel), annotation);
        QCOMPARE(window->document()->gpuLink(kernel)->rule, core::ParentRule::Manual);
        // The corrected links no longer have the finding: it stays listed, as resolved, still current.
        QCOMPARE(findings->model()->statusOf(findings->currentFinding()), QStringLiteral("resolved"));
        QCOMPARE(findings->model()->finding(findings->currentFinding()).kind, core::FindingKind::NcclParentIsRecordParamComms);
        QCOMPARE(edits->model()->rowCount(), 1);
        QCOMPARE(edits->model()->data(edits->model()->index(0, ui::EditsModel::Status)).toString(), QStringLiteral("applied"));
        // Saved at once, with the policy in force.
        core::Sidecar saved = core::loadSidecar(m_sidecar);
        QCOMPARE(saved.log.entries.size(), std::size_t(1));
        QCOMPARE(saved.policy, core::Policy::ExternalId);

        // Undo / redo round trip (Ctrl+Z / Ctrl+Shift+Z walk the same stack).
        controller->undoStack()->undo();
        QVERIFY(controller->waitUntilSettled());
        QCOMPARE(parentShown(*window, kernel), comms);
        QCOMPARE(edits->model()->rowCount(), 0);
        QVERIFY(core::loadSidecar(m_sidecar).log.entries.empty());
        controller->undoStack()->redo();
        QVERIFY(controller->waitUntilSettled());
        QCOMPARE(parentShown(*window, kernel), annotation);
        QCOMPARE(core::loadSidecar(m_sidecar).log.entries.size(), std::size_t(1));

        // A second step on another op, then the review state of a finding.
        const core::EventIndex gemm = eventNamed(doc, QStringLiteral("ampere_sgemm"), core::EventCategory::Kernel);
        QVERIFY(controller->detach(gemm));
        QVERIFY(controller->waitUntilSettled());
        QCOMPARE(parentShown(*window, gemm), core::kNone);
        QCOMPARE(window->document()->gpuLink(gemm)->orphan, core::OrphanReason::Detached);
        expectFindingsRowsDerivedInFull(*findings->model(), *window->document(), *controller->linkedDocument());
        if (QTest::currentTestFailed())
            return;
        // An open finding (the resolved NCCL one needs no review), found again by kind and subject.
        int open = -1;
        for (int f = 0; f < findings->model()->rowCount() && open < 0; ++f)
            if (findings->model()->statusOf(f) == QStringLiteral("open"))
                open = f;
        QVERIFY(open >= 0);
        const core::FindingRef reviewedRef = core::refOf(findings->model()->finding(open));
        QVERIFY(controller->markReviewed(findings->model()->finding(open), "checked"));
        QVERIFY(controller->waitUntilSettled());
        QCOMPARE(findings->model()->statusOf(findings->model()->rowOf(reviewedRef)), QStringLiteral("reviewed"));
        QCOMPARE(core::loadSidecar(m_sidecar).log.entries.size(), std::size_t(3));
        QCOMPARE(controller->undoStack()->count(), 3);
    }

    // Reopen: the sidecar's policy (external-id) comes back and so do the corrected links.
    auto window = open();
    ui::CorrectionController *controller = window->review()->controller();
    QCOMPARE(controller->session()->sidecar().state, core::SidecarState::Loaded);
    QCOMPARE(window->policy(), core::Policy::ExternalId);
    const ui::DocumentPtr shown = window->document(); // kept alive while its events are looked up
    const ui::TraceDocument &doc = *shown;
    const core::EventIndex kernel = eventNamed(doc, QStringLiteral("ncclDevKernel"), core::EventCategory::Kernel);
    const core::EventIndex annotation = eventNamed(doc, QStringLiteral("nccl:_all_gather_base"),
                                                   core::EventCategory::UserAnnotation);
    const core::EventIndex gemm = eventNamed(doc, QStringLiteral("ampere_sgemm"), core::EventCategory::Kernel);
    QCOMPARE(parentShown(*window, kernel), annotation);
    QCOMPARE(parentShown(*window, gemm), core::kNone);
    QCOMPARE(window->review()->editsDock()->model()->rowCount(), 3);
    // Opened under the sidecar's policy (linked once, not relinked): said in the status bar, not in a
    // dialog, naming the window's policy it replaced.
    QVERIFY(window->findChildren<QMessageBox *>().isEmpty());
    const QString said = window->statusBar()->currentMessage();
    QVERIFY2(said.contains(QStringLiteral("made under policy external-id: opened under it (the window's policy was nesting)")),
             qPrintable(said));
    // Loaded steps are not on this session's undo stack, but any of them can be removed (undoably).
    QCOMPARE(controller->undoStack()->count(), 0);
    QVERIFY(controller->removeEntry(1)); // the detach
    QVERIFY(controller->waitUntilSettled());
    QVERIFY(parentShown(*window, gemm).valid());
    QCOMPARE(core::loadSidecar(m_sidecar).log.entries.size(), std::size_t(2));
    controller->undoStack()->undo();
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(parentShown(*window, gemm), core::kNone);
    QCOMPARE(core::loadSidecar(m_sidecar).log.entries.size(), std::size_t(3));
}

void TestReview::findingsDescribeTheCorrectedState()
{
    // Under nesting the NCCL kernel hangs off nccl:_all_gather_base: no NCCL finding. Dragged by hand
    // onto record_param_comms it raises one (open, with the suggestion back); applying that clears it.
    auto window = open();
    ui::CorrectionController *controller = window->review()->controller();
    ui::FindingsDock *findings = window->review()->findingsDock();
    QAbstractItemModelTester tester(findings->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester treeTester(findings->tree(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const ui::DocumentPtr shown = window->document();
    const core::EventIndex kernel = eventNamed(*shown, QStringLiteral("ncclDevKernel"), core::EventCategory::Kernel);
    const core::EventIndex annotation = eventNamed(*shown, QStringLiteral("nccl:_all_gather_base"),
                                                   core::EventCategory::UserAnnotation);
    const core::EventIndex comms = eventNamed(*shown, QStringLiteral("record_param_comms"), core::EventCategory::CpuOp);
    QCOMPARE(parentShown(*window, kernel), annotation);
    QCOMPARE(findingRow(findings, core::FindingKind::NcclParentIsRecordParamComms), -1);

    QVERIFY(controller->reparent(kernel, comms));
    QVERIFY(controller->waitUntilSettled());
    const int raised = findingRow(findings, core::FindingKind::NcclParentIsRecordParamComms);
    QVERIFY(raised >= 0);
    QVERIFY(findings->setCurrentFinding(findings->filter()->mapToSource(findings->filter()->index(raised, 0)).row()));
    const int f = findings->currentFinding();
    QCOMPARE(findings->model()->statusOf(f), QStringLiteral("open")); // made by the edit, not the linker's
    QCOMPARE(findings->model()->finding(f).event, kernel);
    QCOMPARE(findings->model()->finding(f).suggestedParent, annotation);
    QVERIFY(findings->applyButton()->isEnabled());
    findings->applySuggestion();
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(parentShown(*window, kernel), annotation);
    // Not the linker's finding, so not kept as resolved: gone.
    QCOMPARE(findingRow(findings, core::FindingKind::NcclParentIsRecordParamComms), -1);

    // Under external-id the linker raises it; applying its suggestion resolves it. The resolved row stays,
    // its suggestion can no longer be applied, and applying to the kind finds nothing left to do.
    // (Both edits undone first: a policy change re-applies the corrections.)
    controller->undoStack()->undo();
    controller->undoStack()->undo();
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(controller->session()->log().entries.size(), std::size_t(0));
    window->setPolicy(core::Policy::ExternalId);
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(parentShown(*window, kernel), comms);
    const int linkerRow = findingRow(findings, core::FindingKind::NcclParentIsRecordParamComms);
    QVERIFY(linkerRow >= 0);
    QVERIFY(findings->setCurrentFinding(findings->filter()->mapToSource(findings->filter()->index(linkerRow, 0)).row()));
    QVERIFY(findings->applyButton()->isEnabled());
    const std::size_t before = controller->session()->log().entries.size();
    findings->applySuggestion();
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(controller->session()->log().entries.size(), before + 1);
    QCOMPARE(findings->model()->statusOf(findings->currentFinding()), QStringLiteral("resolved"));
    QVERIFY(!findings->applyButton()->isEnabled());
    QVERIFY(!findings->applyAllButton()->isEnabled());
    window->resize(1400, 900);
    window->show();
    QTRY_VERIFY(findings->isVisible());
    findings->grab().toImage().save(linkscope::test::buildPath("/test_review_resolved.png"));
    QVERIFY(!controller->applySuggestionToKind(core::FindingKind::NcclParentIsRecordParamComms));
    findings->applySuggestion(); // a resolved finding: nothing happens
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(controller->session()->log().entries.size(), before + 1);
    // "Open only" hides it.
    findings->filter()->setOpenOnly(true);
    QCOMPARE(findingRow(findings, core::FindingKind::NcclParentIsRecordParamComms), -1);
    findings->filter()->setOpenOnly(false);
    // Undo: the linker's finding is open again.
    controller->undoStack()->undo();
    QVERIFY(controller->waitUntilSettled());
    const int reopened = findingRow(findings, core::FindingKind::NcclParentIsRecordParamComms);
    QVERIFY(reopened >= 0);
    QCOMPARE(findings->model()->statusOf(
                 findings->filter()->data(findings->filter()->index(reopened, 0), ui::FindingsModel::FindingRole).toInt()),
             QStringLiteral("open"));
}

void TestReview::findingsFollowTheSelection()
{
    auto window = open();
    ui::FindingsDock *findings = window->review()->findingsDock();
    QVERIFY(findings->model()->rowCount() > 0);
    // Counts per kind in the kind filter, "All kinds (N)" first.
    QCOMPARE(findings->kindBox()->itemText(0), QStringLiteral("All kinds (%1)").arg(findings->model()->rowCount()));
    // Timeline → dock: selecting a finding's subject makes its row current.
    // Under nesting the fixture has only host-side findings; external-id adds the NCCL one.
    window->setPolicy(core::Policy::ExternalId);
    QVERIFY(window->review()->controller()->waitUntilSettled());
    int withEvent = -1, withoutEvent = -1;
    for (int r = 0; r < findings->model()->rowCount(); ++r)
        (findings->model()->subjectEvent(r).valid() ? withEvent : withoutEvent) = r;
    QVERIFY(withEvent >= 0 && withoutEvent >= 0);
    const core::EventIndex subject = findings->model()->subjectEvent(withEvent);
    QVERIFY(findings->setCurrentFinding(withoutEvent));
    QCOMPARE(findings->currentFinding(), withoutEvent);
    window->selection()->select(subject);
    QCOMPARE(findings->model()->subjectEvent(findings->currentFinding()), subject);
    // Next / previous walk the filtered findings in tree order, folded ones included, and move the
    // selection with them (wrapping around).
    std::vector<int> order;
    for (const QModelIndex &index : findings->tree()->findingIndexes())
        order.push_back(findings->tree()->findingRow(index));
    QCOMPARE(order.size(), std::size_t(findings->filter()->rowCount()));
    QVERIFY(findings->setCurrentFinding(order.front()));
    findings->next();
    QCOMPARE(findings->currentFinding(), order[order.size() > 1 ? 1 : 0]);
    findings->previous();
    findings->previous();
    QCOMPARE(findings->currentFinding(), order.back());
    const core::EventIndex expected = findings->model()->subjectEvent(findings->currentFinding());
    if (expected.valid())
        QCOMPARE(window->selection()->current(), expected);
    // Filtering by kind keeps only that kind.
    findings->kindBox()->setCurrentIndex(1);
    const int kind = findings->kindBox()->currentData().toInt();
    for (int row = 0; row < findings->filter()->rowCount(); ++row)
        QCOMPARE(findings->filter()->data(findings->filter()->index(row, 0), ui::FindingsModel::KindRole).toInt(), kind);
}

void TestReview::reparentByDraggingOnTheTimeline()
{
    auto window = open();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    ui::CorrectionController *controller = window->review()->controller();
    const ui::DocumentPtr shown = window->document();
    const core::EventIndex kernel = eventNamed(*shown, QStringLiteral("ncclDevKernel"), core::EventCategory::Kernel);
    const core::EventIndex comms = eventNamed(*shown, QStringLiteral("record_param_comms"), core::EventCategory::CpuOp);
    const core::EventIndex gemm = eventNamed(*shown, QStringLiteral("ampere_sgemm"), core::EventCategory::Kernel);
    // Candidates: the CPU ops enclosing the launch (cuLaunchKernelEx at 120 µs lies in
    // nccl:_all_gather_base [110,140) ⊂ record_param_comms [100,150) ⊂ c10d::allgather_ [90,160)),
    // innermost first. By id: rf_id 12 / Ev Idx 2 are record_param_comms in the fixture.
    const core::EventIndex annotation = eventNamed(*shown, QStringLiteral("nccl:_all_gather_base"),
                                                   core::EventCategory::UserAnnotation);
    const core::EventIndex allgather = eventNamed(*shown, QStringLiteral("c10d::allgather_"), core::EventCategory::CpuOp);
    QCOMPARE(controller->parentCandidates(kernel), (std::vector<core::EventIndex>{annotation, comms, allgather}));
    QCOMPARE(controller->findCpuOp(QStringLiteral("rf_id 12")), comms);
    QCOMPARE(controller->findCpuOp(QStringLiteral("ev_idx 2")), comms);
    QCOMPARE(controller->findCpuOp(QStringLiteral("12")), comms);
    QCOMPARE(controller->findCpuOp(QStringLiteral("#%1").arg(allgather.value)), allgather);
    QCOMPARE(controller->findCpuOp(QStringLiteral("#%1").arg(kernel.value)), core::kNone); // not a CPU op
    QCOMPARE(controller->findCpuOp(QStringLiteral("rf_id 999")), core::kNone);

    ui::TimelineView *timeline = window->timeline();
    timeline->state().fitAll();
    const QRectF from = timeline->eventRect(kernel);
    const QRectF to = timeline->eventRect(comms);
    const QRectF notCpu = timeline->eventRect(gemm);
    QVERIFY(!from.isEmpty() && !to.isEmpty() && !notCpu.isEmpty());
    QCOMPARE(timeline->eventAt(from.center().toPoint()), kernel);
    QCOMPARE(parentShown(*window, kernel), annotation);

    // Ctrl+drag from the kernel onto a kernel: refused, nothing logged.
    QTest::mousePress(timeline, Qt::LeftButton, Qt::ControlModifier, from.center().toPoint());
    QTest::mouseMove(timeline, notCpu.center().toPoint());
    QTest::mouseRelease(timeline, Qt::LeftButton, Qt::ControlModifier, notCpu.center().toPoint());
    QCOMPARE(controller->undoStack()->count(), 0);
    // Onto record_param_comms: re-parented, one undoable step.
    QTest::mousePress(timeline, Qt::LeftButton, Qt::ControlModifier, from.center().toPoint());
    QTest::mouseMove(timeline, to.center().toPoint());
    QTest::mouseRelease(timeline, Qt::LeftButton, Qt::ControlModifier, to.center().toPoint());
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(controller->undoStack()->count(), 1);
    QCOMPARE(parentShown(*window, kernel), comms);
    QCOMPARE(window->selection()->current(), kernel);
}

void TestReview::contextMenuCorrectsEventsAndEdges()
{
    auto window = open();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    ui::CorrectionController *controller = window->review()->controller();
    ui::TimelineView *timeline = window->timeline();
    const ui::DocumentPtr shown = window->document();
    const core::EventIndex kernel = eventNamed(*shown, QStringLiteral("ncclDevKernel"), core::EventCategory::Kernel);
    const core::EventIndex comms = eventNamed(*shown, QStringLiteral("record_param_comms"), core::EventCategory::CpuOp);
    const core::EventIndex annotation = eventNamed(*shown, QStringLiteral("nccl:_all_gather_base"),
                                                   core::EventCategory::UserAnnotation);
    QCOMPARE(parentShown(*window, kernel), annotation);
    auto action = [](QMenu *menu, const char *name) { return menu->findChild<QAction *>(QString::fromLatin1(name)); };

    // A right-click on the kernel: the view's own actions and the review's.
    timeline->state().fitAll();
    (void)timeline->renderToImage(timeline->size());
    std::unique_ptr<QMenu> menu(timeline->menus().createContextMenu(timeline->eventRect(kernel).center().toPoint()));
    QVERIFY(menu);
    for (const char *name :
         {"selectEvent", "frameEvent", "selectParent", "copyName", "detach", "restore", "flag", "note", "accept"})
        QVERIFY2(action(menu.get(), name), name);
    QVERIFY(!action(menu.get(), "restore")->isEnabled()); // nothing to restore yet
    // Re-parent to ▸ lists the candidates (innermost first); the current parent is checked, not offered.
    auto *to = menu->findChild<QMenu *>(QStringLiteral("reparentTo"));
    QVERIFY(to);
    std::vector<core::EventIndex> listed;
    QAction *onComms = nullptr;
    for (QAction *a : to->actions())
        if (a->data().isValid()) {
            listed.push_back(core::EventIndex(a->data().value<std::uint32_t>()));
            if (listed.back() == comms)
                onComms = a;
            if (listed.back() == annotation)
                QVERIFY(a->isChecked() && !a->isEnabled());
        }
    QCOMPARE(listed, controller->parentCandidates(kernel));
    QVERIFY(onComms && onComms->isEnabled());
    // Shown, the menu is no wider than a long name elided; saved for a human to look at.
    menu->popup(timeline->mapToGlobal(timeline->eventRect(kernel).center().toPoint()));
    QVERIFY(QTest::qWaitForWindowExposed(menu.get()));
    QVERIFY2(menu->width() < 600, qPrintable(QString::number(menu->width())));
    QDir().mkpath(linkscope::test::buildPath("/screens"));
    menu->grab().save(linkscope::test::buildPath("/screens/event_context_menu.png"));
    menu->hide();
    onComms->trigger();
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(controller->undoStack()->count(), 1);
    QCOMPARE(parentShown(*window, kernel), comms);

    // Now Restore is offered, and undoes the re-parent as a new step; Detach leaves it without a parent.
    menu.reset(timeline->menus().createEventMenu(kernel));
    QVERIFY(action(menu.get(), "restore")->isEnabled());
    action(menu.get(), "restore")->trigger();
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(parentShown(*window, kernel), annotation);
    menu.reset(timeline->menus().createEventMenu(kernel));
    action(menu.get(), "detach")->trigger();
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(parentShown(*window, kernel), core::kNone);
    menu.reset(timeline->menus().createEventMenu(kernel));
    action(menu.get(), "accept")->trigger();
    QVERIFY(controller->waitUntilSettled());
    QVERIFY(timeline->eventNotes() && timeline->eventNotes()->isAccepted(kernel));

    // On edges: a sync edge can be removed, a parent edge cannot (it changes by re-parenting).
    const ui::DocumentPtr now = window->document();
    ui::DrawEdgeIndex sync{}, parent{};
    for (ui::DrawEdgeIndex id{0}; id.get() < now->edges().size(); ++id) {
        if (!now->edges()[id].drawn())
            continue; // a gap (DrawEdge)
        if (now->edges()[id].kind == core::EdgeKind::Sync && sync.isNone())
            sync = id;
        if (now->edges()[id].kind == core::EdgeKind::Parent && parent.isNone())
            parent = id;
    }
    QVERIFY(sync.valid() && parent.valid());
    menu.reset(timeline->menus().createEdgeMenu(parent));
    QVERIFY(action(menu.get(), "selectEdgeSource") && action(menu.get(), "removeEdge"));
    QVERIFY(!action(menu.get(), "removeEdge")->isEnabled());
    const ui::DrawEdge removed = now->edges()[sync];
    auto syncCount = [&] {
        const auto &edges = window->document()->edges();
        return std::count_if(edges.begin(), edges.end(), [&](const ui::DrawEdge &e) {
            return e.kind == core::EdgeKind::Sync && e.from == removed.from && e.to == removed.to;
        });
    };
    QCOMPARE(syncCount(), 1);
    const int steps = controller->undoStack()->count();
    menu.reset(timeline->menus().createEdgeMenu(sync));
    QVERIFY(action(menu.get(), "removeEdge")->isEnabled());
    action(menu.get(), "removeEdge")->trigger();
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(controller->undoStack()->count(), steps + 1);
    QCOMPARE(syncCount(), 0);
    controller->undoStack()->undo();
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(syncCount(), 1);
}

namespace {
// True if some pixel within `radius` of `at` satisfies `match` (antialiased curves, dashes).
template <typename Match>
bool pixelNear(const QImage &image, QPointF at, int radius, Match match)
{
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx) {
            const QPoint p = at.toPoint() + QPoint(dx, dy);
            if (image.rect().contains(p) && match(image.pixelColor(p)))
                return true;
        }
    return false;
}
bool isGreen(const QColor &c) { return c.green() > 120 && c.green() > c.red() + 50 && c.green() > c.blue() + 50; }
bool isRed(const QColor &c) { return c.red() > 170 && c.red() > c.green() + 80 && c.red() > c.blue() + 80; }
} // namespace

void TestReview::reparentDragShowsTargetAndEscCancels()
{
    auto window = open();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    ui::CorrectionController *controller = window->review()->controller();
    const ui::DocumentPtr shown = window->document();
    const core::EventIndex kernel = eventNamed(*shown, QStringLiteral("ncclDevKernel"), core::EventCategory::Kernel);
    const core::EventIndex comms = eventNamed(*shown, QStringLiteral("record_param_comms"), core::EventCategory::CpuOp);
    const core::EventIndex gemm = eventNamed(*shown, QStringLiteral("ampere_sgemm"), core::EventCategory::Kernel);
    const core::EventIndex annotation = eventNamed(*shown, QStringLiteral("nccl:_all_gather_base"),
                                                   core::EventCategory::UserAnnotation);
    ui::TimelineView *timeline = window->timeline();
    timeline->state().fitAll();
    const QRectF from = timeline->eventRect(kernel);
    const QRectF to = timeline->eventRect(comms);
    const QRectF notCpu = timeline->eventRect(gemm);
    QVERIFY(!from.isEmpty() && !to.isEmpty() && !notCpu.isEmpty());

    QTest::mousePress(timeline, Qt::LeftButton, Qt::ControlModifier, from.center().toPoint());
    QVERIFY(timeline->linkDragActive());
    QCOMPARE(timeline->linkDrag().from, kernel);

    // Over a kernel: the drag is drawn, the target is marked invalid with the LinkEditor's reason.
    QTest::mouseMove(timeline, notCpu.center().toPoint());
    QCOMPARE(timeline->linkDrag().target, gemm);
    QVERIFY(!timeline->linkDrag().valid);
    QVERIFY2(timeline->linkDrag().reason.contains(QStringLiteral("Not a CPU op")), qPrintable(timeline->linkDrag().reason));
    QVERIFY(window->statusBar()->currentMessage().contains(QStringLiteral("Not a CPU op")));
    QImage image = timeline->grab().toImage();
    QCOMPARE(timeline->painted().linkDragTo, QPointF(notCpu.center().toPoint()));
    // The curve's midpoint (symmetric control points) is halfway between its ends; dashed when invalid.
    QPointF mid = (timeline->painted().linkDragFrom + timeline->painted().linkDragTo) / 2;
    QVERIFY(pixelNear(image, mid, 3, isRed));
    QVERIFY(pixelNear(image, QPointF(notCpu.left() - 2, notCpu.center().y()), 2, isRed)); // the target's outline

    // Over record_param_comms: valid, drawn in the other colour.
    QTest::mouseMove(timeline, to.center().toPoint());
    QCOMPARE(timeline->linkDrag().target, comms);
    QVERIFY(timeline->linkDrag().valid);
    QVERIFY(timeline->linkDrag().reason.isEmpty());
    QVERIFY(window->statusBar()->currentMessage().contains(QStringLiteral("record_param_comms")));
    image = timeline->grab().toImage();
    mid = (timeline->painted().linkDragFrom + timeline->painted().linkDragTo) / 2;
    QVERIFY(pixelNear(image, mid, 1, isGreen));
    QVERIFY(!pixelNear(image, mid, 3, isRed));

    // Esc cancels: the overlay goes, the release edits nothing, the selection is untouched.
    window->selection()->clear();
    QTest::keyClick(timeline, Qt::Key_Escape);
    QVERIFY(!timeline->linkDragActive());
    QTest::mouseRelease(timeline, Qt::LeftButton, Qt::ControlModifier, to.center().toPoint());
    QCOMPARE(controller->undoStack()->count(), 0);
    QCOMPARE(parentShown(*window, kernel), annotation);
    image = timeline->grab().toImage();
    QVERIFY(!pixelNear(image, mid, 3, isGreen));

    // The same drag without Esc re-parents, as one undoable step, and the overlay is gone.
    QTest::mousePress(timeline, Qt::LeftButton, Qt::ControlModifier, from.center().toPoint());
    QTest::mouseMove(timeline, to.center().toPoint());
    QVERIFY(timeline->linkDrag().valid);
    QTest::mouseRelease(timeline, Qt::LeftButton, Qt::ControlModifier, to.center().toPoint());
    QVERIFY(!timeline->linkDragActive());
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(controller->undoStack()->count(), 1);
    QCOMPARE(parentShown(*window, kernel), comms);
    QVERIFY(window->statusBar()->currentMessage().startsWith(QStringLiteral("Re-parented")));
}

void TestReview::reparentOntoAnotherProcessIsRefused()
{
    // The fixture with one more CPU op, in another process (pid 5151), spanning the kernel's time.
    {
        std::string text = readFile(m_device.toStdString());
        const std::string anchor = "\"traceEvents\"";
        const std::size_t at = text.find('[', text.find(anchor));
        QVERIFY(at != std::string::npos);
        text.insert(
            at + 1,
            R"({"ph": "X", "cat": "cpu_op", "name": "other::op", "pid": 5151, "tid": 1, "ts": 100, "dur": 90, "args": {}},)");
        std::ofstream(m_device.toStdString(), std::ios::binary | std::ios::trunc) << text;
    }
    auto window = open();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    ui::CorrectionController *controller = window->review()->controller();
    const ui::DocumentPtr shown = window->document();
    const core::EventIndex kernel = eventNamed(*shown, QStringLiteral("ncclDevKernel"), core::EventCategory::Kernel);
    const core::EventIndex other = eventNamed(*shown, QStringLiteral("other::op"), core::EventCategory::CpuOp);
    const core::EventIndex comms = eventNamed(*shown, QStringLiteral("record_param_comms"), core::EventCategory::CpuOp);
    QVERIFY(other.valid());
    // The kernel was launched by cuLaunchKernelEx on pid 4242.
    QVERIFY(controller->reparentProblem(kernel, other).contains(QStringLiteral("process 5151")));
    QVERIFY(controller->reparentProblem(kernel, comms).isEmpty());

    ui::TimelineView *timeline = window->timeline();
    timeline->state().fitAll();
    const QRectF from = timeline->eventRect(kernel);
    const QRectF to = timeline->eventRect(other);
    QVERIFY(!from.isEmpty() && !to.isEmpty());
    QTest::mousePress(timeline, Qt::LeftButton, Qt::ControlModifier, from.center().toPoint());
    QTest::mouseMove(timeline, to.center().toPoint());
    QCOMPARE(timeline->linkDrag().target, other);
    QVERIFY(!timeline->linkDrag().valid);
    QTest::mouseRelease(timeline, Qt::LeftButton, Qt::ControlModifier, to.center().toPoint());
    QCOMPARE(controller->undoStack()->count(), 0);
    QVERIFY(window->statusBar()->currentMessage().contains(QStringLiteral("process 5151")));
    QVERIFY(!controller->reparent(kernel, other)); // the menu paths refuse it too
}

void TestReview::policyChangeReportsChangedLinks()
{
    auto window = open();
    ui::CorrectionController *controller = window->review()->controller();
    QCOMPARE(window->policy(), core::Policy::Nesting);
    QSignalSpy spy(controller, &ui::CorrectionController::linksChanged);
    window->setPolicy(core::Policy::ExternalId);
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(spy.count(), 1);
    const QString summary = spy.at(0).at(0).toString();
    QVERIFY2(summary.contains(QStringLiteral("1 of 3 GPU op links changed")), qPrintable(summary));
    const QStringList details = spy.at(0).at(1).toStringList();
    QCOMPARE(details.size(), 1);
    QVERIFY(details[0].startsWith(QStringLiteral("ncclDevKernel_AllGather_RING_LL")));
    QVERIFY(details[0].contains(QStringLiteral("nccl:_all_gather_base → record_param_comms")));
    const auto events = spy.at(0).at(2).value<std::vector<core::EventIndex>>();
    QCOMPARE(events.size(), std::size_t(1));
    const core::EventIndex kernel = eventNamed(*window->document(), QStringLiteral("ncclDevKernel"), core::EventCategory::Kernel);
    QCOMPARE(events[0], kernel);

    // No dialog: a notice above the timeline, with a "Show changed links" action that filters the
    // Findings and lists the changed GPU ops in the search results.
    QVERIFY(window->findChildren<QMessageBox *>().isEmpty());
    ui::NoticeBar *notice = window->review()->noticeBar();
    QVERIFY(!notice->isHidden());
    QVERIFY2(notice->text().contains(QStringLiteral("Policy nesting → external-id: 1 of 3 GPU op links changed")),
             qPrintable(notice->text()));
    QVERIFY(notice->actionButton()->isVisibleTo(notice));
    QVERIFY(!notice->actionButton()->hasFocus());
    ui::FindingsDock *findings = window->review()->findingsDock();
    const int all = findings->filter()->rowCount();
    notice->actionButton()->click();
    QVERIFY(findings->filter()->hasEventFilter());
    QVERIFY(findings->filter()->rowCount() > 0 && findings->filter()->rowCount() < all);
    for (int row = 0; row < findings->filter()->rowCount(); ++row)
        QCOMPARE(
            static_cast<std::uint32_t>(
                findings->filter()->data(findings->filter()->index(row, 0), ui::FindingsModel::SubjectEventRole).toULongLong()),
            kernel.value);
    QCOMPARE(window->searchDock()->model()->rowCount(), 1);
    window->show();
    QTRY_VERIFY(notice->isVisible());
    window->grab().toImage().save(linkscope::test::buildPath("/test_review_notice.png"));
    // Dismissed with its close button; the next policy change shows its own.
    notice->closeButton()->click();
    QVERIFY(notice->isHidden());
    window->setPolicy(core::Policy::Nesting);
    QVERIFY(controller->waitUntilSettled());
    QVERIFY(!notice->isHidden()); // back: the kernel moves again
    QVERIFY2(notice->text().contains(QStringLiteral("Policy external-id → nesting")), qPrintable(notice->text()));
}

void TestReview::staleEditsAreListed()
{
    // A sidecar for these very files with one edit whose kernel is not in the trace.
    core::Sidecar sidecar;
    sidecar.device = core::fingerprintFile(m_device.toStdString());
    sidecar.host = core::fingerprintFile(m_host.toStdString());
    core::Edit gone;
    gone.kind = core::EditKind::Detach;
    gone.subject.kind = core::KeyKind::GpuOp;
    gone.subject.pid.number = 0;
    gone.subject.correlation = 999;
    gone.subject.name = "kernel_from_another_run";
    sidecar.log.entries.push_back({"old", {gone}});
    core::saveSidecar(sidecar, m_sidecar);

    auto window = open();
    ui::EditsModel *model = window->review()->editsDock()->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(model->data(model->index(0, ui::EditsModel::Status)).toString(), QStringLiteral("stale"));
    QVERIFY(model->data(model->index(0, ui::EditsModel::Reason))
                .toString()
                .contains(QStringLiteral("no GPU op with that correlation")));
    QVERIFY(window->review()->controller()->sidecarSummary().contains(QStringLiteral("1 stale edit")));
    // Still in the file, never dropped.
    QCOMPARE(core::loadSidecar(m_sidecar).log.entries.size(), std::size_t(1));
}

void TestReview::sidecarOfOtherTracesIsLeftUntouched()
{
    core::Sidecar sidecar;
    sidecar.device = {"elsewhere/seed_kineto.json", 12, std::string(64, 'e')};
    sidecar.host = core::fingerprintFile(m_host.toStdString());
    core::saveSidecar(sidecar, m_sidecar);
    const std::string before = readFile(m_sidecar);

    auto window = open();
    ui::CorrectionController *controller = window->review()->controller();
    QCOMPARE(controller->session()->sidecar().state, core::SidecarState::Mismatch);
    QVERIFY(controller->sidecarSummary().contains(QStringLiteral("left untouched")));
    const ui::DocumentPtr shown = window->document(); // kept alive while its events are looked up
    const ui::TraceDocument &doc = *shown;
    const core::EventIndex gemm = eventNamed(doc, QStringLiteral("ampere_sgemm"), core::EventCategory::Kernel);
    QVERIFY(controller->detach(gemm)); // editing works, but does not overwrite the other traces' file
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(parentShown(*window, gemm), core::kNone);
    QCOMPARE(readFile(m_sidecar), before);
}

void TestReview::guiExportEqualsCliExport()
{
    auto window = open();
    ui::CorrectionController *controller = window->review()->controller();
    const ui::DocumentPtr shown = window->document(); // kept alive while its events are looked up
    const ui::TraceDocument &doc = *shown;
    const core::EventIndex kernel = eventNamed(doc, QStringLiteral("ncclDevKernel"), core::EventCategory::Kernel);
    const core::EventIndex comms = eventNamed(doc, QStringLiteral("record_param_comms"), core::EventCategory::CpuOp);
    // Under nesting the kernel is under nccl:*; move it to record_param_comms by hand (an edit the
    // linker would not make) so that the export differs from an uncorrected one.
    QVERIFY(controller->reparent(kernel, comms));
    QVERIFY(controller->waitUntilSettled());

    core::ExportRequest request;
    const auto path = [&](const char *name) { return m_dir->filePath(QString::fromLatin1(name)).toStdString(); };
    request.outputs["et"] = path("gui.et");
    request.outputs["etplus"] = path("gui.etplus.json");
    request.outputs["perfetto"] = path("gui.perfetto.json");
    QSignalSpy finished(controller, &ui::CorrectionController::exportFinished);
    controller->exportCorrected(request);
    QVERIFY(finished.wait(30000) || finished.count() == 1);
    QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));

    std::ostringstream out, err;
    QCOMPARE(
        cli::runExport({"--host", m_host.toStdString(), "--device", m_device.toStdString(), "--corrections", m_sidecar, "--et",
                        path("cli.et"), "--etplus", path("cli.etplus.json"), "--perfetto", path("cli.perfetto.json")},
                       out, err),
        0);
    QVERIFY2(err.str().find("1 applied") != std::string::npos, err.str().c_str());
    QVERIFY(!readFile(path("gui.et")).empty());
    QVERIFY(readFile(path("gui.et")) == readFile(path("cli.et")));
    QVERIFY(readFile(path("gui.etplus.json")) == readFile(path("cli.etplus.json")));
    QVERIFY(readFile(path("gui.perfetto.json")) == readFile(path("cli.perfetto.json")));
    // And it is the corrected graph: uncorrected (nesting) output differs.
    std::ostringstream out2, err2;
    QCOMPARE(cli::runExport(
                 {"--host", m_host.toStdString(), "--device", m_device.toStdString(), "--etplus", path("plain.etplus.json")},
                 out2, err2),
             0);
    QVERIFY(readFile(path("plain.etplus.json")) != readFile(path("gui.etplus.json")));
}

QTEST_MAIN(TestReview)
#include "test_review.moc"
