// Bookmarks (time markers): their order, their names, and their round trip through the
// corrections sidecar — written only when there are any, an old sidecar without them still read,
// a bad one refused with the JSON pointer of the value, saved and reloaded by CorrectionSession.

#include "edit/bookmarks.h"
#include "edit/correctionsession.h"
#include "edit/inputfingerprint.h"
#include "edit/sidecar.h"
#include "testsupport.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>

using namespace linkscope::core;

namespace {

void writeFile(const std::string &path, const std::string &content)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

Sidecar minimalSidecar()
{
    Sidecar s;
    s.generator = "linkscope test";
    s.device = FileFingerprint{"/data/rank0.json", 18, std::string(64, 'a')};
    s.policy = Policy::ExternalId;
    return s;
}

// A version-1 sidecar as Linkscope wrote it before bookmarks existed.
const char *kOldSidecar = R"({
  "format": "linkscope-corrections",
  "version": 1,
  "generator": "linkscope 0.1.0",
  "inputs": { "device": { "path": "/data/rank0.json", "size": 18,
                          "sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" } },
  "link_options": { "policy": "external-id", "inter_thread_deps": false },
  "entries": []
})";

} // namespace

class TestBookmarks : public QObject {
    Q_OBJECT
private slots:
    void orderAndNames();
    void roundTripThroughSidecar();
    void oldSidecarWithoutBookmarksLoads();
    void badBookmarksNameTheValue();
    void sessionSavesAndReloadsBookmarks();
    void longTextsAreCutOnReadingWithAWarning();
    void nextNameIsOnePass();
};

void TestBookmarks::orderAndNames()
{
    BookmarkList list;
    QCOMPARE(nextBookmarkName(list), std::string("Bookmark 1"));
    QCOMPARE(insertBookmark(list, {300, "c"}), std::size_t(0));
    QCOMPARE(insertBookmark(list, {100, "a"}), std::size_t(0));
    QCOMPARE(insertBookmark(list, {300, "d"}), std::size_t(2)); // after the one at the same time
    QCOMPARE(insertBookmark(list, {200, "Bookmark 1"}), std::size_t(1));
    QCOMPARE(list.size(), std::size_t(4));
    QCOMPARE(list[0].name, std::string("a"));
    QCOMPARE(list[1].name, std::string("Bookmark 1"));
    QCOMPARE(list[2].name, std::string("c"));
    QCOMPARE(list[3].name, std::string("d"));
    QCOMPARE(nextBookmarkName(list), std::string("Bookmark 2")); // "Bookmark 1" is taken
    BookmarkList shuffled{{5, "x"}, {1, "y"}, {5, "z"}, {-3, "w"}};
    sortBookmarks(shuffled);
    QCOMPARE(shuffled, (BookmarkList{{-3, "w"}, {1, "y"}, {5, "x"}, {5, "z"}}));
}

void TestBookmarks::roundTripThroughSidecar()
{
    Sidecar s = minimalSidecar();
    s.bookmarks = {{1'000'000, "warm-up ends"}, {2'500'123, ""}, {9'223'372'036'854'775'807LL, "ünïcode ☃"}};
    const std::string text = sidecarText(s);
    const nlohmann::json json = nlohmann::json::parse(text);
    // Additive and ignorable: the version does not change, so an older reader still opens the file.
    QCOMPARE(json["version"].get<int>(), 1);
    QVERIFY(json["bookmarks"].is_array());
    QCOMPARE(json["bookmarks"][0]["ts_ns"].get<std::int64_t>(), std::int64_t(1'000'000));
    QCOMPARE(json["bookmarks"][0]["name"].get<std::string>(), std::string("warm-up ends"));
    const Sidecar back = parseSidecar(text, "round-trip");
    QCOMPARE(back.bookmarks, s.bookmarks);
    QCOMPARE(sidecarText(back), text);

    // Out of order in the file: read in time order.
    nlohmann::json shuffled = json;
    std::swap(shuffled["bookmarks"][0], shuffled["bookmarks"][2]);
    QCOMPARE(parseSidecar(shuffled.dump(), "shuffled").bookmarks, s.bookmarks);
}

