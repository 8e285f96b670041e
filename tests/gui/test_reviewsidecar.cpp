// Opening a pair with its corrections sidecar, on the seed fixture pair (tests/data/export, three
// kernels; test_review.cpp names its facts): the GUI opens through the pair pipeline with the
// sidecar, so a sidecar made under another policy than the window's is linked once, under its
// policy, and the window publishes one document (not link → draw → relink → draw → draw the
// corrections); a sidecar of other inputs is not applied and its policy not taken. And the one
// background helper every GUI job runs on (ground/backgroundjob.h): a superseded or cancelled job's
// result never arrives, and of requests made while one runs only the newest runs next.

#include "edit/correctionsession.h"
#include "ground/backgroundjob.h"
#include "ground/traceloader.h"
#include "pipeline/pairpipeline.h"
#include "review/correctioncontroller.h"
#include "reviewsupport.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "testsupport.h"

#include <QApplication>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <stdexcept>

using namespace linkscope;

namespace {

core::EventIndex kernelNamed(const ui::TraceDocument &doc, const QString &prefix)
{
    for (core::EventIndex e{0}; e.get() < doc.eventCount(); ++e)
        if (doc.event(e).category == core::EventCategory::Kernel && doc.eventName(e).startsWith(prefix))
            return e;
    return core::kNone;
}

} // namespace

class TestReviewSidecar : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup() { m_dir.reset(); }
    void sidecarOfAnotherPolicyIsLinkedOnceAndDrawnOnce();
    void sidecarOfOtherInputsKeepsTheWindowsPolicy();
    void staleAndCancelledResultsNeverArrive();
    void onlyTheNewestRequestRunsNext();

private:
    // A sidecar for the fixture pair (its fingerprints, or `otherInputs`'), made under `policy`,
    // detaching the GEMM kernel.
    void writeSidecar(core::Policy policy, bool otherInputs);

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_host, m_device;
    std::string m_sidecar;
};

void TestReviewSidecar::init()
{
    QVERIFY(test::copySeedPair(m_dir, m_host, m_device));
    m_sidecar = core::defaultSidecarPath(m_device.toStdString());
}

void TestReviewSidecar::writeSidecar(core::Policy policy, bool otherInputs)
{
    core::PairRequest request;
    request.files = {m_host.toStdString(), m_device.toStdString()};
    request.link.policy = policy;
    const core::OpenedPair pair = core::openPair(request);
    core::CorrectionSession session;
    core::FileFingerprint device = core::fingerprintFile(m_device.toStdString());
    if (otherInputs)
        device = {"elsewhere/seed_kineto.json", 12, std::string(64, 'e')};
    session.openSidecar(m_sidecar, device, core::fingerprintFile(m_host.toStdString()));
    session.setLinkOptions(policy, false);
    session.attach(pair.linked, *pair.device, pair.host.get());
    core::EventIndex gemm = core::kNone;
    for (core::EventIndex e{0}; e.get() < pair.device->events.size() && gemm.isNone(); ++e)
        if (pair.device->event(e).category == core::EventCategory::Kernel
            && pair.device->name(pair.device->event(e)).rfind("ampere_sgemm", 0) == 0)
            gemm = e;
    QVERIFY(gemm.valid());
    if (otherInputs) {
        // Not written by a session of other inputs: saved as such a sidecar would be.
        core::Sidecar sidecar;
        sidecar.device = device;
        sidecar.host = core::fingerprintFile(m_host.toStdString());
        sidecar.policy = policy;
        sidecar.log.entries.push_back({"Detach gemm", {session.editor().detach(gemm)}});
        core::saveSidecar(sidecar, m_sidecar);
        return;
    }
    session.push({"Detach gemm", {session.editor().detach(gemm)}});
    QVERIFY2(session.lastSaveError().empty(), session.lastSaveError().c_str());
    QCOMPARE(core::loadSidecar(m_sidecar).policy, policy);
}

void TestReviewSidecar::sidecarOfAnotherPolicyIsLinkedOnceAndDrawnOnce()
{
    writeSidecar(core::Policy::ExternalId, false);
    if (QTest::currentTestFailed())
        return;
    ui::MainWindow window;
    window.resize(1200, 800);
    QCOMPARE(window.policy(), core::Policy::Nesting);
    ui::TraceLoader *loader = window.loader();
    QSignalSpy started(loader, &ui::TraceLoader::started);
    QSignalSpy shown(&window, &ui::MainWindow::documentChanged);
    const quint64 linksBefore = loader->linksMade();
    window.openPair(m_host, m_device);
    ui::CorrectionController *controller = window.review()->controller();
    QVERIFY(controller->waitUntilSettled());
    QTest::qWait(50); // anything still queued (a relink, a publication) would arrive now
    QVERIFY(controller->waitUntilSettled());

    // One load, no relink; linked once; one document published, the corrected one.
    QCOMPARE(started.count(), 1);
    QCOMPARE(started.at(0).at(0).toBool(), false);
    QCOMPARE(loader->linksMade() - linksBefore, quint64(1));
    QCOMPARE(shown.count(), 1);
    const ui::DocumentPtr doc = window.document();
    QCOMPARE(shown.at(0).at(0).value<ui::DocumentPtr>(), doc);
    QCOMPARE(doc->links().policy, core::Policy::ExternalId);
    QCOMPARE(window.policy(), core::Policy::ExternalId);
    const core::EventIndex gemm = kernelNamed(*doc, QStringLiteral("ampere_sgemm"));
    QVERIFY(gemm.valid());
    QCOMPARE(doc->gpuLink(gemm)->orphan, core::OrphanReason::Detached);
    // The linker's document under the sidecar's policy is what the corrections apply to.
    QCOMPARE(controller->linkedDocument()->links().policy, core::Policy::ExternalId);
    QVERIFY(controller->linkedDocument()->gpuLink(gemm)->parent.valid());
    QCOMPARE(controller->session()->sidecar().state, core::SidecarState::Loaded);
    QCOMPARE(controller->session()->log().entries.size(), std::size_t(1));
    // And the session saves to it: the next edit lands in the same file, under the same policy.
    const core::EventIndex nccl = kernelNamed(*doc, QStringLiteral("ncclDevKernel"));
    QVERIFY(controller->detach(nccl));
    QVERIFY(controller->waitUntilSettled());
    const core::Sidecar saved = core::loadSidecar(m_sidecar);
    QCOMPARE(saved.log.entries.size(), std::size_t(2));
    QCOMPARE(saved.policy, core::Policy::ExternalId);
}

