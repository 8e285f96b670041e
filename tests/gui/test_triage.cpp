// Triage and navigation in the main window (issue 13): the Findings dock's tree by severity with
// findings of one cause folded (megatron rank 0, bundled: 131 policy_disagreement findings in five
// causes, tests/test_findinggroups.cpp), framing a finding or search hit with its parents, clicks on
// the timeline that leave the view alone, Esc / Enter handing the keyboard back to the timeline, and
// the Warnings dock (a Kineto trace made here with one partially overlapping CPU op).
//
// The sample's ids (tests/gui/test_mainwindow.cpp): correlation 2290's gemm is launched inside
// aten::addmm, its parent under every rule.

#include "docks/findingsdock.h"
#include "docks/searchdock.h"
#include "docks/searchresultsmodel.h"
#include "docks/warningsdock.h"
#include "ground/eventselection.h"
#include "ground/timeformat.h"
#include "review/correctioncontroller.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "testsupport.h"
#include "timeline/timelineview.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QTreeWidget>
#include <QUndoStack>

using namespace linkscope;

namespace {

QString megatron(const char *file)
{
    return QString::fromStdString(test::tracePath(std::string("astrasim_megatron_tp8_8rank_pair/") + file));
}

// Rows of the tree under `parent` whose first column starts with `prefix`.
QModelIndex childStartingWith(const QAbstractItemModel *model, const QModelIndex &parent, const QString &prefix)
{
    for (int r = 0; r < model->rowCount(parent); ++r) {
        const QModelIndex index = model->index(r, 0, parent);
        if (index.data().toString().startsWith(prefix))
            return index;
    }
    return {};
}

core::EventIndex eventByCorrelation(const ui::TraceDocument &doc, core::EventCategory category, std::int64_t correlation)
{
    for (core::EventIndex e{0}; e.get() < doc.eventCount(); ++e)
        if (doc.event(e).category == category && doc.event(e).correlation == correlation)
            return e;
    return core::kNone;
}

} // namespace

