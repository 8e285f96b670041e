// CorrectionSession: the sidecar's life beside a trace pair — created by the first edit,
// rewritten after every change, reloaded and re-applied on reopen and relink, left untouched
// when it belongs to other inputs or cannot be read.

#include "edit/correctionsession.h"
#include "link/linker.h"
#include "testsupport.h"
#include "tracebuilder.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace linkscope::core;
using linkscope::test::HostBuilder;
using linkscope::test::TraceBuilder;

namespace {
constexpr std::int64_t kPid = 1;
constexpr std::int64_t kTid = 1331;
constexpr Nanos us = 1000;

// The worked example of docs/linking.md (The linkage rule) plus a second kernel launched from a plain op, for a second edit.
struct Pair {
    TraceBuilder b;
    HostBuilder h;
    EventIndex rpc, nccl, kernel, mm, mmKernel;
    Pair()
    {
        rpc = b.cpu(EventCategory::CpuOp, "record_param_comms", kPid, kTid, 100 * us, 50 * us, 17, 19, 40);
        nccl = b.cpu(EventCategory::UserAnnotation, "nccl:_all_gather_base", kPid, kTid, 110 * us, 30 * us, 18, 20, 41);
        b.runtime("cuLaunchKernelEx", kPid, kTid, 120 * us, 5 * us, 5000, 17, EventCategory::CudaDriver);
        kernel = b.gpu("ncclDevKernel_AllGather_RING_LL", 0, 20, 130 * us, 50 * us, 5000, 17);
        mm = b.cpu(EventCategory::CpuOp, "aten::mm", kPid, kTid, 200 * us, 20 * us, 21, 22, 42);
        b.runtime("cudaLaunchKernel", kPid, kTid, 205 * us, 5 * us, 5001, 21);
        mmKernel = b.gpu("sm80_gemm", 0, 7, 215 * us, 10 * us, 5001, 21);
        h.host.pid = kPid;
        h.node(1, -1, "[pytorch|profiler|execution_trace|process]", 0);
        h.node(2, 1, "[pytorch|profiler|execution_trace|thread]", 0);
        h.node(30, 2, "record_param_comms", 19);
        h.node(31, 30, "nccl:_all_gather_base", 20);
        h.node(32, 2, "aten::mm", 22);
        h.finish();
    }
    std::shared_ptr<const LinkSet> link(Policy policy) const
    {
        LinkOptions options;
        options.policy = policy;
        return std::make_shared<const LinkSet>(linkTraces(b.trace, &h.host, options));
    }
};

EventIndex parentOf(const LinkSet &links, EventIndex event) { return links.gpuLinks.at(links.gpuLinkOf.at(event)).parent; }

using linkscope::test::readFile;

void writeFile(const std::string &path, const std::string &content)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}
} // namespace

class TestCorrectionsSession : public QObject {
    Q_OBJECT
private slots:
    void init();
    void firstEditCreatesSidecarAndReopenReapplies();
    void relinkReappliesAndReportsStale();
    void removeAndInsertEntries();
    void mismatchedSidecarIsLeftUntouched();
    void invalidSidecarIsLeftUntouched();

private:
    std::unique_ptr<QTemporaryDir> dir_;
    std::string devicePath_, hostPath_, sidecarPath_;
};

void TestCorrectionsSession::init()
{
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(dir_->isValid());
    // The session only fingerprints the files; their content stands for the traces.
    devicePath_ = dir_->filePath("rank0.json").toStdString();
    hostPath_ = dir_->filePath("rank0_et.json").toStdString();
    writeFile(devicePath_, "device trace bytes");
    writeFile(hostPath_, "host trace bytes");
    sidecarPath_ = defaultSidecarPath(devicePath_);
}