void TestReviewSidecar::sidecarOfOtherInputsKeepsTheWindowsPolicy()
{
    writeSidecar(core::Policy::ExternalId, true);
    if (QTest::currentTestFailed())
        return;
    const std::string before = test::readFile(m_sidecar);
    ui::MainWindow window;
    window.resize(1200, 800);
    QSignalSpy shown(&window, &ui::MainWindow::documentChanged);
    window.openPair(m_host, m_device);
    ui::CorrectionController *controller = window.review()->controller();
    QVERIFY(controller->waitUntilSettled());
    QCOMPARE(shown.count(), 1);
    QCOMPARE(window.policy(), core::Policy::Nesting);
    QCOMPARE(controller->session()->sidecar().state, core::SidecarState::Mismatch);
    const core::EventIndex gemm = kernelNamed(*window.document(), QStringLiteral("ampere_sgemm"));
    QVERIFY(window.document()->gpuLink(gemm)->parent.valid()); // its detach is not applied
    QCOMPARE(test::readFile(m_sidecar), before);
}

void TestReviewSidecar::staleAndCancelledResultsNeverArrive()
{
    ui::BackgroundJob job(2);
    QSemaphore release;
    QStringList delivered;
    // The first job waits until the second has started: its result comes last, and is stale.
    const quint64 first = job.run(
        [&release](const ui::JobToken &) {
            release.acquire();
            return QStringLiteral("first");
        },
        [&delivered](const QString &result) { delivered << result; });
    const quint64 second = job.run([](const ui::JobToken &) { return QStringLiteral("second"); },
                                   [&delivered](const QString &result) { delivered << result; });
    QVERIFY(second > first);
    QVERIFY(!job.isCurrent(first));
    release.release();
    job.waitForIdle();
    QTRY_VERIFY(!job.busy());
    QCoreApplication::processEvents();
    QCOMPARE(delivered, QStringList{QStringLiteral("second")});

    // A cancelled job: its flag is set for the work to see, and its result is dropped.
    std::atomic<bool> sawCancel{false};
    job.run(
        [&release, &sawCancel](const ui::JobToken &token) {
            release.acquire();
            sawCancel = token.cancelled();
            return QStringLiteral("cancelled");
        },
        [&delivered](const QString &result) { delivered << result; });
    QVERIFY(job.busy());
    QVERIFY(job.cancel());
    QVERIFY(!job.busy());
    QVERIFY(!job.cancel()); // nothing left to cancel
    release.release();
    job.waitForIdle();
    QCoreApplication::processEvents();
    QVERIFY(sawCancel.load());
    QCOMPARE(delivered, QStringList{QStringLiteral("second")});
}

void TestReviewSidecar::onlyTheNewestRequestRunsNext()
{
    // The predictors' way (a prediction cannot be interrupted): while "a" runs, "b" then "c" are
    // asked for; "b" never runs, "a"'s result is dropped, "c" runs next and is delivered. What the
    // work throws arrives as the error.
    using Request = std::shared_ptr<const QString>;
    QSemaphore release;
    QStringList started, delivered;
    ui::NewestRequestJob<Request, QString> job(
        [&release](const Request &request) {
            release.acquire();
            if (*request == QStringLiteral("bad"))
                throw std::runtime_error("no such thing");
            return std::make_shared<const QString>(*request + QStringLiteral("!"));
        },
        [&delivered](const Request &request, std::shared_ptr<const QString> value, const QString &error) {
            delivered << (value ? *value : *request + QStringLiteral(": ") + error);
        },
        [&started] { started << QStringLiteral("start"); });
    auto request = [](const char *text) { return std::make_shared<const QString>(QString::fromLatin1(text)); };
    job.request(request("a"));
    QVERIFY(job.running());
    job.request(request("b"));
    job.request(request("c"));
    release.release(2);
    QVERIFY(job.waitUntilIdle(10000));
    QVERIFY(!job.running());
    QCOMPARE(delivered, QStringList{QStringLiteral("c!")});
    QCOMPARE(started.size(), 2); // "a", then "c"

    // A request dropped while one runs: the running one's result is delivered, nothing runs next.
    job.request(request("bad"));
    job.request(request("e"));
    job.dropWaiting();
    release.release();
    QVERIFY(job.waitUntilIdle(10000));
    QCOMPARE(delivered, (QStringList{QStringLiteral("c!"), QStringLiteral("bad: no such thing")}));
    QCOMPARE(started.size(), 3);
}

QTEST_MAIN(TestReviewSidecar)
#include "test_reviewsidecar.moc"
