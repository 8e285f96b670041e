// What an edit changed, computed once and carried by the document it publishes (a correction, an
// undo, a redo, a relink: TraceDocument::changeSince, edit/linkchange.h), on the seed fixture pair
// (tests/data/export, three kernels; test_review.cpp names its facts). The views updated from it —
// the timeline's edges (test_timelineview: the patched document equals a full rebuild), the
// Findings' causes and the comparison with Chakra — are what deriving them from scratch gives.

#include "docks/findingsdock.h"
#include "edit/linkchange.h"
#include "link/chakracompare.h"
#include "review/correctioncontroller.h"
#include "review/storypanel.h"
#include "reviewsupport.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "testsupport.h"

#include <QApplication>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <utility>

using namespace linkscope;
using linkscope::test::eventNamed;
using linkscope::test::expectFindingsRowsDerivedInFull;

namespace {

// What a document carries is what core computes between the two link sets.
void expectSameChange(const core::LinkSetChange &a, const core::LinkSetChange &b)
{
    QCOMPARE(a.sameOps, b.sameOps);
    QCOMPARE(a.gpuOps, b.gpuOps);
    QCOMPARE(a.findingOps, b.findingOps);
    QCOMPARE(a.edges, b.edges);
    QCOMPARE(a.traceWideFindingsChanged, b.traceWideFindingsChanged);
    QCOMPARE(a.hostSideFindingsChanged, b.hostSideFindingsChanged);
}

void expectSameComparison(const core::ChakraComparison &shown, const core::ChakraComparison &full)
{
    for (auto [a, b] : {std::pair{&shown.chakra10, &full.chakra10}, std::pair{&shown.pre185, &full.pre185}}) {
        QCOMPARE(a->policy, b->policy);
        QCOMPARE(a->gpuOps, b->gpuOps);
        QCOMPARE(a->differentParent, b->differentParent);
        QCOMPARE(a->collectiveOnRecordParamComms, b->collectiveOnRecordParamComms);
        QCOMPARE(a->dropped, b->dropped);
        QCOMPARE(a->droppedBy, b->droppedBy);
        QCOMPARE(a->syncEdges, b->syncEdges);
        QCOMPARE(a->syncEdgesLost, b->syncEdgesLost);
        QCOMPARE(a->syncLostGpuOps, b->syncLostGpuOps);
        QCOMPARE(a->linked, b->linked);
        QCOMPARE(a->fallback, b->fallback);
    }
}

} // namespace

class TestReviewChange : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup() { m_dir.reset(); }
    void eachEditCarriesWhatItChanged();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_host, m_device;
};

void TestReviewChange::init() { QVERIFY(test::copySeedPair(m_dir, m_host, m_device)); }

void TestReviewChange::eachEditCarriesWhatItChanged()
{
    ui::MainWindow window;
    window.resize(1200, 800);
    window.openPair(m_host, m_device);
    ui::CorrectionController *controller = window.review()->controller();
    QVERIFY(controller->waitUntilSettled());
    ui::FindingsDock *findings = window.review()->findingsDock();
    ui::StoryPanel *story = findings->storyPanel();
    const ui::DocumentPtr opened = window.document();
    QVERIFY(opened);
    QVERIFY(!opened->changeSince(*opened)); // made by create(): nothing to carry
    const core::EventIndex kernel = eventNamed(*opened, QStringLiteral("ncclDevKernel"), core::EventCategory::Kernel);
    const core::EventIndex comms = eventNamed(*opened, QStringLiteral("record_param_comms"), core::EventCategory::CpuOp);
    const core::EventIndex gemm = eventNamed(*opened, QStringLiteral("ampere_sgemm"), core::EventCategory::Kernel);

    // The document shown now was made from `base`: it carries the change since base's links, and
    // the Findings and the comparison with Chakra, updated from it, equal a full derivation.
    auto expectCarried = [&](const char *step, const ui::DocumentPtr &base) {
        const ui::DocumentPtr now = window.document();
        QVERIFY2(now != base, step);
        const core::LinkSetChange *change = now->changeSince(*base);
        QVERIFY2(change, step);
        expectSameChange(*change, core::changeBetween(base->links(), now->links()));
        QVERIFY2(!now->changeSince(*now), step); // relative to its base only
        expectFindingsRowsDerivedInFull(*findings->model(), *now, *controller->linkedDocument());
        QVERIFY2(story->comparison(), step);
        expectSameComparison(*story->comparison(), core::compareWithChakra(now->device(), *now->chakraLinks(), now->links()));
        if (QTest::currentTestFailed())
            qWarning("after: %s", step);
    };
    QVERIFY(controller->reparent(kernel, comms));
    QVERIFY(controller->waitUntilSettled());
    expectCarried("re-parent", opened);
    ui::DocumentPtr before = window.document();
    QVERIFY(controller->detach(gemm));
    QVERIFY(controller->waitUntilSettled());
    expectCarried("detach", before);
    QVERIFY2(!window.document()->changeSince(*opened), "relative to the document it was made from, not an older one");
    before = window.document();
    controller->undoStack()->undo();
    QVERIFY(controller->waitUntilSettled());
    expectCarried("undo", before);
    before = window.document();
    controller->undoStack()->redo();
    QVERIFY(controller->waitUntilSettled());
    expectCarried("redo", before);
    if (QTest::currentTestFailed())
        return;

    // A relink (policy switch): the linker's new document is made from the one shown, and the
    // corrected one (the log re-applied) from it.
    before = window.document();
    window.setPolicy(core::Policy::ExternalId);
    QVERIFY(controller->waitUntilSettled());
    const ui::DocumentPtr relinked = controller->linkedDocument();
    QVERIFY(relinked != opened);
    QCOMPARE(relinked->links().policy, core::Policy::ExternalId);
    const core::LinkSetChange *change = relinked->changeSince(*before);
    QVERIFY(change);
    expectSameChange(*change, core::changeBetween(before->links(), relinked->links()));
    expectCarried("relink", relinked);
    if (QTest::currentTestFailed())
        return;

    // Both edits undone: the linker's document is shown again, as the relink made it.
    controller->undoStack()->undo();
    controller->undoStack()->undo();
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(window.document(), relinked);
    expectFindingsRowsDerivedInFull(*findings->model(), *relinked, *relinked);
    QVERIFY(story->comparison());
    expectSameComparison(*story->comparison(),
                         core::compareWithChakra(relinked->device(), *relinked->chakraLinks(), relinked->links()));
}

QTEST_MAIN(TestReviewChange)
#include "test_reviewchange.moc"
