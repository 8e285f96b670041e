#pragma once
// What the GUI tests of reviewing and correcting links share (test_review, test_reviewchange,
// test_reviewsidecar): the seed fixture pair copied where its sidecar may be written, and checks.

#include "docks/findingsmodel.h"
#include "ground/tracedocument.h"
#include "testsupport.h"

#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

namespace linkscope::test {

// The seed fixture pair (tests/data/export: three kernels, test_review.cpp names its facts) copied
// into a new temporary folder `dir`, so that its sidecar is written there. False when it cannot be.
inline bool copySeedPair(std::unique_ptr<QTemporaryDir> &dir, QString &host, QString &device)
{
    dir = std::make_unique<QTemporaryDir>();
    if (!dir->isValid())
        return false;
    host = dir->filePath(QStringLiteral("seed_host_et.json"));
    device = dir->filePath(QStringLiteral("seed_kineto.json"));
    return std::filesystem::copy_file(dataPath("export/seed_host_et.json"), host.toStdString())
           && std::filesystem::copy_file(dataPath("export/seed_kineto.json"), device.toStdString());
}

// The first event of `category` whose name starts with `prefix`, or none.
inline core::EventIndex eventNamed(const ui::TraceDocument &doc, const QString &prefix, core::EventCategory category)
{
    for (core::EventIndex e{0}; e.get() < doc.eventCount(); ++e)
        if (doc.event(e).category == category && doc.eventName(e).startsWith(prefix))
            return e;
    return core::kNone;
}

// The Findings model's rows after edits (resolved findings found where the findings chunks
// differ, causes copied where shared) are what deriving them from scratch gives.
inline void expectFindingsRowsDerivedInFull(const ui::FindingsModel &model, const ui::TraceDocument &shown,
                                            const ui::TraceDocument &linked)
{
    std::vector<core::FindingRef> current;
    for (const core::Finding &f : shown.links().findings)
        current.push_back(core::refOf(f));
    std::sort(current.begin(), current.end());
    std::vector<std::uint32_t> resolved;
    for (std::uint32_t i = 0; i < linked.links().findings.size(); ++i)
        if (!std::binary_search(current.begin(), current.end(), core::refOf(linked.links().findings[i])))
            resolved.push_back(i);
    const std::size_t rows = shown.links().findings.size();
    QCOMPARE(model.rowCount(), static_cast<int>(rows + resolved.size()));
    for (std::size_t r = 0; r < rows; ++r) {
        QVERIFY(!model.isResolved(static_cast<int>(r)));
        QVERIFY(model.causeOf(static_cast<int>(r)) == core::causeOf(shown.links().findings[r], shown.device(), shown.links()));
    }
    for (std::size_t k = 0; k < resolved.size(); ++k) {
        const int row = static_cast<int>(rows + k);
        QVERIFY(model.isResolved(row));
        QVERIFY(core::refOf(model.finding(row)) == core::refOf(linked.links().findings[resolved[k]]));
        QVERIFY(model.causeOf(row) == core::causeOf(linked.links().findings[resolved[k]], linked.device(), linked.links()));
    }
}

} // namespace linkscope::test