void TestCorrectionsSession::firstEditCreatesSidecarAndReopenReapplies()
{
    const Pair pair;
    {
        CorrectionSession session;
        const SidecarStatus &status = session.openSidecar(sidecarPath_, fingerprintFile(devicePath_), fingerprintFile(hostPath_));
        QCOMPARE(status.state, SidecarState::None);
        session.setLinkOptions(Policy::ExternalId, false);
        session.attach(pair.link(Policy::ExternalId), pair.b.trace, &pair.h.host);
        QCOMPARE(parentOf(session.working(), pair.kernel), pair.rpc);
        QVERIFY(!std::filesystem::exists(sidecarPath_)); // nothing to save yet

        session.push({"reparent", {session.editor().reparent(pair.kernel, pair.nccl)}});
        QCOMPARE(parentOf(session.working(), pair.kernel), pair.nccl);
        // The linker's LinkSet is not touched.
        QCOMPARE(parentOf(*session.linked(), pair.kernel), pair.rpc);
        QVERIFY(std::filesystem::exists(sidecarPath_));
        QCOMPARE(session.sidecar().state, SidecarState::Loaded);
        QCOMPARE(loadSidecar(sidecarPath_).log.entries.size(), std::size_t(1));

        session.push({"detach", {session.editor().detach(pair.mmKernel)}});
        QCOMPARE(loadSidecar(sidecarPath_).log.entries.size(), std::size_t(2));
        QVERIFY(session.undo());
        QCOMPARE(loadSidecar(sidecarPath_).log.entries.size(), std::size_t(1));
        QCOMPARE(parentOf(session.working(), pair.mmKernel), pair.mm);
    }
    // Reopen: the same inputs → loaded, and the same corrected links on the fresh link set.
    CorrectionSession reopened;
    const SidecarStatus &status = reopened.openSidecar(sidecarPath_, fingerprintFile(devicePath_), fingerprintFile(hostPath_));
    QCOMPARE(status.state, SidecarState::Loaded);
    QCOMPARE(reopened.policy(), Policy::ExternalId);
    const ApplyResult result = reopened.attach(pair.link(reopened.policy()), pair.b.trace, &pair.h.host);
    QCOMPARE(result.count(EditStatus::Applied), std::size_t(1));
    QCOMPARE(parentOf(reopened.working(), pair.kernel), pair.nccl);
    QCOMPARE(reopened.working().gpuLinks.at(reopened.working().gpuLinkOf.at(pair.kernel)).rule, ParentRule::Manual);
    // Entries loaded from the sidecar can be undone too.
    QVERIFY(reopened.undo());
    QCOMPARE(parentOf(reopened.working(), pair.kernel), pair.rpc);
    QVERIFY(loadSidecar(sidecarPath_).log.entries.empty());
}

void TestCorrectionsSession::relinkReappliesAndReportsStale()
{
    const Pair pair;
    CorrectionSession session;
    session.openSidecar(sidecarPath_, fingerprintFile(devicePath_), fingerprintFile(hostPath_));
    session.attach(pair.link(Policy::ExternalId), pair.b.trace, &pair.h.host);
    session.push({"reparent", {session.editor().reparent(pair.kernel, pair.nccl)}});
    Edit gone = session.editor().detach(pair.mmKernel);
    gone.subject.correlation = 424242;
    session.push({"stale", {gone}});
    QCOMPARE(session.outcomes(1).at(0).status, EditStatus::Stale);
    QCOMPARE(session.staleCount(), std::size_t(1));
    // A stale edit stays in the log and in the file.
    QCOMPARE(loadSidecar(sidecarPath_).log.entries.size(), std::size_t(2));

    // Policy change → relink → the whole log again, on the new links.
    session.setLinkOptions(Policy::Nesting, false);
    QCOMPARE(loadSidecar(sidecarPath_).policy, Policy::Nesting);
    const ApplyResult result = session.attach(pair.link(Policy::Nesting), pair.b.trace, &pair.h.host);
    QCOMPARE(result.outcomes.size(), std::size_t(2));
    QCOMPARE(result.count(EditStatus::Applied), std::size_t(1));
    QCOMPARE(result.count(EditStatus::Stale), std::size_t(1));
    QCOMPARE(parentOf(session.working(), pair.kernel), pair.nccl);
    QCOMPARE(session.working().policy, Policy::Nesting);
}

