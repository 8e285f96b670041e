// What an edit changed (edit/linkchange.h): the ranges it reports cover every GPU link, finding group
// and edge that differs (checked against a comparison of every element), stay small for a small edit,
// and the resolved and created findings are exactly the set difference of the two lists.

#include "edit/correction.h"
#include "edit/linkchange.h"
#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "link/linker.h"
#include "link/rules.h"
#include "testsupport.h"

#include <QTest>

#include <algorithm>
#include <set>
#include <sstream>

using namespace linkscope::core;

namespace {

bool inRanges(const IndexRanges &ranges, std::size_t i)
{
    return std::any_of(ranges.begin(), ranges.end(), [&](const auto &r) { return r.first <= i && i < r.second; });
}

std::size_t coveredBy(const IndexRanges &ranges)
{
    std::size_t n = 0;
    for (const auto &[begin, end] : ranges)
        n += end - begin;
    return n;
}

bool sameLink(const GpuLink &a, const GpuLink &b)
{
    return a.gpuEvent == b.gpuEvent && a.parent == b.parent && a.launch == b.launch && a.rule == b.rule
           && a.hostNode == b.hostNode;
}

bool sameEdge(const Edge &a, const Edge &b) { return a.kind == b.kind && a.from == b.from && a.to == b.to; }

// Positions in `a` of the findings whose (kind, subject) no finding of `b` has.
std::vector<FindingIndex> missingByBruteForce(const FindingList &a, const FindingList &b)
{
    std::set<FindingRef> inB;
    for (const Finding &f : b)
        inB.insert(refOf(f));
    std::vector<FindingIndex> out;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!inB.count(refOf(a[i])))
            out.push_back(FindingIndex::at(i));
    return out;
}

struct Generated {
    HostTrace host;
    DeviceTrace device;
    LinkSet links;
};

Generated generated()
{
    linkscope::gen::GeneratorOptions options;
    options.steps = 200;
    options.devices = 2;
    std::ostringstream hostText, kinetoText, truth;
    linkscope::gen::generatePair(options, hostText, kinetoText, truth);
    Generated g{
        parseHostTrace(hostText.str(), "generated_host.json"), parseKinetoTrace(kinetoText.str(), "generated_kineto.json"), {}};
    g.links = linkTraces(g.device, &g.host);
    return g;
}

// Every difference between `was` and `now` lies inside what changeBetween reports.
void verifyCovers(const LinkSet &was, const LinkSet &now, const LinkSetChange &change)
{
    QVERIFY(change.sameOps);
    std::vector<GpuLinkIndex> reparented;
    for (std::size_t k = 0; k < now.gpuLinks.size(); ++k) {
        if (!sameLink(was.gpuLinks[k], now.gpuLinks[k]))
            QVERIFY2(inRanges(change.gpuOps, k), qPrintable(QStringLiteral("GPU link %1 changed outside the ranges").arg(k)));
        const auto [a, aEnd] = was.findings.ofGpuOp(k);
        const auto [b, bEnd] = now.findings.ofGpuOp(k);
        const bool sameFindings = aEnd - a == bEnd - b && std::equal(a, aEnd, b, [](const Finding &x, const Finding &y) {
                                      return refOf(x) == refOf(y) && x.message == y.message;
                                  });
        if (!sameFindings) {
            QVERIFY2(inRanges(change.findingOps, k), qPrintable(QStringLiteral("findings of GPU op %1 changed outside").arg(k)));
            QVERIFY(inRanges(change.gpuOps, k));
        }
        if (was.gpuLinks[k].parent != now.gpuLinks[k].parent || was.gpuLinks[k].gpuEvent != now.gpuLinks[k].gpuEvent)
            reparented.push_back(GpuLinkIndex::at(k));
    }
    QCOMPARE(reparentedLinks(was, now, change), reparented);
    for (std::size_t j = 0; j < std::max(was.edges.size(), now.edges.size()); ++j) {
        const bool same = j < was.edges.size() && j < now.edges.size() && sameEdge(was.edges[j], now.edges[j]);
        if (!same)
            QVERIFY2(inRanges(change.edges, j), qPrintable(QStringLiteral("edge %1 changed outside the ranges").arg(j)));
    }
    QCOMPARE(resolvedFindings(was.findings, now.findings), missingByBruteForce(was.findings, now.findings));
    QCOMPARE(createdFindings(was.findings, now.findings), missingByBruteForce(now.findings, was.findings));
}

} // namespace