void TestBookmarks::oldSidecarWithoutBookmarksLoads()
{
    const Sidecar old = parseSidecar(kOldSidecar, "old.linkscope.json");
    QVERIFY(old.bookmarks.empty());
    QCOMPARE(old.policy, Policy::ExternalId);
    // Without bookmarks nothing is written for them: the file is what an older Linkscope writes.
    const std::string text = sidecarText(old);
    QVERIFY(!nlohmann::json::parse(text).contains("bookmarks"));
    QVERIFY(text.find("bookmarks") == std::string::npos);
}

void TestBookmarks::badBookmarksNameTheValue()
{
    auto errorOf = [](const std::string &bookmarks) -> std::string {
        nlohmann::json json = nlohmann::json::parse(kOldSidecar);
        json["bookmarks"] = nlohmann::json::parse(bookmarks);
        try {
            parseSidecar(json.dump(), "bad.linkscope.json");
        } catch (const LoadError &e) {
            return e.what();
        }
        return "(accepted)";
    };
    const std::string notArray = errorOf(R"({"ts_ns": 1})");
    QVERIFY2(notArray.find("bad.linkscope.json") != std::string::npos
                 && notArray.find("/bookmarks: expected an array") != std::string::npos,
             notArray.c_str());
    const std::string noTime = errorOf(R"([{"ts_ns": 1, "name": "ok"}, {"name": "no time"}])");
    QVERIFY2(noTime.find("/bookmarks/1: missing \"ts_ns\"") != std::string::npos, noTime.c_str());
    const std::string textTime = errorOf(R"([{"ts_ns": "12"}])");
    QVERIFY2(textTime.find("/bookmarks/0/ts_ns: expected an integer") != std::string::npos, textTime.c_str());
    const std::string numberName = errorOf(R"([{"ts_ns": 12, "name": 3}])");
    QVERIFY2(numberName.find("/bookmarks/0/name: expected a string") != std::string::npos, numberName.c_str());
    // A name is optional.
    nlohmann::json json = nlohmann::json::parse(kOldSidecar);
    json["bookmarks"] = nlohmann::json::parse(R"([{"ts_ns": 7}])");
    QCOMPARE(parseSidecar(json.dump(), "unnamed").bookmarks, (BookmarkList{{7, ""}}));
}

void TestBookmarks::sessionSavesAndReloadsBookmarks()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string device = dir.filePath("rank0.json").toStdString();
    writeFile(device, "device trace bytes");
    const std::string sidecar = defaultSidecarPath(device);
    {
        CorrectionSession session;
        session.openSidecar(sidecar, fingerprintFile(device), std::nullopt);
        QVERIFY(!std::filesystem::exists(sidecar));
        // A bookmark is a change like an edit: it creates the sidecar (no correction needed).
        session.setBookmarks({{500, "late"}, {100, "early"}});
        QVERIFY(std::filesystem::exists(sidecar));
        QCOMPARE(session.bookmarks(), (BookmarkList{{100, "early"}, {500, "late"}}));
        QCOMPARE(loadSidecar(sidecar).bookmarks, session.bookmarks());
    }
    CorrectionSession reopened;
    QCOMPARE(reopened.openSidecar(sidecar, fingerprintFile(device), std::nullopt).state, SidecarState::Loaded);
    QCOMPARE(reopened.bookmarks(), (BookmarkList{{100, "early"}, {500, "late"}}));
    reopened.setBookmarks({});
    QVERIFY(loadSidecar(sidecar).bookmarks.empty());
    QVERIFY(!nlohmann::json::parse(linkscope::test::readFile(sidecar)).contains("bookmarks")); // emptied: the key goes

    // A sidecar of other inputs: its bookmarks are not taken, and the file keeps them.
    Sidecar other = loadSidecar(sidecar);
    other.device.sha256 = std::string(64, 'b');
    other.bookmarks = {{42, "theirs"}};
    saveSidecar(other, sidecar);
    CorrectionSession mismatched;
    QCOMPARE(mismatched.openSidecar(sidecar, fingerprintFile(device), std::nullopt).state, SidecarState::Mismatch);
    QVERIFY(mismatched.bookmarks().empty());
    mismatched.setBookmarks({{1, "mine"}});
    QCOMPARE(loadSidecar(sidecar).bookmarks, (BookmarkList{{42, "theirs"}}));
    // Applied anyway: they come with the log.
    CorrectionSession forced;
    forced.openSidecar(sidecar, fingerprintFile(device), std::nullopt);
    QVERIFY(forced.forcePendingSidecar());
    QCOMPARE(forced.bookmarks(), (BookmarkList{{42, "theirs"}}));
}