void TestCorrectionsSession::removeAndInsertEntries()
{
    const Pair pair;
    CorrectionSession session;
    session.openSidecar(sidecarPath_, fingerprintFile(devicePath_), std::nullopt);
    session.attach(pair.link(Policy::ExternalId), pair.b.trace, &pair.h.host);
    const LogEntry first{"reparent", {session.editor().reparent(pair.kernel, pair.nccl)}};
    const LogEntry second{"detach", {session.editor().detach(pair.mmKernel)}};
    session.push(first);
    session.push(second);
    // Removing the first (not the last) entry re-applies the rest from the linker's links.
    session.removeEntry(0);
    QCOMPARE(session.log().entries.size(), std::size_t(1));
    QCOMPARE(parentOf(session.working(), pair.kernel), pair.rpc);
    QCOMPARE(parentOf(session.working(), pair.mmKernel), kNone);
    QVERIFY(loadSidecar(sidecarPath_).log == session.log());
    session.insertEntry(0, first);
    QCOMPARE(parentOf(session.working(), pair.kernel), pair.nccl);
    QVERIFY(loadSidecar(sidecarPath_).log.entries.at(0) == first);
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, session.removeEntry(5));
}

void TestCorrectionsSession::mismatchedSidecarIsLeftUntouched()
{
    const Pair pair;
    {
        CorrectionSession session;
        session.openSidecar(sidecarPath_, fingerprintFile(devicePath_), fingerprintFile(hostPath_));
        session.attach(pair.link(Policy::Nesting), pair.b.trace, &pair.h.host);
        session.push({"detach", {session.editor().detach(pair.mmKernel)}});
    }
    const std::string saved = readFile(sidecarPath_);
    writeFile(devicePath_, "another device trace"); // the trace was regenerated

    CorrectionSession session;
    const SidecarStatus &status = session.openSidecar(sidecarPath_, fingerprintFile(devicePath_), fingerprintFile(hostPath_));
    QCOMPARE(status.state, SidecarState::Mismatch);
    QCOMPARE(status.problems.size(), std::size_t(1));
    QVERIFY(status.problems[0].find("rank0.json") != std::string::npos);
    session.attach(pair.link(Policy::Nesting), pair.b.trace, &pair.h.host);
    QVERIFY(session.log().entries.empty()); // not applied
    QCOMPARE(parentOf(session.working(), pair.mmKernel), pair.mm);
    // Editing does not overwrite it.
    session.push({"reparent", {session.editor().reparent(pair.kernel, pair.rpc)}});
    QVERIFY(!session.save());
    QVERIFY(session.lastSaveError().find("left untouched") != std::string::npos);
    QCOMPARE(readFile(sidecarPath_), saved);
    session.undo();
    QCOMPARE(readFile(sidecarPath_), saved);

    // Unless the user forces it: then its edits apply, and saving records the current inputs.
    QVERIFY(session.forcePendingSidecar());
    QCOMPARE(session.sidecar().state, SidecarState::Forced);
    QCOMPARE(parentOf(session.working(), pair.mmKernel), kNone);
    QVERIFY(session.save());
    QCOMPARE(loadSidecar(sidecarPath_).device.sha256, fingerprintFile(devicePath_).sha256);
}

void TestCorrectionsSession::invalidSidecarIsLeftUntouched()
{
    const Pair pair;
    writeFile(sidecarPath_, "{\"format\": \"linkscope-corrections\", \"version\": 1, \"inputs\": ");
    CorrectionSession session;
    const SidecarStatus &status = session.openSidecar(sidecarPath_, fingerprintFile(devicePath_), std::nullopt);
    QCOMPARE(status.state, SidecarState::Invalid);
    QVERIFY(status.problems.at(0).find("malformed JSON") != std::string::npos);
    QVERIFY(!session.forcePendingSidecar());
    session.attach(pair.link(Policy::Nesting), pair.b.trace, &pair.h.host);
    session.push({"detach", {session.editor().detach(pair.mmKernel)}});
    QCOMPARE(readFile(sidecarPath_), std::string("{\"format\": \"linkscope-corrections\", \"version\": 1, \"inputs\": "));
}

QTEST_GUILESS_MAIN(TestCorrectionsSession)
#include "test_corrections_session.moc"