class TestTriage : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_triage"));
    }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1600, 1000);
        m_window->show();
        QApplication::setActiveWindow(m_window.get());
    }
    void cleanup()
    {
        m_window.reset();
        m_dir.reset();
    }

    // A copy of a file in the test's own folder: a sidecar saved beside it stays there.
    QString copy(const QString &path, const QString &name)
    {
        const QString to = m_dir->filePath(name);
        QFile::remove(to);
        if (!QFile::copy(path, to))
            qWarning("cannot copy %s", qPrintable(path));
        return to;
    }

    bool openPair(const QString &host, const QString &device)
    {
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openPair(host, device);
        return loaded.wait(60000) && m_window->document() && m_window->review()->controller()->waitUntilSettled();
    }

    bool openSample()
    {
        const QString samples = QString::fromStdString(test::sourcePath("resources/samples")) + QLatin1Char('/');
        return openPair(copy(samples + QStringLiteral("sample_host_et.json"), QStringLiteral("sample_host_et.json")),
                        copy(samples + QStringLiteral("sample_kineto.json"), QStringLiteral("sample_kineto.json")));
    }

    void findingsFoldBySeverityAndCause()
    {
        QVERIFY(openPair(copy(megatron("megatron_et_0.json.gz"), QStringLiteral("et.json.gz")),
                         copy(megatron("megatron_kineto_0.json.gz"), QStringLiteral("kineto.json.gz"))));
        ui::FindingsDock *findings = m_window->review()->findingsDock();
        findings->show();
        findings->raise();
        const ui::FindingsTreeModel *tree = findings->tree();
        QTreeView *view = findings->view();
        // Warnings first and unfolded, info folded away: 1 rf_id_absent warning, 131 policy
        // disagreements and 1 device_op_without_host (`linkscope link`'s summary on the same pair).
        QCOMPARE(tree->rowCount(), 2);
        const QModelIndex warnings = tree->index(0, 0);
        const QModelIndex info = tree->index(1, 0);
        QCOMPARE(warnings.data().toString(), QStringLiteral("Warnings (1)"));
        QCOMPARE(info.data().toString(), QStringLiteral("Info (132)"));
        QVERIFY(view->isExpanded(warnings));
        QVERIFY(!view->isExpanded(info));
        // Under Info: one row per cause of the 131, and the single device_op_without_host as itself.
        QCOMPARE(tree->rowCount(info), 6);
        const QModelIndex biggest = childStartingWith(
            tree, info, QStringLiteral("external-id and ev-idx pick a finished 'aten::empty_strided'"));
        QVERIFY(biggest.isValid());
        QCOMPARE(biggest.data().toString(),
                 QStringLiteral("external-id and ev-idx pick a finished 'aten::empty_strided' for 81 GPU ops"));
        QCOMPARE(tree->rowCount(biggest), 81);
        QCOMPARE(biggest.siblingAtColumn(ui::FindingsTreeModel::Status).data().toString(), QStringLiteral("81 open"));
        QVERIFY(!view->isExpanded(biggest));
        // Times relative to the trace start, as on the ruler: no epoch nanoseconds left.
        const QModelIndex first = tree->index(0, 0, biggest);
        const QString message = first.data().toString();
        const core::EventIndex subject = findings->model()->subjectEvent(tree->findingRow(first));
        const ui::DocumentPtr doc = m_window->document();
        QVERIFY2(!message.contains(QStringLiteral("17068501")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("at ") + ui::formatDuration(doc->event(subject).ts - doc->startTime())),
                 qPrintable(message));
        // Nothing to apply under nesting (the policy findings suggest no other parent).
        view->setCurrentIndex(biggest);
        QVERIFY(!findings->applyButton()->isEnabled());

        // Unfolding survives a rebuild (a filter change), and the columns fit the dock.
        view->expand(info);
        view->expand(biggest);
        findings->searchEdit()->setText(QStringLiteral("aten::"));
        findings->searchEdit()->clear();
        QVERIFY(view->isExpanded(tree->index(1, 0)));
        QVERIFY(view->isExpanded(childStartingWith(
            tree, tree->index(1, 0), QStringLiteral("external-id and ev-idx pick a finished 'aten::empty_strided'"))));
        QTRY_VERIFY(view->header()->length() <= view->viewport()->width());
        m_window->grab().toImage().save(linkscope::test::buildPath("/test_triage_megatron_findings.png"));

        // A filter by kind keeps only that kind (and regroups).
        findings->kindBox()->setCurrentIndex(findings->kindBox()->findData(int(core::FindingKind::RfIdAbsent)));
        QCOMPARE(tree->rowCount(), 1);
        QCOMPARE(tree->index(0, 0).data().toString(), QStringLiteral("Warnings (1)"));
    }

    void groupApplySkipsResolved()
    {
        // Under external-id the sample's NCCL kernels sit on record_param_comms: the group applies
        // every open suggestion as one step, and then has nothing left to apply.
        QVERIFY(openSample());
        m_window->setPolicy(core::Policy::ExternalId);
        ui::CorrectionController *controller = m_window->review()->controller();
        QVERIFY(controller->waitUntilSettled());
        ui::FindingsDock *findings = m_window->review()->findingsDock();
        const ui::FindingsTreeModel *tree = findings->tree();
        QModelIndex group;
        for (int s = 0; s < tree->rowCount() && !group.isValid(); ++s)
            for (int g = 0; g < tree->rowCount(tree->index(s, 0)) && !group.isValid(); ++g) {
                const QModelIndex at = tree->index(g, 0, tree->index(s, 0));
                if (tree->nodeType(at) == ui::FindingsTreeModel::GroupNode
                    && tree->causeOf(at)->kind == core::FindingKind::NcclParentIsRecordParamComms)
                    group = at;
            }
        QVERIFY(group.isValid());
        const int members = tree->rowCount(group);
        const int nccl = findings->model()->countsByKind()[std::size_t(core::FindingKind::NcclParentIsRecordParamComms)];
        QVERIFY(members >= 2);
        QVERIFY2(group.data().toString().contains(QStringLiteral("GPU ops are on record_param_comms while 'nccl:")),
                 qPrintable(group.data().toString()));
        findings->view()->setCurrentIndex(group);
        QVERIFY(findings->applyButton()->isEnabled());
        QCOMPARE(findings->applyButton()->text(), QStringLiteral("Apply %1 suggestions").arg(members));
        findings->applyButton()->click();
        QVERIFY(controller->waitUntilSettled());
        QCOMPARE(controller->session()->log().entries.size(), std::size_t(1));
        QCOMPARE(controller->session()->log().entries[0].edits.size(), std::size_t(members));
        // Resolved now: the group stays (as resolved rows), current, with nothing to apply.
        const QModelIndex after = findings->view()->currentIndex();
        QVERIFY(after.isValid());
        QCOMPARE(tree->nodeType(after), ui::FindingsTreeModel::GroupNode);
        QCOMPARE(after.siblingAtColumn(ui::FindingsTreeModel::Status).data().toString(),
                 QStringLiteral("0 of %1 open").arg(members));
        QVERIFY(!findings->applyButton()->isEnabled());
        // Bulk apply over the kind skips the resolved ones: it re-parents only the NCCL kernels of
        // other causes (another nccl:* op), then has nothing left to do.
        QVERIFY(nccl >= members);
        if (nccl > members) {
            QVERIFY(controller->applySuggestionToKind(core::FindingKind::NcclParentIsRecordParamComms));
            QVERIFY(controller->waitUntilSettled());
            QCOMPARE(controller->session()->log().entries.back().edits.size(), std::size_t(nccl - members));
        }
        QVERIFY(!controller->applySuggestionToKind(core::FindingKind::NcclParentIsRecordParamComms));
        while (controller->undoStack()->canUndo()) {
            controller->undoStack()->undo();
            QVERIFY(controller->waitUntilSettled());
        }
    }

    void findingAndSearchHitFrameTheirParents()
    {
        QVERIFY(openSample());
        const ui::DocumentPtr doc = m_window->document();
        ui::TimelineView *timeline = m_window->timeline();
        const core::EventIndex gemm = eventByCorrelation(*doc, core::EventCategory::Kernel, 2290);
        QVERIFY(gemm.valid());
        const core::EventIndex parent = doc->gpuLink(gemm)->parent;
        QVERIFY(parent.valid());
        const core::Nanos lo = std::min(doc->event(gemm).ts, doc->event(parent).ts);
        const core::Nanos hi = std::max(doc->event(gemm).end(), doc->event(parent).end());

        // A search hit: from a 1 µs view at the trace start, the view takes in the kernel and its
        // parent with a margin, zoomed to them (not the whole trace, not a pan at 1 µs).
        timeline->state().setVisibleRange(doc->startTime(), doc->startTime() + 1000);
        m_window->searchDock()->search(ui::SearchMode::Correlation, QStringLiteral("2290"));
        QCOMPARE(m_window->selection()->current() == gemm || doc->event(m_window->selection()->current()).correlation == 2290,
                 true);
        if (m_window->selection()->current() != gemm) {
            m_window->searchDock()->next();
            QCOMPARE(m_window->selection()->current(), gemm);
        }
        QVERIFY(timeline->state().viewStart() < lo && timeline->state().viewEnd() > hi);
        QVERIFY(timeline->state().viewEnd() - timeline->state().viewStart() <= (hi - lo) * 3 / 2);

        // A finding made current in the dock: its GPU op with its current and suggested parents.
        ui::FindingsDock *findings = m_window->review()->findingsDock();
        int row = -1;
        for (int r = 0; r < findings->model()->rowCount() && row < 0; ++r)
            if (findings->model()->subjectEvent(r).valid())
                row = r;
        QVERIFY(row >= 0);
        const core::EventIndex subject = findings->model()->subjectEvent(row);
        std::vector<core::EventIndex> framed{subject};
        if (doc->gpuLink(subject) && doc->gpuLink(subject)->parent.valid())
            framed.push_back(doc->gpuLink(subject)->parent);
        if (findings->model()->finding(row).suggestedParent.valid())
            framed.push_back(findings->model()->finding(row).suggestedParent);
        timeline->state().setVisibleRange(doc->startTime(), doc->startTime() + 1000);
        m_window->selection()->clear();
        QVERIFY(findings->setCurrentFinding(row));
        QCOMPARE(m_window->selection()->current(), subject);
        core::Nanos flo = doc->event(subject).ts, fhi = doc->event(subject).end();
        for (core::EventIndex e : framed) {
            flo = std::min(flo, doc->event(e).ts);
            fhi = std::max(fhi, doc->event(e).end());
        }
        QVERIFY(timeline->state().viewStart() < flo && timeline->state().viewEnd() > fhi);
        QVERIFY(timeline->state().viewEnd() - timeline->state().viewStart() <= std::max<core::Nanos>(fhi - flo, 50) * 3 / 2);
        m_window->grab().toImage().save(linkscope::test::buildPath("/test_triage_finding_framed.png"));
        // The same at 1920x1080 (the done-when screenshot): a wider window keeps the framed range.
        m_window->resize(1920, 1080);
        QCoreApplication::processEvents();
        QVERIFY(timeline->state().viewStart() < flo && timeline->state().viewEnd() > fhi);
        QDir().mkpath(linkscope::test::buildPath("/screens"));
        m_window->grab().toImage().save(linkscope::test::buildPath("/screens/finding_selected_1920.png"));
    }

    void clickOnTheTimelineKeepsTheView()
    {
        // A click selects in place: even an op that extends past the view's edge does not move it,
        // and the Findings dock follows without reframing.
        QVERIFY(openSample());
        const ui::DocumentPtr doc = m_window->document();
        ui::TimelineView *timeline = m_window->timeline();
        ui::FindingsDock *findings = m_window->review()->findingsDock();
        int row = -1;
        for (int r = 0; r < findings->model()->rowCount() && row < 0; ++r) {
            const core::EventIndex e = findings->model()->subjectEvent(r);
            if (e.valid() && doc->event(e).dur > 100)
                row = r;
        }
        QVERIFY(row >= 0);
        const core::EventIndex event = findings->model()->subjectEvent(row);
        const core::DeviceEvent &e = doc->event(event);
        // Its second half in view, its start not.
        timeline->state().setVisibleRange(e.ts + e.dur / 2, e.end() + e.dur * 2);
        QTest::qWait(0);
        const core::Nanos start = timeline->state().viewStart(), end = timeline->state().viewEnd();
        const QRectF rect = timeline->eventRect(event);
        QVERIFY(!rect.isEmpty());
        const QPoint at(static_cast<int>(timeline->timeToX(e.ts + e.dur * 3 / 4)), static_cast<int>(rect.center().y()));
        QCOMPARE(timeline->eventAt(at), event);
        QTest::mouseClick(timeline, Qt::LeftButton, {}, at);
        QCOMPARE(m_window->selection()->current(), event);
        QCOMPARE(timeline->state().viewStart(), start);
        QCOMPARE(timeline->state().viewEnd(), end);
        QCOMPARE(findings->model()->subjectEvent(findings->currentFinding()), event);
    }

    void escAndEnterReturnTheKeyboardToTheTimeline()
    {
        QVERIFY(openSample());
        ui::TimelineView *timeline = m_window->timeline();
        ui::SearchDock *search = m_window->searchDock();
        QLineEdit *query = search->queryEdit();
        // Enter searches, then W acts on the timeline (zooms in) instead of typing "w".
        search->activate();
        QTRY_VERIFY(query->hasFocus());
        QTest::keyClicks(query, QStringLiteral("addmm"));
        QTest::keyClick(query, Qt::Key_Return);
        QTRY_VERIFY(timeline->hasFocus());
        QVERIFY(m_window->selection()->hasSelection());
        const core::Nanos before = timeline->state().viewEnd() - timeline->state().viewStart();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_W);
        QCOMPARE(query->text(), QStringLiteral("addmm"));
        QVERIFY(timeline->state().viewEnd() - timeline->state().viewStart() < before);
        // F3 goes on to the next hit from the timeline.
        const core::EventIndex first = m_window->selection()->current();
        QTest::keyClick(timeline, Qt::Key_F3);
        QVERIFY(m_window->selection()->current() != first);
        // Esc from the query, and from the results.
        search->activate();
        QTRY_VERIFY(query->hasFocus());
        QTest::keyClick(query, Qt::Key_Escape);
        QTRY_VERIFY(timeline->hasFocus());
        search->resultsView()->setFocus();
        QTRY_VERIFY(search->resultsView()->hasFocus());
        QTest::keyClick(search->resultsView(), Qt::Key_Escape);
        QTRY_VERIFY(timeline->hasFocus());

        // The Findings dock: Enter on a finding, Esc anywhere, and Esc in its filter field.
        ui::FindingsDock *findings = m_window->review()->findingsDock();
        findings->show();
        findings->raise();
        QVERIFY(findings->setCurrentFinding(0));
        findings->view()->setFocus();
        QTRY_VERIFY(findings->view()->hasFocus());
        QTest::keyClick(findings->view(), Qt::Key_Return);
        QTRY_VERIFY(timeline->hasFocus());
        findings->view()->setFocus();
        QTRY_VERIFY(findings->view()->hasFocus());
        QTest::keyClick(findings->view(), Qt::Key_Escape);
        QTRY_VERIFY(timeline->hasFocus());
        findings->searchEdit()->setFocus();
        QTRY_VERIFY(findings->searchEdit()->hasFocus());
        QTest::keyClick(findings->searchEdit(), Qt::Key_Escape);
        QTRY_VERIFY(timeline->hasFocus());
    }

    void warningsDockListsLoadWarningsWithTheirEvents()
    {
        // 'straddle' [105, 115) µs starts inside 'outer' [100, 110) µs and ends after it.
        const QString path = m_dir->filePath(QStringLiteral("overlap.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"schemaVersion": 1, "traceEvents": [
 {"ph":"X","cat":"cpu_op","name":"outer","pid":1,"tid":1,"ts":100,"dur":10,"args":{"External id":1}},
 {"ph":"X","cat":"cpu_op","name":"straddle","pid":1,"tid":1,"ts":105,"dur":10,"args":{"External id":2}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":101,"dur":2,"args":{"correlation":7,"External id":1}},
 {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":104,"dur":3,"args":{"correlation":7,"External id":1,"device":0,"stream":7}}
]})");
        file.close();
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openDevice(path);
        QVERIFY(loaded.wait(60000));
        QVERIFY(m_window->review()->controller()->waitUntilSettled());
        const ui::DocumentPtr doc = m_window->document();
        ui::WarningsDock *dock = m_window->warningsDock();
        QVERIFY(dock->count() >= 1);
        int row = -1;
        for (int r = 0; r < dock->count() && row < 0; ++r)
            if (dock->list()->topLevelItem(r)->text(0).contains(QStringLiteral("partially overlaps")))
                row = r;
        QVERIFY(row >= 0);
        const core::EventIndex straddle = dock->eventOf(row);
        QVERIFY(straddle.valid());
        QCOMPARE(doc->eventName(straddle), QStringLiteral("straddle"));
        QVERIFY2(dock->list()->topLevelItem(row)->text(1).startsWith(QStringLiteral("straddle at ")),
                 qPrintable(dock->list()->topLevelItem(row)->text(1)));

        // The status bar's label says how many, in the singular for one, and opens the dock.
        QLabel *label = m_window->warningsLabel();
        QVERIFY(label->isVisible());
        const QString expected = dock->count() == 1 ? QStringLiteral("⚠ 1 warning")
                                                    : QStringLiteral("⚠ %1 warnings").arg(dock->count());
        QVERIFY2(label->text().contains(expected), qPrintable(label->text()));
        dock->hide();
        emit label->linkActivated(QStringLiteral("warnings"));
        QVERIFY(dock->isVisible());
        // A status message does not paint over it: the label keeps its place beside the message.
        const QRect place = label->geometry();
        m_window->statusBar()->showMessage(QString(400, QLatin1Char('x')));
        QTest::qWait(0);
        QVERIFY(label->isVisible());
        QCOMPARE(label->geometry(), place);

        // A click on the warning selects its event and frames it.
        ui::TimelineView *timeline = m_window->timeline();
        timeline->state().setVisibleRange(doc->startTime() + 50'000, doc->startTime() + 51'000);
        emit dock->list()->itemClicked(dock->list()->topLevelItem(row), 1);
        QCOMPARE(m_window->selection()->current(), straddle);
        QVERIFY(timeline->state().viewStart() < doc->event(straddle).ts
                && timeline->state().viewEnd() > doc->event(straddle).end());
        m_window->grab().toImage().save(linkscope::test::buildPath("/test_triage_warnings.png"));
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ui::MainWindow> m_window;
};

QTEST_MAIN(TestTriage)
#include "test_triage.moc"