class TestLinkChange : public QObject {
    Q_OBJECT

private slots:
    void unionOfRangesMerges()
    {
        QCOMPARE(unionOfRanges({{10, 20}, {0, 5}, {5, 7}}, {{15, 30}, {40, 40}, {50, 60}}),
                 (IndexRanges{{0, 7}, {10, 30}, {50, 60}}));
        QCOMPARE(unionOfRanges({}, {}), IndexRanges{});
    }

    void oneReparentIsOneChunk()
    {
        const Generated g = generated();
        QVERIFY(g.links.gpuLinks.chunkCount() >= 3);
        const std::size_t middle = g.links.gpuLinks.size() / 2;
        EventIndex gpu, target;
        for (std::size_t i = middle; i < g.links.gpuLinks.size() && target.isNone(); ++i)
            for (EventIndex c : reparentCandidates(g.device, g.links, g.links.gpuLinks[i].gpuEvent))
                if (c != g.links.gpuLinks[i].parent) {
                    gpu = g.links.gpuLinks[i].gpuEvent;
                    target = c;
                    break;
                }
        QVERIFY(target.valid());
        LinkSet now = g.links;
        LinkEditor editor(now, g.device, &g.host);
        editor.apply({"move", {editor.reparent(gpu, target)}});
        const LinkSetChange change = changeBetween(g.links, now);
        verifyCovers(g.links, now, change);
        QCOMPARE(reparentedLinks(g.links, now, change), std::vector<GpuLinkIndex>{now.gpuLinkOf[gpu]});
        // A small edit is a small change: one chunk of links, nothing trace-wide or host-side.
        QVERIFY(coveredBy(change.gpuOps) <= 4096);
        QVERIFY(coveredBy(change.gpuOps) < now.gpuLinks.size());
        QVERIFY(!change.traceWideFindingsChanged);
        QVERIFY(!change.hostSideFindingsChanged);

        // And back: the undo's change covers the same links, and what one resolved the other created.
        LinkSet undone = now;
        LinkEditor undoer(undone, g.device, &g.host);
        undoer.apply({"back", {undoer.reparent(gpu, g.links.gpuLinks[g.links.gpuLinkOf[gpu]].parent)}});
        const LinkSetChange back = changeBetween(now, undone);
        verifyCovers(now, undone, back);
        QCOMPARE(createdFindings(now.findings, undone.findings).size(), resolvedFindings(g.links.findings, now.findings).size());
    }

    void bulkSuggestionsAreCovered()
    {
        const Generated g = generated();
        LinkSet now = g.links;
        LinkEditor editor(now, g.device, &g.host);
        std::size_t applied = 0;
        for (int kind = 0; kind < kFindingKindCount; ++kind) {
            const LogEntry entry = editor.applySuggestions(static_cast<FindingKind>(kind));
            if (entry.edits.empty())
                continue;
            editor.apply(entry);
            applied += entry.edits.size();
        }
        const LinkSetChange change = changeBetween(g.links, now);
        verifyCovers(g.links, now, change);
        if (applied > 0)
            QVERIFY(!change.gpuOps.empty());
    }

    void anotherLinkingIsNotTheSameOps()
    {
        const Generated g = generated();
        const LinkSet again = linkTraces(g.device, &g.host); // its own event → link table
        const LinkSetChange change = changeBetween(g.links, again);
        QVERIFY(!change.sameOps);
        QVERIFY(change.gpuOps.empty());
        // Resolved and created findings still compare every finding.
        QCOMPARE(resolvedFindings(g.links.findings, again.findings), missingByBruteForce(g.links.findings, again.findings));
    }
};

QTEST_GUILESS_MAIN(TestLinkChange)
#include "test_linkchange.moc"