// Issue 42, N7: a bookmark name, note or step label past kSidecarTextLimit is cut where the file is
// read, at a character boundary, each cut named (file, JSON pointer, the bookmark's time, the bytes).
void TestBookmarks::longTextsAreCutOnReadingWithAWarning()
{
    QCOMPARE(cutText("short"), std::string("short"));
    QCOMPARE(cutText("abc\xe2\x98\x83", 5), std::string("abc")); // ☃ is 3 bytes: not split
    QCOMPARE(cutText("abc\xe2\x98\x83", 6), std::string("abc\xe2\x98\x83"));
    QCOMPARE(cutText(std::string(10, 'a'), 0), std::string());

    nlohmann::json json = nlohmann::json::parse(kOldSidecar);
    const std::string huge(3u << 20, 'n');
    json["bookmarks"] = nlohmann::json::array({{{"ts_ns", 42}, {"name", "fine"}}, {{"ts_ns", 7}, {"name", huge}}});
    json["entries"] = nlohmann::json::array(
        {{{"label", huge},
          {"edits",
           nlohmann::json::array(
               {{{"kind", "note"}, {"subject", {{"kind", "host_node"}, {"id", 3}, {"name", "aten::mm"}}}, {"note", huge}}})}}});
    const Sidecar read = parseSidecar(json.dump(), "long.linkscope.json");
    QCOMPARE(read.bookmarks.size(), std::size_t(2));
    QCOMPARE(read.bookmarks[0].ts, Nanos(7)); // in time order
    QCOMPARE(read.bookmarks[0].name, std::string(kSidecarTextLimit, 'n'));
    QCOMPARE(read.bookmarks[1].name, std::string("fine"));
    QCOMPARE(read.log.entries.at(0).label.size(), kSidecarTextLimit);
    QCOMPARE(read.log.entries.at(0).edits.at(0).note.size(), kSidecarTextLimit);
    QCOMPARE(read.warnings.size(), std::size_t(3));
    const std::string bytes = std::to_string(huge.size());
    auto has = [&](const std::string &start) {
        for (const std::string &w : read.warnings)
            if (w.rfind(start, 0) == 0 && w.find(bytes + " bytes cut to its first 4096 bytes") != std::string::npos
                && w.find("kept and saved") != std::string::npos)
                return true;
        return false;
    };
    QVERIFY(has("long.linkscope.json: /bookmarks/1/name: bookmark name (at ts_ns 7)"));
    QVERIFY(has("long.linkscope.json: /entries/0/label: step label"));
    QVERIFY(has("long.linkscope.json: /entries/0/edits/0/note: note"));
    // What is saved is the cut text, and reading that again warns of nothing.
    const Sidecar again = parseSidecar(sidecarText(read), "again.linkscope.json");
    QCOMPARE(again.bookmarks, read.bookmarks);
    QVERIFY(again.warnings.empty());
}

// Issue 42, N9: the next free "Bookmark N" among 100,000 taken is found in one pass (it asked every
// N against the whole list: 10^10 comparisons).
void TestBookmarks::nextNameIsOnePass()
{
    BookmarkList list;
    for (int i = 1; i <= 100000; ++i)
        list.push_back({i, "Bookmark " + std::to_string(i)});
    list.push_back({0, "Bookmark 0100001"}); // not what the name of 100001 would be
    list.push_back({0, "Bookmark 99999999999999999999999"});
    list.push_back({0, "Bookmark -3"});
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(nextBookmarkName(list), std::string("Bookmark 100001"));
    QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
    list[49999].name = "renamed";
    QCOMPARE(nextBookmarkName(list), std::string("Bookmark 50000"));
}

QTEST_GUILESS_MAIN(TestBookmarks)
#include "test_bookmarks.moc"
